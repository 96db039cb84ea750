"""Issue 31 item 6, two observation cases held out since the first wave: an icon button
whose content is an emoji shows its title beside the name, and a long paragraph on a short
page (the whole page fits the budget) is shown whole, not cut with a read_text pointer."""

from __future__ import annotations

import pytest

from tests.integration.browser.fidelity_support import Opener
from tests.integration.browser.fidelity_support import line as _line

pytestmark = [pytest.mark.browser]


@pytest.fixture
def open_page(open_fidelity_page: Opener) -> Opener:
    return open_fidelity_page


async def test_an_emoji_button_shows_its_title_beside_the_name(open_page: Opener) -> None:
    session, _ = await open_page("fidelity31/finder")
    text = (await session.observe()).text
    finder = _line(text, "🔍")
    assert "Open finder" in finder, text
    assert "(Open finder)" not in _line(text, '"Save"')  # a named button stays as it was


async def test_a_long_paragraph_on_a_short_page_is_shown_whole(open_page: Opener) -> None:
    session, _ = await open_page("fidelity31/longpara")
    text = (await session.observe()).text
    assert "MARIGOLD-SEVEN, to be flashed three times from the gallery at dusk" in text, text
    assert "read_text" not in text, text
