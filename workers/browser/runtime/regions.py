"""Private regions (issue 12, snapshot filtering): CSS selectors whose subtrees the model
never sees.

A task names parts of a page that must not reach the model (`private_regions`); the session
carries them as one `HiddenRegions`. The snapshot walker (js/snapshot.js) skips every element
matching one of the selectors, in every frame and shadow root it walks, and names nothing
after such an element's text (aria-labelledby, <label>, descendant alt/title); the same walk
adopts a style sheet into each document and shadow root that holds a match, which paints the
matched boxes solid black (`filter: brightness(0)` on a black background, layout unchanged),
so every screenshot taken after it (step screenshots, the Set-of-Mark image, `look`, the
screenshot tool, raw CDP captures) shows black boxes there. `read_text` and `dom_search`
pass `selector` to their scripts and skip the same subtrees. `blackout()` applies the sheet
without a snapshot (before a screenshot that may follow a navigation).

An entry may also name a landmark instead of a selector (issue 12: "CSS selectors or landmark
names"): `landmark:navigation` (any ARIA landmark role, native elements included) or
`landmark:Messages` (the element whose accessible label is "Messages"); `expand()` turns it
into the CSS the walker matches.

A selector the browser rejects fails closed: the walk reports it and `capture()` raises
`HiddenRegionError` instead of returning a view that could show the region.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from workers.browser.runtime.scripts import js

MAX_SELECTORS = 32
MAX_SELECTOR_CHARS = 300
_UNSAFE = re.compile(r"[{};\\]|/\*|<")  # no rule or comment break-out, no markup
LANDMARK_PREFIX = "landmark:"
LANDMARKS = {
    "banner": 'body > header, [role="banner"]',
    "navigation": 'nav, [role="navigation"]',
    "main": 'main, [role="main"]',
    "complementary": 'aside, [role="complementary"]',
    "contentinfo": 'body > footer, [role="contentinfo"]',
    "search": 'search, [role="search"]',
    "form": 'form[aria-label], form[aria-labelledby], [role="form"]',
    "region": 'section[aria-label], section[aria-labelledby], [role="region"]',
}
_LABEL = re.compile(r"[\w .,'&()-]{1,80}")  # a landmark's accessible label: no quote, no escape


def expand(entry: str) -> str:
    """CSS for one entry: a landmark role or label becomes a selector, a selector stays."""
    if not entry.lower().startswith(LANDMARK_PREFIX):
        return entry
    name = entry[len(LANDMARK_PREFIX) :].strip()
    if name.lower() in LANDMARKS:
        return LANDMARKS[name.lower()]
    if not _LABEL.fullmatch(name):
        raise HiddenRegionError(f"landmark name {name!r}: a role or a plain label of 1-80 chars")
    return f'[aria-label="{name}" i]'


class HiddenRegionError(ValueError):
    """A private-region selector is empty, too long, unsafe or rejected by the browser."""


@dataclass(frozen=True)
class HiddenRegions:
    """Selectors of the subtrees to hide; empty (the default) hides nothing."""

    selectors: tuple[str, ...] = ()

    @classmethod
    def of(cls, selectors: Sequence[str] | None) -> HiddenRegions:
        """Validated regions; raises HiddenRegionError naming the offending selector."""
        cleaned: list[str] = []
        for raw in selectors or ():
            sel = str(raw).strip()
            if not sel:
                raise HiddenRegionError("a private region selector is empty")
            if len(sel) > MAX_SELECTOR_CHARS:
                raise HiddenRegionError(f"private region selector over {MAX_SELECTOR_CHARS} chars")
            if _UNSAFE.search(sel):
                raise HiddenRegionError(f"private region selector {sel!r} has {{ }} ; \\ /* or <")
            sel = expand(sel)
            if sel not in cleaned:
                cleaned.append(sel)
        if len(cleaned) > MAX_SELECTORS:
            raise HiddenRegionError(f"at most {MAX_SELECTORS} private region selectors")
        return cls(tuple(cleaned))

    def __bool__(self) -> bool:
        return bool(self.selectors)

    @property
    def selector(self) -> str | None:
        """One selector list matching any region (for element.matches / closest), or None."""
        return ", ".join(self.selectors) if self.selectors else None


NO_REGIONS = HiddenRegions()


@lru_cache(maxsize=1)
def _blackout_js() -> str:
    return js("blackout.js")


async def blackout(page: Page, regions: HiddenRegions) -> None:
    """Paint the regions black in every frame's document and open shadow roots (idempotent);
    the snapshot walk does the same for closed shadow roots it can reach."""
    if not regions:
        return
    for frame in page.frames:
        with contextlib.suppress(PlaywrightError):  # a frame navigating away: nothing to paint
            await frame.evaluate(_blackout_js(), list(regions.selectors))


def bad_selectors(reported: object) -> list[str]:
    """Selectors a walk reported as rejected by the browser (js `badHidden`)."""
    if not isinstance(reported, list):
        return []
    return [str(s) for s in reported]
