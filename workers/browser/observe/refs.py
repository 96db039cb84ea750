"""Versioned element refs `v:n` (seed 003 §5.1.1): resolve the current version, refuse stale ones.

The element objects stay inside each frame (window.__webagent.snap, written by snapshot.js);
Python keeps only frame + local index per ref, so closed shadow roots and cross-origin
frames resolve the same way: an ElementHandle evaluated in the element's own frame.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from playwright.async_api import ElementHandle, Error, Frame

from workers.browser.runtime.scripts import js

_REF = re.compile(r"^\s*\[?\s*(\d+)\s*:\s*(\d+)\s*\]?\s*$")


class RefError(Exception):
    """Feedback to the model: the ref cannot be acted on (seed 003 §5.4 error messages)."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


@dataclass(frozen=True)
class RefTarget:
    frame: Frame
    local_id: int
    role: str


@dataclass(frozen=True)
class RefTable:
    """Refs of one snapshot version: index -> where the element lives."""

    version: int
    targets: Mapping[int, RefTarget]


def parse_ref(ref: object) -> tuple[int, int]:
    """'3:12' (or '[3:12]') -> (3, 12); anything else is a bad_ref error."""
    m = _REF.match(str(ref))
    if not m:
        raise RefError("bad_ref", f"'{ref}' is not a ref; refs look like 3:12 (version:index).")
    return int(m.group(1)), int(m.group(2))


def target_of(table: RefTable | None, ref: object) -> tuple[int, int, RefTarget]:
    """(version, index, target) of a ref of the current snapshot; RefError when the ref is
    malformed, from another snapshot or not an interactive element."""
    version, index = parse_ref(ref)
    if table is None:
        raise RefError("stale_ref", "No snapshot has been taken yet; observe the page first.")
    if version != table.version:
        raise RefError(
            "stale_ref",
            f"Ref {version}:{index} is from snapshot {version} but the page is now at snapshot "
            f"{table.version}; use refs from the fresh snapshot.",
        )
    target = table.targets.get(index)
    if target is None:
        raise RefError("bad_ref", f"Ref {version}:{index} is not an interactive element.")
    return version, index, target


async def resolve(table: RefTable | None, ref: object) -> tuple[ElementHandle, RefTarget]:
    """Handle for a current ref; stale versions and detached elements fail safely."""
    version, index, target = target_of(table, ref)
    try:
        handle = await target.frame.evaluate_handle(js("resolve.js"), [version, target.local_id])
    except Error as exc:
        raise RefError(
            "stale_ref", f"Ref {version}:{index}: its frame is gone ({exc.message})."
        ) from exc
    element = handle.as_element()
    if element is None:
        await handle.dispose()
        raise RefError(
            "stale_ref", f"Ref {version}:{index} is detached from the page (it re-rendered)."
        )
    return element, target
