"""Cancel that takes effect mid-step (issue 13, scenario 4: within 5 s, no action after it).

The agent loop checks for a cancel between steps and before each action; a model call or an
action in flight is interrupted here instead: a watcher polls the task's cancel flag every
`poll_s` and cancels the running body, which then raises TaskCancelled. A check the loop
made itself counts as a poll (`checked_at`): the watcher only asks when nobody has for
`poll_s`, so a cancel is still seen within `poll_s` of its commit, with fewer reads.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable

from sqlalchemy.exc import SQLAlchemyError

from app.contracts import TaskStatus
from workers.agent.errors import TaskCancelled
from workers.agent.protocols import AgentOutcome

log = logging.getLogger(__name__)

CANCEL_POLL_S = 0.5


@contextlib.asynccontextmanager
async def cancel_on_request(
    requested: Callable[[], Awaitable[bool]],
    *,
    poll_s: float = CANCEL_POLL_S,
    checked_at: Callable[[], float] | None = None,
) -> AsyncIterator[None]:
    """Run the body; once `requested()` is true, cancel it and raise TaskCancelled.
    `checked_at()`: time.monotonic() of the latest `requested()` call by anyone."""
    holder = asyncio.current_task()
    fired = False

    async def watch() -> None:
        nonlocal fired
        while True:
            await asyncio.sleep(poll_s)
            if checked_at is not None:
                while (due := checked_at() + poll_s - time.monotonic()) > 0:
                    await asyncio.sleep(due)  # the loop asked meanwhile: count from then
            try:
                if not await requested():
                    continue
            except (SQLAlchemyError, OSError) as exc:  # a DB blip: the next poll may answer
                log.warning("cancel check failed: %r", exc)
                continue
            fired = True
            if holder is not None:
                holder.cancel()
            return

    watcher = asyncio.create_task(watch(), name="cancel-watch")
    try:
        yield
    except asyncio.CancelledError:
        if not fired or holder is None or holder.uncancel() > 0:
            raise  # a cancel from outside (shutdown, hard timeout) stays a cancel
        raise TaskCancelled("cancel requested") from None
    finally:
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher


def cancelled_outcome(reason: str = "cancel requested") -> AgentOutcome:
    """The outcome of a run cut off by a cancel (usage comes from the sink's meter)."""
    return AgentOutcome(
        answer=None,
        success=False,
        status=TaskStatus.cancelled.value,
        steps=0,
        llm_calls=0,
        input_tokens=0,
        output_tokens=0,
        reason=reason,
    )
