"""Per-step overhead (issue 13): a verified click costs few protocol round trips.

Counted at the Playwright connection: every call the client sends to the driver (an evaluate,
a CDP command, a subscription change). A plain click on a main-frame button used to cost about
20 (probe twice, bounding boxes, owner frame, top-most check, pointer read, tracker install,
listeners added and removed per action, two effect reads); the fast lane keeps what each one
checked: the element is still probed and checked top-most at its centre at click time, so a
cover that appeared after the snapshot is still refused. Observing a changed page costs the
fingerprint and the walk (which also reads the open modal and whether the document is new);
the approval facts of a ref cost one call (resolve and read together). Issue 35: the aim also
arms the effect session, the mouse click is one call, and the settle wait's last look reads
the effect (4 calls for a plain click, 8 before); an observation after an action's effect
reads the fingerprint with the walk."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from playwright._impl import connection
from playwright.async_api import Page

from app.settings import Settings
from tests.integration.browser.served import served
from workers.agent.protocols import Action
from workers.browser.session import PageSession

pytestmark = pytest.mark.browser

ORIGIN = "http://round-trips.test"
PAGE = """<!doctype html><html><body>
<button id="sync" onclick="document.getElementById('out').textContent = 'sync ' + Date.now()">
Sync</button>
<button id="load" onclick="fetch('/api').then(r => r.text()).then(t => {
  document.getElementById('out').textContent = t; })">Load</button>
<p id="out">empty</p></body></html>"""
# resolve, aim with the effect session armed in the same call, the mouse click (move, press
# and release in one), the settle look that also reads the effect (issue 35: 8 and 9 before);
# a response that lands after the first quiet window takes one more settle look
MAX_CALLS = {"Sync": 4, "Load": 5}


@pytest.fixture
async def plain(page: Page, settings: Settings) -> AsyncIterator[PageSession]:
    routes = {"/": (PAGE, "text/html"), "/api": ("from the server", "text/plain")}
    async with served(page, settings, ORIGIN, routes) as s:
        yield s


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    sent: list[str] = []
    original = connection.Connection.send_message_to_server

    def counting(self: Any, obj: Any, method: str, params: Any, options: Any) -> Any:
        if method != "__waitInfo__":
            sent.append(f"{obj._type}.{method}")
        return original(self, obj, method, params, options)

    monkeypatch.setattr(connection.Connection, "send_message_to_server", counting)
    yield sent


async def _ref(s: PageSession, name: str) -> str:
    await s.observe()
    assert s.last is not None
    return next(n.ref for n in s.last.nodes if n.name == name)


@pytest.mark.parametrize("name", ["Sync", "Load"])
async def test_a_verified_click_costs_few_round_trips(
    plain: PageSession, calls: list[str], name: str
) -> None:
    warm = await plain.execute(Action("click", {"ref": await _ref(plain, "Sync")}))
    assert warm.success  # the CDP session for the mouse is made once per page
    ref = await _ref(plain, name)
    calls.clear()
    result = await plain.execute(Action("click", {"ref": ref}))
    per_click = [c for c in calls if c != "Route.fulfill"]  # the test's own server
    assert result.success, result.reason
    assert await plain.page.text_content("#out") != "empty"
    assert len(per_click) <= MAX_CALLS[name], per_click


async def test_a_cover_that_appeared_after_the_snapshot_is_still_refused(
    plain: PageSession,
) -> None:
    ref = await _ref(plain, "Sync")
    await plain.page.evaluate(
        """() => { const d = document.createElement('div'); d.id = 'veil';
        d.style.cssText = 'position:fixed;inset:0;background:rgba(0,0,0,.4)';
        document.body.appendChild(d); }"""
    )
    result = await plain.execute(Action("click", {"ref": ref}))
    assert result.error == "element_covered" and "div#veil" in result.reason, result.reason
    assert await plain.page.text_content("#out") == "empty"


async def test_observing_a_changed_page_costs_the_fingerprint_and_the_walk(
    plain: PageSession, calls: list[str]
) -> None:
    await plain.observe()
    await plain.page.evaluate("document.getElementById('out').textContent = 'changed'")
    calls.clear()
    obs = await plain.observe()
    assert "changed" in obs.text and not obs.stats.get("reused")
    assert calls == ["Frame.evaluateExpression", "Frame.evaluateExpression"], calls
    calls.clear()
    again = await plain.observe()  # unchanged: the fingerprint alone
    assert again.stats.get("reused") and len(calls) == 1, calls


async def test_the_approval_facts_of_a_ref_cost_one_call(
    plain: PageSession, calls: list[str]
) -> None:
    action = Action("click", {"ref": await _ref(plain, "Load")})
    calls.clear()
    target = await plain.inspect_target(action)
    assert target is not None and target.role == "button" and target.name == "Load", target
    assert len(calls) == 1, calls
    await plain.page.evaluate("document.getElementById('load').remove()")
    gone = await plain.inspect_target(action)  # the element left: re-resolved, then None
    assert gone is None
