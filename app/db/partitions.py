"""Monthly partitions of `task_events` on Postgres (migration 0017): made ahead, dropped whole.

The table is partitioned by RANGE (ts), one partition a month named `task_events_yYYYYmMM`,
plus a default partition that catches events of a month nobody made a partition for (the
pruner keeps `AHEAD` months made, so it stays empty). Postgres only allows a unique index
on a partitioned table that includes the partition key, so the primary key is (id, ts) and
the (task_id, seq) uniqueness that tells two writers of the same seq apart is a unique index
on every partition: a task's events are written within its timeout, so both writes of one
seq land in the same month's partition.

On SQLite the table is a plain table and every function here does nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.repo_retention import NOTHING, Deleted

TABLE = "task_events"
DEFAULT = f"{TABLE}_default"
AHEAD = 3  # months made ahead of the current one
LOCK_KEY = 0x7461736B  # pg advisory lock: one process changes the partitions at a time


@dataclass(frozen=True)
class Partition:
    name: str
    start: datetime
    end: datetime


def month_start(when: datetime, add: int = 0) -> datetime:
    """The first instant (UTC) of `when`'s month, `add` months later."""
    index = when.astimezone(UTC).year * 12 + when.astimezone(UTC).month - 1 + add
    return datetime(index // 12, index % 12 + 1, 1, tzinfo=UTC)


def partition_for(month: datetime) -> Partition:
    start = month_start(month)
    return Partition(f"{TABLE}_y{start.year:04d}m{start.month:02d}", start, month_start(start, 1))


def create_sql(part: Partition) -> list[str]:
    """The statements making one month's partition and its (task_id, seq) unique index."""
    return [
        f"CREATE TABLE IF NOT EXISTS {part.name} PARTITION OF {TABLE} "
        f"FOR VALUES FROM ('{part.start.isoformat()}') TO ('{part.end.isoformat()}')",
        f"CREATE UNIQUE INDEX IF NOT EXISTS uq_{part.name}_task_id_seq "
        f"ON {part.name} (task_id, seq)",
    ]


def default_sql() -> list[str]:
    return [
        f"CREATE TABLE IF NOT EXISTS {DEFAULT} PARTITION OF {TABLE} DEFAULT",
        f"CREATE UNIQUE INDEX IF NOT EXISTS uq_{DEFAULT}_task_id_seq ON {DEFAULT} (task_id, seq)",
    ]


async def is_partitioned(s: AsyncSession) -> bool:
    if s.get_bind().dialect.name != "postgresql":
        return False
    found = await s.execute(
        text("SELECT 1 FROM pg_partitioned_table WHERE partrelid = to_regclass(:t)"), {"t": TABLE}
    )
    return found.first() is not None


async def monthly(s: AsyncSession) -> list[Partition]:
    """The month partitions that exist, oldest first (the default partition is not one)."""
    rows = await s.execute(
        text(
            "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
            "WHERE i.inhparent = to_regclass(:t)"
        ),
        {"t": TABLE},
    )
    parts = []
    for (name,) in rows:
        if name == DEFAULT or not name.startswith(f"{TABLE}_y"):
            continue
        year, month = int(name[-7:-3]), int(name[-2:])
        parts.append(partition_for(datetime(year, month, 1, tzinfo=UTC)))
    return sorted(parts, key=lambda p: p.start)


async def ensure_ahead(s: AsyncSession, now: datetime, ahead: int = AHEAD) -> list[str]:
    """Make this month's partition and `ahead` more; the names made."""
    if not await is_partitioned(s):
        return []
    await s.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": LOCK_KEY})
    have = {p.name for p in await monthly(s)}
    made = []
    for add in range(ahead + 1):
        part = partition_for(month_start(now, add))
        if part.name not in have:
            for sql in create_sql(part):
                await s.execute(text(sql))
            made.append(part.name)
    return made


async def drop_older_than(s: AsyncSession, bound: datetime) -> Deleted:
    """Drop every month partition that ends at or before `bound`; rows and bytes dropped."""
    if not await is_partitioned(s):
        return NOTHING
    await s.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": LOCK_KEY})
    done = NOTHING
    for part in await monthly(s):
        if part.end > bound:
            break
        rows = (await s.execute(text(f"SELECT count(*) FROM {part.name}"))).scalar_one()
        size = await s.execute(
            text("SELECT pg_total_relation_size(to_regclass(:p))"), {"p": part.name}
        )
        await s.execute(text(f"DROP TABLE {part.name}"))
        done = done + Deleted({TABLE: int(rows)}, int(size.scalar_one() or 0))
    return done
