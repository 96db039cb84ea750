"""The search route's HTTP fetcher: egress policy on every hop, HTML to text."""

from __future__ import annotations

import httpx

from app.urlpolicy import NetworkPolicy
from workers.adapters.fetcher import FetchPolicy, HttpFetcher, html_text

PUBLIC = "http://93.184.216.34/page"  # an IP literal: checked without DNS


def transport(routes: dict[str, httpx.Response]) -> httpx.MockTransport:
    def handle(request: httpx.Request) -> httpx.Response:
        return routes.get(str(request.url), httpx.Response(404))

    return httpx.MockTransport(handle)


def test_html_text_drops_scripts_and_keeps_blocks() -> None:
    title, text = html_text(
        "<html><head><title>Norway</title><script>evil()</script></head>"
        "<body><h1>Norway</h1><p>Capital: <b>Oslo</b></p><div hidden>secret</div></body></html>"
    )
    assert title == "Norway" and text == "Norway\nCapital: Oslo"


async def test_a_public_page_is_fetched_as_text() -> None:
    page = httpx.Response(200, headers={"content-type": "text/html"}, text="<p>Oslo</p>")
    fetcher = HttpFetcher(FetchPolicy(), transport({PUBLIC: page}))
    fetched = await fetcher.fetch(PUBLIC)
    assert (fetched.status, fetched.text, fetched.error) == (200, "Oslo", None)


async def test_a_redirect_to_a_private_address_is_refused() -> None:
    hop = httpx.Response(302, headers={"location": "http://169.254.169.254/latest/meta-data"})
    fetcher = HttpFetcher(FetchPolicy(), transport({PUBLIC: hop}))
    fetched = await fetcher.fetch(PUBLIC)
    assert fetched.error is not None and fetched.error.startswith("blocked:")
    assert fetched.url.startswith("http://169.254.169.254")


async def test_allowlist_and_scheme_are_enforced() -> None:
    open_all = NetworkPolicy(allow_private=True)
    fetcher = HttpFetcher(FetchPolicy(open_all, allowed_domains=("example.org",)))
    assert "outside the allowed domains" in str((await fetcher.fetch("http://127.0.0.1/")).error)
    assert "scheme" in str((await fetcher.fetch("file:///etc/passwd")).error)


async def test_errors_and_non_text_are_reported() -> None:
    routes = {
        PUBLIC: httpx.Response(500),
        PUBLIC + "2": httpx.Response(
            200, headers={"content-type": "image/png"}, content=b"\x89PNG"
        ),
    }
    fetcher = HttpFetcher(FetchPolicy(), transport(routes))
    assert (await fetcher.fetch(PUBLIC)).error == "HTTP 500"
    assert (await fetcher.fetch(PUBLIC + "2")).error == "not text: image/png"
