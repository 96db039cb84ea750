"""The published OpenAPI document: stable operation ids, one error shape, bearer auth.

`operation_id` names every route for generated clients (submitTask, getTask, ...) instead of
FastAPI's path-derived ids; `install` post-processes the schema so every route has a
description, every error status (422 included) documents the one error body, RFC 9457 problem
details as `application/problem+json` (app/api/problems.py), and each SSE event type has a
schema. The committed copy is
docs/openapi.json: `make openapi` rewrites it (`python -m app.openapi`), and
tests/unit/api/test_openapi_drift.py fails when the two differ.
"""

from __future__ import annotations

import json
import re
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute
from pydantic import BaseModel, Field

from app.api.problems import MEDIA_TYPE, ProblemCode
from app.contracts import ErrorCode, EventType, TaskStatus
from app.event_docs import EVENT_DATA, component_name

# route function name -> operationId; anything else is the camelCased function name
OPERATION_IDS = {
    "task_events": "streamEvents",
    "get_approvals": "listApprovals",
    "decide": "decideApproval",
    "approval_screenshot": "getApprovalScreenshot",
    "healthz": "getHealth",
    "readyz": "getReadiness",
    "metrics_endpoint": "getMetrics",
}
# for routes whose function has no docstring
DESCRIPTIONS = {
    "getTask": "The task: status, result (answer, success, structured data), usage, webhook.",
    "listSteps": "The run's steps assembled from its events, with screenshot links.",
    "getScreenshot": "The JPEG screenshot the agent saw at a step.",
    "getLedger": "The run's latest Ledger: goal, plan, checklist, facts and dead ends.",
    "listApprovals": "The task's approval requests, pending and decided.",
}
SUMMARIES = {
    "submitTask": "Submit a task",
    "listTasks": "List tasks",
    "getTask": "Get a task",
    "cancelTask": "Cancel a task",
    "listSteps": "List a task's steps",
    "getScreenshot": "Get a step's screenshot",
    "getLedger": "Get a task's ledger",
    "streamEvents": "Stream a task's events (SSE)",
    "listApprovals": "List a task's approvals",
    "decideApproval": "Approve or deny",
    "getApprovalScreenshot": "Get an approval's screenshot",
    "retryWebhook": "Resend a task's webhook",
    "listProfiles": "List browser profiles",
    "createProfile": "Create a browser profile",
    "getProfile": "Get a browser profile",
    "deleteProfile": "Delete a browser profile",
    "getHealth": "Liveness",
    "liveView": "Watch a running task's browser (live frames)",
    "takeOver": "Take over the browser (pause the agent)",
    "handBack": "Hand the browser back to the agent",
    "liveInput": "Send a click, scroll or key to the page",
    "getReadiness": "Readiness",
    "getMetrics": "Prometheus metrics",
}
# request bodies by schema: named, complete examples (the docs showed "string" everywhere)
REQUEST_EXAMPLES: dict[str, dict[str, dict[str, Any]]] = {
    "TaskCreate": {
        "price": {
            "summary": "Read a price as structured data",
            "value": {
                "instruction": "Find the price of the cheapest 2-person tent, in EUR",
                "start_url": "https://shop.example.com/",
                "allowed_domains": ["shop.example.com"],
                "max_steps": 25,
                "output_schema": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "price_eur": {"type": "number"}},
                    "required": ["name", "price_eur"],
                    "additionalProperties": False,
                },
            },
        },
        "login": {
            "summary": "Log in with a secret, ask a person before paying, notify a webhook",
            "value": {
                "instruction": "Log in as alice and download the latest invoice",
                "start_url": "https://billing.example.com/login",
                "secrets": {
                    "PASSWORD": {"value": "correct-horse-battery", "domains": ["example.com"]}
                },
                "approval_policy": "sensitive",
                "profile": "billing",
                "save_profile": True,
                "webhook_url": "https://hooks.example.com/webagent",
                "webhook_events": ["approval.requested", "task.finished"],
            },
        },
        "local": {
            "summary": "A page on this machine (needs WEBAGENT_ALLOW_PRIVATE_NETWORKS=true)",
            "value": {
                "instruction": "What is the headline of this page?",
                "start_url": "http://127.0.0.1:8080/index.html",
                "timeout_s": 120,
            },
        },
    },
    "ProfileCreate": {"shop": {"summary": "A profile for one site", "value": {"name": "shop"}}},
    "LiveInput": {
        "click": {
            "summary": "Click a point of the live picture",
            "value": {"kind": "click", "x": 0.42, "y": 0.31},
        },
        "scroll": {
            "summary": "Scroll down 400 pixels",
            "value": {"kind": "wheel", "x": 0.5, "y": 0.5, "dy": 400},
        },
        "key": {"summary": "Press Enter", "value": {"kind": "key", "key": "Enter"}},
    },
    "GuideIn": {
        "site": {
            "summary": "How to order on one site",
            "value": {
                "domain": "shop.example.com",
                "title": "Ordering on the shop",
                "body": "## Filters\nUse the colour filter before searching.\n\n## Basket\n"
                "The basket link is in the footer.",
            },
        },
        "every": {
            "summary": "A rule for every site",
            "value": {"title": "House rules", "body": "Never create an account; buy as a guest."},
        },
    },
    "ExploreCreate": {
        "shop": {
            "summary": "Map a shop, two clicks deep",
            "value": {"url": "https://shop.example.com/", "max_depth": 2, "max_pages": 30},
        }
    },
    "ApprovalDecisionIn": {
        "approve": {"summary": "Let the agent go on", "value": {"decision": "approve"}},
        "deny": {"summary": "Refuse the action", "value": {"decision": "deny"}},
    },
}
BEARER: dict[str, list[str]] = {"bearerAuth": []}
OUTAGE = "the database or the queue is unreachable; retry after the Retry-After seconds"
ERROR_STATUSES = {"400", "401", "403", "404", "409", "413", "422", "429", "500", "503"}
PROBLEM_CONTENT = {MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/ProblemDetails"}}}


class FieldError(BaseModel):
    """One refused field of a 422."""

    loc: list[str | int] = Field(
        description="where: body, query, path or header, then the field",
        examples=[["body", "max_steps"]],
    )
    msg: str = Field(examples=["Input should be a valid integer"])
    type: str = Field(description="the kind of refusal", examples=["int_parsing"])
    input: Any = Field(default=None, description="the refused value, strings cut to 100 characters")


class ProblemDetails(BaseModel):
    """Every error answer (RFC 9457, `application/problem+json`)."""

    type: str = Field(
        description="a URN naming the code", examples=["urn:webagent:problem:not_found"]
    )
    title: str = Field(description="the HTTP status phrase", examples=["Not Found"])
    status: int = Field(examples=[404])
    detail: str = Field(
        description="what went wrong, in one sentence", examples=["task 3f2a9c not found"]
    )
    instance: str = Field(description="the request path", examples=["/v1/tasks/3f2a9c"])
    code: ProblemCode = Field(description="stable; branch on this, not on the wording")
    errors: list[FieldError] | None = Field(default=None, description="on 422: each refused field")
    unavailable: str | None = Field(
        default=None, description="on 503: the dependency that is down, e.g. database"
    )


class EventSchema(BaseModel):
    """One server-sent event: `event:` is `type`, `id:` is `seq`, `data:` this object."""

    id: str
    task_id: str
    seq: int = Field(description="strictly increasing per task; resume with Last-Event-ID")
    ts: str = Field(description="ISO 8601 time")
    type: EventType
    data: dict[str, Any]


def operation_id(route: APIRoute) -> str:
    """Stable camelCase id: submit_task -> submitTask."""
    if route.name in OPERATION_IDS:
        return OPERATION_IDS[route.name]
    head, *rest = route.name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def _default_content(response: dict[str, Any]) -> bool:
    """No content of its own, or FastAPI's 422 body (the readiness 503 keeps its report)."""
    schema = response.get("content", {}).get("application/json", {}).get("schema", {})
    return "content" not in response or schema.get("$ref", "").endswith("/HTTPValidationError")


def _document_errors(path: str, operation: dict[str, Any]) -> None:
    if path.startswith("/v1/"):
        operation["responses"].setdefault("503", {"description": OUTAGE})
    if "requestBody" in operation:
        operation["responses"].setdefault("400", {"description": "the body is not valid JSON"})
    if operation.get("security") == [BEARER]:
        operation["security"] = [BEARER, {}]  # keys are optional unless API_KEYS_REQUIRED
    for code, response in operation.get("responses", {}).items():
        if code in ERROR_STATUSES and _default_content(response):
            response["content"] = PROBLEM_CONTENT
        response.setdefault("description", "error")
        if not response["description"]:
            response["description"] = "error"


def _examples(operation: dict[str, Any]) -> None:
    """Named examples on a JSON request body whose schema has them (REQUEST_EXAMPLES)."""
    content = operation.get("requestBody", {}).get("content", {}).get("application/json")
    if content is None:
        return
    name = content.get("schema", {}).get("$ref", "").rsplit("/", 1)[-1]
    if name in REQUEST_EXAMPLES:
        content["examples"] = REQUEST_EXAMPLES[name]


def _describe(operation: dict[str, Any], explicit: dict[str, str]) -> None:
    op_id = operation.get("operationId", "")
    if not operation.get("description"):
        operation["description"] = DESCRIPTIONS.get(op_id, "")
    first = operation["description"].strip().split("\n")[0]
    fallback = re.split(r"(?<=[.;:])\s", first)[0].rstrip(".;:")[:80] or op_id
    operation["summary"] = explicit.get(op_id) or SUMMARIES.get(op_id) or fallback


def build(app: FastAPI) -> dict[str, Any]:
    """The document FastAPI would serve, with the additions above."""
    spec = get_openapi(
        title=app.title,
        version=app.version,
        summary=app.summary,
        description=app.description,
        routes=app.routes,
    )
    components = spec.setdefault("components", {}).setdefault("schemas", {})
    for model in (ProblemDetails, EventSchema):
        components[model.__name__] = model.model_json_schema(
            ref_template="#/components/schemas/{model}"
        )
    components["TaskStatus"] = {"type": "string", "enum": [s.value for s in TaskStatus]}
    components["ErrorCode"] = {"type": "string", "enum": [c.value for c in ErrorCode]}
    for name in ("EventSchema", "ProblemDetails"):
        components.update(components[name].pop("$defs", {}))
    for unused in ("HTTPValidationError", "ValidationError"):  # FastAPI's 422, replaced
        components.pop(unused, None)
    for event_type, data_model in EVENT_DATA.items():
        schema = data_model.model_json_schema(ref_template="#/components/schemas/{model}")
        components.update(schema.pop("$defs", {}))
        components[component_name(event_type)] = schema
    components["EventSchema"]["description"] += " The `data` of each type: " + ", ".join(
        f"{t} -> {component_name(t)}" for t in EVENT_DATA
    )
    explicit = {
        operation_id(r): r.summary for r in app.routes if isinstance(r, APIRoute) and r.summary
    }
    for path, path_item in spec.get("paths", {}).items():
        for operation in path_item.values():
            _document_errors(path, operation)
            _describe(operation, explicit)
            _examples(operation)
    stream = spec["paths"].get("/v1/tasks/{task_id}/events", {}).get("get")
    if stream is not None:
        stream["responses"]["200"]["content"] = {
            "text/event-stream": {"schema": {"$ref": "#/components/schemas/EventSchema"}}
        }
    return spec


def install(app: FastAPI) -> None:
    """Serve `build(app)` at /openapi.json (computed once)."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = build(app)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def render(spec: dict[str, Any]) -> str:
    return json.dumps(spec, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
