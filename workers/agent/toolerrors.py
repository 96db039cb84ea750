"""Error codes a tool can return, each with its one recovery hint (seed 002 error taxonomy).

One StrEnum shared by the agent (prompt hints) and the browser (which emits the codes), so
the two cannot drift apart: a test checks that every member has its own hint.
"""

from __future__ import annotations

from enum import StrEnum


class ToolError(StrEnum):
    # refs and elements (seed 003 §5.1.1, §5.4)
    bad_ref = "bad_ref"
    ref_not_found = "ref_not_found"
    stale_ref = "stale_ref"
    covered = "covered"
    element_covered = "element_covered"
    selector_ambiguous = "selector_ambiguous"
    not_visible = "not_visible"
    not_clickable = "not_clickable"
    disabled = "disabled"
    # outcome verification (seed 002 verify-act-verify, seed 004 App. F)
    no_effect = "no_effect"
    no_change = "no_change"  # the control answered (handler, request) with the same page
    click_silent = "click_silent"
    dead_click = "dead_click"
    value_mismatch = "value_mismatch"
    # inputs and lists
    not_editable = "not_editable"
    not_a_select = "not_a_select"
    option_not_found = "option_not_found"
    not_a_file_input = "not_a_file_input"
    secret_not_allowed = "secret_not_allowed"
    unknown_secret = "unknown_secret"
    file_not_attached = "file_not_attached"
    form_invalid = "form_invalid"
    # navigation and tabs
    navigation_failed = "navigation_failed"
    navigation_blocked = "navigation_blocked"
    blocked_url = "blocked_url"
    no_history = "no_history"
    tab_not_found = "tab_not_found"
    # waiting, reading, searching
    timeout = "timeout"
    condition_not_met = "condition_not_met"  # wait_for: the page is fine, the text did not show
    text_not_found = "text_not_found"
    no_selector_match = "no_selector_match"  # dom_search: no element matches a CSS selector
    no_vision_index = "no_vision_index"
    out_of_bounds = "out_of_bounds"
    download_not_found = "download_not_found"
    unsupported_format = "unsupported_format"
    pdf_failed = "pdf_failed"
    scripts_not_allowed = "scripts_not_allowed"
    script_error = "script_error"
    secret_in_result = "secret_in_result"
    not_supported = "not_supported"
    bad_arguments = "bad_arguments"
    vision_unavailable = "vision_unavailable"
    screenshot_failed = "screenshot_failed"
    # generic browser failures
    action_failed = "action_failed"
    tool_crashed = "tool_crashed"  # the tool's own code raised (issue 31 item 1)
    unknown_tool = "unknown_tool"
    # decided by the agent loop, not the browser
    invalid_tool_call = "invalid_tool_call"
    repeated_failure = "repeated_failure"
    skipped = "skipped"
    guard_violation = "guard_violation"
    search_engine_refused = "search_engine_refused"
    challenge_pending = "challenge_pending"
    guessed_url = "guessed_url"
    bot_block = "bot_block"
    http_error = "http_error"
    # a person's decision on a sensitive action (workers/agent/people/supervised.py)
    approval_denied = "approval_denied"
    handoff_timeout = "handoff_timeout"
    tool_not_allowed = "tool_not_allowed"


HINTS: dict[ToolError, str] = {
    ToolError.tool_crashed: "The tool itself failed on this call (a fault of the tool, not of"
    " your choice). The run goes on: try another tool or another way to the same result.",
    ToolError.bad_ref: "That is not an interactive element's ref. Choose a ref shown in brackets"
    " in the latest snapshot.",
    ToolError.ref_not_found: "That ref does not exist on the current page. Choose a ref from the"
    " latest snapshot.",
    ToolError.stale_ref: "That element changed and could not be matched again. Use refs from the"
    " latest snapshot (the number before ':' must match its version).",
    ToolError.covered: "Another element covers the target. Close the overlay or dialog first,"
    " or scroll the target into view.",
    ToolError.element_covered: "Another element is on top of the target at its centre. Act on"
    " the covering element (close it) or scroll the target into a free area.",
    ToolError.selector_ambiguous: "Several elements sit at that point. Pick the exact ref of the"
    " one you mean.",
    ToolError.not_visible: "The element is not visible. Scroll to it or open the section"
    " containing it.",
    ToolError.not_clickable: "The element did not accept the click in time. Check that it is"
    " visible and enabled, or use another element or the keyboard.",
    ToolError.disabled: "The element is disabled. Fill in the required fields first or pick"
    " another one.",
    ToolError.no_effect: "The action had no visible effect. The element may be disabled,"
    " decorative or the click missed. Try a different element or approach.",
    ToolError.no_change: "The control responded but the page looks the same (a wrong answer"
    " re-rendered, a move with no visible result). It is not dead: change the input or state"
    " first, then try it again.",
    ToolError.click_silent: "The click produced no change. Try the element's parent or child,"
    " click_at its position, or the keyboard (focus + press_key Enter).",
    ToolError.dead_click: "This target already ignored a click. Re-read the page before trying"
    " it again; pick another element.",
    ToolError.value_mismatch: "The field holds a different value than typed (it reformats or"
    " rejects input). Check its expected format, then type again or pick a suggestion. A number"
    " spinner that refuses typing was already stepped with ArrowUp/ArrowDown: use its own"
    " increment/decrement buttons or press_key with repeat.",
    ToolError.not_editable: "That element does not accept text. Type into an input or textbox"
    " instead.",
    ToolError.not_a_select: "That element is not a list box. Click it and pick the option instead.",
    ToolError.option_not_found: "The list has no such option. Use one of the option labels listed.",
    ToolError.not_a_file_input: "That element does not take files. Use the file input or the"
    " button that opens the file chooser.",
    ToolError.file_not_attached: "Only the task's attachments, this run's downloads and a text"
    " file you write (text) can be uploaded. Use one of the listed file names.",
    ToolError.form_invalid: "Some form fields are empty but required, or hold a value the page"
    " rejects. Fill those fields (in their expected format) before submitting.",
    ToolError.navigation_failed: "The page failed to load. Check the URL or go back.",
    ToolError.navigation_blocked: "That kind of URL cannot be opened. Use an http(s) address.",
    ToolError.blocked_url: "That URL is not allowed for this task. Stay on the allowed sites.",
    ToolError.no_history: "There is no page in that direction. Navigate or click instead.",
    ToolError.tab_not_found: "No tab has that id. Call tabs with action 'list' to see them.",
    ToolError.timeout: "The page did not respond in time. Re-read the page before trying again.",
    ToolError.condition_not_met: "What you waited for did not show in time. Observe the page:"
    " it may show it in other words, or it needs an action of yours first.",
    ToolError.text_not_found: "That text is not on the page. Read the page or search for a"
    " shorter or different wording.",
    ToolError.no_selector_match: "No element on the page matches that CSS selector. Try a"
    " broader selector (a tag, or [role=...]), or search by the visible text instead.",
    ToolError.no_vision_index: "No vision box has that number. Use a [Vn] index from the latest"
    " vision observation or give x and y.",
    ToolError.out_of_bounds: "That point is outside the page. Use coordinates inside the viewport.",
    ToolError.download_not_found: "No download has that name. Call read_download without a name"
    " to list the downloads.",
    ToolError.unsupported_format: "That file type cannot be read as text. PDF, CSV, TXT, JSON"
    " and images (through the vision model) are supported.",
    ToolError.pdf_failed: "The page could not be printed to PDF. Read it with read_text instead.",
    ToolError.scripts_not_allowed: "Running scripts is not allowed for this task. Use the"
    " interaction tools instead.",
    ToolError.script_error: "The script threw an error. Fix it or use the interaction tools.",
    ToolError.secret_in_result: "The script's result holds a secret of the task (in some form),"
    " so it was withheld. Read what you need without the secret's value.",
    ToolError.vision_unavailable: "No vision model answered. Work from the page text, or read"
    " pixel colours with read_canvas.",
    ToolError.screenshot_failed: "The screenshot failed. Scroll the element into view or look"
    " at the whole screen without a ref.",
    ToolError.not_supported: "That variant is not supported on this element. Use a plain click"
    " or another tool.",
    ToolError.bad_arguments: "An argument the tool needs is missing or empty. Call it again with"
    " every required argument filled in.",
    ToolError.action_failed: "The browser refused the action. Read the reason and try another"
    " element, tool or sequence.",
    ToolError.unknown_tool: "There is no tool with that name. Use one of the listed tools.",
    ToolError.invalid_tool_call: "Fix the arguments as described and call the tool again.",
    ToolError.repeated_failure: "You already tried exactly this and it failed. Do something"
    " fundamentally different, or reconsider the goal.",
    ToolError.skipped: "Not executed. Re-read the page and decide again.",
    ToolError.secret_not_allowed: "That secret may not be typed on this site. Check that you"
    " are on the site the task names before typing it.",
    ToolError.unknown_secret: "The task has no secret by that name. Use one of the"
    " <secret:name> tokens listed in the task.",
    ToolError.guard_violation: "That page is outside the task's allowed sites; you were led back."
    " Stay on the allowed sites.",
    ToolError.search_engine_refused: "Search engines are off limits. Use the site's own search"
    " box or navigation instead.",
    ToolError.challenge_pending: "That URL just showed a challenge page. Do not reload it;"
    " wait for a person to clear it or work elsewhere on the site.",
    ToolError.guessed_url: "That URL's parameters are a guess. Reach that state through the"
    " page (links, search box, filters); its URL pattern is then known.",
    ToolError.bot_block: "The site showed a CAPTCHA, bot check or regional block. Do not retry"
    " it; report that a person must clear it.",
    ToolError.http_error: "The server returned an error page. Try another URL on the site or"
    " go back.",
    ToolError.approval_denied: "A person refused this action. Do not try it again; finish"
    " without it, or report that it was not allowed.",
    ToolError.handoff_timeout: "Nobody approved this action in time, so it was not done. Do not"
    " try it again; finish without it, or report that it needs a person's approval.",
    ToolError.tool_not_allowed: "This task's profile does not allow that action. Use only the"
    " tools you were given and report what you cannot do.",
}

GENERIC_SIGNAL = (
    "The action failed. Do not retry it unchanged: analyse why it failed and try a different"
    " element, tool or sequence."
)


def recovery_signal(error: str | None) -> str | None:
    """The hint for a failed tool result, or None when nothing failed."""
    if not error:
        return None
    try:
        return HINTS[ToolError(error)]
    except ValueError:
        return GENERIC_SIGNAL
