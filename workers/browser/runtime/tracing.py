"""Run recordings (issue 25): a Playwright trace of one task's browser context, kept as the
task's `trace.zip` artifact (open it with `playwright show-trace trace.zip`).

What the recording leaves out:
- Private regions: Playwright's tracing cannot black out parts of its screenshots (the
  screencast has no mask option), so a task with `private_regions` is traced without
  screenshots.
- Typed secrets: a task with secrets is traced without DOM snapshots (they hold input
  values, keystroke by keystroke) and so without the network log (Playwright records it
  only with snapshots; request bodies would carry the value). `scrub()` then blanks the
  text and key arguments of every call and masks every secret value of the task's vault in
  all forms app/secret_forms.py knows, in every file of the zip. A value the model types
  with `secret=true` in a task without vault secrets is masked the same way once typed.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import re
import tempfile
import zipfile
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from pathlib import Path

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from app.secret_forms import SecretForms

log = logging.getLogger(__name__)

# call arguments that carry what was typed or pressed (fill, type, press, insertText, ...)
TYPED_PARAMS = frozenset({"text", "value", "values", "key"})
BLANK = "[redacted]"
INPUT_VALUE = re.compile(r'("__playwright_value_"\s*:\s*)"(?:[^"\\]|\\.)*"')


@dataclass(frozen=True)
class TracePlan:
    screenshots: bool
    snapshots: bool

    @classmethod
    def of(cls, *, private_regions: bool, secrets: bool) -> TracePlan:
        return cls(screenshots=not private_regions, snapshots=not secrets)


class Recording:
    """Filled when the trace stops: `data` is the zip (None if tracing failed)."""

    data: bytes | None = None


@contextlib.asynccontextmanager
async def recording(page: Page, plan: TracePlan) -> AsyncIterator[Recording]:
    """Trace the page's context while the body runs; a tracing failure never fails the task."""
    rec = Recording()
    tracing = page.context.tracing
    try:
        await tracing.start(screenshots=plan.screenshots, snapshots=plan.snapshots, sources=False)
    except PlaywrightError as exc:
        log.warning("trace not started: %s", exc)
        yield rec
        return
    try:
        yield rec
    finally:
        with tempfile.TemporaryDirectory(prefix="webagent-trace-") as folder:
            path = Path(folder) / "trace.zip"
            try:
                await tracing.stop(path=str(path))
                rec.data = path.read_bytes()
            except (PlaywrightError, OSError) as exc:  # the browser died with the task
                log.warning("trace not saved: %s", exc)


def scrub(data: bytes, secrets: Iterable[str], *, blank_typed: bool) -> bytes:
    """The trace zip with typed arguments blanked (`blank_typed`) and every secret value
    masked in every text file; binary files (screenshots) are copied as they are."""
    forms = SecretForms(secrets)
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            body = src.read(info)
            if info.filename.endswith((".trace", ".network", ".stacks")) or _is_text(body):
                text = body.decode("utf-8", errors="replace")
                if blank_typed and info.filename.endswith(".trace"):
                    text = _blank_typed(text)
                if forms:
                    text = forms.mask(text)
                body = text.encode()
            dst.writestr(info.filename, body, compress_type=zipfile.ZIP_DEFLATED)
    return out.getvalue()


def _is_text(body: bytes) -> bool:
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _blank_typed(text: str) -> str:
    lines = []
    for line in text.splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            lines.append(line)
            continue
        params = event.get("params") if isinstance(event, dict) else None
        if isinstance(params, dict):
            for name in TYPED_PARAMS & params.keys():
                params[name] = BLANK
        lines.append(INPUT_VALUE.sub(rf'\1"{BLANK}"', json.dumps(event)))
    return "\n".join(lines) + "\n"
