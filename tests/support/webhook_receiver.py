"""A local webhook receiver for tests, and a Standard Webhooks signature check written from
the spec (independent of app/webhooks.py)."""

from __future__ import annotations

import base64
import hashlib
import hmac
import threading
import time
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.background import BackgroundServer

SECRET_BYTES = b"0123456789abcdef0123456789abcdef"
SECRET = "whsec_" + base64.b64encode(SECRET_BYTES).decode()


class Receiver(BackgroundServer):
    """Answers 503 to the first `down_for` requests, then 200; records every request."""

    def __init__(self, down_for: int = 0, down_status: int = 503) -> None:
        self.down_for, self.down_status = down_for, down_status
        self.requests: list[tuple[dict[str, str], bytes]] = []
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                with receiver.lock:
                    receiver.requests.append(
                        ({k.lower(): v for k, v in self.headers.items()}, body)
                    )
                    down = len(receiver.requests) <= receiver.down_for
                    status = receiver.down_status if down else 200
                self.send_response(status)
                if status in (301, 302, 307, 308):
                    self.send_header("location", receiver.origin + "/elsewhere")
                self.send_header("content-length", "0")
                self.end_headers()

        super().__init__(Handler)

    @property
    def url(self) -> str:
        return self.origin + "/hooks/webagent"


def signature_ok(headers: dict[str, str], body: bytes) -> bool:
    """A receiver's check per the Standard Webhooks spec."""
    signed = f"{headers['webhook-id']}.{headers['webhook-timestamp']}.".encode() + body
    expected = base64.b64encode(hmac.new(SECRET_BYTES, signed, hashlib.sha256).digest()).decode()
    offered = [s.partition(",")[2] for s in headers["webhook-signature"].split()]
    fresh = abs(time.time() - int(headers["webhook-timestamp"])) < 300
    return fresh and any(hmac.compare_digest(expected, s) for s in offered)
