"""The scripted OpenAI-compatible server fixture for the MiniWoB++ harness tests."""

from tests.support.llm_server import llm_server  # noqa: F401 - pytest fixture
