"""Opaque keyset cursors for newest-first listings: (created_at, id) → url-safe text."""

from __future__ import annotations

import base64
import binascii
import json
from datetime import datetime

from app.db.errors import InvalidCursor
from app.db.types import as_utc


def encode_cursor(created_at: datetime, row_id: str) -> str:
    """The position *after* a row; ties on created_at are broken by id."""
    payload = json.dumps([as_utc(created_at).isoformat(), row_id], separators=(",", ":"))
    return base64.urlsafe_b64encode(payload.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, str]:
    """Inverse of encode_cursor; anything malformed raises InvalidCursor."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        raw = base64.urlsafe_b64decode(padded.encode("ascii"))
        stamp, row_id = json.loads(raw)
        if not isinstance(stamp, str) or not isinstance(row_id, str):
            raise TypeError("cursor fields must be strings")
        return as_utc(datetime.fromisoformat(stamp)), row_id
    except (ValueError, TypeError, UnicodeError, binascii.Error) as exc:
        raise InvalidCursor(f"invalid cursor: {cursor!r}") from exc
