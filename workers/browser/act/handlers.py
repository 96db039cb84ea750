"""The browser side of the tool registry: one handler per ToolName (seed 003 §5.2-5.3).

Argument models, schemas and error codes are defined once in workers/agent/tools; the
handlers live by concern in handlers_input (pointer, keyboard, lists), handlers_nav
(navigation, scrolling, waiting), handlers_read (reading and detection), tabs, files and
dialogs. ToolContext.execute validates the arguments with the tool's model and calls the
handler; ref errors raise RefError, which it turns into a compact failure.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from workers.agent import textcut
from workers.agent.protocols import Action, ToolResult
from workers.agent.toolerrors import ToolError as E
from workers.agent.tools import ToolName as T
from workers.browser.act import dialogs, files, look, selection, tabs, workflows, workflows_form
from workers.browser.act import handlers_input as hi
from workers.browser.act import handlers_nav as hn
from workers.browser.act import handlers_pointer as hp
from workers.browser.act import handlers_read as hr
from workers.browser.act.handlers_nav import NAV_TIMEOUT_MS

if TYPE_CHECKING:
    from workers.agent.tools.registry import BulkArgs
    from workers.browser.act.context import ToolContext

__all__ = ["HANDLERS", "NAV_TIMEOUT_MS", "Handler", "bulk"]


# read tools whose results a bulk hands back (issue 26 item 11: 28 read_canvas, one line)
READS = frozenset(
    {T.read_text, T.read_canvas, T.dom_search, T.get_dropdown_options, T.read_download,
     T.get_accessibility_tree, T.snapshot, T.get_console_errors, T.detect_captcha,
     T.detect_geo_block, T.look}
)  # fmt: skip
BULK_LINE_CHARS = 160  # one sub-action's account
# a sub-step's failures that only mean an earlier press of the bulk replaced its element
GONE = frozenset({E.stale_ref, E.ref_not_found})
PRESSES = frozenset({T.click, T.click_at, T.press_key, T.pointer, T.drag})
BULK_READ_CHARS = 12000  # all read results of one bulk together, an equal share each
READ_CUT = " [cut here: read it on its own for the rest]"
BULK_STEPS_KEPT = 20  # lines of a bulk's per-step account: the first ones and the last ...
BULK_STEPS_TAIL = 5  # ... these, with a line saying which steps were left out


async def bulk(s: ToolContext, args: BulkArgs) -> ToolResult:
    """Several independent actions in one call; stops at the first failure (seed 003 §5.3).
    Each sub-action's effect is reported on its own line (issue 26 item 8: eight key presses
    that moved once), and the results of read tools come back whole (item 11)."""
    lines: list[str] = []
    reads: list[str] = []
    done: list[str] = []
    changed = pressed = False  # the page changed; a press (click, key, pointer) did its work
    for i, step in enumerate(args.actions, 1):
        name = str(step["tool"])
        result = await s.execute(Action(name, step["args"]), step=False)
        if _after_a_change(result, pressed, changed):
            return _stopped_after_change(i, name, result, lines, reads, done)
        changed = changed or result.page_changed
        pressed = pressed or (result.success and name in PRESSES)
        label = f"{name} {step['args'].get('ref', '')}".strip()
        lines.append(f"{i}. {textcut.cut(result.reason or label, BULK_LINE_CHARS)}")
        if name in READS and result.success:
            reads.append(f"{i}. {label}: {_read_of(result)}")
        if not result.success:
            return ToolResult(
                success=False,
                error=result.error,
                reason=f"step {i} ({name}) failed: {result.reason}",
                tried=tuple(done),
                alternatives=result.alternatives,
                page_changed=changed,
                data={**result.data, **_bulk_data(lines[:-1], reads)},
            )
        done.append(label)
    return ToolResult(
        success=True,
        reason=f"{len(done)} actions done",
        tried=tuple(done),
        page_changed=changed,
        data=_bulk_data(lines, reads),
    )


def _after_a_change(result: ToolResult, pressed: bool, changed: bool) -> bool:
    """This step failed only because an earlier one changed the page: its element is gone
    after a press did its work, or it did nothing on a page an earlier step navigated."""
    if result.success:
        return False
    return (pressed and result.error in GONE) or (changed and result.error == E.no_effect)


def _stopped_after_change(
    i: int, name: str, result: ToolResult, lines: list[str], reads: list[str], done: list[str]
) -> ToolResult:
    """Issue 31 item 4: an earlier press did its work (a success screen replaced the
    controls) and this step then found its element gone or did nothing: the bulk did what
    it could and says what was not done; it did not fail (a winning move was filed as a
    dead end)."""
    why = textcut.cut(result.reason or str(result.error), BULK_LINE_CHARS)
    note = f"{i}. {name} not done: the page had changed by then ({why})"
    return ToolResult(
        success=True,
        reason=f"{len(done)} actions done; stopped at step {i}: the page changed before it",
        tried=tuple(done),
        page_changed=True,
        data=_bulk_data([*lines, note], reads),
    )


def _read_of(result: ToolResult) -> str:
    """A read tool's result as text: its text when it has one, else its reason."""
    text = result.data.get("text")
    return str(text) if isinstance(text, str) and text else result.reason


def _bulk_data(lines: list[str], reads: list[str]) -> dict[str, Any]:
    """The per-step account, at most BULK_STEPS_KEPT lines (its first and last ones: a
    126-click bulk replayed 21 KB into the next request, issue 31 item 6), and every read's
    text, each cut to its share of BULK_READ_CHARS (three 6,000-character read_text chunks
    came back as two: the third fell past one cut of the joined text)."""
    data: dict[str, Any] = {}
    if len(lines) > BULK_STEPS_KEPT:
        head, tail = BULK_STEPS_KEPT - BULK_STEPS_TAIL, BULK_STEPS_TAIL
        left_out = f"... steps {head + 1}-{len(lines) - tail} left out ..."
        lines = [*lines[:head], left_out, *lines[-tail:]]
    if lines:
        data["steps"] = "\n".join(lines)
    if reads:
        share = BULK_READ_CHARS // len(reads)
        data["reads"] = "\n".join(textcut.clip(read, share, READ_CUT) for read in reads)
    return data


async def _look(s: ToolContext, args: Any) -> ToolResult:
    return await look.look(s, args.model_dump(exclude_none=True))


Handler = Callable[["ToolContext", Any], Awaitable[ToolResult]]
HANDLERS: Mapping[str, Handler] = {
    T.navigate: hn.navigate,
    T.go_back: hn.back,
    T.go_forward: hn.forward,
    T.reload: hn.reload,
    T.click: hi.click,
    T.click_at: hi.click_at,
    T.type: hi.type_into,
    T.type_at: hi.type_at,
    T.press_key: hi.press,
    T.hover: hi.hover,
    T.focus: hi.focus,
    T.select_option: hi.select,
    T.get_dropdown_options: hi.dropdown_options,
    T.choose_option: workflows.choose_option,
    T.fill_form: workflows_form.fill_form,
    T.search: workflows.search,
    T.upload_file: files.upload_file,
    T.drag: hp.drag,
    T.pointer: hp.pointer,
    T.select_text: selection.select_text,
    T.scroll: hn.scroll,
    T.scroll_within: hn.scroll_within,
    T.wait: hn.wait,
    T.wait_for: hn.wait_for,
    T.wait_for_condition: hn.wait_for_condition,
    T.handle_dialog: dialogs.handle_dialog,
    T.tabs: tabs.tabs,
    T.read_text: hr.read_text,
    T.snapshot: hr.expand,
    T.screenshot: hr.screenshot,
    T.dom_search: hr.dom_search,
    T.get_console_errors: hr.console_errors,
    T.export_pdf: files.export_pdf,
    T.get_accessibility_tree: hr.accessibility_tree,
    T.read_canvas: hr.read_canvas,
    T.detect_captcha: hr.detect_captcha,
    T.detect_geo_block: hr.detect_geo_block,
    T.read_download: files.read_download,
    T.record_fact: hr.record_fact,
    T.evaluate_script: hr.evaluate_script,
    T.look: _look,
    T.bulk: bulk,
}
