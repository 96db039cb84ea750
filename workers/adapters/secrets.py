"""A running task's secrets (issue 12, "Secrets never reach the model"), worker side.

The model only ever writes `<secret:name>`; `SecretVault.substitute` swaps in the value at
the moment of typing, and only on a page whose host the secret is scoped to. Every value is
redacted from events (workers/adapters/sink.py) and from whatever is sent to, or comes back
from, the model (`RedactingLLM`), as defence in depth behind the history's own `***`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app import logredact
from app.contracts import TaskSpec
from app.secrets import TOKEN, SecretEntry, fernet_key, forms_of, redact, unseal
from app.settings import Settings
from workers.agent.protocols import LLM, LLMReply
from workers.agent.toolerrors import ToolError


class SecretRefused(Exception):
    """A `<secret:name>` that may not be typed here: `code` is the ToolError for the model."""

    def __init__(self, code: ToolError, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


class SecretVault:
    """The task's secrets, decrypted in worker memory only."""

    def __init__(self, entries: Mapping[str, SecretEntry] | None = None) -> None:
        self._entries = dict(entries or {})
        # longest first, so a value containing another is replaced whole
        self.values = tuple(sorted({e.value for e in self._entries.values()}, key=len)[::-1])
        logredact.REGISTRY.register(self, self.values)  # masked in logs while the task runs

    def learn(self, value: str) -> None:
        """Treat `value` as a secret of this task from now on: text the model typed with
        `secret=true` is masked like a `<secret:name>` value in every later read-back
        (tool results, observations, events, Ledger rows, model requests, logs)."""
        if len(value) < logredact.MIN_SECRET_CHARS or value in self.values:
            return
        self.values = tuple(sorted({*self.values, value}, key=len)[::-1])
        logredact.REGISTRY.register(self, self.values)

    @classmethod
    def for_task(cls, spec: TaskSpec, settings: Settings) -> SecretVault:
        if not spec.secrets_sealed:
            return cls()
        key = fernet_key(settings.secrets_key.get_secret_value(), settings.data_dir)
        return cls(unseal(spec.secrets_sealed, key))

    def has_token(self, text: str) -> bool:
        return TOKEN.search(text) is not None

    def substitute(self, text: str, host: str) -> str:
        """`text` with each `<secret:name>` replaced by its value; SecretRefused when a name is
        unknown or not scoped to `host`."""

        def value(match: Any) -> str:
            name = match[1]
            entry = self._entries.get(name)
            if entry is None:
                raise SecretRefused(ToolError.unknown_secret, f"no secret named {name!r}")
            if not entry.allowed_on(host):
                raise SecretRefused(
                    ToolError.secret_not_allowed,
                    f"secret {name!r} may not be typed on {host or 'this page'}",
                )
            return entry.value

        return TOKEN.sub(value, text)

    def redact(self, value: Any) -> Any:
        """`value` with every secret masked, in all forms app/secret_forms.py lists."""
        return redact(value, self.values)

    def found(self, text: str) -> bool:
        """Whether `text` holds a secret of the task in any of those forms."""
        return bool(self.values) and forms_of(self.values).found(text)


class RedactingLLM:
    """An LLM whose requests never carry a secret value (the model cannot know one)."""

    def __init__(self, inner: LLM, vault: SecretVault) -> None:
        self._inner = inner
        self._vault = vault

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def chat(
        self,
        role: str,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None = None,
        tool_choice: str | None = None,
        response_format: Mapping[str, Any] | None = None,
    ) -> LLMReply:
        clean = [self._vault.redact(dict(m)) for m in messages]
        return await self._inner.chat(role, clean, tools, tool_choice, response_format)
