"""Long text handed to the model in chunks with an explicit position (issue 7 class 9):
"chars X-Y of Z, next offset N", so nothing is cut without a way to read on."""

from __future__ import annotations

from typing import Any

CHUNK_CHARS = 6000


def chunk(text: str, offset: int, size: int = CHUNK_CHARS) -> tuple[str, str, dict[str, Any]]:
    """(piece, position sentence, data) for text[offset:offset+size], ending on a line or
    word break when one is near so words are not split."""
    total = len(text)
    start = min(offset, total)
    end = min(start + size, total)
    if end < total:
        cut = max(text.rfind("\n", start, end), text.rfind(" ", start, end))
        if cut > start + size // 2:
            end = cut + 1
    piece = text[start:end]
    where = f"chars {start}-{end} of {total}"
    where += f", next offset {end}" if end < total else " (end)"
    data: dict[str, Any] = {"text": piece, "offset": start, "end": end, "total": total}
    if end < total:
        data["next_offset"] = end
    return piece, where, data
