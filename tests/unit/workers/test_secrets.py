"""Task secrets: sealing, the request schema, `<secret:name>` substitution per domain and
redaction of LLM requests (issue 12, "Secrets never reach the model")."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from app.api.schemas import TaskCreate
from app.secrets import SecretEntry, fernet_key, seal, secrets_note, unseal
from workers.adapters.secrets import RedactingLLM, SecretRefused, SecretVault
from workers.agent.testing import FakeLLM, reply
from workers.agent.toolerrors import ToolError

VAULT = SecretVault(
    {"pw": SecretEntry(value="s3cr3t-pw", domains=("bank.test",)), "pin": SecretEntry(value="9911")}
)


def test_sealed_token_holds_no_value_and_opens_with_the_key(tmp_path: Path) -> None:
    key = fernet_key("", str(tmp_path))
    assert (tmp_path / "secrets.key").stat().st_mode & 0o777 == 0o600
    assert fernet_key("", str(tmp_path)) == key  # kept, not regenerated
    token = seal({"pw": SecretEntry(value="s3cr3t-pw")}, key)
    assert "s3cr3t-pw" not in token
    assert unseal(token, key)["pw"].value == "s3cr3t-pw"


def test_request_accepts_plain_and_scoped_secrets_and_checks_names() -> None:
    body = TaskCreate.model_validate(
        {
            "instruction": "log in",
            "secrets": {"pw": "a", "card": {"value": "b", "domains": ["Shop.Test."]}},
        }
    )
    assert body.secret_entries() == {
        "pw": SecretEntry(value="a"),
        "card": SecretEntry(value="b", domains=("shop.test",)),
    }
    with pytest.raises(ValidationError, match="secret names"):
        TaskCreate.model_validate({"instruction": "x", "secrets": {"bad name!": "v"}})


def test_substitutes_only_on_an_allowed_domain() -> None:
    assert VAULT.substitute("<secret:pw>", "www.bank.test") == "s3cr3t-pw"
    assert VAULT.substitute("pin <secret:pin>", "anything.test") == "pin 9911"
    with pytest.raises(SecretRefused) as refused:
        VAULT.substitute("<secret:pw>", "evil-bank.test")
    assert refused.value.code == ToolError.secret_not_allowed
    with pytest.raises(SecretRefused) as unknown:
        VAULT.substitute("<secret:nope>", "bank.test")
    assert unknown.value.code == ToolError.unknown_secret


def test_model_is_told_names_only() -> None:
    note = secrets_note(("pw",))
    assert "<secret:pw>" in note and "s3cr3t" not in note


async def test_llm_requests_are_redacted_as_defence_in_depth() -> None:
    """A text field typed with a secret shows its value in the next snapshot: the request
    that carries that snapshot still never holds the value."""
    inner = FakeLLM([reply(("done", {"answer": "ok", "success": True}))])
    llm = RedactingLLM(inner, VAULT)
    page = [{"role": "user", "content": [{"type": "text", "text": 'textbox "PIN" value=9911'}]}]
    await llm.chat("worker", [{"role": "system", "content": "s3cr3t-pw"}, *page])
    sent = json.dumps(inner.calls[0][1])
    assert "9911" not in sent and "s3cr3t-pw" not in sent and "[secret]" in sent
