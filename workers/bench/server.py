"""Serve the MiniWoB++ task pages from the installed `miniwob` package on 127.0.0.1.

The pages load `../core/core.js` and friends by relative URL, so the whole `html/` folder
is served and a task lives at `<base_url><task>.html` with base `/miniwob/`.
"""

from __future__ import annotations

import functools
import importlib.util
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any


class MiniWobNotInstalled(RuntimeError):
    """Configuration error: the `miniwob` package (dev extra) is missing."""


def miniwob_html_dir() -> Path:
    """The package's `html/` folder (holds `miniwob/*.html` and `core/core.js`)."""
    spec = importlib.util.find_spec("miniwob")
    if spec is None or not spec.submodule_search_locations:
        raise MiniWobNotInstalled("pip install miniwob (it is in the dev extra) to run MiniWoB++")
    html = Path(next(iter(spec.submodule_search_locations))) / "html"
    if not (html / "miniwob").is_dir() or not (html / "core" / "core.js").is_file():
        raise MiniWobNotInstalled(f"miniwob package at {html.parent} has no html/ task folder")
    return html


def available_tasks() -> frozenset[str]:
    """Task names that have a page in the installed package."""
    return frozenset(p.stem for p in (miniwob_html_dir() / "miniwob").glob("*.html"))


class _QuietHandler(SimpleHTTPRequestHandler):
    """Static files without a log line per request (a benchmark fetches hundreds), text in
    UTF-8: the pages carry no charset of their own, and without one in the header the browser
    read them as windows-1252 (`CancÃ©l` in unicode-test)."""

    extensions_map = {  # noqa: RUF012 (the base class's own class attribute)
        **SimpleHTTPRequestHandler.extensions_map,
        ".html": "text/html; charset=utf-8",
        ".js": "text/javascript; charset=utf-8",
        ".css": "text/css; charset=utf-8",
    }

    def log_message(self, format: str, *args: Any) -> None:
        return


class MiniWobServer:
    """A threaded static server on 127.0.0.1:<free port>; use as a context manager."""

    def __init__(self, html_dir: Path | None = None, host: str = "127.0.0.1") -> None:
        self._html_dir = html_dir or miniwob_html_dir()
        self._host = host
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def start(self) -> MiniWobServer:
        handler = functools.partial(_QuietHandler, directory=str(self._html_dir))
        self._httpd = ThreadingHTTPServer((self._host, 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, name="miniwob-http", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    @property
    def base_url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("MiniWobServer is not started")
        port = self._httpd.server_address[1]
        return f"http://{self._host}:{port}/miniwob/"

    def task_url(self, task: str) -> str:
        return f"{self.base_url}{task}.html"

    def __enter__(self) -> MiniWobServer:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
