"""Three-tier click cascade (seed 000 §6.3, Algorithm 5) with humanized motion (§6.4).

Tier "cdp": probe the element (found / disabled / visible), scroll it to the viewport centre
when needed, check with elementsFromPoint that it is on top at its centre (also the <iframe>
chain it lives in): covered → `element_covered` naming what covers it, only its container
hit → `selector_ambiguous`; sweep the cursor along the Algorithm 6 path, hesitate, press and
release through CDP `Input.dispatchMouseEvent` (isTrusted=true). Tier "playwright": the
locator/handle click (trusted, Playwright's own actionability checks). Tier "js": the
scripted `el.click()` (isTrusted=false), only with `allow_untrusted` and never on a domain the
learnings mark bot-protected. Each attempt is verified (verify.py); the first with an effect
wins and is recorded per domain so later tasks start at that tier; none → `no_effect`.
The dead-click guard (repeats.DeadClickGuard) refuses a second silent click on one target.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol

from playwright.async_api import CDPSession, ElementHandle, Error, Frame, Page

from workers.agent.protocols import Action, ToolResult
from workers.agent.toolerrors import ToolError
from workers.browser.act import humanize, snapper
from workers.browser.act.actions import failure
from workers.browser.act.click_memory import ClickMemory, InMemoryClickMemory, domain_of, tier_order
from workers.browser.act.hover_path import STEP_MS, corridor, segments
from workers.browser.act.repeats import DeadClickGuard, StallMonitor
from workers.browser.act.verdicts import ghost, listens_double, missed, report
from workers.browser.act.verify import Outcome, aim_and_arm_js, pointer
from workers.browser.observe.vision import Rect
from workers.browser.runtime.scripts import js

ACTION_TIMEOUT_MS = 5000
SCROLL_WAIT_S = 0.15  # Alg. 5 line 7
TIER_WAIT_S = 1.5  # how long a tier's click may take to show an effect (Alg. 5 line 24)
CLICK_TOOLS = frozenset({"click", "click_at"})
# CDP Input.dispatchMouseEvent `modifiers` bits; Playwright's names for the keys
MODIFIER_BITS = {"Alt": 1, "Control": 2, "Meta": 4, "Shift": 8}
Modifier = Literal["Alt", "Control", "Meta", "Shift"]

Act = Callable[[], Awaitable[None]]


class Runner(Protocol):
    """Runs act between arming and settling the effect check (the facade's effect(),
    act/context.py); `armed`: the before-state of a session the aim started already."""

    def __call__(
        self,
        frame: Frame | None,
        el: ElementHandle | None,
        act: Act,
        wait_s: float,
        /,
        *,
        armed: Mapping[str, Any] | None = None,
    ) -> Awaitable[Outcome]: ...


class TierFailed(Exception):
    """A tier could not click; `final` stops the cascade (Alg. 5 lines 6, 9, 10)."""

    def __init__(self, code: str, reason: str, *alternatives: str, final: bool = False) -> None:
        super().__init__(reason)
        self.code, self.reason, self.alternatives, self.final = code, reason, alternatives, final


@dataclass(frozen=True)
class ClickPolicy:
    humanize: humanize.Humanize = field(default_factory=humanize.Humanize)
    allow_untrusted: bool = False
    tier_wait_s: float = TIER_WAIT_S


@dataclass(frozen=True)
class Target:
    """What to click: an element in its frame, optionally at a viewport point (click_at)."""

    el: ElementHandle
    frame: Frame
    point: tuple[float, float] | None = None
    button: Literal["left", "right", "middle"] = "left"
    count: int = 1
    hold_ms: float = 0.0  # press-and-hold: keep the button down this long
    modifiers: tuple[Modifier, ...] = ()  # keys held during the click (shift-click, ...)
    seen: Mapping[str, Any] | None = None  # click.js "aim" taken just before the first tier

    @property
    def modifier_bits(self) -> int:
        return sum(MODIFIER_BITS[m] for m in set(self.modifiers))

    @classmethod
    def of(cls, el: ElementHandle, frame: Frame, args: Mapping[str, Any], **kw: Any) -> Target:
        """From click tool arguments (button / right_click, count or double / double_click, hold_ms,
        modifiers: the click's own plus the keys press_key holds down)."""
        right = args.get("right_click") or args.get("rightClick") or args.get("button") == "right"
        button: Literal["left", "right", "middle"] = (
            "right" if right else "middle" if args.get("button") == "middle" else "left"
        )
        double = args.get("double") or args.get("double_click") or args.get("doubleClick")
        count = max(int(args.get("count") or 1), 2 if double else 1)
        hold = float(args.get("hold_ms") or 0)
        mods = tuple(m for m in dict.fromkeys(args.get("modifiers") or ()) if m in MODIFIER_BITS)
        return cls(el, frame, button=button, count=count, hold_ms=hold, modifiers=mods, **kw)


Tier = Callable[["Hand", Page, Target], Awaitable[Act]]


async def _viewport_rect(el: ElementHandle) -> tuple[float, float, float, float]:
    box = await el.bounding_box()
    if box is None or box["width"] <= 0 or box["height"] <= 0:
        raise TierFailed(ToolError.not_visible, "the element has no box on screen")
    return box["x"], box["y"], box["x"] + box["width"], box["y"] + box["height"]


async def _probe(el: ElementHandle) -> Mapping[str, Any]:
    return _checked(await el.evaluate(js("click.js"), ["probe"]))


def _checked(p: Mapping[str, Any]) -> Mapping[str, Any]:
    """A click.js probe, or TierFailed when the element cannot be clicked."""
    if not p["found"]:
        raise TierFailed(ToolError.stale_ref, "the element is no longer in the page", final=True)
    if p["disabled"]:
        raise TierFailed(
            ToolError.disabled,
            "the element is disabled",
            "fill in the required fields first",
            final=True,
        )
    if not p["visible"]:
        raise TierFailed(
            ToolError.not_visible, "the element is not visible", "scroll to it or open its section"
        )
    return p


async def _top_check(target: Target, x: float, y: float) -> None:
    """elementsFromPoint at (x, y) in the element's frame and up the <iframe> chain."""
    el, frame = target.el, await target.el.owner_frame() or target.frame
    while True:
        local = await el.evaluate(js("click.js"), ["probe"])
        vx0, vy0, _, _ = await _viewport_rect(el)
        lx, ly = x - (vx0 - local["local"][0]), y - (vy0 - local["local"][1])
        _on_top(await el.evaluate(js("click.js"), ["top", lx, ly]))
        parent = frame.parent_frame
        if parent is None:
            return
        el, frame = await frame.frame_element(), parent


def _on_top(top: Mapping[str, Any]) -> None:
    """TierFailed unless click.js "top" found the element on top at the point."""
    if top["verdict"] == "covered":
        raise TierFailed(
            ToolError.element_covered,
            f"the element is covered by {top['cover']}",
            f"close or dismiss {top['cover']} first (its close button, or press_key Escape)",
            "scroll the element into a free area and retry",
            final=True,
        )
    if top["verdict"] == "ambiguous":
        raise TierFailed(
            ToolError.selector_ambiguous,
            f"its centre reaches only {top['cover'] or 'its container'}, not the element",
            "click one of the controls inside it, or click_at the exact point",
            final=True,
        )


async def _aim(t: Target) -> tuple[tuple[float, float, float, float], tuple[float, float]]:
    """The element's viewport rect and the point to press, after the top-most check.
    Fast lane: an "aim" probe of a main-frame element that was ready at its centre (frame-
    local = viewport coordinates), one round trip instead of six; else probe, scroll it into
    view if needed, and check the point up the <iframe> chain."""
    top = t.seen.get("top") if t.seen is not None and t.point is None else None
    if t.seen is not None and top is not None:
        _checked(t.seen)
        _on_top(top)
        x0, y0, x1, y1 = (float(v) for v in t.seen["local"])
        return (x0, y0, x1, y1), ((x0 + x1) / 2, (y0 + y1) / 2)
    p = await _probe(t.el)
    if (not p["inViewport"] or not p["hit"]) and t.point is None:
        await t.el.evaluate(js("click.js"), ["scroll", "center"])
        await asyncio.sleep(SCROLL_WAIT_S)
    rect = await _viewport_rect(t.el)
    centre = t.point or ((rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2)
    await _top_check(t, *centre)
    return rect, centre


async def tier_cdp(hand: Hand, page: Page, t: Target) -> Act:
    rect, centre = await _aim(t)
    if t.point is not None:  # an exact point gets no press jitter (issue 26 item 9)
        rect = (centre[0], centre[1], centre[0], centre[1])
    cdp = await hand.cdp(page)
    via = None
    if hand.policy.humanize.enabled and t.frame.parent_frame is None:
        # the cursor path starts where the pointer really is, and stays on a menu the
        # pointer holds open (issue 31 item 4): both in one call
        found = await corridor(t.el, centre, hand.cursor)
        hand.cursor, via = found.mouse or hand.cursor, found.via
    elif hand.policy.humanize.enabled:  # the cursor path starts where the pointer really is
        hand.cursor = await pointer(page) or hand.cursor

    async def act() -> None:
        # the approach is part of the action, watched by the armed probe: what the pointer's
        # arrival causes (a submenu opened on mouseenter) is the click's effect too (relay
        # 2026-11-27 finding 1: such a click was reported as no effect, a dead end)
        if hand.plain(t):  # move, press, release in one protocol call (issue 35)
            await page.mouse.click(*centre, button=t.button, click_count=t.count)
            hand.cursor = centre
            return
        press = await hand.approach(cdp, centre, rect, t.modifier_bits, via)
        await hand.press(cdp, press, t.button, t.count, t.hold_ms, t.modifier_bits)

    return act


async def tier_playwright(hand: Hand, page: Page, t: Target) -> Act:
    position = None
    if t.point is not None:
        x0, y0, _, _ = await _viewport_rect(t.el)
        position = {"x": t.point[0] - x0, "y": t.point[1] - y0}

    async def act() -> None:
        await t.el.click(
            button=t.button,
            click_count=t.count,
            delay=t.hold_ms,
            position=position,  # type: ignore[arg-type]
            modifiers=list(t.modifiers) or None,
            timeout=ACTION_TIMEOUT_MS,
        )

    return act


async def tier_js(hand: Hand, page: Page, t: Target) -> Act:
    if t.button != "left" or t.count != 1 or t.hold_ms or t.modifiers:
        raise TierFailed(
            ToolError.action_failed, "a scripted click can only be a single plain left click"
        )
    p = await _probe(t.el)
    if not p["inViewport"]:
        await t.el.evaluate(js("click.js"), ["scroll", "nearest"])

    async def act() -> None:
        await t.el.evaluate(js("click.js"), ["jsclick"])

    return act


TIERS: Mapping[str, Tier] = {"cdp": tier_cdp, "playwright": tier_playwright, "js": tier_js}


@dataclass
class Hand:
    """Per-session click state: cursor position, randomness, the domain memory, the guards."""

    policy: ClickPolicy = ClickPolicy()
    memory: ClickMemory = field(default_factory=InMemoryClickMemory)
    rng: random.Random = field(default_factory=random.Random)
    tiers: Mapping[str, Tier] = field(default_factory=lambda: dict(TIERS))
    cursor: tuple[float, float] = (0.0, 0.0)
    guard: DeadClickGuard = field(default_factory=DeadClickGuard)
    stall: StallMonitor = field(default_factory=StallMonitor)
    _cdp: dict[int, CDPSession] = field(default_factory=dict)
    navigations: int = 0  # navigations the page asked for (CDP Page.frameRequestedNavigation)

    async def cdp(self, page: Page) -> CDPSession:
        session = self._cdp.get(id(page))
        if session is None:
            session = await page.context.new_cdp_session(page)
            session.on("Page.frameRequestedNavigation", self._navigation_requested)
            await session.send("Page.enable")
            self._cdp[id(page)] = session
        return session

    def plain(self, t: Target) -> bool:
        """No humanized path, no hold, no modifier: Playwright's own mouse click sends the
        same trusted move, press and release (the driver dispatches them over CDP) in one
        round trip instead of three."""
        return not self.policy.humanize.enabled and t.hold_ms <= 0 and not t.modifiers

    def _navigation_requested(self, _: Any) -> None:
        self.navigations += 1

    async def _move(self, cdp: CDPSession, x: float, y: float, mods: int = 0) -> None:
        event = {"type": "mouseMoved", "x": x, "y": y, "modifiers": mods}
        await cdp.send("Input.dispatchMouseEvent", event)
        self.cursor = (x, y)

    async def approach(
        self,
        cdp: CDPSession,
        centre: tuple[float, float],
        rect: tuple[float, float, float, float],
        mods: int = 0,
        via: tuple[tuple[float, float], ...] | None = None,
    ) -> tuple[float, float]:
        """Sweep to the target (Alg. 6) and hesitate; returns the (jittered) press point.
        `mods`: the CDP modifier bits of the keys held meanwhile (CDP events carry them
        themselves; a key held through the keyboard does not set them). `via`: the corners
        of a path over the menu the pointer holds open (hover_path.py), walked straight and
        pressed at the centre."""
        if not self.policy.humanize.enabled:
            await self._move(cdp, *centre, mods)
            return centre
        if via is not None:
            for x, y in segments(self.cursor, via, centre):
                await asyncio.sleep(STEP_MS / 1000)
                await self._move(cdp, x, y, mods)
            return centre
        for wp in humanize.motion_path(self.cursor, centre, "click", self.rng):
            await asyncio.sleep(wp.dt_ms / 1000)
            await self._move(cdp, wp.x, wp.y, mods)
        await asyncio.sleep(humanize.hesitation_ms(self.rng) / 1000)
        point = humanize.press_point(centre, rect, self.rng)
        await self._move(cdp, *point, mods)
        return point

    async def press(
        self,
        cdp: CDPSession,
        point: tuple[float, float],
        button: str,
        count: int,
        hold_ms: float,
        mods: int = 0,
    ) -> None:
        """mousePressed / mouseReleased pairs at the point (a double click is two pairs),
        with the held modifiers (shift-click, ctrl-click, a held chord)."""
        x, y = point
        for n in range(1, count + 1):
            base = {"x": x, "y": y, "button": button, "clickCount": n, "modifiers": mods}
            down = {**base, "type": "mousePressed", "buttons": 1}
            up = {**base, "type": "mouseReleased", "buttons": 0}
            if hold_ms <= 0 and not self.policy.humanize.enabled:
                # no pause between them: both go out at once, in order (one round trip)
                await asyncio.gather(*(cdp.send("Input.dispatchMouseEvent", e) for e in (down, up)))
                continue
            await cdp.send("Input.dispatchMouseEvent", down)
            await asyncio.sleep((hold_ms or humanize.hold_ms(self.rng)) / 1000)
            await cdp.send("Input.dispatchMouseEvent", up)

    async def click_at(
        self, page: Page, box: Rect, label: str, what: str, run: Runner, args: Mapping[str, Any]
    ) -> ToolResult:
        """A vision box snapped to a pressable point (Algorithm 4), then clicked. A point
        stays exact (issue 26 item 9: a 5×5 target on a canvas): the snapper only names
        the element there, whose effect is watched."""
        exact = box.area <= 0
        el, own, found = None, None, None
        if exact:  # the element at the point itself, unless that is a frame to look into
            at = [box.x0, box.y0]
            hit = await page.main_frame.evaluate_handle(js("lookup.js"), ["point_own", at])
            el, own = hit.as_element(), page.main_frame
        if el is None:
            found = await snapper.snap(page.main_frame, box, label)
            el = await found.element() if found is not None else None
            own = found.frame if found is not None else None
        if el is None or own is None:
            return failure(
                ToolError.no_effect,
                f"{what}: nothing clickable in that {'point' if exact else 'box'}.",
                "observe again and use a ref, or another vision box",
            )
        own = await el.owner_frame() or own  # the snapper may descend into a frame
        if exact or found is None:
            point, where = (box.x0, box.y0), f"{what} at ({box.x0:.0f}, {box.y0:.0f})"
        else:
            point = (found.x, found.y)
            where = f"{what} at ({found.x:.0f}, {found.y:.0f}) via snap phase {found.phase}"
        return await self.click(page, Target.of(el, own, args, point=point), where, run)

    async def type(
        self, page: Page, el: ElementHandle, text: str, *, clear: bool, submit: bool
    ) -> None:
        """§6.4 humanized typing: clear an editable field first (else click it and go to the
        end), type with per-character delays and word pauses, then Enter when asked."""
        probe = await el.evaluate(js("click.js"), ["probe"])
        if clear and probe["editable"]:
            await el.fill("", timeout=ACTION_TIMEOUT_MS)
            await el.focus()
        else:
            await el.click(timeout=ACTION_TIMEOUT_MS)
            await page.keyboard.press("End")
        plan = humanize.typing_plan(text, self.policy.humanize, self.rng)
        await humanize.replay_typing(page.keyboard, plan)
        if submit:
            await page.keyboard.press("Enter")

    def note(self, action: Action, result: ToolResult, *, step: bool = True) -> ToolResult:
        """After any tool call: break the guard's "in a row" and watch for stalling; the
        sub-actions of a bulk (`step=False`) are no steps of their own (issue 27 item 2)."""
        if action.name not in CLICK_TOOLS:
            self.guard.reset()
        return self.stall.check(action, result) if step else result

    async def click(self, page: Page, t: Target, what: str, run: Runner) -> ToolResult:
        """Algorithm 5 over the domain's tier order, each attempt verified by `run`."""
        domain = domain_of(page.url)
        # the fast lane (see _aim): a main-frame element clicked at its centre is probed and
        # checked top-most in this one call; `t.frame` is the element's own frame
        aim = t.point is None and t.frame.parent_frame is None
        order = tier_order(self.memory, domain, allow_untrusted=self.policy.allow_untrusted)
        ident, armed = await _identify(t, aim, order)
        key, active = str(ident["key"]), bool(ident["active"])
        if t.point is not None:  # a canvas is one element with many targets on it
            key += f"@{t.point[0]:.0f},{t.point[1]:.0f}"
        if self.guard.refuses(key, active):
            return failure(
                ToolError.dead_click,
                f"{what} refused: the same target was just clicked with no DOM change.",
                "observe the page again (take a fresh snapshot or screenshot) before retrying",
                "choose a different element, or press_key Enter on the focused element",
            )
        await self.cdp(page)  # from here on, a navigation the click starts is seen at once
        tried: list[str] = []
        last: Outcome | None = None
        refused: TierFailed | None = None
        for name in order:
            tried.append(name)
            try:  # the aim holds for the first attempt only: a tier's click may change things
                act = await self.tiers[name](self, page, replace(t, seen=ident) if aim else t)
                aim, first, armed = False, armed, None
                asked = self.navigations
                last = await run(t.frame, t.el, act, self.policy.tier_wait_s, armed=first)
                if self.navigations > asked and not last.effect:
                    last = replace(last, url_changed=True)  # still loading: never click again
            except TierFailed as exc:
                refused = exc
                if exc.final:
                    break
                continue
            except Error:
                if name == order[-1] and last is None:
                    raise  # PageSession.execute explains Playwright's reason
                continue
            if last.missed_on and (last.detached or last.hidden or not last.effect):
                self.guard.record(key, _delta(last), active)
                return missed(what, last, tried)
            if last.effect:
                self.memory.record(domain, tried, name)
                self.guard.record(key, _delta(last), active)
                done = report(what, last, page.url)
                if t.count < 2 and t.button == "left" and last.wants_double:
                    done = listens_double(done)
                return replace(done, tried=tuple(tried), data={**done.data, "tier": name})
            if last.url_changed or last.detached or last.handled:
                break  # the page moved on, or its handlers took the click: never click again
        if refused is not None and (refused.final or last is None):
            # no tier pressed anything: the probe's reason, not a ghost click
            reason = f"{what}: {refused.reason}."
            return failure(refused.code, reason, *refused.alternatives, tried=tuple(tried))
        self.memory.record(domain, tried, None)
        self.guard.record(key, _delta(last) if last else 0, active)
        return ghost(what, last, tried, await _why_inert(t))


async def _identify(
    t: Target, aim: bool, order: tuple[str, ...]
) -> tuple[dict[str, Any], Mapping[str, Any] | None]:
    """The target's first probe ("aim" in the fast lane, else "probe") and, when the fast
    lane's first tier clicks it where the aim found it ready (tier "cdp": no scroll, no other
    page call before the press), the effect session armed in the same call (issue 35)."""
    if not (aim and order and order[0] == "cdp"):
        return await t.el.evaluate(js("click.js"), ["aim" if aim else "probe"]), None
    got: dict[str, Any] = await t.el.evaluate(aim_and_arm_js())
    ident: dict[str, Any] = got["aim"]
    ready = ident.get("top") is not None
    return ident, got["before"] if ready else None


async def _why_inert(t: Target) -> list[str]:
    """Why a click changed nothing, as far as the page shows (js/why_inert.js, wave 5 item 7):
    disabled, pointer-events none, covered, no click handler, a countdown or time-up text."""
    try:
        return [str(c) for c in await t.el.evaluate(js("why_inert.js"))]
    except Error:  # the element went away or its frame navigated: no clue to give
        return []


def _delta(out: Outcome) -> int:
    """The guard's mutation_delta: DOM changes, or 1 for a navigation, tab, dialog, download,
    request, another field's new value or the target hidden (the target is not dead even
    though no counted mutation of its document came with it)."""
    other = out.url_changed or out.popup or out.dialogs or out.downloads or out.requests
    other = other or out.field is not None or out.hidden or out.handled
    return out.mutations or int(bool(other))
