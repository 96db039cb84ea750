"""Secret values and API keys never reach a log line (issue 12: "Values are redacted from
... logs").

`RedactingFilter` masks every registered secret value and anything shaped like an API key
(`wa_<32>_<6>`, app/auth.py) in a record's message, its arguments, its exception and
stack text (and, on a handler, its extra string fields). `install()` applies it to every
record at creation (through the log record factory), so every handler sees the masked
record, whichever logger it came from and whichever handler is attached later (uvicorn's,
a JSON formatter, pytest's caplog); extra fields are set after creation, so it is also
added to the root logger's handlers present at install time. The service (app/main.py)
and the worker runtime (workers/process/runtime.py) install it; a task's SecretVault registers its
values for as long as it lives.
"""

from __future__ import annotations

import logging
import re
import threading
import traceback
import weakref
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from app.secret_forms import MIN_CHARS, SecretForms

MASK = "***"
API_KEY_LIKE = re.compile(r"\bwa_[0-9A-Za-z]{16,}_[0-9A-Za-z]{4,}\b")
MIN_SECRET_CHARS = MIN_CHARS  # shorter values would mask ordinary words
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message",
    "asctime",
}


class SecretRegistry:
    """The secret values live in this process, each held while its owner object lives."""

    def __init__(self) -> None:
        # re-entrant: a collection inside `_rebuild` (re.compile) may run an earlier
        # owner's finalizer (`_drop`) in this thread while `register` holds the lock
        self._lock = threading.RLock()
        self._by_owner: dict[int, frozenset[str]] = {}
        self._forms = SecretForms(())

    def register(self, owner: object, values: Iterable[str]) -> None:
        """Mask `values` until `owner` is garbage collected (or `forget(owner)`)."""
        kept = frozenset(v for v in values if len(v) >= MIN_SECRET_CHARS)
        if not kept:
            return
        key = id(owner)
        with self._lock:
            self._by_owner[key] = kept
            self._rebuild()
        weakref.finalize(owner, self._drop, key)

    def forget(self, owner: object) -> None:
        self._drop(id(owner))

    def _drop(self, key: int) -> None:
        with self._lock:
            if self._by_owner.pop(key, None) is not None:
                self._rebuild()

    def _rebuild(self) -> None:
        values = set().union(*self._by_owner.values()) if self._by_owner else set()
        self._forms = SecretForms(values, MASK)  # also reversed, separated, base64, ...

    def redact(self, text: str) -> str:
        if self._forms:
            text = self._forms.mask(text)
        return API_KEY_LIKE.sub(f"wa_{MASK}", text)


REGISTRY = SecretRegistry()


class RedactingFilter(logging.Filter):
    """Masks secrets in a record in place; never drops a record."""

    def __init__(self, registry: SecretRegistry = REGISTRY) -> None:
        super().__init__()
        self.registry = registry

    def filter(self, record: logging.LogRecord) -> bool:
        redact = self.registry.redact
        _redact_message(record, redact)
        if record.exc_info and not record.exc_text:
            record.exc_text = "".join(traceback.format_exception(*record.exc_info)).rstrip()
        record.exc_info = None  # formatters print exc_text; the live exception keeps values
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        for name, value in vars(record).items():
            if name not in _STANDARD and isinstance(value, str):
                setattr(record, name, redact(value))
        return True


def _redact_message(record: logging.LogRecord, redact: Callable[[str], str]) -> None:
    """Mask the message, keeping `msg` and the shape of `args` where that suffices.

    Formatters may read `args` themselves (uvicorn's access formatter unpacks five of them),
    so each argument is masked in place; only when a secret shows up in the joined message
    but in no single part (or the format string is broken) is the record flattened.
    """
    try:
        message = record.getMessage()
    except (TypeError, ValueError):  # a broken format string: keep its parts apart
        record.msg, record.args = redact(f"{record.msg} {record.args}"), None
        return
    if redact(message) == message:
        return
    record.msg = redact(str(record.msg)) if isinstance(record.msg, str) else record.msg
    if isinstance(record.args, tuple):
        record.args = tuple(_redact_arg(a, redact) for a in record.args)
    elif isinstance(record.args, Mapping):
        record.args = {k: _redact_arg(v, redact) for k, v in record.args.items()}
    try:
        masked = record.getMessage()
    except (TypeError, ValueError):
        masked = message
    if redact(masked) != masked:  # a secret across the parts: give up the shape
        record.msg, record.args = redact(message), None


def _redact_arg(value: Any, redact: Callable[[str], str]) -> Any:
    """A masked string for an argument whose text holds a secret, else the value itself."""
    text = value if isinstance(value, str) else repr(value)
    masked = redact(text)
    if masked == text:
        return value
    return masked if isinstance(value, str) else _Masked(redact(str(value)), masked)


class _Masked(str):
    """A non-string argument's masked text, for both `%s` (str) and `%r` (repr)."""

    _repr: str

    def __new__(cls, as_str: str, as_repr: str) -> _Masked:
        obj = super().__new__(cls, as_str)
        obj._repr = as_repr
        return obj

    def __repr__(self) -> str:
        return self._repr


_installed = threading.Lock()
_previous_factory: Any = None


def install(registry: SecretRegistry = REGISTRY) -> None:
    """Redact every log record this process creates (idempotent)."""
    global _previous_factory
    with _installed:
        if _previous_factory is not None:
            return
        previous = logging.getLogRecordFactory()
        redacting = RedactingFilter(registry)

        def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
            record = previous(*args, **kwargs)
            redacting.filter(record)
            return record

        _previous_factory = previous
        logging.setLogRecordFactory(factory)
        for handler in logging.getLogger().handlers:
            handler.addFilter(redacting)
