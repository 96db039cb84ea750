"""Task policy: seed 003 §9.3 profile, seed 004 App. C.5 login ban, private regions.

Revision ID: 0007_task_policy
Revises: 0006_webhooks_profiles
Create Date: 2026-11-23 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007_task_policy"
down_revision: str | None = "0006_webhooks_profiles"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tasks") as batch:
        batch.add_column(sa.Column("task_profile", sa.String(32), nullable=True))
        batch.add_column(
            sa.Column("forbid_login", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.add_column(sa.Column("private_regions", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tasks") as batch:
        batch.drop_column("private_regions")
        batch.drop_column("forbid_login")
        batch.drop_column("task_profile")
