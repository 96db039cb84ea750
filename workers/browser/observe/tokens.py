"""Token counts for the observation budget (issue 7 class 11): o200k_base through the offline
`bpe-openai` wheel, or a script-aware estimate (a token per CJK/kana/hangul character, ~4
characters per token otherwise) when that package is missing. Characters ÷ 4 alone would
let CJK pages exceed the cap up to 2×."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import re
import sys
import threading
import warnings
from functools import lru_cache
from typing import Any

WARM_THREAD = "o200k-warm-up"
ENCODING = "o200k_base"
BINDINGS = "bpe_openai._bindings"  # the wheel's Rust tokenizer (its vocabularies built in)


@lru_cache(maxsize=1)
def _encoding() -> Any:
    """Something with `count(text)`: the Rust tokenizer, else the estimate (None)."""
    try:
        return _rust_tokenizer()
    except (ImportError, OSError, AttributeError, ValueError):
        pass  # another wheel layout: the package's own loader below
    with warnings.catch_warnings():  # the package reads its vocabulary with open_binary
        warnings.simplefilter("ignore", DeprecationWarning)
        try:
            import bpe_openai
        except ImportError:
            return None
        return _Counter(bpe_openai.get_encoding(ENCODING))


def _rust_tokenizer() -> Any:
    """The wheel's extension module loaded by itself: importing the `bpe_openai` package
    first would parse all three of its vocabularies in Python (~1 s of CPU, holding the
    GIL beside a browser start) for tiktoken metadata a count never reads."""
    module = sys.modules.get(BINDINGS)
    if module is None:
        package = importlib.util.find_spec("bpe_openai")
        if package is None or package.submodule_search_locations is None:
            raise ImportError("bpe_openai is not installed")
        spec = importlib.machinery.PathFinder.find_spec(
            BINDINGS, list(package.submodule_search_locations)
        )
        if spec is None or spec.loader is None:
            raise ImportError(f"no {BINDINGS} in the bpe_openai wheel")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        # registered: the package, imported later, takes this one (an extension inits once)
        module = sys.modules.setdefault(BINDINGS, module)
    return module.tokenizer_for_encoding(ENCODING)


class _Counter:
    """The package's Encoding behind the Rust tokenizer's `count` name."""

    def __init__(self, encoding: Any) -> None:
        self.encoding = encoding

    def count(self, text: str) -> int:
        return len(self.encoding.encode_ordinary(text))


def _sanitized(text: str) -> str:
    """Lone surrogates replaced (as the package's Encoding does before the Rust call)."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


def warm() -> None:
    """Load the vocabulary now (1.5-5 s), at worker start, not inside a task's first observe."""
    _encoding()


def warm_in_background() -> threading.Thread:
    """Start loading the vocabulary in a daemon thread (a process that starts a browser
    calls this first: the load overlaps the launch instead of the first observation)."""
    thread = threading.Thread(target=warm, name=WARM_THREAD, daemon=True)
    thread.start()
    return thread


_WIDE = re.compile("[\u2e80-\ud7ff\uf900-\uffef]")  # CJK, kana, hangul: a token each


def estimate_tokens(text: str) -> int:
    """Script-aware estimate: a token per CJK/kana/hangul character, ~4 chars per token else
    (the wide characters are counted by one compiled pattern, in C: issue 35)."""
    wide = len(_WIDE.findall(text))
    return wide + (len(text) - wide + 3) // 4


def count_tokens(text: str) -> int:
    """o200k_base tokens of `text` (the estimate above when the tokenizer is not installed)."""
    if len(text) <= 400:
        return _line_tokens(text)
    enc = _encoding()
    return enc.count(_sanitized(text)) if enc is not None else estimate_tokens(text)


@lru_cache(maxsize=32768)
def _line_tokens(text: str) -> int:
    enc = _encoding()
    return enc.count(_sanitized(text)) if enc is not None else estimate_tokens(text)
