"""The optional vision tier (seed 000 §4.3, §4.5): one screenshot → [Vn] boxes → DOM-enriched epoch.

Previous boxes are overlaid as dashed anchors (dropped after 10 s or a URL change); pages
classified as complex escalate to the fallback model for the rest of the session; a coverage
pass fires when an expected label is missing; `VisionPrefetch` refreshes the epoch in the
background after mutating actions, with the soft (1.5 s) and hard (8 s) waits.
"""

from __future__ import annotations

import asyncio
import base64
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from playwright.async_api import Page

from workers.agent.protocols import LLM
from workers.browser.observe import som
from workers.browser.observe.fingerprint import Fingerprint
from workers.browser.observe.snapshot import Snapshot
from workers.browser.observe.summaries import prompt
from workers.browser.observe.vision import (
    Candidate,
    Rect,
    VisionBox,
    enrich,
    missing_labels,
    parse_reply,
)

ROLE = "vision"
ANCHOR_MAX_AGE_S = 10.0
SOFT_WAIT_S = 1.5
HARD_WAIT_S = 8.0
BOX_CAP = 50
COVERAGE_CAP = 60
COMPLEX_PAGE_TYPES = frozenset(
    {"search_results", "product_listing", "checkout_form", "booking_form", "map_or_booking"}
)


@dataclass(frozen=True)
class VisionEpoch:
    """A frozen vision response as the LLM saw it; clicks resolve [Vn] against it."""

    url: str
    boxes: tuple[VisionBox, ...]
    taken_at: float  # time.monotonic()
    page_type: str = ""
    tier: str = "small"
    coverage: bool = False
    fingerprint: Fingerprint | None = None

    def lookup(self, index: int) -> VisionBox | None:
        return next((b for b in self.boxes if b.index == index), None)


def candidates(snapshot: Snapshot) -> list[Candidate]:
    """In-view interactive snapshot nodes as snapper candidates (viewport CSS pixels)."""
    return [
        Candidate(
            ref=n.ref,
            rect=Rect.xywh(*n.bbox),
            role=n.role,
            name=n.name,
            states=frozenset(n.states),
            haspopup="haspopup" in n.states,
        )
        for n in snapshot.nodes
        if n.interactive and n.in_viewport
    ]


def anchors_for(prev: VisionEpoch | None, url: str, now: float) -> list[som.Mark]:
    """Dashed [Vn] anchors from the previous pass, unless stale (> 10 s) or another URL."""
    if prev is None or prev.url != url or now - prev.taken_at > ANCHOR_MAX_AGE_S:
        return []
    return [
        som.Mark(f"V{b.index}", (b.rect.x0, b.rect.y0, b.rect.width, b.rect.height))
        for b in prev.boxes
    ]


def to_1000(rect: Rect, width: float, height: float) -> list[int]:
    return [
        round(rect.y0 / height * 1000),
        round(rect.x0 / width * 1000),
        round(rect.y1 / height * 1000),
        round(rect.x1 / width * 1000),
    ]


def build_messages(
    image: bytes,
    *,
    cap: int,
    anchored: bool,
    subgoal: str = "",
    expected: Sequence[str] = (),
    hints: Sequence[str] = (),
) -> list[dict[str, Any]]:
    """OpenAI-style user message: instructions + the screenshot as a data URL part."""
    anchors = (
        "Dashed boxes labelled [Vn] are your previous answer: first compute fresh boxes from "
        "the screenshot, then reuse a previous box's coordinates where it still matches and "
        "drop marks whose element is gone."
        if anchored
        else ""
    )
    expect = ""
    if expected:
        expect = "These labels are expected on the page; include them: " + "; ".join(expected)
        if hints:
            expect += "\nDOM hints (label → box_2d): " + "; ".join(hints)
    text = prompt("vision.txt").safe_substitute(
        cap=cap,
        anchors=anchors,
        subgoal=f"Current subgoal: {subgoal}. Set intent_relevant only for elements that "
        "serve this subgoal."
        if subgoal
        else "",
        expected=expect,
    )
    url = "data:image/jpeg;base64," + base64.b64encode(image).decode()
    return [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": text},
                {"type": "image_url", "image_url": {"url": url}},
            ],
        }
    ]


def merge_coverage(
    boxes: Sequence[VisionBox], extra: Iterable[VisionBox], missing: Sequence[str]
) -> list[VisionBox]:
    """Add coverage-pass boxes that carry a missing label and do not duplicate a box."""
    out = list(boxes)
    for b in extra:
        wanted = any(m.lower() in b.label.lower() for m in missing)
        if wanted and all(o.rect.iou(b.rect) < 0.5 for o in out):
            out.append(b)
    return out


class VisionTier:
    """Per-session vision state: last epoch and the URLs classified as complex pages."""

    def __init__(self, llm: LLM, *, fallback: LLM | None = None, fallback_role: str = ROLE) -> None:
        self.llm = llm
        self.fallback = fallback
        self.fallback_role = fallback_role  # the role naming the larger model's setting
        self.epoch: VisionEpoch | None = None
        self._complex: set[str] = set()
        self.calls = 0

    def _model(self, url: str) -> tuple[LLM, str]:
        if url in self._complex and self.fallback is not None:
            return self.fallback, "large"
        return self.llm, "small"

    async def _ask(
        self, llm: LLM, tier: str, image: bytes, size: tuple[float, float], **kw: Any
    ) -> tuple[list[VisionBox], str]:
        role = self.fallback_role if tier == "large" else ROLE
        reply = await llm.chat(role, build_messages(image, **kw))
        self.calls += 1
        parsed = parse_reply(reply.content or "", width=size[0], height=size[1])
        return list(parsed.boxes[: kw["cap"]]), parsed.page_type

    async def look(
        self,
        page: Page,
        url: str,
        size: tuple[float, float],
        *,
        subgoal: str = "",
        fingerprint: Fingerprint | None = None,
    ) -> VisionEpoch:
        """One screenshot (previous boxes as anchors) → raw boxes, not yet matched to refs;
        what the background prefetch runs, so it never touches the session's snapshot."""
        anchors = anchors_for(self.epoch, url, time.monotonic())
        image = await som.with_anchors(page, anchors)
        llm, tier = self._model(url)
        raw, page_type = await self._ask(
            llm, tier, image, size, cap=BOX_CAP, anchored=bool(anchors), subgoal=subgoal
        )
        if page_type in COMPLEX_PAGE_TYPES:
            self._complex.add(url)  # remembered per session, not globally
        self.epoch = VisionEpoch(
            url, tuple(raw), time.monotonic(), page_type, tier, False, fingerprint
        )
        return self.epoch

    async def perceive(
        self,
        page: Page,
        snapshot: Snapshot,
        *,
        subgoal: str = "",
        expected: Sequence[str] = (),
        fingerprint: Fingerprint | None = None,
    ) -> VisionEpoch:
        """look() + DOM enrichment against `snapshot`, with a coverage pass for missing labels."""
        size = (snapshot.viewport.width, snapshot.viewport.height)
        first = await self.look(page, snapshot.url, size, subgoal=subgoal, fingerprint=fingerprint)
        raw = list(first.boxes)
        cands = candidates(snapshot)
        boxes = enrich(raw, cands)
        missing = missing_labels(boxes, expected)
        if missing:
            image = await som.with_anchors(page, [])
            llm, tier = self._model(snapshot.url)
            extra, _ = await self._ask(
                llm,
                tier,
                image,
                size,
                cap=COVERAGE_CAP,
                anchored=False,
                subgoal=subgoal,
                expected=missing,
                hints=self._hints(snapshot, cands, missing),
            )
            boxes = enrich(merge_coverage(raw, extra, missing), cands)
        self.epoch = replace(first, boxes=boxes, coverage=bool(missing))
        return self.epoch

    @staticmethod
    def _hints(snapshot: Snapshot, cands: Sequence[Candidate], missing: Sequence[str]) -> list[str]:
        vp = snapshot.viewport
        out = []
        for label in missing:
            for c in cands:
                if label.lower() in c.name.lower():
                    out.append(f"{label} → {to_1000(c.rect, vp.width, vp.height)}")
                    break
        return out


class VisionPrefetch:
    """Background vision refresh scheduled after a mutating action (seed 000 §4.5)."""

    def __init__(self, tier: VisionTier) -> None:
        self.tier = tier
        self._task: asyncio.Task[VisionEpoch] | None = None

    def schedule(self, run: Callable[[], Awaitable[VisionEpoch]]) -> None:
        """Start a refresh; a pending one is superseded (the page moved on again)."""
        if self._task is not None and not self._task.done():
            self._task.cancel()

        async def _run() -> VisionEpoch:
            return await run()

        self._task = asyncio.get_running_loop().create_task(_run())

    @property
    def pending(self) -> bool:
        return self._task is not None and not self._task.done()

    async def latest(self, *, critical: bool = False) -> tuple[VisionEpoch | None, bool]:
        """(epoch, vision_lag): wait the soft 1.5 s, or the hard 8 s before critical actions;
        on timeout the previous epoch is returned flagged as lagging."""
        task = self._task
        if task is None or task.done():
            return self.tier.epoch, False
        budget = HARD_WAIT_S if critical else SOFT_WAIT_S
        done, _ = await asyncio.wait({task}, timeout=budget)
        if task in done and not task.cancelled() and task.exception() is None:
            return task.result(), False
        return self.tier.epoch, task not in done

    async def close(self) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
