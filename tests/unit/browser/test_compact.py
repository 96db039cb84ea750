"""Compact line format and seed 003 §6.1-6.2 trimming, on hand-built nodes (no browser)."""

from __future__ import annotations

import pytest

from workers.browser.observe import compact, tokens
from workers.browser.observe.refs import RefError, parse_ref
from workers.browser.observe.snapshot import Node, Snapshot, Viewport

VP = Viewport(1280, 800, 0, 0, 1280, 5000)


def node(i: int, role: str = "text", name: str = "", **kw: object) -> Node:
    base: dict[str, object] = {
        "ref": f"3:{i}",
        "index": i,
        "role": role,
        "name": name,
        "value": None,
        "states": (),
        "bbox": (0.0, float(i * 20), 100.0, 20.0),
        "frame": (),
        "in_viewport": True,
        "interactive": role not in ("text", "heading"),
    }
    base.update(kw)
    return Node(**base)  # type: ignore[arg-type]


def test_line_format() -> None:
    assert compact.line(node(12, "button", "Sort by price")) == '[3:12] button "Sort by price"'
    email = node(14, "textbox", "Email", value="a@b.c", states=("required",))
    assert compact.line(email) == '[3:14] textbox "Email" value="a@b.c" required'
    assert compact.line(node(2, "heading", "Products", level=2)) == "## Products"
    assert compact.line(node(3, "text", "Free shipping")) == "Free shipping"
    assert compact.line(node(4, "button", "")) == "[3:4] button"
    quoted = node(5, "link", 'Say "hi"')
    assert compact.line(quoted) == '[3:5] link "Say \\"hi\\""'


def test_landmark_lines_and_no_trim_when_small() -> None:
    nodes = [
        node(1, "link", "Home", landmark="navigation"),
        node(2, "text", "Hello", landmark="main"),
    ]
    text = compact.render(nodes, 3, VP, max_tokens=1000)
    assert text.splitlines() == [
        "[viewport shows 0-800px of 5000px page height]",
        "== navigation ==",
        '[3:1] link "Home"',
        "== main ==",
        "Hello",
    ]


def _long_page() -> list[Node]:
    nodes = [node(1, "heading", "Shop", level=1, heading="Shop", landmark="main")]
    i = 2
    for item in range(1, 41):
        for role, name in (("link", f"Product {item}"), ("text", f"{item}.00 EUR")):
            nodes.append(
                node(
                    i,
                    role,
                    name,
                    in_viewport=False,
                    landmark="main",
                    list_id="L1",
                    item=item,
                    heading="Shop",
                )
            )
            i += 1
    nodes.append(node(i, "button", "Next page", in_viewport=False, landmark="main", heading="Shop"))
    return nodes


def test_long_list_shows_first_items_and_pattern_line() -> None:
    text = compact.render(_long_page(), 3, VP, max_tokens=400)
    assert '[3:2] link "Product 1"' in text
    assert "Product 3" in text and 'Product 4"' not in text.split("trimmed")[0]
    assert '[refs 8-81 trimmed: 37 more items like "Product 4"]' in text
    assert '[3:82] button "Next page"' in text
    assert tokens.count_tokens(text) <= 400


def test_tight_budget_summarises_sections_with_ref_ranges() -> None:
    text = compact.render(_long_page(), 3, VP, max_tokens=40)
    assert "Shop" in text
    assert "trimmed" in text and "refs 2-" in text
    assert tokens.count_tokens(text) <= 40


def test_unlimited_render_keeps_everything() -> None:
    text = compact.render(_long_page(), 3, VP, max_tokens=None)
    assert "Product 40" in text and "trimmed" not in text


def test_viewport_over_budget_is_cut_with_marker() -> None:
    nodes = [node(i, "text", "word " * 30) for i in range(1, 60)]
    text = compact.render(nodes, 3, VP, max_tokens=100)
    assert tokens.count_tokens(text) <= 100
    assert text.splitlines()[-1].endswith("trimmed: rest of the page]")


def test_snapshot_expand_and_lookup() -> None:
    nodes = tuple(_long_page())
    snap = Snapshot(3, "http://x", "x", nodes, "", {}, VP)
    assert snap.node("3:82") is not None and snap.node("2:82") is None
    part = snap.expand(70, 82, max_tokens=1000)
    assert "Product 35" in part and 'Product 1"' not in part and "Next page" in part


def test_parse_ref() -> None:
    assert parse_ref("3:12") == (3, 12)
    assert parse_ref("[3:12]") == (3, 12)
    with pytest.raises(RefError) as err:
        parse_ref("12")
    assert err.value.code == "bad_ref"


def test_far_sections_stay_one_summary_line_even_with_budget_left() -> None:
    near = [node(1, "link", "Near link", landmark="main", heading="A")]
    far = [
        node(i, "link", f"Far link {i}", in_viewport=False, bbox=(0.0, 3000.0 + i, 100.0, 20.0))
        for i in range(2, 6)
    ]
    text = compact.render(near + far, 3, VP, max_tokens=10_000)
    assert '[3:1] link "Near link"' in text
    assert "[3:2]" not in text  # announced below the viewport, not shown
    assert '[refs 2-5 trimmed: content like "Far link 2" (4 link)]' in text  # below the view
    assert text.splitlines()[-1].startswith("[refs 2-5 trimmed:")
    full = compact.render(near + far, 3, VP, max_tokens=None)
    assert '[3:5] link "Far link 5"' in full
