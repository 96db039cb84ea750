"""How a run ends: the loop's counters, its `Ending`, and the AgentOutcome built from both."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.contracts import ErrorCode, TaskStatus
from workers.agent.loop.metered import LLMUsage
from workers.agent.protocols import AgentOutcome


@dataclass
class Usage:
    """Step and reply-quality counters; model usage is metered by the MeteredLLM."""

    steps: int = 0
    nudges: int = 0
    feedback_errors: int = 0
    text_actions: int = 0


@dataclass(frozen=True)
class Ending:
    """Why the loop stops; turned into an AgentOutcome with the usage so far."""

    status: TaskStatus
    answer: str | None = None
    success: bool = False
    error: ErrorCode | None = None
    reason: str = ""
    cause: str = ""  # AgentError.cause: the raw failure, for operators
    data: Any = None  # `done`'s data, typed by the task's output_schema

    @classmethod
    def finished(cls, answer: str, success: bool, data: Any = None) -> Ending:
        """The run declared done (by the Planner, or by the Worker when there is none)."""
        return cls(
            TaskStatus.succeeded if success else TaskStatus.failed,
            answer=answer,
            success=success,
            error=None if success else ErrorCode.gave_up,
            reason="done" if success else "the agent reported failure",
            data=data,
        )

    @classmethod
    def timed_out(cls) -> Ending:
        return cls(TaskStatus.timed_out, error=ErrorCode.timeout, reason="deadline")

    def outcome(self, steps: int, metered: LLMUsage) -> AgentOutcome:
        return AgentOutcome(
            answer=self.answer,
            success=self.success,
            status=self.status.value,
            steps=steps,
            llm_calls=metered.calls,
            input_tokens=metered.input_tokens,
            output_tokens=metered.output_tokens,
            error=self.error.value if self.error else None,
            reason=self.reason,
            cause=self.cause,
            data=self.data,
        )
