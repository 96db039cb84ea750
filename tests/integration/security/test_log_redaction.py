"""No secret value or API key reaches a log line (app/logredact.py)."""

from __future__ import annotations

import gc
import logging
import re
from collections.abc import AsyncIterator

import pytest
from playwright.async_api import Browser, Page

from app import logredact
from app.auth import new_key
from app.secrets import SecretEntry
from app.settings import Settings
from workers.adapters.secrets import SecretVault
from workers.agent.protocols import Action
from workers.browser.session import PageSession

VALUE = "Canary-Log-5521"
log = logging.getLogger("webagent.test.redaction")


@pytest.fixture(autouse=True)
def _installed() -> None:
    logredact.install()  # what create_app() and WorkerRuntime() do


def test_registered_values_and_api_keys_are_masked_in_every_part_of_a_record(
    caplog: pytest.LogCaptureFixture,
) -> None:
    vault = SecretVault({"pw": SecretEntry(value=VALUE)})
    key = new_key()
    caplog.set_level(logging.DEBUG)
    log.info("typed %s for %r", VALUE, {"pw": VALUE})
    log.warning(f"key {key} rejected")
    try:
        raise RuntimeError(f"login failed with {VALUE}")
    except RuntimeError:
        log.exception("step failed")
    log.info("with stack %s", VALUE, stack_info=True)
    text = caplog.text + "".join(str(vars(r)) for r in caplog.records)
    assert len(caplog.records) == 4
    assert VALUE not in text and key not in text
    assert "typed *** for {'pw': '***'}" in caplog.text
    assert "wa_***" in caplog.text and "login failed with ***" in caplog.text
    del vault


def test_a_finished_tasks_values_are_no_longer_held(caplog: pytest.LogCaptureFixture) -> None:
    vault = SecretVault({"pw": SecretEntry(value="Short-Lived-99")})
    del vault
    gc.collect()
    caplog.set_level(logging.INFO)
    log.info("Short-Lived-99 is an ordinary string once its task is gone")
    assert "Short-Lived-99" in caplog.text


@pytest.fixture
async def page(chromium_browser: Browser) -> AsyncIterator[Page]:
    context = await chromium_browser.new_context()
    try:
        yield await context.new_page()
    finally:
        await context.close()


@pytest.mark.browser
async def test_a_secret_typed_by_the_agent_never_appears_in_logs(
    page: Page, chromium_path: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The page echoes what it receives to its console, and a verbose operator logs the
    console: the typed value reaches a log call and comes out masked."""
    await page.set_content(
        "<label>Password <input id=pw></label>"
        "<script>document.getElementById('pw').addEventListener('change',"
        " e => console.log('received ' + e.target.value));</script>"
    )
    seen: list[str] = []

    def on_console(message: object) -> None:
        text = message.text  # type: ignore[attr-defined]
        seen.append(text)
        log.info("page console: %s", text)

    page.on("console", on_console)
    session = await PageSession.open(page, Settings(chromium_path=chromium_path))
    session.secrets = SecretVault({"pw": SecretEntry(value=VALUE)})
    caplog.set_level(logging.DEBUG)
    observation = await session.observe()
    ref = re.search(r"\[(\d+:\d+)\] textbox \"Password\"", observation.text)
    assert ref is not None, observation.text
    result = await session.execute(Action("type", {"ref": ref[1], "text": "<secret:pw>"}))
    assert result.success, result.reason
    async with page.expect_console_message(lambda m: m.text.startswith("received")):
        await page.evaluate(
            "() => document.getElementById('pw').dispatchEvent(new Event('change'))"
        )
    assert any(VALUE in s for s in seen)  # the value really went through a log call
    assert "page console: received ***" in caplog.text
    assert VALUE not in caplog.text
