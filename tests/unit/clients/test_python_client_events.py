"""Events as typed objects (issue 37 §3): every event type the service documents has its
EventData model in the SDK, and `event_data` parses an event into it."""

from __future__ import annotations

from datetime import UTC, datetime

from webagent_client import event_data
from webagent_client.events import model_of
from webagent_client.models import EventDataApprovalResolved, EventOut

from app.contracts import EventType


def test_every_documented_event_type_has_its_model() -> None:
    missing = [t.value for t in EventType if model_of(t.value) is None]
    assert missing == []


def test_event_data_is_the_types_model_and_unknown_types_stay_dicts() -> None:
    when = datetime.now(UTC)
    data = {"approval_id": "a1", "decision": "approved", "by": "local"}  # as the service sends
    event = EventOut(id="1", seq=1, task_id="t", ts=when, type="approval.resolved", data=data)
    typed = event_data(event)
    assert isinstance(typed, EventDataApprovalResolved) and typed.approval_id == "a1"
    odd = EventOut(id="2", seq=2, task_id="t", ts=when, type="new.kind", data={"x": 1})
    assert event_data(odd) == {"x": 1}
