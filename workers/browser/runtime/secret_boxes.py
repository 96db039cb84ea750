"""Secret-bearing elements are black in every screenshot (issue 32, item 3).

Text read back from a page is masked in all the forms app/secret_forms.py knows; pixels
cannot be masked after the fact (there is no OCR), so the elements that show a secret are
painted solid black in the page before every screenshot the service takes:

- a field a task secret is typed into (`<secret:name>` or `secret=true`), marked before the
  first keystroke (`mark_field`), so even the live view never shows it;
- every password input holding a value, in every task;
- in a task with secret values: every field whose value, and every element whose text (its
  own, or all of it when short), holds one of the values in a form SecretForms finds (a page
  that echoes the value, a field the page un-masks or re-renders). The page sends its texts
  out and Python decides; no secret is ever passed into the page.

`paint(page)` runs before each step screenshot, the Set-of-Mark and `look` images, and the
screenshot tool, and once right after a secret is typed (`typing`), waiting until the page
has rendered the black boxes (`settle`) while the trace is still paused (tracing.py): the
trace resumes on a painted page. The live view (screencast.py) passes a frame only when
`frame_safe`: no secret is being typed, the frame was taken after the last paint was
rendered, and a paint right then found nothing new to black out.

Left (docs/security.md): a page that shows a secret on its own later (after a navigation, on
a timer) is painted before the next screenshot the service takes and before the next live
frame, but Playwright's trace records its own frames, so trace frames in between may show it.

The secret values come from the vault the context's session holds (`watch`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import weakref
from collections.abc import AsyncIterator
from functools import lru_cache
from typing import Protocol

from playwright.async_api import BrowserContext, ElementHandle, Frame, Page
from playwright.async_api import Error as PlaywrightError

from app.secret_forms import SecretForms
from workers.browser.runtime.scripts import js

log = logging.getLogger(__name__)

FRAME_WAIT_S = 2.0  # a frame's document that does not answer in this time is painted next time


class Vault(Protocol):
    """What painting needs of a task's secrets: their values (workers/adapters/secrets.py)."""

    @property
    def values(self) -> tuple[str, ...]: ...


class Holder(Protocol):
    """Who holds the task's vault (the page session; jobs swaps in the task's own)."""

    @property
    def secrets(self) -> Vault: ...


_HOLDERS: weakref.WeakKeyDictionary[BrowserContext, weakref.ref[Holder]] = (
    weakref.WeakKeyDictionary()
)
_TYPING: weakref.WeakKeyDictionary[BrowserContext, int] = weakref.WeakKeyDictionary()
_CLEAN_SINCE: weakref.WeakKeyDictionary[BrowserContext, float] = weakref.WeakKeyDictionary()


def watch(context: BrowserContext, holder: Holder) -> None:
    """`paint` looks for the secrets `holder` holds at the time (held weakly)."""
    _HOLDERS[context] = weakref.ref(holder)


@lru_cache(maxsize=8)
def _forms(values: tuple[str, ...]) -> SecretForms:
    return SecretForms(values)


def forms_of(page: Page) -> SecretForms | None:
    ref = _HOLDERS.get(page.context)
    holder = ref() if ref is not None else None
    forms = _forms(tuple(holder.secrets.values)) if holder is not None else None
    return forms if forms else None


async def mark_field(el: ElementHandle) -> None:
    """Paint the field a secret is about to be typed into black, from now on."""
    await el.evaluate(js("secret_boxes.js"), {"op": "field"})


async def paint(page: Page) -> int:
    """Black out every secret-bearing element in every frame of `page`; how many elements
    holding a secret value were not black before (password inputs are not counted). Frames
    are painted side by side; one that does not answer in FRAME_WAIT_S is left for the next
    paint."""
    forms = forms_of(page)
    frames = [f for f in page.frames if _paintable(f, forms is not None, page.main_frame)]
    painted = await asyncio.gather(*(_paint_within(f, forms) for f in frames))
    return sum(painted)


def _paintable(frame: Frame, secrets: bool, main: Frame) -> bool:
    """Skipped: a frame with no document yet (no URL: its first navigation is pending, it
    shows nothing), an error page; without secret values (password inputs only), also the
    about:blank/srcdoc frames of ads and widgets, which hold no login form."""
    url = frame.url
    if not url or url.startswith("chrome-error:") or frame.is_detached():
        return False
    return secrets or frame is main or url.startswith(("http:", "https:"))


async def _paint_within(frame: Frame, forms: SecretForms | None) -> int:
    try:
        if forms is None:  # password inputs only: one round trip
            await asyncio.wait_for(
                frame.evaluate(js("secret_boxes.js"), {"op": "scan", "texts": False}),
                FRAME_WAIT_S,
            )
            return 0
        return await asyncio.wait_for(_paint_frame(frame, forms), FRAME_WAIT_S)
    except (PlaywrightError, TimeoutError) as exc:  # navigating away, or still loading
        log.debug("secret boxes not painted in %s: %r", frame.url[:80], exc)
        return 0


async def _paint_frame(frame: Frame, forms: SecretForms) -> int:
    scan = await frame.evaluate_handle(js("secret_boxes.js"), {"op": "scan", "texts": True})
    try:
        texts = await scan.evaluate(js("secret_scan_texts.js"))
        hits = [i for i, text in enumerate(texts) if forms.found(str(text))]
        return int(await scan.evaluate(js("secret_scan_mark.js"), hits)) if hits else 0
    finally:
        await scan.dispose()


async def settle(page: Page) -> None:
    """Wait until the page has rendered what was painted; frames taken before now are stale."""
    with contextlib.suppress(PlaywrightError):
        await page.evaluate(js("rendered.js"))
    _CLEAN_SINCE[page.context] = time.time()


@contextlib.asynccontextmanager
async def typing(page: Page) -> AsyncIterator[None]:
    """A secret is being typed: the live view passes no frame until the page is painted and
    rendered (the trace resumes only after this, tracing.paused is entered first)."""
    context = page.context
    _TYPING[context] = _TYPING.get(context, 0) + 1
    try:
        yield
    finally:
        await paint(page)
        await settle(page)
        left = _TYPING.get(context, 1) - 1
        if left > 0:
            _TYPING[context] = left
        else:
            _TYPING.pop(context, None)


async def frame_safe(page: Page, taken_at: float) -> bool:
    """May a live-view frame taken at `taken_at` (wall clock seconds) be shown? Not while a
    secret is typed, not one taken before the last paint was rendered, and not when this
    paint found a secret-bearing element that was not black yet (the next frame shows it)."""
    if _TYPING.get(page.context, 0) > 0:
        return False
    if await paint(page) > 0:
        await settle(page)
        return False
    return taken_at > _CLEAN_SINCE.get(page.context, 0.0)
