"""Schema facts other code relies on: constraint names, the `metadata` column, keys."""

from __future__ import annotations

from sqlalchemy import UniqueConstraint

from app.db.models import Base, Task, new_id


def _uniques(table: str) -> set[tuple[str, ...]]:
    return {
        tuple(c.name for c in con.columns)
        for con in Base.metadata.tables[table].constraints
        if isinstance(con, UniqueConstraint)
    }


def test_all_tables_present() -> None:
    assert set(Base.metadata.tables) >= {
        "tasks",
        "task_events",
        "artifacts",
        "ledgers",
        "facts",
        "dead_ends",
        "domain_learnings",
        "api_keys",
        "ledger_steps",
        "episodic_notes",
        "webhook_deliveries",
        "browser_profiles",
    }


def test_unique_constraints_that_guard_races() -> None:
    assert ("tenant_id", "idempotency_key") in _uniques("tasks")
    assert ("task_id", "seq") in _uniques("task_events")
    assert ("task_id", "kind", "step") in _uniques("artifacts")
    assert ("task_id",) in _uniques("ledgers")
    assert ("tenant_id", "domain", "key") in _uniques("domain_learnings")
    assert ("key_hash",) in _uniques("api_keys")


def test_task_meta_attribute_maps_to_metadata_column() -> None:
    assert Task.__table__.c["metadata"].name == "metadata"
    assert Task.meta.property.columns[0].name == "metadata"


def test_task_indexes() -> None:
    indexes = {
        str(ix.name): tuple(c.name for c in ix.columns)
        for ix in Base.metadata.tables["tasks"].indexes
    }
    assert indexes["ix_tasks_tenant_id_created_at_id"] == ("tenant_id", "created_at", "id")
    assert indexes["ix_tasks_status_heartbeat_at"] == ("status", "heartbeat_at")


def test_new_id_is_uuid4_hex() -> None:
    a, b = new_id(), new_id()
    assert a != b and len(a) == 32 and int(a, 16) >= 0 and a[12] == "4"
