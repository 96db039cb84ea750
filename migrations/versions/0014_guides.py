"""Operator guides (issue 21, seed 004 §3.1): markdown per site or for every site of a tenant,
turned into a run's first directives.

Revision ID: 0014_guides
Revises: 0012_website_mem
Create Date: 2026-11-27 00:00:00

tests/integration/db/test_migrations.py compares head with app/db/models.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014_guides"
down_revision: str | None = "0012_website_mem"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "guides",
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("tenant_id", sa.String(64), nullable=False),
        sa.Column("domain", sa.String(255), nullable=True),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_guides"),
    )
    op.create_index("ix_guides_tenant_id_domain", "guides", ["tenant_id", "domain"])


def downgrade() -> None:
    op.drop_index("ix_guides_tenant_id_domain", table_name="guides")
    op.drop_table("guides")
