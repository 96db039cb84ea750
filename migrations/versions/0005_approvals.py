"""Approvals: a person's decision on a paused task (issue 12 "Sensitive actions need a
person", issue 8 "Challenges and blocks"), and the task's `approval_policy`.

Revision ID: 0005_approvals
Revises: 0004_task_secrets
Create Date: 2026-11-23 00:00:00

One row per request: its kind (sensitive_action, challenge, login), why, what the page
showed (details JSON: url, element, screenshot artifact id), and the decision
(pending -> approved | denied | expired) with who made it and when.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005_approvals"
down_revision: str | None = "0004_task_secrets"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "approvals",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("task_id", sa.String(32), nullable=False),
        sa.Column("tenant_id", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("details", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("decided_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("decided_by", sa.String(255), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_approvals"),
        sa.ForeignKeyConstraint(
            ["task_id"], ["tasks.id"], ondelete="CASCADE", name="fk_approvals_task_id_tasks"
        ),
    )
    op.create_index("ix_approvals_task_id_created_at", "approvals", ["task_id", "created_at"])
    with op.batch_alter_table("tasks") as batch:
        batch.add_column(
            sa.Column(
                "approval_policy",
                sa.String(16),
                nullable=False,
                server_default=sa.text("'sensitive'"),
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("tasks") as batch:
        batch.drop_column("approval_policy")
    op.drop_index("ix_approvals_task_id_created_at", table_name="approvals")
    op.drop_table("approvals")
