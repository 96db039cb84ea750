"""Challenges and blocks (issue 8; seed 000 §6.5 "4xx/5xx or anti-bot pages short-circuit
with a dead-end"): recognising that the page in front of the task is a CAPTCHA wall, a
Cloudflare-style interstitial or a regional block.

The evidence comes from the browser's own read-only tools (`detect_captcha`,
`detect_geo_block`, backed by js/detect.js) and from the `bot_block` / `http_error` results
navigation already returns; nothing here tries to get past a challenge. Embedded CAPTCHA
widgets on an otherwise usable page (a login form with reCAPTCHA) are not a wall: only
whole-page challenges count, and a regional block only on an error status (403/451), so an
article that merely mentions "access denied" is not mistaken for one.
"""

from __future__ import annotations

from workers.agent.protocols import Action, Browser, Challenge, ToolResult

# whole-page challenge kinds of js/detect.js (the browser's dead_shell uses the same two)
INTERSTITIALS = ("cloudflare_interstitial", "text_challenge")
GEO_BLOCK = "geo_block"


def from_result(result: ToolResult, url: str) -> Challenge | None:
    """A navigation that already ended on a challenge page (error `bot_block`)."""
    if result.error != "bot_block":
        return None
    kinds = tuple(k for k in INTERSTITIALS if k in (result.reason or "")) or ("bot_block",)
    return Challenge(url, kinds, result.reason or "anti-bot challenge page")


async def _detect(browser: Browser, tool: str) -> ToolResult | None:
    result = await browser.execute(Action(tool, {}))
    return result if result.success else None


async def on_page(browser: Browser, result: ToolResult) -> Challenge | None:
    """What stands in front of the page after an action or navigation, or None.

    `result` is that action's result: `bot_block` is taken as it is; an `http_error` page is
    checked for a regional block; any other page change for a whole-page challenge.
    """
    url = browser.url
    found = from_result(result, url)
    if found is not None:
        return found
    if result.error == "http_error":
        geo = await _detect(browser, "detect_geo_block")
        if geo is not None and geo.data.get("blocked"):
            return Challenge(url, (GEO_BLOCK,), geo.reason)
        return None
    if not (result.success and result.page_changed):
        return None
    seen = await _detect(browser, "detect_captcha")
    kinds = tuple(k for k in (seen.data.get("kinds") or ()) if k in INTERSTITIALS) if seen else ()
    if kinds:
        return Challenge(url, kinds, f"anti-bot challenge page: {', '.join(kinds)}")
    return None


async def still_there(browser: Browser, challenge: Challenge) -> bool:
    """Re-check the page a challenge was on (after a person or a solver dealt with it)."""
    if GEO_BLOCK in challenge.kinds:
        geo = await _detect(browser, "detect_geo_block")
        return bool(geo is not None and geo.data.get("blocked"))
    seen = await _detect(browser, "detect_captcha")
    return bool(seen is not None and set(seen.data.get("kinds") or ()) & set(INTERSTITIALS))
