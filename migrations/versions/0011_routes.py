"""Proven routes (issue 21): a verified run's action trace per (tenant, domain, intent),
and the task's opt-out of replaying one.

Revision ID: 0011_routes
Revises: 0010_memory
Create Date: 2026-12-01 00:00:00

`routes` holds one route per tenant, domain and intent (workers/agent/memory/routes.py: the
instruction with its value slots blanked, keyed by its sha256); `tasks.reuse_routes` (default
true) lets a task run without replaying one. tests/integration/db/test_migrations.py compares
head with app/db/models.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011_routes"
down_revision: str | None = "0010_memory"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "routes",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("tenant_id", sa.String(64), nullable=False),
        sa.Column("domain", sa.String(255), nullable=False),
        sa.Column("intent_key", sa.String(64), nullable=False),
        sa.Column("intent", sa.Text(), nullable=False),
        sa.Column("instruction", sa.Text(), nullable=False),
        sa.Column("slots", sa.JSON(), nullable=False),
        sa.Column("start", sa.Text(), nullable=False),
        sa.Column("steps", sa.JSON(), nullable=False),
        sa.Column("version", sa.Integer(), server_default=sa.text("1"), nullable=False),
        sa.Column("replays", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column("task_id", sa.String(32), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_replayed_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_routes"),
        sa.UniqueConstraint(
            "tenant_id", "domain", "intent_key", name="uq_routes_tenant_id_domain_intent_key"
        ),
    )
    with op.batch_alter_table("tasks") as batch:
        batch.add_column(
            sa.Column("reuse_routes", sa.Boolean(), server_default=sa.true(), nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("tasks") as batch:
        batch.drop_column("reuse_routes")
    op.drop_table("routes")
