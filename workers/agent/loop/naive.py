"""The baseline the benchmarks compare against: a single Worker that keeps everything.

Same tools, same execution and the same loop as `run_agent`; what differs is what the model
reads: every tool of the registry on every call (no tools by need), the whole page every
step (observation mode "full", no trimming) and every page it ever saw kept in the
conversation verbatim (the linear token growth seed 003 §6 and seed 000 §5.1 describe),
with no compression and no eviction.
"""

from __future__ import annotations

from dataclasses import replace

from workers.agent.context.history import (
    Message,
    StepRecord,
    assistant_message,
    observation_message,
    observation_notes,
    preamble,
    tool_messages,
)
from workers.agent.loop.loop import run_worker_loop
from workers.agent.protocols import LLM, AgentOutcome, AgentTask, Browser, EventSink, Observation


class FullHistory:
    """Append-only transcript: each step's page, the model's turn and its tool results."""

    def __init__(self, task: AgentTask) -> None:
        self._task = task
        self._messages: list[Message] = preamble(task)
        self._last: StepRecord | None = None

    def record(self, record: StepRecord, seen: Observation) -> None:
        notes = observation_notes(self._last, record.step, self._task.max_steps)
        self._messages.append(observation_message(seen, record.step, self._task.max_steps, notes))
        self._messages.append(assistant_message(record))
        self._messages.extend(tool_messages(record))
        self._last = record

    def messages(self, observation: Observation, step: int) -> list[Message]:
        notes = observation_notes(self._last, step, self._task.max_steps)
        current = observation_message(observation, step, self._task.max_steps, notes)
        return [*self._messages, current]


FULL_OBSERVATION = "full"


async def run_naive(task: AgentTask, browser: Browser, llm: LLM, sink: EventSink) -> AgentOutcome:
    """Run the comparison baseline: whole-page observations ("full", whatever
    `task.observation_mode` says) and the full history."""
    task = replace(task, observation_mode=FULL_OBSERVATION)
    return await run_worker_loop(task, browser, llm, sink, FullHistory(task), every_tool=True)
