"""Reading tools (seed 000 App. A "Extraction", "Captcha", "Geo"; issue 7 class 9): the
full text of an element or the page in chunks, trimmed snapshot ranges, DOM search, the ARIA
tree, console errors, screenshots and pixel colours, challenge and geo-block detection."""

from __future__ import annotations

import io
import json
import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from playwright.async_api import Error

from workers.agent import textcut
from workers.agent.protocols import ToolResult
from workers.agent.toolerrors import ToolError as E
from workers.browser.act import actions
from workers.browser.act.chunks import chunk
from workers.browser.act.look import SCREENSHOT_LOOK
from workers.browser.runtime import secret_boxes
from workers.browser.runtime.regions import blackout
from workers.browser.runtime.scripts import evaluate_settled, js

if TYPE_CHECKING:
    from workers.agent.tools import args as a
    from workers.agent.tools import args_read as r
    from workers.browser.act.context import ReadContext

SCRIPT_RESULT_CHARS = 4000
# search text that reads as a CSS selector (list): tags, classes, ids, attributes, combinators
_SELECTORISH = re.compile(
    r"^[\w\-#.\[\]=\"':>~+*()^$|]+(\s*[,> ~+]\s*[\w\-#.\[\]=\"':>~+*()^$|]+)*$"
)
# ... and certainly one, not words: a list ("svg, canvas"), an id, class or attribute part
_CLEARLY_SELECTOR = re.compile(r"(^|[\s,>~+])[#.][A-Za-z_-]|\[[\w-]+|\S\s*,\s*\S")


async def read_text(s: ReadContext, args: r.ReadTextArgs) -> ToolResult:
    """Whole text of `ref` (or the page's main content as markdown), chunk at `offset`."""
    hidden = s.hidden_regions.selector  # private regions are never read (regions.py)
    if args.ref:
        el, _ = await s.element(args.model_dump())
        text = str(await el.evaluate(js("read_text.js"), hidden))
        what = args.ref
    else:
        # a handle to null: read_text.js then reads the page's main content
        nothing = await s.page.main_frame.evaluate_handle(js("lookup.js"), None)
        text = str(await nothing.evaluate(js("read_text.js"), hidden))
        what = "page"
    _, where, data = chunk(text, args.offset)
    reason = f"text of {what}: {where}"
    if "next_offset" in data:
        reason += f" (read_text{f' ref={args.ref}' if args.ref else ''} offset={data['end']})"
    return ToolResult(success=True, reason=reason, data=data)


async def expand(s: ReadContext, args: r.SnapshotArgs) -> ToolResult:
    """snapshot(start, end): trimmed lines of the current snapshot (seed 003 §6.1)."""
    if s.last is not None and s.navigated:  # its ranges describe another page
        return actions.failure(
            E.stale_ref,
            f"the page navigated since snapshot {s.last.version}; its ranges no longer apply: "
            "read the new page in the next observation",
        )
    last = s.last if s.last is not None else await s.snapshot()
    text = last.expand(args.start, args.end, max_tokens=s.max_tokens)
    return ToolResult(
        success=True,
        reason=f"refs {args.start}-{args.end} of snapshot {last.version}",
        data={"text": text, "version": last.version},
    )


def ref_for(s: ReadContext, local_id: int) -> str | None:
    """The current ref of a main-frame element known to the snapshot by its local id."""
    table = s.refs
    if table is None or local_id < 0:
        return None
    for index, target in table.targets.items():
        if target.local_id == local_id and target.frame == s.page.main_frame:
            return f"{table.version}:{index}"
    return None


async def dom_search(s: ReadContext, args: r.DomSearchArgs) -> ToolResult:
    """Visible matches with the ref of the element or its nearest ancestor/descendant that
    has one; when only hidden elements match, say so and name the control that opens them."""
    opts: dict[str, Any] = {"query": args.query, "selector": args.selector, "limit": args.limit}
    opts["hidden"] = s.hidden_regions.selector  # private regions are never searched
    found = await s.page.main_frame.evaluate(js("dom_search.js"), opts)
    if any(not _first_ref(s, h["ids"]) for h in found["hits"]):
        # the hit came after the last snapshot (a late suggestion list): observe now, so the
        # refs below are those of the snapshot the model sees next (change-gated: reused)
        await s.observe()
        found = await s.page.main_frame.evaluate(js("dom_search.js"), opts)
    if args.query and not found["hits"] and not found["hidden"] and _SELECTORISH.match(args.query):
        # "iframe, canvas, button": a selector list sent as search text (issue 27 item 6)
        opts = {**opts, "query": None, "selector": args.query}
        found = await s.page.main_frame.evaluate(js("dom_search.js"), opts)
        if any(not _first_ref(s, h["ids"]) for h in found["hits"]):
            await s.observe()
            found = await s.page.main_frame.evaluate(js("dom_search.js"), opts)
    hits, hidden = list(found["hits"]), list(found["hidden"])
    what = args.query or args.selector
    if not hits and hidden:
        return _hidden_matches(s, str(what), hidden)
    as_selector = args.selector or (opts["selector"] and _CLEARLY_SELECTOR.search(args.query or ""))
    if not hits and as_selector:  # a selector (or a list of them) matched no element
        return actions.failure(
            E.no_selector_match,
            f"no element on the page matches the CSS selector {what!r}, shown or hidden.",
            "read_text the page",
        )
    if not hits:
        return actions.failure(
            E.text_not_found,
            f"nothing on the page matches {what!r}, shown or hidden.",
            "scroll, or read_text the page",
        )
    lines = []
    for h in hits:
        ref = _first_ref(s, h.pop("ids"))
        h["ref"] = ref
        where = f"ref {ref}" if ref else f"at ({h['x']}, {h['y']}) size {h['w']}x{h['h']}"
        lines.append(f"<{h['tag']}> {textcut.cut(h['text'], 60)!r} {where}")
    return ToolResult(
        success=True, reason=f"{len(hits)} found: " + "; ".join(lines), data={"hits": hits}
    )


def _first_ref(s: ReadContext, ids: list[int]) -> str | None:
    return next((ref for ref in (ref_for(s, int(i)) for i in ids) if ref), None)


def _hidden_matches(s: ReadContext, what: str, hidden: list[dict[str, Any]]) -> ToolResult:
    """Text in a collapsed section is on the page, only not shown: open its container."""
    openers: list[str] = []
    for h in hidden:
        opener = h.pop("opener", None)
        if opener and opener["text"]:
            ref = _first_ref(s, opener["ids"])
            name = f"{opener['text']!r}" + (f" (ref {ref})" if ref else "")
            h["opener"] = {"text": opener["text"], "ref": ref}
            if name not in openers:
                openers.append(name)
    texts = "; ".join(f"<{h['tag']}> {textcut.cut(h['text'], 60)!r}" for h in hidden)
    moves = [f"click {name} to open the section that holds it" for name in openers[:3]]
    moves.append("expand the collapsed section, tab or menu that contains it, then search again")
    failed = actions.failure(
        E.not_visible,
        f"{what!r} is on the page but hidden (in a collapsed section or closed menu): {texts}."
        + (f" It opens with {', '.join(openers[:3])}." if openers else ""),
        *moves,
    )
    return replace(failed, data={"hidden": hidden})


async def console_errors(s: ReadContext, args: a.NoArgs) -> ToolResult:
    errors = list(s.console_errors)
    reason = f"{len(errors)} console errors" + (": " + " | ".join(errors[-10:]) if errors else "")
    return ToolResult(success=True, reason=reason, data={"errors": errors})


async def accessibility_tree(s: ReadContext, args: r.AccessibilityTreeArgs) -> ToolResult:
    if s.hidden_regions:  # the browser's own tree cannot leave private regions out
        return actions.failure(
            E.not_supported,
            "accessibility_tree is off on a task with private regions",
            "use the snapshot or read_text",
        )
    if args.ref:
        el, target = await s.element(args.model_dump())
        await el.evaluate(js("aria_mark.js"), True)
        locator = target.frame.locator("[data-webagent-aria='1']").first
        try:
            tree = await locator.aria_snapshot(timeout=actions.ACTION_TIMEOUT_MS)
        finally:
            await el.evaluate(js("aria_mark.js"), False)
    else:
        tree = await s.page.locator("body").aria_snapshot(timeout=actions.ACTION_TIMEOUT_MS)
    _, where, data = chunk(tree, args.offset)
    return ToolResult(success=True, reason=f"ARIA tree: {where}", data=data)


async def screenshot(s: ReadContext, args: r.ScreenshotArgs) -> ToolResult:
    path = s.artifacts.path_for("screenshot.png")
    await blackout(s.page, s.hidden_regions)  # private regions are black (regions.py)
    await secret_boxes.paint(s.page)  # so are secret-bearing elements (secret_boxes.py)
    if args.ref:
        el, _ = await s.element(args.model_dump())
        await el.screenshot(path=str(path), timeout=actions.ACTION_TIMEOUT_MS)
    else:
        await s.page.screenshot(path=str(path), full_page=args.full_page)
    # name `look` only when the model has it (issue 26 item 12): without vision it is not on offer
    ask = SCREENSHOT_LOOK if s.look_llm is not None else "; no vision model reads it here"
    return ToolResult(
        success=True,
        reason=f"saved {path.name} (the image is kept for the task{ask})",
        data={"name": path.name},
    )


async def read_canvas(s: ReadContext, args: r.ReadCanvasArgs) -> ToolResult:
    from PIL import Image

    x, y = args.x, args.y
    if args.ref:
        el, _ = await s.element(args.model_dump())
        await el.scroll_into_view_if_needed(timeout=actions.ACTION_TIMEOUT_MS)
        box = await el.bounding_box()
        if box is None or not (0 <= x < box["width"] and 0 <= y < box["height"]):
            return actions.failure(E.out_of_bounds, f"({x}, {y}) is outside {args.ref}'s box.")
        x, y = box["x"] + x, box["y"] + y
    vp = s.page.viewport_size or {"width": 0, "height": 0}
    if not (0 <= x < vp["width"] and 0 <= y < vp["height"]):
        return actions.failure(E.out_of_bounds, f"({x:.0f}, {y:.0f}) is outside the viewport.")
    png = await s.page.screenshot(clip={"x": x, "y": y, "width": 1, "height": 1})
    with Image.open(io.BytesIO(png)) as img:
        r, g, b = img.convert("RGB").getpixel((0, 0))  # type: ignore[misc]
    hexa = f"#{r:02x}{g:02x}{b:02x}"
    return ToolResult(
        success=True,
        reason=f"pixel at ({x:.0f}, {y:.0f}) is {hexa} (rgb {r}, {g}, {b})",
        data={"rgb": [r, g, b], "hex": hexa},
    )


async def detect_captcha(s: ReadContext, args: a.NoArgs) -> ToolResult:
    found = await s.page.main_frame.evaluate(js("detect.js"))
    kinds = list(found["captcha"])
    reason = f"challenge detected: {', '.join(kinds)}" if kinds else "no CAPTCHA or challenge"
    return ToolResult(success=True, reason=reason, data={"detected": bool(kinds), "kinds": kinds})


INTERSTITIALS = ("cloudflare_interstitial", "text_challenge")


async def dead_shell(page: Any, status: int | None) -> ToolResult | None:
    """Seed 000 §6.5: a 4xx/5xx or anti-bot page short-circuits the navigate (detect.js)."""
    found = await evaluate_settled(page, js("detect.js"))  # after a redirect on load
    # whole-page challenges only: a form carrying a CAPTCHA widget is still a usable page
    blocks = [k for k in found["captcha"] if k in INTERSTITIALS]
    if blocks:
        return actions.failure(
            E.bot_block, f"Blocked by an anti-bot challenge page: {', '.join(blocks)}."
        )
    if status is not None and status >= 400:
        return actions.failure(E.http_error, f"The server answered HTTP {status}.")
    return None


async def detect_geo_block(s: ReadContext, args: a.NoArgs) -> ToolResult:
    found = await s.page.main_frame.evaluate(js("detect.js"))
    evidence = list(found["geo"])
    status = s.last_status
    if status == 451:
        evidence.append("HTTP 451")
    reason = f"geo block: {'; '.join(evidence)}" if evidence else "no regional block seen"
    return ToolResult(success=True, reason=reason, data={"blocked": bool(evidence)})


async def record_fact(s: ReadContext, args: a.RecordFactArgs) -> ToolResult:
    s.facts[args.key] = args.value
    return ToolResult(
        success=True, reason=f"noted {args.key}", data={"fact": {args.key: args.value}}
    )


async def evaluate_script(s: ReadContext, args: a.EvaluateScriptArgs) -> ToolResult:
    if not s.profile.allow_scripts:
        return actions.failure(
            E.scripts_not_allowed, "this task's profile does not allow scripts.", "read_text"
        )
    if s.hidden_regions:  # page JS could read a private region (regions.py)
        return actions.failure(
            E.scripts_not_allowed, "scripts are off on a task with private regions.", "read_text"
        )
    body = args.script.strip()
    source = body if body.startswith(("(", "function", "async")) else f"() => ({body})"
    try:
        value: Any = await s.page.evaluate(source)  # inline-js: run_script input
    except Error as exc:
        return actions.failure(E.script_error, f"script error: {textcut.cut(exc.message, 300)}")
    s.invalidate()
    text = json.dumps(value, ensure_ascii=False, default=str)
    if s.secrets.found(text):  # a copy of a secret, however encoded, is never returned
        return actions.failure(E.secret_in_result, "script ran; its result holds a secret.")
    return ToolResult(
        success=True, reason="script ran", data={"result": textcut.cut(text, SCRIPT_RESULT_CHARS)}
    )
