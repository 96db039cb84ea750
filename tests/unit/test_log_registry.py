"""The log redaction registry (app/logredact.py) under a garbage collection: a task's vault
registers its secrets while an earlier task's vault may be collected. Relay run 2026-12-08
(issue 34, realapps roundup-15/16): compiling the new patterns inside `register` set off a
collection whose finalizer (`_drop` of the earlier vault) waited for the lock `register`
held: the worker's event loop hung, the second task failed `worker_lost`."""

from __future__ import annotations

from typing import Any

from app import logredact
from app.logredact import SecretRegistry


class Owner:
    """An object a registry can hold values for (weak-referenceable)."""


def test_a_finalizer_that_runs_while_the_registry_rebuilds_takes_the_lock(
    monkeypatch: Any,
) -> None:
    registry, earlier, later = SecretRegistry(), Owner(), Owner()
    registry.register(earlier, ["earlier-task-secret"])
    real, took = logredact.SecretForms, list[bool]()

    def forms(values: Any, mask: str = logredact.MASK) -> Any:
        """What a collection inside re.compile runs here: the earlier owner's finalizer."""
        if len(took) == 0:
            got = registry._lock.acquire(blocking=False)  # `_drop` would wait for this
            took.append(got)
            if got:
                registry._lock.release()
                registry.forget(earlier)
        return real(values, mask)

    monkeypatch.setattr(logredact, "SecretForms", forms)
    registry.register(later, ["later-task-secret"])
    assert took == [True]  # a plain Lock: False, and the real finalizer blocks forever
    assert registry.redact("later-task-secret") == logredact.MASK
