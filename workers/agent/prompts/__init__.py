"""Prompt templates shipped as package data, rendered with string.Template ($name)."""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from string import Template


@cache
def load(name: str) -> str:
    """Template text of `name` (e.g. "worker_system.md"); read once per process."""
    return files(__package__).joinpath(name).read_text(encoding="utf-8")


def render(name: str, **values: object) -> str:
    """Fill a template; values are inserted verbatim (page text is never re-interpreted)."""
    return Template(load(name)).substitute({k: str(v) for k, v in values.items()}).strip()


def exchange(system: str, request: str, **values: object) -> list[dict[str, str]]:
    """A system template and a user template filled with `values`: a one-shot call's messages."""
    return [
        {"role": "system", "content": load(system).strip()},
        {"role": "user", "content": render(request, **values)},
    ]
