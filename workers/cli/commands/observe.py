"""`webagent observe URL`: print exactly the page view the Worker model would get.

The page opens in a pool context like a task's (router guard + egress proxy), so the same
URL policy applies: file://, loopback, private and metadata URLs are refused on defaults,
and so is every request the page itself makes there. A local HTML file given as a path is
served to the page from its own directory under LOCAL_ORIGIN, never from the network.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import time
from collections.abc import AsyncIterator, Awaitable
from enum import StrEnum
from pathlib import Path
from typing import Any

import typer

from app.settings import Settings, get_settings
from app.urlpolicy import check_url_async, network_policy

LOCAL_ORIGIN = "http://local-file.invalid"  # .invalid never resolves: only our route serves it


class Mode(StrEnum):
    compact = "compact"
    pagemem = "pagemem"
    som = "som"
    vision = "vision"  # needs an LLM endpoint (WEBAGENT_LLM_*; role "vision")
    pipeline = "pipeline"  # needs an LLM endpoint (role "summarizer") and --goal
    full = "full"  # the whole page, untrimmed: what the naive baseline sees


def register(app: typer.Typer) -> None:
    app.command("observe")(observe)


def observe(
    url: str = typer.Argument(..., help="http(s) URL or the path of a local HTML file"),
    mode: Mode = typer.Option(Mode.compact, "--mode", help="observation mode"),
    as_json: bool = typer.Option(False, "--json", help="also print figures as JSON"),
    screenshot: Path | None = typer.Option(None, "--screenshot", help="write the viewport image"),
    max_tokens: int | None = typer.Option(None, "--max-tokens", help="override the size cap"),
    goal: str | None = typer.Option(None, "--goal", help="the task, for --mode pipeline"),
) -> None:
    """Open URL in the worker browser set-up and print the observation text (+ figures)."""
    settings = get_settings()
    local = Path(url).resolve() if Path(url).is_file() else None
    if mode is Mode.pipeline and not goal:
        raise typer.BadParameter("--mode pipeline needs --goal (the task the page is read for)")
    if local is None:
        reason = asyncio.run(check_url_async(url, policy=network_policy(settings)))
        if reason:
            typer.echo(f"refused by the URL policy: {reason}", err=True)
            raise typer.Exit(2)
    target = f"{LOCAL_ORIGIN}/{local.name}" if local is not None else url
    out = asyncio.run(
        _observe(settings, target, mode, screenshot, max_tokens, goal, local_file=local)
    )
    typer.echo(out["text"])
    if as_json:
        typer.echo(json.dumps(out["figures"], indent=2, ensure_ascii=False))


async def _observe(
    settings: Settings,
    url: str,
    mode: Mode,
    shot: Path | None,
    max_tokens: int | None,
    goal: str | None = None,
    *,
    local_file: Path | None = None,
) -> dict[str, Any]:
    # imported here: workers.cli.main must not import Playwright at start-up (import contract)
    from workers.browser.observe import tokens
    from workers.browser.runtime.pool import BrowserPool

    tokens.warm_in_background()  # the o200k tokenizer loads while Chromium starts
    clock = _Clock()
    llm = None
    if mode is Mode.vision:  # choosing the mode on the command line is the opt-in
        settings = settings.model_copy(update={"vision_enabled": True})
    if mode is Mode.som:  # the Worker's image channel; --screenshot x.jpg writes that image
        settings = settings.model_copy(update={"llm_worker_vision": True})
    if mode in (Mode.vision, Mode.pipeline):  # only these call a model: import its client
        from workers.llm.client import OpenAILLM

        llm = OpenAILLM(settings)
    pool = BrowserPool(settings, spare_delay_s=3600.0)  # one page: no spare context
    # Playwright's driver, Chromium and the first context start while the page session's
    # modules import (in a thread: the event loop drives the launch meanwhile)
    starting = asyncio.create_task(clock.timed("browser_start", pool.start()))
    await asyncio.sleep(0)  # the start's first step (spawning the driver) runs first
    try:
        session_module = await clock.timed("imports", asyncio.to_thread(_import_session))
        await starting
        async with clock.timed_context("context", pool.context()) as page:
            if local_file is not None:
                await page.route(f"{LOCAL_ORIGIN}/**", _local_files(local_file.parent))
            session = await clock.timed(
                "session_open",
                session_module.PageSession.open(
                    page, settings, max_tokens=max_tokens, llm=llm, goal=goal
                ),
            )
            obs = await _look(session, clock, url, mode, shot)
    finally:
        await _stop(starting)
        await clock.timed("close", pool.close())
        if llm is not None:
            await llm.close()
    return {"text": obs.text, "figures": _figures(obs, mode, clock.ms)}


def _import_session() -> Any:
    return importlib.import_module("workers.browser.session")


async def _stop(starting: asyncio.Task[Any]) -> None:
    """The browser start, finished or stopped (its failure is the caller's error already)."""
    if not starting.done():
        starting.cancel()
    with contextlib.suppress(BaseException):
        await starting


async def _look(session: Any, clock: _Clock, url: str, mode: Mode, shot: Path | None) -> Any:
    """Open `url`, observe it once in `mode`, write the screenshot asked for."""
    result = await clock.timed("goto", session.goto(url))
    if not result.success:
        raise typer.BadParameter(result.reason)
    obs = await clock.timed("observe", session.observe(mode.value))
    if shot is not None and obs.image is not None and shot.suffix.lower() != ".png":
        shot.write_bytes(obs.image)
    elif shot is not None:
        await _screenshot(session, mode, shot)
    await session.close()
    return obs


class _Clock:
    """Wall milliseconds of the command's phases (the --json figures' `timings_ms`)."""

    def __init__(self) -> None:
        self.ms: dict[str, float] = {}

    async def timed(self, phase: str, step: Awaitable[Any]) -> Any:
        started = time.perf_counter()
        try:
            return await step
        finally:
            self.ms[phase] = round((time.perf_counter() - started) * 1000, 1)

    @contextlib.asynccontextmanager
    async def timed_context(self, phase: str, opening: Any) -> AsyncIterator[Any]:
        started = time.perf_counter()
        async with opening as value:
            self.ms[phase] = round((time.perf_counter() - started) * 1000, 1)
            yield value


def _figures(obs: Any, mode: Mode, timings_ms: dict[str, float]) -> dict[str, Any]:
    stats = dict(obs.stats)
    return {
        "url": obs.url,
        "title": obs.title,
        "mode": mode.value,
        "version": obs.version,
        "tokens": obs.tokens,
        "tokens_untrimmed": stats.get("tokens_full"),
        "refs": obs.refs,
        "interactive": obs.interactive,
        "sections": stats.get("sections"),
        "frames": stats.get("frames"),
        "hidden_dropped": stats.get("hidden_dropped"),
        "hidden_reasons": stats.get("hidden_reasons"),
        "extraction_ms": stats.get("extraction_ms"),
        "js_ms": stats.get("js_ms"),
        "observe_ms": timings_ms.get("observe"),
        "reused": stats.get("reused"),
        "modal": stats.get("modal"),
        "vision": stats.get("vision"),
        "som": stats.get("som"),
        "fingerprint": obs.fingerprint,
        # imports and browser_start overlap: the imports run while Chromium starts
        "timings_ms": dict(timings_ms),
    }


async def _screenshot(session: Any, mode: Mode, path: Path) -> None:
    png = path.suffix.lower() == ".png"
    if mode is Mode.som:
        som = importlib.import_module("workers.browser.observe.som")
        data = await som.annotate(session.page, session.last, session.refs, jpeg=not png)
    else:
        data = await session.page.screenshot(type="png" if png else "jpeg")
    path.write_bytes(data)


def _local_files(root: Path) -> Any:
    """A route handler serving files under `root` only (404 for anything outside it)."""
    import mimetypes
    from urllib.parse import unquote, urlsplit

    async def serve(route: Any) -> None:
        relative = unquote(urlsplit(route.request.url).path).lstrip("/")
        path = (root / relative).resolve()
        if not path.is_relative_to(root) or not path.is_file():
            await route.fulfill(status=404, body="not found")
            return
        kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        await route.fulfill(status=200, body=path.read_bytes(), content_type=kind)

    return serve
