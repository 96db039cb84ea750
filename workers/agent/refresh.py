"""Stale state under slow models (issue 26 item 7): the observation is taken before a model
call that may take tens of seconds, and a timer page may have moved on meanwhile ("Click
Second!" became "Time's up"). Before acting, the page is observed again through the change
gate (seed 000 §4.5: one fingerprint read when nothing changed); when it did change in a way
the text shows, the model is told its view was refreshed and decides again on the page as it
is. At most once per step, so a page that never stops changing costs one extra call a step.
"""

from __future__ import annotations

import re
from dataclasses import replace

from workers.agent import prompts
from workers.agent.protocols import Browser, Observation

_REF = re.compile(r"\[\d+:(\d+)\]")


def _plain(text: str) -> str:
    """The view without its snapshot version: refs `[4:12]` and `[5:12]` read the same."""
    return _REF.sub(r"[\1]", text)


async def refreshed(browser: Browser, mode: str, seen: Observation) -> Observation | None:
    """The page now, with the refresh note first, when it changed since `seen` (the
    observation the model decided on, as the browser returned it); else None."""
    now = await browser.observe(mode)
    if now.url == seen.url and (
        now.version == seen.version or _plain(now.text) == _plain(seen.text)
    ):
        return None
    note = prompts.render("view_refreshed.md", old=seen.version, new=now.version)
    return replace(now, text=f"{note}\n{now.text}")
