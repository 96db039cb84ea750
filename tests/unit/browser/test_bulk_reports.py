"""Issue 31 item 6: a bulk of three read_text calls hands back all three texts (each cut to
its share, saying so), and a 126-click bulk's per-step account is capped, not replayed whole
into the next request."""

from __future__ import annotations

from typing import Any

from workers.agent.protocols import Action, ToolResult
from workers.agent.tools import TOOLS
from workers.browser.act import handlers


class Reader:
    """Just enough of a ToolContext: each read_text returns a 6,000-character chunk."""

    async def execute(self, action: Action, *, step: bool = True) -> ToolResult:
        ref = str(action.args.get("ref", ""))
        if action.name == "read_text":
            text = f"<{ref}>" + "x" * 5990
            return ToolResult(success=True, reason=f"text of {ref}", data={"text": text})
        return ToolResult(success=True, reason=f"left click {ref} done (1 page changes)")


async def _bulk(steps: list[dict[str, Any]]) -> ToolResult:
    args = TOOLS["bulk"].args.model_validate({"actions": steps})
    return await handlers.bulk(Reader(), args)  # type: ignore[arg-type]


async def test_three_reads_in_a_bulk_come_back_as_three_texts() -> None:
    ran = await _bulk([{"tool": "read_text", "ref": f"1:{i}"} for i in (1, 2, 3)])
    reads = ran.data["reads"]
    assert all(f"<1:{i}>" in reads for i in (1, 2, 3)), reads[-300:]
    assert reads.count("[cut here") == 3
    assert len(reads) <= handlers.BULK_READ_CHARS + 3


async def test_a_long_bulk_report_is_capped() -> None:
    ran = await _bulk([{"tool": "click", "ref": "1:1"}] * 59 + [{"tool": "click", "ref": "1:2"}])
    steps = ran.data["steps"].splitlines()
    assert len(steps) == handlers.BULK_STEPS_KEPT + 1
    assert steps[0].startswith("1. ") and steps[-1].startswith("60. ")
    assert "steps 16-55 left out" in ran.data["steps"]
