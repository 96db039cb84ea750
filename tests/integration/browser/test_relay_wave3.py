"""What misled a real model in the wave-3 relay run (docs/benchmarks.md), browser side, on
local pages: a native time input given its own 24-hour form, and fill_form reporting success
while a field it was given still held something else."""

from __future__ import annotations

import pytest
from playwright.async_api import Page

from tests.integration.browser.test_relay_wave2 import _open, _ref_of
from workers.agent.protocols import Action
from workers.browser.session import PageSession

pytestmark = pytest.mark.browser


async def test_a_time_in_its_own_24_hour_form_fills_a_native_time_input(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "fields.html")
    clock = await _ref_of(session, 'time "Time"')
    typed = await session.execute(Action("type", {"ref": clock, "text": "21:37"}))
    assert typed.success, typed.reason  # keys "2","1",":"... left a 12-hour field empty
    assert await page.locator("#at").input_value() == "21:37"
    assert 'value="21:37"' in (await session.observe()).text


async def test_fill_form_fills_a_native_time_input(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "fields.html")
    clock = await _ref_of(session, 'time "Time"')
    filled = await session.execute(
        Action("fill_form", {"fields": [{"ref": clock, "value": "21:37"}]})
    )
    assert filled.success, filled.reason
    assert await page.locator("#at").input_value() == "21:37"


async def test_fill_form_is_no_success_while_a_given_field_holds_something_else(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "fields.html")
    note = await _ref_of(session, 'textbox "Note"')  # maxlength=3: keeps "abc"
    filled = await session.execute(
        Action("fill_form", {"fields": [{"ref": note, "value": "abcdef"}]})
    )
    assert not filled.success and filled.error == "value_mismatch", filled.reason
    assert "'abc'" in filled.reason and note in filled.reason
