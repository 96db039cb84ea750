"""task_events partitioned by month on Postgres (issue 25, retention).

Revision ID: 0017_retention
Revises: 0013_webhook_events
Create Date: 2026-11-27 18:30:00

The table becomes `PARTITION BY RANGE (ts)`, one partition a month from its oldest event's
month to `AHEAD` months after this one, plus a default partition (app/db/partitions.py); the
existing rows are copied over. The primary key becomes (id, ts) (a partitioned table's
unique keys must hold the partition key) and (task_id, seq) is a unique index on every
partition. The pruner drops whole month partitions once every tenant's retention is past
them. SQLite keeps the plain table (the pruner deletes rows there).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from alembic import op
from sqlalchemy import text

from app.db import partitions

revision: str = "0017_retention"
down_revision: str | None = "0016_artifact_store"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = "id, task_id, seq, ts, type, data"
OLD = "task_events_plain"


def _columns(pk: str) -> str:
    return (
        "id VARCHAR(32) NOT NULL, task_id VARCHAR(32) NOT NULL, seq INTEGER NOT NULL, "
        "ts TIMESTAMP WITH TIME ZONE NOT NULL, type VARCHAR(64) NOT NULL, data JSON NOT NULL, "
        f"CONSTRAINT pk_task_events PRIMARY KEY ({pk}), "
        "CONSTRAINT fk_task_events_task_id_tasks FOREIGN KEY (task_id) "
        "REFERENCES tasks (id) ON DELETE CASCADE"
    )


def _set_aside() -> None:
    """Rename the current table and its constraints out of the way."""
    op.execute(f"ALTER TABLE task_events RENAME TO {OLD}")
    op.execute(f"ALTER TABLE {OLD} RENAME CONSTRAINT pk_task_events TO pk_{OLD}")
    op.execute(f"ALTER TABLE {OLD} RENAME CONSTRAINT fk_task_events_task_id_tasks TO fk_{OLD}")


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    _set_aside()
    op.execute(f"ALTER TABLE {OLD} RENAME CONSTRAINT uq_task_events_task_id_seq TO uq_{OLD}")
    op.execute(f"CREATE TABLE task_events ({_columns('id, ts')}) PARTITION BY RANGE (ts)")
    now = datetime.now(UTC)
    oldest = op.get_bind().execute(text(f"SELECT min(ts) FROM {OLD}")).scalar() or now
    month = partitions.month_start(oldest)
    while month <= partitions.month_start(now, partitions.AHEAD):
        for sql in partitions.create_sql(partitions.partition_for(month)):
            op.execute(sql)
        month = partitions.month_start(month, 1)
    for sql in partitions.default_sql():
        op.execute(sql)
    op.execute(f"INSERT INTO task_events ({COLUMNS}) SELECT {COLUMNS} FROM {OLD}")
    op.execute(f"DROP TABLE {OLD}")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    _set_aside()
    op.execute(
        f"CREATE TABLE task_events ({_columns('id')}, "
        "CONSTRAINT uq_task_events_task_id_seq UNIQUE (task_id, seq))"
    )
    op.execute(f"INSERT INTO task_events ({COLUMNS}) SELECT {COLUMNS} FROM {OLD}")
    op.execute(f"DROP TABLE {OLD} CASCADE")
