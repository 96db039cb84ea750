"""Vision tier pieces that need no browser: anchors, messages, coverage merge, prefetch."""

from __future__ import annotations

import asyncio
import base64

import pytest

from workers.browser.observe import vision_tier
from workers.browser.observe.vision import Rect, VisionBox
from workers.browser.observe.vision_tier import (
    VisionEpoch,
    VisionPrefetch,
    VisionTier,
    anchors_for,
    build_messages,
    merge_coverage,
    to_1000,
)

BOX = VisionBox(3, "Search", Rect(10, 20, 110, 60))
EPOCH = VisionEpoch("http://127.0.0.1/a", (BOX,), taken_at=100.0)


def test_anchors_only_for_fresh_epoch_on_same_url() -> None:
    (mark,) = anchors_for(EPOCH, "http://127.0.0.1/a", now=105.0)
    assert mark.label == "V3" and mark.box == (10, 20, 100, 40)
    assert anchors_for(EPOCH, "http://127.0.0.1/a", now=110.5) == []  # older than 10 s
    assert anchors_for(EPOCH, "http://127.0.0.1/b", now=101.0) == []  # URL changed
    assert anchors_for(None, "x", now=0.0) == []
    assert EPOCH.lookup(3) is BOX and EPOCH.lookup(4) is None


def test_messages_carry_image_data_url_and_instructions() -> None:
    (msg,) = build_messages(
        b"\xff\xd8jpeg",
        cap=60,
        anchored=True,
        subgoal="open filters",
        expected=["Apply"],
        hints=["Apply → [1, 2, 3, 4]"],
    )
    text, image = msg["content"]
    assert (
        image["image_url"]["url"]
        == "data:image/jpeg;base64," + base64.b64encode(b"\xff\xd8jpeg").decode()
    )
    assert "at most 60 elements" in text["text"]
    assert "Dashed boxes labelled [Vn]" in text["text"]
    assert "Current subgoal: open filters" in text["text"]
    assert "Apply → [1, 2, 3, 4]" in text["text"]
    (plain,) = build_messages(b"x", cap=50, anchored=False)
    assert "Dashed" not in plain["content"][0]["text"]


def test_to_1000_is_y_first() -> None:
    assert to_1000(Rect(100, 50, 200, 100), 1000, 500) == [100, 100, 200, 200]


def test_coverage_merge_adds_only_missing_non_duplicates() -> None:
    dup = VisionBox(1, "Apply filters", Rect(12, 20, 110, 60))
    new = VisionBox(2, "Apply", Rect(300, 300, 350, 330))
    other = VisionBox(3, "Reset", Rect(400, 300, 450, 330))
    merged = merge_coverage([BOX], [dup, new, other], ["apply"])
    assert merged == [BOX, new]


def test_complex_pages_escalate_to_fallback_per_url() -> None:
    small, large = object(), object()
    tier = VisionTier(small, fallback=large)  # type: ignore[arg-type]
    assert tier._model("u") == (small, "small")
    tier._complex.add("u")
    assert tier._model("u") == (large, "large")
    assert tier._model("v") == (small, "small")
    assert VisionTier(small)._model("u")[1] == "small"  # type: ignore[arg-type]


async def test_prefetch_returns_fresh_epoch_when_it_lands() -> None:
    tier = VisionTier(object())  # type: ignore[arg-type]
    tier.epoch = EPOCH
    pre = VisionPrefetch(tier)
    assert await pre.latest() == (EPOCH, False)
    fresh = VisionEpoch("http://127.0.0.1/a", (), taken_at=200.0)

    async def refresh() -> VisionEpoch:
        return fresh

    pre.schedule(refresh)
    assert pre.pending
    assert await pre.latest() == (fresh, False)


async def test_prefetch_soft_timeout_flags_lag_and_critical_waits_longer(monkeypatch) -> None:
    monkeypatch.setattr(vision_tier, "SOFT_WAIT_S", 0.01)
    tier = VisionTier(object())  # type: ignore[arg-type]
    tier.epoch = EPOCH
    pre = VisionPrefetch(tier)
    gate = asyncio.Event()
    fresh = VisionEpoch("http://127.0.0.1/a", (), taken_at=300.0)

    async def slow() -> VisionEpoch:
        await gate.wait()
        return fresh

    pre.schedule(slow)
    assert await pre.latest() == (EPOCH, True)  # soft wait ran out: previous epoch, lagging
    asyncio.get_running_loop().call_soon(gate.set)
    assert await pre.latest(critical=True) == (fresh, False)
    await pre.close()


async def test_prefetch_supersedes_pending_refresh() -> None:
    tier = VisionTier(object())  # type: ignore[arg-type]
    pre = VisionPrefetch(tier)
    never = asyncio.Event()

    async def stuck() -> VisionEpoch:
        await never.wait()
        raise AssertionError("superseded refresh must not finish")

    async def quick() -> VisionEpoch:
        return EPOCH

    pre.schedule(stuck)
    first = pre._task
    pre.schedule(quick)
    assert await pre.latest() == (EPOCH, False)
    assert first is not None
    with pytest.raises(asyncio.CancelledError):
        await first
