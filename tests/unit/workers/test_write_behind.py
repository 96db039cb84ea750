"""WriteBehind (workers/adapters/write_behind.py): ordered background writes, flush, failures
handed over."""

from __future__ import annotations

import asyncio
import logging

import pytest

from workers.adapters.write_behind import WriteBehind


def writer() -> WriteBehind:
    return WriteBehind("test writes", (OSError,))


async def test_jobs_run_in_order_behind_the_caller() -> None:
    done: list[int] = []
    writes = writer()

    def job(n: int) -> object:
        async def run() -> None:
            await asyncio.sleep(0.01 * (5 - n))  # later jobs are quicker: order must hold
            done.append(n)

        return run

    for n in range(5):
        writes.submit(job(n))  # type: ignore[arg-type]
    assert done == [] and writes.pending == 5
    await writes.flush()
    assert done == [0, 1, 2, 3, 4] and writes.pending == 0


async def test_a_failed_job_drops_the_rest_and_is_raised_once() -> None:
    done: list[str] = []
    writes = writer()

    async def fails() -> None:
        raise ConnectionRefusedError(111, "refused")

    async def later() -> None:
        done.append("later")

    writes.submit(fails)
    writes.submit(later)
    with pytest.raises(ConnectionRefusedError):
        await writes.flush()
    assert done == []  # queued after the failure: dropped with it
    writes.submit(later)  # handed over once: the next write goes ahead
    await writes.flush()
    assert done == ["later"]


async def test_the_next_submit_raises_an_earlier_failure() -> None:
    writes = writer()

    async def fails() -> None:
        raise OSError("disk")

    writes.submit(fails)
    await asyncio.sleep(0.01)
    with pytest.raises(OSError):
        writes.submit(fails)


async def test_settle_logs_instead_of_raising(caplog: pytest.LogCaptureFixture) -> None:
    writes = writer()

    async def fails() -> None:
        raise OSError("disk")

    writes.submit(fails)
    with caplog.at_level(logging.ERROR):
        await writes.settle()
    assert "test writes: writes were lost" in caplog.text


async def test_an_unexpected_error_is_not_swallowed() -> None:
    writes = writer()

    async def bug() -> None:
        raise ValueError("bug")

    writes.submit(bug)
    with pytest.raises(ValueError):
        await writes.flush()
