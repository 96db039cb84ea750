"""Persistence: models, engine/session construction, repositories and migrations."""

from __future__ import annotations

from app.db.errors import IdempotencyConflict, InvalidCursor, UnsupportedBackend
from app.db.models import (
    ApiKey,
    Artifact,
    Base,
    DeadEnd,
    DomainLearning,
    EpisodicNote,
    Fact,
    Ledger,
    LedgerStep,
    SiteDeadEnd,
    SiteExploration,
    Task,
    TaskEvent,
    WebsiteMemRow,
)
from app.db.session import create_engine, session_factory

__all__ = [
    "ApiKey",
    "Artifact",
    "Base",
    "DeadEnd",
    "DomainLearning",
    "EpisodicNote",
    "Fact",
    "IdempotencyConflict",
    "InvalidCursor",
    "Ledger",
    "LedgerStep",
    "SiteDeadEnd",
    "SiteExploration",
    "Task",
    "TaskEvent",
    "UnsupportedBackend",
    "WebsiteMemRow",
    "create_engine",
    "session_factory",
]
