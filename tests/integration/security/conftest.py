"""Security tests reuse the API fixtures (real app over a migrated SQLite DB)."""

from __future__ import annotations

from tests.integration.api.conftest import (  # noqa: F401  (fixtures)
    app,
    bus,
    client,
    db_url,
    dispatcher,
    settings,
)
