"""Memory across runs (issue 21): dead ends per site with counts and an expiry by cause,
learnings with the runs that wrote them, facts with their source URL.

Revision ID: 0010_memory
Revises: 0009_result_grounding
Create Date: 2026-11-28 00:00:00

`site_dead_ends` holds one row per (tenant, domain, page + action) that later runs read
(`dead_ends` stays the per-run record); `domain_learnings` gains `task_ids` (the runs that
wrote a key, newest first) and `created_at`; `facts` gains `url`.
tests/integration/db/test_migrations.py compares head with app/db/models.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010_memory"
down_revision: str | None = "0009_result_grounding"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "site_dead_ends",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("tenant_id", sa.String(64), nullable=False),
        sa.Column("domain", sa.String(255), nullable=False),
        sa.Column("key", sa.String(64), nullable=False),
        sa.Column("page", sa.Text(), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("cause", sa.String(64), nullable=False),
        sa.Column("description", sa.Text(), nullable=True),
        sa.Column("signature", sa.Text(), nullable=True),
        sa.Column("target", sa.Text(), nullable=True),
        sa.Column("count", sa.Integer(), server_default=sa.text("1"), nullable=False),
        sa.Column("first_seen", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("first_task_id", sa.String(32), nullable=True),
        sa.Column("last_task_id", sa.String(32), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_site_dead_ends"),
        sa.UniqueConstraint(
            "tenant_id", "domain", "key", name="uq_site_dead_ends_tenant_id_domain_key"
        ),
    )
    with op.batch_alter_table("domain_learnings") as batch:
        batch.add_column(sa.Column("task_ids", sa.JSON(), nullable=True))
        batch.add_column(sa.Column("created_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("facts") as batch:
        batch.add_column(sa.Column("url", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("facts") as batch:
        batch.drop_column("url")
    with op.batch_alter_table("domain_learnings") as batch:
        batch.drop_column("created_at")
        batch.drop_column("task_ids")
    op.drop_table("site_dead_ends")
