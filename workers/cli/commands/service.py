"""Service commands: `webagent migrate | serve | worker | run`.

Heavy modules (runtime, browser, supervisor, and alembic, uvicorn, httpx, the API client)
are imported inside the commands that use them, so `webagent --help` and `webagent worker`
(whose supervisor process needs none of them before it spawns the workers) start fast.
"""

from __future__ import annotations

import ipaddress
import json
import os
import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from app.logging_config import configure as configure_logging
from app.settings import Settings, get_settings

if TYPE_CHECKING:
    from workers.cli.approvals import ApprovalDesk
    from workers.cli.client import TaskClient

SERVER_START_TIMEOUT_S = 120.0
SHUTDOWN_S = 3  # seconds uvicorn waits for open connections when the service stops


def migrate() -> None:
    """Create or upgrade the database schema (SQLite file by default)."""
    from app.db.migrate import upgrade

    settings = get_settings()
    upgrade(settings.effective_database_url)
    typer.echo(f"database at head: {_redacted(settings.effective_database_url)}")


def serve(
    host: Annotated[str | None, typer.Option(help="bind address (default WEBAGENT_HOST)")] = None,
    port: Annotated[int | None, typer.Option(help="port (default WEBAGENT_PORT)")] = None,
) -> None:
    """Run the HTTP API; without WEBAGENT_REDIS_URL it also runs the workers in-process."""
    import uvicorn

    from app.db.migrate import upgrade
    from app.http_protocol import ProblemH11Protocol
    from workers.process.embedded import build_app

    settings = get_settings()
    bind = host or settings.host
    refusal = unsafe_bind(bind, settings)
    if refusal:
        typer.echo(refusal, err=True)
        raise typer.Exit(2)
    configure_logging(settings)
    if settings.embedded:
        upgrade(settings.effective_database_url)
    uvicorn.run(
        build_app(settings),
        host=bind,
        port=port or settings.port,
        # Ctrl-C: open streams (a viewer watching a run) do not hold the shutdown
        timeout_graceful_shutdown=SHUTDOWN_S,
        http=ProblemH11Protocol,  # a request the parser refuses gets problem details too
    )


def unsafe_bind(host: str, settings: Settings) -> str | None:
    """Why serving on `host` would expose an unauthenticated API, or None when it is fine."""
    if settings.api_keys_required or settings.allow_unauthenticated_bind:
        return None
    name = host.strip("[]").lower()
    try:
        if ipaddress.ip_address(name).is_loopback:
            return None
    except ValueError:
        if name == "localhost":
            return None
    return (
        f"refusing to serve on {host}: API keys are not required, so anyone who can reach "
        "this address could submit tasks. Set WEBAGENT_API_KEYS_REQUIRED=true and create a "
        "key with `webagent keys create --name NAME --scopes tasks:write,tasks:read`, or bind "
        "127.0.0.1, or (behind your own authentication, or a port published on loopback only) "
        "set WEBAGENT_ALLOW_UNAUTHENTICATED_BIND=true."
    )


def worker(
    concurrency: Annotated[
        int | None,
        typer.Option(min=1, help="worker processes (default WEBAGENT_BROWSER_POOL_SIZE)"),
    ] = None,
    grace: Annotated[
        float, typer.Option(help="seconds a stopping worker may finish its job")
    ] = 60.0,
) -> None:
    """Run N rq worker processes (warm Chromium each) on the task queue; needs Redis."""
    settings = get_settings()
    if not settings.redis_url:
        typer.echo(
            "webagent worker needs WEBAGENT_REDIS_URL (embedded mode runs workers in `serve`)"
        )
        raise typer.Exit(2)
    from workers.process.supervisor import Supervisor

    configure_logging(settings)
    supervisor = Supervisor(settings, concurrency or settings.browser_pool_size, grace_s=grace)
    raise typer.Exit(supervisor.run())


def run(
    instruction: Annotated[str, typer.Argument(help="what the agent should do")],
    url: Annotated[str | None, typer.Option("--url", help="start URL")] = None,
    server: Annotated[
        str | None, typer.Option(help="submit to a running server, e.g. http://127.0.0.1:8000")
    ] = None,
    max_steps: Annotated[int | None, typer.Option(min=1)] = None,
    timeout: Annotated[float | None, typer.Option(help="task timeout in seconds")] = None,
    allowed_domain: Annotated[
        list[str] | None, typer.Option(help="restrict navigation (repeatable)")
    ] = None,
    api_key: Annotated[str | None, typer.Option(help="Bearer API key for --server")] = None,
    output_schema: Annotated[
        Path | None,
        typer.Option(help="JSON Schema file the result must satisfy (result.data)", exists=True),
    ] = None,
    profile: Annotated[
        str | None, typer.Option(help="browser profile to start from (webagent profiles create)")
    ] = None,
    secret: Annotated[
        list[str] | None,
        typer.Option(
            help="a secret by the name of an environment variable holding its value "
            "(repeatable; the value never goes on the command line)"
        ),
    ] = None,
    webhook: Annotated[str | None, typer.Option(help="URL POSTed when the task ends")] = None,
    webhook_event: Annotated[
        list[str] | None,
        typer.Option(help="task.started, approval.requested, task.finished (repeatable)"),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the final task as JSON")] = False,
) -> None:
    """Run one task and watch it live; embedded in this process unless --server is given."""
    body = task_body(
        instruction,
        url,
        max_steps=max_steps,
        timeout=timeout,
        allowed_domains=allowed_domain,
        output_schema=output_schema,
        profile=profile,
        secrets=secret,
        webhook=webhook,
        webhook_events=webhook_event,
    )
    if not as_json and sys.stdin.isatty():  # a person at the terminal answers approvals
        body["approval_timeout_s"] = get_settings().approval_timeout_s
    if server:
        import httpx  # imported here: `webagent worker` must not load the web stack

        try:
            task = _submit_and_follow(server, body, api_key=api_key, quiet=as_json)
        except httpx.TransportError as exc:  # issue 37 item 5: one line, not a traceback
            typer.echo(f"cannot reach {server}: {exc} (is the server running?)", err=True)
            raise typer.Exit(2) from exc
    else:
        with local_server(get_settings()) as base_url:
            task = _submit_and_follow(base_url, body, api_key=None, quiet=as_json)
    if as_json:
        typer.echo(json.dumps(task, indent=2, default=str))
    raise typer.Exit(0 if task.get("status") == "succeeded" else 1)


def task_body(instruction: str, url: str | None, **options: Any) -> dict[str, Any]:
    """The POST /v1/tasks body of `webagent run`'s options (exit 2 on a bad file or secret)."""
    body: dict[str, Any] = {"instruction": instruction, "start_url": url}
    plain = {
        "max_steps": options["max_steps"],
        "timeout_s": options["timeout"],
        "allowed_domains": options["allowed_domains"] or None,
        "profile": options["profile"],
        "webhook_url": options["webhook"],
        "webhook_events": options["webhook_events"] or None,
    }
    body.update({k: v for k, v in plain.items() if v is not None})
    if options["output_schema"] is not None:
        try:
            body["output_schema"] = json.loads(options["output_schema"].read_text())
        except (OSError, ValueError) as exc:
            typer.echo(f"--output-schema {options['output_schema']}: {exc}", err=True)
            raise typer.Exit(2) from exc
    if options["secrets"]:
        body["secrets"] = secrets_from_env(options["secrets"])
    return body


def secrets_from_env(names: list[str]) -> dict[str, str]:
    """name -> value of the environment variable of that name (exit 2 when one is unset)."""
    missing = [n for n in names if not os.environ.get(n)]
    if missing:
        typer.echo(
            f"--secret {', '.join(missing)}: set the environment variable of that name to the "
            "secret's value (values never go on the command line)",
            err=True,
        )
        raise typer.Exit(2)
    return {name: os.environ[name] for name in names}


def _submit_and_follow(
    base_url: str, body: dict[str, Any], *, api_key: str | None, quiet: bool
) -> dict[str, Any]:
    """POST the task, follow its events (live display unless quiet), return the final task."""
    from workers.cli.client import ApiError, TaskClient
    from workers.cli.progress import ProgressView

    with TaskClient(base_url, api_key=api_key) as client:
        try:
            created = client.submit(body)
        except ApiError as exc:
            typer.echo(f"task rejected: {exc}", err=True)
            raise typer.Exit(2) from exc
        task_id = str(created["id"])
        typer.echo(f"task {task_id}  {base_url.rstrip('/')}/runs/{task_id}", err=True)
        desk = approval_desk(client, task_id, base_url, quiet=quiet, keyed=api_key is not None)
        with cancel_on_interrupt(client, task_id):
            if quiet:
                for event in client.events(task_id):
                    desk.on_event(event)
                return client.get(task_id)
            view = ProgressView(task_id, created.get("max_steps"))
            view.follow(client.events(task_id), on_approval=desk.on_event)
        task = client.get(task_id)
        view.summary(task)
        return task


def approval_desk(
    client: TaskClient, task_id: str, base_url: str, *, quiet: bool, keyed: bool
) -> ApprovalDesk:
    """Who hears of approval requests (relay finding 9): a person at a terminal is asked
    y/n; with --json or without a terminal the request goes to stderr as one JSON line."""
    from workers.cli.approvals import ApprovalDesk

    interactive = not quiet and sys.stdin.isatty()
    ask = (lambda text: typer.confirm(text, default=False, err=True)) if interactive else None
    return ApprovalDesk(
        client,
        task_id,
        base_url,
        echo=lambda line: typer.echo(line, err=True),
        ask=ask,
        keyed=keyed,
    )


@contextmanager
def cancel_on_interrupt(client: TaskClient, task_id: str) -> Iterator[None]:
    """Ctrl-C while following a task asks the server to cancel it, then exits 130."""
    import httpx

    from workers.cli.client import ApiError

    try:
        yield
    except KeyboardInterrupt:
        try:
            client.cancel_task(task_id)
            typer.echo(f"\ncancel requested for task {task_id}", err=True)
        except (ApiError, httpx.HTTPError) as exc:
            typer.echo(f"\ncould not cancel task {task_id}: {exc}", err=True)
        raise typer.Exit(130) from None


@contextmanager
def local_server(settings: Settings) -> Iterator[str]:
    """An embedded server on an ephemeral 127.0.0.1 port in a thread; yields its base URL."""
    import uvicorn

    from app.db.migrate import upgrade
    from app.http_protocol import ProblemH11Protocol
    from workers.process.embedded import build_app

    settings = settings.model_copy(update={"redis_url": ""})  # this process runs the task
    upgrade(settings.effective_database_url)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(
        build_app(settings), log_level="warning", lifespan="on", http=ProblemH11Protocol
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(
        target=server.run, kwargs={"sockets": [sock]}, name="webagent-local", daemon=True
    )
    thread.start()
    deadline = time.monotonic() + SERVER_START_TIMEOUT_S
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the embedded server did not start (see the log above)")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(SERVER_START_TIMEOUT_S)
        sock.close()


def _redacted(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def register(app: typer.Typer) -> None:
    app.command()(migrate)
    app.command()(serve)
    app.command()(worker)
    app.command()(run)
