"""The one table of Worker tools: name, argument model, description, error codes.

Seed 000 App. A (the 36-tool taxonomy and the ToolResult contract) and seed 003 §5.2-5.3.
The OpenAI function schema of each tool is generated from its pydantic model; the browser
registers one handler per ToolName (names.py, with the other spellings models use) and a
test checks both sides cover the same names. Validation failures become FeedbackErrors
whose message goes back to the model instead of ending the run (seed 003 §5.4).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import Field, ValidationError, field_validator

from workers.agent.errors import FeedbackError
from workers.agent.protocols import Action, ToolCall
from workers.agent.toolerrors import ToolError
from workers.agent.toolerrors import ToolError as E
from workers.agent.tools import args as a
from workers.agent.tools import args_read as r
from workers.agent.tools import args_workflows as w
from workers.agent.tools.names import ToolName, resolve_alias
from workers.agent.tools.schema import openai_tool

# Keys an LLM client puts in ToolCall.arguments when the model's JSON did not parse.
PARSE_ERROR_KEY = "__parse_error__"
RAW_ARGUMENTS_KEY = "__raw_arguments__"
MAX_ACTIONS_PER_STEP = 5  # seed 000 §4.1: at most five actions before re-evaluation
MAX_BULK_ACTIONS = 60  # three sliders by keyboard needed exactly 30; a form grid more
DONE = ToolName.done.value
MORE_TOOLS = ToolName.more_tools.value


@dataclass(frozen=True)
class ToolSpec:
    name: ToolName
    args: type[a.Args]
    description: str
    errors: tuple[E, ...] = ()
    page_changing: bool = False
    opt_in: bool = False  # offered only when the task's profile enables it
    needs_vision: bool = False  # offered only when a vision model is configured
    in_bulk: bool = True  # may run inside a bulk call

    @property
    def schema(self) -> dict[str, Any]:
        return openai_tool(self.name.value, self.description, self.args)


_REF_ERRORS = (E.stale_ref, E.bad_ref, E.not_visible, E.covered, E.disabled, E.action_failed)


class BulkArgs(a.Args):
    """Seed 003 §5.3 bulkActions: [{"tool": "type", "ref": "1:2", "text": "x"}, ...]."""

    actions: list[dict[str, Any]] = Field(
        min_length=1,
        max_length=MAX_BULK_ACTIONS,
    )

    @field_validator("actions", mode="before")
    @classmethod
    def _parse_each(cls, value: Any) -> Any:
        if not isinstance(value, list):
            raise ValueError("actions must be a list of {tool, ...arguments} objects")
        return [_bulk_step(i, step) for i, step in enumerate(value, 1)]


def _bulk_step(i: int, step: Any) -> dict[str, Any]:
    if not isinstance(step, dict):
        raise ValueError(f"action {i} is not an object")
    body = dict(step)
    if isinstance(body.get("args"), dict):  # already parsed: {"tool": n, "args": {...}}
        body = {"tool": body.get("tool"), **body["args"]}
    name = str(body.pop("tool", body.pop("type", body.pop("name", ""))))
    spec = TOOLS.get(resolve_alias(name)[0])
    if spec is not None and not spec.in_bulk:
        raise ValueError(f"action {i}: {name} cannot run inside bulk")
    try:
        action = parse_action(ToolCall(f"bulk{i}", name, body))
    except FeedbackError as exc:
        raise ValueError(f"action {i}: {exc.message}") from exc
    return {"tool": action.name, "args": dict(action.args)}


_SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(
        ToolName.navigate,
        a.NavigateArgs,
        "Load a URL.",
        (E.navigation_failed, E.navigation_blocked, E.blocked_url),
        page_changing=True,
    ),
    ToolSpec(ToolName.go_back, a.NoArgs, "Go back one page.", (E.no_history,), True),
    ToolSpec(ToolName.go_forward, a.NoArgs, "Go forward one page.", (E.no_history,), True),
    ToolSpec(
        ToolName.reload,
        a.NoArgs,
        "Reload the current page (when the page asks for it).",
        (E.navigation_failed,),
        True,
    ),
    ToolSpec(
        ToolName.click,
        a.ClickArgs,
        "Click an element; hold_ms holds it.",
        (*_REF_ERRORS, E.no_effect, E.no_change, E.dead_click, E.element_covered),
    ),
    ToolSpec(
        ToolName.click_at,
        a.ClickAtArgs,
        "Click a vision box [Vn] (index) or a viewport point (x, y): for things without a ref"
        " (count=2 double-clicks).",
        (E.no_vision_index, E.out_of_bounds, E.no_effect, E.click_silent),
    ),
    ToolSpec(
        ToolName.type,
        a.TypeArgs,
        "Type into a field (clear=false appends; submit presses Enter); the value is read back.",
        (*_REF_ERRORS, E.not_editable, E.value_mismatch),
    ),
    ToolSpec(
        ToolName.type_at,
        a.TypeAtArgs,
        "Type into the field at a vision box [Vn] (index) or viewport point (x, y): for inputs "
        "without a ref (canvas apps, some iframes); the value is read back.",
        (E.no_vision_index, E.out_of_bounds, E.not_editable, E.value_mismatch),
    ),
    ToolSpec(
        ToolName.press_key,
        a.PressKeyArgs,
        "Press a key or chord (Enter, Control+A) on the focused element.",
        (E.action_failed, E.no_effect, E.no_change),
    ),
    ToolSpec(
        ToolName.hover,
        a.RefArgs,
        "Move the pointer over an element (no ref: `pointer` to its dom_search box).",
        _REF_ERRORS,
    ),
    ToolSpec(ToolName.focus, a.RefArgs, "Focus an element and scroll it into view.", _REF_ERRORS),
    ToolSpec(
        ToolName.select_option,
        a.SelectOptionArgs,
        "Choose option(s) by label in a select or custom dropdown.",
        (*_REF_ERRORS, E.option_not_found, E.not_a_select),
    ),
    ToolSpec(
        ToolName.get_dropdown_options,
        a.RefArgs,
        "List the options of a select or custom dropdown (opens it).",
        (*_REF_ERRORS, E.not_a_select),
    ),
    ToolSpec(
        ToolName.choose_option,
        w.ChooseOptionArgs,
        "Dropdown workflow in one call: open the trigger, read the options it reveals, click "
        "the one labelled `option` (native selects too); lists the options when none matches.",
        (*_REF_ERRORS, E.option_not_found, E.not_a_select, E.no_effect),
    ),
    ToolSpec(
        ToolName.fill_form,
        w.FillFormArgs,
        "Form workflow in one call: fill every field (text, select, combobox, checkbox, radio, "
        "file), re-fill empty/invalid ones, return the form's state; submit=true submits when "
        "nothing is invalid or required-but-empty.",
        (*_REF_ERRORS, E.form_invalid, E.value_mismatch, E.option_not_found, E.no_effect),
    ),
    ToolSpec(
        ToolName.search,
        w.SearchArgs,
        "Search workflow in one call: type the query into a search box, pick the suggestion "
        "`pick` (or the one equal to the query) when suggestions appear, else press Enter.",
        (*_REF_ERRORS, E.option_not_found, E.no_effect),
        page_changing=True,
    ),
    ToolSpec(
        ToolName.upload_file,
        a.UploadFileArgs,
        "Attach files to a file input or upload button.",
        (*_REF_ERRORS, E.file_not_attached, E.not_a_file_input),
    ),
    ToolSpec(
        ToolName.drag,
        a.DragArgs,
        "Drag from `ref` (or viewport from_x, from_y) onto to_ref, to viewport (x, y) or by "
        "(dx, dy): drag-and-drop, sliders, resizers.",
        (*_REF_ERRORS, E.no_effect, E.out_of_bounds),
    ),
    ToolSpec(
        ToolName.select_text,
        r.SelectTextArgs,
        "Select the exact words `text` in `ref` (a paragraph, a text field) or on the page, as"
        " a drag would (the page hears selectionchange and mouseup); says what is selected.",
        (*_REF_ERRORS, E.text_not_found),
    ),
    ToolSpec(
        ToolName.pointer,
        a.PointerArgs,
        "Move the pointer through exact points; press holds the button along the path, "
        "pause_ms waits before the release (games, canvas, drags that must settle).",
        (E.out_of_bounds, E.no_effect),
    ),
    ToolSpec(
        ToolName.scroll,
        a.ScrollArgs,
        "Scroll the page or `ref` by a screen or `pixels`, or to a place.",
        (*_REF_ERRORS, E.text_not_found),
    ),
    ToolSpec(
        ToolName.scroll_within,
        a.ScrollWithinArgs,
        "Scroll inside a scrollable element (list, table, carousel).",
        _REF_ERRORS,
    ),
    ToolSpec(ToolName.wait, a.WaitArgs, "Wait a few seconds.", ()),
    ToolSpec(
        ToolName.wait_for,
        a.WaitForArgs,
        "Wait for a time, until a text appears, or until a text is gone.",
        (E.timeout, E.condition_not_met),
    ),
    ToolSpec(
        ToolName.wait_for_condition,
        a.WaitForConditionArgs,
        "Wait until a CSS selector reaches a state, the URL contains a string, or a load state.",
        (E.timeout, E.condition_not_met),
    ),
    ToolSpec(
        ToolName.handle_dialog,
        a.HandleDialogArgs,
        "Decide the next alert/confirm/prompt: accept or dismiss, and a prompt's answer.",
        (),
    ),
    ToolSpec(
        ToolName.tabs,
        a.TabsArgs,
        "Browser tabs: list, open (url), switch (tab_id), close (tab_id or current).",
        (E.tab_not_found, E.navigation_failed),
    ),
    ToolSpec(
        ToolName.read_text,
        r.ReadTextArgs,
        "Read the text of `ref` or the page's main content, in chunks from `offset`.",
        _REF_ERRORS,
    ),
    ToolSpec(
        ToolName.snapshot,
        r.SnapshotArgs,
        "Show a trimmed part of the page: the numbers of a '[refs 120-480 trimmed: ...]' marker.",
        (E.stale_ref,),
    ),
    ToolSpec(
        ToolName.screenshot,
        r.ScreenshotArgs,
        "Save a screenshot of the viewport, the full page or an element as a task artifact.",
        _REF_ERRORS,
    ),
    ToolSpec(
        ToolName.dom_search,
        r.DomSearchArgs,
        "Find elements by visible text or CSS selector, with their refs when they have one.",
        (E.text_not_found, E.no_selector_match, E.not_visible),
    ),
    ToolSpec(ToolName.get_console_errors, a.NoArgs, "The page's recent console errors.", ()),
    ToolSpec(
        ToolName.export_pdf,
        r.ExportPdfArgs,
        "Print the page to PDF (print stylesheet applies); read it with read_download.",
        (E.pdf_failed,),
    ),
    ToolSpec(
        ToolName.get_accessibility_tree,
        r.AccessibilityTreeArgs,
        "The ARIA tree of the page or an element (YAML), in chunks.",
        _REF_ERRORS,
    ),
    ToolSpec(
        ToolName.read_canvas,
        r.ReadCanvasArgs,
        "Colour of the pixel at a point (inside an element such as a canvas, or the viewport).",
        (*_REF_ERRORS, E.out_of_bounds),
    ),
    ToolSpec(
        ToolName.look,
        r.LookArgs,
        "Ask a vision model about what the page shows as pixels (charts, canvas, colours, "
        "icons, images): the visible screen, or one element (ref) enlarged.",
        (*_REF_ERRORS, E.vision_unavailable, E.screenshot_failed),
        needs_vision=True,
    ),
    ToolSpec(ToolName.detect_captcha, a.NoArgs, "Check the page for a CAPTCHA or challenge.", ()),
    ToolSpec(
        ToolName.detect_geo_block, a.NoArgs, "Check whether the page is blocked by region.", ()
    ),
    ToolSpec(
        ToolName.read_download,
        r.ReadDownloadArgs,
        "List downloaded files, or read one as text (PDF, CSV, TXT, JSON; images through the "
        "vision model) in chunks.",
        (E.download_not_found, E.unsupported_format, E.vision_unavailable),
    ),
    ToolSpec(
        ToolName.record_fact,
        a.RecordFactArgs,
        "Remember a fact found on the page (key and value) for the final answer.",
        (),
    ),
    ToolSpec(
        ToolName.evaluate_script,
        a.EvaluateScriptArgs,
        "Run JavaScript in the page and return its JSON result.",
        (E.scripts_not_allowed, E.script_error),
        opt_in=True,
        in_bulk=False,
    ),
    ToolSpec(
        ToolName.bulk,
        BulkArgs,
        "Run independent actions in order, each {tool, ...arguments}; stops at a failure.",
        (),
        in_bulk=False,
    ),
    ToolSpec(
        ToolName.more_tools,
        a.MoreToolsArgs,
        "Enable tools by name (also in bulk; usable in the same turn):",
        (),
    ),
    ToolSpec(
        ToolName.done,
        a.DoneArgs,
        "Finish: the answer, and whether the task succeeded.",
        (),
        in_bulk=False,
    ),
)

TOOLS: Mapping[str, ToolSpec] = {spec.name.value: spec for spec in _SPECS}


def worker_tools(
    *,
    allow_scripts: bool = False,
    vision: bool = False,
    only: frozenset[str] | None = None,
) -> tuple[dict[str, Any], ...]:
    """The function schemas offered to the Worker (opt-in tools only when enabled, `look`
    only with a vision model, and only the names in `only` when the task profile limits
    them: workers/agent/people/task_profiles.py)."""
    return tuple(
        s.schema
        for s in _SPECS
        if (allow_scripts or not s.opt_in)
        and (vision or not s.needs_vision)
        and (only is None or s.name.value in only)
    )


WORKER_TOOLS: tuple[dict[str, Any], ...] = worker_tools()


def _describe(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        message = str(err["msg"]).removeprefix("Value error, ")
        parts.append(f"{where}: {message}")
    return "; ".join(parts)


def parse_action(call: ToolCall) -> Action:
    """Validate one tool call; a FeedbackError's message tells the model how to fix it."""
    name, preset = resolve_alias(call.name)
    spec = TOOLS.get(name)
    if spec is None:
        known = ", ".join(TOOLS)
        raise FeedbackError(f"unknown tool {call.name!r}; available tools: {known}")
    if PARSE_ERROR_KEY in call.arguments:
        raise FeedbackError(
            f"{call.name}: arguments are not valid JSON ({call.arguments[PARSE_ERROR_KEY]});"
            " send a JSON object"
        )
    try:
        args = spec.args.model_validate({**preset, **call.arguments})
    except ValidationError as exc:
        codes = [str(e["type"]) for e in exc.errors() if e["type"] in ToolError.__members__]
        error = codes[0] if codes else ToolError.invalid_tool_call.value
        raise FeedbackError(f"{call.name}: {_describe(exc)}", error=error) from exc
    return Action(name, args.model_dump(exclude_none=True, exclude_defaults=True))


def redacted_args(action: Action) -> Mapping[str, Any]:
    """Arguments safe to put in events and history: secret text never leaves the worker."""
    if action.name == ToolName.type and action.args.get("secret"):
        return {**action.args, "text": "***"}
    if action.name == ToolName.bulk:
        steps = [
            {**s, "args": redacted_args(Action(s["tool"], s["args"]))}
            for s in action.args.get("actions", ())
        ]
        return {**action.args, "actions": steps}
    return action.args


def is_page_changing(action: Action) -> bool:
    spec = TOOLS.get(action.name)
    return spec is not None and spec.page_changing
