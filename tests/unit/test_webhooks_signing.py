"""Webhook signing against the Standard Webhooks specification's own example, the receiver
check, and the retry schedule."""

from __future__ import annotations

import time

from app.settings import Settings
from app.webhooks import backoff_s, sign, verify

# the example of the Standard Webhooks specification (secret, id, timestamp, payload, header)
SPEC_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
SPEC_ID, SPEC_TS, SPEC_BODY = "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, b'{"test": 2432232314}'
SPEC_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="


def test_signature_matches_the_specification_example() -> None:
    assert sign(SPEC_SECRET, SPEC_ID, SPEC_TS, SPEC_BODY) == SPEC_SIGNATURE


def test_verify_accepts_fresh_signed_messages_only() -> None:
    now = int(time.time())
    headers = {
        "webhook-id": "m1",
        "webhook-timestamp": str(now),
        "webhook-signature": "v1,bogus " + sign("plain-secret", "m1", now, b"{}"),
    }
    assert verify("plain-secret", headers, b"{}")
    assert not verify("plain-secret", headers, b"{ }")
    assert not verify("other-secret", headers, b"{}")
    stale = {**headers, "webhook-timestamp": str(now - 3600)}
    stale["webhook-signature"] = sign("plain-secret", "m1", now - 3600, b"{}")
    assert not verify("plain-secret", stale, b"{}")
    assert not verify("plain-secret", {"webhook-id": "m1"}, b"{}")


def test_backoff_doubles_up_to_the_cap() -> None:
    settings = Settings(webhook_retry_base_s=10, webhook_retry_max_s=60)
    assert [backoff_s(n, settings) for n in range(1, 6)] == [10, 20, 40, 60, 60]
