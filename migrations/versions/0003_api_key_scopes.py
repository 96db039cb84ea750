"""API key scopes (tasks:write, tasks:read, learnings:read, admin), space-separated.

Revision ID: 0003_api_key_scopes
Revises: 0002_ledger_memory
Create Date: 2026-11-23 00:00:00

Keys created before this revision keep what they could do then (every task route).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003_api_key_scopes"
down_revision: str | None = "0002_ledger_memory"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

LEGACY_SCOPES = "tasks:write tasks:read learnings:read"


def upgrade() -> None:
    with op.batch_alter_table("api_keys") as batch:
        batch.add_column(
            sa.Column(
                "scopes",
                sa.String(255),
                nullable=False,
                server_default=sa.text(f"'{LEGACY_SCOPES}'"),
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("api_keys") as batch:
        batch.drop_column("scopes")
