"""The o200k counter loads the wheel's Rust tokenizer without the package's Python layer:
importing `bpe_openai` parses all three of its vocabularies in Python (~1 s of CPU per
process, on the GIL beside a browser start) for metadata a count never reads (issue 22)."""

from __future__ import annotations

import subprocess
import sys

import bpe_openai  # a required dependency (pyproject): missing it fails, never skips

TEXTS = [
    "hello world",
    "Grüße aus Köln, naïve café",
    "日本語のテキストと漢字、한국어 텍스트",
    "emoji 👍🏽 and flags 🇩🇪 🏳️‍🌈",
    "def f(x):\n    return x ** 2  # code\n\n\n",
    "a" * 3000,
    "lone surrogate \ud800 in text",
    "[12] button 'Send' · link 'Help' (href=/help)\n" * 40,
    "",
]


def test_counts_equal_the_packages_encoding() -> None:
    from workers.browser.observe import tokens

    encoding = bpe_openai.get_encoding("o200k_base")
    for text in TEXTS:
        assert tokens.count_tokens(text) == len(encoding.encode_ordinary(text)), text[:40]


PROBE = """
import sys, time
from workers.browser.observe import tokens
tokens.warm()
print(tokens.count_tokens("hello world " * 200), "bpe_openai.registry" in sys.modules)
import bpe_openai  # the package still imports after the fast load (one extension module)
print(len(bpe_openai.get_encoding("o200k_base").encode_ordinary("hello world " * 200)))
"""


def test_warm_does_not_parse_the_python_vocabularies() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    first, second = out.stdout.splitlines()
    count, registry_loaded = first.split()
    assert registry_loaded == "False"  # the package's Python layer was not imported
    assert int(count) == int(second) > 0
