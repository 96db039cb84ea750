"""`/docs` and `/redoc` render in Chromium with every non-loopback request aborted: the
Swagger UI and ReDoc assets are served by the service itself (app/web/docs.py)."""

from __future__ import annotations

import httpx
import pytest
from playwright.async_api import expect

from tests.integration.ui.conftest import ApiViewer, OfflinePage

pytestmark = pytest.mark.browser
RENDER_MS = 30_000  # the JS bundles render the whole spec; slow on a loaded 2-core machine


async def test_swagger_ui_renders_offline(api_viewer: ApiViewer, offline_page: OfflinePage) -> None:
    page = offline_page.page
    response = await page.goto(f"{api_viewer.base_url}/docs")
    assert response is not None and response.status == 200
    title = page.locator(".swagger-ui .info .title")
    await expect(title).to_contain_text("webagent", timeout=RENDER_MS)
    operations = page.locator(".opblock")
    await expect(operations.first).to_be_visible(timeout=RENDER_MS)
    assert await operations.count() >= 5
    await expect(page.locator(".opblock-summary-path", has_text="/v1/tasks").first).to_be_visible()
    assert offline_page.blocked == []


async def test_redoc_renders_offline(api_viewer: ApiViewer, offline_page: OfflinePage) -> None:
    page = offline_page.page
    response = await page.goto(f"{api_viewer.base_url}/redoc")
    assert response is not None and response.status == 200
    await expect(page.locator("h1", has_text="webagent")).to_be_visible(timeout=RENDER_MS)
    await expect(page.get_by_text("/v1/tasks").first).to_be_attached()
    assert offline_page.blocked == []


async def test_docs_assets_are_served_locally(api_viewer: ApiViewer) -> None:
    async with httpx.AsyncClient(base_url=api_viewer.base_url) as client:
        docs = await client.get("/docs")
        html = docs.text
        assert docs.headers["content-security-policy"].startswith("default-src 'self';")
        for asset in ("swagger-ui-bundle.js", "swagger-ui.css"):
            assert f"/static/docs/{asset}" in html
            assert (await client.get(f"/static/docs/{asset}")).status_code == 200
        redoc = (await client.get("/redoc")).text
        assert "/static/docs/redoc.standalone.js" in redoc
        assert "fonts.googleapis.com" not in redoc
        for page in (html, redoc):
            assert "cdn.jsdelivr.net" not in page
