"""MiniWoB++ through the real agent: one isolated browser context and one episode per run.

Each episode opens the task page, seeds it, starts it, and hands the utterance to the same
agent loop the service runs (or the naive baseline). The page's own reward decides success:
after every action the harness reads WOB_DONE_GLOBAL / WOB_RAW_REWARD_GLOBAL and, once the
episode is done, refuses further actions and asks the loop to stop via `cancel_requested()`.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any

from app.contracts import ErrorCode, EventType, TaskStatus
from app.settings import Settings
from workers.agent.errors import ConfigurationError
from workers.agent.loop.metered import MeteredLLM
from workers.agent.protocols import (
    LLM,
    Action,
    AgentOutcome,
    AgentTask,
    Browser,
    Observation,
    ToolResult,
)
from workers.bench.report import BenchReport, EpisodeResult, Outcome, RunConfig, build_report
from workers.bench.server import MiniWobServer
from workers.browser.observe import tokens, views
from workers.browser.observe.miniwob_page import EpisodeState, MiniWobPage, MiniWobPageError
from workers.browser.runtime.pool import BrowserPool
from workers.browser.session import PageSession
from workers.llm.client import OpenAILLM
from workers.llm.vision_check import require_vision

AgentRunner = Callable[[AgentTask, Browser, LLM, "BenchSink"], Awaitable[AgentOutcome]]
AGENTS = ("webagent", "worker", "naive")
EPISODE_OVER = "episode_over"
MINIWOB_TIMED_OUT = "timed out"  # WOB_REWARD_REASON set by core.js when its timer fires
# Tools that only read the page or the run: not counted as actions in the time per action.
READ_TOOLS = frozenset(
    (
        "dom_search", "get_dropdown_options", "read_text", "read_canvas", "snapshot",
        "screenshot", "extract", "get_accessibility_tree", "look", "record_fact",
        "detect_captcha", "detect_geo_block", "get_console_errors", "read_download", "wait",
        "wait_for", "wait_for_condition", "export_pdf", "done",
    )
)  # fmt: skip


def agent_runner(kind: str) -> AgentRunner:
    """The service's loop (`webagent`: Planner + Worker over the Ledger), the Worker alone
    with compressed history (`worker`) or the single-role baseline (`naive`)."""
    if kind == "webagent":
        from workers.agent.loop.loop import run_agent

        return run_agent
    if kind == "worker":
        from workers.agent.loop.loop import run_worker_only

        return run_worker_only
    if kind == "naive":
        from workers.agent.loop.naive import run_naive

        return run_naive
    raise ValueError(f"unknown agent {kind!r}; choose one of {AGENTS}")


class EventLog:
    """Append-only JSONL of every episode's events, tagged with task and episode."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    def write(self, record: Mapping[str, Any]) -> None:
        with self.path.open("a", encoding="utf-8") as file:  # one line, flushed, per event
            file.write(json.dumps(record, default=str) + "\n")


class BenchSink:
    """The benchmark's EventSink: counts steps and LLM usage, asks the loop to stop when done."""

    def __init__(self, task: str, episode: int, log: EventLog | None = None) -> None:
        self.task, self.episode, self._log = task, episode, log
        self.steps = self.llm_calls = self.input_tokens = self.output_tokens = 0
        self.screenshots = 0
        self.final: EpisodeState | None = None  # set once MiniWoB reports the episode done
        self.action_s: list[float] = []  # tool-layer seconds per action (bulk split evenly)

    @property
    def episode_over(self) -> bool:
        return self.final is not None

    async def emit(self, type: str, data: Mapping[str, Any]) -> None:
        if type == EventType.step_started:
            self.steps = max(self.steps, int(data.get("step", self.steps + 1)))
        elif type == EventType.llm_call:
            self.llm_calls += 1
            self.input_tokens += int(data.get("input_tokens", 0))
            self.output_tokens += int(data.get("output_tokens", 0))
        if self._log is not None:
            self._log.write(
                {"task": self.task, "episode": self.episode, "type": type, "data": dict(data)}
            )

    def time_actions(self, action: Action, seconds: float) -> None:
        """One tool call's time through the tool layer, when it acts on the page (reads such
        as dom_search are not actions); a bulk call counts as its acting steps."""
        inner = action.args.get("actions") if action.name == "bulk" else None
        if isinstance(inner, list) and inner:
            steps = [s.get("tool") if isinstance(s, dict) else None for s in inner]
            count = sum(1 for tool in steps if tool not in READ_TOOLS) or len(steps)
        elif action.name in READ_TOOLS:
            return
        else:
            count = 1
        self.action_s.extend([round(seconds / count, 4)] * count)

    async def save_screenshot(self, step: int, jpeg: bytes) -> None:
        self.screenshots += 1  # counted, not stored: a benchmark keeps figures, not pixels

    async def cancel_requested(self) -> bool:
        return self.episode_over


class EpisodeBrowser:
    """Wraps the agent's Browser: reads the episode state after every action and freezes it."""

    def __init__(self, inner: Browser, page: MiniWobPage, sink: BenchSink) -> None:
        self._inner, self._page, self._sink = inner, page, sink
        self.final: EpisodeState | None = None

    @property
    def url(self) -> str:
        return self._inner.url

    async def goto(self, url: str) -> ToolResult:
        if self.final is not None:
            return _over()
        result = await self._inner.goto(url)
        await self.check()
        return result

    async def observe(self, mode: str = "compact") -> Observation:
        return await self._inner.observe(mode)

    async def execute(self, action: Action) -> ToolResult:
        # After the reward is in, a click could hit MiniWoB's START cover and begin a new
        # episode, which would reset WOB_DONE_GLOBAL: nothing more reaches the page.
        if self.final is not None:
            return _over()
        started = time.perf_counter()
        result = await self._inner.execute(action)
        self._sink.time_actions(action, time.perf_counter() - started)
        await self.check()
        return result

    async def screenshot(self) -> bytes:
        return await self._inner.screenshot()

    async def check(self) -> EpisodeState | None:
        """Read WOB_DONE_GLOBAL; the first done state is kept as the episode's result."""
        if self.final is None:
            try:
                state = await self._page.state()
            except MiniWobPageError:
                return None  # the agent left the task page: the episode stays open
            if state.done:
                self.final = self._sink.final = state
        return self.final


def _over() -> ToolResult:
    return ToolResult(success=False, reason="the MiniWoB++ episode is over", error=EPISODE_OVER)


def classify(
    state: EpisodeState | None, outcome: AgentOutcome | None, error: str | None
) -> Outcome:
    """MiniWoB's reward first; otherwise why the agent stopped with the episode still open."""
    if state is not None and state.done:
        if state.raw_reward > 0:
            return Outcome.success
        if state.reason == MINIWOB_TIMED_OUT:
            return Outcome.episode_timeout
        return Outcome.wrong_answer
    if error is not None or outcome is None:
        return Outcome.error
    if outcome.status == TaskStatus.timed_out or outcome.error in (
        ErrorCode.timeout,
        ErrorCode.max_steps,
    ):
        return Outcome.timeout
    finished = outcome.status in (TaskStatus.succeeded, TaskStatus.failed)
    if finished and outcome.error in (None, ErrorCode.gave_up):
        return Outcome.gave_up
    return Outcome.error


@dataclass(frozen=True)
class BenchOptions:
    tasks: tuple[str, ...]
    suite: str | None = None
    episodes: int = 1
    seed: int = 0
    concurrency: int = 1
    agent: str = "webagent"
    keep_timer: bool = False
    max_steps: int = 10
    timeout_s: float = 900.0
    events_path: str | None = None
    observation_mode: str = "compact"  # the naive agent always observes "full"


@dataclass
class _Env:
    options: BenchOptions
    settings: Settings
    server: MiniWobServer
    pool: BrowserPool
    llm: LLM
    runner: AgentRunner
    log: EventLog | None


async def _drive(
    env: _Env, task: str, seed: int, sink: BenchSink
) -> tuple[str, EpisodeState | None, AgentOutcome]:
    """Open, seed, start and run one episode; returns (utterance, state, outcome)."""
    async with env.pool.context() as page:
        # init script before the page loads; perception's LLM calls are metered by the sink
        session = await PageSession.open(page, env.settings, llm=MeteredLLM(env.llm, sink))
        try:
            mw = MiniWobPage(page)
            await mw.open(env.server.task_url(task))
            start = await mw.start(seed, keep_timer=env.options.keep_timer)
            session.view.goal = start.utterance  # what observation mode "pipeline" works for
            browser = EpisodeBrowser(session, mw, sink)
            agent_task = AgentTask(
                instruction=start.utterance,
                start_url=None,  # the page is open and the episode started; reload would reset
                max_steps=env.options.max_steps,
                deadline=time.monotonic() + env.options.timeout_s,
                allowed_domains=("127.0.0.1",),
                observation_mode=env.options.observation_mode,
                worker_vision=env.settings.llm_worker_vision,
                image_detail=env.settings.llm_image_detail,
                look_tool=env.settings.vision_enabled,
            )
            outcome = await env.runner(agent_task, browser, env.llm, sink)
            state = await browser.check()  # some tasks end the episode a moment after the action
            return start.utterance, state, outcome
        finally:
            await session.close()


async def run_episode(env: _Env, task: str, episode: int) -> EpisodeResult:
    seed = env.options.seed + episode
    sink = BenchSink(task, episode, env.log)
    started = time.perf_counter()
    utterance, state, outcome, error = "", None, None, None
    try:
        utterance, state, outcome = await _drive(env, task, seed, sink)
    except Exception as exc:  # noqa: BLE001 - the episode is the job boundary of a benchmark
        error = f"{type(exc).__name__}: {exc}"
        state = sink.final  # a reward already earned still counts if the agent then crashed
    wall = time.perf_counter() - started
    return EpisodeResult(
        task=task,
        episode=episode,
        seed=seed,
        utterance=utterance,
        outcome=classify(state, outcome, error),
        raw_reward=state.raw_reward if state else 0.0,
        reward=state.reward if state else 0.0,
        reward_reason=state.reason if state else None,
        steps=outcome.steps if outcome else sink.steps,
        # the sink saw every llm.call event: the Worker's and perception's (pipeline, vision)
        llm_calls=sink.llm_calls,
        input_tokens=sink.input_tokens,
        output_tokens=sink.output_tokens,
        wall_s=round(wall, 3),
        action_s=tuple(sink.action_s),
        agent_status=outcome.status if outcome else "error",
        agent_error=outcome.error if outcome else None,
        agent_reason=outcome.reason if outcome else "",
        error=error,
    )


def _run_config(options: BenchOptions, settings: Settings) -> RunConfig:
    try:
        version = metadata.version("miniwob")
    except metadata.PackageNotFoundError:
        version = "unknown"
    return RunConfig(
        agent=options.agent,
        model=settings.llm_model,
        llm_base_url=settings.llm_base_url,
        observation_mode="full" if options.agent == "naive" else options.observation_mode,
        suite=options.suite,
        tasks=options.tasks,
        episodes=options.episodes,
        seed=options.seed,
        concurrency=options.concurrency,
        max_steps=options.max_steps,
        timeout_s=options.timeout_s,
        episode_timer="kept" if options.keep_timer else "lifted",
        miniwob_version=version,
        started_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        worker_vision=settings.llm_worker_vision,
        vision_model=settings.vision_enabled,
    )


def bench_settings(settings: Settings, concurrency: int) -> Settings:
    """The task pages are served on 127.0.0.1, which the service's URL policy refuses."""
    return settings.model_copy(
        update={"allow_private_networks": True, "browser_pool_size": max(1, concurrency)}
    )


async def run_benchmark(
    options: BenchOptions,
    settings: Settings,
    *,
    llm: LLM | None = None,
    on_episode: Callable[[EpisodeResult], None] | None = None,
) -> BenchReport:
    """Run every (task, episode) pair, `concurrency` at a time, and aggregate the results."""
    tokens.warm_in_background()  # the o200k vocabulary loads while Chromium starts
    settings = bench_settings(settings, options.concurrency)
    problem = views.configuration_problem(options.observation_mode, settings)
    if problem is not None:
        raise ConfigurationError(problem)
    config = _run_config(options, settings)
    runner = agent_runner(options.agent)
    client = llm or OpenAILLM(settings)
    try:
        await require_vision(client, settings)  # refuse image settings a text model cannot use
    except ConfigurationError:
        if llm is None:
            await _close(client)
        raise
    pool = BrowserPool(settings)
    log = EventLog(options.events_path) if options.events_path else None
    gate = asyncio.Semaphore(max(1, options.concurrency))
    with MiniWobServer() as server:
        await pool.start()
        env = _Env(options, settings, server, pool, client, runner, log)

        async def one(task: str, episode: int) -> EpisodeResult:
            async with gate:
                result = await run_episode(env, task, episode)
            if on_episode is not None:
                on_episode(result)
            return result

        try:
            pairs = [(t, k) for t in options.tasks for k in range(options.episodes)]
            results = await asyncio.gather(*(one(t, k) for t, k in pairs))
        finally:
            await pool.close()
            if llm is None:
                await _close(client)
    return build_report(config, results)


async def _close(llm: LLM) -> None:
    """Close the LLM client's HTTP pool when it has one (OpenAILLM does)."""
    for name in ("aclose", "close"):
        closer = getattr(llm, name, None)
        if closer is not None:
            result = closer()
            if asyncio.iscoroutine(result):
                await result
            return
