"""Persistence errors callers are expected to handle (mapped to HTTP by the API)."""

from __future__ import annotations


class IdempotencyConflict(Exception):
    """The idempotency key was already used for a different request body (HTTP 409/422)."""

    def __init__(self, *, tenant_id: str, idempotency_key: str, existing_task_id: str) -> None:
        super().__init__(
            f"idempotency key {idempotency_key!r} already used by task {existing_task_id}"
            " with a different request"
        )
        self.tenant_id = tenant_id
        self.idempotency_key = idempotency_key
        self.existing_task_id = existing_task_id


class InvalidCursor(ValueError):
    """A pagination cursor that this service did not issue (HTTP 400)."""


class UnsupportedBackend(RuntimeError):
    """A database URL whose backend is neither Postgres nor SQLite (configuration error)."""
