"""The agent's view of the outside world: a browser, an LLM and an event sink.

The agent imports nothing else from the runtime; `workers/jobs.py` wires real parts in,
tests and benchmarks wire their own. Values crossing these seams are frozen dataclasses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from workers.agent.clock import TaskClock
from workers.agent.memory.ledger import DeadEnd, EpisodicNote, Fact, StepOutcome
from workers.agent.memory.routes import Route


@dataclass(frozen=True)
class Action:
    """One tool call the Worker asked for, e.g. Action("click", {"ref": "3:12"})."""

    name: str
    args: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ToolResult:
    """Uniform tool outcome (seed 000, App. A): what happened and what to try next."""

    success: bool
    reason: str = ""
    tried: tuple[str, ...] = ()
    alternatives: tuple[str, ...] = ()
    error: str | None = None
    page_changed: bool = False
    data: Mapping[str, Any] = field(default_factory=dict)
    cause: str = ""  # the raw failure for operators (events only, never shown to the model)


@dataclass(frozen=True)
class Observation:
    """What the model is shown of the page, plus figures for events and benchmarks."""

    url: str
    title: str
    text: str
    version: int
    refs: int = 0
    interactive: int = 0
    fingerprint: str = ""
    tokens: int = 0
    stats: Mapping[str, Any] = field(default_factory=dict)
    # JPEG Set-of-Mark screenshot (tag N = ref version:N) when the Worker sees images
    image: bytes | None = field(default=None, repr=False)


@runtime_checkable
class Browser(Protocol):
    """A live page the agent can observe and act on (one isolated context per task)."""

    @property
    def url(self) -> str: ...

    async def goto(self, url: str) -> ToolResult: ...

    async def observe(self, mode: str = "compact") -> Observation: ...

    async def execute(self, action: Action) -> ToolResult: ...

    async def screenshot(self) -> bytes:
        """JPEG of the viewport."""
        ...


@runtime_checkable
class PopupDismisser(Protocol):
    """A browser that can dismiss a popup a run learned about (a consent banner), by the
    role and accessible name of the element that dismissed it before (issue 21)."""

    async def dismiss_popup(self, role: str, name: str) -> bool:
        """True when the element was shown and clicked."""
        ...


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: Mapping[str, Any]


@dataclass(frozen=True)
class LLMReply:
    content: str | None
    tool_calls: tuple[ToolCall, ...]
    input_tokens: int
    output_tokens: int
    model: str
    latency_s: float
    finish_reason: str | None = None
    reasoning: str | None = None  # reasoning text beside the answer, when the server sends it


@runtime_checkable
class LLM(Protocol):
    """Chat completion for one role (orchestrator, planner, worker, vision, summarizer)."""

    async def chat(
        self,
        role: str,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None = None,
        tool_choice: str | None = None,
        response_format: Mapping[str, Any] | None = None,
    ) -> LLMReply:
        """`response_format` is the OpenAI field, e.g. {"type": "json_schema", ...}."""
        ...


def response_format_arg(response_format: Mapping[str, Any] | None) -> dict[str, Any]:
    """What a wrapper passes on of `response_format`: nothing when unset, so a wrapped LLM
    without that argument still takes every other call."""
    return {"response_format": response_format} if response_format else {}


@dataclass(frozen=True)
class Guide:
    """An operator's markdown guide: for one site (`domain`), or for every site ("")."""

    title: str
    body: str
    domain: str = ""


@runtime_checkable
class MemoryStore(Protocol):
    """Where a run's Ledger is persisted (seed 000 §5.2) and cross-run memory is read.

    One store is bound to one task: the snapshot is rewritten on each update, steps, facts
    and episodic notes are append-only; dead ends and learnings are kept per domain, and a
    later run entering the domain reads them (dead ends only until they expire by cause).
    """

    async def save_ledger(self, snapshot: Mapping[str, Any]) -> None:
        """Replace the task's Ledger snapshot with `Ledger.to_dict()`."""
        ...

    async def append_step(self, outcome: StepOutcome) -> None: ...

    async def append_fact(self, fact: Fact, domain: str, url: str = "") -> None:
        """`url`: the page the fact was read on (a later run shows it with its age)."""
        ...

    async def append_episodic(self, note: EpisodicNote) -> None: ...

    async def record_dead_end(self, domain: str, dead_end: DeadEnd) -> None: ...

    async def load_domain_dead_ends(self, domain: str) -> Sequence[DeadEnd]: ...

    async def load_domain_learnings(self, domain: str) -> Mapping[str, Any]:
        """Per-domain learnings (key -> JSON value), e.g. the Orchestrator's `route`."""
        ...

    async def record_learning(self, domain: str, key: str, value: Any) -> None: ...

    async def load_guides(self, domain: str) -> Sequence[Guide]:
        """The operator's guides for `domain` and for every site (guidance.py)."""
        ...

    async def load_site_map(self, domain: str) -> Mapping[str, Any]:
        """The domain's newest site exploration (a WebsiteMem as JSON), {} when none."""
        ...


@runtime_checkable
class RouteStore(Protocol):
    """Proven routes per domain (issue 21, workers/agent/memory/routes.py), one tenant's."""

    async def load_routes(self, domain: str) -> Sequence[Route]:
        """The domain's routes, most recently written first."""
        ...

    async def save_route(self, route: Route) -> None:
        """Insert, or replace the route of the same domain and intent."""
        ...

    async def route_replayed(
        self, route_id: str, *, fell_back: bool = False, succeeded: bool = True
    ) -> None:
        """Count one run that replayed the route: `fell_back`, the model took over before
        its end; `succeeded`, the run passed the service's checks (issue 34)."""
        ...


@dataclass(frozen=True)
class FetchedPage:
    """A page fetched over plain HTTP for the search route: its final URL and text."""

    url: str
    status: int
    title: str = ""
    text: str = ""
    error: str | None = None  # why nothing usable came back (blocked, network, not text)


@runtime_checkable
class Fetcher(Protocol):
    """HTTP GET through the same egress policy as the browser (no browser involved)."""

    async def fetch(self, url: str) -> FetchedPage: ...


@runtime_checkable
class EventSink(Protocol):
    """Where the agent reports progress; the only way events leave a worker."""

    async def emit(self, type: str, data: Mapping[str, Any]) -> None: ...

    async def save_screenshot(self, step: int, jpeg: bytes) -> None: ...

    async def cancel_requested(self) -> bool: ...


@dataclass(frozen=True)
class AgentTask:
    """What the loop needs to know about a task; `deadline` is a time.monotonic() value."""

    instruction: str
    start_url: str | None
    max_steps: int
    deadline: float
    allowed_domains: tuple[str, ...] = ()
    observation_mode: str = "compact"  # passed to Browser.observe() every step
    time_zone: str = "UTC"  # IANA name; the Worker's clock line uses it (seed 003 §7.1)
    worker_vision: bool = False  # the Worker reads Observation.image (seed 002 dual channel)
    image_detail: str = "auto"  # OpenAI image_url detail of those images
    look_tool: bool = False  # a vision model answers the Worker's `look` (seed 003 §4.4)
    allow_scripts: bool = False  # evaluate_script is offered (the browser refuses it otherwise)
    task_profile: str = "general"  # seed 003 §9.3 tool scope: workers/agent/people/task_profiles.py
    forbid_login: bool = False  # seed 004 App. C.5: a login form ends the run
    private_regions: tuple[str, ...] = ()  # seed 003 §9.4: never the text-only search route
    reuse_routes: bool = True  # replay a proven route of the domain (workers/agent/replay/)
    output_schema: Mapping[str, Any] | None = None  # types `done`'s data (tools/typed_done.py)
    # the deadline that stands still during a takeover (clock.py); None: `deadline`, fixed
    clock: TaskClock | None = field(default=None, compare=False)


@dataclass(frozen=True)
class AgentOutcome:
    """How a run ended. `error` uses app.contracts.ErrorCode values when not successful."""

    answer: str | None
    success: bool
    status: str  # a TaskStatus value: succeeded | failed | cancelled | timed_out
    steps: int
    llm_calls: int
    input_tokens: int
    output_tokens: int
    error: str | None = None
    reason: str = ""
    data: Any = None  # the answer as JSON valid against the task's output_schema
    grounding: Mapping[str, Any] | None = None  # the answer check (workers/agent/answer_check)
    cause: str = ""  # the raw failure behind `reason`, for operators (task.finished event)


@dataclass(frozen=True)
class ActionTarget:
    """What an action is about to touch, read from the page before it runs: the facts the
    sensitive-action rules decide on (workers/agent/people/approvals.py, seed 003 §8.4.1)."""

    page_url: str = ""
    role: str = ""
    tag: str = ""
    name: str = ""  # accessible and visible text of the element
    input_type: str = ""  # <input type>, lower case
    href: str = ""  # resolved link target
    download: bool = False  # a link with the download attribute
    form_action: str = ""  # resolved action URL of the enclosing (or owning) form
    form_method: str = ""
    form_text: str = ""  # the form's label, heading and submit-button texts
    submits: bool = False  # activating this element submits its form
    # the element sits in a form or dialog whose text fields hold typed text: something
    # written there (recipients, a message) would go out with it
    composed: bool = False


@runtime_checkable
class TargetInspector(Protocol):
    """A browser that can say what an action would touch, without touching it."""

    async def inspect_target(self, action: Action) -> ActionTarget | None: ...


@dataclass(frozen=True)
class ApprovalRequest:
    """What a paused task asks a person (kind: sensitive_action | challenge | login)."""

    kind: str
    reason: str
    url: str
    element: str = ""
    screenshot: bytes | None = field(default=None, repr=False)
    details: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ApprovalDecision:
    """The answer: approved, denied, or expired (nobody answered in time)."""

    approval_id: str
    status: str
    by: str = ""

    @property
    def approved(self) -> bool:
        return self.status == "approved"


@runtime_checkable
class ApprovalGate(Protocol):
    """Pauses the task until a person decides (workers/adapters/approval_gate.py waits on the
    DB)."""

    async def request(self, request: ApprovalRequest) -> ApprovalDecision: ...


@dataclass(frozen=True)
class Challenge:
    """A CAPTCHA / interstitial / regional block in front of the page the task needs."""

    url: str
    kinds: tuple[str, ...]
    reason: str


@runtime_checkable
class ChallengeSolver(Protocol):
    """An operator's solving service (none is built in: no evasion, no stealth).

    Returns True when it believes the page is clear; the caller checks the page again.
    """

    async def solve(self, challenge: Challenge, browser: Browser) -> bool: ...
