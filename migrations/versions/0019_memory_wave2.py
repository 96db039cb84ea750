"""Issue 34 memory: the page a site's dead end was seen on, as a fingerprint (a later run
tries a "led nowhere" dead end again when the page it is on now shows something else than
the page it led nowhere on), and per route how many of the runs that replayed it fell back
to the model and how many passed the service's checks (`GET /v1/domains/{d}`).

Revision ID: 0019_memory_wave2
Revises: 0018_approval_timeout
Create Date: 2026-12-08 00:00:00

NULL on older rows: the dead end holds on any state of its page, as before.
tests/integration/db/test_migrations.py compares head with app/db/models.py.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019_memory_wave2"
down_revision: str | None = "0018_approval_timeout"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("site_dead_ends") as batch:
        batch.add_column(sa.Column("fingerprint", sa.String(length=64), nullable=True))
    with op.batch_alter_table("routes") as batch:
        for name in ("fallbacks", "successes"):
            batch.add_column(
                sa.Column(name, sa.Integer(), server_default=sa.text("0"), nullable=False)
            )


def downgrade() -> None:
    with op.batch_alter_table("routes") as batch:
        batch.drop_column("successes")
        batch.drop_column("fallbacks")
    with op.batch_alter_table("site_dead_ends") as batch:
        batch.drop_column("fingerprint")
