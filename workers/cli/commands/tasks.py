"""`webagent tasks list | show | cancel | delete` against a running server (the typed client).

`--json` prints the API's own JSON. Exit codes of `show` and `cancel` reflect the task:
0 succeeded, 1 failed or timed out, 3 cancelled, 5 not finished yet (queued, running,
awaiting approval); `delete` exits 0 once the task is gone; 4 the task does not exist;
2 the request was refused or the server could not be reached.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import typer

tasks = typer.Typer(help="List, show, cancel and delete tasks on a server.", no_args_is_help=True)

EXIT_BY_STATUS = {"succeeded": 0, "failed": 1, "timed_out": 1, "cancelled": 3}
EXIT_REFUSED, EXIT_NOT_FOUND, EXIT_UNFINISHED = 2, 4, 5

Server = Annotated[
    str | None,
    typer.Option(help="API base URL (default WEBAGENT_SERVER_URL, else http://HOST:PORT)"),
]
ApiKey = Annotated[
    str | None, typer.Option(help="Bearer API key (default WEBAGENT_CLIENT_API_KEY)")
]
AsJson = Annotated[bool, typer.Option("--json", help="print the API's JSON")]
TaskId = Annotated[str, typer.Argument(help="task id")]


@contextmanager
def connect(server: str | None, api_key: str | None) -> Iterator[Any]:
    """A TaskClient for the server; API errors and unreachable servers exit with a message."""
    import httpx

    from app.settings import get_settings
    from workers.cli.client import ApiError, TaskClient

    settings = get_settings()
    base = server or settings.server_url or f"http://{settings.host}:{settings.port}"
    key = api_key or settings.client_api_key.get_secret_value() or None
    try:
        with TaskClient(base, api_key=key) as client:
            yield client
    except ApiError as exc:
        typer.echo(str(exc), err=True)
        raise typer.Exit(EXIT_NOT_FOUND if exc.status_code == 404 else EXIT_REFUSED) from exc
    except httpx.TransportError as exc:
        typer.echo(f"cannot reach {base}: {exc} (set --server or WEBAGENT_SERVER_URL)", err=True)
        raise typer.Exit(EXIT_REFUSED) from exc


def exit_code(status: str) -> int:
    return EXIT_BY_STATUS.get(status, EXIT_UNFINISHED)


def _dump(model: Any) -> str:
    return json.dumps(model.model_dump(mode="json"), indent=2)


@tasks.command("list")
def list_tasks(
    status: Annotated[str | None, typer.Option(help="only tasks with this status")] = None,
    domain: Annotated[str | None, typer.Option(help="only tasks on this host")] = None,
    limit: Annotated[int, typer.Option(min=1, max=200)] = 20,
    server: Server = None,
    api_key: ApiKey = None,
    as_json: AsJson = False,
) -> None:
    """Newest tasks first: id, status, steps, domain, instruction."""
    with connect(server, api_key) as client:
        page = client.list_tasks(status=status, domain=domain, limit=limit)
    if as_json:
        typer.echo(_dump(page))
        return
    for task in page.items:
        line = f"{task.id}  {task.status.value:<17} {task.usage.steps:>3} steps  "
        typer.echo(line + f"{task.domain or '-':<24} {task.instruction[:60]}")
    if not page.items:
        typer.echo("no tasks")


@tasks.command("show")
def show_task(
    task_id: TaskId,
    server: Server = None,
    api_key: ApiKey = None,
    as_json: AsJson = False,
) -> None:
    """One task: status, answer, structured data, error, usage; exit code from its status."""
    with connect(server, api_key) as client:
        task = client.get_task(task_id)
    if as_json:
        typer.echo(_dump(task))
    else:
        rows = [
            ("status", task.status.value),
            ("instruction", task.instruction),
            ("start_url", task.start_url or "-"),
            ("answer", task.result.answer or "-"),
            ("data", json.dumps(task.result.data) if task.result.data is not None else "-"),
            ("error", f"{task.error}: {task.error_detail}" if task.error else "-"),
            (
                "usage",
                f"{task.usage.steps} steps, {task.usage.llm_calls} model calls, "
                f"{task.usage.input_tokens}+{task.usage.output_tokens} tokens",
            ),
        ]
        if task.webhook is not None:
            rows.append(("webhook", f"{task.webhook.state} ({task.webhook.attempts} attempts)"))
        for name, value in rows:
            typer.echo(f"{name:<12} {value}")
    raise typer.Exit(exit_code(task.status.value))


@tasks.command("cancel")
def cancel_task(
    task_id: TaskId,
    server: Server = None,
    api_key: ApiKey = None,
    as_json: AsJson = False,
) -> None:
    """Ask the server to cancel a task (queued: at once; running: at its next step)."""
    with connect(server, api_key) as client:
        task = client.cancel_task(task_id)
    typer.echo(_dump(task) if as_json else f"{task.id} {task.status.value} (cancel requested)")
    raise typer.Exit(0 if task.cancel_requested else exit_code(task.status.value))


@tasks.command("delete")
def delete_task(task_id: TaskId, server: Server = None, api_key: ApiKey = None) -> None:
    """Delete a task and all its data for good (cancelled first if it is still live);
    the site learnings it left stay."""
    with connect(server, api_key) as client:
        client.delete_task(task_id)
    typer.echo(f"{task_id} deleted")


def register(app: typer.Typer) -> None:
    app.add_typer(tasks, name="tasks")
