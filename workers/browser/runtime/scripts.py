"""Browser-side sources: each room keeps its JavaScript in its own `js/` folder, beside the
Python that loads it (observe/js, act/js, runtime/js); `js(name)` finds a file by name.

Data goes into a page only through `evaluate(script, arg)`; no script is built from data.
`evaluate_settled` runs a script in the main frame's current document, waiting out a
navigation that replaces the document mid-call (a start page that redirects on load).
"""

from __future__ import annotations

from functools import cache
from importlib import resources
from typing import Any

from playwright.async_api import Error, Page

NAVIGATION_TRIES = 4  # a page that redirects on load (meta refresh 0, location.replace)
LOAD_WAIT_MS = 10_000

ROOMS = ("workers.browser.observe", "workers.browser.act", "workers.browser.runtime")


UNICODE_TEXT = "unicodeText"  # the shared text cutter (js/unicode_text.js), bound by name


@cache
def js(name: str) -> str:
    """The source of `name` from whichever room ships it; a script that names
    `unicodeText` gets it bound (cuts on grapheme boundaries, issue 27 item 1)."""
    source = _source(name)
    if UNICODE_TEXT in source and name != "unicode_text.js":
        return f"(({UNICODE_TEXT}) => (\n{source}\n))({_source('unicode_text.js')})"
    return source


def _source(name: str) -> str:
    for room in ROOMS:
        source = resources.files(room).joinpath("js", name)
        if source.is_file():
            return source.read_text("utf-8")
    raise FileNotFoundError(f"no browser script {name!r} in {', '.join(ROOMS)}")


@cache
def js_with(name: str, *helpers: str) -> str:
    """`name`'s function, called with its one argument followed by the helper functions."""
    calls = "".join(f", ({js(h)})" for h in helpers)
    return f"(arg) => ({js(name)})(arg{calls})"


# the snapshot walk found no main document: it was replaced while the frames were walked
MAIN_FRAME_GONE = "the page's main frame could not be snapshotted"


def navigated_away(exc: Error) -> bool:
    """The document the script ran in was replaced while it ran (a redirect, a reload)."""
    text = exc.message.lower()
    if exc.message.startswith(MAIN_FRAME_GONE):
        return True
    return "execution context was destroyed" in text or ("navigat" in text and "context" in text)


async def evaluate_settled(page: Page, script: str, arg: Any = None) -> Any:
    """`script` in the main frame's current document: a navigation that replaces the
    document mid-call is waited out (its new document loaded) and the call made again."""
    for attempt in range(NAVIGATION_TRIES):
        try:
            return await page.main_frame.evaluate(script, arg)
        except Error as exc:
            if not navigated_away(exc) or attempt == NAVIGATION_TRIES - 1:
                raise
            await settle_navigation(page)
    raise AssertionError("unreachable")


async def settle_navigation(page: Page) -> None:
    """Wait for the document a navigation brought to be parsed (errors: it is gone too)."""
    try:
        await page.wait_for_load_state("domcontentloaded", timeout=LOAD_WAIT_MS)
    except Error:
        return
