"""Stale state under slow models (issue 26 item 7): the observation is taken before a model
call that may take tens of seconds, and a timer page may have moved on meanwhile ("Click
Second!" became "Time's up"). Before acting, the page is observed again through the change
gate (seed 000 §4.5: one fingerprint read when nothing changed).

What counts as "changed" is the elements the chosen actions target (issue 31 item 2: a
ticking clock, a moving readout or vanished confetti threw away winning moves), judged by
`retarget`:
- the calls that stay right whatever the page did (`done`, `more_tools`, `navigate`, reads:
  `KEEPS`) always run;
- every ref a call targets is looked up in the new view by what it is (its line without refs:
  role, name, state; focused and disabled come and go on the same control) and where (the
  heading above it, its rank among equal lines); when each is found, the calls run on the
  new refs;
- a target that is gone or changed (its name now says "Time's up"), or a new page, and the
  model is told its view was refreshed and decides again (at most once per step).
When only the snapshot version moved (a change the text does not show), refs are carried
over element for element (`carry_refs`), so a ref the model just read is never refused as
stale for it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from workers.agent import prompts
from workers.agent.protocols import Browser, Observation, ToolCall
from workers.agent.tools.names import ToolName as T

_REF = re.compile(r"\[\d+:(\d+)\]")
_ANY_REF = re.compile(r"\[\d+:\d+\]\s*")
# states that change while a control stays the one meant: a countdown's button that became
# clickable while the model decided to click it (challenge relay run: the click was refused)
_PASSING = re.compile(r'\s+(?:focused|disabled)\b(?=[^"]*$)')
# calls that stay right whatever the page did while the model decided: ending the task,
# enabling tools, reading the page as it is now, waiting, opening an address
KEEPS = frozenset(
    {T.done, T.more_tools, T.navigate, T.read_text, T.read_canvas, T.dom_search,
     T.get_dropdown_options, T.read_download, T.get_accessibility_tree, T.snapshot,
     T.get_console_errors, T.look,
     T.screenshot, T.detect_captcha, T.detect_geo_block, T.wait, T.wait_for, T.record_fact}
)  # fmt: skip


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


def retarget(
    calls: Sequence[ToolCall], seen: Observation, now: Observation
) -> tuple[ToolCall, ...] | None:
    """The calls pointed at the same elements in `now` (the page after the model call), or
    None when one of their targets is gone or changed, or the page is another one, so that
    the model must decide again on the new view."""
    if all(c.name in KEEPS for c in calls):
        return tuple(calls)
    if now.url != seen.url:
        return None
    prefix, moved = f"{seen.version}:", {}
    before = _places(seen.text)
    after = {place: ref for ref, place in _places(now.text).items()}
    for ref in _refs_in([c.arguments for c in calls if c.name not in KEEPS]):
        if not ref.startswith(prefix):
            continue  # not of the view the model saw: the action reports it as stale
        found = after.get(before[ref]) if ref in before else None
        if found is None:
            return None
        moved[ref] = found
    return tuple(replace(c, arguments=_moved(dict(c.arguments), moved)) for c in calls)


def _refs_in(values: Any) -> list[str]:
    if isinstance(values, str):
        return [values] if re.fullmatch(r"\d+:\d+", values) else []
    if isinstance(values, dict):
        values = list(values.values())
    if isinstance(values, list | tuple):
        return [ref for v in values for ref in _refs_in(v)]
    return []


def _places(text: str) -> dict[str, tuple[str, str, int, int]]:
    """Each ref of a view -> (its line without refs, the heading above it, its rank among
    lines equal in both, its place in the line)."""
    out: dict[str, tuple[str, str, int, int]] = {}
    heading, seen_count = "", dict[tuple[str, str], int]()
    for line in text.splitlines():
        bare = _PASSING.sub("", _ANY_REF.sub("", line)).strip()
        if bare.startswith("#") or ("heading " in bare and "[" not in line):
            heading = bare  # the compact view's `## Name`, or a snapshot's heading line
        refs = re.findall(r"\[(\d+:\d+)\]", line)
        if not refs:
            continue
        key = (bare, heading)
        rank = seen_count[key] = seen_count.get(key, 0) + 1
        for i, ref in enumerate(refs):
            out.setdefault(ref, (bare, heading, rank, i))
    return out


def _moved(value: Any, moved: dict[str, str]) -> Any:
    if isinstance(value, str):
        return moved.get(value, value)
    if isinstance(value, dict):
        return {k: _moved(v, moved) for k, v in value.items()}
    if isinstance(value, list):
        return [_moved(v, moved) for v in value]
    return value


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
