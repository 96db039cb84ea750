"""How long a task's approvals wait for a person (issue 31 item 5), decided at admission.

Revision ID: 0018_approval_timeout
Revises: 0017_retention
Create Date: 2026-12-07 00:00:00

NULL on older rows means WEBAGENT_APPROVAL_TIMEOUT_S. tests/integration/db/test_migrations.py
compares head with app/db/models.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018_approval_timeout"
down_revision: str | None = "0017_retention"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tasks") as batch:
        batch.add_column(sa.Column("approval_timeout_s", sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tasks") as batch:
        batch.drop_column("approval_timeout_s")
