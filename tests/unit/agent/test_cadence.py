"""When the periodic Planner review is worth a call (workers/agent/roles/cadence.py)."""

from __future__ import annotations

from workers.agent.roles.cadence import Progress


def walk(*moves: tuple[str, str]) -> Progress:
    progress = Progress()
    for state, actions in moves:
        progress.add(state, actions)
    return progress


def test_a_run_from_page_to_page_is_progress() -> None:
    assert (
        walk(("list", "click a"), ("item", "click buy"), ("cart", "click pay")).stalled("paid")
        is None
    )


def test_the_same_move_to_the_same_page_twice_is_a_loop() -> None:
    progress = walk(("list", "click next"), ("list2", "click back"), ("list", "click next"))
    assert progress.stalled("list2") == "loop"


def test_a_revisit_that_leads_elsewhere_the_second_time_is_no_loop() -> None:
    """Relay finding (issue 33, pretix-09): back from the review to the form to add the
    invoice name, then Continue on the payment page again; the review page it led to was
    new (the name on it)."""
    progress = walk(
        ("payment", "click Continue"),
        ("review", "click Modify invoice information"),
        ("questions", "fill_form Name"),
        ("payment", "click Continue"),
    )
    assert progress.stalled("review with the name") is None
    assert progress.stalled("review") == "loop"


def test_steps_that_leave_the_page_as_it_was_are_a_standstill() -> None:
    assert walk(("form", "click a"), ("form", "click b")).stalled("form") == "standstill"
    assert walk(("form", "click a"), ("form", "click b")).stalled("thanks") is None
