"""Element actions on resolved refs, with a light verify-act-verify check (seed 002).

Each action runs on an ElementHandle evaluated in the element's own frame, so elements in
cross-origin frames and closed shadow roots are acted on exactly like top-level ones.
Failures come back as feedback for the model (seed 003 §5.4), never as exceptions.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from playwright.async_api import ElementHandle, Error, Page
from playwright.async_api import TimeoutError as PlaywrightTimeout

from workers.agent import textcut
from workers.agent.protocols import ToolResult
from workers.browser.runtime.scripts import js

if TYPE_CHECKING:
    from workers.agent.tools.args import SelectOptionArgs, TypeArgs

ACTION_TIMEOUT_MS = 5000


def failure(error: str, reason: str, *alternatives: str, tried: tuple[str, ...] = ()) -> ToolResult:
    return ToolResult(
        success=False,
        error=str(error),
        reason=reason,
        alternatives=tuple(alternatives),
        tried=tried,
    )


def explain(exc: Error, what: str) -> ToolResult:
    """Map a Playwright failure to the seed 003 §5.4 style message the model can act on."""
    msg = exc.message if hasattr(exc, "message") else str(exc)
    if "intercepts pointer events" in msg:
        blocker = msg.split("intercepts pointer events")[0].rsplit("\n", 1)[-1].strip(" -")
        return failure(
            "covered",
            f"{what}: element is covered by another element ({textcut.cut(blocker, 120)}).",
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
        return failure(
            "not_clickable", f"{what}: timed out ({textcut.cut(msg.splitlines()[0], 160)})."
        )
    return failure("action_failed", f"{what}: {textcut.cut(msg.splitlines()[0], 200)}")


async def centre(el: ElementHandle) -> tuple[float, float]:
    """The element's centre in viewport pixels, scrolled into view first."""
    await el.scroll_into_view_if_needed(timeout=ACTION_TIMEOUT_MS)
    box = await el.bounding_box()
    if box is None:
        raise Error("element is not visible")
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


async def drag(
    page: Page, start: tuple[float, float], end: tuple[float, float], steps: int
) -> None:
    """Press, move in `steps` (a first small move starts HTML5 drags), release."""
    await page.mouse.move(*start)
    await page.mouse.down()
    await page.mouse.move(start[0] + 3, start[1] + 3, steps=2)
    await page.mouse.move(*end, steps=steps)
    await page.mouse.up()


async def type_text(page: Page, el: ElementHandle, args: TypeArgs) -> None:
    editable = (await element_kind(el))["editable"]
    if args.clear and editable:
        await el.fill(args.text, timeout=ACTION_TIMEOUT_MS)
    else:
        await el.click(timeout=ACTION_TIMEOUT_MS)
        await page.keyboard.press("End")
        await page.keyboard.type(args.text)
    if args.submit:
        await el.press("Enter", timeout=ACTION_TIMEOUT_MS)


async def element_kind(el: ElementHandle) -> dict[str, Any]:
    """The element's {tag, kind, inputType, editable, typeable, select, file, checked, options}."""
    return dict(await el.evaluate(js("element_kind.js")))


async def read_value(el: ElementHandle) -> str | None:
    """What a field holds now (None for elements without a value)."""
    try:
        value = await el.evaluate(js("field_value.js"))
    except Error:
        return None
    return None if value is None else str(value)


def same_text(typed: str, value: str) -> bool:
    """Equal up to case, spaces and punctuation (masks add separators: '(555) 123-4567')."""

    def core(t: str) -> str:
        return "".join(c for c in t.lower() if c.isalnum())

    return core(typed) == core(value)


def note(result: ToolResult, extra: str) -> ToolResult:
    return replace(result, reason=f"{result.reason}; {extra}")


async def select_option(el: ElementHandle, args: SelectOptionArgs) -> list[str]:
    """Select by label or value in one lookup: Playwright's select_option(label=...) waits out
    its whole timeout before a value fallback could run, and mixed choices never matched."""
    found = await el.evaluate(js("match_options.js"), list(args.values))
    if found["missing"]:
        shown = ", ".join(repr(label) for label in found["labels"])
        raise OptionNotFound(
            f"no option {', '.join(map(repr, found['missing']))}; options include: {shown}"
        )
    return await el.select_option(index=list(found["indices"]), timeout=ACTION_TIMEOUT_MS)


class OptionNotFound(Exception):
    """The model named an option the list does not have: feedback, with the real labels."""


_DIRECTIONS = {"down": (0, 1), "up": (0, -1), "right": (1, 0), "left": (-1, 0)}


async def scroll(
    page: Page,
    el: ElementHandle | None,
    direction: str,
    *,
    pixels: int | None = None,
    percent: float | None = None,
    to: str | None = None,
    amount: float = 0.8,
) -> dict[str, Any]:
    """Scroll the page or el's scrollable ancestor; returns positions before and after."""
    dx, dy = _DIRECTIONS.get(direction, (0, 1))
    opts = {"dx": dx, "dy": dy, "amount": amount, "pixels": pixels, "percent": percent, "to": to}
    if el is None:  # the document element scrolls the page
        root = (await page.evaluate_handle(js("lookup.js"), ["root"])).as_element()
        if root is None:
            raise Error("the page has no document element")
        el = root
    return dict(await el.evaluate(js("scroll_by.js"), opts))
