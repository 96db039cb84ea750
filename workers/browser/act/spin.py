"""Number controls set by `type`: a range slider's value in one action (issue 26 item 10), and
a spin button that refuses typed text stepped by its arrow keys (relay after fidelity
wave 3, finding 3: `type "-10"` into a spinner ended in value_mismatch, "the field now holds
'0'", because the widget takes only ArrowUp/ArrowDown or its own buttons).

When `type` into an <input type=number> or a role=spinbutton ends in value_mismatch, the
field is focused and ArrowUp or ArrowDown is pressed toward the number, one press at a time
and read back after each, within the field's min and max, at most MAX_PRESSES times; it
stops where a press no longer moves the value or steps past the number. The result says
which route set the value, or how far it got.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from playwright.async_api import ElementHandle

from workers.agent import textcut
from workers.agent.protocols import ToolResult
from workers.agent.toolerrors import ToolError as E
from workers.browser.act import actions
from workers.browser.runtime.scripts import js

if TYPE_CHECKING:
    from workers.agent.tools.args import TypeArgs
    from workers.browser.act.context import InputContext

MAX_PRESSES = 200


def _num(text: str) -> float | None:
    try:
        return float(text.strip())
    except ValueError:
        return None


async def _state(el: ElementHandle) -> dict[str, Any]:
    return dict(await el.evaluate(js("spin_state.js")))


async def step_to(
    s: InputContext, el: ElementHandle, frame: Any, args: TypeArgs, refused: ToolResult
) -> ToolResult:
    """`refused` (the type tool's value_mismatch) unchanged when the field is no spin button
    or the text no number; else the value set by arrow keys, or how far they got."""
    wanted, state = _num(args.text), await _state(el)
    if wanted is None or not state["spin"] or state["value"] is None:
        return refused
    lo, hi = state["min"], state["max"]
    if (lo is not None and wanted < lo) or (hi is not None and wanted > hi):
        bounds = " and ".join(
            [f"at least {lo:g}"] * (lo is not None) + [f"at most {hi:g}"] * (hi is not None)
        )
        return actions.failure(
            E.value_mismatch,
            f"{refused.reason} {args.ref} is a spin button that takes {bounds}; {wanted:g} is"
            " outside, so it was not stepped there.",
            "choose a number inside those bounds",
        )
    start = float(state["value"])
    moved: list[float] = [start]

    async def act() -> None:
        await el.focus()
        key = "ArrowUp" if wanted > start else "ArrowDown"
        while moved[-1] != wanted and len(moved) <= MAX_PRESSES:
            if (wanted > moved[-1]) != (key == "ArrowUp"):
                break  # stepped past the number: its step does not reach it
            await s.page.keyboard.press(key)
            now = (await _state(el))["value"]
            if now is None or float(now) == moved[-1]:
                break  # the key no longer moves it (a bound, or keys are ignored)
            moved.append(float(now))

    await s.verified(f"step {args.ref} by arrow keys", frame, act, ghost=False, el=el)
    return _account(args, refused, start, wanted, moved)


def _account(
    args: TypeArgs, refused: ToolResult, start: float, wanted: float, moved: list[float]
) -> ToolResult:
    key = "ArrowUp" if wanted > start else "ArrowDown"
    presses = len(moved) - 1
    if moved[-1] == wanted:
        return ToolResult(
            success=True,
            reason=f"typing into {args.ref} was refused (it is a spin button), so it was set by"
            f" pressing {key} x{presses}: the field holds {moved[-1]:g}",
            tried=("type", "arrow keys"),
        )
    return actions.failure(
        E.value_mismatch,
        f"{refused.reason} {args.ref} is a spin button: {presses} {key} presses moved it from"
        f" {start:g} to {moved[-1]:g}, not to {wanted:g} (its step or bounds do not reach it,"
        " or it ignores keys).",
        "click the spinner's own increment/decrement buttons, if it shows them",
        f"press_key {key} with repeat on the focused field, then read its value",
        tried=("type", "arrow keys"),
    )


async def set_range(s: InputContext, el: ElementHandle, frame: Any, args: TypeArgs) -> ToolResult:
    """Issue 26 item 10: a range's value in one action, with the input, change and release
    events a page listens for; the result says the value it holds (snapped to its step)."""
    try:
        wanted = float(args.text.strip())
    except ValueError:
        return actions.failure(
            E.value_mismatch,
            f"{args.ref} is a range slider: give a number, not {textcut.cut(args.text, 40)!r}.",
        )
    held: list[str] = []

    async def act() -> None:
        held.append(str(await el.evaluate(js("set_range.js"), args.text.strip())))

    result = await s.verified(f"set the range {args.ref}", frame, act, ghost=False, el=el)
    value = held[0] if held else await actions.read_value(el)
    if value is not None and float(value) != wanted:
        return actions.note(result, f"the range holds {value} (its nearest allowed value)")
    return actions.note(result, f"the range holds {value}")
