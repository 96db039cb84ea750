"""Argument models of the reading and observing tools (seed 000 App. A "Extraction",
seed 003 §5.2): read_text, snapshot, screenshot, dom_search, export_pdf, the accessibility
tree, canvas pixels, look, read_download. Same conventions as args.py."""

from __future__ import annotations

import re
from typing import Annotated, Any, ClassVar

from pydantic import BeforeValidator, Field, model_validator

from workers.agent.tools.args import Args, OptRef


class ReadTextArgs(Args):
    ref: OptRef = None
    offset: int = Field(0, ge=0)


def _ref_index(value: Any) -> int:
    """Trim markers name plain indices ('[refs 120-480 trimmed: ...]'); '3:120' also works."""
    text = str(value).strip().strip("[] ")
    if isinstance(value, bool) or not re.match(r"^(\d+:)?\d+$", text):
        raise ValueError("use the numbers from a '[refs 120-480 trimmed: ...]' marker")
    return int(text.rsplit(":", 1)[-1])


RefIndex = Annotated[int, BeforeValidator(_ref_index)]


class SnapshotArgs(Args):
    RENAMES: ClassVar[dict[str, str]] = {"startRef": "start", "endRef": "end"}
    start: RefIndex
    end: RefIndex

    @model_validator(mode="before")
    @classmethod
    def _range(cls, data: Any) -> Any:
        """range="120-480" as one string."""
        if isinstance(data, dict) and isinstance(data.get("range"), str) and "start" not in data:
            start, _, end = data["range"].partition("-")
            return {**data, "start": start, "end": end or start}
        return data

    @model_validator(mode="after")
    def _order(self) -> SnapshotArgs:
        if self.end < self.start:
            raise ValueError("end must not be smaller than start")
        return self


class ScreenshotArgs(Args):
    RENAMES: ClassVar[dict[str, str]] = {"fullPage": "full_page"}
    ref: OptRef = None
    full_page: bool = False


class DomSearchArgs(Args):
    query: str | None = Field(None, description="Visible text to find.")
    selector: str | None = Field(None, description="Or a CSS selector.")
    limit: int = Field(10, ge=1, le=50)

    @model_validator(mode="after")
    def _some(self) -> DomSearchArgs:
        if not (self.query or self.selector):
            raise ValueError("give query or selector")
        return self


# `filename` was dropped silently as an unknown key (Args ignores them), and export_pdf
# saved page.pdf, read_download listed instead of reading (issue 31 item 1)
_FILE_NAME: dict[str, str] = {"filename": "name", "file_name": "name", "file": "name"}


class ExportPdfArgs(Args):
    RENAMES: ClassVar[dict[str, str]] = _FILE_NAME
    name: str | None = Field(None, description="File name of the PDF artifact.")


class AccessibilityTreeArgs(Args):
    ref: OptRef = None
    offset: int = Field(0, ge=0)


class ReadCanvasArgs(Args):
    ref: OptRef = None
    x: float = Field(description="x in CSS pixels (inside ref's box when given, else viewport)")
    y: float = Field(description="y in CSS pixels")


class LookArgs(Args):
    ref: OptRef = Field(None, description="An element to look at closely; omit for the screen.")
    question: str = Field(
        min_length=1,
        max_length=500,
        description="What to read from the pixels, e.g. 'What value does the tallest bar show?'",
    )


class ReadDownloadArgs(Args):
    RENAMES: ClassVar[dict[str, str]] = _FILE_NAME
    name: str | None = Field(None, description="Download name; omit to list downloads.")
    offset: int = Field(0, ge=0)


class SelectTextArgs(Args):
    """Select words on the page (relay finding 10): in `ref` (a paragraph, a text field), or
    anywhere in the page's body without one."""

    RENAMES: ClassVar[dict[str, str]] = {"nth": "occurrence", "index": "occurrence"}
    ref: OptRef = None
    text: str = Field(min_length=1, max_length=2000, description="The exact words to select.")
    occurrence: int = Field(1, ge=1, le=1000, description="Which match: 1 is the first.")
