"""`webagent observe URL`: print exactly the page view the Worker model would get.

The page opens in a pool context like a task's (router guard + egress proxy), so the same
URL policy applies: file://, loopback, private and metadata URLs are refused on defaults,
and so is every request the page itself makes there. A local HTML file given as a path is
served to the page from its own directory under LOCAL_ORIGIN, never from the network.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import time
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
    from workers.browser.session import PageSession

    tokens.warm_in_background()  # the o200k vocabulary loads while Chromium starts
    llm = None
    if mode is Mode.vision:  # choosing the mode on the command line is the opt-in
        settings = settings.model_copy(update={"vision_enabled": True})
    if mode is Mode.som:  # the Worker's image channel; --screenshot x.jpg writes that image
        settings = settings.model_copy(update={"llm_worker_vision": True})
    if mode in (Mode.vision, Mode.pipeline):  # only these call a model: import its client
        from workers.llm.client import OpenAILLM

        llm = OpenAILLM(settings)
    pool = BrowserPool(settings, spare_delay_s=3600.0)  # one page: no spare context
    await pool.start()
    try:
        async with pool.context() as page:
            if local_file is not None:
                await page.route(f"{LOCAL_ORIGIN}/**", _local_files(local_file.parent))
            session = await PageSession.open(
                page, settings, max_tokens=max_tokens, llm=llm, goal=goal
            )
            result = await session.goto(url)
            if not result.success:
                raise typer.BadParameter(result.reason)
            started = time.perf_counter()
            obs = await session.observe(mode.value)
            observe_ms = (time.perf_counter() - started) * 1000
            if shot is not None and obs.image is not None and shot.suffix.lower() != ".png":
                shot.write_bytes(obs.image)
            elif shot is not None:
                await _screenshot(session, mode, shot)
            await session.close()
    finally:
        await pool.close()
        if llm is not None:
            await llm.close()
    stats = dict(obs.stats)
    figures = {
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
        "observe_ms": round(observe_ms, 1),
        "reused": stats.get("reused"),
        "modal": stats.get("modal"),
        "vision": stats.get("vision"),
        "som": stats.get("som"),
        "fingerprint": obs.fingerprint,
    }
    return {"text": obs.text, "figures": figures}


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
