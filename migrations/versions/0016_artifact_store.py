"""Artifact bytes move to the artifact store (issue 25): rows keep metadata only.

Revision ID: 0016_artifact_store
Revises: 0013_webhook_events
Create Date: 2026-11-27 00:00:00

`artifacts` gains size, sha256 and storage_key; `task_attachments` sha256 and storage_key;
both `data` columns become nullable: rows written before this revision keep their bytes
until `webagent artifacts migrate` moves them to the store (resumable, idempotent) and
clears the column. `tasks.record_trace` asks for a Playwright trace of the run. Batch mode
rebuilds the tables on SQLite. tests/integration/db/test_migrations.py compares head with
app/db/models.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016_artifact_store"
down_revision: str | None = "0013_webhook_events"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("artifacts") as batch:
        batch.add_column(sa.Column("size", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("sha256", sa.String(64), nullable=True))
        batch.add_column(sa.Column("storage_key", sa.String(512), nullable=True))
        batch.alter_column("data", existing_type=sa.LargeBinary(), nullable=True)
    # the size of the rows that still hold their bytes (the API lists it without reading them)
    op.execute("UPDATE artifacts SET size = length(data) WHERE data IS NOT NULL")
    with op.batch_alter_table("task_attachments") as batch:
        batch.add_column(sa.Column("sha256", sa.String(64), nullable=True))
        batch.add_column(sa.Column("storage_key", sa.String(512), nullable=True))
        batch.alter_column("data", existing_type=sa.LargeBinary(), nullable=True)
    with op.batch_alter_table("tasks") as batch:
        batch.add_column(
            sa.Column("record_trace", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    """Only for databases whose blobs were never moved out: moved rows have no bytes here."""
    with op.batch_alter_table("tasks") as batch:
        batch.drop_column("record_trace")
    for table in ("task_attachments", "artifacts"):
        op.execute(f"DELETE FROM {table} WHERE data IS NULL")
        with op.batch_alter_table(table) as batch:
            batch.alter_column("data", existing_type=sa.LargeBinary(), nullable=False)
            batch.drop_column("storage_key")
            batch.drop_column("sha256")
    with op.batch_alter_table("artifacts") as batch:
        batch.drop_column("size")
