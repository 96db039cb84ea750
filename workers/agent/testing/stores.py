"""Doubles of the run's outputs and gates: the event sink, the MemoryStore, the ApprovalGate."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from workers.agent.memory.ledger import DeadEnd, EpisodicNote, Fact, StepOutcome
from workers.agent.memory.routes import Route
from workers.agent.memory.site_memory import dead_end_expiry
from workers.agent.protocols import ApprovalDecision, ApprovalRequest, Guide


@dataclass
class RecordingSink:
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    screenshots: dict[int, bytes] = field(default_factory=dict)
    takeover_shots: dict[int, bytes] = field(default_factory=dict)
    cancel_after_checks: int | None = None
    checks: int = 0

    async def emit(self, type: str, data: Mapping[str, Any]) -> None:
        self.events.append((str(type), dict(data)))

    async def save_screenshot(self, step: int, jpeg: bytes) -> None:
        self.screenshots[step] = jpeg

    async def save_takeover_shot(self, number: int, jpeg: bytes) -> str | None:
        self.takeover_shots[number] = jpeg
        return f"takeover-{number}"

    async def cancel_requested(self) -> bool:
        self.checks += 1
        return self.cancel_after_checks is not None and self.checks > self.cancel_after_checks

    def of_type(self, type: str) -> list[dict[str, Any]]:
        return [data for t, data in self.events if t == type]


@dataclass
class InMemoryMemoryStore:
    """MemoryStore kept in dicts; `domain_dead_ends` outlives a task like the real tables,
    and loads like DbMemoryStore: one per (page, action), counted, unexpired by `now()`."""

    snapshots: list[dict[str, Any]] = field(default_factory=list)
    steps: list[StepOutcome] = field(default_factory=list)
    facts: list[tuple[str, Fact]] = field(default_factory=list)
    episodic: list[EpisodicNote] = field(default_factory=list)
    domain_dead_ends: dict[str, list[DeadEnd]] = field(default_factory=dict)
    learnings: dict[str, dict[str, Any]] = field(default_factory=dict)
    expiry: dict[tuple[str, str, str], datetime | None] = field(default_factory=dict)
    site_maps: dict[str, dict[str, Any]] = field(default_factory=dict)  # domain -> WebsiteMem
    now: Callable[[], datetime] = field(default=lambda: datetime.now(UTC))
    guides: list[Guide] = field(default_factory=list)  # the operator's guides (guidance.py)

    async def save_ledger(self, snapshot: Mapping[str, Any]) -> None:
        self.snapshots.append(dict(snapshot))

    async def append_step(self, outcome: StepOutcome) -> None:
        self.steps.append(outcome)

    async def append_fact(self, fact: Fact, domain: str, url: str = "") -> None:
        self.facts.append((domain, fact))

    async def append_episodic(self, note: EpisodicNote) -> None:
        self.episodic.append(note)

    async def record_dead_end(self, domain: str, dead_end: DeadEnd) -> None:
        self.domain_dead_ends.setdefault(domain.lower(), []).append(dead_end)
        self.expiry[(domain.lower(), *dead_end.key)] = dead_end_expiry(dead_end.cause, self.now())

    async def load_domain_dead_ends(self, domain: str) -> Sequence[DeadEnd]:
        now = self.now()
        counted: dict[tuple[str, str], DeadEnd] = {}
        for d in self.domain_dead_ends.get(domain.lower(), ()):
            expires = self.expiry.get((domain.lower(), *d.key))
            if expires is not None and expires <= now:
                continue
            prior = counted.get(d.key)
            counted[d.key] = replace(d, earlier=True, count=d.count + (prior.count if prior else 0))
        return list(counted.values())

    async def load_domain_learnings(self, domain: str) -> Mapping[str, Any]:
        return dict(self.learnings.get(domain.lower(), {}))

    async def record_learning(self, domain: str, key: str, value: Any) -> None:
        self.learnings.setdefault(domain.lower(), {})[key] = value

    async def load_guides(self, domain: str) -> Sequence[Guide]:
        return [g for g in self.guides if g.domain in ("", domain.lower())]

    async def load_site_map(self, domain: str) -> Mapping[str, Any]:
        return dict(self.site_maps.get(domain.lower(), {}))

    @property
    def latest(self) -> dict[str, Any]:
        """The last saved snapshot."""
        return self.snapshots[-1] if self.snapshots else {}


@dataclass
class ScriptedGate:
    """ApprovalGate double: answers each request with the next scripted status
    (approved | denied | expired; expired once the script is used up). `on_request` runs
    first, e.g. to play the person who clears a challenge."""

    answers: list[str] = field(default_factory=lambda: ["approved"])
    requests: list[ApprovalRequest] = field(default_factory=list)
    on_request: Callable[[ApprovalRequest], None] | None = None

    async def request(self, request: ApprovalRequest) -> ApprovalDecision:
        self.requests.append(request)
        if self.on_request is not None:
            self.on_request(request)
        status = self.answers.pop(0) if self.answers else "expired"
        return ApprovalDecision(f"approval-{len(self.requests)}", status, "test")


@dataclass
class InMemoryRouteStore:
    """RouteStore kept in a dict by (domain, intent), like the `routes` table of one tenant."""

    routes: dict[tuple[str, str], Route] = field(default_factory=dict)
    saved: int = 0

    async def load_routes(self, domain: str) -> Sequence[Route]:
        found = [r for (d, _), r in self.routes.items() if d == domain]
        return sorted(found, key=lambda r: r.version, reverse=True)

    async def save_route(self, route: Route) -> None:
        key = (route.domain, route.intent)
        if route.id:  # a rewrite may widen the intent: its old key goes
            self.routes = {k: r for k, r in self.routes.items() if r.id != route.id}
        old = self.routes.get(key)
        if old is not None and not route.id:
            route = replace(route, id=old.id, version=old.version + 1, replays=old.replays)
        self.saved += 1
        self.routes[key] = route if route.id else replace(route, id=f"route-{self.saved}")

    async def route_replayed(
        self, route_id: str, *, fell_back: bool = False, succeeded: bool = True
    ) -> None:
        for key, route in self.routes.items():
            if route.id == route_id:
                self.routes[key] = replace(
                    route,
                    replays=route.replays + 1,
                    fallbacks=route.fallbacks + fell_back,
                    successes=route.successes + succeeded,
                )
