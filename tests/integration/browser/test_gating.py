"""Change gating and modal focus in PageSession.observe() on real Chromium (seed 000 §4.5,
seed 001 A.4)."""

from __future__ import annotations

import urllib.parse

import pytest

from workers.agent.protocols import Action
from workers.browser.session import PageSession

pytestmark = pytest.mark.browser

PAGE = """<!doctype html><html><head><title>Gate</title></head><body style="margin:20px">
<h1>Counter</h1>
<button id="add" onclick="const p=document.createElement('p');
  p.textContent='Row '+(document.querySelectorAll('p').length+1);document.body.appendChild(p)">
  Add row</button>
<button id="paint" onclick="this.classList.toggle('on')">Paint</button>
<style>.on{outline:3px solid red}</style>
<div style="height:3000px">tall</div>
<button id="bottom">Bottom</button>
</body></html>"""

MODAL = """<!doctype html><html><head><title>Shop</title></head><body>
<nav><a href="#a">Home</a> <a href="#b">Deals</a></nav>
<main><h1>Products</h1><p>Background paragraph BEHIND-TEXT.</p>
<button id="buy">Buy now</button>
<button id="open" onclick="document.getElementById('d').showModal()">Open settings</button></main>
<dialog id="d" aria-label="Cookie settings"><h2>Cookies</h2><p>We use cookies.</p>
<button onclick="document.getElementById('d').close()">Accept all</button>
<button>Reject</button></dialog>
<div id="am" aria-modal="true" role="dialog" aria-labelledby="amt" hidden
  style="position:fixed;left:100px;top:100px;width:300px;height:200px;background:#fff">
  <h2 id="amt">Sign in</h2><button>Continue with email</button></div>
</body></html>"""


def _url(html: str) -> str:
    return "data:text/html," + urllib.parse.quote(html)


def _body(text: str) -> str:
    """The observation without its "Page: title — url" line (data: URLs carry the HTML)."""
    return text.split("\n", 1)[1]


def _ref(session: PageSession, name: str) -> str:
    assert session.last is not None
    return next(n.ref for n in session.last.nodes if n.interactive and n.name == name)


async def test_unchanged_page_reuses_the_observation(session: PageSession) -> None:
    await session.goto(_url(PAGE))
    first = await session.observe()
    again = await session.observe()
    assert first.stats["reused"] is False and again.stats["reused"] is True
    assert again.version == first.version == session.version
    assert again.text == first.text
    # the refs of the reused observation still act
    result = await session.execute(Action("click", {"ref": _ref(session, "Add row")}))
    assert result.success, result


async def test_dom_change_gives_a_fresh_version(session: PageSession) -> None:
    await session.goto(_url(PAGE))
    first = await session.observe()
    await session.execute(Action("click", {"ref": _ref(session, "Add row")}))
    after = await session.observe()
    assert after.stats["reused"] is False and after.version == first.version + 1
    assert "Row 1" in after.text
    # a script mutation outside any action is caught by the fingerprint alone
    await session.page.evaluate("document.body.appendChild(document.createElement('i'))")
    assert (await session.observe()).version == after.version + 1


async def test_style_only_click_invalidates(session: PageSession) -> None:
    """A class toggle escapes the fingerprint; the mutating action invalidates instead."""
    await session.goto(_url(PAGE))
    first = await session.observe()
    result = await session.execute(Action("click", {"ref": _ref(session, "Paint")}))
    assert result.success, result
    assert (await session.observe()).version == first.version + 1


async def test_scroll_within_a_bucket_is_reused_beyond_is_fresh(session: PageSession) -> None:
    await session.goto(_url(PAGE))
    first = await session.observe()
    await session.page.evaluate("window.scrollTo(0, 60)")  # same 100 px bucket
    near = await session.observe()
    assert near.stats["reused"] is True and near.version == first.version
    await session.page.evaluate("window.scrollTo(0, 260)")
    far = await session.observe()
    assert far.stats["reused"] is False and far.version == first.version + 1


async def test_modes_share_one_snapshot_while_unchanged(session: PageSession) -> None:
    await session.goto(_url(PAGE))
    compact = await session.observe("compact")
    mem = await session.observe("pagemem")
    assert mem.version == compact.version and mem.text != compact.text
    assert (await session.observe("compact")).stats["reused"] is True


async def test_modal_dialog_is_shown_alone(session: PageSession) -> None:
    await session.goto(_url(MODAL))
    plain = await session.observe()
    assert plain.stats["modal"] is None and "BEHIND-TEXT" in _body(plain.text)
    await session.execute(Action("click", {"ref": _ref(session, "Open settings")}))
    obs = await session.observe()
    assert obs.stats["modal"] == "Cookie settings"
    assert "Accept all" in obs.text and "Reject" in obs.text
    assert "BEHIND-TEXT" not in _body(obs.text) and "Buy now" not in obs.text
    assert "modal dialog" in obs.text and "covers the page" in obs.text
    mem = await session.observe("pagemem")
    assert "Accept all" in mem.text and "Buy now" not in mem.text
    # the dialog's refs act: closing it brings the page back
    await session.execute(Action("click", {"ref": _ref(session, "Accept all")}))
    back = await session.observe()
    assert back.stats["modal"] is None and "Buy now" in back.text


async def test_aria_modal_is_detected(session: PageSession) -> None:
    await session.goto(_url(MODAL))
    await session.page.evaluate("document.getElementById('am').hidden = false")
    obs = await session.observe()
    assert obs.stats["modal"] == "Sign in"
    assert "Continue with email" in obs.text and "Buy now" not in obs.text
