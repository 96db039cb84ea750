"""What a run used of its sites' memory and what that saved (issue 34 "what a user sees").

- `note_fact_uses`: the facts of each site the run entered that its prompts showed (the
  same choice the brain makes: `SiteMemory.of(...).scoped(instruction, entry page)`) get the
  run's id in their `used_by` (newest first, at most MAX_USED), so `GET /v1/domains/{d}`
  says for each fact which runs it was shown to; runs before this run's own facts are written.
- `memory_used`: the `memory.used` event's data: the route the run replayed (its intent,
  how many steps replayed, where the model took over), the facts shown, and what memory saved:
  model calls (each replayed step is a Worker call not made) and seconds (those calls times
  this run's mean Worker call latency; null when the run made none), and what the run stored
  (the intent of the route written, how many facts kept). None when the run neither used
  nor stored anything.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from workers.agent.memory.routes import Route
from workers.agent.memory.site_memory import FACTS, SiteMemory
from workers.agent.protocols import MemoryStore
from workers.agent.replay.route_record import RouteRecorder

MAX_USED = 20  # runs listed per fact


async def note_fact_uses(
    store: MemoryStore, instruction: str, task_id: str, entries: Mapping[str, str]
) -> list[dict[str, str]]:
    """Mark the facts shown to this run (`entries`: domain -> the URL the run entered it
    on) as used by `task_id`; returns them as {domain, key}."""
    used: list[dict[str, str]] = []
    for domain, url in entries.items():
        learnings = await store.load_domain_learnings(domain)
        shown = {
            str(f.get("key"))
            for f in SiteMemory.of(domain, learnings).scoped(instruction, url).facts
        }
        rows = learnings.get(FACTS)
        if not shown or not isinstance(rows, list):
            continue
        marked = [_used(r, task_id) if r.get("key") in shown else r for r in _rows(rows)]
        await store.record_learning(domain, FACTS, marked)
        used += [{"domain": domain, "key": key} for key in sorted(shown)]
    return used


def _rows(rows: Sequence[Any]) -> list[dict[str, Any]]:
    return [dict(r) for r in rows if isinstance(r, Mapping)]


def _used(row: dict[str, Any], task_id: str) -> dict[str, Any]:
    before = [t for t in row.get("used_by") or () if isinstance(t, str) and t != task_id]
    return {**row, "used_by": [task_id, *before][:MAX_USED]}


def memory_used(
    recorder: RouteRecorder,
    facts_used: Sequence[Mapping[str, str]],
    route_written: Route | None,
    facts_kept: int,
) -> dict[str, Any] | None:
    note = recorder.replay
    if note is None and not facts_used and route_written is None and not facts_kept:
        return None
    calls = len(note.replayed) if note is not None else 0
    latency = recorder.worker_latency
    seconds: float | None = 0.0
    if calls:
        seconds = round(calls * sum(latency) / len(latency), 1) if latency else None
    route = None
    if note is not None:
        route = {
            "id": note.route_id,
            "replayed_steps": calls,
            "fell_back_at": note.fell_back_at,
        }
    return {
        "route": route,
        "facts": [dict(f) for f in facts_used],
        "saved": {"calls": calls, "seconds": seconds},
        "stored": {
            "route": route_written.intent if route_written is not None else None,
            "facts": facts_kept,
        },
    }
