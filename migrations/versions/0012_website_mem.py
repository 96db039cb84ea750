"""Site exploration (issue 21, seed 001 §2.3 / App. A.2): exploration jobs and the
versioned WebsiteMem per (tenant, domain) they write.

Revision ID: 0012_website_mem
Revises: 0011_routes
Create Date: 2026-11-29 00:00:00

`site_explorations` holds one row per `POST /v1/sites/explore` (request, status, progress,
the WebsiteMem version written); `website_mems` one row per (tenant, domain, version) with
the WebsiteMem as JSON. tests/integration/db/test_migrations.py compares head with
app/db/models.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012_website_mem"
down_revision: str | None = "0011_routes"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "site_explorations",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("tenant_id", sa.String(64), nullable=False),
        sa.Column("domain", sa.String(255), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("status", sa.String(32), nullable=False),
        sa.Column("params", sa.JSON(), nullable=False),
        sa.Column("progress", sa.JSON(), nullable=False),
        sa.Column("error", sa.String(64), nullable=True),
        sa.Column("error_detail", sa.Text(), nullable=True),
        sa.Column("version", sa.Integer(), nullable=True),
        sa.Column("worker_id", sa.String(255), nullable=True),
        sa.Column("heartbeat_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_site_explorations"),
    )
    op.create_index(
        "ix_site_explorations_tenant_id_created_at",
        "site_explorations",
        ["tenant_id", "created_at"],
    )
    op.create_table(
        "website_mems",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("tenant_id", sa.String(64), nullable=False),
        sa.Column("domain", sa.String(255), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("exploration_id", sa.String(32), nullable=True),
        sa.Column("start_url", sa.Text(), nullable=False),
        sa.Column("pages", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_website_mems"),
        sa.UniqueConstraint(
            "tenant_id", "domain", "version", name="uq_website_mems_tenant_id_domain_version"
        ),
    )


def downgrade() -> None:
    op.drop_table("website_mems")
    op.drop_index("ix_site_explorations_tenant_id_created_at", table_name="site_explorations")
    op.drop_table("site_explorations")
