"""`/docs` (Swagger UI) and `/redoc` served with self-hosted assets: they render on a
machine without internet access.

FastAPI's default pages load their JavaScript, CSS, favicon (and ReDoc's Google fonts) from
public CDNs, so behind a firewall `/docs` is a blank page. The assets come from the
`fastapi-offline` wheel (Swagger UI bundle + CSS, ReDoc standalone, MIT licensed; see its
LICENSE in the installed distribution) and are served under `/static/docs/`; both pages carry
a Content-Security-Policy that confines them to this origin.
Test: tests/integration/ui/test_docs_offline.py (Chromium with every non-loopback request
aborted).
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.resources import files
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

ASSETS_URL = "/static/docs"
DOCS_URL = "/docs"
REDOC_URL = "/redoc"
OAUTH2_REDIRECT_URL = "/docs/oauth2-redirect"
# this origin only: nothing is fetched from outside, not even ReDoc's footer logo. Inline
# script (Swagger UI's bootstrap) and styles (ReDoc's styled-components) are needed.
DOCS_CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
    "script-src 'self' 'unsafe-inline'; worker-src 'self' blob:; connect-src 'self'; "
    "font-src 'self' data:; frame-ancestors 'none'"
)


def _confined(response: HTMLResponse) -> HTMLResponse:
    response.headers["Content-Security-Policy"] = DOCS_CSP
    return response


def assets_dir() -> Path:
    """Directory of the vendored Swagger UI / ReDoc files inside the installed wheel."""
    return Path(str(files("fastapi_offline") / "static"))


def install_docs(app: FastAPI) -> None:
    """Mount the assets and add the two pages (create_app turns FastAPI's own off)."""
    app.mount(ASSETS_URL, StaticFiles(directory=assets_dir()), name="docs-assets")
    openapi_url = app.openapi_url or "/openapi.json"

    def page(path: str, build: Callable[[str], HTMLResponse]) -> None:
        """GET `path`: the page `build` makes for the app's root path, confined by CSP."""

        async def serve(request: Request) -> HTMLResponse:
            return _confined(build(request.scope.get("root_path", "")))

        app.add_api_route(path, serve, methods=["GET"], include_in_schema=False)

    page(
        DOCS_URL,
        lambda root: get_swagger_ui_html(
            openapi_url=f"{root}{openapi_url}",
            title=f"{app.title} - API docs",
            oauth2_redirect_url=f"{root}{OAUTH2_REDIRECT_URL}",
            swagger_js_url=f"{root}{ASSETS_URL}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{ASSETS_URL}/swagger-ui.css",
            swagger_favicon_url=f"{root}{ASSETS_URL}/favicon.png",
            # no badge from the public validator service: the page makes no outside request
            swagger_ui_parameters={"validatorUrl": None, **(app.swagger_ui_parameters or {})},
        ),
    )
    page(
        REDOC_URL,
        lambda root: get_redoc_html(
            openapi_url=f"{root}{openapi_url}",
            title=f"{app.title} - API reference",
            redoc_js_url=f"{root}{ASSETS_URL}/redoc.standalone.js",
            redoc_favicon_url=f"{root}{ASSETS_URL}/favicon.png",
            with_google_fonts=False,
        ),
    )

    @app.get(OAUTH2_REDIRECT_URL, include_in_schema=False)
    async def swagger_ui_redirect() -> HTMLResponse:
        return get_swagger_ui_oauth2_redirect_html()
