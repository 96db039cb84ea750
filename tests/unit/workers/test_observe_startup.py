"""Issue 22: `webagent observe` imports the model client only for the modes that call a
model, and starts loading the tokenizer while the browser starts (a fresh interpreter each)."""

from __future__ import annotations

import subprocess
import sys

import pytest

PROBE = """
import asyncio, sys
import workers.browser.runtime.pool as pool
from workers.browser.observe import tokens

warmed = []
tokens.warm_in_background = lambda: warmed.append(True)

class Stop(Exception):
    pass

class Pool:
    def __init__(self, *args, **kwargs):
        pass
    async def start(self):
        raise Stop()
    async def close(self):
        pass

pool.BrowserPool = Pool
from app.settings import Settings
from workers.cli.commands import observe
try:
    asyncio.run(observe._observe(Settings(), "http://x.test/", observe.Mode(sys.argv[1]),
                None, None, goal="g"))
except Stop:
    pass
print("workers.llm.client" in sys.modules, "openai" in sys.modules, warmed == [True])
"""


@pytest.mark.parametrize(("mode", "client"), [("compact", False), ("vision", True)])
def test_observe_imports_the_model_client_only_when_the_mode_calls_a_model(
    mode: str, client: bool
) -> None:
    out = subprocess.run(
        [sys.executable, "-c", PROBE, mode], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    llm_client, openai, warming = out.stdout.split()
    assert llm_client == openai == str(client)
    assert warming == "True"  # the vocabulary loads beside the browser start, not inside observe


HEAVY = (
    "sqlalchemy", "alembic", "redis", "rq", "fastapi", "starlette", "uvicorn",  # service
    "openai", "httpx",  # the model client
    "numpy", "PIL.Image",  # the pixel comparison
    "cryptography",  # sealing secrets
    "bpe_openai.registry",  # the tokenizer package's Python vocabularies (~1 s of CPU)
)  # fmt: skip

IMPORTS = """
import sys
from workers.cli.main import load
load("observe")  # the command's module, as `webagent observe` imports it
from workers.browser.observe import tokens
from workers.browser.runtime.pool import BrowserPool
from workers.browser.session import PageSession
tokens.warm()
print(sorted(m for m in sys.argv[1:] if m in sys.modules))
"""


def test_the_observe_path_imports_no_service_model_or_pixel_modules() -> None:
    """`webagent observe` on a compact page needs no database, Redis, API app, model client,
    numpy/PIL (they load on the first pixel comparison), cryptography (on the first sealed
    secret) or the tokenizer package's Python layer: each cost 0.1-2.5 s of imports at load."""
    out = subprocess.run(
        [sys.executable, "-c", IMPORTS, *HEAVY], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


OVERLAP = """
import asyncio, sys
import workers.browser.runtime.pool as pool

class Stop(Exception):
    pass

class Pool:
    def __init__(self, *args, **kwargs):
        pass
    async def start(self):
        print("session imported at browser start:", "workers.browser.session" in sys.modules)
        await asyncio.sleep(0.2)
        raise Stop()
    async def close(self):
        print("closed")

pool.BrowserPool = Pool
from app.settings import Settings
from workers.cli.commands import observe
try:
    asyncio.run(observe._observe(Settings(), "http://x.test/", observe.Mode.compact, None, None))
except Stop:
    print("stopped")
print("session imported after:", "workers.browser.session" in sys.modules)
"""


def test_observe_starts_the_browser_before_importing_the_page_session() -> None:
    """Chromium and Playwright's driver start while the session modules import (issue 22):
    the imports took 1.2 s and the browser start 1.6-1.9 s one after the other."""
    out = subprocess.run(
        [sys.executable, "-c", OVERLAP], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [
        "session imported at browser start: False",
        "closed",  # a browser start that fails is closed all the same
        "stopped",
        "session imported after: True",
    ]
