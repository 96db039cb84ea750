"""Perception benchmark plumbing: local pages, one Chromium shared over CDP, three tools.

Our snapshot (compact and PageMem text), Playwright's `page.aria_snapshot(mode="ai")` and
browser-use's LLM state text (`BrowserSession.get_browser_state_summary()` →
`dom_state.llm_representation()`, no LLM involved) all read the same tab of one Chromium.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from workers.browser.runtime.launch import CHROMIUM_ARGS

HERE = Path(__file__).resolve().parent
REALPAGES = Path("/work/shared/data/realpages")
PROBE_A = HERE.parents[1] / "tests" / "integration" / "browser" / "pages"  # snapshot's probe
PLANTED = re.compile(r"SECRET-[A-Z]+(?:-[A-Z]+)*|LEAKPROBE [a-z ]+")


def miniwob_html() -> Path:
    import miniwob

    return Path(miniwob.__file__).resolve().parent / "html"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        return


@contextlib.contextmanager
def serve(realpages: Path = REALPAGES) -> Iterator[str]:
    """Static server on 127.0.0.1:<free port> over realpages/, miniwob/ and the probe."""
    root = Path(tempfile.mkdtemp(prefix="perception-bench-"))
    (root / "realpages").symlink_to(realpages)
    (root / "miniwob").symlink_to(miniwob_html())
    (root / "probe").symlink_to(HERE)
    (root / "probe-a").symlink_to(PROBE_A)
    handler = functools.partial(_Quiet, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        shutil.rmtree(root, ignore_errors=True)


@dataclass
class Chromium:
    """Debian Chromium with a CDP port, so Playwright and browser-use share one tab."""

    path: str
    width: int = 1280
    height: int = 800
    proc: subprocess.Popen[bytes] | None = None
    profile: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="bench-chrome-")))

    def start(self) -> str:
        args = [
            self.path,
            *CHROMIUM_ARGS,
            "--remote-debugging-port=0",
            "--remote-debugging-address=127.0.0.1",
            f"--user-data-dir={self.profile}",
            f"--window-size={self.width},{self.height}",
            # saved pages reference the internet: fail those lookups at once, serve only ours
            "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
            "about:blank",
        ]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        marker = self.profile / "DevToolsActivePort"
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if marker.exists() and marker.read_text().strip():
                port = marker.read_text().split()[0]
                return f"http://127.0.0.1:{port}"
            time.sleep(0.05)
        self.stop()
        raise RuntimeError("chromium did not open its DevTools port within 20 s")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


def chromium_version(path: str) -> str:
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return "?"
    found = re.search(r"\d+\.\d+\.\d+\.\d+", out.stdout)
    return found.group(0) if found else "?"


def o200k() -> Any:
    """o200k_base from the bpe-openai wheel (ships the vocabulary; tiktoken would download)."""
    import bpe_openai

    return bpe_openai.get_encoding("o200k_base")


def count_tokens(encoding: Any, text: str) -> int:
    return len(encoding.encode(text))


def hidden_script() -> str:
    return (HERE / "hidden_text.js").read_text("utf-8")


def label_via_script() -> str:
    return (HERE / "label_via.js").read_text("utf-8")


def leaks(text: str, snippets: list[str]) -> list[str]:
    """Hidden snippets (their first 40 chars, whitespace-normalised) found in a tool's text."""
    hay = " ".join(text.split()).lower()
    return [s for s in snippets if " ".join(s[:40].split()).lower() in hay]


def planted(html: str) -> set[str]:
    """Hidden strings planted in the probe pages (SECRET-* / LEAKPROBE ...)."""
    return {m.strip() for m in PLANTED.findall(html)}


def planted_leaks(text: str, planted_set: set[str]) -> list[str]:
    found = {m.strip() for m in PLANTED.findall(text)}
    return sorted(found & planted_set)


def disable_telemetry() -> None:
    os.environ.setdefault("ANONYMIZED_TELEMETRY", "false")
    os.environ.setdefault("BROWSER_USE_CLOUD_SYNC", "false")
    os.environ.setdefault("BROWSER_USE_LOGGING_LEVEL", "error")
