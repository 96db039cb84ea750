"""Browser profiles on the worker side: the saved storage state a task starts from, and
writing the run's state back (`save_profile`), sealed with the Fernet key of app/secrets.py.

Only a run that ends `succeeded` writes back: a failed login attempt must not replace a
good session with a logged-out one.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from cryptography.fernet import Fernet, InvalidToken

from app.contracts import TaskSpec
from app.db import repo_profiles
from app.secrets import fernet_key
from app.settings import Settings

log = logging.getLogger(__name__)

SessionFactory = Any  # async_sessionmaker[AsyncSession]


def _fernet(settings: Settings) -> Fernet:
    return Fernet(fernet_key(settings.secrets_key.get_secret_value(), settings.data_dir))


def seal_state(state: dict[str, Any], settings: Settings) -> str:
    return _fernet(settings).encrypt(json.dumps(state).encode()).decode()


def unseal_state(token: str, settings: Settings) -> dict[str, Any]:
    value = json.loads(_fernet(settings).decrypt(token.encode()))
    return value if isinstance(value, dict) else {}


async def load_state(
    sessions: SessionFactory, settings: Settings, spec: TaskSpec
) -> dict[str, Any] | None:
    """The profile's saved state, or None (no profile, nothing saved yet, or deleted).

    A state sealed under another key raises InvalidToken: the caller fails the task with a
    configuration error naming WEBAGENT_SECRETS_KEY rather than run logged out.
    """
    if not spec.profile:
        return None
    async with sessions() as s:
        row = await repo_profiles.get_profile(s, tenant_id=spec.tenant_id, name=spec.profile)
    if row is None or not row.storage_sealed:
        return None
    return unseal_state(row.storage_sealed, settings)


async def save_state(
    sessions: SessionFactory, settings: Settings, spec: TaskSpec, state: dict[str, Any]
) -> bool:
    """Write `state` to the task's profile; False when the profile was deleted meanwhile."""
    assert spec.profile
    async with sessions() as s:
        saved = await repo_profiles.save_storage(
            s, tenant_id=spec.tenant_id, name=spec.profile, sealed=seal_state(state, settings)
        )
        await s.commit()
    if not saved:
        log.warning("task %s: profile %r is gone; state not saved", spec.task_id, spec.profile)
    return saved


__all__ = ["InvalidToken", "load_state", "save_state", "seal_state", "unseal_state"]
