"""What an action would touch, read before it runs (js/target_info.js, read-only).

TargetContext.inspect_target(action) -> ActionTarget | None: the element behind a ref, a
click_at point or vision box, or (for a key press without a ref) the focused element; its
role, accessible and visible text, link target and owning form. The sensitive-action rules
(workers/agent/people/approvals.py, seed 003 §8.4.1) decide on these facts. Anything that cannot
be resolved (a stale ref, an empty point) is None: the action itself will then fail with
the usual error and nothing sensitive happens. A ref's facts take one call
(js/target_at_ref.js resolves and reads together); a stale ref falls back to re-resolving.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from playwright.async_api import ElementHandle, Error

from workers.agent.protocols import Action, ActionTarget
from workers.browser.observe.refs import RefError, target_of
from workers.browser.runtime.scripts import js, js_with

if TYPE_CHECKING:
    from workers.browser.act.context import TargetContext

FIELDS = (
    "role", "tag", "name", "input_type", "href", "download",
    "form_action", "form_method", "form_text", "submits", "composed",
)  # fmt: skip


async def _point(s: TargetContext, action: Action) -> tuple[float, float] | None:
    index = action.args.get("index")
    if index is not None:
        box = next((b for b in s.vision_boxes if b.index == index), None)
        if box is None:
            return None
        return (box.rect.x0 + box.rect.x1) / 2, (box.rect.y0 + box.rect.y1) / 2
    x, y = action.args.get("x"), action.args.get("y")
    if x is None or y is None:
        return None
    return float(x), float(y)


async def _handle(s: TargetContext, action: Action) -> ElementHandle | None:
    if action.args.get("ref") is not None:
        try:
            handle, _ = await s.element(dict(action.args))
        except RefError:
            return None
        return handle
    if action.name == "click_at":
        point = await _point(s, action)
        if point is None:
            return None
        found = await s.page.evaluate_handle(js("lookup.js"), ["point", point])
        return found.as_element()
    return None


async def _at_ref(s: TargetContext, ref: object) -> Any:
    """The facts of a current ref's element in one call; None when it must be re-resolved
    (stale version, element gone) or the ref is unusable."""
    try:
        version, _, target = target_of(s.refs, ref)
    except RefError:
        return None
    if s.navigated:
        return None
    script = js_with("target_at_ref.js", "resolve.js", "target_info.js")
    data = await target.frame.evaluate(script, [version, target.local_id])
    return None if isinstance(data, dict) and data.get("stale") else data


async def inspect(s: TargetContext, action: Action) -> ActionTarget | None:
    """The target's facts, or None when there is no element to speak of."""
    data: Any = None
    try:
        if action.args.get("ref") is not None:
            data = await _at_ref(s, action.args["ref"])
            if data is not None:
                return _target(s, data)
        handle = await _handle(s, action)
        if handle is not None:
            data = await handle.evaluate(js("target_info.js"))
        elif action.name in ("press_key", "type") and action.args.get("ref") is None:
            data = await s.page.evaluate(js("target_info.js"), None)
        else:
            return None
    except Error:
        return None
    return _target(s, data)


def _target(s: TargetContext, data: Any) -> ActionTarget | None:
    if not isinstance(data, dict):
        return None
    values = {k: data[k] for k in FIELDS if k in data}
    return ActionTarget(page_url=s.page.url, **values)
