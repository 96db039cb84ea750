"""The tool registry and the browser handlers cover the same tools, and every error code
the browser can emit has its own recovery hint."""

from __future__ import annotations

import re
from pathlib import Path

from workers.agent.toolerrors import HINTS, ToolError
from workers.agent.tools import DONE, TOOLS, worker_tools
from workers.agent.tools.registry import MORE_TOOLS
from workers.browser.act.handlers import HANDLERS

BROWSER = Path(__file__).parents[3] / "workers" / "browser"
EMITTED = re.compile(
    r"""(?:failure|TierFailed|RefError)\(\s*["']([a-z_]+)["']|error=["']([a-z_]+)["']"""
    r"""|\b(?:ToolError|E)\.([a-z_]+)"""
)


def test_every_registered_tool_has_a_handler_and_a_schema() -> None:
    # `done` ends the run and `more_tools` changes the offer: both live in the agent loop
    assert set(HANDLERS) == set(TOOLS) - {DONE, MORE_TOOLS}
    schemas = {t["function"]["name"] for t in worker_tools(allow_scripts=True, vision=True)}
    assert schemas == set(TOOLS)


def test_every_error_code_the_browser_emits_has_its_own_hint() -> None:
    emitted: dict[str, str] = {}
    for path in BROWSER.rglob("*.py"):
        for match in EMITTED.finditer(path.read_text(encoding="utf-8")):
            code = next(g for g in match.groups() if g)
            emitted.setdefault(code, path.name)
    assert len(emitted) > 20  # the scan finds the codes (guards the regex itself)
    unknown = {code: where for code, where in emitted.items() if code not in ToolError.__members__}
    assert not unknown, f"codes without a ToolError member and hint: {unknown}"
    for code in emitted:
        assert HINTS[ToolError(code)]
