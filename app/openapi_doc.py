"""Writes the committed API document: `python -m app.openapi_doc > docs/openapi.json`.

Apart from app/openapi.py (which app/main.py installs) so the two never import each other;
tests/unit/api/test_openapi.py fails while docs/openapi.json is stale.
"""

from __future__ import annotations

import sys

from fastapi import FastAPI

from app.main import create_app
from app.openapi import render
from app.settings import Settings


def reference_app() -> FastAPI:
    """The app the committed document describes (settings that change no route)."""
    settings = Settings(database_url="sqlite+aiosqlite:///unused.db", redis_url="redis://unused")
    return create_app(settings)


def main() -> None:
    sys.stdout.write(render(reference_app().openapi()))


if __name__ == "__main__":
    main()
