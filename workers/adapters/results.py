"""What a run delivers beyond its answer, wired around the agent by workers/jobs.py.

- `output_schema`: the instruction gains the schema; after the run the answer is validated
  and repaired once (workers/agent/judge/structured.py), its JSON stored as `result.data`.
- checkable success: the agent reports to a `Witness` sink; a run that never reached its
  start page cannot end `succeeded` (workers/agent/judge/grounding.py). The browser and the
  search route's fetcher are watched (`watch`, `watch_fetcher`) for the text the run saw,
  and the answer is checked against it (workers/agent/judge/answer_check.py).
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
from workers.adapters import profiles
from workers.agent.errors import ConfigurationError
from workers.agent.judge import answer_check, structured
from workers.agent.judge.claims import SeenText
from workers.agent.judge.grounding import SeeingBrowser, SeeingFetcher, Witness
from workers.agent.loop.metered import MeteredLLM
from workers.agent.protocols import LLM, AgentOutcome, Browser, EventSink, Fetcher

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
        self.seen = SeenText()  # what the run saw, for the answer check
        self.seen.add(spec.instruction)  # a value the task itself gives is no invention

    def watch(self, browser: Browser) -> Browser:
        """The browser the agent should use: its pages become evidence for the answer."""
        return SeeingBrowser(browser, self.seen)

    def watch_fetcher(self, fetcher: Fetcher) -> Fetcher:
        return SeeingFetcher(fetcher, self.seen)

    def instruction(self, text: str) -> str:
        if not self.spec.output_schema:
            return text
        return text + structured.schema_note(self.spec.output_schema)

    async def profile_state(self) -> dict[str, Any] | None:
        """The profile's saved cookies and localStorage to start from (None: none saved);
        jobs.py puts it into the fresh context (browser/runtime/storage_state.py)."""
        try:
            state = await profiles.load_state(self.rt.sessions, self.rt.settings, self.spec)
        except InvalidToken as exc:
            raise ConfigurationError(
                f"browser profile {self.spec.profile!r} was saved under another key: set the "
                "same WEBAGENT_SECRETS_KEY on every worker"
            ) from exc
        return state or None

    @property
    def saves_profile(self) -> bool:
        return bool(self.spec.save_profile)

    def keep_state(self, state: dict[str, Any] | None) -> None:
        """The context's state for `after_finish` (None: a crashed context)."""
        self.state = state

    async def settle(self, outcome: AgentOutcome, llm: LLM) -> AgentOutcome:
        """Checkable success first, then the structured result (one repair call at most),
        then the answer against what the run saw (one feedback call at most)."""
        outcome = self.sink.judge(outcome, self.spec.start_url)
        metered = MeteredLLM(llm, self.inner)  # these calls are llm.call events of the run
        schema, instruction = self.spec.output_schema, self.spec.instruction
        if schema:
            outcome = await structured.settle(outcome, schema, metered, instruction)
        return await answer_check.settle(outcome, self.seen, metered, instruction, schema)

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
