"""type waits for a suggestion list only on evidence (issue 13, per-step overhead): list or
combobox semantics, or autocomplete=off together with a field that listens to typing itself
or typing that sent a request. A plain autocomplete=off field (a login form) costs no wait."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from playwright.async_api import Page

from app.settings import Settings
from tests.integration.browser.served import served
from workers.agent.protocols import Action
from workers.browser.runtime.scripts import js
from workers.browser.session import PageSession

pytestmark = pytest.mark.browser

ORIGIN = "http://suggest.test"
PAGE = """<!doctype html><html><body>
<input id="plain" aria-label="Plain" autocomplete="off">
<input id="keyed" aria-label="Keyed" autocomplete="off">
<input id="combo" aria-label="Combo" role="combobox">
<input id="open" aria-label="Open">
<script>
document.getElementById('keyed').addEventListener('input', () => {});
</script></body></html>"""


@pytest.fixture
async def plain(page: Page, settings: Settings) -> AsyncIterator[PageSession]:
    async with served(page, settings, ORIGIN, {"/": (PAGE, "text/html")}) as s:
        yield s


async def _waits(s: PageSession, field: str, sent: int = 0) -> bool:
    """True when verify_suggest.js waits for a list (0 = waited, none came), False at -1."""
    el = await s.page.query_selector(f"#{field}")
    assert el is not None
    added = int(await el.evaluate(js("verify_suggest.js"), {"ms": 30, "sent": sent}))
    return added >= 0


@pytest.mark.parametrize(
    ("field", "sent", "waits"),
    [
        ("plain", 0, False),  # autocomplete=off alone is no evidence
        ("plain", 1, True),  # ... unless the typing sent a request
        ("keyed", 0, True),  # ... or the field listens to typing itself
        ("combo", 0, True),  # combobox semantics
        ("open", 1, False),  # no hint at all
    ],
)
async def test_the_suggestion_wait_needs_evidence(
    plain: PageSession, field: str, sent: int, waits: bool
) -> None:
    assert await _waits(plain, field, sent) is waits


async def test_typing_into_a_plain_autocomplete_off_field_is_verified_without_a_list(
    plain: PageSession,
) -> None:
    await plain.observe()
    assert plain.last is not None
    ref = next(n.ref for n in plain.last.nodes if n.name == "Plain")
    result = await plain.execute(Action("type", {"ref": ref, "text": "alice"}))
    assert result.success and "suggestions" not in result.reason, result.reason
    assert await plain.page.input_value("#plain") == "alice"
