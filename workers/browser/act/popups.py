"""Popups a site is known for (issue 21): a consent banner that earlier runs of the tenant
dismissed is dismissed again before the first observation, by the same control.

Only a control with exactly the learned role and accessible name, visible and alone on the
page, is clicked; anything else leaves the page as it is and the model sees the banner.
"""

from __future__ import annotations

from playwright.async_api import Error

from workers.browser.act.context import Acting

POPUP_CLICK_MS = 2000


async def dismiss(s: Acting, role: str, name: str) -> bool:
    """Click the one visible element with this role and exact name; True if clicked."""
    try:
        target = s.page.get_by_role(role, name=name, exact=True)  # type: ignore[arg-type]
        if await target.count() != 1 or not await target.is_visible():
            return False
        await target.click(timeout=POPUP_CLICK_MS)
    except Error:
        return False
    s.invalidate()
    s.after_mutation()
    return True
