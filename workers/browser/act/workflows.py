"""Compound workflows (seed 001 §2.5 and App. A.5): one agent action each, the partial state
changes in between (a list expanding, suggestions appearing, fields filled one at a time)
handled inside.

- choose_option (DropdownAction, Algorithm 10): a native <select> is set directly; otherwise
  the trigger is clicked through the cascade, the revealed elements are read from the section
  diff (js/workflows.js "mark" before, "diff" after; a text-field trigger that revealed no
  match gets the label typed, as filtering comboboxes need), and: the URL changed or nothing was
  revealed → the click was a plain click, reported as such; the revealed elements form a
  form (IsForm: >= 2 inputs and a submit-like button) → reported for fill_form; else the
  option with the wanted label is clicked. The model names the label up front (the seed's
  "LLM selects one of the revealed elements"); when none matches, the revealed labels come
  back as alternatives so the next turn can choose without observing again.
- fill_form (SubmitForm, Algorithm 9): each field through the tool its element needs (type,
  select_option, choose_option for a combobox, a checkbox/radio click, upload_file); then the
  validation pass re-fills, keystroke by keystroke, every given field that is still empty or
  invalid (aria-invalid, :invalid); the review is the form's state in the result; submit only
  when asked and when no field is invalid or required-but-empty.
- search: type the query, read the suggestions from the diff (waiting for them to appear),
  click the one matching `pick` (or equal to the query), else press Enter.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from playwright.async_api import ElementHandle, Error, Frame

from workers.agent import textcut
from workers.agent.protocols import Action, ToolResult
from workers.agent.toolerrors import ToolError as E
from workers.browser.act import actions
from workers.browser.act.click import Target
from workers.browser.observe.refs import RefError
from workers.browser.runtime.scripts import js

if TYPE_CHECKING:
    from workers.agent.tools import args_workflows as w
    from workers.browser.act.context import WorkflowContext

REVEAL_WAIT_S = 1.5  # how long revealed options / suggestions may take to appear
POLL_S = 0.1
STABLE_S = 0.2  # revealed elements must stay the same this long before one is clicked
TRUE_WORDS = frozenset({"true", "yes", "on", "checked", "1", "x"})


async def _mark(frame: Frame) -> None:
    await frame.evaluate(js("workflows.js"), ["mark", None])


async def _diff(frame: Frame, wait_s: float) -> dict[str, Any]:
    """The revealed elements once some appeared and a second look STABLE_S later finds the
    very same elements (a list still being rebuilt after each key would hand out elements
    about to be replaced); whatever is there when wait_s has passed."""
    deadline = time.monotonic() + wait_s
    seen = False
    while True:
        found: dict[str, Any] = await frame.evaluate(js("workflows.js"), ["diff", None])
        if (found["items"] and seen and found["same"]) or time.monotonic() >= deadline:
            return found
        seen = bool(found["items"])
        await asyncio.sleep(STABLE_S if seen else POLL_S)


async def _pick(frame: Frame, index: int) -> ElementHandle | None:
    handle = await frame.evaluate_handle(js("workflows.js"), ["pick", index])
    el = handle.as_element()
    if el is None:
        await handle.dispose()
    return el


def match(labels: list[str], wanted: str) -> int | None:
    """Index of the label equal to `wanted` (case and spaces aside), else the one starting with
    it, else the shortest one containing it; None when none does."""
    w = " ".join(wanted.lower().split())
    low = [" ".join(label.lower().split()) for label in labels]
    for test in (lambda t: t == w, lambda t: t.startswith(w)):
        hits = [i for i, t in enumerate(low) if test(t)]
        if hits:
            return hits[0]
    hits = [i for i, t in enumerate(low) if w in t]
    return min(hits, key=lambda i: len(low[i])) if hits else None


async def _click(s: WorkflowContext, el: ElementHandle, frame: Frame, what: str) -> ToolResult:
    """One verified click through the three-tier cascade (click.py)."""
    return await s.hand.click(s.page, Target.of(el, frame, {}), what, s.effect)


async def choose_option(s: WorkflowContext, args: w.ChooseOptionArgs) -> ToolResult:
    el, target = await s.element(args.model_dump())
    if (await actions.element_kind(el))["select"]:
        select = Action("select_option", {"ref": args.ref, "values": [args.option]})
        result = await s.run_tool(select)
        return _with_tried(result, ("native select",))
    frame = target.frame
    await _mark(frame)
    opened = await _click(s, el, frame, f"open {args.ref}")
    tried = ["click trigger " + args.ref]
    if not opened.success or opened.page_changed:
        return _with_tried(opened, tuple(tried))
    found = await _diff(frame, REVEAL_WAIT_S)
    labels = [str(i["label"]) for i in found["items"]]
    tried.append(f"{len(labels)} elements revealed")
    if match(labels, args.option) is None and await _typeable(el):
        # a combobox that filters as one types (autocomplete, select2-like): type the label
        await el.fill("", timeout=actions.ACTION_TIMEOUT_MS)
        await s.page.keyboard.type(args.option)
        found = await _diff(frame, REVEAL_WAIT_S)
        labels = [str(i["label"]) for i in found["items"]]
        tried.append(f"typed {args.option!r}: {len(labels)} elements revealed")
    if not labels:
        return actions.failure(
            E.not_a_select,
            f"clicking {args.ref} revealed no options ({opened.reason}).",
            "the list may open on hover or typing: hover it, or type into it and use search",
            tried=tuple(tried),
        )
    if found["form"]:
        return ToolResult(
            success=True,
            reason=f"{args.ref} opened a form ({', '.join(map(repr, labels[:12]))}); fill it "
            "with fill_form after the next observation",
            tried=tuple(tried),
            alternatives=("observe, then fill_form with the new fields' refs",),
            data={"options": labels, "form": True},
        )
    return await _choose(s, frame, el, args, labels, tried)


async def _typeable(el: ElementHandle) -> bool:
    return bool((await actions.element_kind(el))["typeable"])


async def _close(s: WorkflowContext, frame: Frame, trigger: ElementHandle) -> str:
    """Close the list that stays open: Escape, else the trigger again (it toggles)."""
    await s.page.keyboard.press("Escape")
    if not (await frame.evaluate(js("workflows.js"), ["diff", None]))["items"]:
        return "closed the list (Escape)"
    await trigger.click(timeout=actions.ACTION_TIMEOUT_MS)
    return "closed the list (trigger clicked again)"


async def _choose(
    s: WorkflowContext,
    frame: Frame,
    trigger: ElementHandle,
    args: w.ChooseOptionArgs,
    labels: list[str],
    tried: list[str],
) -> ToolResult:
    index = match(labels, args.option)
    option = await _pick(frame, index) if index is not None else None
    if option is None or index is None:
        closed = await _close(s, frame, trigger)
        s.invalidate()
        return actions.failure(
            E.option_not_found,
            f"{args.ref}: no option {args.option!r} among {', '.join(map(repr, labels[:30]))}.",
            *(f"choose_option ref={args.ref} option={x!r}" for x in labels[:3]),
            tried=(*tried, closed),
        )
    chosen = labels[index]
    clicked = await _click(s, option, frame, f"choose {chosen!r}")
    tried.append(f"click option {chosen!r}")
    if not clicked.success:
        return _with_tried(clicked, tuple(tried))
    shown = await _trigger_text(s, args)
    reason = f"chose {chosen!r} in {args.ref}" + (f"; it now shows {shown!r}" if shown else "")
    return ToolResult(
        success=True,
        reason=reason,
        tried=tuple(tried),
        page_changed=clicked.page_changed,
        data={"options": labels, "chosen": chosen},
    )


async def _trigger_text(s: WorkflowContext, args: w.ChooseOptionArgs) -> str:
    """What the trigger shows after the choice (its value or text), when still there."""
    try:
        el, _ = await s.element({"ref": args.ref})
        value = await actions.read_value(el)
        text = value if value is not None else await el.inner_text()
    except (Error, RefError):  # re-rendered or gone: the click's own report stands
        return ""
    return textcut.cut(" ".join(str(text).split()), 80)


def _with_tried(result: ToolResult, tried: tuple[str, ...]) -> ToolResult:
    return replace(result, tried=(*tried, *result.tried))


# ----------------------------------------------------------------------------------- search


async def search(s: WorkflowContext, args: w.SearchArgs) -> ToolResult:
    el, target = await s.element(args.model_dump())
    frame = target.frame
    await _mark(frame)

    async def enter() -> None:
        await el.fill("", timeout=actions.ACTION_TIMEOUT_MS)
        await el.focus()
        await s.page.keyboard.type(args.query)  # key events: suggestion scripts listen to them

    typed = await s.verified(f"type {args.query!r} into {args.ref}", frame, enter, ghost=False)
    tried = [f"type {args.query!r}"]
    if not typed.success:
        return _with_tried(typed, tuple(tried))
    found = await _diff(frame, REVEAL_WAIT_S)
    labels = [str(i["label"]) for i in found["items"]]
    tried.append(f"{len(labels)} suggestions")
    picked = await _pick_suggestion(s, frame, args, labels, tried)
    if picked is not None:
        return picked
    if args.pick is not None:
        return actions.failure(
            E.option_not_found,
            f"no suggestion {args.pick!r} for {args.query!r}; suggestions: "
            f"{', '.join(map(repr, labels[:20])) or 'none'}.",
            *(f"search ref={args.ref} query={args.query!r} pick={x!r}" for x in labels[:3]),
            f"search ref={args.ref} query={args.query!r} (no pick: press Enter)",
            tried=tuple(tried),
        )
    if not args.submit:
        return ToolResult(
            success=True,
            reason=f"typed {args.query!r}; suggestions: {', '.join(map(repr, labels[:20]))}",
            tried=tuple(tried),
            alternatives=tuple(
                f"search ref={args.ref} query={args.query!r} pick={x!r}" for x in labels[:3]
            ),
            data={"suggestions": labels},
        )
    sent = await s.verified(
        f"search {args.query!r}", frame, lambda: s.page.keyboard.press("Enter"), ghost=False
    )
    tried.append("press Enter")
    return ToolResult(
        success=sent.success,
        error=sent.error,
        reason=sent.reason,
        tried=tuple(tried),
        page_changed=sent.page_changed,
        data={"suggestions": labels},
    )


async def _pick_suggestion(
    s: WorkflowContext, frame: Frame, args: w.SearchArgs, labels: list[str], tried: list[str]
) -> ToolResult | None:
    """Click the suggestion `pick` names (or the one equal to the query); None when there is
    none or its click had no effect."""
    index = match(labels, args.pick) if args.pick is not None else _exact(labels, args.query)
    option = await _pick(frame, index) if index is not None else None
    if option is None or index is None:
        return None
    clicked = await _click(s, option, frame, f"pick suggestion {labels[index]!r}")
    tried.append(f"click suggestion {labels[index]!r}")
    if not clicked.success:
        return None
    return ToolResult(
        success=True,
        reason=f"searched {args.query!r}: {clicked.reason}",
        tried=tuple(tried),
        page_changed=clicked.page_changed,
        data={"suggestions": labels, "chosen": labels[index]},
    )


def _exact(labels: list[str], wanted: str) -> int | None:
    w = " ".join(wanted.lower().split())
    return next((i for i, t in enumerate(labels) if " ".join(t.lower().split()) == w), None)
