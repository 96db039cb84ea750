"""A task's time zone (issue 22): the IANA name whose date and time the prompts show.

Revision ID: 0015_time_zone
Revises: 0014_guides
Create Date: 2026-11-27 00:00:00

NULL on older rows means UTC. tests/integration/db/test_migrations.py compares head with
app/db/models.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015_time_zone"
down_revision: str | None = "0014_guides"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tasks") as batch:
        batch.add_column(sa.Column("time_zone", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tasks") as batch:
        batch.drop_column("time_zone")
