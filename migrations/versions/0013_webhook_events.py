"""Webhook events a task chooses (issue 23 §4): task.started and approval.requested besides
task.finished.

Revision ID: 0013_webhook_events
Revises: 0015_time_zone
Create Date: 2026-12-05 00:00:00

`tasks.webhook_events` lists the events a task's webhook receives (NULL: task.finished only,
as before). `webhook_deliveries` holds one row per message instead of one per task: the
unique task_id becomes a plain index, `event_type` names the message and `data` keeps what a
non-task event carries (the approval).
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013_webhook_events"
down_revision: str | None = "0015_time_zone"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tasks") as batch:
        batch.add_column(sa.Column("webhook_events", sa.JSON(), nullable=True))
    with op.batch_alter_table("webhook_deliveries") as batch:
        batch.drop_constraint("uq_webhook_deliveries_task_id", type_="unique")
        batch.add_column(
            sa.Column("event_type", sa.String(32), nullable=False, server_default="task.finished")
        )
        batch.add_column(sa.Column("data", sa.JSON(), nullable=True))
        batch.create_index("ix_webhook_deliveries_task_id", ["task_id"])


def downgrade() -> None:
    op.execute("DELETE FROM webhook_deliveries WHERE event_type != 'task.finished'")
    with op.batch_alter_table("webhook_deliveries") as batch:
        batch.drop_index("ix_webhook_deliveries_task_id")
        batch.drop_column("data")
        batch.drop_column("event_type")
        batch.create_unique_constraint("uq_webhook_deliveries_task_id", ["task_id"])
    with op.batch_alter_table("tasks") as batch:
        batch.drop_column("webhook_events")
