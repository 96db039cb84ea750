"""The viewer's run cost: each llm.call priced by its model (exact name, else the longest
configured prefix), a given cost_usd kept, an unpriced model left unknown."""

from __future__ import annotations

import pytest

from app.pricing import call_cost, price_of
from app.web.views import format_cost, format_duration

PRICES = {"gpt-4o": (2.5, 10.0), "gpt-4o-mini": (0.15, 0.6)}


def test_longest_prefix_wins() -> None:
    assert price_of(PRICES, "gpt-4o-mini-2024-07-18") == (0.15, 0.6)
    assert price_of(PRICES, "gpt-4o-2024-08-06") == (2.5, 10.0)
    assert price_of(PRICES, "gpt-4o") == (2.5, 10.0)
    assert price_of(PRICES, "llama3") is None


def test_call_cost() -> None:
    call = {"model": "gpt-4o", "input_tokens": 1_000_000, "output_tokens": 100_000}
    assert call_cost(PRICES, call) == pytest.approx(3.5)
    assert call_cost(PRICES, {**call, "cost_usd": 0.25}) == 0.25
    assert call_cost(PRICES, {**call, "model": "llama3"}) is None
    assert call_cost({}, call) is None


def test_formats() -> None:
    assert format_cost(None) == "—"
    assert format_cost(0.00213) == "$0.0021"
    assert format_duration(None) == "—"
    assert format_duration(3.25) == "3.2 s"
    assert format_duration(125) == "2 min 05 s"
    assert format_duration(3 * 3600 + 60) == "3 h 01 min"
