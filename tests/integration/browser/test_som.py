"""Set-of-Mark on a real Chromium: both channels, and nothing left behind after capture."""

from __future__ import annotations

import urllib.parse

import pytest
from playwright.async_api import Page

from workers.browser.observe import fingerprint, frames, som
from workers.browser.observe.snapshot import capture

pytestmark = pytest.mark.browser

HTML = """<!doctype html><html><body style="margin:20px;background:#fff">
<h1>Shop</h1>
<input id="q" placeholder="Search" style="width:200px;height:30px">
<button id="go" style="width:100px;height:30px">Go</button>
<a href="#x" id="link">Details</a>
<button style="display:none">Hidden</button>
<div style="margin-top:2000px"><button id="far">Far below</button></div>
</body></html>"""


async def open_probe(page: Page) -> None:
    await frames.install(page)
    await page.goto("data:text/html," + urllib.parse.quote(HTML))


async def test_annotate_draws_tags_and_cleans_up(page: Page) -> None:
    await open_probe(page)
    snap, refs = await capture(page, version=1)
    plain = await page.screenshot(type="png")
    png = await som.annotate(page, snap, refs, jpeg=False)
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png != plain
    jpeg = await som.annotate(page, snap, refs)
    assert jpeg[:2] == b"\xff\xd8"
    left = await page.evaluate(
        "() => [document.querySelectorAll('[data-agent-id]').length,"
        " !!document.getElementById('webagent-som-root')]"
    )
    assert left == [0, False]


async def test_marks_are_in_view_interactive_refs(page: Page) -> None:
    await open_probe(page)
    snap, _ = await capture(page, version=1)
    names = {n.name for n, _ in som.marks_for(snap)}
    assert {"Go", "Details"} <= names
    assert "Far below" not in names and "Hidden" not in names
    assert all(m.label == n.ref for n, m in som.marks_for(snap))


async def test_attribute_channel_names_the_same_elements(page: Page) -> None:
    await open_probe(page)
    snap, refs = await capture(page, version=3)
    interactive = [n for n in snap.nodes if n.interactive]
    tagged = await som._tag(refs, interactive)
    assert tagged == len(interactive)
    go = next(n for n in interactive if n.name == "Go")
    assert await page.get_attribute("#go", "data-agent-id") == go.ref
    assert await page.locator(f'[data-agent-id="{go.ref}"]').get_attribute("id") == "go"
    await som.clear(page)
    assert await page.locator("[data-agent-id]").count() == 0


async def test_fingerprint_gate_on_a_live_page(page: Page) -> None:
    await open_probe(page)
    a = await fingerprint.capture(page)
    b = await fingerprint.capture(page)
    assert not fingerprint.changed(a, b)
    snap, refs = await capture(page, version=1)
    await som.annotate(page, snap, refs)  # our own overlay is not a page mutation
    assert not fingerprint.changed(a, await fingerprint.capture(page))
    await page.fill("#q", "shoes")  # value only: no text or node change, DOM hash moves
    c = await fingerprint.capture(page)
    assert c.dom_hash != b.dom_hash and fingerprint.changed(b, c)
    await page.evaluate("window.scrollTo(0, 150)")  # crosses a 100 px bucket
    d = await fingerprint.capture(page)
    assert d.text_hash != c.text_hash and d.dom_hash == c.dom_hash
    await page.evaluate("document.body.appendChild(document.createElement('span'))")
    e = await fingerprint.capture(page)
    assert fingerprint.mutation_delta(d, e) == 1 and fingerprint.changed(d, e)
    assert fingerprint.changed(e, await fingerprint.capture(page), max_mutations=0) is False


RECORD = """() => { window.__tagged = {};
  new MutationObserver((rs) => { for (const r of rs) { const v = r.target.getAttribute(
    'data-agent-id'); if (v) window.__tagged[v] = r.target.id || r.target.textContent; } })
  .observe(document, { subtree: true, attributes: true, attributeFilter: ['data-agent-id'] }); }"""


async def test_annotate_tags_every_ref_then_removes_them(page: Page) -> None:
    await open_probe(page)
    await page.evaluate(RECORD)
    snap, refs = await capture(page, version=2)
    await som.annotate(page, snap, refs, jpeg=False)
    await page.evaluate("() => new Promise(requestAnimationFrame)")  # flush the observer
    tagged = await page.evaluate("() => window.__tagged")
    interactive = {n.ref for n in snap.nodes if n.interactive}
    assert set(tagged) == interactive  # off-screen "Far below" included
    far = next(n.ref for n in snap.nodes if n.name == "Far below")
    assert tagged[far] == "far"
    assert await page.locator("[data-agent-id]").count() == 0
