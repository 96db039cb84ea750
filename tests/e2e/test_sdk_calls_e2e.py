"""clients/python beyond submit/get/list/events/cancel (issue 37 §3), each call against the
running service: approvals (list/approve/deny), artifacts (list/download), delete, domains
(get/forget), guides, the list's `q`, and `result.data` as the caller's pydantic model."""

from __future__ import annotations

import time
from typing import Any

import pytest
from pydantic import BaseModel
from webagent_client import Client, NotFoundError, TaskCreate, TaskStatus, data_as

from tests.e2e.conftest import ROUTES, Service
from tests.e2e.test_approvals_e2e import MEMBERS, Site, site  # noqa: F401 (fixture)
from tests.support.llm_server import Reply, tool_reply
from tests.support.policies import HEADING, PRICE, cheapest_product_policy, latest_observation
from tests.support.sites import TestSite, cheapest

pytestmark = [
    pytest.mark.browser,
    pytest.mark.services,
    pytest.mark.parametrize("service", ["embedded"], indirect=True),
]

TYPED = "report the cheapest product as typed data"
SCHEMA = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "price": {"type": "string"}},
    "required": ["name", "price"],
}


class Product(BaseModel):
    name: str
    price: str


def typed_policy(request: dict[str, Any]) -> Reply:
    """The shop task, finishing with `done(data=...)` on the product page."""
    obs = latest_observation(request)
    heading, price = HEADING.search(obs), PRICE.search(obs)
    if heading and price and "Add to cart" in obs:
        data = {"name": heading["text"], "price": price.group(0)}
        answer = f"{data['name']} at {data['price']}"
        return tool_reply(("done", {"answer": answer, "success": True, "data": data}))
    return cheapest_product_policy(request)


@pytest.fixture
def typed_route() -> Any:
    ROUTES[TYPED] = typed_policy
    yield
    ROUTES.pop(TYPED, None)


def pending(client: Client, task_id: str) -> str:
    deadline = time.monotonic() + 60
    while not (items := [a for a in client.list_approvals(task_id) if a.status == "pending"]):
        task = client.get_task(task_id)
        assert time.monotonic() < deadline, (task.status, client.list_approvals(task_id))
        time.sleep(0.1)
    return items[0].id


def test_approve_artifacts_download_and_delete(service: Service, site: Site) -> None:  # noqa: F811
    """A challenge page is handed to a person: approve once it is cleared."""
    site.solved = False
    with Client(service.base_url) as client:
        task = client.submit_task(
            TaskCreate(instruction=MEMBERS, start_url=f"{site.url}/protected")
        )
        approval_id = pending(client, task.id)
        site.solved = True
        decided = client.approve(task.id, approval_id)
        done = client.wait_task(task.id, timeout_s=60)
        artifacts = client.list_artifacts(task.id)
        shots = [a for a in artifacts if a.kind in ("screenshot", "approval")]
        body = client.download_artifact(task.id, shots[0].id)
        found = client.list_tasks(q="MEMBERS area").items
        client.delete_task(task.id)
        with pytest.raises(NotFoundError):
            client.get_task(task.id)
    assert decided.status == "approved"
    assert done.status == TaskStatus.succeeded, done
    assert {"approval", "screenshot"} <= {a.kind for a in artifacts}
    assert len(body) == shots[0].size and body[:2] in (b"\xff\xd8", b"\x89P")
    assert task.id in [t.id for t in found]


def test_deny_fails_the_task(service: Service, site: Site) -> None:  # noqa: F811
    site.solved = False
    with Client(service.base_url) as client:
        task = client.submit_task(
            TaskCreate(instruction=MEMBERS, start_url=f"{site.url}/protected")
        )
        decided = client.deny(task.id, pending(client, task.id))
        done = client.wait_task(task.id, timeout_s=60)
    assert decided.status == "denied"
    assert done.status == TaskStatus.failed and done.error == "bot_blocked"


def test_result_data_as_the_callers_model(
    service: Service, e2e_site: TestSite, typed_route: Any
) -> None:
    with Client(service.base_url) as client:
        body = TaskCreate(instruction=TYPED, start_url=e2e_site.url("/shop"), output_schema=SCHEMA)
        task = client.submit_task(body)
        typed = client.wait_typed(task.id, Product, timeout_s=60)
    assert typed.task.status == TaskStatus.succeeded, typed.task
    assert isinstance(typed.data, Product) and typed.data.name == cheapest().name
    assert data_as(typed.task, Product) == typed.data


def test_domains_and_guides(service: Service, e2e_site: TestSite) -> None:
    """get_domain answers what was learned (404 when nothing), forget_domain drops it."""
    with Client(service.base_url) as client:
        try:
            memory = client.get_domain("127.0.0.1")
            known = len(memory.learnings) + len(memory.dead_ends)
        except NotFoundError:
            known = 0
        forgotten = client.forget_domain("127.0.0.1")
        with pytest.raises(NotFoundError):
            client.get_domain("127.0.0.1")
        guides = client.list_guides()
    assert forgotten.domain == "127.0.0.1" and forgotten.removed >= known
    assert isinstance(guides, list)
