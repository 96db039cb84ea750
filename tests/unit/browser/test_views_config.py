"""Which observation modes the settings allow: checked before a task takes a browser."""

from __future__ import annotations

from app.settings import Settings
from workers.browser.observe import views


def test_vision_mode_without_opt_in_is_a_configuration_problem() -> None:
    off, on = Settings(), Settings(vision_enabled=True)
    assert "vision_enabled" in (views.configuration_problem("vision", off) or "")
    assert views.configuration_problem("vision", on) is None
    for mode in ("compact", "pagemem", "pipeline", "full"):
        assert views.configuration_problem(mode, off) is None
    assert "unknown observation mode" in (views.configuration_problem("fancy", off) or "")


def test_som_mode_needs_a_worker_that_reads_images() -> None:
    problem = views.configuration_problem("som", Settings()) or ""
    assert "WEBAGENT_LLM_WORKER_VISION=true" in problem and "vision-capable" in problem
    assert views.configuration_problem("som", Settings(llm_worker_vision=True)) is None
