"""Cuts never split a character (issue 27 item 1).

pages/judging/emoji.html holds names, texts, headings, labels and values made of emoji
sequences, each shifted by one more character, so the browser-side cuts (snapshot names at
100 units, headings at 200, labels at 40, values at 80) and the compact view's cuts fall at
every offset inside every kind of cluster. Measured before: the snapshot cut on UTF-16 units
left `🚙\\ud83d…[+27 chars]` in the observation, which no UTF-8 request can carry.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest
from playwright.async_api import Browser, Page

from app.settings import Settings
from tests.support import emoji
from workers.agent.protocols import Action
from workers.agent.textcut import cut
from workers.browser.observe import compact_lines
from workers.browser.runtime.scripts import js
from workers.browser.session import PageSession

pytestmark = [pytest.mark.browser]

SURROGATE = re.compile("[\ud800-\udfff]")
BOUNDS = """(s) => { const out = [0]; let k = 0;
  for (const { segment } of new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(s)) {
    k += [...segment].length; out.push(k); } return out; }"""


@pytest.fixture
async def emoji_session(
    chromium_browser: Browser, chromium_path: str, probe_port: int
) -> AsyncIterator[PageSession]:
    context = await chromium_browser.new_context(viewport={"width": 1280, "height": 800})
    settings = Settings(chromium_path=chromium_path, snapshot_max_tokens=40_000)
    session = await PageSession.open(await context.new_page(), settings)
    result = await session.goto(f"http://127.0.0.1:{probe_port}/judging/emoji.html")
    assert result.success, result.reason
    yield session
    await context.close()


async def _texts(page: Page) -> list[str]:
    """Every full text on the page a cut can shorten."""
    return list(
        await page.evaluate(
            """() => [...document.querySelectorAll('h2, .para, .btn')].map((e) => e.textContent)
              .concat([...document.querySelectorAll('.lnk')]
                .map((e) => e.getAttribute('aria-label')))
              .concat([...document.querySelectorAll('.fld')].map((e) => e.value))"""
        )
    )


def _heads_in(text: str, fulls: list[str]) -> list[tuple[str, str]]:
    """(shown head, full text) for every place the observation shows a full text cut short."""
    found = []
    for full in fulls:
        at = text.find(full[:12])
        while at >= 0:
            k = 0
            while k < len(full) and at + k < len(text) and text[at + k] == full[k]:
                k += 1
            if k < len(full):
                found.append((text[at : at + k], full))
            at = text.find(full[:12], at + 1)
    return found


async def test_the_observation_is_utf8_and_cuts_fall_between_graphemes(
    emoji_session: PageSession,
) -> None:
    page = emoji_session.page
    text = (await emoji_session.observe()).text
    assert not SURROGATE.search(text), SURROGATE.search(text)
    text.encode("utf-8")
    fulls = await _texts(page)
    heads = _heads_in(text, fulls)
    assert len(heads) >= 16 * 5, text[:2000]
    for head, full in heads:
        bounds = set(await page.evaluate(BOUNDS, full))
        assert len(head) in bounds, (len(head), head[-6:])


async def test_the_compact_view_cuts_names_at_every_length(emoji_session: PageSession) -> None:
    snap = await emoji_session.snapshot()
    cut_nodes = [n for n in snap.nodes if len(n.name) > 40]
    assert len(cut_nodes) >= 16
    for node in cut_nodes:
        bounds = set(await emoji_session.page.evaluate(BOUNDS, node.name))
        for cap in range(1, 60):
            shown = compact_lines.shown_text(node, cap, slack=0)
            shown.encode("utf-8")
            assert len(shown.split("…[+")[0]) in bounds, (cap, shown[:80])


async def test_every_cut_length_in_the_browser_and_in_python_agrees_with_the_segmenter(
    emoji_session: PageSession,
) -> None:
    page = emoji_session.page
    cutter = f"([s, units]) => {{ const t = ({js('unicode_text.js')}); "
    cutter += "return Array.from({ length: units + 2 }, (_, n) => t.cut(s, n)); }"
    for shift in range(len(emoji.CLUSTERS)):
        s = emoji.text(emoji.dense(24, shift))
        bounds = set(await page.evaluate(BOUNDS, s))
        assert bounds == emoji.boundaries(emoji.dense(24, shift))
        heads = await page.evaluate(cutter, [s, emoji.utf16_len(s)])
        for n, head in enumerate(heads):
            assert not SURROGATE.search(head), (shift, n)
            assert s.startswith(head) and len(head) in bounds, (shift, n, head[-4:])
        for n in range(len(s) + 1):
            assert len(cut(s, n)) == max(b for b in bounds if b <= n), (shift, n)


async def test_a_page_made_lone_surrogate_never_reaches_the_observation(
    emoji_session: PageSession,
) -> None:
    obs = await emoji_session.observe()
    ref = re.search(r"\[(\d+:\d+)\] button", obs.text)
    assert ref, obs.text[:1500]
    result = await emoji_session.execute(Action("click", {"ref": ref.group(1)}))
    assert result.success, result
    logged = await emoji_session.page.inner_text("#log")
    assert SURROGATE.search(logged) or "pressed" in logged
    text = (await emoji_session.observe()).text
    assert "pressed" in text, text[:3000]
    assert not SURROGATE.search(text)
    text.encode("utf-8")
    reason = (result.reason or "") + str(result.data or "")
    reason.encode("utf-8")
