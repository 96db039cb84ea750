"""Approval requests seen by `webagent run` (relay after fidelity wave 3, finding 9: a click
held for a person's approval made the CLI wait in silence about 100 s).

On `approval.requested` the run prints what waits (the action, the rule that held it, the
page) and the exact calls that decide it. At a terminal (stdin a TTY, no --json) it asks y/n
and posts the answer; otherwise it prints the request as one JSON line, so a script or a
person at another terminal can decide it with the printed command. The API key is never
printed: the commands name the environment variable that holds it.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

import httpx

from app.contracts import EventType
from workers.cli.client import ApiError, StreamedEvent, TaskClient

KEY_VARIABLE = "WEBAGENT_CLIENT_API_KEY"


@dataclass(frozen=True)
class Pending:
    """One approval request as the person deciding it needs it."""

    task_id: str
    approval_id: str
    kind: str
    action: str  # what would run: "click on button 'Confirm order' ('confirm')"
    rule: str  # the rule that held it: keyword, form_action, download, ...
    url: str
    expires_at: str

    def path(self) -> str:
        return f"/v1/tasks/{self.task_id}/approvals/{self.approval_id}"

    def command(self, base_url: str, decision: str, *, keyed: bool) -> str:
        """The curl call that posts `decision` (approve | deny)."""
        auth = f' -H "Authorization: Bearer ${KEY_VARIABLE}"' if keyed else ""
        body = shlex.quote(json.dumps({"decision": decision}))
        url = shlex.quote(base_url.rstrip("/") + self.path())
        return f"curl -X POST -H 'Content-Type: application/json'{auth} -d {body} {url}"


def pending(task_id: str, data: Mapping[str, Any], details: Mapping[str, Any]) -> Pending:
    """From the event's data and the approval's details (GET .../approvals: the rule)."""
    return Pending(
        task_id=task_id,
        approval_id=str(data.get("approval_id", "")),
        kind=str(data.get("kind", "")),
        action=str(data.get("reason", "")),
        rule=str(details.get("rule") or details.get("kinds") or data.get("kind", "")),
        url=str(data.get("url") or ""),
        expires_at=str(data.get("expires_at") or ""),
    )


class ApprovalDesk:
    """Handles the approval events of one followed task."""

    def __init__(
        self,
        client: TaskClient,
        task_id: str,
        base_url: str,
        *,
        echo: Callable[[str], None],
        ask: Callable[[str], bool] | None,
        keyed: bool = False,
    ) -> None:
        self.client, self.task_id, self.base_url = client, task_id, base_url
        self.echo, self.ask, self.keyed = echo, ask, keyed

    def on_event(self, event: StreamedEvent) -> None:
        if event.type != EventType.approval_requested:
            return
        item = pending(self.task_id, event.data, self._details(event.data))
        approve = item.command(self.base_url, "approve", keyed=self.keyed)
        deny = item.command(self.base_url, "deny", keyed=self.keyed)
        if self.ask is None:  # --json or no terminal: one line a script can read
            line = {"event": event.type, **asdict(item), "approve": approve, "deny": deny}
            self.echo(json.dumps(line))
            return
        self.echo(
            f"approval needed ({item.kind}, rule {item.rule}): {item.action}\n"
            f"  page: {item.url}\n  approve: {approve}\n  deny:    {deny}"
        )
        self._decide(item, "approve" if self.ask("Approve this action?") else "deny")

    def _details(self, data: Mapping[str, Any]) -> Mapping[str, Any]:
        """The request's details (its rule); empty when the server does not say."""
        try:
            items = self.client.list_approvals(self.task_id)
        except (ApiError, httpx.HTTPError):
            return {}
        for item in items:
            if item.get("id") == data.get("approval_id"):
                return dict(item.get("details") or {})
        return {}

    def _decide(self, item: Pending, decision: str) -> None:
        try:
            self.client.decide_approval(self.task_id, item.approval_id, decision)
        except (ApiError, httpx.HTTPError) as exc:  # decided elsewhere meanwhile, or expired
            self.echo(f"could not {decision}: {exc}")
            return
        self.echo(f"{decision}d: the task resumes")
