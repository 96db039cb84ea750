"""Agent-facing errors grouped by intent, plus the recovery signals fed back to the model.

Intent decides handling: a FeedbackError goes back to the model as a tool result and the run
continues; the others end the run with an `app.contracts.ErrorCode` (seed 002, error taxonomy).
"""

from __future__ import annotations

from typing import Self

from app.contracts import ErrorCode

# Seed 002 recovery hints live beside the shared tool error codes (re-exported here).
from workers.agent.toolerrors import GENERIC_SIGNAL as GENERIC_SIGNAL
from workers.agent.toolerrors import recovery_signal as recovery_signal


class AgentError(Exception):
    """Base of everything the loop knows how to handle; `code` is the task's error value.
    The message is for the person who submitted the task; `cause` keeps the raw failure
    (an endpoint's own words, a browser error) for operators, in the task.finished event."""

    code: ErrorCode = ErrorCode.internal
    cause: str = ""

    def with_cause(self, cause: str) -> Self:
        self.cause = cause
        return self


class TaskCancelled(AgentError):
    """A cancel was requested: the run ends `cancelled`, with no further action or answer."""


class FeedbackError(AgentError):
    """The model made a fixable mistake (bad arguments, unknown tool): tell it and go on."""

    def __init__(self, message: str, *, error: str = "invalid_tool_call") -> None:
        super().__init__(message)
        self.message = message
        self.error = error


class GuardViolation(AgentError):
    """A security rule enforced in code refused the run (seed 003 §8): fatal, never retried."""

    code = ErrorCode.guard_violation


class BotBlocked(AgentError):
    """A challenge or block page stood in the way and nobody cleared it (approval denied or
    not answered in time): the run fails with `bot_blocked`."""

    code = ErrorCode.bot_blocked


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


class LLMRequestUnencodable(LLMError):
    """This service built a request body it cannot encode (not the endpoint's fault)."""


class LLMProtocolError(LLMError):
    """The endpoint answered with something that is not a chat completion."""
