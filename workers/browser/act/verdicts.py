"""Tool results built from an effect check's Outcome (verify.py): `report` for an action that
changed something, `ghost` for one that did not (seed 002 ghost click, seed 000 Alg. 5
click_silent), `missed` for a press released on something else (issue 27 item 3),
`listens_double` for a click that may have needed two (relay finding 6), and `focus_change`,
what a key press did to the focused element (issue 26 item 8)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from playwright.async_api import Error, Page

from workers.agent import textcut
from workers.agent.protocols import ToolResult
from workers.agent.toolerrors import ToolError
from workers.browser.act.verify import Outcome
from workers.browser.observe.perception import is_error_page
from workers.browser.runtime.scripts import js


def ghost(
    what: str,
    out: Outcome | None,
    tried: tuple[str, ...] | list[str] = (),
    clues: Sequence[str] = (),
) -> ToolResult:
    """The ghost click of seed 002 (click_silent of seed 000 Alg. 5) with concrete next moves;
    `clues` say why nothing happened when the page shows it (js/why_inert.js, wave 5 item 7)."""
    alternatives: list[str] = []
    if out is not None and out.children:
        parts = ", ".join(repr(c) for c in out.children)
        alternatives.append(f"it contains separately clickable parts ({parts}): click one of those")
    alternatives += [
        "the element may be disabled, decorative or only a label: observe again and pick the"
        " real control",
        "press_key Enter (or Space) if the element has focus",
    ]
    ambient = f" ({out.ambient} changes by page timers ignored)" if out and out.ambient else ""
    tiers = f"; tried {', '.join(tried)}" if tried else ""
    if out is not None and out.handled > 0:  # issue 27 item 2: answered, not dead
        return ToolResult(
            success=False,
            error=ToolError.no_change,
            reason=f"{what}: the page's handlers ran ({out.handled}) but the page looks the same"
            f" (no navigation, DOM, focus, value, scroll or dialog change){ambient}{tiers}.",
            alternatives=(
                "if it checks an answer or input, change that first, then try again",
                "observe the page: the response may be elsewhere or come later",
            ),
            tried=tuple(tried),
        )
    return ToolResult(
        success=False,
        error=ToolError.no_effect,
        reason=f"{what} had no visible effect: no navigation, DOM change, focus, value, scroll"
        f" or dialog change, and no page handler ran{ambient}{tiers}."
        + (f" Why: {'; '.join(clues)}." if clues else ""),
        alternatives=tuple(alternatives),
        tried=tuple(tried),
    )


def missed(what: str, out: Outcome, tried: tuple[str, ...] | list[str] = ()) -> ToolResult:
    """Issue 27 item 3: the press was released on something else (the target moved or went
    away under the pointer: a hover-revealed menu that closed, a list that re-sorted)."""
    return ToolResult(
        success=False,
        error=ToolError.no_effect,
        reason=f"{what}: the target did not get the click; it landed on {out.missed_on}"
        " (the target moved, closed or was covered as the pointer reached it).",
        alternatives=(
            "for an item in a menu opened by hovering, hover its parent item again, then click"
            " the item (or focus the parent and use the arrow keys and Enter)",
            "observe again and click the element now at that place only if it is the one meant",
        ),
        tried=tuple(tried),
    )


def report(what: str, out: Outcome, url: str) -> ToolResult:
    """A successful action: what it changed, where the page is now."""
    evidence = out.evidence()
    reason = f"{what} done" + (f" ({evidence})" if evidence else "")
    if out.popup:  # the model is told where it is now (issue 31 item 4)
        reason += f" (it opened a new tab at {out.tab_url or url}; you are now in that tab)"
    elif out.url_changed and is_error_page(url):  # refused: perception leads back, says so
        reason += (
            "; the page it led to was refused (the next page view says what, and where you are)"
        )
    elif out.url_changed:
        reason += f"; now at {url}"
    if out.downloads:
        reason += "; it started a download (see read_download)"
    if out.dialogs:  # a native dialog: the model may decide the next one (handle_dialog)
        reason += f"; the page showed a dialog: {'; '.join(out.dialogs)}"
        reason += " (decide the next one with handle_dialog)"
    return ToolResult(success=True, reason=reason, page_changed=out.url_changed or out.popup)


LISTENS_DOUBLE = "listens_dblclick"  # data key: the handler names the exact double click


def listens_double(result: ToolResult) -> ToolResult:
    """A click that only changed the element's focus or state, on an element that listens for
    double click (issue 26 relay finding 6: a calendar slot opened its editor on the second
    click, while the first was reported done)."""
    return replace(
        result,
        reason=f"{result.reason}; nothing appeared (only focus or classes changed), and it"
        " listens for a double click: if what you expected did not open, click it again with"
        " count=2",
        data={**result.data, LISTENS_DOUBLE: True},
    )


def offer_double(result: ToolResult, again: str) -> ToolResult:
    """The click handlers' account of `listens_double`: the exact call that double-clicks."""
    if not result.data.get(LISTENS_DOUBLE):
        return result
    return replace(result, alternatives=(again, *result.alternatives))


async def focused(page: Page) -> dict[str, Any] | None:
    """The focused element's state (js/verify_focus.js), None when nothing is focused."""
    try:
        state = await page.main_frame.evaluate(js("verify_focus.js"))
    except Error:
        return None
    return dict(state) if state else None


_FOCUS_FIELDS = (
    ("value", "value"),
    ("valuenow", "value"),
    ("valuetext", "value text"),
    ("checked", "checked"),
    ("expanded", "expanded"),
    ("selected", "selected"),
    ("text", "text"),
)


def focus_change(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None) -> str:
    """What a key press did to the focused element: `the focused slider "Volume": value
    '-97' -> '-99'`, focus moving to another element, or a handle that moved; '' if nothing."""
    if after is None:
        return "focus left the element" if before is not None else ""
    name = f' "{after["name"]}"' if after.get("name") else ""
    if before is None or (before["what"], before.get("name")) != (after["what"], after.get("name")):
        return f"focus is now on a {after['what']}{name}"
    changes: list[str] = []
    for key, label in _FOCUS_FIELDS:
        old, new = before.get(key), after.get(key)
        if old != new and label not in {c.split(" ", 1)[0] for c in changes}:
            changes.append(
                f"{label} {textcut.cut(str(old), 30)!r} -> {textcut.cut(str(new), 30)!r}"
            )
    if not changes and (before["x"], before["y"]) != (after["x"], after["y"]):
        dx, dy = after["x"] - before["x"], after["y"] - before["y"]
        changes.append(f"moved by ({dx:+d}, {dy:+d}) px")
    return f"the focused {after['what']}{name}: {', '.join(changes)}" if changes else ""


def pressed_path(what: str, out: Outcome) -> ToolResult | None:
    """A press moved along a path (drag, pointer with press): a failure when it only selected
    text (the focus ring and the selection's own pixels are not a drop) or changed nothing;
    None when it did something. `drag` and `pointer` share it, so one outcome gets one
    verdict (relay 2026-11-27 finding 2: "done, text got selected" vs no_effect)."""
    if out.selected and not (out.url_changed or out.causal or out.late or out.value_changed):
        return ToolResult(
            success=False,
            error=ToolError.no_effect,
            reason=f"{what}: it selected text instead of moving anything (nothing took the drag).",
            alternatives=(
                "start the drag on the element's handle or its exact ref, not on text near it",
                "if nothing on the page reacts to a drop, the page cannot do this: say so",
            ),
        )
    if not out.effect and not out.handled:
        return ghost(what, out)
    return None


def typed_nowhere(what: str, out: Outcome, element: str) -> ToolResult | None:
    """Text typed into an element that is no text field (a custom slider's handle): unless
    the page changed beyond the focus (a value, the DOM, a field), the text went nowhere
    (relay 2026-11-27 finding 2: "done (focus moved)" while the slider stayed at 75%)."""
    took = out.url_changed or out.mutations or out.value_changed or out.field is not None
    if took or out.state_changed or out.dialogs or out.popup or out.requests or out.modal:
        return None
    return ToolResult(
        success=False,
        error=ToolError.not_editable,
        reason=f"{what}: the text went nowhere: {element} is not a text field and nothing on"
        " the page changed (only the focus).",
        alternatives=(
            "for a slider, focus it and press_key ArrowRight/ArrowLeft (or Home/End), or drag"
            " its handle",
            "type into an input or textbox instead",
        ),
    )
