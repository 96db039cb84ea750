"""Task secrets (issue 12, "Secrets never reach the model"): values a task may type, sealed at
rest with Fernet, shown to the model only as `<secret:name>` and redacted from every sink.

A task's secrets arrive as `{name: value}` or `{name: {"value": ..., "domains": [...]}}`;
no domains means any domain the task may visit. The key is `WEBAGENT_SECRETS_KEY`, or else a
key file `secrets.key` (mode 0600) generated once under the data dir.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from app.secret_forms import SecretForms

KEY_FILE = "secrets.key"
REDACTED = "[secret]"
TOKEN = re.compile(r"<secret:([A-Za-z0-9_.-]{1,64})>")
NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


class SecretEntry(BaseModel):
    """One secret: its value and the domains (host suffixes) it may be typed on."""

    model_config = ConfigDict(frozen=True)

    value: str
    domains: tuple[str, ...] = ()

    def allowed_on(self, host: str) -> bool:
        host = host.lower().rstrip(".")
        return not self.domains or any(host == d or host.endswith("." + d) for d in self.domains)


def _fernet() -> Any:
    """The Fernet class, imported on first use: `webagent observe` and the browser session
    import this module for its redaction helpers and never seal (issue 22)."""
    from cryptography.fernet import Fernet

    return Fernet


def fernet_key(key: str | None, data_dir: str) -> bytes:
    """The configured key, else the data dir's key file (created with 0600 on first use)."""
    if key:
        return key.encode()
    path = Path(data_dir) / KEY_FILE
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(_fernet().generate_key())
    return path.read_bytes().strip()


def seal(entries: Mapping[str, SecretEntry], key: bytes) -> str:
    plain = json.dumps({n: e.model_dump(mode="json") for n, e in entries.items()})
    return _fernet()(key).encrypt(plain.encode()).decode()


def unseal(token: str | None, key: bytes) -> dict[str, SecretEntry]:
    if not token:
        return {}
    raw = json.loads(_fernet()(key).decrypt(token.encode()))
    return {n: SecretEntry.model_validate(e) for n, e in raw.items()}


def redact(value: Any, secrets: tuple[str, ...]) -> Any:
    """`value` (str, or JSON-like dict/list nesting) with every secret value replaced, in each
    of the forms app/secret_forms.py lists (reversed, separated, base64, URL, HTML, case)."""
    if not secrets:
        return value
    return forms_of(secrets).redact(value)


@lru_cache(maxsize=64)
def forms_of(secrets: tuple[str, ...]) -> SecretForms:
    return SecretForms(secrets, REDACTED)


def secrets_note(names: tuple[str, ...]) -> str:
    """What the model learns about a task's secrets: their names and how to type them."""
    if not names:
        return ""
    listed = ", ".join(f"<secret:{n}>" for n in names)
    return (
        f"\n\nSecrets for this task (values hidden from you): {listed}. To enter one, call "
        'type with exactly that token as the text, e.g. text="<secret:name>".'
    )
