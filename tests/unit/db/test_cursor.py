"""Keyset cursor encoding: opaque, url-safe, round-trips, rejects forgeries."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from app.db.cursor import decode_cursor, encode_cursor
from app.db.errors import InvalidCursor


def test_roundtrip_keeps_microseconds_and_id() -> None:
    at = datetime(2030, 2, 3, 4, 5, 6, 789012, tzinfo=UTC)
    cursor = encode_cursor(at, "ab" * 16)
    assert decode_cursor(cursor) == (at, "ab" * 16)


def test_cursor_is_url_safe_without_padding() -> None:
    cursor = encode_cursor(datetime(2030, 1, 1, tzinfo=UTC), "x" * 31)
    assert "=" not in cursor and "+" not in cursor and "/" not in cursor


def test_offsets_and_naive_times_normalise_to_utc() -> None:
    plus_one = datetime(2030, 1, 1, 12, tzinfo=timezone(timedelta(hours=1)))
    at, _ = decode_cursor(encode_cursor(plus_one, "id"))
    assert at == plus_one and at.tzinfo == UTC and at.hour == 11
    naive_at, _ = decode_cursor(encode_cursor(datetime(2030, 1, 1, 12), "id"))
    assert naive_at == datetime(2030, 1, 1, 12, tzinfo=UTC)


@pytest.mark.parametrize(
    "bad",
    ["", "not-a-cursor", "!!!!", "WzEsMl0", "eyJhIjoxfQ", "WyJub3QtYS1kYXRlIiwiaWQiXQ"],
)
def test_malformed_cursors_raise_invalid_cursor(bad: str) -> None:
    with pytest.raises(InvalidCursor):
        decode_cursor(bad)


def test_invalid_cursor_is_a_value_error() -> None:
    assert issubclass(InvalidCursor, ValueError)
