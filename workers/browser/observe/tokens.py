"""Token counts for the observation budget (issue 7 class 11): o200k_base through the offline
`bpe-openai` wheel, or a script-aware estimate (a token per CJK/kana/hangul character, ~4
characters per token otherwise) when that package is missing. Characters ÷ 4 alone would
let CJK pages exceed the cap up to 2×."""

from __future__ import annotations

import threading
import warnings
from functools import lru_cache
from typing import Any

WARM_THREAD = "o200k-warm-up"


@lru_cache(maxsize=1)
def _encoding() -> Any:
    with warnings.catch_warnings():  # the package reads its vocabulary with open_binary
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            import bpe_openai
        except ImportError:
            return None
        return bpe_openai.get_encoding("o200k_base")


def warm() -> None:
    """Load the vocabulary now (1.5-5 s), at worker start, not inside a task's first observe."""
    _encoding()


def warm_in_background() -> threading.Thread:
    """Start loading the vocabulary in a daemon thread (a process that starts a browser
    calls this first: the load overlaps the launch instead of the first observation)."""
    thread = threading.Thread(target=warm, name=WARM_THREAD, daemon=True)
    thread.start()
    return thread


def estimate_tokens(text: str) -> int:
    """Script-aware estimate: a token per CJK/kana/hangul character, ~4 chars per token else."""
    wide = sum(1 for ch in text if "\u2e80" <= ch <= "\ud7ff" or "\uf900" <= ch <= "\uffef")
    return wide + (len(text) - wide + 3) // 4


def count_tokens(text: str) -> int:
    """o200k_base tokens of `text` (the estimate above when the tokenizer is not installed)."""
    if len(text) <= 400:
        return _line_tokens(text)
    enc = _encoding()
    return len(enc.encode_ordinary(text)) if enc is not None else estimate_tokens(text)


@lru_cache(maxsize=32768)
def _line_tokens(text: str) -> int:
    enc = _encoding()
    return len(enc.encode_ordinary(text)) if enc is not None else estimate_tokens(text)
