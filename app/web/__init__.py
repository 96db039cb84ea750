"""The run viewer (`/`) and the offline API docs (`/docs`, `/redoc`), served by the API.

No build step and no CDN: Jinja2 templates, a stylesheet and two vanilla scripts shipped in
this package, Swagger UI / ReDoc from an installed wheel.
"""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from app.web.auth import CookieCredentials
from app.web.docs import install_docs
from app.web.routes import (
    Forbidden,
    LoginRequired,
    forbidden_handler,
    login_required_handler,
    router,
)

STATIC_URL = "/static/viewer"


def install(app: FastAPI) -> None:
    """Add the viewer and the docs. Call after the app's other middleware: the cookie must
    become an Authorization header before any guard reads it."""
    app.add_middleware(CookieCredentials)
    install_docs(app)
    app.mount(STATIC_URL, StaticFiles(packages=[("app.web", "static")]), name="viewer-static")
    app.add_exception_handler(LoginRequired, login_required_handler)
    app.add_exception_handler(Forbidden, forbidden_handler)
    app.include_router(router)
