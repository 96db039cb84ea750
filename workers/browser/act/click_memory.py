"""Per-domain click-tier memory (seed 000 §6.3: "after every attempt the agent records which
tier worked and feeds it back to the per-domain learnings store, so subsequent tasks on the
same domain start at the empirically best tier"; Tier 3 is disabled on domains the learnings
mark as bot-protected).

`ClickMemory` is what a PageSession takes. `InMemoryClickMemory` keeps counts for one worker
process; `export`/`load` turn one domain's record into the two learnings keys below, which
`workers/jobs.py` reads before a task and writes after it through
`app.db.repo_memory.get_domain_learnings` / `put_domain_learning`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any, Protocol
from urllib.parse import urlsplit

TIERS = ("cdp", "playwright", "js")  # Algorithm 5 order: trusted CDP, trusted locator, scripted
LEARNING_TIER = "click_tier"  # {"wins": {"cdp": n, ...}, "fails": n}
LEARNING_BOT = "bot_protected"  # true: never use the scripted tier on this domain


def domain_of(url: str) -> str:
    return (urlsplit(url).hostname or "").rstrip(".").lower()


class ClickMemory(Protocol):
    def best_tier(self, domain: str) -> str | None: ...

    def bot_protected(self, domain: str) -> bool: ...

    def record(self, domain: str, tried: Iterable[str], worked: str | None) -> None: ...


class InMemoryClickMemory:
    """Wins per tier per domain; the best tier is the one that worked most often."""

    def __init__(self) -> None:
        self._wins: dict[str, Counter[str]] = {}
        self._fails: Counter[str] = Counter()
        self._bot: set[str] = set()

    def best_tier(self, domain: str) -> str | None:
        wins = self._wins.get(domain)
        if not wins:
            return None
        return max(TIERS, key=lambda t: (wins[t], -TIERS.index(t))) if any(wins.values()) else None

    def bot_protected(self, domain: str) -> bool:
        return domain in self._bot

    def mark_bot_protected(self, domain: str, protected: bool = True) -> None:
        (self._bot.add if protected else self._bot.discard)(domain)

    def record(self, domain: str, tried: Iterable[str], worked: str | None) -> None:
        del tried  # only what worked is weighted
        if worked is None:
            self._fails[domain] += 1
            return
        self._wins.setdefault(domain, Counter())[worked] += 1

    def domains(self) -> tuple[str, ...]:
        """Domains with anything to persist."""
        return tuple(sorted(set(self._wins) | {d for d, n in self._fails.items() if n} | self._bot))

    def export(self, domain: str) -> dict[str, Any]:
        """Learnings rows for one domain (key → JSON value)."""
        out: dict[str, Any] = {}
        wins = self._wins.get(domain)
        if wins or self._fails[domain]:
            out[LEARNING_TIER] = {"wins": dict(wins or {}), "fails": self._fails[domain]}
        if domain in self._bot:
            out[LEARNING_BOT] = True
        return out

    def load(self, domain: str, learnings: Mapping[str, Any]) -> None:
        """Seed one domain from its stored learnings (unknown shapes are ignored)."""
        tier = learnings.get(LEARNING_TIER)
        if isinstance(tier, Mapping):
            wins = tier.get("wins")
            if isinstance(wins, Mapping):
                self._wins[domain] = Counter(
                    {t: int(n) for t, n in wins.items() if t in TIERS and isinstance(n, int)}
                )
            if isinstance(tier.get("fails"), int):
                self._fails[domain] = int(tier["fails"])
        if learnings.get(LEARNING_BOT) is True:
            self._bot.add(domain)


def tier_order(memory: ClickMemory, domain: str, *, allow_untrusted: bool) -> tuple[str, ...]:
    """Algorithm 5's order, starting at the domain's best tier; the scripted tier only when
    allowed and never on a bot-protected domain."""
    usable = [
        t for t in TIERS if t != "js" or (allow_untrusted and not memory.bot_protected(domain))
    ]
    best = memory.best_tier(domain)
    if best in usable:
        usable.remove(best)
        usable.insert(0, best)
    return tuple(usable)


class LearningsStore(Protocol):
    """The per-domain learnings side of workers/adapters/memory_store.DbMemoryStore."""

    async def load_domain_learnings(self, domain: str) -> Mapping[str, Any]: ...

    async def record_learning(self, domain: str, key: str, value: Any) -> None: ...


async def load(store: LearningsStore, domains: Iterable[str]) -> InMemoryClickMemory:
    """A task's memory seeded with what earlier tasks learned on its domains."""
    memory = InMemoryClickMemory()
    for domain in {d.rstrip(".").lower() for d in domains if d}:
        memory.load(domain, await store.load_domain_learnings(domain))
    return memory


async def save(store: LearningsStore, memory: InMemoryClickMemory) -> None:
    """Write back every domain the task clicked on (values replace, hits count up)."""
    for domain in memory.domains():
        for key, value in memory.export(domain).items():
            await store.record_learning(domain, key, value)
