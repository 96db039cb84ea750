"""Task secrets: names in clear, values as one Fernet token (app/secrets.py).

Revision ID: 0004_task_secrets
Revises: 0003_api_key_scopes
Create Date: 2026-11-23 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004_task_secrets"
down_revision: str | None = "0003_api_key_scopes"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tasks") as batch:
        batch.add_column(sa.Column("secret_names", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("secrets_sealed", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tasks") as batch:
        batch.drop_column("secrets_sealed")
        batch.drop_column("secret_names")
