"""The published API document: committed copy in sync, ids stable, errors and auth documented."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from app.openapi import ERROR_STATUSES, render
from app.openapi_doc import reference_app

COMMITTED = Path(__file__).resolve().parents[3] / "docs" / "openapi.json"
STABLE_IDS = {
    ("post", "/v1/tasks"): "submitTask",
    ("get", "/v1/tasks"): "listTasks",
    ("get", "/v1/tasks/{task_id}"): "getTask",
    ("post", "/v1/tasks/{task_id}/cancel"): "cancelTask",
    ("get", "/v1/tasks/{task_id}/events"): "streamEvents",
    ("post", "/v1/tasks/{task_id}/webhook/retry"): "retryWebhook",
    ("post", "/v1/profiles"): "createProfile",
    ("get", "/v1/profiles"): "listProfiles",
    ("delete", "/v1/profiles/{name}"): "deleteProfile",
}


@pytest.fixture(scope="module")
def spec() -> dict[str, Any]:
    return reference_app().openapi()


def operations(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(m, p, op) for p, item in spec["paths"].items() for m, op in item.items()]


def test_committed_document_matches_the_code(spec: dict[str, Any]) -> None:
    assert COMMITTED.read_text() == render(spec), "docs/openapi.json is stale: run `make openapi`"


def test_operation_ids_are_stable_and_camel_case(spec: dict[str, Any]) -> None:
    ids = {(m, p): op["operationId"] for m, p, op in operations(spec)}
    assert {k: ids.get(k) for k in STABLE_IDS} == STABLE_IDS
    assert all(re.fullmatch(r"[a-z]+(?:[A-Z][a-z0-9]*)*", i) for i in ids.values()), ids
    assert len(set(ids.values())) == len(ids)


def test_every_route_is_described_with_documented_errors(spec: dict[str, Any]) -> None:
    for method, path, op in operations(spec):
        assert op.get("description", "").strip(), (method, path)
        assert op.get("summary", "").strip(), (method, path)
        for status, response in op["responses"].items():
            assert response.get("description"), (method, path, status)
            if status in ERROR_STATUSES and path != "/readyz":
                schema = response["content"]["application/problem+json"]["schema"]
                assert schema["$ref"].endswith("/ProblemDetails"), (method, path, status)
        if path.startswith("/v1/"):
            assert op.get("security") == [{"bearerAuth": []}, {}], (method, path)
            assert "503" in op["responses"], (method, path)


def test_auth_scheme_and_shared_schemas(spec: dict[str, Any]) -> None:
    scheme = spec["components"]["securitySchemes"]["bearerAuth"]
    assert (scheme["type"], scheme["scheme"]) == ("http", "bearer")
    schemas = spec["components"]["schemas"]
    problem = schemas["ProblemDetails"]
    assert {"type", "title", "status", "detail", "instance", "code"} <= set(problem["required"])
    assert "validation_failed" in schemas["ProblemCode"]["enum"]
    assert "HTTPValidationError" not in schemas
    assert "succeeded" in schemas["TaskStatus"]["enum"]
    assert "output_invalid" in schemas["ErrorCode"]["enum"]
    assert "task.finished" in schemas["EventType"]["enum"]
    stream = spec["paths"]["/v1/tasks/{task_id}/events"]["get"]["responses"]["200"]
    assert stream["content"]["text/event-stream"]["schema"]["$ref"].endswith("/EventSchema")
    for event_type in ("task.finished", "action.executed", "llm.call", "approval.requested"):
        name = "EventData_" + event_type.replace(".", "_")
        assert name in schemas and name in schemas["EventSchema"]["description"]
    finished = schemas["EventData_task_finished"]["properties"]
    assert {"status", "answer", "data", "error", "usage"} <= set(finished)


INTERNAL_NOTES = re.compile(r"\bseed \d{3}\b|§|\bApp\.\s?[A-Z]\b|issue \d+")


def texts(node: Any) -> list[str]:
    """Every description and summary in the document."""
    if isinstance(node, dict):
        own = [v for k, v in node.items() if k in ("description", "summary") and isinstance(v, str)]
        return own + [t for v in node.values() for t in texts(v)]
    if isinstance(node, list):
        return [t for v in node for t in texts(v)]
    return []


def test_every_request_body_has_a_real_example(spec: dict[str, Any]) -> None:
    """Issue 23 §7: the docs showed `"string"` for every field of every body."""
    from app.api.approvals import ApprovalDecisionIn
    from app.api.guides import GuideIn
    from app.api.schemas import ProfileCreate, TaskCreate
    from app.api.sites import ExploreCreate
    from app.live import LiveInput

    models = {"TaskCreate": TaskCreate, "ProfileCreate": ProfileCreate}
    models["ApprovalDecisionIn"] = ApprovalDecisionIn
    models["GuideIn"], models["ExploreCreate"] = GuideIn, ExploreCreate
    models["LiveInput"] = LiveInput
    bodies = [(p, op["requestBody"]) for _, p, op in operations(spec) if "requestBody" in op]
    assert len(bodies) >= 3
    for path, body in bodies:
        content = body["content"]["application/json"]
        name = content["schema"]["$ref"].rsplit("/", 1)[-1]
        examples = content.get("examples")
        assert examples, f"{path}: no examples on the request body"
        for example in examples.values():
            models[name].model_validate(example["value"])  # each example is a valid body
            assert "string" not in example["value"].values(), (path, example)


def test_descriptions_speak_to_users_not_to_design_notes(spec: dict[str, Any]) -> None:
    leaks = [t for t in texts(spec) if INTERNAL_NOTES.search(t)]
    assert not leaks, leaks[:5]
