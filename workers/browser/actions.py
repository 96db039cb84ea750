"""Element actions on resolved refs, with a light verify-act-verify check (seed 002).

Each action runs on an ElementHandle evaluated in the element's own frame, so elements in
cross-origin frames and closed shadow roots are acted on exactly like top-level ones.
Failures come back as feedback for the model (seed 003 §5.4), never as exceptions.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from playwright.async_api import ElementHandle, Error, Frame, Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from workers.agent.protocols import ToolResult
from workers.browser.frames import js

ACTION_TIMEOUT_MS = 5000


async def watch(frames: list[Frame]) -> None:
    """Start counting DOM mutations in the frames an action may affect."""
    for f in frames:
        try:
            await f.evaluate(js("watch.js"))
        except Error:
            continue


async def changes(frames: list[Frame]) -> int:
    """Mutations seen since watch(); a detached/navigated frame counts as a change."""
    total = 0
    for f in frames:
        try:
            n = await f.evaluate(js("changes.js"))
        except Error:
            return 1
        total += 1 if n < 0 else int(n)
    return total


def failure(error: str, reason: str, *alternatives: str, tried: tuple[str, ...] = ()) -> ToolResult:
    return ToolResult(
        success=False, error=error, reason=reason, alternatives=tuple(alternatives), tried=tried
    )


def explain(exc: Error, what: str) -> ToolResult:
    """Map a Playwright failure to the seed 003 §5.4 style message the model can act on."""
    msg = exc.message if hasattr(exc, "message") else str(exc)
    if "intercepts pointer events" in msg:
        blocker = msg.split("intercepts pointer events")[0].rsplit("\n", 1)[-1].strip(" -")
        return failure(
            "covered",
            f"{what}: element is covered by another element ({blocker[:120]}).",
            "close the overlay/dialog first (its close button, or press_key Escape)",
            "scroll the element into a free area and retry",
        )
    if "not visible" in msg or "outside of the viewport" in msg:
        return failure("not_visible", f"{what}: element is not visible.", "scroll to it first")
    if "not enabled" in msg or "disabled" in msg:
        return failure("disabled", f"{what}: element is disabled.", "fill required fields first")
    if "detached" in msg or "not attached" in msg:
        return failure("stale_ref", f"{what}: element detached from the DOM.", "observe again")
    if isinstance(exc, PlaywrightTimeout):
        return failure("not_clickable", f"{what}: timed out ({msg.splitlines()[0][:160]}).")
    return failure("action_failed", f"{what}: {msg.splitlines()[0][:200]}")


async def click(el: ElementHandle, args: Mapping[str, Any]) -> None:
    right = args.get("right_click") or args.get("rightClick")
    button: Literal["left", "right"] = "right" if right else "left"
    count = 2 if args.get("double_click") or args.get("doubleClick") else 1
    await el.click(button=button, click_count=count, timeout=ACTION_TIMEOUT_MS)


async def type_text(page: Page, el: ElementHandle, args: Mapping[str, Any]) -> None:
    text = str(args.get("text", ""))
    clear = args.get("clear", args.get("should_clear", True))
    editable = await el.evaluate(
        "e => e.isContentEditable || ['input','textarea'].includes(e.localName)"
    )
    if clear and editable:
        await el.fill(text, timeout=ACTION_TIMEOUT_MS)
    else:
        await el.click(timeout=ACTION_TIMEOUT_MS)
        await page.keyboard.press("End")
        await page.keyboard.type(text)
    if args.get("submit"):
        await el.press("Enter", timeout=ACTION_TIMEOUT_MS)


async def select_option(el: ElementHandle, args: Mapping[str, Any]) -> list[str]:
    """Select by label or value in one lookup: Playwright's select_option(label=...) waits out
    its whole timeout before a value fallback could run, and mixed choices never matched."""
    raw = args.get("values", args.get("value", []))
    values = [str(v) for v in (raw if isinstance(raw, list | tuple) else [raw])]
    found = await el.evaluate(js("match_options.js"), values)
    if found["missing"]:
        shown = ", ".join(repr(label) for label in found["labels"])
        raise OptionNotFound(
            f"no option {', '.join(map(repr, found['missing']))}; options include: {shown}"
        )
    return await el.select_option(index=list(found["indices"]), timeout=ACTION_TIMEOUT_MS)


class OptionNotFound(Exception):
    """The model named an option the list does not have: feedback, with the real labels."""


async def scroll(page: Page, el: ElementHandle | None, args: Mapping[str, Any]) -> None:
    direction = str(args.get("direction", "down")).lower()
    amount = float(args.get("amount", 0.8))
    if el is not None and direction in ("", "into_view", "to"):
        await el.scroll_into_view_if_needed(timeout=ACTION_TIMEOUT_MS)
        return
    dx, dy = {"down": (0, 1), "up": (0, -1), "right": (1, 0), "left": (-1, 0)}.get(
        direction, (0, 1)
    )
    if el is not None:
        await el.evaluate(js("scroll_container.js"), [dx, dy, amount])
    else:
        await page.evaluate(js("scroll_page.js"), [dx, dy, amount])
