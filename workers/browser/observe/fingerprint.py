"""Change gating (seed 000 §4.5): decide whether the last observation is still the page.

`capture(page)` reads a cheap fingerprint in one evaluate; `changed(prev, cur)` is the pure
gating predicate; `ObservationCache` keeps the last value per observation mode and hands it
back while the fingerprint matches, so an unchanged page costs no snapshot and no vision call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from workers.browser.runtime.scripts import js

T = TypeVar("T")

SCROLL_BUCKET_PX = 100  # seed 000 §4.5: text hash over a 100-pixel-bucketed scroll position


def _script() -> str:
    return js("fingerprint.js")


_SCRIPT = _script()
SCRIPT = _SCRIPT  # what frames.walk_gated runs before the walk, with ARG
ARG = {"bucket": SCROLL_BUCKET_PX}


class FingerprintError(RuntimeError):
    """Browser fault: the page could not be fingerprinted (navigating, crashed, closed)."""


@dataclass(frozen=True)
class Fingerprint:
    """The cache key of seed 000 §4.5 plus the running mutation counter of the document."""

    url: str
    doc: str  # random id of the document instance; a reload or navigation gets a new one
    dom_hash: str  # interactive element list: count, tag histogram, labels, values, states
    text_hash: str  # rendered text + scroll bucket + viewport size
    frame_hash: str  # iframe descendants (same-origin content, cross-origin src and size)
    mutations: int  # nodes added/removed in this document since the counter was installed
    interactive: int = 0
    fresh: bool | None = field(default=None, compare=False)  # no snapshot walked it yet

    @property
    def key(self) -> str:
        """Short stable string for events and Observation.fingerprint."""
        return f"{self.dom_hash[:8]}-{self.text_hash[:8]}-{self.frame_hash[:6]}"

    @classmethod
    def from_js(cls, raw: dict[str, Any]) -> Fingerprint:
        return cls(
            url=str(raw["url"]),
            doc=str(raw["doc"]),
            dom_hash=str(raw["dom"]),
            text_hash=str(raw["text"]),
            frame_hash=str(raw["frames"]),
            mutations=int(raw["mutations"]),
            interactive=int(raw.get("interactive", 0)),
            fresh=bool(raw["fresh"]) if "fresh" in raw else None,
        )


def mutation_delta(prev: Fingerprint, cur: Fingerprint) -> int:
    """Nodes added/removed between two fingerprints of the same document (else -1)."""
    if prev.doc != cur.doc or cur.mutations < prev.mutations:
        return -1
    return cur.mutations - prev.mutations


def changed(prev: Fingerprint | None, cur: Fingerprint, *, max_mutations: int = 0) -> bool:
    """Gating predicate φ ≠ φ_prev ∨ Δ > θ (seed 000 §4.5, Algorithm 'procedural click')."""
    if prev is None:
        return True
    if (prev.url, prev.doc) != (cur.url, cur.doc):
        return True
    if (prev.dom_hash, prev.text_hash, prev.frame_hash) != (
        cur.dom_hash,
        cur.text_hash,
        cur.frame_hash,
    ):
        return True
    delta = mutation_delta(prev, cur)
    return delta < 0 or delta > max_mutations


async def capture(page: Page) -> Fingerprint:
    """One evaluate in the main frame; same-origin iframes are folded into frame_hash."""
    try:
        raw: dict[str, Any] = await page.evaluate(_SCRIPT, ARG)
    except PlaywrightError as exc:
        raise FingerprintError(f"cannot fingerprint {page.url}: {exc}") from exc
    return Fingerprint.from_js(raw)


@dataclass(frozen=True)
class CacheEntry(Generic[T]):
    fingerprint: Fingerprint
    value: T


class ObservationCache(Generic[T]):
    """Last observation per mode, valid while the page fingerprint is unchanged.

    Perception.observe() calls `get(mode, fp)` first and `put(mode, fp, obs)` after a
    fresh snapshot; mutating actions need no explicit invalidation because the fingerprint
    (mutation counter, value hash) moves, but `invalidate()` is there for navigation hooks.
    """

    def __init__(self, *, max_mutations: int = 0) -> None:
        self._entries: dict[str, CacheEntry[T]] = {}
        self._max_mutations = max_mutations
        self.hits = 0
        self.misses = 0

    def get(self, mode: str, fingerprint: Fingerprint) -> T | None:
        entry = self._entries.get(mode)
        if entry is None or changed(
            entry.fingerprint, fingerprint, max_mutations=self._max_mutations
        ):
            self.misses += 1
            return None
        self.hits += 1
        return entry.value

    def put(self, mode: str, fingerprint: Fingerprint, value: T) -> None:
        self._entries[mode] = CacheEntry(fingerprint, value)

    def last(self, mode: str) -> CacheEntry[T] | None:
        """The previous entry even if stale (vision anchors and diffs want it)."""
        return self._entries.get(mode)

    def invalidate(self, mode: str | None = None) -> None:
        if mode is None:
            self._entries.clear()
        else:
            self._entries.pop(mode, None)
