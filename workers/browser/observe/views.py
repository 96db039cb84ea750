"""The observation text of each mode for one snapshot.

compact/som: the trimmed snapshot; pagemem: section outline; full: every line, untrimmed (the
naive baseline's whole observation); pipeline: seed 001 §2.4 summary + relevant controls;
vision: compact + [Vn] boxes (seed 000 §4.3). Except in "full", an open modal replaces the
page with the dialog and a one-line note (seed 001 A.4).

The image channel (seed 002): with settings.llm_worker_vision every mode but "full" also
carries the Set-of-Mark screenshot of the same snapshot (`som_image`); mode "som" is the
compact text whose purpose is that image, so it needs llm_worker_vision.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from playwright.async_api import Page

from app.settings import Settings
from workers.agent import textcut
from workers.browser.observe import compact, modal, pagemem, som
from workers.browser.observe.fingerprint import Fingerprint
from workers.browser.observe.observe_pipeline import ObservePipeline
from workers.browser.observe.refs import RefTable
from workers.browser.observe.snapshot import Snapshot
from workers.browser.observe.vision_observer import VisionObserver

MODES = ("compact", "pagemem", "som", "vision", "pipeline", "full")
_REF_IN_LINE = re.compile(r"\[\d+:\d+\] ")


async def render(
    page: Page,
    mode: str,
    snap: Snapshot,
    *,
    max_tokens: int,
    vision: VisionObserver | None = None,
    fp: Fingerprint | None = None,
    settled: Any = None,
    pipeline: ObservePipeline | None = None,
    goal: str = "",
) -> tuple[str, dict[str, Any]]:
    """(text, extra stats) for `mode`; `settled` is VisionObserver.settle()'s result and
    `pipeline` + `goal` serve mode "pipeline"."""
    found = snap.modal
    extra: dict[str, Any] = {"modal": found.label if found else None}
    if mode == "full":
        return compact.render(snap.nodes, snap.version, snap.viewport, max_tokens=None), extra
    if mode == "pipeline" and pipeline is not None:
        result = await pipeline.run(snap, goal, modal_label=found.label if found else None)
        extra["pipeline"] = {
            "calls": result.llm_calls,
            "input_tokens": result.input_tokens,
            "output_tokens": result.output_tokens,
            "selected": list(result.selected),
            "modal": result.modal,
        }
        return result.text, extra
    focused = modal.focus_text(snap, found, max_tokens=max_tokens) if found else None
    if mode == "pagemem":
        mem = pagemem.divide(snap, modal_label=found.label if found else None)
        text = focused if mem.modal is None and focused else None
        text = text or pagemem.render(mem, max_tokens=max_tokens)
    else:
        text = focused or snap.text
    if mode == "vision" and vision is not None:
        view = await vision.view(page, snap, fp, settled)
        text = f"{text}\n\n{view.text()}"
        extra["vision"] = view.stats(vision.tier.calls)
    return text, extra


async def som_image(
    page: Page, mode: str, snap: Snapshot, refs: RefTable | None, settings: Settings
) -> tuple[bytes | None, dict[str, Any]]:
    """(JPEG, stats) of the Worker's Set-of-Mark screenshot, or (None, {}) when the Worker
    does not read images. A failed capture leaves the step text-only, with the reason."""
    if not settings.llm_worker_vision or mode == "full":
        return None, {}
    try:
        shot = await som.observation_image(page, snap, refs, max_side=settings.llm_image_max_side)
    except som.SomError as exc:
        return None, {"som": {"error": textcut.cut(str(exc), 200)}}
    x, y, w, h = shot.region
    stats = {
        "tags": len(shot.labels),
        "refs": list(shot.refs),
        "region": [round(x), round(y), round(w), round(h)],
        "scale": round(shot.scale, 3),
        "bytes": len(shot.jpeg),
    }
    return shot.jpeg, {"som": stats}


def text_key(snap: Snapshot) -> str:
    """Structure-and-content hash of the view, independent of the version in refs."""
    return hashlib.sha256(_REF_IN_LINE.sub("", snap.text).encode()).hexdigest()[:16]


def configuration_problem(mode: str, settings: Settings) -> str | None:
    """Why `mode` cannot run with these settings (checked before a task opens its page)."""
    if mode not in MODES:
        return f"unknown observation mode {mode!r} (one of {', '.join(MODES)})"
    if mode == "vision" and not settings.vision_enabled:
        return "observation_mode 'vision' needs vision_enabled (WEBAGENT_VISION_ENABLED=true)"
    if mode == "som" and not settings.llm_worker_vision:
        return (
            "observation_mode 'som' sends the Set-of-Mark screenshot to the Worker: it needs a "
            "vision-capable worker model and llm_worker_vision (WEBAGENT_LLM_WORKER_VISION=true)"
        )
    return None
