"""BrowserPool against real Chromium: isolation, recycling, crash recovery, URL policy."""

from __future__ import annotations

import asyncio
from pathlib import Path

import psutil
import pytest
from playwright.async_api import Error as PlaywrightError

from app.settings import Settings
from tests.integration.workers.site import LocalSite
from workers.browser.runtime.pool import BrowserPool

pytestmark = pytest.mark.browser


def _settings(chromium_path: str, **overrides: object) -> Settings:
    base: dict[str, object] = {"chromium_path": chromium_path, "allow_private_networks": True}
    base.update(overrides)
    return Settings(**base)  # type: ignore[arg-type]


async def test_contexts_are_isolated(chromium_path: str, local_site: LocalSite) -> None:
    pool = BrowserPool(_settings(chromium_path, viewport_width=900, viewport_height=700))
    await pool.start()
    try:
        async with pool.context() as page:
            await page.goto(local_site.base_url + "/set")
            assert [c["name"] for c in await page.context.cookies()] == ["session"]
            assert page.viewport_size == {"width": 900, "height": 700}
        async with pool.context() as page:
            await page.goto(local_site.base_url + "/echo")
            assert await page.context.cookies() == []
            assert await page.inner_text("#c") == ""
        assert pool.stats().launches == 1  # both tasks ran on the same warm browser
    finally:
        await pool.close()


async def test_recycles_after_n_tasks(chromium_path: str) -> None:
    pool = BrowserPool(_settings(chromium_path, browser_recycle_after_tasks=2))
    await pool.start()
    try:
        for _ in range(5):
            async with pool.context() as page:
                await page.set_content("<p>x</p>")
        # tasks 1-2 on launch 1, 3-4 on launch 2, 5 on launch 3
        assert pool.stats().launches == 3
    finally:
        await pool.close()


async def test_recycles_over_memory_cap(chromium_path: str) -> None:
    pool = BrowserPool(_settings(chromium_path, browser_memory_cap_mb=1))
    await pool.start()
    try:
        assert pool.rss_mb() > 1
        for _ in range(2):
            async with pool.context() as page:
                await page.set_content("<p>x</p>")
        assert pool.stats().launches == 3
    finally:
        await pool.close()


async def test_relaunches_after_crash(chromium_path: str) -> None:
    pool = BrowserPool(_settings(chromium_path))
    await pool.start()
    try:
        pid = pool._browser_pid
        assert pid is not None
        proc = psutil.Process(pid)
        proc.kill()
        proc.wait(timeout=10)
        async with pool.context() as page:
            await page.set_content("<p id=x>alive</p>")
            assert await page.inner_text("#x") == "alive"
        assert pool.stats().launches == 2
        assert pool.ready
    finally:
        await pool.close()


async def test_private_network_blocked(chromium_path: str, local_site: LocalSite) -> None:
    pool = BrowserPool(_settings(chromium_path, allow_private_networks=False))
    await pool.start()
    try:
        async with pool.context() as page:
            with pytest.raises(PlaywrightError, match="ERR_BLOCKED_BY_CLIENT"):
                await page.goto(local_site.base_url + "/nav")
        async with pool.context() as page:
            await page.set_content(f"<img src='{local_site.base_url}/img.png'>")
            result = await page.evaluate(
                "url => fetch(url).then(() => 'fetched', () => 'failed')",
                local_site.base_url + "/fetch",
            )
            assert result == "failed"
            closed = await page.evaluate(
                """url => new Promise(resolve => {
                    const ws = new WebSocket(url);
                    ws.onopen = () => resolve('open');
                    ws.onclose = () => resolve('closed');
                })""",
                local_site.base_url.replace("http", "ws") + "/socket",
            )
            assert closed == "closed"
        assert local_site.hits == []
    finally:
        await pool.close()


async def test_allowed_domains_limit_navigation(chromium_path: str, local_site: LocalSite) -> None:
    pool = BrowserPool(_settings(chromium_path))
    await pool.start()
    try:
        async with pool.context(allowed_domains=("example.com",)) as page:
            with pytest.raises(PlaywrightError, match="ERR_BLOCKED_BY_CLIENT"):
                await page.goto(local_site.base_url + "/nav")
        assert "/nav" not in local_site.hits  # blocked before it left the browser
        async with pool.context(allowed_domains=("127.0.0.1",)) as page:
            await page.goto(local_site.base_url + "/ok")
        # Chromium may also fetch /favicon.ico for the allowed page (a subresource, not a
        # navigation); every document the server served is the allowed one
        documents = [hit for hit in local_site.hits if hit != "/favicon.ico"]
        assert documents == ["/ok"]
    finally:
        await pool.close()


async def test_recycle_waits_for_running_tasks(chromium_path: str) -> None:
    """A due recycle never closes the browser under a running task: new tasks wait instead."""
    pool = BrowserPool(_settings(chromium_path, browser_recycle_after_tasks=1))
    await pool.start()
    order: list[str] = []
    try:
        first = pool.context()
        page = await first.__aenter__()
        second = asyncio.create_task(_use(pool, order))
        await asyncio.sleep(0.5)
        assert order == []  # waiting for the first task to end
        await page.set_content("<p id=x>still here</p>")
        assert await page.inner_text("#x") == "still here"
        order.append("first done")
        await first.__aexit__(None, None, None)
        await asyncio.wait_for(second, 30)
        assert order == ["first done", "second ran"]
        assert pool.stats().launches == 2
    finally:
        await pool.close()


async def _use(pool: BrowserPool, order: list[str]) -> None:
    async with pool.context() as page:
        await page.set_content("<p>x</p>")
        order.append("second ran")


async def test_spare_context_is_prepared_fresh_and_never_reused(
    chromium_path: str, local_site: LocalSite
) -> None:
    """A task gets the spare prepared in the background, with its own guard bound to it."""
    pool = BrowserPool(_settings(chromium_path, allow_private_networks=False))
    await pool.start()
    try:
        assert await pool.spare_ready()  # the first task starts warm too
        async with pool.context() as page:
            first = page
            assert page.url == "about:blank"
            await page.set_content("<p id=x>task one</p>")
            with pytest.raises(PlaywrightError, match="ERR_BLOCKED_BY_CLIENT"):
                await page.goto(local_site.base_url + "/private")
        assert first.is_closed()  # the touched context is closed, not handed back
        assert await pool.spare_ready()
        async with pool.context() as page:
            assert page is not first and page.context is not first.context
            assert page.url == "about:blank"
            assert await page.content() == "<html><head></head><body></body></html>"
        assert pool.stats().spares_used == 2
        assert pool.stats().launches == 1
        assert local_site.hits == []
    finally:
        await pool.close()


async def test_spare_is_discarded_on_recycle(chromium_path: str) -> None:
    """No spare outlives its browser: after a recycle tasks get contexts of the new one."""
    pool = BrowserPool(_settings(chromium_path, browser_recycle_after_tasks=2))
    await pool.start()
    browsers = []
    try:
        for _ in range(3):
            await pool.spare_ready()  # tasks last longer than the spare's delay
            async with pool.context() as page:
                browsers.append(page.context.browser)
                await page.set_content("<p>x</p>")
            if len(browsers) == 2:
                assert not await pool.spare_ready()  # recycle due: nothing to throw away
        old, _, new = browsers
        assert old is not None and old is browsers[1] and new is not old
        assert new is pool._browser and not old.is_connected()
        assert pool.stats().spares_used == 3
        assert pool.stats().launches == 2
    finally:
        await pool.close()


async def test_back_to_back_acquisition_does_not_wait_for_a_delayed_spare(
    chromium_path: str,
) -> None:
    """A spare still waiting out its delay is dropped: the task opens a context at once."""
    pool = BrowserPool(_settings(chromium_path), spare_delay_s=3600)
    await pool.start()
    try:
        assert await pool.spare_ready()  # prepared at launch, without delay
        async with pool.context() as page:
            await page.set_content("<p>one</p>")
        async with asyncio.timeout(60):  # never waits out the hour-long delay
            async with pool.context() as page:
                assert page.url == "about:blank"
                await page.set_content("<p id=x>two</p>")
                assert await page.inner_text("#x") == "two"
        assert pool.stats().spares_used == 1
        assert pool._spare is not None and not pool._spare.done()  # the next one waits
    finally:
        await pool.close()


async def test_the_pools_driver_writes_its_compile_cache(
    chromium_path: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Node honours NODE_COMPILE_CACHE for Playwright's driver: the next start reads it."""
    monkeypatch.delenv("NODE_COMPILE_CACHE", raising=False)
    pool = BrowserPool(_settings(chromium_path, data_dir=str(tmp_path)))
    await pool.start()
    await pool.close()
    assert any((tmp_path / "node-compile-cache").rglob("*"))
