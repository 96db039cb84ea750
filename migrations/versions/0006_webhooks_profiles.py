"""Results and delivery: output_schema / result data, webhook outbox, browser profiles.

Revision ID: 0006_webhooks_profiles
Revises: 0005_approvals
Create Date: 2026-11-23 23:40:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006_webhooks_profiles"
down_revision: str | None = "0005_approvals"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tasks") as batch:
        batch.add_column(sa.Column("output_schema", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("result_data", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("webhook_url", sa.Text(), nullable=True))
        batch.add_column(sa.Column("profile", sa.String(64), nullable=True))
        batch.add_column(
            sa.Column("save_profile", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    op.create_table(
        "webhook_deliveries",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("task_id", sa.String(32), nullable=False),
        sa.Column("tenant_id", sa.String(64), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False, server_default=sa.text("0")),
        sa.Column("attempts_log", sa.JSON(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("delivered_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["task_id"],
            ["tasks.id"],
            name="fk_webhook_deliveries_task_id_tasks",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_webhook_deliveries"),
        sa.UniqueConstraint("task_id", name="uq_webhook_deliveries_task_id"),
    )
    op.create_index(
        "ix_webhook_deliveries_state_next_attempt_at",
        "webhook_deliveries",
        ["state", "next_attempt_at"],
    )
    op.create_table(
        "browser_profiles",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("tenant_id", sa.String(64), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("storage_sealed", sa.Text(), nullable=True),
        sa.Column("saved_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_browser_profiles"),
        sa.UniqueConstraint("tenant_id", "name", name="uq_browser_profiles_tenant_id_name"),
    )


def downgrade() -> None:
    op.drop_table("browser_profiles")
    op.drop_index("ix_webhook_deliveries_state_next_attempt_at", "webhook_deliveries")
    op.drop_table("webhook_deliveries")
    with op.batch_alter_table("tasks") as batch:
        batch.drop_column("save_profile")
        batch.drop_column("profile")
        batch.drop_column("webhook_url")
        batch.drop_column("result_data")
        batch.drop_column("output_schema")
