"""One error body for every 4xx/5xx: RFC 9457 problem details (`application/problem+json`).

Members: `type` (a URN naming the code), `title` (the status phrase), `status`, `detail`
(one sentence for a person), `instance` (the request path) and the extension `code`, stable
for programs (`not_found`, `validation_failed`, ...). A 422 adds `errors`: each refused field
as {loc, msg, type, input} with the input cut short (app/api/inputs.py); a 503 adds
`unavailable` (the dependency that is down). Routes keep raising HTTPException; `Problem`
is the subclass for an explicit code.
"""

from __future__ import annotations

from enum import StrEnum
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

MEDIA_TYPE = "application/problem+json"
TYPE_PREFIX = "urn:webagent:problem:"


class ProblemCode(StrEnum):
    """The stable `code` of an error body; clients branch on it, not on the wording."""

    bad_request = "bad_request"
    unauthorized = "unauthorized"
    forbidden = "forbidden"
    not_found = "not_found"
    method_not_allowed = "method_not_allowed"
    conflict = "conflict"
    payload_too_large = "payload_too_large"
    unsupported_media_type = "unsupported_media_type"
    validation_failed = "validation_failed"
    rate_limited = "rate_limited"
    internal_error = "internal_error"
    unavailable = "unavailable"


BY_STATUS = {
    400: ProblemCode.bad_request,
    401: ProblemCode.unauthorized,
    403: ProblemCode.forbidden,
    404: ProblemCode.not_found,
    405: ProblemCode.method_not_allowed,
    409: ProblemCode.conflict,
    413: ProblemCode.payload_too_large,
    415: ProblemCode.unsupported_media_type,
    422: ProblemCode.validation_failed,
    429: ProblemCode.rate_limited,
    500: ProblemCode.internal_error,
    503: ProblemCode.unavailable,
}


class Problem(HTTPException):
    """An HTTPException with an explicit code (the default is the status's code)."""

    def __init__(
        self,
        status_code: int,
        detail: str,
        *,
        code: ProblemCode | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(status_code, detail=detail, headers=headers)
        self.code = code


def code_for(status: int) -> ProblemCode:
    if status in BY_STATUS:
        return BY_STATUS[status]
    return ProblemCode.internal_error if status >= 500 else ProblemCode.bad_request


def problem_body(
    status: int,
    detail: str,
    *,
    instance: str,
    code: ProblemCode | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """The problem object (extension members after the standard ones)."""
    chosen = code or code_for(status)
    try:
        title = HTTPStatus(status).phrase
    except ValueError:
        title = "Error"
    return {
        "type": TYPE_PREFIX + chosen.value,
        "title": title,
        "status": status,
        "detail": detail,
        "instance": instance,
        "code": chosen.value,
        **extra,
    }


def problem_response(
    status: int,
    detail: str,
    *,
    instance: str,
    code: ProblemCode | None = None,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> JSONResponse:
    body = problem_body(status, detail, instance=instance, code=code, **extra)
    return JSONResponse(body, status_code=status, headers=headers, media_type=MEDIA_TYPE)


async def http_exception_handler(request: Request, exc: Exception) -> JSONResponse:
    """HTTPException (ours and Starlette's 404/405) as a problem."""
    assert isinstance(exc, StarletteHTTPException)
    detail = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
    if exc.status_code == 404 and detail == "Not Found":
        detail = f"no route {request.url.path}"
    elif exc.status_code == 405 and detail == "Method Not Allowed":
        detail = f"{request.method} is not allowed on {request.url.path}"
    return problem_response(
        exc.status_code,
        detail,
        instance=request.url.path,
        code=getattr(exc, "code", None),
        headers=dict(exc.headers) if exc.headers else None,
    )


async def internal_error_handler(request: Request, exc: Exception) -> JSONResponse:
    """Anything unhandled: a 500 problem that names no internals (Starlette re-raises the
    exception after this answer, so the server log keeps the traceback)."""
    return problem_response(
        500, "internal error; the server log has the details", instance=request.url.path
    )


def install(app: FastAPI) -> None:
    app.add_exception_handler(StarletteHTTPException, http_exception_handler)
    app.add_exception_handler(Exception, internal_error_handler)
