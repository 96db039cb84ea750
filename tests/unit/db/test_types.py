"""UTCDateTime binding rules and URL → domain extraction, without a database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from sqlalchemy.dialects import postgresql, sqlite

from app.db.repo_tasks import domain_of
from app.db.types import UTCDateTime

PG = postgresql.dialect()
LITE = sqlite.dialect()


def test_sqlite_binds_naive_utc_and_reads_back_aware() -> None:
    col = UTCDateTime()
    local = datetime(2030, 1, 1, 12, 0, tzinfo=timezone(timedelta(hours=-5)))
    bound = col.process_bind_param(local, LITE)
    assert bound == datetime(2030, 1, 1, 17, 0) and bound.tzinfo is None
    back = col.process_result_value(bound, LITE)
    assert back == local and back is not None and back.tzinfo == UTC


def test_postgres_binds_aware_utc() -> None:
    col = UTCDateTime()
    local = datetime(2030, 1, 1, 12, 0, tzinfo=timezone(timedelta(hours=3)))
    bound = col.process_bind_param(local, PG)
    assert bound is not None and bound.tzinfo == UTC and bound.hour == 9


def test_naive_input_is_taken_as_utc_and_none_passes() -> None:
    col = UTCDateTime()
    assert col.process_bind_param(datetime(2030, 1, 1), PG) == datetime(2030, 1, 1, tzinfo=UTC)
    assert col.process_bind_param(None, LITE) is None
    assert col.process_result_value(None, LITE) is None


def test_non_datetime_is_rejected() -> None:
    with pytest.raises(TypeError):
        UTCDateTime().process_bind_param("2030-01-01", LITE)


@pytest.mark.parametrize(
    ("url", "domain"),
    [
        ("https://Shop.Example.COM/a?b=1", "shop.example.com"),
        ("http://user:pw@host.test:8080/", "host.test"),
        ("https://example.com./", "example.com"),
        ("http://127.0.0.1:5000/x", "127.0.0.1"),
        ("about:blank", None),
        ("", None),
        (None, None),
    ],
)
def test_domain_of(url: str | None, domain: str | None) -> None:
    assert domain_of(url) == domain
