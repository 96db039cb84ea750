"""Pre-formatted text keeps its whitespace in the snapshot (relay 2026-11-27 finding 7: the
snapshot showed `def f(x): return x * 2` for a `<pre>` a copy task needed exactly)."""

from __future__ import annotations

import pytest

from workers.browser.session import PageSession

pytestmark = pytest.mark.browser


async def test_pre_and_textarea_lines_keep_their_whitespace(
    session: PageSession, probe_port: int
) -> None:
    assert (await session.goto(f"http://127.0.0.1:{probe_port}/actions/reading.html")).success
    observation = await session.observe()
    text = observation.text
    lines = text.splitlines()
    code = next(i for i, line in enumerate(lines) if "def f(x):" in line)
    assert lines[code].rstrip().endswith("def f(x):"), text
    assert lines[code + 1].endswith("    return  x * 2"), text
    assert "Copy this text exactly" in text and "return x * 2" not in text, text
