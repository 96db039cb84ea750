"""Browser-side sources: each room keeps its JavaScript in its own `js/` folder, beside the
Python that loads it (observe/js, act/js, runtime/js); `js(name)` finds a file by name.

Data goes into a page only through `evaluate(script, arg)`; no script is built from data.
"""

from __future__ import annotations

from functools import cache
from importlib import resources

ROOMS = ("workers.browser.observe", "workers.browser.act", "workers.browser.runtime")


@cache
def js(name: str) -> str:
    """The source of `name` from whichever room ships it."""
    for room in ROOMS:
        source = resources.files(room).joinpath("js", name)
        if source.is_file():
            return source.read_text("utf-8")
    raise FileNotFoundError(f"no browser script {name!r} in {', '.join(ROOMS)}")


@cache
def js_with(name: str, *helpers: str) -> str:
    """`name`'s function, called with its one argument followed by the helper functions."""
    calls = "".join(f", ({js(h)})" for h in helpers)
    return f"(arg) => ({js(name)})(arg{calls})"
