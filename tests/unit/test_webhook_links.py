"""issue 37 §5: links in webhook messages are absolute under WEBAGENT_PUBLIC_BASE_URL."""

from __future__ import annotations

import json
from types import SimpleNamespace

from app.db.models import WebhookDelivery
from app.webhooks import payload


def test_approval_links_are_absolute_under_the_public_base_url() -> None:
    task = SimpleNamespace(id="t1")
    row = WebhookDelivery(event_type="approval.requested", data={"id": "a1"})
    links = json.loads(payload(task, row, "https://agent.example.com/"))["data"]["links"]
    assert links == {
        "run": "https://agent.example.com/runs/t1",
        "approvals": "https://agent.example.com/v1/tasks/t1/approvals",
    }
    assert json.loads(payload(task, row))["data"]["links"]["run"] == "/runs/t1"  # unset: paths
