"""One description per API operation, shared by the sync and the async client.

Each function returns the request to send and the model its answer parses into; the clients
only send it. Paths and models follow docs/openapi.json (operationId in each docstring).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel, RootModel

from webagent_client.errors import error_for
from webagent_client.models import (
    ApprovalList,
    ApprovalOut,
    ArtifactOut,
    Decision,
    DomainOut,
    Forgotten,
    GuideList,
    LedgerOut,
    ProfileList,
    ProfileOut,
    StepList,
    TaskCreate,
    TaskOut,
    TaskPage,
    TaskStatus,
)

M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class Call(Generic[M]):
    method: str
    path: str
    model: type[M] | None  # None: no body expected (204)
    json: Any = None
    params: dict[str, Any] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)

    def request(self) -> dict[str, Any]:
        """Keyword arguments for httpx's `request`."""
        kw: dict[str, Any] = {"params": self.params, "headers": self.headers}
        if self.json is not None:
            kw["json"] = self.json
        return kw

    def parse(self, response: httpx.Response) -> M | None:
        """The answer as its model; raises the typed error of a problem body."""
        if response.is_error:
            raise error_for(response)
        if self.model is None:
            return None
        return self.model.model_validate_json(response.content)


def _id(value: str) -> str:
    return quote(value, safe="")


def submit_task(body: TaskCreate, idempotency_key: str | None) -> Call[TaskOut]:
    """submitTask: POST /v1/tasks (202)."""
    headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
    payload = body.model_dump(mode="json", exclude_unset=True)
    return Call("POST", "/v1/tasks", TaskOut, json=payload, headers=headers)


def get_task(task_id: str) -> Call[TaskOut]:
    """getTask: GET /v1/tasks/{task_id}."""
    return Call("GET", f"/v1/tasks/{_id(task_id)}", TaskOut)


def list_tasks(
    status: TaskStatus | str | None,
    domain: str | None,
    limit: int,
    cursor: str | None,
    q: str | None = None,
) -> Call[TaskPage]:
    """listTasks: GET /v1/tasks, newest first; `next_cursor` pages on; `q` searches the
    instruction, start URL and answer."""
    params = {"status": status, "domain": domain, "limit": limit, "cursor": cursor, "q": q}
    query = {k: str(v) for k, v in params.items() if v is not None}
    return Call("GET", "/v1/tasks", TaskPage, params=query)


def cancel_task(task_id: str) -> Call[TaskOut]:
    """cancelTask: POST /v1/tasks/{task_id}/cancel (202)."""
    return Call("POST", f"/v1/tasks/{_id(task_id)}/cancel", TaskOut)


def list_steps(task_id: str) -> Call[StepList]:
    """listSteps: GET /v1/tasks/{task_id}/steps."""
    return Call("GET", f"/v1/tasks/{_id(task_id)}/steps", StepList)


def get_ledger(task_id: str) -> Call[LedgerOut]:
    """getLedger: GET /v1/tasks/{task_id}/ledger."""
    return Call("GET", f"/v1/tasks/{_id(task_id)}/ledger", LedgerOut)


def create_profile(name: str) -> Call[ProfileOut]:
    """createProfile: POST /v1/profiles (201)."""
    return Call("POST", "/v1/profiles", ProfileOut, json={"name": name})  # the service checks it


def list_profiles() -> Call[ProfileList]:
    """listProfiles: GET /v1/profiles."""
    return Call("GET", "/v1/profiles", ProfileList)


def delete_profile(name: str) -> Call[BaseModel]:
    """deleteProfile: DELETE /v1/profiles/{name} (204)."""
    return Call("DELETE", f"/v1/profiles/{_id(name)}", None)


def events_path(task_id: str) -> str:
    """streamEvents: GET /v1/tasks/{task_id}/events (SSE)."""
    return f"/v1/tasks/{_id(task_id)}/events"


def delete_task(task_id: str) -> Call[BaseModel]:
    """deleteTask: DELETE /v1/tasks/{task_id} (204)."""
    return Call("DELETE", f"/v1/tasks/{_id(task_id)}", None)


def list_approvals(task_id: str) -> Call[ApprovalList]:
    """listApprovals: GET /v1/tasks/{task_id}/approvals."""
    return Call("GET", f"/v1/tasks/{_id(task_id)}/approvals", ApprovalList)


def decide_approval(task_id: str, approval_id: str, decision: Decision) -> Call[ApprovalOut]:
    """decideApproval: POST /v1/tasks/{task_id}/approvals/{approval_id}."""
    path = f"/v1/tasks/{_id(task_id)}/approvals/{_id(approval_id)}"
    return Call("POST", path, ApprovalOut, json={"decision": decision.value})


class ArtifactList(RootModel[list[ArtifactOut]]):
    """listArtifacts answers a bare JSON array."""


def list_artifacts(task_id: str) -> Call[ArtifactList]:
    """listArtifacts: GET /v1/tasks/{task_id}/artifacts."""
    return Call("GET", f"/v1/tasks/{_id(task_id)}/artifacts", ArtifactList)


def artifact_path(task_id: str, artifact_id: str) -> str:
    """getArtifact: GET /v1/tasks/{task_id}/artifacts/{artifact_id} (bytes, or a 307 to a
    signed URL)."""
    return f"/v1/tasks/{_id(task_id)}/artifacts/{_id(artifact_id)}"


def get_domain(domain: str) -> Call[DomainOut]:
    """getDomain: GET /v1/domains/{domain}."""
    return Call("GET", f"/v1/domains/{_id(domain)}", DomainOut)


def forget_domain(domain: str) -> Call[Forgotten]:
    """forgetDomain: DELETE /v1/domains/{domain}/learnings."""
    return Call("DELETE", f"/v1/domains/{_id(domain)}/learnings", Forgotten)


def list_guides() -> Call[GuideList]:
    """listGuides: GET /v1/guides."""
    return Call("GET", "/v1/guides", GuideList)
