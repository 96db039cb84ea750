"""fill_form: the SubmitForm workflow of seed 001 App. A.5 (Algorithm 9) as one agent action.

Phase 1 fills each given field through the tool its element needs (js/workflows.js "kind"):
text → type (value read back), select → select_option, combobox → choose_option, checkbox /
radio → a verified click when its state differs, file → upload_file (task attachments only).
Phase 2, the validation pass: a given text field still empty or invalid (aria-invalid="true"
or :invalid) is re-filled keystroke by keystroke and blurred, so masks and validators that
listen to key events see real input. Phase 3, the review: the form's state (every field's
label, value, required, invalid) goes back to the model in the result; submit happens only
when asked and when no field is invalid or required-but-empty, through the click cascade.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from playwright.async_api import ElementHandle, Error, Frame

from workers.agent import textcut
from workers.agent.protocols import Action, ToolResult
from workers.agent.toolerrors import ToolError as E
from workers.browser.act import actions, field_values
from workers.browser.act.workflows import TRUE_WORDS, _click
from workers.browser.runtime.scripts import js

if TYPE_CHECKING:
    from workers.agent.tools import args_workflows as w
    from workers.browser.act.context import WorkflowContext


@dataclass(frozen=True)
class Filled:
    ref: str
    kind: str
    ok: bool
    note: str
    result: ToolResult | None = None
    error: str | None = None  # a failure found before any tool ran


async def _state(el: ElementHandle) -> dict[str, Any]:
    state: dict[str, Any] = await el.evaluate(js("workflows.js"), ["state"])
    return state


async def _fill_one(s: WorkflowContext, field: w.FormField) -> Filled:
    el, target = await s.element({"ref": field.ref})
    kind = str(await el.evaluate(js("workflows.js"), ["kind"]))
    values = field.items
    text = ", ".join(values)
    if kind == "text":
        action = Action("type", {"ref": field.ref, "text": text})
    elif kind == "select":
        action = Action("select_option", {"ref": field.ref, "values": values})
    elif kind == "combobox":
        action = Action("choose_option", {"ref": field.ref, "option": text})
    elif kind == "file":
        action = Action("upload_file", {"ref": field.ref, "files": values})
    elif kind in ("checkbox", "radio"):
        return await _toggle(s, el, target.frame, field.ref, kind, text)
    else:
        return Filled(field.ref, kind, False, "not a form field", error=E.not_editable)
    result = await s.run_tool(action)
    ok = result.success or result.error == E.value_mismatch  # phase 2 re-fills it
    return Filled(field.ref, kind, ok, result.reason, result)


async def _toggle(
    s: WorkflowContext, el: ElementHandle, frame: Frame, ref: str, kind: str, text: str
) -> Filled:
    if kind == "radio" and text.strip().lower() not in TRUE_WORDS:
        handle = await el.evaluate_handle(js("workflows.js"), ["radio", text])
        chosen = handle.as_element()
        if chosen is None:
            labels = await el.evaluate(js("workflows.js"), ["radios"])
            note = f"no option {text!r} among {labels}"
            return Filled(ref, kind, False, note, error=E.option_not_found)
        el = chosen  # the radio of this group that the value names
    want = kind == "radio" or text.strip().lower() in TRUE_WORDS
    on = (await actions.element_kind(el))["checked"]
    if on == want:
        return Filled(ref, kind, True, "already " + ("checked" if on else "unchecked"))
    result = await _click(s, el, frame, f"{'check' if want else 'uncheck'} {ref}")
    return Filled(ref, kind, result.success, result.reason, result)


async def _refill(s: WorkflowContext, field: w.FormField) -> str | None:
    """Phase 2 for one text field: keystrokes and a blur; what it holds afterwards, or None
    when the field needs nothing (or is no text field)."""
    if not isinstance(field.value, str) or s.secrets.has_token(field.value):
        return None  # a secret's token is never the field's text: `type` checked its value
    el, _ = await s.element({"ref": field.ref})
    before = await _state(el)
    if before["kind"] != "text":
        return None
    if str((await actions.element_kind(el))["inputType"]) in field_values.DATE_KINDS:
        return None  # keystrokes split across its segments; type filled its value form
    held = await actions.read_value(el)
    differs = held is not None and not actions.same_text(field.value, held)
    if not (before["invalid"] or differs):
        return None
    await el.click(timeout=actions.ACTION_TIMEOUT_MS)
    await s.page.keyboard.press("ControlOrMeta+a")
    await s.page.keyboard.press("Backspace")
    await s.page.keyboard.type(field.value)
    await s.page.keyboard.press("Tab")  # blur: change/blur validators run
    after = await _state(el)
    return f"{after['label']!r} re-filled by keystrokes: now {after['value']!r}" + (
        " (still invalid)" if after["invalid"] else ""
    )


async def _mismatch(s: WorkflowContext, field: w.FormField) -> str | None:
    """A given text field that does not hold its value (up to the browser's own
    normalisation, field_values.py) after both phases: what it holds instead."""
    if not isinstance(field.value, str) or s.secrets.has_token(field.value):
        return None
    el, _ = await s.element({"ref": field.ref})
    if (await _state(el))["kind"] != "text":
        return None
    held = await actions.read_value(el)
    kind = str((await actions.element_kind(el))["inputType"])
    if held is None or field_values.same_value(kind, field.value, held):
        return None
    return f"{field.ref} holds {textcut.cut(held, 80)!r}, not {textcut.cut(field.value, 80)!r}"


def _problems(form: dict[str, Any]) -> list[str]:
    return [
        f"{f['label']!r} ({'required, empty' if f['required'] and f['empty'] else 'invalid'})"
        for f in form["fields"]
        if f["invalid"] or (f["required"] and f["empty"])
    ]


def _review(form: dict[str, Any]) -> str:
    def shown(f: dict[str, Any]) -> str:
        if f["kind"] == "checkbox":
            return "checked" if f["value"] else "unchecked"
        return repr(f["value"])

    return "; ".join(f"{f['label']}={shown(f)}" for f in form["fields"][:40])


async def fill_form(s: WorkflowContext, args: w.FillFormArgs) -> ToolResult:
    filled = [await _fill_one(s, f) for f in args.fields]
    tried = [f"{f.kind} {f.ref}: {'ok' if f.ok else 'failed'}" for f in filled]
    refills = [note for f in args.fields if (note := await _refill(s, f))]
    tried += refills
    first, _ = await s.element({"ref": args.fields[0].ref})
    form: dict[str, Any] = await first.evaluate(js("workflows.js"), ["form"])
    data = {"form": form["fields"], "submit": form["submit"]}
    failed = [f for f in filled if not f.ok]
    problems = _problems(form)
    s.invalidate()
    if not failed and (wrong := [m for f in args.fields if (m := await _mismatch(s, f))]):
        return ToolResult(
            success=False,
            error=E.value_mismatch,
            reason=f"{len(wrong)} of {len(filled)} fields do not hold the value given: "
            + "; ".join(wrong)
            + f". Form now: {_review(form)}",
            tried=tuple(tried),
            alternatives=(
                "check the field's expected format (its label, placeholder or type) and fill "
                "it again",
                "press_key the value key by key into the focused field",
            ),
            data=data,
        )
    if failed:
        bad = failed[0]
        again = bad.result.alternatives if bad.result else ()
        return ToolResult(
            success=False,
            error=bad.error or (bad.result.error if bad.result else None) or E.action_failed,
            reason=f"{len(failed)} of {len(filled)} fields not filled: "
            + "; ".join(f"{f.ref}: {f.note}" for f in failed)
            + f". Form now: {_review(form)}",
            tried=tuple(tried),
            alternatives=tuple(again),
            data=data,
        )
    if args.submit and problems:
        return _invalid(problems, form, tuple(tried), data, "not submitted")
    reason = f"filled {len(filled)} fields. Form now: {_review(form)}"
    if not args.submit:
        note = f"; needs attention: {', '.join(problems)}" if problems else ""
        alts = (f"fill_form ... submit=true (button {form['submit']!r})",) if form["submit"] else ()
        return ToolResult(
            success=True, reason=reason + note, tried=tuple(tried), alternatives=alts, data=data
        )
    return await _submit(s, args, first, reason, tried, data)


async def _submit(
    s: WorkflowContext,
    args: w.FillFormArgs,
    first: ElementHandle,
    reason: str,
    tried: list[str],
    data: dict[str, Any],
) -> ToolResult:
    if args.submit_ref is not None:
        button, target = await s.element({"ref": args.submit_ref})
        frame = target.frame
    else:
        handle = await first.evaluate_handle(js("workflows.js"), ["submit"])
        button = handle.as_element()  # type: ignore[assignment]
        frame = await first.owner_frame() or s.page.main_frame
    if button is None:
        return actions.failure(
            E.not_clickable,
            f"{reason}; found no submit button in the form.",
            "click the form's submit button by its ref, or press_key Enter in a field",
            tried=tuple(tried),
        )
    clicked = await _click(s, button, frame, "submit")
    tried.append("submit: " + ("ok" if clicked.success else "failed"))
    if not clicked.success or clicked.page_changed:
        return ToolResult(
            success=clicked.success,
            error=clicked.error,
            reason=f"{reason}; {clicked.reason}",
            tried=tuple(tried),
            alternatives=clicked.alternatives,
            page_changed=clicked.page_changed,
            data=data,
        )
    try:  # still on the page: the browser's or the page's validation may have refused it
        form: dict[str, Any] = await first.evaluate(js("workflows.js"), ["form"])
    except Error:  # the form went away: submitted
        form = {"fields": [], "submit": None}
    problems = _problems(form)
    if problems:
        return _invalid(problems, form, tuple(tried), data, "the page refused the submit")
    return ToolResult(
        success=True, reason=f"{reason}; {clicked.reason}", tried=tuple(tried), data=data
    )


def _invalid(
    problems: list[str], form: dict[str, Any], tried: tuple[str, ...], data: Any, what: str
) -> ToolResult:
    return ToolResult(
        success=False,
        error=E.form_invalid,
        reason=f"{what}: {', '.join(problems)}. Form now: {_review(form)}",
        tried=tried,
        alternatives=(
            "fill_form again with values for those fields (check each one's expected format)",
            "read the error text next to the fields with read_text",
        ),
        data=data,
    )
