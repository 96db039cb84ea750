"""Opt-in vision observation for PageSession (seed 000 §4.3, §4.5): [Vn] boxes from a
screenshot, matched to the current snapshot's refs and appended to the compact view.

After a mutating action the session calls `schedule()`: a background look at the new screen
(screenshot + vision LLM only; it never snapshots, so the model's refs stay valid). The next
vision observation waits for it 1.5 s (soft), or 8 s (hard) when the last boxes belong to
another URL; on timeout the previous boxes are re-matched and flagged as lagging.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from playwright.async_api import Page

from app.settings import Settings
from workers.agent.protocols import LLM
from workers.browser.observe import fingerprint
from workers.browser.observe.fingerprint import Fingerprint
from workers.browser.observe.snapshot import Snapshot
from workers.browser.observe.vision import VisionBox, enrich, render_boxes
from workers.browser.observe.vision_tier import VisionEpoch, VisionPrefetch, VisionTier, candidates

FALLBACK_ROLE = "vision_fallback"  # Settings.llm_model_vision_fallback (page-type tiering)


@dataclass(frozen=True)
class VisionView:
    """What one vision observation adds: boxes on the current refs and where they came from."""

    boxes: tuple[VisionBox, ...]
    source: str  # "prefetch", "fresh" (looked now) or "lagging" (previous screen)
    tier: str
    page_type: str

    @property
    def lag(self) -> bool:
        return self.source == "lagging"

    def text(self) -> str:
        head = "Vision boxes ([Vn] from a screenshot; act on ref=):"
        if self.lag:
            head += " (vision lagging: boxes are from the previous screen)"
        return head + "\n" + (render_boxes(self.boxes) or "(none)")

    def stats(self, calls: int) -> dict[str, Any]:
        return {
            "boxes": len(self.boxes),
            "source": self.source,
            "lag": self.lag,
            "tier": self.tier,
            "page_type": self.page_type,
            "calls": calls,
        }


def _rematch(epoch: VisionEpoch, snap: Snapshot) -> tuple[VisionBox, ...]:
    """Match an epoch's boxes to this snapshot's refs (refs of older versions are dropped)."""
    raw = [
        replace(b, ref=None, expanded=None, active=False, parent_expand=None) for b in epoch.boxes
    ]
    return enrich(raw, candidates(snap))


class VisionObserver:
    """One per Perception; the vision LLM is injected (role "vision")."""

    def __init__(self, llm: LLM, settings: Settings) -> None:
        fallback = llm if settings.llm_model_vision_fallback else None
        self.tier = VisionTier(llm, fallback=fallback, fallback_role=FALLBACK_ROLE)
        self.prefetch = VisionPrefetch(self.tier)

    def schedule(self, page: Page, size: tuple[float, float]) -> None:
        """Look at the page as it is after a mutating action (supersedes a pending look)."""

        async def run() -> VisionEpoch:
            fp = await fingerprint.capture(page)
            return await self.tier.look(page, fp.url, size, fingerprint=fp)

        self.prefetch.schedule(run)

    async def settle(self, url: str) -> tuple[VisionEpoch | None, bool]:
        """Wait for a pending look: soft 1.5 s, hard 8 s if the last boxes are of another URL."""
        last = self.tier.epoch
        critical = last is None or last.url != url
        return await self.prefetch.latest(critical=critical)

    async def view(
        self,
        page: Page,
        snap: Snapshot,
        fp: Fingerprint | None,
        settled: tuple[VisionEpoch | None, bool],
    ) -> VisionView:
        """Boxes for `snap`: a prefetched look of this very screen, else the previous look
        flagged as lagging while one is still running, else a fresh look now."""
        epoch, lagging = settled
        if lagging and epoch is not None:
            # another page's [Vn] no longer apply (seed 000 §4.5): lag with no boxes
            boxes = _rematch(epoch, snap) if epoch.url == snap.url else ()
            return VisionView(boxes, "lagging", epoch.tier, epoch.page_type)
        same_screen = (
            epoch is not None
            and fp is not None
            and epoch.fingerprint is not None
            and not fingerprint.changed(epoch.fingerprint, fp)
        )
        if epoch is not None and same_screen:
            return VisionView(_rematch(epoch, snap), "prefetch", epoch.tier, epoch.page_type)
        fresh = await self.tier.perceive(page, snap, fingerprint=fp)
        return VisionView(fresh.boxes, "fresh", fresh.tier, fresh.page_type)

    async def close(self) -> None:
        await self.prefetch.close()
