"""Files in and out of the page: uploads from the task's attachments (seed 001 App. A.5),
the run's own downloads and exports, or a small text file the model writes (issue 26 item
14; never another path), downloads and printed PDFs kept as task artifacts, and their text
for the model (PDF via pypdf, CSV, TXT, JSON; images through the vision model) in chunks.
"""

from __future__ import annotations

import contextlib
import json
import logging
import mimetypes
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from playwright.async_api import Download, Error

from workers.agent.protocols import ToolResult
from workers.agent.toolerrors import ToolError as E
from workers.browser.act import actions, look
from workers.browser.act.chunks import chunk
from workers.browser.runtime.profile import ATTACHMENTS

if TYPE_CHECKING:
    from workers.agent.tools.args import UploadFileArgs
    from workers.agent.tools.args_read import ExportPdfArgs, ReadDownloadArgs
    from workers.browser.act.context import FileContext

log = logging.getLogger(__name__)
TEXT_SUFFIXES = frozenset({".txt", ".csv", ".tsv", ".json", ".md", ".log", ".xml", ".html"})
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp"})


def uploadable(s: FileContext) -> dict[str, Path]:
    """What upload_file may send, by name (issue 26 item 14): the task's attachments and the
    files this run downloaded or exported (its artifacts); never any other path."""
    own = {name: s.artifacts.names[name] for name in s.downloads if name in s.artifacts.names}
    return {**own, **s.profile.attachments}


async def _written(s: FileContext, name: str, text: str) -> str:
    """The model's own small text file, kept as an artifact of the run under a fresh name."""
    path = s.artifacts.path_for(Path(name).name or "note.txt")
    path.write_text(text, encoding="utf-8")
    s.downloads.append(path.name)
    await store(s, path)
    return path.name


async def upload_file(s: FileContext, args: UploadFileArgs) -> ToolResult:
    await s.settle_downloads()  # a download the last click started is being saved
    if args.text is not None:
        args = args.model_copy(update={"files": [await _written(s, args.files[0], args.text)]})
    allowed = uploadable(s)
    missing = [f for f in args.files if f not in allowed]
    if missing:
        names = ", ".join(sorted(allowed)) or "none"
        return actions.failure(
            E.file_not_attached,
            f"{', '.join(missing)} is neither attached to this task nor a file this run"
            f" downloaded; files you can upload: {names}.",
            *(f"upload_file ref={args.ref} files=[{n!r}]" for n in sorted(allowed)[:3]),
            "or write a small text file: upload_file with files=[name] and text",
        )
    paths = [str(allowed[f]) for f in args.files]
    el, target = await s.element(args.model_dump())
    is_file = (await actions.element_kind(el))["file"]

    async def attach() -> None:
        if is_file:
            await el.set_input_files(paths, timeout=actions.ACTION_TIMEOUT_MS)
            return
        async with s.page.expect_file_chooser(timeout=actions.ACTION_TIMEOUT_MS) as chooser:
            await el.click(timeout=actions.ACTION_TIMEOUT_MS)
        await (await chooser.value).set_files(paths)

    try:
        return await s.verified(
            f"upload {', '.join(args.files)} to {args.ref}", target.frame, attach, ghost=False
        )
    except Error as exc:
        if "file" in str(exc).lower() or "Timeout" in str(exc):
            return actions.failure(
                E.not_a_file_input,
                f"{args.ref} is not a file input and opened no file chooser.",
                "use the <input type=file> or its 'Browse'/'Upload' button",
            )
        raise


async def keep_download(s: FileContext, download: Download) -> None:
    """Save a download the page started into the artifact directory and the task's artifacts."""
    path = s.artifacts.path_for(download.suggested_filename or "download")
    with contextlib.suppress(Error):
        await download.save_as(path)
        s.downloads.append(path.name)
        await store(s, path)


async def store(s: FileContext, path: Path) -> None:
    """Hand a kept file to the task's artifact store (`FileContext.keep_file`), unless it is
    larger than WEBAGENT_DOWNLOAD_ARTIFACT_MAX_BYTES; the model can read it either way."""
    size = path.stat().st_size
    if s.keep_file is None:
        return
    if size > s.settings.download_artifact_max_bytes:
        log.warning("%s (%d bytes) is over the artifact size cap; not stored", path.name, size)
        return
    content_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    await s.keep_file(path.name, content_type, path.read_bytes())


async def export_pdf(s: FileContext, args: ExportPdfArgs) -> ToolResult:
    name = args.name or "page.pdf"
    path = s.artifacts.path_for(name if name.endswith(".pdf") else name + ".pdf")
    try:
        await s.page.emulate_media(media="print")
        await s.page.pdf(path=str(path), print_background=True)
    except Error as exc:
        return actions.failure(E.pdf_failed, f"export_pdf: {exc.message.splitlines()[0]}")
    finally:
        with contextlib.suppress(Error):
            await s.page.emulate_media(media="screen")
    s.downloads.append(path.name)
    await store(s, path)
    return ToolResult(
        success=True,
        reason=f"saved {path.name} ({path.stat().st_size} bytes); read it with "
        f"read_download name={path.name!r}",
        data={"name": path.name},
    )


def text_of(path: Path) -> str:
    """The file as text: PDF pages via pypdf, JSON pretty-printed, text files as they are."""
    suffix = path.suffix.lower()
    if suffix == ".pdf":
        from pypdf import PdfReader

        reader = PdfReader(str(path))
        pages = [p.extract_text() or "" for p in reader.pages]
        return "\n\n".join(f"[page {i}]\n{t.strip()}" for i, t in enumerate(pages, 1))
    raw = path.read_text(encoding="utf-8", errors="replace")
    if suffix == ".json":
        with contextlib.suppress(ValueError):
            return json.dumps(json.loads(raw), indent=1, ensure_ascii=False)
    return raw


async def read_download(s: FileContext, args: ReadDownloadArgs) -> ToolResult:
    await s.settle_downloads()
    kept = s.downloads
    only = s.artifacts.names.get(kept[0]) if len(kept) == 1 else None
    if args.name is None and only is not None and Path(only).is_file():
        # the one file there is: read it, not a listing that costs the model a step
        # (challenge relay run: every download task listed, then read)
        read = await read_download(s, args.model_copy(update={"name": kept[0]}))
        return replace(read, reason=f"the only download, {read.reason}")
    if args.name is None:
        listing = ", ".join(kept) or "no downloads yet"
        return ToolResult(success=True, reason=f"downloads: {listing}", data={"files": kept})
    if args.name not in kept:
        return actions.failure(
            E.download_not_found,
            f"no download named {args.name!r}; downloads: {', '.join(kept) or 'none'}.",
            *(f"read_download name={n!r}" for n in kept[-3:]),
        )
    path = s.artifacts.names[args.name]
    if path.suffix.lower() in IMAGE_SUFFIXES:  # to the vision model (issue 27 item 6)
        max_side = s.settings.llm_image_max_side
        return await look.read_image(s.look_llm, max_side, args.name, path.read_bytes())
    if path.suffix.lower() not in TEXT_SUFFIXES | {".pdf"}:
        return actions.failure(
            E.unsupported_format, f"{args.name} is a {path.suffix or 'binary'} file."
        )
    _, where, data = chunk(text_of(path), args.offset)
    return ToolResult(success=True, reason=f"{args.name}: {where}", data=data)


def stage_attachments(files_root: str, task_id: str, files: Sequence[tuple[str, bytes]]) -> str:
    """Write the files uploaded with a task where task_profile() finds them
    (`<root>/<task_id>/attachments/<name>`, workers/process/scratch.py); returns the root."""
    if not files:
        return files_root
    folder = Path(files_root) / task_id / ATTACHMENTS
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files:
        (folder / Path(name).name).write_bytes(data)
    return files_root


def attachments_note(names: Sequence[str]) -> str:
    """What the model learns about the files sent with its task: their names, for upload_file."""
    if not names:
        return ""
    listed = ", ".join(repr(n) for n in names)
    return f"\n\nFiles attached to this task (upload_file takes these names): {listed}."
