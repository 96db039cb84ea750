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
- Secret typing itself (issue 32, item 4): `paused()` ends the trace chunk before a secret
  is typed and starts a new one after it, titled PAUSE_NOTE with a PAUSE_NOTE group at its
  start, so no snapshot, screenshot or call of the keystrokes (each prefix of the value) is
  recorded. The chunks are merged into one zip as `0-trace.trace`, `1-trace.trace`, ...
  (the ordinal names the trace viewer opens together).
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import re
import tempfile
import weakref
import zipfile
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playwright.async_api import BrowserContext, Page
from playwright.async_api import Error as PlaywrightError

from app.secret_forms import SecretForms

log = logging.getLogger(__name__)

# call arguments that carry what was typed or pressed (fill, type, press, insertText, ...)
TYPED_PARAMS = frozenset({"text", "value", "values", "key"})
BLANK = "[redacted]"
INPUT_VALUE = re.compile(r'("__playwright_value_"\s*:\s*)"(?:[^"\\]|\\.)*"')
PAUSE_NOTE = "secret typed here: the typing was not recorded"


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


@dataclass
class _Parts:
    """The chunks of one context's trace: saved ones, and whether one is recording."""

    tracing: Any  # the context's playwright Tracing
    folder: Path
    saved: list[Path] = field(default_factory=list)
    recording: bool = True

    async def stop(self) -> None:
        if self.recording:
            self.recording = False
            path = self.folder / f"chunk-{len(self.saved)}.zip"
            await self.tracing.stop_chunk(path=str(path))
            self.saved.append(path)

    async def resume(self) -> None:
        await self.tracing.start_chunk(title=PAUSE_NOTE)
        self.recording = True
        await self.tracing.group(PAUSE_NOTE)
        await self.tracing.group_end()


_ACTIVE: weakref.WeakKeyDictionary[BrowserContext, _Parts] = weakref.WeakKeyDictionary()


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
    with tempfile.TemporaryDirectory(prefix="webagent-trace-") as folder:
        chunks = _ACTIVE[page.context] = _Parts(tracing, Path(folder))
        try:
            yield rec
        finally:
            _ACTIVE.pop(page.context, None)
            try:
                await chunks.stop()
                await tracing.stop()
                rec.data = merge([path.read_bytes() for path in chunks.saved])
            except (PlaywrightError, OSError) as exc:  # the browser died with the task
                log.warning("trace not saved: %s", exc)


@contextlib.asynccontextmanager
async def paused(page: Page) -> AsyncIterator[None]:
    """No tracing while the body runs (a secret is typed); a no-op when nothing is traced."""
    chunks = _ACTIVE.get(page.context)
    if chunks is None or not chunks.recording:
        yield
        return
    try:
        await chunks.stop()
    except PlaywrightError as exc:  # tracing broke: nothing more is recorded either way
        log.warning("trace chunk not saved: %s", exc)
        _ACTIVE.pop(page.context, None)
    try:
        yield
    finally:
        if _ACTIVE.get(page.context) is chunks:
            try:
                await chunks.resume()
            except PlaywrightError as exc:
                log.warning("trace not resumed after secret typing: %s", exc)
                _ACTIVE.pop(page.context, None)


def merge(parts: list[bytes]) -> bytes | None:
    """One zip of the chunk zips: chunk i's files as `i-<name>`, resources (named by their
    hash) once."""
    if not parts:
        return None
    out = io.BytesIO()
    seen: set[str] = set()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for i, data in enumerate(parts):
            with zipfile.ZipFile(io.BytesIO(data)) as src:
                for info in src.infolist():
                    shared = info.filename.startswith("resources/")
                    name = info.filename if shared else f"{i}-{info.filename}"
                    if name not in seen:
                        seen.add(name)
                        dst.writestr(name, src.read(info))
    return out.getvalue()


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
