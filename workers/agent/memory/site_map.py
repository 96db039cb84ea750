"""What a site exploration's WebsiteMem gives a task (seed 001 §2.3 'Use at inference', A.4).

Two things, each a handful of tokens per prompt rather than the whole memory:

- bookmarks: a short list of the site's known pages (title and URL; of a template's pages
  one example, marked with its URL pattern), shown in the Planner's and the Worker's view
  of the domain inside the untrusted fence like every other cross-run memory (the titles
  are page text: data, never instructions);
- hidden menus: a control whose click revealed items during exploration (a dropdown or
  menu) gets one clearly marked line under it in the observation when the live page does
  not show any of those items, so the model knows what opening it offers.

`SiteMap.of` reads the stored WebsiteMem JSON (app/contracts.py WebsiteMem) leniently:
malformed parts are ignored.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

BOOKMARKS, BRIEF_BOOKMARKS = 8, 4  # pages listed for the Planner, for the Worker's brief view
MENU_ITEMS = 8  # items named in one hidden-menu line
TITLE_CHARS, URL_CHARS = 60, 120
MENU_MARK = "↳ menu learned by site exploration, hidden now (open it to use):"
_LINE = re.compile(r"^(?P<indent>\s*)\[\d+:\d+\] (?P<label>\w+(?: \"(?:[^\"\\]|\\.)*\")?)")


@dataclass(frozen=True)
class Bookmark:
    title: str
    url: str
    pattern: str | None = None  # the template's URL pattern when the page is one of many

    def render(self) -> str:
        shape = f" (one of {self.pattern})" if self.pattern else ""
        return f"{_clip(self.title, TITLE_CHARS)!r} — {_clip(self.url, URL_CHARS)}{shape}"


@dataclass(frozen=True)
class SiteMap:
    version: int | None = None
    bookmarks: tuple[Bookmark, ...] = ()
    menus: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (control label, revealed labels)

    @classmethod
    def of(cls, data: Mapping[str, Any] | None) -> SiteMap:
        if not isinstance(data, Mapping) or not data:
            return cls()
        version = data.get("version")
        return cls(
            version=version if isinstance(version, int) else None,
            bookmarks=tuple(_bookmarks(_rows(data.get("pages")), _rows(data.get("templates")))),
            menus=tuple(_menus(_rows(data.get("elements")))),
        )

    @property
    def empty(self) -> bool:
        return not (self.bookmarks or self.menus)

    def lines(self, *, brief: bool = False) -> list[str]:
        shown = self.bookmarks[: BRIEF_BOOKMARKS if brief else BOOKMARKS]
        if not shown:
            return []
        head = "known pages (site exploration; navigate to one directly when it fits the task):"
        return [head, *(f"  {b.render()}" for b in shown)]


def _rows(value: Any) -> list[Mapping[str, Any]]:
    return [r for r in value if isinstance(r, Mapping)] if isinstance(value, list) else []


def _clip(text: Any, limit: int) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _bookmarks(
    pages: Sequence[Mapping[str, Any]], templates: Sequence[Mapping[str, Any]]
) -> list[Bookmark]:
    """Pages by depth (document order within a depth); of an item template's pages only the
    first, with its pattern."""
    items = {str(t.get("pattern")) for t in templates if t.get("kind") == "item"}
    ordered = sorted((p for p in pages if isinstance(p.get("url"), str)), key=_depth)
    out: list[Bookmark] = []
    shown_patterns: set[str] = set()
    for page in ordered:
        pattern = page.get("template")
        if isinstance(pattern, str) and pattern in items:
            if pattern in shown_patterns:
                continue
            shown_patterns.add(pattern)
            out.append(Bookmark(str(page.get("title") or ""), page["url"], pattern))
        else:
            out.append(Bookmark(str(page.get("title") or ""), page["url"]))
    return out


def _depth(page: Mapping[str, Any]) -> int:
    depth = page.get("depth")
    return depth if isinstance(depth, int) else 99


def _menus(elements: Sequence[Mapping[str, Any]]) -> list[tuple[str, tuple[str, ...]]]:
    menus: dict[str, tuple[str, ...]] = {}
    for e in elements:
        revealed = [str(r) for r in e.get("revealed") or [] if isinstance(r, str)]
        label = e.get("label")
        if e.get("effect") == "reveals" and isinstance(label, str) and revealed:
            menus.setdefault(label, tuple(revealed))
    return list(menus.items())


def _name(label: str) -> str:
    return label.split(" ", 1)[1] if " " in label else label


def annotate_menus(text: str, menus: Sequence[tuple[str, Sequence[str]]]) -> str:
    """Observation text with a marked line under each control whose explored menu items the
    live page does not show (none of them in `text`); anything else is left as it is."""
    if not menus:
        return text
    wanted = {label: items for label, items in menus if not any(i in text for i in items)}
    if not wanted:
        return text
    out: list[str] = []
    for line in text.split("\n"):
        out.append(line)
        match = _LINE.match(line)
        items = wanted.pop(match["label"], None) if match else None
        if match and items:
            names = ", ".join(_clip(_name(i), TITLE_CHARS) for i in items[:MENU_ITEMS])
            more = f" … {len(items) - MENU_ITEMS} more" if len(items) > MENU_ITEMS else ""
            out.append(f"{match['indent']}  {MENU_MARK} {names}{more}")
    return "\n".join(out)
