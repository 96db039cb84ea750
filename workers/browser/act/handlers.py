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

from workers.agent.protocols import Action, ToolResult
from workers.agent.tools import ToolName as T
from workers.browser.act import dialogs, files, look, tabs, workflows, workflows_form
from workers.browser.act import handlers_input as hi
from workers.browser.act import handlers_nav as hn
from workers.browser.act import handlers_read as hr
from workers.browser.act.handlers_nav import NAV_TIMEOUT_MS

if TYPE_CHECKING:
    from workers.agent.tools.registry import BulkArgs
    from workers.browser.act.context import ToolContext

__all__ = ["HANDLERS", "NAV_TIMEOUT_MS", "Handler", "bulk"]


async def bulk(s: ToolContext, args: BulkArgs) -> ToolResult:
    """Several independent actions in one call; stops at the first failure (seed 003 §5.3)."""
    done: list[str] = []
    changed = False
    for step in args.actions:
        name = str(step["tool"])
        result = await s.execute(Action(name, step["args"]))
        changed = changed or result.page_changed
        if not result.success:
            return ToolResult(
                success=False,
                error=result.error,
                reason=f"step {len(done) + 1} ({name}) failed: {result.reason}",
                tried=tuple(done),
                alternatives=result.alternatives,
                page_changed=changed,
                data=result.data,
            )
        done.append(f"{name} {step['args'].get('ref', '')}".strip())
    return ToolResult(
        success=True, reason=f"{len(done)} actions done", tried=tuple(done), page_changed=changed
    )


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
    T.drag: hi.drag,
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
