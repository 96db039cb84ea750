"""Secret masking speed (issue 35): one `SecretForms.mask` pass over 50 KB of page text
(the saved real pages, tags stripped) with three secrets.

    python bench/secret_masking.py                  # this checkout's app/secret_forms.py
    git show main:app/secret_forms.py > /tmp/old.py
    python bench/secret_masking.py /tmp/old.py      # another version, for before/after
"""

from __future__ import annotations

import importlib.util
import re
import sys
import time
from pathlib import Path
from types import ModuleType

PAGES = Path("/work/shared/data/realpages")
SECRETS = ["Vault!Canary@5150", "Hunter2-CANARY-77", "s3cr3t-pass"]
CHARS, ROUNDS = 50_000, 20


def module(path: str | None) -> ModuleType:
    if path is None:
        from app import secret_forms

        return secret_forms
    spec = importlib.util.spec_from_file_location("forms_under_test", path)
    assert spec is not None and spec.loader is not None
    found = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(found)
    return found


def page_text() -> str:
    text = ""
    for page in sorted(PAGES.glob("*.html")):
        text += re.sub(r"<[^>]+>", " ", page.read_text(errors="ignore"))
        if len(text) >= CHARS:
            break
    return text[:CHARS]


def main() -> None:
    forms_module = module(sys.argv[1] if len(sys.argv) > 1 else None)
    text = page_text()
    started = time.perf_counter()
    forms = forms_module.SecretForms(SECRETS)
    built = time.perf_counter() - started
    started = time.perf_counter()
    for _ in range(ROUNDS):
        forms.mask(text)
    each = (time.perf_counter() - started) / ROUNDS
    print(
        f"mask {len(text)} chars, {len(SECRETS)} secrets: {each * 1000:.1f} ms/pass; "
        f"build {built * 1000:.1f} ms"
    )


if __name__ == "__main__":
    main()
