"""`webagent run`'s final panel says how the answer check judged the answer (issue 10)."""

from __future__ import annotations

from rich.console import Console

from workers.cli.progress import ProgressView


def summary(grounding: dict[str, object] | None) -> str:
    console = Console(record=True, width=200)
    view = ProgressView("t1", None, console=console, prices={})
    result = {"answer": "Order Q-9917", "success": True, "grounding": grounding}
    view.summary({"status": "succeeded", "result": result, "usage": {}})
    return console.export_text()


def test_an_unverified_answer_names_what_no_page_showed() -> None:
    text = summary({"verdict": "unverified", "checked": 2, "unseen": ["Q-9917"], "derived": []})
    assert "answer NOT verified: no page the run saw shows Q-9917" in text


def test_a_verified_answer_says_so_with_its_computed_values() -> None:
    grounding = {"verdict": "verified", "checked": 3, "unseen": [], "derived": ["$22.85"]}
    text = summary({**grounding, "corrected": True, "answer_before_check": "Q-4812"})
    assert "answer verified: 3 value(s) seen (computed: $22.85)" in text
    assert "first answer: Q-4812" in text


def test_no_report_no_line() -> None:
    assert "verified" not in summary(None) and "checkable" not in summary(None)
    assert "nothing checkable" in summary({"verdict": "no_claims", "checked": 0})


def test_the_summary_shows_typed_data() -> None:
    """issue 37 §5: a task with output_schema: the summary prints result.data as JSON."""
    console = Console(record=True, width=200)
    view = ProgressView("t1", None, console=console, prices={})
    result = {"answer": "Lamp 3", "success": True, "data": {"name": "Lamp", "price": 3}}
    view.summary({"status": "succeeded", "result": result, "usage": {}})
    text = console.export_text()
    assert '"name": "Lamp"' in text and '"price": 3' in text
