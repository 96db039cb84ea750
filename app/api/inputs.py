"""Input hygiene at the HTTP edge: every bad value is a 422 naming its field, never a 500.

Refusals are 422 problem details (app/api/problems.py) listing each field error.
Python's JSON parser accepts NaN, Infinity and 1e400 (→ inf) and keeps lone surrogates;
Postgres rejects NUL bytes in text and integers beyond int32. These types refuse such
values where they enter, and the 422 renderer escapes whatever the client sent so the
error body itself always encodes.
"""

from __future__ import annotations

import json
import math
from datetime import datetime
from typing import Annotated, Any, NoReturn

from fastapi import Path, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import AfterValidator, BeforeValidator

from app.api.problems import problem_response

INT32_MAX = 2**31 - 1
TASK_ID_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"


def safe_text(value: str) -> str:
    """Text Postgres can store and UTF-8 can encode: no NUL, no lone surrogates."""
    if "\x00" in value:
        raise ValueError("must not contain NUL (\\u0000) characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError("must be valid Unicode text (no lone surrogates)") from exc
    return value


def safe_json(value: Any) -> Any:
    """A JSON value every backend stores: finite numbers and safe text, keys included."""
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"must be JSON without NaN or Infinity: {exc}") from exc
    _walk_text(value)
    return value


def _walk_text(value: Any) -> None:
    if isinstance(value, str):
        safe_text(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            safe_text(str(key))
            _walk_text(item)
    elif isinstance(value, list):
        for item in value:
            _walk_text(item)


def iso_only(value: Any) -> Any:
    """Date-times as ISO 8601 text only (pydantic would read '0.5' as a Unix timestamp)."""
    if isinstance(value, str):
        try:
            float(value)
        except ValueError:
            return value
        raise ValueError("must be an ISO 8601 date-time, e.g. 2026-01-31T12:00:00Z")
    return value


SafeStr = Annotated[str, AfterValidator(safe_text)]
IsoDatetime = Annotated[datetime, BeforeValidator(iso_only)]
# a POST body that is not JSON at all (FastAPI answers 400 before validation)
MALFORMED_BODY: dict[int | str, dict[str, Any]] = {
    400: {"description": "the request body is not valid JSON"},
    415: {"description": "the request body is not application/json (a form post)"},
}
TaskIdPath = Annotated[
    str, Path(description="task id", min_length=1, max_length=64, pattern=TASK_ID_PATTERN)
]


ECHO_CHARS = 100  # a refused value is echoed back at most this long


def invalid(loc: tuple[str, ...], message: str, value: Any, kind: str = "value_error") -> NoReturn:
    """Raise a 422 in FastAPI's own error format at `loc`, e.g. ("query", "cursor")."""
    raise RequestValidationError([{"type": kind, "loc": loc, "msg": message, "input": value}])


def parse_event_id(header: str | None) -> int:
    """A Last-Event-ID header as a seq (0 when absent); 422 unless 0..INT32_MAX."""
    text = (header or "").strip()
    if not text:
        return 0
    digits = text.lstrip("0") or "0"
    if not text.isascii() or not text.isdigit() or len(digits) > 10 or int(digits) > INT32_MAX:
        invalid(
            ("header", "last-event-id"),
            f"Last-Event-ID must be an event seq between 0 and {INT32_MAX}",
            text[:ECHO_CHARS],
        )
    return int(text)


def json_safe(value: Any) -> Any:
    """What a client sent, made encodable: non-finite floats and bad text become strings."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {json_safe(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value


async def validation_error_handler(request: Request, exc: Exception) -> JSONResponse:
    """The 422 problem: `errors` lists {loc, msg, type, input} (echoes cut), always encodable;
    a body that is not JSON at all is a 400 problem."""
    assert isinstance(exc, RequestValidationError)
    raw = exc.errors()
    if raw and all(e.get("type") == "json_invalid" for e in raw):
        where = raw[0].get("ctx", {}).get("error", "")
        return problem_response(
            400, f"the request body is not valid JSON ({where})", instance=request.url.path
        )
    if not_json_body(request, raw):
        return problem_response(
            415,
            "the request body must be application/json, not "
            + cut_echo(request.headers.get("content-type", "").split(";")[0]),
            instance=request.url.path,
        )
    errors = [_field_error(e) for e in raw]
    return problem_response(
        422, _summary(errors), instance=request.url.path, errors=json_safe(errors)
    )


def not_json_body(request: Request, errors: Any) -> bool:
    """A body was refused and it came as another media type (a form post): 415, not 422."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if not kind or kind == "application/json" or kind.endswith("+json"):
        return False
    return any(tuple(e.get("loc", ()))[:1] == ("body",) for e in errors)


def _field_error(error: Any) -> dict[str, Any]:
    kept = {k: error[k] for k in ("loc", "msg", "type") if k in error}
    if "input" in error:
        kept["input"] = cut_echo(jsonable_encoder(error["input"]))
    return kept


def _summary(errors: list[dict[str, Any]]) -> str:
    """One sentence naming the refused fields, e.g. "invalid body.max_steps: ..."."""
    shown = [f"{'.'.join(map(str, e.get('loc', ())))}: {e.get('msg', '')}" for e in errors[:3]]
    more = f" (and {len(errors) - 3} more)" if len(errors) > 3 else ""
    return "invalid " + "; ".join(shown) + more


def cut_echo(value: Any) -> Any:
    """A refused input as echoed back: each string at most ECHO_CHARS, with a count of the rest."""
    if isinstance(value, str) and len(value) > ECHO_CHARS:
        return f"{value[:ECHO_CHARS]}…[+{len(value) - ECHO_CHARS} chars]"
    if isinstance(value, bytes) and len(value) > ECHO_CHARS:
        return cut_echo(value.decode("utf-8", "backslashreplace"))
    if isinstance(value, dict):
        return {k: cut_echo(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [cut_echo(v) for v in value]
    return value
