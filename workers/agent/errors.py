"""Agent-facing errors grouped by intent, plus the recovery signals fed back to the model.

Intent decides handling: a FeedbackError goes back to the model as a tool result and the run
continues; the others end the run with an `app.contracts.ErrorCode` (seed 002, error taxonomy).
"""

from __future__ import annotations

from app.contracts import ErrorCode


class AgentError(Exception):
    """Base of everything the loop knows how to handle; `code` is the task's error value."""

    code: ErrorCode = ErrorCode.internal


class FeedbackError(AgentError):
    """The model made a fixable mistake (bad arguments, unknown tool): tell it and go on."""

    def __init__(self, message: str, *, error: str = "invalid_tool_call") -> None:
        super().__init__(message)
        self.message = message
        self.error = error


class GuardViolation(AgentError):
    """A security rule enforced in code refused the run (seed 003 §8): fatal, never retried."""

    code = ErrorCode.guard_violation


class BrowserFault(AgentError):
    """The browser itself broke (crash, closed context); the page cannot be used any more."""

    code = ErrorCode.browser_error


class ConfigurationError(AgentError):
    """An operator must fix something (bad model name, wrong API key, unreachable base URL)."""

    code = ErrorCode.configuration


class LLMError(AgentError):
    """The LLM endpoint failed after the client's own retries."""

    code = ErrorCode.llm_error


class LLMUnavailable(LLMError):
    """Transient by nature (timeout, connection, rate limit, 5xx) but retries are exhausted."""


class LLMRejected(LLMError):
    """The endpoint refused this request (400/422, e.g. context too long): retrying won't help."""


class LLMProtocolError(LLMError):
    """The endpoint answered with something that is not a chat completion."""


# Seed 002 (error taxonomy and recovery): each failure class gets an injected signal telling
# the model what went wrong and what to try instead. Keys are ToolResult.error values.
RECOVERY_SIGNALS: dict[str, str] = {
    "ref_not_found": "That ref does not exist on the current page. Choose a ref from the latest"
    " snapshot.",
    "bad_ref": "That is not an interactive element's ref. Choose a ref shown in brackets in the"
    " latest snapshot.",
    "stale_ref": "That ref belongs to an older snapshot. Use refs from the latest snapshot"
    " (the number before ':' must match its version).",
    "no_effect": "The action had no visible effect. The element may be disabled or the click"
    " missed. Try a different element or approach.",
    "covered": "Another element covers the target. Close the overlay or dialog first,"
    " or scroll the target into view.",
    "not_clickable": "The element did not accept the click in time. Check that it is visible"
    " and enabled, or use another element or the keyboard.",
    "no_history": "There is no previous page to go back to. Navigate or click instead.",
    "not_visible": "The element is not visible. Scroll to it or open the section containing it.",
    "disabled": "The element is disabled. Fill in the required fields first or pick another one.",
    "not_editable": "That element does not accept text. Type into an input or textbox instead.",
    "not_a_select": "That element is not a list box. Click it and pick the option instead.",
    "option_not_found": "The list has no such option. Use one of the option labels listed.",
    "timeout": "The page did not respond in time. Re-read the page before trying again.",
    "navigation_failed": "The page failed to load. Check the URL or go back.",
    "blocked_url": "That URL is not allowed for this task. Stay on the allowed sites.",
    "invalid_tool_call": "Fix the arguments as described and call the tool again.",
    "repeated_failure": "You already tried exactly this and it failed. Do something"
    " fundamentally different, or reconsider the goal.",
    "skipped": "Not executed. Re-read the page and decide again.",
}

GENERIC_SIGNAL = (
    "The action failed. Do not retry it unchanged: analyse why it failed and try a different"
    " element, tool or sequence."
)


def recovery_signal(error: str | None) -> str | None:
    """The hint for a failed tool result, or None when nothing failed."""
    if not error:
        return None
    return RECOVERY_SIGNALS.get(error, GENERIC_SIGNAL)
