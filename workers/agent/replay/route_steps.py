"""A recorded trace as a route's steps (issue 21, issue 34): the executed actions with their
targets (`Entry`, compound calls' `Part`s), the task's values in them as slot templates, and
which secret text a route may keep (`kept_secret`). Used by route_record.py."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from workers.agent.memory.route_values import SECRET_TOKEN, Slots, slots_in, template_arg
from workers.agent.memory.routes import RouteStep, Target, url_pattern


@dataclass(frozen=True)
class Part:
    """One field of a recorded `fill_form` or one action of a recorded `bulk`."""

    action: str  # fill_form: "field" or "submit"; bulk: the tool
    args: dict[str, Any]
    target: Target | None
    replayable: bool = True


@dataclass
class Entry:
    """One executed action as seen, before the route's slots are known."""

    step: int
    action: str
    args: dict[str, Any]
    target: Target | None
    optional: bool
    replayable: bool
    url: str
    before: frozenset[str]
    appeared: list[str] | None = None
    parts: tuple[Part, ...] = ()


def kept_secret(action: str, args: dict[str, Any]) -> bool:
    """Can this call be replayed as stored? Text the model marked `secret=true` is kept only
    when it is a task secret's `<secret:NAME>` token (the browser types the value of that
    name); literal secret text is dropped from `args` and the step is not replayable."""
    if action != "type" or not args.get("secret"):
        return True
    if SECRET_TOKEN.fullmatch(str(args.get("text") or "").strip()):
        return True
    args.pop("text", None)
    return False


def calls_of(parts: Sequence[Part]) -> list[tuple[dict[str, Any], Target | None]]:
    return [(p.args, p.target) for p in parts]


def _templated(target: Target | None, slots: Slots, used: set[int]) -> Target | None:
    if target is None:
        return None
    return Target(
        target.role,
        slots.template(target.name, set(), used),
        slots.template(target.place, set(), used),
        target.nth,
        slots.template(target.heading, set(), used),
        row_values(target.row, slots, used),
    )


def step_of(entry: Entry, slots: Slots, used: set[int]) -> RouteStep:
    def args_of(args: Mapping[str, Any]) -> dict[str, Any]:
        return {k: template_arg(k, v, slots, set(), used) for k, v in args.items()}

    parts = tuple(
        RouteStep(
            p.action, args_of(p.args), _templated(p.target, slots, used), replayable=p.replayable
        )
        for p in entry.parts
    )
    appeared = tuple(slots.template(lb, set(), used) for lb in entry.appeared or ())
    return RouteStep(
        action=entry.action,
        args=args_of(entry.args),
        target=_templated(entry.target, slots, used),
        optional=entry.optional,
        replayable=entry.replayable,
        url=url_pattern(entry.url, slots, used) if entry.url else "",
        appeared=appeared,
        parts=parts,
    )


def row_values(lines: Sequence[str], slots: Slots, used: set[int]) -> tuple[str, ...]:
    """The task's values a target's row, card or list item carried, as slot templates
    (`{5}`): replay takes the same-named control only on a line that carries them."""
    found: list[str] = []
    for line in lines:
        found += [f"{{{i}}}" for i in sorted(slots_in(slots.template(line, set(), used)))]
    return tuple(dict.fromkeys(found))
