"""Fixtures and helpers shared by the MiniWoB++ harness tests."""

from app.settings import Settings
from tests.support.llm_server import (
    MODEL,
    ScriptedLLMServer,
    llm_server,  # noqa: F401 - pytest fixture
)
from workers.bench.miniwob import BenchOptions, run_benchmark
from workers.bench.report import Outcome


def bench_settings(
    chromium_path: str, server: ScriptedLLMServer, *, humanize: bool = False
) -> Settings:
    """Settings for a bench run against the scripted server: short timeouts, no retries.
    Plain input unless asked: the harness tests do not measure the hand, and the humanized
    cursor path doubles the time per action (bench/miniwob_actions.py runs both)."""
    return Settings(
        chromium_path=chromium_path,
        llm_base_url=server.base_url,
        llm_model=MODEL,
        llm_timeout_s=30,
        llm_max_retries=0,
        humanize=humanize,
    )


async def failed_episodes(
    tasks: tuple[str, ...], episodes: int, settings: Settings, *, seed: int = 7
) -> list[tuple[object, ...]]:
    """Run the tasks through the harness; (task, seed, outcome, reward, reason) per failure."""
    report = await run_benchmark(BenchOptions(tasks=tasks, episodes=episodes, seed=seed), settings)
    assert len(report.episodes) == len(tasks) * episodes
    return [
        (e.task, e.seed, e.outcome, e.raw_reward, e.agent_reason)
        for e in report.episodes
        if e.outcome is not Outcome.success
    ]
