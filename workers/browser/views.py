"""The observation text of each mode for one snapshot (compact, pagemem, som, vision).

An open modal replaces the page with the dialog and a one-line note (seed 001 A.4); mode
"vision" appends the [Vn] box list of the vision tier (seed 000 §4.3).
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from playwright.async_api import Page

from workers.browser import modal, pagemem
from workers.browser.fingerprint import Fingerprint
from workers.browser.snapshot import Snapshot
from workers.browser.vision_observer import VisionObserver

MODES = ("compact", "pagemem", "som", "vision")
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
) -> tuple[str, dict[str, Any]]:
    """(text, extra stats) for `mode`; `settled` is VisionObserver.settle()'s result."""
    found = await modal.detect(page)
    extra: dict[str, Any] = {"modal": found.label if found else None}
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


def text_key(snap: Snapshot) -> str:
    """Structure-and-content hash of the view, independent of the version in refs."""
    return hashlib.sha256(_REF_IN_LINE.sub("", snap.text).encode()).hexdigest()[:16]
