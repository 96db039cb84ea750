"""Issue 31 item 1: a tool whose own code raises is a tool failure the model sees
(`tool_crashed`, from the shared enum), logged with its traceback, counted, secrets masked;
the session goes on. And export_pdf keeps the name it was given, however it was spelled."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from playwright.async_api import Page

from app import metrics
from tests.integration.browser.test_relay_wave2 import _ref_of
from workers.agent.protocols import Action
from workers.browser.session import PageSession

pytestmark = pytest.mark.browser


def _crashes(tool: str, exception: str) -> float:
    value = metrics.TOOL_CRASHES.labels(tool=tool, exception=exception)._value.get()
    return float(value)


async def test_a_tool_that_raises_is_a_failure_the_model_sees(
    session: PageSession, page: Page, probe_port: int, caplog: pytest.LogCaptureFixture
) -> None:
    assert (await session.goto(f"http://127.0.0.1:{probe_port}/actions/files.html")).success
    await session.observe()
    link = await _ref_of(session, 'link "Download the report"')
    assert (await session.execute(Action("click", {"ref": link}))).success
    await session.settle_downloads()
    path = Path(session.artifacts.names["report.txt"])
    path.unlink()  # gone from under the run (issue 31: another service's sweep)
    session.secrets.learn(str(path.parent))  # a secret in the exception's text is masked
    before = _crashes("read_download", "FileNotFoundError")
    with caplog.at_level(logging.ERROR):
        read = await session.execute(Action("read_download", {"name": "report.txt"}))
    assert not read.success and read.error == "tool_crashed", read
    assert "FileNotFoundError" in read.reason, read.reason
    assert str(path.parent) not in read.reason and "[secret]" in read.reason, read.reason
    assert _crashes("read_download", "FileNotFoundError") == before + 1
    logged = [r for r in caplog.records if "read_download" in r.getMessage()]
    assert logged and "Traceback" in logging.Formatter().format(logged[0])  # and its traceback
    listed = await session.execute(Action("read_download", {}))
    assert listed.success and "report.txt" in listed.reason  # the session goes on


@pytest.mark.parametrize("spelling", ["name", "filename", "file_name"])
async def test_export_pdf_keeps_the_name_it_was_given(
    session: PageSession, probe_port: int, spelling: str
) -> None:
    assert (await session.goto(f"http://127.0.0.1:{probe_port}/actions/files.html")).success
    saved = await session.execute(Action("export_pdf", {spelling: "invoice 7"}))
    assert saved.success, saved.reason
    assert saved.data["name"] == "invoice 7.pdf", saved.reason


async def test_read_download_reads_a_file_named_with_filename(
    session: PageSession, probe_port: int
) -> None:
    assert (await session.goto(f"http://127.0.0.1:{probe_port}/actions/files.html")).success
    assert (await session.execute(Action("export_pdf", {"name": "notes"}))).success
    read = await session.execute(Action("read_download", {"filename": "notes.pdf"}))
    assert read.success and "chars" in read.reason, read.reason  # read, not listed


async def test_read_download_without_a_name_reads_the_only_download(
    session: PageSession, probe_port: int
) -> None:
    """Challenge relay run: each download task listed its one file, then read it (a step)."""
    assert (await session.goto(f"http://127.0.0.1:{probe_port}/actions/files.html")).success
    assert (await session.execute(Action("export_pdf", {"name": "notes"}))).success
    read = await session.execute(Action("read_download", {}))
    assert read.success and read.reason.startswith("the only download, notes.pdf: chars"), read
    assert "text" in read.data
