"""Snapper scoring of seed 000 App. E.3: σ = a·λ·χ, the per-widget label factor, the chevron
factor, Proposition 1, and Algorithm 4's phase decisions on recorded probes."""

from __future__ import annotations

import itertools
import math
from typing import Any

import pytest

from workers.browser.act.snapper import area_factor, choose, label_factor, score, widget_kind
from workers.browser.observe.vision import Rect

ROW = Rect(100, 100, 400, 140)  # 300×40: row-shaped (w ≥ 60, h ≥ 24)


def desc(rect: tuple[float, float, float, float], text: str = "", **kw: Any) -> dict[str, Any]:
    return {"rect": list(rect), "text": text, "aria": "", "role": "", "tag": "div", **kw}


def test_widget_kinds() -> None:
    assert widget_kind(desc((0, 0, 1, 1), "15", tag="td", calendar=True)) == "calendar_day"
    assert widget_kind(desc((0, 0, 1, 1), "May", role="gridcell")) == "calendar_day"
    assert widget_kind(desc((0, 0, 1, 1), "Ohio", role="option")) == "option"
    assert widget_kind(desc((0, 0, 1, 1), "Ohio", tag="li", list=True)) == "option"
    assert widget_kind(desc((0, 0, 1, 1), "", tag="input", type="time")) == "value_trigger"
    assert widget_kind(desc((0, 0, 1, 1), "9:00", haspopup=True)) == "value_trigger"
    assert widget_kind(desc((0, 0, 1, 1), "Save", tag="button")) == "generic"


def test_label_factor_per_widget_type() -> None:
    assert label_factor("calendar_day", "15", "15") == 1.0
    assert label_factor("calendar_day", "15", "5") == 0.0  # exact word, not substring
    assert label_factor("option", "York", "New York City") == 1.0
    assert label_factor("option", "Boston", "New York City") == 0.0
    assert label_factor("value_trigger", "departure time", "Time 9:00") == 0.7  # ≥3-char overlap
    assert label_factor("value_trigger", "departure at", "Time 9:00") == 0.0
    assert label_factor("value_trigger", "time", "time") == 1.0
    assert label_factor("generic", "Save", "Save") == 1.0
    assert label_factor("generic", "Save", "Cancel") == 0.5
    assert label_factor("generic", "", "anything") == 1.0


def test_area_factor() -> None:
    assert area_factor(Rect(100, 100, 250, 140), ROW) == pytest.approx(0.5)
    assert area_factor(Rect(0, 0, 10, 10), ROW) == 0.0
    point = Rect(5, 5, 5, 5)
    assert area_factor(Rect(0, 0, 10, 10), point) == 1.0


CHEVRON = {"expanded": "false", "haspopup": True, "aria": "Expand regions"}


def test_chevron_factor_only_on_rows() -> None:
    chev = desc((360, 100, 400, 140), "▾", **CHEVRON)  # K = 4
    expected = 1 + 2 * math.tanh(4 / 2)
    assert score(chev, ROW, "") == pytest.approx(
        area_factor(Rect(360, 100, 400, 140), ROW) * expected
    )
    small = Rect(360, 100, 400, 120)  # 20 px high: not a row → χ = 1
    assert score(chev, small, "") == pytest.approx(area_factor(Rect(360, 100, 400, 140), small))


@pytest.mark.parametrize(
    ("label_w", "chev_w", "k_attrs"),
    list(itertools.product((60, 120, 200, 260), (10, 24, 40, 80), range(2, 5))),
)
def test_proposition_1(label_w: float, chev_w: float, k_attrs: int) -> None:
    """χ(e_L)=1, χ(e_C)≥2, λ_C ≥ λ_L: σ_C > σ_L exactly when a_L/a_C < χ(e_C)."""
    attrs = list(CHEVRON.items())[: min(k_attrs, 3)]
    chev_attrs: dict[str, Any] = dict(attrs)
    glyph = "▾" if k_attrs == 4 else ""
    e_l = desc((100, 100, 100 + label_w, 140), "United States")
    e_c = desc((400 - chev_w, 100, 400, 140), glyph, **chev_attrs)
    k = len(chev_attrs) + bool(glyph)
    chi_c = 1 + 2 * math.tanh(k / 2)
    assert chi_c >= 2  # the proposition's premise (K ≥ 2)
    label = ""  # λ_C = λ_L = 1
    a_l = area_factor(Rect(100, 100, 100 + label_w, 140), ROW)
    a_c = area_factor(Rect(400 - chev_w, 100, 400, 140), ROW)
    wins = score(e_c, ROW, label) > score(e_l, ROW, label)
    assert wins == (a_l / a_c < chi_c)


def test_chevron_wins_united_states_row_with_label() -> None:
    """§6.2: the row's box with label 'United States' picks the ▾ control over the text."""
    e_l = desc((100, 100, 220, 140), "United States", tag="a", href=True)
    e_c = desc((300, 100, 400, 140), "▾", aria="Expand United States", expanded="false")
    probe = {
        "centre": None,
        "candidates": [e_l, e_c],
        "grid": [
            [100 + 60 * i, 108 + 8 * j, 0 if i <= 2 else 1]
            for i in range(1, 5)
            for j in range(1, 5)
        ],
    }
    phase, hit, *_ = choose(probe, ROW, "United States")  # type: ignore[misc]
    assert (phase, hit) == ("B", 1)


def test_phase_a_returns_centre_on_label_match() -> None:
    probe = {"centre": 0, "candidates": [desc((90, 90, 410, 150), "Save changes")], "grid": []}
    assert choose(probe, ROW, "Save changes") == ("A", 0, 250.0, 120.0, 1.0)


def test_phase_a_alt_translates_inner_centre() -> None:
    inner = desc((120, 110, 180, 130), "Submit", frames=[0])
    probe = {"centre": 0, "candidates": [inner], "grid": []}
    assert choose(probe, ROW, "Submit") == ("A-alt", 0, 150.0, 120.0, 1.0)


def test_phase_b_ties_go_to_the_point_nearest_the_centre() -> None:
    canvas = desc((0, 0, 800, 600), "", tag="canvas")
    grid = [[100 + 60 * i, 100 + 8 * j, 0] for i in range(1, 5) for j in range(1, 5)]
    probe = {"centre": 0, "candidates": [canvas], "grid": grid}
    phase, _, x, y, _ = choose(probe, ROW, "Play")  # type: ignore[misc]
    assert phase == "B"
    assert (x, y) in ((220.0, 116.0), (280.0, 116.0), (220.0, 124.0), (280.0, 124.0))


def test_nothing_interactive_fails() -> None:
    probe = {"centre": None, "candidates": [], "grid": [[1, 1, None]]}
    assert choose(probe, ROW, "x") is None
