"""Schemathesis over every operation of the OpenAPI schema, against the real app on a live
server: 0 server errors, 0 undocumented statuses, 0 responses outside their schema.

Bounded (EXAMPLES per operation) so it stays a suite test, not a fuzzing campaign.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
import uvicorn
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)

from app.db.migrate import upgrade
from app.main import create_app
from tests.integration.api.conftest import RecordingDispatcher, make_settings

EXAMPLES = 25
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    negative_data_rejection,
]


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app with its lifespan on an ephemeral 127.0.0.1 port, in a thread."""
    db = Path(tmp_path_factory.mktemp("schemathesis")) / "webagent.db"
    url = f"sqlite+aiosqlite:///{db}"
    upgrade(url)
    app = create_app(make_settings(url), dispatcher=RecordingDispatcher())
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="error", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "server did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    server.should_exit = True
    thread.join(30)
    sock.close()


# the schema as the app serves it at /openapi.json (create_app opens nothing until lifespan)
schema = schemathesis.openapi.from_dict(
    create_app(make_settings("sqlite+aiosqlite:///:memory:")).openapi()
)


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
)
def test_every_operation_conforms(case: schemathesis.Case, base_url: str) -> None:
    case.call_and_validate(base_url=base_url, checks=CHECKS, timeout=10)
