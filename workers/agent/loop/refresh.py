"""Stale state under slow models (issue 26 item 7): the observation is taken before a model
call that may take tens of seconds, and a timer page may have moved on meanwhile ("Click
Second!" became "Time's up"). Before acting, the page is observed again through the change
gate (seed 000 §4.5: one fingerprint read when nothing changed); when it did change in a way
the text shows, the model is told its view was refreshed and decides again on the page as it
is. At most once per step, so a page that never stops changing costs one extra call a step.
When only the snapshot version moved (a change the text does not show), the model's choice
stands: its refs are carried over to the new version, element for element (`carry_refs`),
so a ref the model just read is never refused as stale for it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from workers.agent import prompts
from workers.agent.protocols import Browser, Observation, ToolCall

_REF = re.compile(r"\[\d+:(\d+)\]")


def _plain(text: str) -> str:
    """The view without its snapshot version: refs `[4:12]` and `[5:12]` read the same."""
    return _REF.sub(r"[\1]", text)


@dataclass(frozen=True)
class Look:
    """The page looked at again after the model call."""

    now: Observation  # as the browser has it now (its refs are the current ones)
    changed: Observation | None  # with the refresh note, when the text changed; else None


async def look_again(browser: Browser, mode: str, seen: Observation) -> Look:
    """The page now, and (when it changed since `seen`, the observation the model decided
    on) the view to show the model with the refresh note first."""
    now = await browser.observe(mode)
    if now.url == seen.url and (
        now.version == seen.version or _plain(now.text) == _plain(seen.text)
    ):
        return Look(now, None)
    note = prompts.render("view_refreshed.md", old=seen.version, new=now.version)
    return Look(now, replace(now, text=f"{note}\n{now.text}"))


def carry_refs(calls: Sequence[ToolCall], old: int, new: int) -> tuple[ToolCall, ...]:
    """The calls with every ref of snapshot `old` (`"old:n"`, in any argument, bulk actions
    included) as the same element of snapshot `new`: for a page whose text did not change."""
    if old == new:
        return tuple(calls)
    prefix = f"{old}:"

    def move(value: Any) -> Any:
        if isinstance(value, str) and value.startswith(prefix) and value[len(prefix) :].isdigit():
            return f"{new}:{value[len(prefix) :]}"
        if isinstance(value, dict):
            return {k: move(v) for k, v in value.items()}
        if isinstance(value, list):
            return [move(v) for v in value]
        return value

    return tuple(replace(c, arguments=move(dict(c.arguments))) for c in calls)
