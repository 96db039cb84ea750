"""MiniWoB++ harness end to end: real Chromium, real task pages, the real agent loop, and
the scripted OpenAI-compatible server standing in for the model (it reads only the prompt)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.async_api import Browser
from typer.testing import CliRunner

from app.settings import Settings
from tests.integration.bench.conftest import bench_settings
from tests.support.llm_server import MODEL, ScriptedLLMServer
from tests.support.miniwob_policies import instruction, miniwob_policy, wrong_button_policy
from workers.bench.miniwob import BenchOptions, run_benchmark
from workers.bench.report import Outcome
from workers.bench.server import MiniWobServer
from workers.bench.suite import SMOKE_TASKS
from workers.browser.observe.miniwob_page import LIFTED_EPISODE_MS, MiniWobPage
from workers.browser.runtime.pool import BrowserPool

pytestmark = pytest.mark.browser


async def test_episode_control_is_seeded_and_reads_the_reward(chromium_path: str) -> None:
    pool = BrowserPool(Settings(chromium_path=chromium_path, allow_private_networks=True))
    await pool.start()
    try:
        with MiniWobServer() as server:
            async with pool.context() as page:
                mw = MiniWobPage(page)
                await mw.open(server.task_url("click-button"))
                first = await mw.start(11, keep_timer=False)
                again = await mw.start(11, keep_timer=False)
                assert first == again and first.max_time_ms == LIFTED_EPISODE_MS
                assert first.utterance.startswith("Click on the")
                assert not (await mw.state()).done
                name = first.utterance.split('"')[1]
                await page.get_by_role("button", name=name, exact=True).first.click()
                state = await mw.state()
                assert state.done and state.raw_reward > 0
            async with pool.context() as page:
                mw = MiniWobPage(page)
                await mw.open(server.task_url("click-button"))
                kept = await mw.start(11, keep_timer=True)
                assert kept.max_time_ms == 10_000  # core.js default, untouched
    finally:
        await pool.close()


async def test_three_tasks_end_to_end_through_the_agent_loop(
    chromium_path: str, llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    llm_server.set_policy(miniwob_policy)
    events = tmp_path / "events.jsonl"
    options = BenchOptions(tasks=SMOKE_TASKS, episodes=1, seed=3, events_path=str(events))
    report = await run_benchmark(options, bench_settings(chromium_path, llm_server))
    by_task = {e.task: e for e in report.episodes}
    assert set(by_task) == set(SMOKE_TASKS)
    for episode in report.episodes:
        assert episode.outcome is Outcome.success, episode
        assert episode.raw_reward > 0 and episode.steps == 1 and episode.llm_calls == 1
        assert episode.input_tokens > 0 and episode.output_tokens > 0
        assert episode.agent_status == "cancelled"  # the harness stopped it: episode done
    assert report.overall.success_rate == 1.0 and report.config.episode_timer == "lifted"
    # the model got each utterance as its task instruction, and nothing else as a task
    assert {e.utterance for e in report.episodes} == {instruction(r) for r in llm_server.requests}
    logged = [json.loads(line) for line in events.read_text().splitlines()]
    assert {r["task"] for r in logged} == set(SMOKE_TASKS)
    assert any(r["type"] == "llm.call" for r in logged)


async def test_naive_baseline_and_wrong_answer(
    chromium_path: str, llm_server: ScriptedLLMServer
) -> None:
    llm_server.set_policy(wrong_button_policy)
    options = BenchOptions(tasks=("click-button",), episodes=2, seed=3, agent="naive")
    report = await run_benchmark(options, bench_settings(chromium_path, llm_server))
    outcomes = [e.outcome for e in report.episodes]
    assert set(outcomes) <= {Outcome.wrong_answer, Outcome.gave_up}
    assert Outcome.wrong_answer in outcomes
    assert report.tasks[0].success_rate == 0.0
    assert report.config.agent == "naive"


def test_cli_runs_and_writes_json(
    chromium_path: str, llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    from workers.cli.main import _register_all, cli

    llm_server.set_policy(miniwob_policy)
    _register_all()
    out = tmp_path / "results.json"
    args = [
        "bench", "miniwob", "--tasks", "click-link", "--episodes", "1",
        "--llm-base-url", llm_server.base_url, "--model", MODEL, "--out", str(out),
    ]  # fmt: skip
    result = CliRunner().invoke(cli, args, env={"WEBAGENT_CHROMIUM_PATH": chromium_path})
    assert result.exit_code == 0, result.output
    assert "click-link" in result.output and "episode timer lifted" in result.output
    data = json.loads(out.read_text())
    assert data["overall"]["episodes"] == 1 and data["overall"]["success_rate"] == 1.0
    assert data["config"]["model"] == MODEL
    assert data["config"]["observation_mode"] in ("compact", "full")


async def test_query_keeps_its_box_and_a_colour_sample_reaches_the_instruction(
    chromium_browser: Browser,
) -> None:
    """Pages that place a click at pageY minus the query's height (circle-center...) need the
    hidden query to keep its place; use-colorwheel-2's sample is a painted empty box."""
    context = await chromium_browser.new_context()
    try:
        with MiniWobServer() as server:
            mw = MiniWobPage(await context.new_page())
            await mw.open(server.task_url("use-colorwheel-2"))
            start = await mw.start(3, keep_timer=False)
            assert re.fullmatch(
                r"Select the following color \[colour: #[0-9a-f]{6}\] with the color picker "
                r"and hit Submit\.",
                start.utterance,
            ), start.utterance
            box = await mw.page.evaluate(
                "() => { const q = document.getElementById('query');"
                " return [getComputedStyle(q).visibility, q.getBoundingClientRect().height]; }"
            )
            assert box[0] == "hidden" and box[1] >= 44, box
            assert "Select the following" not in await mw.page.inner_text("body")
    finally:
        await context.close()
