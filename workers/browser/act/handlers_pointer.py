"""Pointer tools (seed 000 App. A "Interaction"; issue 26 item 9, issue 27 item 3): drag
from a ref or point onto a ref or point, and `pointer`, the pointer as a primitive (exact
points, a press held along a path, a pause before the release). Both are judged by what
changed on the page: a drag that only selected text, or whose release missed its drop
target, is no success; a pointer move counts its page's pixels and handlers too.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from workers.agent.protocols import ToolResult
from workers.agent.toolerrors import ToolError as E
from workers.browser.act import actions, verdicts
from workers.browser.runtime.scripts import js

if TYPE_CHECKING:
    from workers.agent.tools import args as a
    from workers.browser.act.context import InputContext

POINTER_WAIT_S = 0.3  # how long a pointer move's late effect is waited for


async def drag(s: InputContext, args: a.DragArgs) -> ToolResult:
    """Press on the element (or a point), move in steps, release: HTML5 drag-and-drop,
    pointer sliders, sortable lists, shapes drawn in SVG without refs."""
    frame = None
    if args.ref is not None:
        el, target = await s.element(args.model_dump())
        start, frame = await actions.centre(el), target.frame
    else:
        start = (float(args.from_x or 0), float(args.from_y or 0))
    end_el = None
    if args.to_ref is not None:
        end_el, _ = await s.element({"ref": args.to_ref})
        end = await actions.centre(end_el)
        frame = None  # the effect is watched around the drop target, in its own frame
    elif args.x is not None and args.y is not None:
        end = (args.x, args.y)
    else:
        end = (start[0] + (args.dx or 0), start[1] + (args.dy or 0))
    source = args.ref or f"({start[0]:.0f}, {start[1]:.0f})"
    what = f"drag {source} to " + (args.to_ref or f"({end[0]:.0f}, {end[1]:.0f})")
    out = await s.effect(
        frame, end_el, lambda: actions.drag(s.page, start, end, args.steps), POINTER_WAIT_S
    )
    # issue 27 item 3: the release must reach the drop target, and a press that only
    # started a text selection dragged nothing
    if end_el is not None and out.missed_on and not out.url_changed:
        return actions.failure(
            E.no_effect,
            f"{what}: the release landed on {out.missed_on}, not on {args.to_ref}.",
            "observe again: the target may have moved; drag onto its new ref",
        )
    if out.selected and args.ref is not None and not (out.url_changed or out.causal):
        await s.page.evaluate(js("clear_selection.js"))
        return actions.failure(
            E.no_effect,
            f"{what}: it selected text instead of moving anything (nothing took the drag).",
            "start the drag on the element's handle or its exact ref, not on text near it",
            "try pointer with press=true and a path of several points with a pause_ms",
        )
    return verdicts.report(what, out, s.page.url)


async def pointer(s: InputContext, args: a.PointerArgs) -> ToolResult:
    """Issue 26 item 9: the pointer through exact viewport points (no snapping); pressed
    along the path when asked, a pause before the release. Judged by what changed on the
    page, its pixels included (a canvas, an animation), not by DOM mutations alone."""
    vp = s.page.viewport_size or {"width": 0, "height": 0}
    outside = [p for p in args.points if not (0 <= p[0] < vp["width"] and 0 <= p[1] < vp["height"])]
    if outside:
        x, y = outside[0]
        return actions.failure(
            E.out_of_bounds,
            f"({x:.0f}, {y:.0f}) is outside the {vp['width']}x{vp['height']} viewport.",
            "scroll the target into view first",
        )
    release = args.press if args.release is None else args.release
    mouse = s.page.mouse

    async def act() -> None:
        await mouse.move(*args.points[0])
        if args.press:
            await mouse.down()
        for point in args.points[1:]:
            await mouse.move(*point, steps=args.steps)
        if args.pause_ms:
            await asyncio.sleep(args.pause_ms / 1000)
        if release:
            await mouse.up()

    x, y = args.points[-1]
    via = f"through {len(args.points)} points " if len(args.points) > 1 else ""
    what = (
        ("press, " if args.press else "")
        + f"move the pointer {via}to ({x:.0f}, {y:.0f})"
        + (f", pause {args.pause_ms} ms" if args.pause_ms else "")
        + (", release" if release else "")
    )
    out = await s.effect(None, None, act, POINTER_WAIT_S, whole=True)
    if out.effect:
        return verdicts.report(what, out, s.page.url)
    if out.ambient or out.handled:  # the page took it; what it did shows over time
        s.invalidate()
        return ToolResult(
            success=True,
            reason=f"{what} done (the page's handlers ran: {out.handled}; "
            f"{out.ambient} changes by its timers): observe to see the result",
        )
    return verdicts.ghost(what, out)
