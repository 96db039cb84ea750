"""The run list without a browser: newest first, 25 a page with an "Older runs" link, text
search with LIKE wildcards taken literally, filters combined, bad input answered kindly."""

from __future__ import annotations

import re

import httpx

from tests.integration.ui.conftest import ApiViewer

ROW = re.compile(r'<tr data-task-id="([0-9a-f]+)"')
OLDER = re.compile(r'id="older" href="([^"]+)"')


async def test_pages_search_and_filters(api_viewer: ApiViewer) -> None:
    async with httpx.AsyncClient(base_url=api_viewer.base_url) as client:
        made = []
        for i in range(27):
            text = f"run {i:02d} " + ("100% match_me" if i % 9 == 0 else "plain")
            response = await client.post("/v1/tasks", json={"instruction": text})
            made.append(response.json()["id"])
        first = await client.get("/")
        ids = ROW.findall(first.text)
        assert ids == made[::-1][:25]  # newest first, one page
        older = OLDER.search(first.text)
        assert older is not None
        second = await client.get(older.group(1).replace("&amp;", "&"))
        assert ROW.findall(second.text) == made[::-1][25:]
        assert OLDER.search(second.text) is None

        literal = await client.get("/", params={"q": "100% MATCH_ME"})  # case-insensitive
        assert ROW.findall(literal.text) == [made[18], made[9], made[0]]
        assert ROW.findall((await client.get("/", params={"q": "0%_"})).text) == []

        await client.post(f"/v1/tasks/{made[9]}/cancel")
        cancelled = await client.get("/", params={"status": "cancelled", "q": "match_me"})
        assert ROW.findall(cancelled.text) == [made[9]]
        ignored = await client.get("/", params={"status": "bogus"})
        assert len(ROW.findall(ignored.text)) == 25

        broken = await client.get("/", params={"cursor": "not-a-cursor"})
        assert broken.status_code == 200 and "no longer valid" in broken.text
        nothing = await client.get("/", params={"domain": "nowhere.example"})
        assert "No run matches these filters" in nothing.text
