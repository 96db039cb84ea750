"""bench/lookup_tokens.py: the lookup request on the emoji-dense judging page, uncapped and
with the default page-token budget (relay 2026-11-27 finding 10)."""

from __future__ import annotations

from bench.lookup_tokens import PAGE, URL, request_tokens
from workers.adapters.fetcher import html_text
from workers.agent.loop.search import PAGE_TOKENS
from workers.agent.protocols import FetchedPage


async def test_the_default_budget_cuts_the_emoji_page_request_and_keeps_the_code() -> None:
    title, text = html_text(PAGE.read_text(encoding="utf-8"))
    page = FetchedPage(URL, 200, title, text)
    whole, whole_cut, _ = await request_tokens(page, 0)
    capped, cut, has_code = await request_tokens(page, PAGE_TOKENS)
    assert whole > 15000 and not whole_cut
    assert capped < PAGE_TOKENS * 1.3 and cut and has_code
