"""Test doubles for the agent's protocols: Browser, LLM, EventSink and MemoryStore.

Shipped with the package so unit tests, integration tests and benchmarks share one copy;
every double is importable from here (browsers.py, llms.py, stores.py, obeying.py,
schema_bound.py).
"""

from workers.agent.testing.browsers import FakeBrowser, InspectableBrowser, Page
from workers.agent.testing.llms import (
    BRAIN_SIDE,
    PLANNER_SIDE,
    FakeLLM,
    Responder,
    default_planner,
    default_planner_verdict,
    default_summarizer,
    message_text,
    reply,
)
from workers.agent.testing.obeying import (
    OBEYED_INSTRUCTIONS,
    ObeyingLLM,
    element_ref,
    page_text,
)
from workers.agent.testing.schema_bound import SchemaBoundLLM, instance
from workers.agent.testing.stores import (
    InMemoryMemoryStore,
    InMemoryRouteStore,
    RecordingSink,
    ScriptedGate,
)

__all__ = [
    "BRAIN_SIDE",
    "OBEYED_INSTRUCTIONS",
    "PLANNER_SIDE",
    "FakeBrowser",
    "FakeLLM",
    "InMemoryMemoryStore",
    "InMemoryRouteStore",
    "InspectableBrowser",
    "ObeyingLLM",
    "Page",
    "RecordingSink",
    "Responder",
    "SchemaBoundLLM",
    "ScriptedGate",
    "default_planner",
    "default_planner_verdict",
    "default_summarizer",
    "element_ref",
    "instance",
    "message_text",
    "page_text",
    "reply",
]
