"""`<secret:name>` typing on real Chromium (issue 12): the field gets the value only on an
allowed domain, and renders it as dots so step screenshots never show it."""

from __future__ import annotations

import pytest

from app.secrets import SecretEntry
from tests.integration.browser.test_session import _open, _ref
from workers.adapters.secrets import SecretVault
from workers.agent.protocols import Action
from workers.agent.toolerrors import ToolError
from workers.browser.session import PageSession

pytestmark = pytest.mark.browser

VALUE = "Xy-secret-77"


async def _type_secret(session: PageSession, port: int, domains: tuple[str, ...]) -> object:
    session.secrets = SecretVault({"nick": SecretEntry(value=VALUE, domains=domains)})
    await _open(session, port)
    await session.observe()
    ref = _ref(session, "Nickname")
    return await session.execute(Action("type", {"ref": ref, "text": "<secret:nick>"}))


async def test_secret_is_typed_and_masked_on_an_allowed_domain(
    session: PageSession, probe_port: int
) -> None:
    result = await _type_secret(session, probe_port, ("127.0.0.1",))
    assert getattr(result, "success", False), result
    field = session.page.locator("#nick")
    assert await field.input_value() == VALUE
    security = await field.evaluate("el => getComputedStyle(el).webkitTextSecurity")
    assert security == "disc"  # a text input typed with a secret screenshots as dots


async def test_secret_is_refused_on_another_domain(session: PageSession, probe_port: int) -> None:
    result = await _type_secret(session, probe_port, ("bank.test",))
    assert getattr(result, "error", None) == ToolError.secret_not_allowed
    assert await session.page.locator("#nick").input_value() == ""


async def test_fill_form_types_a_secret_token_once_and_keeps_its_value(
    session: PageSession, probe_port: int
) -> None:
    """Relay finding (issue 33, roundup-14): fill_form's re-fill pass compared the field's
    value with the token, found them different and typed `<secret:...>` literally over the
    password (the login failed)."""
    session.secrets = SecretVault({"nick": SecretEntry(value=VALUE, domains=("127.0.0.1",))})
    await _open(session, probe_port)
    await session.observe()
    ref = _ref(session, "Nickname")
    action = Action("fill_form", {"fields": [{"ref": ref, "value": "<secret:nick>"}]})
    result = await session.execute(action)
    assert result.success, result
    assert await session.page.locator("#nick").input_value() == VALUE
    assert "re-filled" not in " ".join(result.tried) and VALUE not in result.reason
