"""The query API: keyword-only functions taking an AsyncSession first.

Every function flushes (or executes) but never commits; the caller owns the
transaction and commits. Re-exports the per-concept modules so callers import
from one place: `from app.db import repositories as repo`.
"""

from __future__ import annotations

from app.db.cursor import decode_cursor, encode_cursor
from app.db.errors import IdempotencyConflict, InvalidCursor, UnsupportedBackend
from app.db.repo_events import (
    append_event,
    event_to_contract,
    get_artifact,
    get_ledger,
    legacy_artifact_data,
    list_artifacts,
    list_events,
    next_event_seq,
    save_artifact,
    save_ledger,
)
from app.db.repo_keys import (
    create_api_key,
    find_api_key,
    hash_api_key,
    list_api_keys,
    revoke_api_key,
)
from app.db.repo_ledger import (
    add_episodic_note,
    add_ledger_step,
    list_episodic_notes,
    list_ledger_steps,
)
from app.db.repo_memory import (
    add_dead_end,
    add_fact,
    forget_domain,
    get_domain_learnings,
    list_dead_ends,
    list_domain_learnings,
    list_domains,
    list_facts,
    list_site_dead_ends,
    put_domain_learning,
    record_site_dead_end,
)
from app.db.repo_routes import count_route_replay, list_routes, save_route
from app.db.repo_sites import (
    claim_exploration,
    create_exploration,
    finish_exploration,
    get_exploration,
    latest_website_mem,
    reap_lost_explorations,
    report_progress,
    save_website_mem,
)
from app.db.repo_tasks import (
    count_by_status,
    create_task,
    domain_of,
    finish_task,
    get_task,
    heartbeat,
    is_cancel_requested,
    list_tasks,
    mark_running,
    reap_lost_tasks,
    request_cancel,
    set_awaiting_approval,
    task_to_spec,
    update_usage,
)

__all__ = [
    "IdempotencyConflict",
    "InvalidCursor",
    "UnsupportedBackend",
    "add_dead_end",
    "add_episodic_note",
    "add_fact",
    "add_ledger_step",
    "append_event",
    "claim_exploration",
    "count_by_status",
    "count_route_replay",
    "create_api_key",
    "create_exploration",
    "create_task",
    "decode_cursor",
    "domain_of",
    "encode_cursor",
    "event_to_contract",
    "find_api_key",
    "finish_exploration",
    "finish_task",
    "forget_domain",
    "get_artifact",
    "get_domain_learnings",
    "get_exploration",
    "get_ledger",
    "get_task",
    "hash_api_key",
    "heartbeat",
    "is_cancel_requested",
    "latest_website_mem",
    "legacy_artifact_data",
    "list_api_keys",
    "list_artifacts",
    "list_dead_ends",
    "list_domain_learnings",
    "list_domains",
    "list_episodic_notes",
    "list_events",
    "list_facts",
    "list_ledger_steps",
    "list_routes",
    "list_site_dead_ends",
    "list_tasks",
    "mark_running",
    "next_event_seq",
    "put_domain_learning",
    "reap_lost_explorations",
    "reap_lost_tasks",
    "record_site_dead_end",
    "report_progress",
    "request_cancel",
    "revoke_api_key",
    "save_artifact",
    "save_ledger",
    "save_route",
    "save_website_mem",
    "set_awaiting_approval",
    "task_to_spec",
    "update_usage",
]
