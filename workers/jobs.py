"""`run_task(task_id)`: the job rq (or the embedded pool) runs. Wiring only.

Claim the task, heartbeat while it runs, open a fresh browser context, run the agent,
persist the outcome and announce it. This is the job boundary: the one place that turns
any exception into a failed task instead of a crashed worker.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

from cryptography.fernet import InvalidToken
from sqlalchemy.exc import SQLAlchemyError

from app import metrics
from app.contracts import ErrorCode, EventType, TaskSpec, TaskStatus
from app.db import Task, repositories
from app.db.types import as_utc
from app.live import live_hub
from app.logging_config import task_context
from app.secrets import secrets_note
from app.store.records import load_attachments
from app.urlpolicy import network_policy
from workers.adapters import budget as budgets
from workers.adapters.approval_gate import approval_gate, supervision_of
from workers.adapters.fetcher import FetchPolicy, HttpFetcher
from workers.adapters.memory_report import memory_used
from workers.adapters.memory_store import DbMemoryStore
from workers.adapters.results import TaskResults
from workers.adapters.route_store import DbRouteStore
from workers.adapters.secrets import RedactingLLM, SecretVault
from workers.adapters.sink import DbEventSink
from workers.adapters.site_learning import RunLearnings
from workers.agent.clock import TaskClock
from workers.agent.errors import AgentError, ConfigurationError, TaskCancelled
from workers.agent.loop.brain import BrainConfig
from workers.agent.loop.metered import MeteredLLM, Prices
from workers.agent.loop.search import run_task as run_routed
from workers.agent.memory.routes import Route
from workers.agent.people.supervised import supervise
from workers.agent.people.takeover import Takeover, TakeoverBrowser
from workers.agent.protocols import AgentOutcome, AgentTask, Browser
from workers.agent.replay.route_record import RouteRecorder
from workers.browser.act import click_memory
from workers.browser.act.click_memory import domain_of
from workers.browser.act.files import attachments_note, stage_attachments
from workers.browser.observe import views
from workers.browser.runtime import net_errors, regions, storage_state, tracing
from workers.browser.runtime.crash import crash_watch
from workers.browser.runtime.live_room import LiveRoom
from workers.browser.runtime.pool import is_browser_fault
from workers.browser.runtime.profile import SessionProfile, task_profile
from workers.browser.session import PageSession
from workers.llm.endpoint_check import require_endpoint
from workers.llm.vision_check import require_vision
from workers.process import lease, runtime
from workers.process.cancellation import cancel_on_request, cancelled_outcome
from workers.process.lease import OwnershipLost
from workers.process.runtime import WorkerRuntime
from workers.process.scratch import remove_task_dir, scratch_root

log = logging.getLogger(__name__)

# the agent checks its deadline between steps; past this slack it is cancelled mid-step
HARD_STOP_SLACK_S = 5.0


def run_task(task_id: str) -> None:
    """Run one queued task to a terminal status on this process's WorkerRuntime."""
    rt = runtime.current()
    lease.run_claimed(
        rt,
        "task",
        task_id,
        _claim,
        lambda rt, task: _logged(task.id, execute(rt, task)),
        # a takeover may stop the task's clock for up to takeover_pause_max_s (clock.py)
        lambda task: float(task.timeout_s) + rt.settings.takeover_pause_max_s + HARD_STOP_SLACK_S,
        # a crash of this process leaves the folder to the supervisor's sweep
        cleanup=lambda task: remove_task_dir(_scratch(rt), task.id),
    )


def _scratch(rt: WorkerRuntime) -> Path:
    return scratch_root(rt.settings.task_files_dir, rt.settings.effective_database_url)


async def _logged(task_id: str, work: Awaitable[None]) -> None:
    """Every log line of the run carries the task id (and step): app/logging_config.py."""
    with task_context(task_id):
        await work


async def _claim(rt: WorkerRuntime, task_id: str) -> Task | None:
    async with rt.sessions() as s:
        task = await repositories.mark_running(s, task_id=task_id, worker_id=rt.worker_id)
        await s.commit()
    return task


async def execute(rt: WorkerRuntime, task: Task) -> None:
    """Run a claimed task and record how it ended."""
    spec = repositories.task_to_spec(task)
    if task.started_at is not None and task.queued_at is not None:
        wait = as_utc(task.started_at) - as_utc(task.queued_at)
        metrics.observe_queue_wait(wait.total_seconds())
    try:
        vault: SecretVault | None = SecretVault.for_task(spec, rt.settings)  # in memory only
    except InvalidToken:  # sealed under another WEBAGENT_SECRETS_KEY than this worker's
        vault = None
    prices = Prices(rt.settings.llm_prices, fallback=rt.settings.model_for)  # type: ignore[arg-type]
    sink = DbEventSink(
        rt.sessions, rt.bus, spec.task_id, spec.tenant_id, vault, prices, store=rt.store
    )
    started = time.monotonic()
    await sink.emit(
        EventType.task_started,
        {"worker_id": rt.worker_id, "instruction": spec.instruction, "start_url": spec.start_url},
    )
    if vault is None:
        reason = "the task's secrets cannot be decrypted: set the same WEBAGENT_SECRETS_KEY"
        reason += " on the API and the workers"
        outcome = failed_outcome(TaskStatus.failed, ErrorCode.configuration, reason)
        await _finish(rt, spec, sink, outcome, time.monotonic() - started)
        return
    results = TaskResults(rt, spec, sink)  # output_schema, checked success, profile, webhook
    try:
        async with _heartbeat(rt, spec.task_id):
            outcome = await _run_agent(rt, spec, sink, results)
    except OwnershipLost:
        log.warning("task %s: stopped, another owner or the reaper has it", spec.task_id)
        return  # not ours to finish: its status and events belong to the new owner
    await _finish(rt, spec, sink, outcome, time.monotonic() - started)
    await results.after_finish(outcome)


async def _run_agent(
    rt: WorkerRuntime, spec: TaskSpec, sink: DbEventSink, results: TaskResults
) -> AgentOutcome:
    mode = rt.settings.observation_mode
    budget = budgets.for_task(rt.settings, spec)  # max_tokens / max_cost_usd, every role
    # defence in depth: no request carries a secret's value
    llm = budgets.budgeted(RedactingLLM(rt.llm, sink.vault), budget, sink)
    deadline = time.monotonic() + spec.timeout_s
    clock = TaskClock(deadline, rt.settings.takeover_pause_max_s)  # stands still in a takeover
    agent_task = AgentTask(
        instruction=results.instruction(
            spec.instruction + secrets_note(spec.secret_names) + attachments_note(spec.attachments)
        ),
        start_url=spec.start_url,
        max_steps=spec.max_steps,
        deadline=deadline,
        clock=clock,
        allowed_domains=spec.allowed_domains,
        task_profile=spec.task_profile.value,
        forbid_login=spec.forbid_login,
        private_regions=spec.private_regions,
        observation_mode=mode,
        worker_vision=rt.settings.llm_worker_vision,
        image_detail=rt.settings.llm_image_detail,
        look_tool=rt.settings.vision_enabled,
        allow_scripts=spec.allow_scripts,
        reuse_routes=spec.reuse_routes,
        time_zone=spec.time_zone,
        output_schema=spec.output_schema,  # types `done`'s data (issue 23 §3)
    )
    try:
        problem = views.configuration_problem(mode, rt.settings)
        if problem is not None:  # before a browser context is taken from the pool
            raise ConfigurationError(problem)
        budget.check_prices(budgets.roles_in_use(rt.settings))  # a cost budget needs prices
        await require_endpoint(rt.settings)  # a base URL or key that cannot serve any call
        await require_vision(rt.llm, rt.settings)  # image settings need models that see
        memory = DbMemoryStore(
            rt.sessions, task_id=spec.task_id, tenant_id=spec.tenant_id, redact=sink.vault.redact
        )
        policy = FetchPolicy(network_policy(rt.settings), spec.allowed_domains)
        fetcher = HttpFetcher(policy)  # the search route reads pages without a browser
        brain = BrainConfig(
            planner_every_n_steps=rt.settings.planner_every_n_steps,
            planner_at_start=rt.settings.planner_at_start,
            lookup_page_tokens=rt.settings.lookup_page_tokens,
            planner=rt.settings.planner_enabled,
        )
        # what the run shows about its sites, written after the checks (issue 21)
        learner = RunLearnings(spec.instruction, spec.task_id)
        # the run's action trace, a proven route of the site once the checks pass (issue 21)
        recorder = RouteRecorder(agent_task.instruction, spec.start_url)
        routes = DbRouteStore(
            rt.sessions, tenant_id=spec.tenant_id, task_id=spec.task_id, redact=sink.vault.redact
        )
        opener = partial(
            _open_browser,
            rt,
            spec,
            sink,
            results,
            budget=budget,
            learner=learner,
            recorder=recorder,
            clock=clock,
        )
        try:
            async with (
                clock.bounded(HARD_STOP_SLACK_S),
                cancel_on_request(sink.cancel_requested, checked_at=lambda: sink.cancel_checked_at),
            ):
                outcome = await run_routed(
                    agent_task,
                    opener,
                    llm,
                    recorder.watch_sink(learner.watch_sink(results.sink)),
                    memory=memory,
                    fetcher=results.watch_fetcher(fetcher),
                    config=brain,
                    routes=routes,
                )
                outcome = await results.settle(outcome, llm)
                await _learn(learner, memory, outcome, spec)
                route = await _keep_route(recorder, routes, outcome, spec)
                used = memory_used(recorder, learner.facts_used, route, learner.facts_kept)
                if used is not None:  # issue 34: the run's record says what memory did
                    await results.sink.emit(EventType.memory_used, used)
                return outcome
        finally:
            await memory.settle()  # the Ledger rows run behind the loop: all in before the end
            await fetcher.close()
    except TaskCancelled:  # raised mid model call or mid action by the cancel watcher
        return cancelled_outcome()
    except TimeoutError:
        return failed_outcome(TaskStatus.timed_out, ErrorCode.timeout, "task timeout reached")
    except Exception as exc:  # the job boundary: any failure becomes a failed task
        log.exception("task %s failed", spec.task_id)  # the traceback, secrets masked
        code = error_code(exc)
        if code == ErrorCode.internal:  # never silent (issue 31 item 1)
            metrics.internal_error(exc)
        # error_detail names the exception's class and message, secrets masked
        return replace(
            failed_outcome(TaskStatus.failed, code, str(sink.vault.redact(user_reason(exc)))),
            cause=str(sink.vault.redact(f"{type(exc).__name__}: {net_errors.cause(str(exc))}")),
        )


async def _learn(
    learner: RunLearnings, memory: DbMemoryStore, outcome: AgentOutcome, spec: TaskSpec
) -> None:
    """The run's learnings, from the checked outcome; a failed write does not fail the run."""
    try:
        await learner.commit(memory, outcome, spec.start_url)
    except SQLAlchemyError:
        log.warning("task %s: site learnings not saved", spec.task_id)


async def _keep_route(
    recorder: RouteRecorder, routes: DbRouteStore, outcome: AgentOutcome, spec: TaskSpec
) -> Route | None:
    """The run's route, from the checked outcome; a failed write does not fail the run."""
    try:
        return await recorder.commit(routes, outcome)
    except SQLAlchemyError:
        log.warning("task %s: route not saved", spec.task_id)
        return None


async def _session_profile(rt: WorkerRuntime, spec: TaskSpec) -> SessionProfile:
    """The task's files (uploaded with it, staged for upload_file) and its script opt-in."""
    root = str(_scratch(rt))
    if spec.attachments:
        async with rt.sessions() as s:
            files = await load_attachments(s, rt.store, spec.task_id)
        root = stage_attachments(root, spec.task_id, [(f.name, f.data) for f in files])
    return task_profile(root, spec.task_id, allow_scripts=spec.allow_scripts)


@contextlib.asynccontextmanager
async def _open_browser(
    rt: WorkerRuntime,
    spec: TaskSpec,
    sink: DbEventSink,
    results: TaskResults,
    budget: budgets.Budget | None = None,
    learner: RunLearnings | None = None,
    recorder: RouteRecorder | None = None,
    clock: TaskClock | None = None,
) -> AsyncIterator[Browser]:
    """A fresh browser context for the browser route (the search route never opens one)."""
    async with (
        rt.pool.context(allowed_domains=spec.allowed_domains) as page,
        _recorded(spec, page, sink),
    ):
        state = await results.profile_state()  # the task's browser profile, if it has one
        if state is not None:
            await storage_state.restore(page, state)
        # perception's own LLM calls (summarizer, vision) become llm.call events
        redacted = RedactingLLM(rt.llm, sink.vault)
        perception = MeteredLLM(
            budgets.budgeted(redacted, budget, sink) if budget else redacted, sink
        )
        # the click tier that worked on these domains before (seed 000 §6.3), written back after
        store = DbMemoryStore(
            rt.sessions, task_id=spec.task_id, tenant_id=spec.tenant_id, redact=sink.vault.redact
        )
        domains = (domain_of(spec.start_url or ""), *spec.allowed_domains)
        clicks = await click_memory.load(store, domains)
        browser = await PageSession.open(
            page,
            rt.settings,
            llm=perception,
            goal=spec.instruction,
            click_memory=clicks,
            profile=await _session_profile(rt, spec),
        )
        browser.secrets = sink.vault
        browser.keep_file = sink.save_file  # downloads become task artifacts (API)
        # seed 003 §9.4: the task's private regions never reach the model (regions.py)
        browser.hidden_regions = regions.HiddenRegions.of(spec.private_regions)
        # the live view and a person's takeover (issue 23 item 2; live_room.py, takeover.py)
        takeover = Takeover(sink, clock)
        room = LiveRoom(page, live_hub(rt.bus), spec.task_id, takeover, browser.hidden_regions)
        try:
            # a Chromium or page crash ends the run at once as browser_crashed (crash.py)
            async with crash_watch(page), room.running():
                # approvals before sensitive actions, handoffs on challenges (approval_policy)
                learner = learner or RunLearnings(spec.instruction, spec.task_id)
                gate = approval_gate(
                    rt.sessions, rt.settings, spec, learner.watch_sink(sink), rt.store
                )
                supervision = supervision_of(spec, rt.settings)
                supervised = supervise(browser, takeover.gated(gate), supervision, store)
                # its pages are the answer check's evidence and the site learnings' source
                watched = results.watch(learner.watch(supervised))
                # the route recorder sees the actions as the loop takes them (issue 21)
                recorded = recorder.watch(watched) if recorder is not None else watched
                yield TakeoverBrowser(recorded, takeover)  # paused while a person has the page
        finally:
            if results.saves_profile:  # written back after a succeeded run
                results.keep_state(await storage_state.capture(page))
            await browser.close()  # no background vision look outlives the task
            try:
                await click_memory.save(store, clicks)
            except SQLAlchemyError:
                log.warning("task %s: click-tier learnings not saved", spec.task_id)
            await store.settle()  # its writes run behind the loop (memory_store.py)


@contextlib.asynccontextmanager
async def _recorded(spec: TaskSpec, page: Any, sink: DbEventSink) -> AsyncIterator[None]:
    """With record_trace: a Playwright trace of the context, scrubbed of the task's secrets,
    kept as artifact kind "trace" (workers/browser/runtime/tracing.py says what stays out)."""
    if not spec.record_trace:
        yield
        return
    plan = tracing.TracePlan.of(
        private_regions=bool(spec.private_regions), secrets=bool(spec.secret_names)
    )
    rec: tracing.Recording | None = None
    try:
        async with tracing.recording(page, plan) as rec:
            yield
    finally:
        if rec is not None and rec.data is not None:
            secrets = sink.vault.values  # also the values typed with secret=true
            data = tracing.scrub(rec.data, secrets, blank_typed=bool(secrets))
            try:
                await sink.save_trace(data)
            except (SQLAlchemyError, OSError) as exc:
                log.warning("task %s: trace not kept: %s", spec.task_id, exc)


def error_code(exc: BaseException) -> ErrorCode:
    """Machine-readable error for an exception that escaped the agent loop."""
    if isinstance(exc, AgentError):
        return exc.code
    if is_browser_fault(exc):
        return ErrorCode.browser_error
    return ErrorCode.internal


def user_reason(exc: BaseException) -> str:
    """What the person who submitted the task reads; the raw text goes to `cause`."""
    if isinstance(exc, AgentError):
        return str(exc)
    if is_browser_fault(exc):
        return f"the browser failed: {net_errors.plain(str(exc))}"
    return f"{type(exc).__name__}: {exc}"


def failed_outcome(status: TaskStatus, error: ErrorCode, reason: str) -> AgentOutcome:
    return AgentOutcome(
        answer=None,
        success=False,
        status=status.value,
        steps=0,
        llm_calls=0,
        input_tokens=0,
        output_tokens=0,
        error=error.value,
        reason=reason,
    )


async def _finish(
    rt: WorkerRuntime, spec: TaskSpec, sink: DbEventSink, outcome: AgentOutcome, duration: float
) -> None:
    # the sink metered every step and LLM call, also those of a run cut off mid-step
    usage = sink.meter.usage
    detail = None if outcome.success else (outcome.reason or None)

    async def record(s: Any) -> bool:
        await repositories.update_usage(s, task_id=spec.task_id, **usage.model_dump())
        return await repositories.finish_task(
            s,
            task_id=spec.task_id,
            status=outcome.status,
            answer=outcome.answer,
            success=outcome.success,
            error=outcome.error,
            error_detail=detail,
            result_data=outcome.data,
            result_grounding=outcome.grounding,
        )

    data: dict[str, Any] = {
        "status": outcome.status,
        "answer": outcome.answer,
        "success": outcome.success,
        "data": outcome.data,
        "grounding": outcome.grounding,
        "error": outcome.error,
        "error_detail": detail,
        "cause": outcome.cause or None,
        "usage": usage.model_dump(),
        "duration_s": round(duration, 3),
    }
    # the outcome and task.finished in one transaction, retried across a short database
    # outage (recorded late, not lost to the reaper)
    if not await sink.emit_final(data, record):
        log.warning("task %s was already terminal (reaped?); not announcing", spec.task_id)
        return
    metrics.task_finished(outcome.status, duration)
    metrics.task_error(outcome.error)


async def _beat_once(rt: WorkerRuntime, task_id: str) -> bool:
    async with rt.sessions() as s:
        owned = await repositories.heartbeat(s, task_id=task_id, worker_id=rt.worker_id)
        await s.commit()
    return owned


def _heartbeat(rt: WorkerRuntime, task_id: str) -> contextlib.AbstractAsyncContextManager[None]:
    """Refresh heartbeat_at in the background so the reaper knows this worker is alive; a
    task reaped, cancelled-and-finished or claimed by another worker stops the run at once
    (workers/process/lease.py)."""
    beat = partial(_beat_once, rt, task_id)
    return lease.heartbeat(beat, interval_s=rt.settings.heartbeat_interval_s, name=task_id)
