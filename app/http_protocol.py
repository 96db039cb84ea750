"""Requests the HTTP parser refuses get problem details too (issue 32, item 6).

A request uvicorn's parser (h11) cannot accept (a NUL byte or another character not allowed in
a header, a broken request line, an oversized header block) is answered before any ASGI app
or middleware sees it, by uvicorn's own plain-text `400 Invalid HTTP request received.`.
`ProblemH11Protocol` answers it with the RFC 9457 body every other 4xx of the API has
(app/api/problems.py), code `bad_request`, `instance` "about:blank" (the request never got a
path), and closes the connection as before. `webagent serve` (and the local server `webagent
run` starts) pass it to uvicorn as its `http` protocol (tests/integration/api/
test_malformed_requests.py).
"""

from __future__ import annotations

import json

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from app.api.problems import MEDIA_TYPE, ProblemCode, problem_body

REFUSED_DETAIL = (
    "the HTTP request is malformed (a header or the request line has bytes HTTP does not allow)"
)


class ProblemH11Protocol(H11Protocol):
    """uvicorn's h11 protocol; only the answer to an unparseable request differs."""

    def send_400_response(self, msg: str) -> None:
        body = problem_body(
            400, REFUSED_DETAIL, instance="about:blank", code=ProblemCode.bad_request
        )
        data = json.dumps(body).encode()
        headers = [
            (b"content-type", MEDIA_TYPE.encode()),
            (b"content-length", str(len(data)).encode()),
            (b"connection", b"close"),
        ]
        for event in (
            h11.Response(status_code=400, headers=headers, reason=b"Bad Request"),
            h11.Data(data=data),
            h11.EndOfMessage(),
        ):
            self.transport.write(self.conn.send(event) or b"")
        self.transport.close()
