"""A tiny local HTTP site that records every path it served (Set-Cookie on /set*)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class LocalSite:
    base_url: str
    hits: list[str] = field(default_factory=list)


def _handler(site: LocalSite) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            site.hits.append(self.path)
            cookie = self.headers.get("Cookie", "")
            body = f"<html><title>t</title><body><p id=c>{cookie}</p></body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            if self.path.startswith("/set"):
                self.send_header("Set-Cookie", "session=abc; Path=/")
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, *args: object) -> None:
            return

    return Handler


def serve_site() -> tuple[LocalSite, ThreadingHTTPServer]:
    """Start the site on an ephemeral port in a daemon thread."""
    site = LocalSite(base_url="")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(site))
    site.base_url = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return site, server
