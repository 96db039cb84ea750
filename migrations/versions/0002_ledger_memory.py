"""Ledger persistence (seed 000 §5.2): append-only steps and episodic notes, fact keys,
dead-end descriptions, signatures and steps.

Revision ID: 0002_ledger_memory
Revises: 0001_initial
Create Date: 2026-11-23 00:00:00

`ledgers` (the snapshot, rewritten on each update), `facts`, `dead_ends` and
`domain_learnings` came with 0001; this adds the trajectory rows a finished run is rebuilt
from. tests/integration/db/test_migrations.py compares head with app/db/models.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002_ledger_memory"
down_revision: str | None = "0001_initial"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _task_child(name: str, *columns: sa.Column) -> None:
    op.create_table(
        name,
        sa.Column("id", sa.String(32), nullable=False),
        sa.Column("task_id", sa.String(32), nullable=False),
        sa.Column("tenant_id", sa.String(64), nullable=False),
        *columns,
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=f"pk_{name}"),
        sa.ForeignKeyConstraint(
            ["task_id"], ["tasks.id"], ondelete="CASCADE", name=f"fk_{name}_task_id_tasks"
        ),
    )


def upgrade() -> None:
    _task_child(
        "ledger_steps",
        sa.Column("step", sa.Integer(), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
    )
    op.create_index("ix_ledger_steps_task_id_step", "ledger_steps", ["task_id", "step"])
    _task_child(
        "episodic_notes",
        sa.Column("step", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
    )
    op.create_index(
        "ix_episodic_notes_task_id_created_at", "episodic_notes", ["task_id", "created_at"]
    )
    with op.batch_alter_table("facts") as batch:
        batch.add_column(sa.Column("key", sa.String(255), nullable=True))
    with op.batch_alter_table("dead_ends") as batch:
        batch.add_column(sa.Column("description", sa.Text(), nullable=True))
        batch.add_column(sa.Column("signature", sa.Text(), nullable=True))
        batch.add_column(sa.Column("step", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("dead_ends") as batch:
        batch.drop_column("step")
        batch.drop_column("signature")
        batch.drop_column("description")
    with op.batch_alter_table("facts") as batch:
        batch.drop_column("key")
    op.drop_table("episodic_notes")
    op.drop_table("ledger_steps")
