"""Fixtures and helpers shared by the MiniWoB++ harness tests."""

from app.settings import Settings
from tests.support.llm_server import (
    MODEL,
    ScriptedLLMServer,
    llm_server,  # noqa: F401 - pytest fixture
)


def bench_settings(chromium_path: str, server: ScriptedLLMServer) -> Settings:
    """Settings for a bench run against the scripted server: short timeouts, no retries."""
    return Settings(
        chromium_path=chromium_path,
        llm_base_url=server.base_url,
        llm_model=MODEL,
        llm_timeout_s=30,
        llm_max_retries=0,
    )
