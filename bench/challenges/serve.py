"""Challenge-style pages for the quality relay runs (issue 31 acceptance): page-made and
served downloads (text, CSV, PDF), new tabs (slow, opened late), hover menus (CSS flyout,
script with a close delay), a ticking page, a success screen that replaces its controls, an
animated readout, a countdown, and forms that send (asked for, and not).

`serve(port)` serves bench/challenges/pages on 127.0.0.1: /slow/* answers after SLOW_S,
/files/x200-manual.pdf is a one-page PDF made here, POST /quote answers with a reference
that depends on what was sent, POST /subscribe records that it was sent. `posts` lists
every POST (path, fields) for the runner's checks.
"""

from __future__ import annotations

import functools
import http.server
import threading
import time
import urllib.parse
from pathlib import Path

PAGES = Path(__file__).parent / "pages"
SLOW_S = 1.2
posts: list[tuple[str, dict[str, str]]] = []


def pdf(text: str) -> bytes:
    """A one-page PDF showing `text` (Helvetica), its xref offsets computed."""
    stream = f"BT /F1 14 Tf 72 720 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out, offsets = b"%PDF-1.4\n", []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return out


class Handler(http.server.SimpleHTTPRequestHandler):
    def _send(self, body: bytes, kind: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path.startswith("/slow/"):
            time.sleep(SLOW_S)
            self.path = self.path.removeprefix("/slow")
        if self.path == "/files/x200-manual.pdf":
            body = pdf("X200 manual. To reset the device, hold Power and enter PIN 8246.")
            self._send(body, "application/pdf")
            return
        super().do_GET()

    def do_POST(self) -> None:
        size = int(self.headers.get("Content-Length") or 0)
        fields = dict(urllib.parse.parse_qsl(self.rfile.read(size).decode()))
        posts.append((self.path, fields))
        if self.path == "/quote":
            asked = fields.get("product") == "Blue widget" and fields.get("quantity") == "3"
            ref = "Q-3B-5521" if asked else "Q-0000"
            text = f"<h1>Thank you, {fields.get('name', '')}</h1><p>Quote reference: {ref}</p>"
        else:
            text = "<h1>Subscribed</h1>"
        self._send(f"<!doctype html><title>Sent</title>{text}".encode(), "text/html")

    def log_message(self, format: str, *args: object) -> None:
        return


def serve(port: int = 0) -> http.server.ThreadingHTTPServer:
    handler = functools.partial(Handler, directory=str(PAGES))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
