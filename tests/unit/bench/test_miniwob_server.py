"""The MiniWoB++ page server sends text as UTF-8 (issue 26, item 17): unicode-test showed
`CancÃ©l` in the task text and on the page, read as windows-1252 for want of a charset."""

from __future__ import annotations

import httpx

from workers.bench.server import MiniWobServer


def test_pages_and_scripts_are_served_as_utf8() -> None:
    with MiniWobServer() as server:
        page = httpx.get(server.task_url("unicode-test"), timeout=10)
        script = httpx.get(httpx.URL(server.task_url("unicode-test")).join("../core/core.js"))
    assert page.status_code == 200 and "charset=utf-8" in page.headers["content-type"]
    assert script.status_code == 200 and "charset=utf-8" in script.headers["content-type"]
    assert "Ã" not in page.text
