"""`webagent explore URL`: start a site exploration on a server, follow it, print the result.

It speaks the public API like `webagent tasks` (POST /v1/sites/explore, then GET
/v1/sites/explore/{id} every `--poll` seconds): a progress line whenever the counts change,
then the WebsiteMem (pages, templates, menus learned, what was skipped and why); `--json`
prints the API's final JSON instead; `webagent explore --cancel ID` cancels one. Exit codes:
0 succeeded (or cancelled by --cancel), 1 failed, 3 cancelled, 5 not finished (`--no-wait`,
or `--wait-s` ran out), 2 refused or unreachable, 4 not found.
"""

from __future__ import annotations

import json
import time
from typing import Annotated, Any

import typer

from workers.cli.commands.tasks import (
    EXIT_UNFINISHED,
    ApiKey,
    AsJson,
    Server,
    connect,
)

EXIT_BY_STATUS = {"succeeded": 0, "failed": 1, "cancelled": 3}
SHOWN_PAGES = 30


def _progress_line(out: Any) -> str:
    p = out.progress
    line = f"{out.status.value}: {p.get('pages', 0)} pages, {p.get('clicks', 0)} clicks"
    line += f", {p.get('skipped', 0)} skipped"
    return line + (f" (last {p['last_page']})" if p.get("last_page") else "")


def render(out: Any) -> list[str]:
    """The finished exploration as text lines."""
    if out.result is None:
        return [f"{out.status.value}: {out.error or '-'} {out.error_detail or ''}".rstrip()]
    mem = out.result
    stats = mem.stats
    lines = [
        f"WebsiteMem v{out.version} of {mem.domain}: {len(mem.pages)} pages, "
        f"{len(mem.templates)} templates, {stats.get('clicks', 0)} clicks, "
        f"{len(mem.skipped)} skipped"
        + (f" (stopped: {stats['stopped']})" if stats.get("stopped") else "")
    ]
    lines.append("pages:")
    for page in mem.pages[:SHOWN_PAGES]:
        shape = f"  [{page.template}]" if page.template else ""
        lines.append(f"  {page.title or '(untitled)'} — {page.url}{shape}")
    if len(mem.pages) > SHOWN_PAGES:
        lines.append(f"  … {len(mem.pages) - SHOWN_PAGES} more")
    if mem.templates:
        lines.append("templates:")
        lines += [f"  {t.pattern} ({t.kind}, {len(t.urls)} pages)" for t in mem.templates]
    menus = [e for e in mem.elements if e.revealed]
    if menus:
        lines.append("menus:")
        lines += [f"  {e.label}: {', '.join(e.revealed)}" for e in menus]
    if mem.skipped:
        lines.append("skipped:")
        lines += [f"  {s.label} ({s.reason})" for s in mem.skipped]
    return lines


def explore(
    url: Annotated[
        str,
        typer.Argument(help="the site's start page (usually its homepage); with --cancel: an id"),
    ],
    depth: Annotated[int, typer.Option(min=0, max=5, help="clicks from the start page")] = 2,
    max_pages: Annotated[int, typer.Option(min=1, max=500)] = 50,
    max_elements: Annotated[int, typer.Option(min=1, max=200, help="clicks per page")] = 75,
    timeout: Annotated[float, typer.Option(min=1, help="the exploration's wall clock (s)")] = 300,
    allowed_domain: Annotated[
        list[str] | None, typer.Option(help="pin the browser to this host (repeatable)")
    ] = None,
    wait: Annotated[bool, typer.Option(help="follow it to the end")] = True,
    poll: Annotated[float, typer.Option(min=0.1, help="seconds between status checks")] = 1.0,
    cancel: Annotated[
        bool, typer.Option("--cancel", help="cancel the exploration whose id is given")
    ] = False,
    server: Server = None,
    api_key: ApiKey = None,
    as_json: AsJson = False,
) -> None:
    """Explore a site deterministically (seed 001 App. A.2) and print its WebsiteMem."""
    from app.api.sites import ExploreCreate

    if cancel:
        cancel_exploration(url, server, api_key, as_json)

    body = ExploreCreate(
        url=url,
        max_depth=depth,
        max_pages=max_pages,
        max_elements_per_page=max_elements,
        timeout_s=timeout,
        allowed_domains=allowed_domain or [],
    )
    with connect(server, api_key) as client:
        out = client.start_exploration(body)
        if not as_json:
            typer.echo(_line(out))
        last = ""
        deadline = time.monotonic() + timeout + 120  # the job's own deadline, plus a margin
        while wait and out.status.value in ("queued", "running") and time.monotonic() < deadline:
            time.sleep(poll)
            out = client.get_exploration(out.id)
            line = _progress_line(out)
            if line != last and not as_json:
                typer.echo(line)
            last = line
    if as_json:
        typer.echo(json.dumps(out.model_dump(mode="json"), indent=2))
    else:
        for line in render(out) if out.status.value in EXIT_BY_STATUS else []:
            typer.echo(line)
    raise typer.Exit(EXIT_BY_STATUS.get(out.status.value, EXIT_UNFINISHED))


def cancel_exploration(
    exploration_id: str, server: str | None, api_key: str | None, as_json: bool
) -> None:
    """Cancel a queued or running exploration; exit 0 once it is cancelled (a finished one
    keeps its status and exit code)."""
    with connect(server, api_key) as client:
        out = client.cancel_exploration(exploration_id)
    typer.echo(json.dumps(out.model_dump(mode="json"), indent=2) if as_json else _line(out))
    code = 0 if out.status.value == "cancelled" else EXIT_BY_STATUS.get(out.status.value, 1)
    raise typer.Exit(code)


def _line(out: Any) -> str:
    return f"exploration {out.id} of {out.domain} {out.status.value}"


def register(app: typer.Typer) -> None:
    app.command("explore")(explore)
