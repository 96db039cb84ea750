"""What a run delivers beyond its answer, wired around the agent by workers/jobs.py.

- `output_schema`: the instruction gains the schema; after the run the answer is validated
  and repaired once (workers/agent/structured.py), its JSON stored as `result.data`.
- checkable success: the agent reports to a `Witness` sink; a run that never reached its
  start page cannot end `succeeded` (workers/agent/grounding.py).
- browser profiles: the saved storage state is restored into the fresh context before the
  run and captured when the browser closes; written back only after a `succeeded` run.
- webhooks: right after the task's terminal status is stored, this worker sends its
  webhook once (app/webhooks.py); retries are the API's poller's job.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from cryptography.fernet import InvalidToken
from sqlalchemy.exc import SQLAlchemyError

from app import webhooks
from app.contracts import EventType, TaskSpec, TaskStatus
from app.logging_config import set_step
from workers import profiles
from workers.agent import structured
from workers.agent.errors import ConfigurationError
from workers.agent.grounding import Witness
from workers.agent.protocols import LLM, AgentOutcome, EventSink
from workers.browser import storage_state
from workers.metered_llm import MeteredLLM

log = logging.getLogger(__name__)


class StepLogSink:
    """EventSink decorator: log lines carry the step the agent is on (app/logging_config)."""

    def __init__(self, inner: EventSink) -> None:
        self.inner = inner

    async def emit(self, type: str, data: Mapping[str, Any]) -> None:
        if type == EventType.step_started and isinstance(data.get("step"), int):
            set_step(data["step"])
        await self.inner.emit(type, data)

    async def save_screenshot(self, step: int, jpeg: bytes) -> None:
        await self.inner.save_screenshot(step, jpeg)

    async def cancel_requested(self) -> bool:
        return await self.inner.cancel_requested()


class TaskResults:
    """One task's results wiring; `sink` is what the agent should report to."""

    def __init__(self, rt: Any, spec: TaskSpec, sink: EventSink) -> None:
        self.rt, self.spec, self.inner = rt, spec, sink
        self.sink = Witness(StepLogSink(sink))
        self.state: dict[str, Any] | None = None  # the context's storage state at close

    def instruction(self, text: str) -> str:
        if not self.spec.output_schema:
            return text
        return text + structured.schema_note(self.spec.output_schema)

    async def restore_profile(self, page: Any) -> None:
        """Start from the profile's saved cookies and localStorage (a fresh context)."""
        try:
            state = await profiles.load_state(self.rt.sessions, self.rt.settings, self.spec)
        except InvalidToken as exc:
            raise ConfigurationError(
                f"browser profile {self.spec.profile!r} was saved under another key: set the "
                "same WEBAGENT_SECRETS_KEY on every worker"
            ) from exc
        if state:
            await storage_state.restore(page, state)

    async def capture_profile(self, page: Any) -> None:
        """Keep the context's state for `after_finish` (only when the task saves it)."""
        if not self.spec.save_profile:
            return
        self.state = await storage_state.capture(page)  # None: a crashed context

    async def settle(self, outcome: AgentOutcome, llm: LLM) -> AgentOutcome:
        """Checkable success first, then the structured result (one repair call at most)."""
        outcome = self.sink.judge(outcome, self.spec.start_url)
        if not self.spec.output_schema:
            return outcome
        metered = MeteredLLM(llm, self.inner)  # the repair call is an llm.call of the run
        return await structured.settle(
            outcome, self.spec.output_schema, metered, self.spec.instruction
        )

    async def after_finish(self, outcome: AgentOutcome) -> None:
        """Save the profile of a succeeded run; send the webhook once. Never raises."""
        try:
            if self.state is not None and outcome.status == TaskStatus.succeeded.value:
                await profiles.save_state(self.rt.sessions, self.rt.settings, self.spec, self.state)
        except SQLAlchemyError as exc:
            log.warning("task %s: profile not saved: %s", self.spec.task_id, exc)
        try:
            await webhooks.deliver_due(
                self.rt.sessions, self.rt.settings, task_id=self.spec.task_id
            )
        except (SQLAlchemyError, OSError) as exc:  # the API's poller retries it
            log.warning("task %s: webhook not sent now: %s", self.spec.task_id, exc)
