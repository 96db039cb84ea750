"""Python client of the webagent task API (sync `Client`, async `AsyncClient`).

Models in `webagent_client.models` are generated from the service's OpenAPI document
(docs/openapi.json); errors are the typed exceptions of `webagent_client.errors`.
"""

from webagent_client.async_client import AsyncClient
from webagent_client.client import Client
from webagent_client.errors import (
    ApiError,
    BadRequestError,
    ConflictError,
    ForbiddenError,
    InternalServerError,
    MethodNotAllowedError,
    NotFoundError,
    PayloadTooLargeError,
    RateLimitedError,
    ServiceUnavailableError,
    UnauthorizedError,
    UnsupportedMediaTypeError,
    ValidationFailedError,
    WebAgentError,
)
from webagent_client.events import event_data
from webagent_client.models import EventOut, TaskCreate, TaskOut, TaskStatus
from webagent_client.typed import NoDataError, TypedTask, data_as

__all__ = [
    "ApiError",
    "AsyncClient",
    "BadRequestError",
    "Client",
    "ConflictError",
    "EventOut",
    "ForbiddenError",
    "InternalServerError",
    "MethodNotAllowedError",
    "NoDataError",
    "NotFoundError",
    "PayloadTooLargeError",
    "RateLimitedError",
    "ServiceUnavailableError",
    "TaskCreate",
    "TaskOut",
    "TaskStatus",
    "TypedTask",
    "UnauthorizedError",
    "UnsupportedMediaTypeError",
    "ValidationFailedError",
    "WebAgentError",
    "data_as",
    "event_data",
]
