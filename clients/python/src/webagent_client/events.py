"""Events as typed objects: an event's `data` parsed into the model of its type.

The models are the document's `EventData*` schemas (webagent_client.models), one per event
type (`task.finished` -> EventDataTaskFinished); an event type this SDK does not know yet
keeps its plain dict.

    for event in client.events(task_id):
        data = event_data(event)
        if isinstance(data, EventDataLlmCall):
            print(data.model, data.input_tokens)
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from webagent_client import models
from webagent_client.models import EventOut


def model_of(event_type: str) -> type[BaseModel] | None:
    """`task.finished` -> EventDataTaskFinished (None for an unknown type)."""
    words = event_type.replace(".", "_").split("_")
    found = getattr(models, "EventData" + "".join(w.capitalize() for w in words), None)
    return found if isinstance(found, type) and issubclass(found, BaseModel) else None


def event_data(event: EventOut) -> BaseModel | dict[str, Any]:
    """The event's data as its type's model; the plain dict for a type this SDK lacks."""
    model = model_of(event.type)
    return event.data if model is None else model.model_validate(event.data)
