"""Typed exceptions for the service's error bodies (RFC 9457 problem details).

Every 4xx/5xx answer of the service is a `ProblemDetails` body with a stable `code`; each code
maps to one exception class here, so callers catch `NotFoundError` rather than compare
status numbers. A body that is not a problem (a proxy's HTML page) still raises `ApiError`.
"""

from __future__ import annotations

from typing import Any

import httpx
from pydantic import ValidationError

from webagent_client.models import FieldError, ProblemCode, ProblemDetails


class WebAgentError(Exception):
    """Base class of every error this client raises on purpose."""


class ApiError(WebAgentError):
    """The service refused the request (4xx/5xx).

    `status_code` is the HTTP status, `code` the problem's stable code ("" when the body was
    not a problem), `problem` the parsed body, `errors` the refused fields of a 422 and
    `retry_after` the seconds from a Retry-After header (429, 503)."""

    def __init__(
        self,
        message: str,
        *,
        status_code: int,
        problem: ProblemDetails | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.problem = problem
        self.code = str(problem.code) if problem else ""
        self.detail = problem.detail if problem else message
        self.errors: list[FieldError] = list(problem.errors or []) if problem else []
        self.retry_after = retry_after


class BadRequestError(ApiError):
    pass


class UnauthorizedError(ApiError):
    pass


class ForbiddenError(ApiError):
    pass


class NotFoundError(ApiError):
    pass


class MethodNotAllowedError(ApiError):
    pass


class ConflictError(ApiError):
    pass


class PayloadTooLargeError(ApiError):
    pass


class UnsupportedMediaTypeError(ApiError):
    pass


class ValidationFailedError(ApiError):
    pass


class RateLimitedError(ApiError):
    pass


class InternalServerError(ApiError):
    pass


class ServiceUnavailableError(ApiError):
    """The database or the queue is down; `problem.unavailable` names which."""


BY_CODE: dict[ProblemCode, type[ApiError]] = {
    ProblemCode.bad_request: BadRequestError,
    ProblemCode.unauthorized: UnauthorizedError,
    ProblemCode.forbidden: ForbiddenError,
    ProblemCode.not_found: NotFoundError,
    ProblemCode.method_not_allowed: MethodNotAllowedError,
    ProblemCode.conflict: ConflictError,
    ProblemCode.payload_too_large: PayloadTooLargeError,
    ProblemCode.unsupported_media_type: UnsupportedMediaTypeError,
    ProblemCode.validation_failed: ValidationFailedError,
    ProblemCode.rate_limited: RateLimitedError,
    ProblemCode.internal_error: InternalServerError,
    ProblemCode.unavailable: ServiceUnavailableError,
}


def error_for(response: httpx.Response) -> ApiError:
    """The exception for an error response whose body has been read."""
    problem = _problem(response)
    cls = BY_CODE.get(problem.code, ApiError) if problem else ApiError
    return cls(
        f"{response.status_code} {response.reason_phrase}: {_summary(response, problem)}",
        status_code=response.status_code,
        problem=problem,
        retry_after=_retry_after(response),
    )


def _problem(response: httpx.Response) -> ProblemDetails | None:
    try:
        body: Any = response.json()
        return ProblemDetails.model_validate(body)
    except (ValueError, ValidationError):
        return None


def _summary(response: httpx.Response, problem: ProblemDetails | None) -> str:
    """The refused fields of a 422, else the problem's detail, else the body's start."""
    if problem is None:
        return response.text[:200]
    if problem.errors:
        return "; ".join(f"{'.'.join(map(str, e.loc))}: {e.msg}" for e in problem.errors)
    return problem.detail


def _retry_after(response: httpx.Response) -> float | None:
    try:
        return float(response.headers["Retry-After"])
    except (KeyError, ValueError):
        return None
