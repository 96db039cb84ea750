"""Which observation modes the settings allow: checked before a task takes a browser."""

from __future__ import annotations

from app.settings import Settings
from workers.browser import views


def test_vision_mode_without_opt_in_is_a_configuration_problem() -> None:
    off, on = Settings(), Settings(vision_enabled=True)
    assert "vision_enabled" in (views.configuration_problem("vision", off) or "")
    assert views.configuration_problem("vision", on) is None
    for mode in ("compact", "pagemem", "som", "pipeline", "full"):
        assert views.configuration_problem(mode, off) is None
    assert "unknown observation mode" in (views.configuration_problem("fancy", off) or "")
