"""`webagent bench miniwob`: MiniWoB++ through the real agent, any OpenAI-compatible model."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from contextlib import ExitStack
from enum import StrEnum
from pathlib import Path
from typing import Any

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


COMPARE_FLAGS = ("defaults", "no-planner", "no-memory", "fresh")


def _config(label: str, **given: Any) -> Any:
    """A RunConfig from a label such as `no-planner+fresh` (flags joined by +)."""
    from workers.bench.realapps import RunConfig

    flags = set(label.split("+"))
    unknown = flags - set(COMPARE_FLAGS)
    if unknown:
        raise typer.BadParameter(f"unknown {sorted(unknown)}; use {'+'.join(COMPARE_FLAGS)}")
    return RunConfig(
        label=label,
        planner="no-planner" not in flags,
        memory="no-memory" not in flags,
        fresh="fresh" in flags,
        **given,
    )


@bench_app.command("realapps")
def realapps(
    tasks: str = typer.Option("", help="Comma-separated task ids (default: every task)."),
    app: str | None = typer.Option(None, "--app", help="Only this app's tasks."),
    model: str | None = typer.Option(None, help="Model for every role."),
    llm_base_url: str | None = typer.Option(None, help="OpenAI-compatible base URL."),
    llm_timeout: float | None = typer.Option(None, help="Seconds per LLM call (slow models)."),
    no_planner: bool = typer.Option(False, "--no-planner", help="The Worker alone."),
    no_memory: bool = typer.Option(
        False, "--no-memory", help="An empty database per task: nothing learned carries over."
    ),
    fresh: bool = typer.Option(False, "--fresh", help="A new service per task."),
    server: str | None = typer.Option(
        None, help="Submit to this running server (its own configuration) instead of embedding."
    ),
    compare: str | None = typer.Option(
        None, help=f"A second configuration run after the first: {'+'.join(COMPARE_FLAGS)}."
    ),
    max_steps: int = typer.Option(40, min=1, help="Step budget per task."),
    timeout: float = typer.Option(900.0, min=1, help="Seconds per task."),
    bench_dir: Path | None = typer.Option(None, help="bench/realapps folder (default: checkout)."),
    out: Path | None = typer.Option(None, help="Write the JSON report here (and FILE.md)."),
) -> None:
    """Real applications (bench/realapps): reset, run each task through the service, check
    the app's state and the answer; prints a table (two configurations side by side)."""
    from workers.bench import realapps as runner
    from workers.bench.llm_meter import metered_endpoint
    from workers.bench.realapps_catalog import DEFAULT_BENCH_DIR, Catalog, CatalogError

    console, err = Console(width=200), Console(stderr=True)
    catalog = Catalog(bench_dir or DEFAULT_BENCH_DIR)
    try:
        chosen = catalog.select([t for t in tasks.split(",") if t.strip()], app)
    except CatalogError as exc:
        err.print(f"error: {exc}")
        raise typer.Exit(2) from exc
    flags = "+".join(f for f, on in (("no-planner", no_planner), ("no-memory", no_memory),
                                     ("fresh", fresh)) if on) or "defaults"  # fmt: skip
    limits = {"max_steps": max_steps, "timeout_s": timeout}
    configs = [_config(flags, **limits)] + ([_config(compare, **limits)] if compare else [])
    if server and (compare or flags != "defaults"):
        err.print("note: with --server the server's own configuration runs every task")
    settings = _settings(llm_base_url, model, llm_timeout)
    opener = _server_opener(server)

    def progress(row: Any) -> None:
        mark = "ok " if row.success else "-- "
        line = f"{mark}{row.config} {row.task} {row.status} steps={row.steps} "
        line += f"calls={row.llm_calls} {row.seconds:.0f}s: {row.why}"
        err.print(line, highlight=False)

    reports = []
    with runner.serving(catalog, {t.app for t in chosen}), ExitStack() as stack:
        meter = None
        if not server:  # the embedded service's model calls pass through the o200k meter
            url, meter = stack.enter_context(
                metered_endpoint(settings.llm_base_url, catalog.request_counter())
            )
            settings = settings.model_copy(update={"llm_base_url": url})
        for config in configs:
            err.print(f"{config.label}: {len(chosen)} tasks, model {settings.llm_model}")
            reports.append(
                runner.run_config(catalog, chosen, config, settings, opener, progress, meter)
            )
    console.print(runner.markdown(reports), highlight=False, markup=False)
    if out is not None:
        paths = runner.write(reports, out)
        err.print(f"wrote {paths[0]} and {paths[1]}")


def _server_opener(server: str | None) -> Any:
    """Settings -> a TaskClient on an embedded service (those settings) or on `server`."""
    from contextlib import contextmanager

    from workers.cli.client import TaskClient
    from workers.cli.commands.service import local_server

    @contextmanager
    def open_service(settings: Settings) -> Any:
        if server:
            with TaskClient(server) as client:
                yield client
            return
        Path(settings.data_dir).mkdir(parents=True, exist_ok=True)
        with local_server(settings) as base_url, TaskClient(base_url) as client:
            yield client

    return open_service


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
