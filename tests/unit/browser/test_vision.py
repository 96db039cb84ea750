"""Vision box parsing, compound-row splitting, snapper scoring and DOM enrichment."""

from __future__ import annotations

import math

import pytest

from workers.browser.observe.vision import (
    Candidate,
    Rect,
    VisionBox,
    chevron_count,
    chevron_weight,
    enrich,
    match,
    missing_labels,
    parse_reply,
    render_boxes,
    snap,
    snap_score,
    split_compound,
)

W, H = 1000.0, 500.0  # screenshot CSS size: 0-1000 maps x to px 1:1, y to half


def test_parse_fenced_json_with_page_type_and_v_labels() -> None:
    reply = """Here you go:
```json
{"page_type": "Search_Results", "boxes": [
  {"id": "[V2]", "label": "Search", "box_2d": [100, 200, 140, 400], "confidence": 0.9},
  {"label": "[V5] Filters", "bbox": [0, 0, 100, 100], "intent_relevant": true},
]}
```"""
    parsed = parse_reply(reply, width=W, height=H)
    assert parsed.page_type == "search_results"
    a, b = parsed.boxes
    assert (a.index, a.label, a.confidence) == (2, "Search", 0.9)
    assert a.rect == Rect(200, 50, 400, 70)  # [ymin,xmin,ymax,xmax] → x0,y0,x1,y1
    assert (b.index, b.label, b.intent_relevant) == (5, "Filters", True)


def test_parse_bare_list_swapped_fractional_and_clamped_coordinates() -> None:
    reply = (
        '[{"label": "A", "box": [0.5, 0.1, 0.2, 0.3]},'
        ' {"label": "B", "box": [900, 900, 1200, 1100]}]'
    )
    a, b = parse_reply(reply, width=W, height=H).boxes
    assert a.rect == Rect(100, 100, 300, 250)  # fractions, ymin/ymax swapped back
    assert b.rect == Rect(900, 450, 1000, 500)  # clamped to the screenshot
    assert (a.index, b.index) == (1, 2)


def test_parse_line_format_fallback() -> None:
    reply = (
        "page_type: checkout_form\n[V1] Email field [10, 20, 30, 60]\nV3: Pay now (50, 50, 90, 200)"
    )
    parsed = parse_reply(reply, width=W, height=H)
    assert parsed.page_type == "checkout_form"
    assert [(b.index, b.label) for b in parsed.boxes] == [(1, "Email field"), (3, "Pay now")]


def test_parse_drops_degenerate_and_reindexes_duplicates() -> None:
    reply = (
        '{"elements": [{"id": "V1", "label": "a", "box_2d": [10, 10, 50, 50]},'
        '{"id": "V1", "label": "b", "box_2d": [60, 60, 90, 90]},'
        '{"label": "flat", "box_2d": [10, 10, 10, 90]}, {"label": "nobox"}]}'
    )
    parsed = parse_reply(reply, width=W, height=H)
    assert [b.index for b in parsed.boxes] == [1, 2]
    assert parsed.dropped == 2


def test_parse_garbage_gives_nothing() -> None:
    parsed = parse_reply("I cannot see any elements.", width=W, height=H)
    assert parsed.boxes == () and parsed.page_type == ""


def test_parse_dict_coordinates() -> None:
    reply = '[{"label": "x", "bounding_box": {"ymin": 0, "xmin": 0, "ymax": 500, "xmax": 500}}]'
    (box,) = parse_reply(reply, width=W, height=H).boxes
    assert box.rect == Rect(0, 0, 500, 250)


ROW = Rect(100, 100, 300, 130)  # 200 x 30: row-shaped
LABEL = Candidate("1:1", Rect(100, 100, 270, 130), role="button", name="United States")
CHEVRON = Candidate(
    "1:2", Rect(275, 105, 295, 125), role="button", name="▾", states=frozenset({"collapsed"})
)


def test_chevron_count_and_weight_follow_eq_11_12() -> None:
    assert chevron_count(LABEL) == 0
    assert chevron_count(CHEVRON) == 2  # aria-expanded present + glyph
    more = Candidate("x", CHEVRON.rect, name="Show more", haspopup=True)
    assert chevron_count(more) == 2
    assert chevron_weight(CHEVRON, ROW) == pytest.approx(1 + 2 * math.tanh(1))
    assert chevron_weight(CHEVRON, Rect(0, 0, 50, 20)) == 1.0  # not a row
    assert chevron_weight(LABEL, ROW) == 1.0


def test_snapper_prefers_small_chevron_in_row_when_area_ratio_below_chi() -> None:
    # Proposition 1: chevron wins when a(label)/a(chevron) < χ(chevron)
    row = Rect(200, 100, 300, 130)
    label = Candidate("1:1", Rect(200, 100, 260, 130), name="Region")
    chev = Candidate("1:2", Rect(262, 100, 300, 130), name="▾", states=frozenset({"collapsed"}))
    assert snap(row, [label, chev]) is chev
    assert snap_score(label, row) > snap_score(chev, row) / chevron_weight(chev, row)
    assert snap(ROW, [LABEL, CHEVRON]) is LABEL  # chevron far too small here: area wins


def test_snapper_label_factor_and_empty() -> None:
    a = Candidate("1:1", Rect(0, 0, 50, 50), name="Cancel")
    b = Candidate("1:2", Rect(50, 0, 100, 50), name="OK")
    box = Rect(0, 0, 100, 50)
    assert snap(box, [a, b], "OK") is b
    assert snap(Rect(500, 500, 600, 600), [a, b]) is None


def test_split_compound_row_into_chip_and_chevron() -> None:
    box = VisionBox(1, "United States", ROW)
    chip, chev = split_compound(box, [LABEL, CHEVRON])
    assert chip.part == "chip" and chip.rect == Rect(100, 100, 275, 130)
    assert chev.part == "chevron" and chev.ref == "1:2" and chev.rect == CHEVRON.rect
    assert "expand" in chev.label


def test_split_leaves_plain_and_small_boxes_alone() -> None:
    plain = VisionBox(1, "Label", ROW)
    assert split_compound(plain, [LABEL]) == (plain,)
    small = VisionBox(1, "Tiny", Rect(270, 100, 300, 130))  # 30 px wide: not a row
    assert split_compound(small, [CHEVRON]) == (small,)
    whole = Candidate("1:9", ROW, name="Menu ▾", states=frozenset({"collapsed"}))
    assert split_compound(plain, [whole]) == (plain,)  # the control is the whole row


def test_match_by_iou_then_by_snapper() -> None:
    a = Candidate("1:1", Rect(0, 0, 100, 40), name="Search")
    b = Candidate("1:2", Rect(0, 50, 100, 90), name="Go")
    assert match(VisionBox(1, "Search", Rect(2, 2, 98, 38)), [a, b]) is a
    # a big box around b only: IoU small, snapper picks the candidate centred inside
    assert match(VisionBox(1, "", Rect(0, 45, 400, 300)), [a, b]) is b
    assert match(VisionBox(1, "", Rect(500, 500, 600, 600)), [a, b]) is None


def test_enrich_adds_dom_metadata_splits_and_renumbers() -> None:
    toggle = Candidate("2:1", Rect(0, 0, 200, 30), name="Filters", states=frozenset({"expanded"}))
    chip = Candidate(
        "2:2",
        Rect(0, 40, 120, 70),
        name="Red",
        states=frozenset({"checked"}),
        labelledby="Colour red",
    )
    chev = Candidate("2:3", Rect(125, 45, 145, 65), name="▸", states=frozenset({"collapsed"}))
    boxes = [
        VisionBox(7, "Red", Rect(0, 40, 150, 70)),
        VisionBox(3, "Filters", Rect(0, 0, 200, 30)),
    ]
    out = enrich(boxes, [toggle, chip, chev])
    assert [b.index for b in out] == [1, 2, 3]
    filters, red, red_chev = out
    assert (filters.ref, filters.expanded) == ("2:1", True)
    assert (red.ref, red.active, red.labelledby, red.part) == ("2:2", True, "Colour red", "chip")
    assert (red_chev.ref, red_chev.expanded, red_chev.part) == ("2:3", False, "chevron")
    assert red.parent_expand == 1 and filters.parent_expand is None
    text = render_boxes(out)
    assert '[V2] Red (ref=2:2, active, labelledby="Colour red", in=V1)' in text


def test_render_puts_relevant_boxes_first_and_missing_labels() -> None:
    boxes = [
        VisionBox(1, "Home", Rect(0, 0, 10, 10)),
        VisionBox(2, "Checkout", Rect(0, 20, 10, 30), intent_relevant=True),
    ]
    assert render_boxes(boxes).splitlines()[0].startswith("[V2] Checkout")
    assert missing_labels(boxes, ["checkout", "Sign in", ""]) == ("Sign in",)
