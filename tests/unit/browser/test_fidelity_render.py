"""Issue 7 rendering on hand-built nodes: read_text markers (class 9), grid rows (class 10),
above/below-viewport lines (class 6), main content filling the budget and real token counts
(class 11)."""

from __future__ import annotations

from dataclasses import replace

from tests.unit.browser.test_compact import VP, node
from workers.browser.observe import compact, tokens
from workers.browser.observe.snapshot import Viewport


def test_cut_text_names_its_length_and_ref() -> None:
    long = node(7, "text", "x" * 1000)
    assert compact.line(long, 300) == "x" * 300 + "…[+700 chars: read_text 3:7]"
    clipped_in_page = node(8, "button", "y" * 100, full_len=4100)
    shown = compact.line(clipped_in_page)  # cut in the page: a shorter prefix and the marker
    assert shown == '[3:8] button "' + "y" * 80 + '…[+4020 chars: read_text 3:8]"'
    near_cap = node(10, "text", "z" * 350)  # under the cap plus the slack: whole, no marker
    assert compact.line(near_cap, 300) == "z" * 350
    assert compact.line(node(9, "text", "short"), 300) == "short"


def test_grid_cells_share_a_line_per_row_with_empty_cells_kept() -> None:
    cells = [
        node(1, "text", "Time", grid="G1", row=1, col=1),
        node(2, "text", "Mon", grid="G1", row=1, col=2),
        node(3, "text", "Tue", grid="G1", row=1, col=3),
        node(4, "text", "9:00", grid="G1", row=2, col=1),
        node(5, "button", "Standup", grid="G1", row=2, col=3),
    ]
    lines = compact.render(cells, 3, Viewport(1280, 800, 0, 0, 1280, 800), 1000).splitlines()
    assert lines == ["Time | Mon | Tue", '9:00 |  | [3:5] button "Standup"']


def test_viewport_edges_are_announced() -> None:
    above = [
        node(i, "link", f"Inbox {i}", in_viewport=False, bbox=(0, -900.0 + i, 10, 10))
        for i in (1, 2)
    ]
    shown = [node(3, "link", "Visible")]
    below = [node(4, "link", "Later", in_viewport=False, bbox=(0, 3000.0, 10, 10))]
    text = compact.render(above + shown + below, 3, VP, 1000)
    lines = text.splitlines()
    i = lines.index("[above viewport]")
    assert lines[i + 1] == '[3:3] link "Visible"'
    assert lines[i + 2] == "[below viewport]"
    assert "Inbox 1" in "\n".join(lines[:i]) and "Later" in lines[-1]  # shown on their side
    only = compact.render(shown, 3, VP, 1000)
    assert "viewport:" not in only  # nothing off-screen: no marks
    edge = node(5, "link", "Last", in_viewport=False, bbox=(0, VP.height + 20, 10, 10))
    just_past = compact.render([*shown, edge], 3, VP, 1000).splitlines()
    assert just_past[1:] == ['[3:3] link "Visible"', '[3:5] link "Last"']  # a line past the edge


def test_unused_budget_fills_with_main_content_headings_first() -> None:
    logo = node(1, "text", "Logo", landmark="banner")
    far = {"in_viewport": False, "landmark": "main > article", "heading": "Headline"}
    article = [
        node(2, "heading", "Headline", level=1, bbox=(0, 2500.0, 10, 10), **far),
        node(3, "text", "By Lois Lane", bbox=(0, 2520.0, 10, 10), **far),
    ] + [
        node(i, "text", f"Body paragraph {i} " * 30, bbox=(0, 2500.0 + i * 30, 10, 10), **far)
        for i in range(4, 40)
    ]
    text = compact.render([logo, *article], 3, VP, max_tokens=1500)
    assert "# Headline" in text and "By Lois Lane" in text and "Body paragraph 4 " in text
    assert "Body paragraph 39" not in text and "more lines]" in text
    assert tokens.count_tokens(text) <= 1500 // 3 + 20
    elsewhere = [replace(n, landmark="complementary") for n in article]
    aside = compact.render([logo, *elsewhere], 3, VP, max_tokens=600)
    assert "# Headline" not in aside  # only main/article content fills the budget


def test_cjk_is_counted_in_real_tokens() -> None:
    cjk = "東京都の新しい橋が開通しました。市民は喜んでいます。" * 20
    assert tokens.count_tokens(cjk) > len(cjk) // 4 * 1.5  # chars/4 would under-count it
    assert tokens.estimate_tokens(cjk) >= len(cjk) * 0.9
    nodes = [node(i, "text", cjk) for i in range(1, 30)]
    text = compact.render(nodes, 3, VP, max_tokens=500)
    assert tokens.count_tokens(text) <= 500


def test_covered_says_by_what_when_known() -> None:
    hidden = node(4, "button", "Buy", states=("covered", "focused"), cover='"Cookie banner"')
    assert compact.line(hidden) == '[3:4] button "Buy" covered by "Cookie banner" focused'
    assert compact.line(replace(hidden, cover="")) == '[3:4] button "Buy" covered focused'
