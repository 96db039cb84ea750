"""Proven routes: a verified run's action trace, parameterised by the task's values (issue 21).

Seed 000 §4.2 keeps per-domain learnings that make a repeated task cheaper; seed 001 App. A.2
and A.4 keep what a site's pages do and let a later run go straight to where it needs to be;
seed 004 §3.1 turns experience into the plan ("experience-imitation"). A route is the most
direct form of that experience: the steps a succeeded, checked run took on a domain, stored
so that a later task with the same intent replays them without model calls
(workers/agent/replay/replay.py) and hands over to the full loop at the first step whose expected
effect does not show.

What the task gave and what the page gave are told apart:

- **The task's values** are the tokens of its instruction that look like values — quoted
  strings, numbers, and words of three letters or more that are not stop words — and that the
  trace used: in an argument (typed text, a chosen option, a URL) or in the accessible name of
  an element it acted on (`link "Aurora Kettle"` after "open the Aurora kettle"). Those
  tokens become the route's slots; every string of the route that spelled one is stored as a
  template (`{3:T} Kettle`: slot 3, title case as the page wrote it) and rendered with the
  new task's values on replay.
- **The page's state** is never replayed as is: refs change between snapshots and runs, so a
  step's target is kept as role + accessible name + place (the landmark line above it in the
  observation, `main > form "Filters"`) + its rank among equal matches, and found again in
  the current observation; the step's expected effect is the URL it led to (a pattern: ids
  and query values that carried no task value are wildcards) and up to four controls that
  appeared after it (one of them must appear again).

**Matching a new task to a route** (`match`): the new instruction is split into tokens like
the stored one; it matches when it has as many tokens and every token that is not a slot is
the same word (case aside). The new tokens at the slot positions are the values. So "colour
red ... "Aurora" ... 1.7 L ... Berlin" matches "colour blue ... "Nimbus" ... 1.2 L ... Paris"
when the trace used each of those values, and "find the price" never matches "find the
reviews" unless the trace used the word "price" (then the replay's checks decide).

Secrets never enter a route: `type` text the model marked `secret=true` is not stored (the
step cannot be replayed and hands over to the model); a `<secret:name>` token is stored as
the token (the browser swaps the value in at typing time, workers/adapters/secrets.py); the
route store masks the task's secret values once more before writing.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlsplit

from workers.agent.memory.ledger import domain_of
from workers.agent.memory.route_values import (
    _CONTROL,
    _HEADING,
    _ID_LIKE,
    _PLACE,
    WILD,
    Slots,
    _escape,
    intent_of,
    match,
    render,
    slots_in,
)

# --- targets in an observation --------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    """An element as the route keeps it: role, accessible name, place (the landmark above
    it), rank among equals, the heading above it in that landmark, and the task values its
    row, card or list item carried (one template per line: "{5}")."""

    role: str
    name: str
    place: str = ""
    nth: int = 0
    heading: str = ""
    row: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "role": self.role,
            "name": self.name,
            "place": self.place,
            "nth": self.nth,
            "heading": self.heading,
            "row": list(self.row),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Target:
        return cls(
            str(data.get("role", "")),
            str(data.get("name", "")),
            str(data.get("place", "")),
            int(data.get("nth", 0)),
            str(data.get("heading", "")),
            tuple(str(v) for v in data.get("row") or ()),
        )


@dataclass(frozen=True)
class Element:
    ref: str
    role: str
    name: str
    place: str
    heading: str = ""
    line: str = ""  # the whole line it stands on (a table row's cells, a card's text)

    @property
    def label(self) -> str:
        return f'{self.role} "{self.name}"'


def _unquote_name(quoted: str | None) -> str:
    if not quoted:
        return ""
    body = quoted[1:-1]
    return re.sub(r"\\(.)", r"\1", body)


def elements(page_text: str) -> list[Element]:
    """The controls of an observation in page order, each with the landmark line and the
    heading above it and the line it stands on (a grid row puts several on one line)."""
    out, place, heading = [], "", ""
    for line in page_text.splitlines():
        landmark = _PLACE.match(line)
        if landmark:
            place, heading = landmark.group(1), ""
            continue
        title = _HEADING.match(line)
        if title:
            heading = title.group(1).strip()
            continue
        for m in _CONTROL.finditer(line):
            name = _unquote_name(m.group(3)).split("…[+", 1)[0]
            out.append(Element(m.group(1), m.group(2), name, place, heading, line.strip()))
    return out


_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")


def _same(a: str, b: str) -> bool:
    return " ".join(a.lower().split()) == " ".join(b.lower().split())


def target_of(page_text: str, ref: str) -> Target | None:
    """The route's record of the element with this ref (None when it is not in the text);
    its `row` is the whole line it stands on, for the recorder to keep the task's values of."""
    found = elements(page_text)
    element = next((e for e in found if e.ref == ref), None)
    if element is None:
        return None
    equal = [e for e in found if _equal(e, element)]
    row = (element.line,) if _CONTROL.sub("", element.line).strip(" |") else ()
    return Target(
        element.role, element.name, element.place, equal.index(element), element.heading, row
    )


def _section(a: str, b: str) -> bool:
    """Same heading, counts aside ("3 kettles" is the section "2 kettles" was)."""
    return _same(_DIGITS.sub("#", a), _DIGITS.sub("#", b))


def _equal(a: Element, b: Element) -> bool:
    return (
        a.role == b.role
        and _same(a.name, b.name)
        and _same(a.place, b.place)
        and _section(a.heading, b.heading)
    )


def _carries(line: str, values: Sequence[str]) -> bool:
    text = " ".join(line.lower().split())
    return all(" ".join(v.lower().split()) in text for v in values if v.strip())


def find(page_text: str, target: Target) -> Element | None:
    """The element a recorded target names, in the current observation: same role, name,
    place and heading, on a line that carries the task's values of its row (if it had any),
    by its rank among equals. Nothing else: a same-named control in another section is
    never taken for it (issue 32 item 2); the replay hands over to the model instead."""
    here = [
        e
        for e in elements(page_text)
        if e.role == target.role
        and _same(e.name, target.name)
        and _same(e.place, target.place)
        and _section(e.heading, target.heading)
        and _carries(e.line, target.row)
    ]
    return here[target.nth] if target.nth < len(here) else None


def labels(page_text: str) -> list[str]:
    return list(dict.fromkeys(e.label for e in elements(page_text) if e.name))


# --- URL patterns -----------------------------------------------------------------------------


def url_pattern(url: str, slots: Slots, only: Iterable[int]) -> str:
    """host/path?query of a reached URL as a pattern: task values (of the slots `only`) as
    slots, ids and query values that carried no task value as `*`."""
    used: set[int] = set()
    only = tuple(only)
    parts = urlsplit(url)
    segments = []
    for raw in parts.path.strip("/").split("/"):
        if not raw:
            continue
        segment = slots.template(unquote(raw), used, only)
        segments.append(WILD if not slots_in(segment) and _ID_LIKE.match(raw) else segment)
    query = []
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        templated = slots.template(value, used, only)
        query.append(f"{_escape(key)}={templated if slots_in(templated) else WILD}")
    host = _escape((parts.hostname or "").lower())
    path = "/" + "/".join(segments)
    return f"{host}{path}" + ("?" + "&".join(sorted(query)) if query else "")


def url_matches(pattern: str, url: str, values: Sequence[str]) -> bool:
    """Does a reached URL have the recorded shape (slots rendered with the task's values)?"""
    expected = render(pattern, values)
    host, _, rest = expected.partition("/")
    path, _, query = rest.partition("?")
    parts = urlsplit(url)
    if host and host != (parts.hostname or "").lower():
        return False
    want = [s for s in path.split("/") if s]
    got = [unquote(s) for s in parts.path.strip("/").split("/") if s]
    if len(want) != len(got):
        return False
    if any(w != WILD and not _same(w, g) for w, g in zip(want, got, strict=True)):
        return False
    want_q = dict(p.split("=", 1) for p in query.split("&") if "=" in p)
    got_q = dict(parse_qsl(parts.query, keep_blank_values=True))
    if set(want_q) != set(got_q):
        return False
    return all(v == WILD or _same(v, got_q[k]) for k, v in want_q.items())


def relative_url(url: str, start: str) -> str:
    """A same-origin URL as path?query (replayed against the current origin)."""
    a, b = urlsplit(url), urlsplit(start)
    if (a.scheme, a.netloc) == (b.scheme, b.netloc) and a.scheme in ("http", "https"):
        return a.path + (f"?{a.query}" if a.query else "")
    return url


def quote_value(value: str) -> str:
    return quote(value, safe="")


# --- the route -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class RouteStep:
    """One recorded action: its name, templated arguments (no refs), target and effect."""

    action: str
    args: Mapping[str, Any] = field(default_factory=dict)
    target: Target | None = None
    optional: bool = False  # a popup's dismissal: skipped when the popup is not shown
    replayable: bool = True  # False: secret text (never stored) — the model takes over here
    url: str = ""  # the URL pattern after the step
    appeared: tuple[str, ...] = ()  # controls that appeared after it (templated labels)
    # the targets of a compound call (issue 34): fill_form's fields ("field", its value) and
    # its submit button ("submit"), bulk's actions (each its tool, arguments and target)
    parts: tuple[RouteStep, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out = {
            "action": self.action,
            "args": dict(self.args),
            "target": self.target.to_dict() if self.target else None,
            "optional": self.optional,
            "replayable": self.replayable,
            "url": self.url,
            "appeared": list(self.appeared),
        }
        return {**out, "parts": [p.to_dict() for p in self.parts]} if self.parts else out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RouteStep:
        target = data.get("target")
        return cls(
            action=str(data.get("action", "")),
            args=dict(data.get("args") or {}),
            target=Target.from_dict(target) if isinstance(target, Mapping) else None,
            optional=bool(data.get("optional")),
            replayable=bool(data.get("replayable", True)),
            url=str(data.get("url") or ""),
            appeared=tuple(str(a) for a in data.get("appeared") or ()),
            parts=tuple(
                cls.from_dict(p) for p in data.get("parts") or () if isinstance(p, Mapping)
            ),
        )


@dataclass(frozen=True)
class Route:
    """A domain's proven route for one intent."""

    domain: str
    instruction: str  # the instruction of the run that wrote it (its values fill the slots)
    slots: tuple[int, ...]
    start: str  # URL pattern of the page the route starts on
    steps: tuple[RouteStep, ...]
    id: str = ""
    version: int = 1
    replays: int = 0  # runs that replayed it (issue 34: with how many fell back, succeeded)
    fallbacks: int = 0
    successes: int = 0

    @property
    def intent(self) -> str:
        return intent_of(self.instruction, self.slots)

    def values_for(self, instruction: str) -> list[str] | None:
        return match(self.instruction, self.slots, instruction)

    def to_dict(self) -> dict[str, Any]:
        return {"start": self.start, "steps": [s.to_dict() for s in self.steps]}


def best_route(routes: Iterable[Route], instruction: str) -> tuple[Route, list[str]] | None:
    """The first stored route whose intent the instruction matches, with its values."""
    for route in routes:
        values = route.values_for(instruction)
        if values is not None and route.steps:
            return route, values
    return None


def route_domain(url: str | None) -> str:
    return domain_of(url or "")
