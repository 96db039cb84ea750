"""Initial schema: tasks, events, artifacts, ledgers, memory, API keys.

Revision ID: 0001_initial
Revises:
Create Date: 2025-01-01 00:00:00

Hand-written to match app/db/models.py; tests/integration/db/test_migrations.py
compares the migrated schema with the models on Postgres and SQLite.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001_initial"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _ts(name: str, nullable: bool = False) -> sa.Column:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def _id() -> sa.Column:
    return sa.Column("id", sa.String(32), nullable=False)


def _create_tasks() -> None:
    zero = sa.text("0")
    op.create_table(
        "tasks",
        _id(),
        sa.Column("tenant_id", sa.String(64), nullable=False),
        sa.Column("status", sa.String(32), nullable=False),
        sa.Column("instruction", sa.Text(), nullable=False),
        sa.Column("start_url", sa.Text(), nullable=True),
        sa.Column("domain", sa.String(255), nullable=True),
        sa.Column("max_steps", sa.Integer(), nullable=False),
        sa.Column("timeout_s", sa.Float(), nullable=False),
        sa.Column("allowed_domains", sa.JSON(), nullable=False),
        sa.Column("metadata", sa.JSON(), nullable=False),
        sa.Column("idempotency_key", sa.String(255), nullable=True),
        sa.Column("request_hash", sa.String(64), nullable=True),
        sa.Column("answer", sa.Text(), nullable=True),
        sa.Column("success", sa.Boolean(), nullable=True),
        sa.Column("error", sa.String(64), nullable=True),
        sa.Column("error_detail", sa.Text(), nullable=True),
        sa.Column("steps", sa.Integer(), nullable=False, server_default=zero),
        sa.Column("llm_calls", sa.Integer(), nullable=False, server_default=zero),
        sa.Column("input_tokens", sa.Integer(), nullable=False, server_default=zero),
        sa.Column("output_tokens", sa.Integer(), nullable=False, server_default=zero),
        sa.Column("cancel_requested", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("worker_id", sa.String(255), nullable=True),
        _ts("heartbeat_at", nullable=True),
        _ts("created_at"),
        _ts("queued_at", nullable=True),
        _ts("started_at", nullable=True),
        _ts("finished_at", nullable=True),
        _ts("updated_at"),
        sa.PrimaryKeyConstraint("id", name="pk_tasks"),
        sa.UniqueConstraint(
            "tenant_id", "idempotency_key", name="uq_tasks_tenant_id_idempotency_key"
        ),
    )
    op.create_index("ix_tasks_tenant_id_created_at_id", "tasks", ["tenant_id", "created_at", "id"])
    op.create_index("ix_tasks_status_heartbeat_at", "tasks", ["status", "heartbeat_at"])


def _create_task_children() -> None:
    op.create_table(
        "task_events",
        _id(),
        sa.Column("task_id", sa.String(32), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        _ts("ts"),
        sa.Column("type", sa.String(64), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_task_events"),
        sa.ForeignKeyConstraint(
            ["task_id"], ["tasks.id"], ondelete="CASCADE", name="fk_task_events_task_id_tasks"
        ),
        sa.UniqueConstraint("task_id", "seq", name="uq_task_events_task_id_seq"),
    )
    op.create_table(
        "artifacts",
        _id(),
        sa.Column("task_id", sa.String(32), nullable=False),
        sa.Column("tenant_id", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("step", sa.Integer(), nullable=False),
        sa.Column("content_type", sa.String(128), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        _ts("created_at"),
        sa.PrimaryKeyConstraint("id", name="pk_artifacts"),
        sa.ForeignKeyConstraint(
            ["task_id"], ["tasks.id"], ondelete="CASCADE", name="fk_artifacts_task_id_tasks"
        ),
        sa.UniqueConstraint("task_id", "kind", "step", name="uq_artifacts_task_id_kind_step"),
    )
    op.create_table(
        "ledgers",
        _id(),
        sa.Column("task_id", sa.String(32), nullable=False),
        sa.Column("tenant_id", sa.String(64), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        _ts("updated_at"),
        sa.PrimaryKeyConstraint("id", name="pk_ledgers"),
        sa.ForeignKeyConstraint(
            ["task_id"], ["tasks.id"], ondelete="CASCADE", name="fk_ledgers_task_id_tasks"
        ),
        sa.UniqueConstraint("task_id", name="uq_ledgers_task_id"),
    )


def _create_memory() -> None:
    op.create_table(
        "facts",
        _id(),
        sa.Column("task_id", sa.String(32), nullable=True),
        sa.Column("tenant_id", sa.String(64), nullable=False),
        sa.Column("domain", sa.String(255), nullable=True),
        sa.Column("category", sa.String(64), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column("source_step", sa.Integer(), nullable=True),
        _ts("created_at"),
        sa.PrimaryKeyConstraint("id", name="pk_facts"),
        sa.ForeignKeyConstraint(
            ["task_id"], ["tasks.id"], ondelete="SET NULL", name="fk_facts_task_id_tasks"
        ),
    )
    op.create_index("ix_facts_task_id", "facts", ["task_id"])
    op.create_index("ix_facts_tenant_id_domain", "facts", ["tenant_id", "domain"])
    op.create_table(
        "dead_ends",
        _id(),
        sa.Column("task_id", sa.String(32), nullable=True),
        sa.Column("tenant_id", sa.String(64), nullable=False),
        sa.Column("domain", sa.String(255), nullable=True),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("cause", sa.Text(), nullable=False),
        _ts("created_at"),
        sa.PrimaryKeyConstraint("id", name="pk_dead_ends"),
        sa.ForeignKeyConstraint(
            ["task_id"], ["tasks.id"], ondelete="SET NULL", name="fk_dead_ends_task_id_tasks"
        ),
    )
    op.create_index("ix_dead_ends_task_id", "dead_ends", ["task_id"])
    op.create_index("ix_dead_ends_tenant_id_domain", "dead_ends", ["tenant_id", "domain"])
    op.create_table(
        "domain_learnings",
        _id(),
        sa.Column("tenant_id", sa.String(64), nullable=False),
        sa.Column("domain", sa.String(255), nullable=False),
        sa.Column("key", sa.String(255), nullable=False),
        sa.Column("value", sa.JSON(), nullable=False),
        sa.Column("hits", sa.Integer(), nullable=False, server_default=sa.text("1")),
        _ts("updated_at"),
        sa.PrimaryKeyConstraint("id", name="pk_domain_learnings"),
        sa.UniqueConstraint(
            "tenant_id", "domain", "key", name="uq_domain_learnings_tenant_id_domain_key"
        ),
    )


def _create_api_keys() -> None:
    op.create_table(
        "api_keys",
        _id(),
        sa.Column("tenant_id", sa.String(64), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("key_hash", sa.String(64), nullable=False),
        sa.Column("prefix", sa.String(16), nullable=False),
        _ts("created_at"),
        _ts("revoked_at", nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_api_keys"),
        sa.UniqueConstraint("key_hash", name="uq_api_keys_key_hash"),
    )
    op.create_index("ix_api_keys_tenant_id", "api_keys", ["tenant_id"])


def upgrade() -> None:
    _create_tasks()
    _create_task_children()
    _create_memory()
    _create_api_keys()


def downgrade() -> None:
    for table in (
        "api_keys",
        "domain_learnings",
        "dead_ends",
        "facts",
        "ledgers",
        "artifacts",
        "task_events",
        "tasks",
    ):
        op.drop_table(table)
