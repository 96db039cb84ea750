"""Recording a run's route, written only after the service's checks (issue 21).

`RouteRecorder` watches the browser the agent acts through (every executed action, with the
observation its ref came from) and the event stream (the step each action belongs to, and
`route.replayed` when the run replayed a stored route). `commit` runs after the checks that
can fail a run — grounding, output_schema, the answer check (workers/adapters/results.py),
the same ones `RunLearnings` waits for — and writes:

- for a checked success without a replay: the trace as a parameterised route of the start
  page's domain (workers/agent/memory/routes.py), replacing the route of the same intent;
- for any run that replayed a route: its counts (replayed; fell back to the model; passed
  the checks), shown per route by `GET /v1/domains/{d}` (issue 34);
- for a checked success that fell back to the model at route step j: the route rewritten as
  its first j steps followed by what the run did from there (the site changed);
- for anything else: nothing.

Recorded are the actions that change where the run is or what a page holds (navigate,
back/forward, click, type, keys, hover/focus, selects and dropdowns, search, scroll, and the
compound `fill_form` and `bulk`, each field or action with its own target: issue 34); read-
only tools, waits and `done` are left out. An action whose target the route cannot name again
(coordinates, a drag onto a second ref, scripts, tabs, dialogs, uploads) ends the recording:
the route keeps the steps before it.

Secrets (issue 34): text typed as a task secret's `<secret:NAME>` token is kept as the token
(the browser swaps the value in at typing time, so a replay types the new task's secret of
that name); literal text the model marked `secret=true` is never stored and its step hands
over to the model on replay.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from app.contracts import EventType, TaskStatus
from workers.agent.memory.route_values import (
    MAX_APPEARED,
    MAX_STEPS,
    Slots,
    template_arg,
)
from workers.agent.memory.routes import (
    Route,
    Target,
    labels,
    relative_url,
    route_domain,
    target_of,
    url_pattern,
)
from workers.agent.memory.site_memory import consent_dismissal
from workers.agent.people.proxy import BrowserProxy
from workers.agent.protocols import (
    Action,
    AgentOutcome,
    Browser,
    EventSink,
    Observation,
    RouteStore,
    ToolResult,
)
from workers.agent.replay.route_steps import Entry, Part, calls_of, kept_secret, step_of

RECORDED = frozenset(
    {
        "navigate",
        "go_back",
        "go_forward",
        "click",
        "type",
        "press_key",
        "hover",
        "focus",
        "select_option",
        "choose_option",
        "search",
        "scroll",
        "scroll_within",
        "fill_form",
        "bulk",
    }
)
SKIPPED = frozenset(
    {
        "done",
        "record_fact",
        "read_text",
        "snapshot",
        "screenshot",
        "dom_search",
        "get_console_errors",
        "export_pdf",
        "get_accessibility_tree",
        "read_canvas",
        "look",
        "detect_captcha",
        "detect_geo_block",
        "read_download",
        "get_dropdown_options",
        "wait",
        "wait_for",
        "wait_for_condition",
    }
)
KEPT_TEXTS = 4  # observations kept by version: a batch's refs come from the one before it


@dataclass
class ReplayNote:
    """What `route.replayed` said: which route, which run steps it replayed and verified."""

    route_id: str
    replayed: frozenset[int]
    fell_back_at: int | None  # the route step the model took over at; None: replayed whole


@dataclass
class RouteRecorder:
    instruction: str
    start_url: str | None
    entries: list[Entry] = field(default_factory=list)
    texts: dict[int, str] = field(default_factory=dict)
    last_text: str = ""
    step: int = 0
    opened: str = ""  # the URL the run's start page resolved to
    ended: bool = False  # an action the route cannot name again ended the recording
    replay: ReplayNote | None = None
    worker_latency: list[float] = field(default_factory=list)  # seconds per Worker call

    # -- watching -----------------------------------------------------------------------------
    def watch(self, browser: Browser) -> Browser:
        return RecordingBrowser(browser, self)

    def watch_sink(self, sink: EventSink) -> EventSink:
        return RecordingSink(sink, self)

    def observed(self, observation: Observation) -> None:
        self.texts[observation.version] = observation.text
        for old in sorted(self.texts)[:-KEPT_TEXTS]:
            del self.texts[old]
        self.last_text = observation.text
        now = labels(observation.text)
        waiting = [entry for entry in self.entries if entry.appeared is None]
        for entry in waiting[:-1]:  # issue 34: one look after several calls shows the last
            entry.appeared = []  # one's effect; a replay of an earlier one alone lacks it
        for entry in waiting[-1:]:
            entry.appeared = [lb for lb in now if lb not in entry.before][:MAX_APPEARED]

    def opened_at(self, url: str) -> None:
        if not self.opened and url.startswith(("http://", "https://")):
            self.opened = url

    def executed(self, action: Action, result: ToolResult, url: str) -> None:
        if self.ended or action.name in SKIPPED:
            return
        done = executed_part(action, result)
        if done is None:
            return
        entry = self._entry(done, url)
        if entry is None or len(self.entries) >= MAX_STEPS:
            self.ended = True
            return
        self.entries.append(entry)

    def _entry(self, action: Action, url: str) -> Entry | None:
        if action.name not in RECORDED:
            return None
        args = {k: v for k, v in action.args.items() if k != "ref"}
        if "to_ref" in args:
            return None
        text, target = self.last_text, None
        if "ref" in action.args:
            text, target = self._target(str(action.args["ref"]))
            if target is None:
                return None
        parts: tuple[Part, ...] = ()
        if action.name in ("fill_form", "bulk"):
            found = self._parts(action)
            if found is None:
                return None
            parts, args = found, {k: v for k, v in args.items() if k == "submit"}
        replayable = kept_secret(action.name, args) and all(p.replayable for p in parts)
        if action.name == "navigate" and self.opened:
            args["url"] = relative_url(str(args["url"]), self.opened)
        optional = False
        if target is not None and action.name == "click":
            label = f'{target.role} "{target.name}"'
            optional = consent_dismissal(label, text) is not None
        before = frozenset(labels(text))
        return Entry(
            self.step, action.name, args, target, optional, replayable, url, before, None, parts
        )

    def _target(self, ref: str) -> tuple[str, Target | None]:
        """The observation a ref came from and the element's record in it."""
        version = ref.split(":", 1)[0]
        text = self.texts.get(int(version), self.last_text) if version.isdigit() else self.last_text
        return text, target_of(text, ref)

    def _parts(self, action: Action) -> tuple[Part, ...] | None:
        """fill_form's fields and submit button, bulk's actions, each with its target (None:
        one the route cannot name again)."""
        if action.name == "fill_form":
            calls = [("field", dict(f)) for f in action.args.get("fields") or ()]
            if action.args.get("submit_ref"):
                calls.append(("submit", {"ref": action.args["submit_ref"]}))
        else:
            calls = [
                (str(c.get("tool")), dict(c.get("args") or {}))
                for c in action.args.get("actions") or ()
                if str(c.get("tool")) not in SKIPPED
            ]
        parts = []
        for name, call in calls:
            if name not in (*RECORDED, "field", "submit") or name in ("fill_form", "bulk"):
                return None
            if any(k in call for k in ("to_ref", "fields", "actions")):
                return None
            target = None
            if "ref" in call:
                target = self._target(str(call.pop("ref")))[1]
                if target is None:
                    return None
            replayable = kept_secret(name, call)
            parts.append(Part(name, call, target, replayable))
        return tuple(parts) or None

    def event(self, type: str, data: Mapping[str, Any]) -> None:
        if type == EventType.step_started and isinstance(data.get("step"), int):
            self.step = int(data["step"])
        elif type == EventType.llm_call and data.get("role") == "worker":
            self.worker_latency.append(float(data.get("latency_s") or 0))
        elif type == EventType.route_replayed:
            fell = data.get("fell_back_at")
            self.replay = ReplayNote(
                str(data.get("route_id") or ""),
                frozenset(int(s) for s in data.get("replayed_steps") or ()),
                int(fell) if isinstance(fell, int) else None,
            )

    # -- the route ------------------------------------------------------------------------------
    def route(self, entries: Sequence[Entry] | None = None) -> Route | None:
        """The trace as a route (None without a start page or a recorded step)."""
        entries = self.entries if entries is None else entries
        if not self.opened or not entries or all(self._reopens(e) for e in entries):
            return None  # issue 34: re-opening the start page is no route
        slots, used = Slots.of(self.instruction), set[int]()
        for entry in entries:  # first pass: the slots are the values the trace used
            for args, target in ((entry.args, entry.target), *calls_of(entry.parts)):
                for key, value in args.items():
                    template_arg(key, value, slots, used)
                if target is not None:
                    slots.template(target.name, used)
                    for line in target.row:  # the row that names the task's value
                        slots.template(line, used, slots.named)
        used |= slots.repeats(used)
        steps = tuple(step_of(entry, slots, used) for entry in entries)
        return Route(
            domain=route_domain(self.opened),
            instruction=self.instruction,
            slots=tuple(sorted(used)),
            start=url_pattern(self.opened, slots, used),
            steps=steps,
        )

    def _reopens(self, entry: Entry) -> bool:
        """A reload, or a navigation back to the start page."""
        if entry.action not in ("navigate", "go_back", "go_forward", "scroll"):
            return False
        if entry.action != "navigate":
            return True
        url = str(entry.args.get("url") or "")
        start = relative_url(self.opened, self.opened)
        return url.split("#", 1)[0].rstrip("/") in (start.rstrip("/"), self.opened.rstrip("/"))

    async def commit(self, store: RouteStore, outcome: AgentOutcome) -> Route | None:
        """Write what this checked outcome earned; returns the route written (if any). A
        replayed route counts the run whatever its outcome (issue 34: replayed, fell back,
        succeeded)."""
        ok = verified(outcome)
        if self.replay is not None and self.replay.route_id:
            fell_back = self.replay.fell_back_at is not None
            await store.route_replayed(self.replay.route_id, fell_back=fell_back, succeeded=ok)
        if not ok:
            return None
        if self.replay is not None and self.replay.fell_back_at is None:
            return None
        if self.replay is None:
            route = self.route()
        else:
            route = await self._rewritten(store, self.replay)
        if route is None or route.domain != route_domain(self.start_url or self.opened):
            return None
        await store.save_route(route)
        return route

    async def _rewritten(self, store: RouteStore, note: ReplayNote) -> Route | None:
        """The stored route's steps before the fallback, then what this run did from there."""
        old = next(
            (
                r
                for r in await store.load_routes(route_domain(self.opened))
                if r.id == note.route_id
            ),
            None,
        )
        last = max(note.replayed, default=0)
        tail = [e for e in self.entries if e.step not in note.replayed and e.step > last]
        new = self.route(tail)
        if old is None or new is None or note.fell_back_at is None:
            return self.route()
        slots = tuple(sorted({*old.slots, *new.slots}))
        return replace(
            new,
            id=old.id,
            slots=slots,
            start=old.start,
            steps=(*old.steps[: note.fell_back_at], *new.steps),
            version=old.version + 1,
            replays=old.replays,
            fallbacks=old.fallbacks,
            successes=old.successes,
        )


def executed_part(action: Action, result: ToolResult) -> Action | None:
    """What of a call ran: the call itself when it succeeded; of a `bulk`, its first steps
    that ran (`tried`, issue 34: a bulk that failed at its second step had typed into the
    first field, and a route without that step replayed a form with the field empty; one
    stopped by a page change ran only its first steps); None when nothing ran."""
    if action.name != "bulk":
        return action if result.success else None
    steps = list(action.args.get("actions") or ())
    ran = len(result.tried) if result.tried or not result.success else len(steps)
    if ran == 0:
        return None
    return action if ran >= len(steps) else Action("bulk", {**action.args, "actions": steps[:ran]})


def verified(outcome: AgentOutcome) -> bool:
    """A succeeded run whose answer the checks did not leave unverified."""
    grounding = outcome.grounding or {}
    return (
        outcome.success
        and outcome.status == TaskStatus.succeeded.value
        and grounding.get("verdict") != "unverified"
    )


class RecordingBrowser(BrowserProxy):
    """Browser over another: every observation and executed action goes to the recorder."""

    def __init__(self, inner: Browser, recorder: RouteRecorder) -> None:
        super().__init__(inner)
        self.recorder = recorder

    async def goto(self, url: str) -> ToolResult:
        result = await self.inner.goto(url)
        if result.success:
            self.recorder.opened_at(self.inner.url)
        return result

    async def observe(self, mode: str = "compact") -> Observation:
        observation = await self.inner.observe(mode)
        self.recorder.observed(observation)
        return observation

    async def execute(self, action: Action) -> ToolResult:
        result = await self.inner.execute(action)
        self.recorder.executed(action, result, self.inner.url)
        return result


class RecordingSink:
    """EventSink over another: the step numbers and the `route.replayed` report."""

    def __init__(self, inner: EventSink, recorder: RouteRecorder) -> None:
        self.inner, self.recorder = inner, recorder

    async def emit(self, type: str, data: Mapping[str, Any]) -> None:
        self.recorder.event(type, data)
        await self.inner.emit(type, data)

    async def save_screenshot(self, step: int, jpeg: bytes) -> None:
        await self.inner.save_screenshot(step, jpeg)

    async def cancel_requested(self) -> bool:
        return await self.inner.cancel_requested()
