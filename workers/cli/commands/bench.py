"""`webagent bench miniwob`: MiniWoB++ through the real agent, any OpenAI-compatible model."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path

import typer
from rich.console import Console

from app.settings import Settings, get_settings
from workers.agent.errors import ConfigurationError
from workers.bench.miniwob import BenchOptions, run_benchmark
from workers.bench.report import EpisodeResult, Outcome, print_report
from workers.bench.server import MiniWobNotInstalled, available_tasks
from workers.bench.suite import SUITES, UnknownTask, resolve_tasks

bench_app = typer.Typer(help="Benchmarks that run the real agent.", no_args_is_help=True)


class AgentKind(StrEnum):
    webagent = "webagent"
    worker = "worker"  # the Worker alone with compressed history (no Planner, no Ledger view)
    naive = "naive"


class ObservationMode(StrEnum):
    """Settings.observation_mode values (see app/settings.py for what each shows)."""

    compact = "compact"
    pagemem = "pagemem"
    som = "som"
    vision = "vision"  # needs WEBAGENT_VISION_ENABLED=true
    pipeline = "pipeline"


def register(app: typer.Typer) -> None:
    app.add_typer(bench_app, name="bench")


def _progress(console: Console, total: int) -> Callable[[EpisodeResult], None]:
    done = [0]

    def report(result: EpisodeResult) -> None:
        done[0] += 1
        mark = "ok " if result.outcome is Outcome.success else "-- "
        console.print(
            f"[{done[0]}/{total}] {mark}{result.task}#{result.episode} "
            f"{result.outcome.value} steps={result.steps} calls={result.llm_calls} "
            f"{result.wall_s:.1f}s" + (f" ({result.error})" if result.error else ""),
            highlight=False,
        )

    return report


@bench_app.command("miniwob")
def miniwob(
    tasks: str = typer.Option("", help="Comma-separated task names (overrides --suite)."),
    suite: str = typer.Option("core", help=f"Task list: {', '.join(SUITES)}."),
    episodes: int = typer.Option(1, min=1, help="Episodes (seeds) per task."),
    seed: int = typer.Option(0, help="Seed of episode 0; episode k uses seed+k."),
    concurrency: int = typer.Option(1, min=1, help="Episodes run at once."),
    out: Path | None = typer.Option(None, help="Write the JSON report here."),
    events: Path | None = typer.Option(None, help="Append every agent event here (JSONL)."),
    agent: AgentKind = typer.Option(
        AgentKind.webagent, help="webagent, Worker-only or naive loop."
    ),
    llm_base_url: str | None = typer.Option(None, help="OpenAI-compatible base URL."),
    model: str | None = typer.Option(None, help="Model for every role."),
    llm_timeout: float | None = typer.Option(None, help="Seconds per LLM call (slow models)."),
    max_steps: int = typer.Option(10, min=1, help="Agent step budget per episode."),
    timeout: float = typer.Option(900.0, min=1, help="Agent wall-clock budget per episode (s)."),
    keep_timer: bool = typer.Option(
        False, "--keep-timer", help="Keep MiniWoB's EPISODE_MAX_TIME (lifted by default)."
    ),
    observation_mode: ObservationMode | None = typer.Option(
        None,
        "--observation-mode",
        help="Page view of the webagent loop (default: WEBAGENT_OBSERVATION_MODE or compact); "
        "the naive agent always sees the whole page.",
    ),
    worker_vision: bool | None = typer.Option(
        None,
        "--worker-vision/--no-worker-vision",
        help="The Worker model reads images: send the Set-of-Mark screenshot with the text "
        "(WEBAGENT_LLM_WORKER_VISION); refused if the model fails the image probe.",
    ),
    vision: bool | None = typer.Option(
        None,
        "--vision/--no-vision",
        help="A vision model (role vision) is available: the look tool and mode vision "
        "(WEBAGENT_VISION_ENABLED); refused if the model fails the image probe.",
    ),
) -> None:
    """Run MiniWoB++ episodes; print a per-task table and optionally write JSON."""
    settings = _settings(llm_base_url, model, llm_timeout)
    flags = {"llm_worker_vision": worker_vision, "vision_enabled": vision}
    settings = settings.model_copy(update={k: v for k, v in flags.items() if v is not None})
    console, err = Console(), Console(stderr=True)
    if not console.is_terminal:  # piped into a file or CI log: do not squeeze to 80 columns
        console = Console(width=160)
    try:
        names = [t for t in tasks.split(",") if t.strip()] if tasks else None
        chosen = resolve_tasks(suite=suite, tasks=names, available=available_tasks())
    except (UnknownTask, MiniWobNotInstalled) as exc:
        err.print(f"error: {exc}")
        raise typer.Exit(2) from exc
    options = BenchOptions(
        tasks=chosen,
        suite=None if names else suite,
        episodes=episodes,
        seed=seed,
        concurrency=concurrency,
        agent=agent.value,
        keep_timer=keep_timer,
        max_steps=max_steps,
        timeout_s=timeout,
        events_path=str(events) if events else None,
        observation_mode=observation_mode.value if observation_mode else settings.observation_mode,
    )
    timer = "kept" if keep_timer else "lifted"
    seen = "full" if agent is AgentKind.naive else options.observation_mode
    err.print(
        f"MiniWoB++: {len(chosen)} tasks x {episodes} episodes, agent={agent.value}, "
        f"observation={seen}, model={settings.llm_model} at {settings.llm_base_url}, "
        f"episode timer {timer}, worker vision {'on' if settings.llm_worker_vision else 'off'}, "
        f"vision model {'on' if settings.vision_enabled else 'off'}"
    )
    progress = _progress(err, len(chosen) * episodes)
    try:
        report = asyncio.run(run_benchmark(options, settings, on_episode=progress))
    except ConfigurationError as exc:
        err.print(f"error: {exc}")
        raise typer.Exit(2) from exc
    print_report(report, console)
    if out is not None:
        report.write_json(out)
        err.print(f"wrote {out}")


def _settings(base_url: str | None, model: str | None, llm_timeout: float | None) -> Settings:
    """Environment settings with the command-line LLM overrides applied to every role."""
    update: dict[str, object] = {}
    if base_url:
        update["llm_base_url"] = base_url
    if model:
        update["llm_model"] = model
        for role in ("orchestrator", "planner", "worker", "vision", "summarizer"):
            update[f"llm_model_{role}"] = ""
    if llm_timeout:
        update["llm_timeout_s"] = llm_timeout
    return get_settings().model_copy(update=update)
