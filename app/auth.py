"""API keys and scopes: the typed key format, what each scope opens, who is calling.

Format `wa_<32 base62>_<6 base62 checksum>`: the fixed prefix and the CRC32 checksum let
secret scanners spot a leaked key and let the service reject a mistyped one without a
database lookup. Only the SHA-256 of a key is stored (app/db/repo_keys.py), plus its public
prefix `wa_` + the first 8 random characters, which `webagent keys list` shows.
"""

from __future__ import annotations

import re
import secrets
import string
import zlib
from dataclasses import dataclass
from enum import StrEnum

ALPHABET = string.digits + string.ascii_letters
KEY_PREFIX = "wa_"
RANDOM_LEN = 32
CHECKSUM_LEN = 6
PUBLIC_PREFIX_LEN = len(KEY_PREFIX) + 8
KEY_PATTERN = re.compile(rf"wa_([0-9A-Za-z]{{{RANDOM_LEN}}})_([0-9A-Za-z]{{{CHECKSUM_LEN}}})")


class Scope(StrEnum):
    tasks_write = "tasks:write"  # submit and cancel tasks
    tasks_read = "tasks:read"  # read tasks, steps, screenshots, events, ledgers
    learnings_read = "learnings:read"  # read per-domain learnings
    admin = "admin"  # everything, including /metrics and the docs when they are closed


def parse_scopes(text: str) -> frozenset[Scope]:
    """'tasks:read,tasks:write' or space-separated → scopes; ValueError names a bad one."""
    scopes = set()
    for raw in re.split(r"[\s,]+", text.strip()):
        if not raw:
            continue
        try:
            scopes.add(Scope(raw))
        except ValueError as exc:
            known = ", ".join(s.value for s in Scope)
            raise ValueError(f"unknown scope {raw!r} (known: {known})") from exc
    if not scopes:
        raise ValueError("at least one scope is needed")
    return frozenset(scopes)


def _base62(number: int, width: int) -> str:
    digits = []
    for _ in range(width):
        number, rest = divmod(number, len(ALPHABET))
        digits.append(ALPHABET[rest])
    return "".join(reversed(digits))


def _checksum(random_part: str) -> str:
    return _base62(zlib.crc32(random_part.encode()), CHECKSUM_LEN)


def new_key() -> str:
    """A fresh key in the typed format (shown to its owner once, never stored)."""
    random_part = "".join(secrets.choice(ALPHABET) for _ in range(RANDOM_LEN))
    return f"{KEY_PREFIX}{random_part}_{_checksum(random_part)}"


def well_formed(key: str) -> bool:
    """Right shape and checksum: anything else is refused without touching the database."""
    match = KEY_PATTERN.fullmatch(key)
    return match is not None and secrets.compare_digest(_checksum(match[1]), match[2])


def public_prefix(key: str) -> str:
    return key[:PUBLIC_PREFIX_LEN]


@dataclass(frozen=True)
class Principal:
    """The caller of one request: its tenant, its key (None when keys are off), its scopes."""

    tenant_id: str
    key_id: str | None
    scopes: frozenset[Scope]

    def allows(self, scope: Scope) -> bool:
        return Scope.admin in self.scopes or scope in self.scopes


ALL_SCOPES = frozenset(Scope)
