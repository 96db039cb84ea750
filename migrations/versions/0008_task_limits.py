"""Task limits: files uploaded with a task (what upload_file may use, seed 001 App. A.5) and
the per-task opt-in to evaluate_script.

Revision ID: 0008_task_limits
Revises: 0007_task_policy
Create Date: 2026-11-23 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008_task_limits"
down_revision: str | None = "0007_task_policy"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tasks") as batch:
        batch.add_column(
            sa.Column("allow_scripts", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.add_column(sa.Column("attachment_names", sa.JSON(), nullable=True))
        # per-task model budgets (workers/adapters/budget.py); NULL = no limit
        batch.add_column(sa.Column("max_tokens", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("max_cost_usd", sa.Float(), nullable=True))
    op.create_table(
        "task_attachments",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column(
            "task_id", sa.String(32), sa.ForeignKey("tasks.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("media_type", sa.String(128), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("task_id", "name"),
    )
    # the file name of an artifact the page produced (a download, a printed PDF)
    with op.batch_alter_table("artifacts") as batch:
        batch.add_column(sa.Column("name", sa.String(255), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("artifacts") as batch:
        batch.drop_column("name")
    op.drop_table("task_attachments")
    with op.batch_alter_table("tasks") as batch:
        batch.drop_column("max_cost_usd")
        batch.drop_column("max_tokens")
        batch.drop_column("attachment_names")
        batch.drop_column("allow_scripts")
