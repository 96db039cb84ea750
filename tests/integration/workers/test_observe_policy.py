"""`webagent observe` applies the task URL policy on defaults (it used to apply none).

The target URL is checked before Chromium starts, and the page opens in a pool context, so
what a local page requests (images, frames, scripts to a loopback canary) is refused too.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.settings import get_settings
from workers.cli.main import _register_all, cli

pytestmark = pytest.mark.browser


@pytest.fixture
def canary() -> Iterator[tuple[int, list[str]]]:
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            hits.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(b"<p>canary secret</p>")

        def log_message(self, *args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1], hits
    server.shutdown()
    server.server_close()


@pytest.fixture
def defaults(chromium_path: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Default policy: the suite's WEBAGENT_ALLOW_PRIVATE_NETWORKS=true is switched off."""
    monkeypatch.setenv("WEBAGENT_CHROMIUM_PATH", chromium_path)
    monkeypatch.setenv("WEBAGENT_ALLOW_PRIVATE_NETWORKS", "false")
    get_settings.cache_clear()
    _register_all()
    yield
    get_settings.cache_clear()


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "http://127.0.0.1:{port}/",
        "http://localhost:{port}/",
        "http://2130706433:{port}/",
        "http://[::1]:{port}/",
        "http://169.254.169.254/latest/meta-data/",
        "http://metadata.google.internal/",
        "chrome://version",
    ],
)
def test_observe_refuses_private_and_local_urls(
    defaults: None, canary: tuple[int, list[str]], url: str
) -> None:
    port, hits = canary
    result = CliRunner().invoke(cli, ["observe", url.format(port=port)])
    assert result.exit_code != 0
    assert "refused by the URL policy" in result.output
    assert "root:" not in result.output and "canary secret" not in result.output
    assert hits == []


def test_observe_local_page_cannot_reach_loopback(
    defaults: None, canary: tuple[int, list[str]], tmp_path: Path
) -> None:
    port, hits = canary
    base = f"http://127.0.0.1:{port}"
    (tmp_path / "style.css").write_text("p { color: teal; }")
    (tmp_path / "page.html").write_text(
        f"""<html><head><link rel=stylesheet href="style.css">
        <link rel=stylesheet href="{base}/css"><script src="{base}/js"></script></head>
        <body><h1>Local page</h1><img src="{base}/img" alt="x">
        <iframe src="{base}/frame"></iframe><iframe src="http://localhost:{port}/f2"></iframe>
        <object data="{base}/object"></object><p>visible text</p></body></html>"""
    )
    result = CliRunner().invoke(cli, ["observe", str(tmp_path / "page.html"), "--json"])
    assert result.exit_code == 0, result.output
    assert "Local page" in result.output  # the local file is served (relative CSS too)
    assert "canary secret" not in result.output
    assert hits == []
