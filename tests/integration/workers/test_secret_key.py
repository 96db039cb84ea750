"""A worker whose WEBAGENT_SECRETS_KEY cannot open a task's sealed secrets fails the task
with a configuration error that says so, instead of leaving it running (issue 12)."""

from __future__ import annotations

import pytest
from cryptography.fernet import Fernet

from app.contracts import ErrorCode, TaskStatus
from app.secrets import SecretEntry, seal
from tests.integration.workers.test_jobs import Sessions, embedded, wait_terminal
from tests.support.llm_server import ScriptedLLMServer
from tests.support.sites import TestSite
from workers.process.embedded import EmbeddedWorkers

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.both_databases]
__all__ = ["embedded"]  # the fixture, used by name


async def test_secrets_sealed_under_another_key_fail_the_task_clearly(
    embedded: tuple[EmbeddedWorkers, object],
    sessions: Sessions,
    llm_server: ScriptedLLMServer,
    test_site: TestSite,
) -> None:
    from app.db import repositories

    workers, _ = embedded
    sealed = seal({"pw": SecretEntry(value="pw-under-other-key")}, Fernet.generate_key())
    async with sessions() as s:
        task, _ = await repositories.create_task(
            s,
            tenant_id="default",
            instruction="log in",
            start_url=test_site.url("/"),
            max_steps=3,
            timeout_s=30.0,
            allowed_domains=(),
            metadata={},
            secret_names=("pw",),
            secrets_sealed=sealed,
        )
        await s.commit()
    workers.submit(task.id)
    done = await wait_terminal(sessions, task.id)
    assert done.status == TaskStatus.failed and done.error == ErrorCode.configuration
    assert "WEBAGENT_SECRETS_KEY" in (done.error_detail or "")
    assert llm_server.requests == []
