"""Knowing that an action worked (seed 004 App. F.2, seed 002 verify-act-verify, seed 000 §4.5).

Before an action, `arm` starts an effect session in the target's frame (js/verify.js on top of
the js/verify_tracker.js MutationObserver); after it, `settle` waits for evidence and returns
an `Outcome`: URL / navigation, dialog, popup, DOM mutations attributed to the action, focus,
scroll, modal appearance, the target's active state and value, another form field's value
(a chosen suggestion fills its input), the target hidden (its menu closed) or removed, and
network requests sent (a click whose handler only posts to the server is not silent).
Mutations count only when an input event caused them (delivered while its task and
microtasks ran) or when they come late from an element that is not ticking on its own: a
clock or carousel that changes in two or more separate bursts without input is ambient and
never counts (issue 7 class 2: a click on a dead target was reported done because a page
timer mutated the DOM); a field's new value or the target hidden still counts when the
mutations that carried it were ambient (a suggestion list rebuilt by search timers).
DOM-silent widgets (canvas, video, embed, object) fall back to seed 002's screenshot
difference (pixels.py): the widget's box, 256×256 grayscale, mean |Δ|/255 ≥ 0.01 means it
changed.

Judgements over several actions (the dead-click guard, stalling) are in repeats.py; the tool
results built from an Outcome (done, ghost, missed) are in verdicts.py.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from playwright.async_api import ElementHandle, Error, FloatRect, Frame, Page, Request

from workers.agent import textcut
from workers.browser.act.pixels import Ring, focus_ring, pixel_difference
from workers.browser.runtime.scripts import js

PIXEL_THRESHOLD = 0.01  # seed 002 ghost-click threshold
MIN_SETTLE_S = 0.15  # let handlers and transitions run before the first look
POLL_S = 0.05


async def install(target: Any) -> None:
    """Install the effect tracker in every frame of a context or page (before page scripts)."""
    await target.add_init_script(script=js("verify_tracker.js"))


@dataclass(frozen=True)
class PageEvents:
    """What the session saw while the action ran (listeners on the page, not the DOM)."""

    navigated: bool = False
    dialogs: tuple[str, ...] = ()
    popup: bool = False
    downloads: int = 0


@dataclass(frozen=True)
class Outcome:
    """What an action changed; `effect` is False for a ghost (silent) action."""

    url_changed: bool = False
    dialogs: tuple[str, ...] = ()
    popup: bool = False
    causal: int = 0  # mutations delivered while an input event ran
    late: int = 0  # later mutations of elements that do not tick on their own
    target: int = 0  # of those, on/inside the target (or its ancestors' attributes)
    ambient: int = 0  # mutations of ticking elements, ignored
    focus_moved: bool = False
    scrolled: bool = False
    modal: int = 0  # modals opened (+) or closed (-)
    state_changed: bool = False
    active_before: bool = False
    active_after: bool = False
    value_changed: bool = False
    value: str | None = None
    detached: bool = False
    hidden: bool = False  # the target is still in the page but no longer shown
    hidden_popup: bool = False  # ... and it sat in a menu/list/floating box: that closed
    field: tuple[str, str] | None = None  # another form field whose value changed: name, value
    pixel_diff: float | None = None
    children: tuple[str, ...] = ()  # separately clickable things inside the target
    requests: int = 0  # network requests the page sent meanwhile (fetch, XHR, form, ...)
    downloads: int = 0  # downloads the action started
    handled: int = 0  # page event handlers that ran (the control answered, issue 27 item 2)
    missed_on: str = ""  # the release/click landed on this, not on the target (27 item 3)
    selected: bool = False  # text got selected (a drag that ended over text)
    controls: tuple[str, bool, bool] | None = None  # what it controls: kind, shown before/after
    dblclick: bool = False  # only the target's attributes changed, and it listens for dblclick
    tab_url: str = ""  # the tab the action opened, where the session now acts (issue 31 item 4)

    @property
    def mutations(self) -> int:
        return self.causal + self.late

    @property
    def wants_double(self) -> bool:
        """Only focus or attributes changed (nothing added or re-worded), and the element (or
        an ancestor) listens for a double click: its real action may need two clicks (issue
        26 relay finding 6)."""
        opened = self.controls is not None and self.controls[2]
        return self.dblclick and not (
            self.url_changed or self.dialogs or self.popup or self.requests or self.downloads
            or self.modal or self.value_changed or self.detached or self.hidden or opened
            or self.field is not None or self.scrolled
        )  # fmt: skip

    @property
    def toggled(self) -> bool:
        return self.active_before != self.active_after

    @property
    def effect(self) -> bool:
        pixels = self.pixel_diff is not None and self.pixel_diff >= PIXEL_THRESHOLD
        return bool(
            self.url_changed or self.dialogs or self.popup or self.mutations or self.requests
            or self.downloads or self.focus_moved
            or self.scrolled or self.modal or self.state_changed or self.value_changed
            or self.detached or self.hidden or self.field is not None or pixels
        )  # fmt: skip

    def _field_text(self) -> str:
        return (
            textcut.cut(f"field {self.field[0]!r} now {self.field[1]!r}", 80) if self.field else ""
        )

    def _controls_text(self) -> str:
        if self.controls is None:
            return ""
        what, before, after = self.controls
        if after:
            return f"its {what} is open" if before else f"its {what} opened"
        return f"its {what} did NOT open" if not before else f"its {what} closed"

    def evidence(self) -> str:
        """A short account of the effect for the tool result's reason."""
        parts = [
            (self.modal > 0, "a modal opened"),
            (self.modal < 0, "a modal closed"),
            (self.toggled, f"it is now {'on' if self.active_after else 'off'}"),
            (self.value_changed, textcut.cut(f"value now {self.value!r}", 80)),
            (self.target > 0, f"{self.target} changes on the element"),
            (self.mutations - self.target > 0, f"{self.mutations - self.target} page changes"),
            (self.focus_moved, "focus moved"),
            (self.scrolled, "scrolled"),
            (self.detached, "the element was replaced"),
            (self.hidden and self.hidden_popup, "its menu or list closed"),
            (self.hidden and not self.hidden_popup, "the view changed (the element is hidden)"),
            (self.field is not None, self._field_text()),
            (self.requests > 0, f"{self.requests} requests sent"),
            (self.pixel_diff is not None and self.pixel_diff >= PIXEL_THRESHOLD, "pixels changed"),
            (self.selected, "text got selected"),
            (self.controls is not None, self._controls_text()),
        ]
        return ", ".join(text for on, text in parts if on)


def outcome(
    summary: Mapping[str, Any] | None,
    events: PageEvents | None = None,
    *,
    pixel_diff: float | None = None,
    requests: int = 0,
) -> Outcome:
    """Build an Outcome from verify.js "collect" (None: the frame went away = navigation)."""
    ev = events or PageEvents()
    seen: dict[str, Any] = {
        "dialogs": ev.dialogs,
        "popup": ev.popup,
        "downloads": ev.downloads,
        "pixel_diff": pixel_diff,
        "requests": requests,
    }
    if summary is None:
        return Outcome(url_changed=True, **seen)
    return Outcome(
        url_changed=ev.navigated or bool(summary.get("url")),
        causal=int(summary.get("causal", 0)),
        late=int(summary.get("late", 0)),
        target=int(summary.get("target", 0)),
        ambient=int(summary.get("ambient", 0)),
        focus_moved=bool(summary.get("focusMoved")),
        scrolled=bool(summary.get("scrolled")),
        modal=int(summary.get("modal", 0)),
        state_changed=bool(summary.get("stateChanged")),
        active_before=bool(summary.get("activeBefore")),
        active_after=bool(summary.get("activeAfter")),
        value_changed=bool(summary.get("valueChanged")),
        value=summary.get("value"),
        detached=bool(summary.get("detached")),
        hidden=bool(summary.get("hidden")),
        hidden_popup=bool(summary.get("hiddenPopup")),
        field=_field(summary.get("field")),
        children=tuple(summary.get("children") or ()),
        handled=int(summary.get("handled") or 0),
        missed_on=str(summary.get("missedOn") or "") if summary.get("missed") else "",
        selected=bool(summary.get("selected")),
        controls=_controls(summary.get("controls")),
        dblclick=bool(summary.get("dblclick")),
        **seen,
    )


def _controls(raw: Any) -> tuple[str, bool, bool] | None:
    return (str(raw["what"]), bool(raw["before"]), bool(raw["after"])) if raw else None


def _field(raw: Any) -> tuple[str, str] | None:
    return (str(raw[0]), str(raw[1])) if raw else None


@dataclass
class Probe:
    """An armed effect session: where it runs and what the page looked like before."""

    page: Page
    frame: Frame
    element: ElementHandle | None
    url: str
    xpath: str = ""
    active: bool = False
    clip: FloatRect | None = None
    shot: bytes | None = None
    requests: list[str] = field(default_factory=list)
    top: Probe | None = None  # the main frame's session when the target is in an iframe
    whole: bool = False  # clip is the viewport (pixel_difference peak)
    ring: tuple[Ring, Ring] | None = None  # the focused element's ring, not compared
    # requests counted by the caller's own listener (a session's settle.NetworkWatch, marked
    # at arm time): no listener of our own, whose (un)subscription costs two round trips
    counted: Callable[[], int] | None = None

    @property
    def sent(self) -> int:
        """Requests the page sent since the session was armed."""
        return self.counted() if self.counted is not None else len(self.requests)

    def _on_request(self, request: Request) -> None:
        self.requests.append(request.url)

    def listen(self) -> None:
        if self.counted is None:
            self.page.on("request", self._on_request)

    def stop(self) -> None:
        if self.counted is None:
            self.page.remove_listener("request", self._on_request)


async def _frame_of(frame: Frame, el: ElementHandle | None) -> Frame:
    if el is None:
        return frame
    try:
        return await el.owner_frame() or frame
    except Error:
        return frame


async def arm(
    page: Page,
    frame: Frame,
    el: ElementHandle | None,
    *,
    exact: bool = False,
    counted: Callable[[], int] | None = None,
    whole: bool = False,
    armed: Mapping[str, Any] | None = None,
) -> Probe:
    """Start watching the element's document; a DOM-silent target also gets a screenshot.
    `exact`: `frame` is the element's own frame (a ref's), no need to ask; `counted`: the
    caller's count of requests sent since now (Probe.counted); `whole`: the viewport's
    pixels are compared too (a key or pointer move may change only a canvas or an
    animation: issue 26 item 9); `armed`: the session was started already, in the click's
    aim (aim_and_arm_js), and this is its before-state."""
    own = frame if exact or el is None else await _frame_of(frame, el)
    probe = Probe(page, own, el, page.url, counted=counted)
    probe.listen()
    before: Any = armed
    try:
        if own != page.main_frame:  # an iframe's click often shows in the parent page
            probe.top = Probe(page, page.main_frame, None, page.url)
            await _verify_js(probe.top, "arm", script=_arm_js())
        # the tracker is installed in the same call where its init script has not run
        if before is None:
            before = await _verify_js(probe, "arm", script=_arm_js())
    except Error:
        return probe
    if whole:
        size = page.viewport_size or {"width": 0, "height": 0}
        probe.clip = {"x": 0, "y": 0, "width": size["width"], "height": size["height"]}
        probe.whole = True
        probe.ring = focus_ring(await _focused_box(page), probe.clip)
        probe.shot = await _shot(page, probe.clip)
    if before:
        probe.xpath = str(before.get("xpath", ""))
        probe.active = bool(before.get("state", {}).get("active"))
        if before.get("silent") and el is not None and not whole:
            box = await el.bounding_box()
            if box and box["width"] > 0 and box["height"] > 0:
                probe.clip = box
                probe.shot = await _shot(page, box)
    return probe


async def _focused_box(page: Page) -> Mapping[str, Any] | None:
    """Where the focused element is (js/verify_focus.js), None when nothing has focus."""
    try:
        found: Mapping[str, Any] | None = await page.main_frame.evaluate(js("verify_focus.js"))
    except Error:
        return None
    return found


@lru_cache(maxsize=1)
def _arm_js() -> str:
    """verify.js behind verify_tracker.js (a no-op where the init script already ran):
    arming costs one round trip, not two."""
    return f"(a, b) => {{\n{js('verify_tracker.js')}\nreturn ({js('verify.js')})(a, b);\n}}"


@lru_cache(maxsize=1)
def aim_and_arm_js() -> str:
    """click.js "aim", then the effect session armed on the same element, in one call
    (issue 35): the click's first probe and the arming cost one round trip, not two."""
    return (
        f"(el, arg) => ({{ aim: ({js('click.js')})(el, ['aim']),\n"
        f"before: ({_arm_js()})(el, ['arm', false]) }})"
    )


async def _shot(page: Page, clip: FloatRect) -> bytes | None:
    """The clip's pixels; the style changes the screenshot itself makes in the page (a
    hidden caret) are kept out of the effect tracker's account."""
    try:
        await page.main_frame.evaluate(js("verify.js"), ["pause", None])
        try:
            return await page.screenshot(clip=clip, type="png", animations="disabled")
        finally:
            await page.main_frame.evaluate(js("verify.js"), ["resume", None])
    except Error:
        return None


async def _verify_js(probe: Probe, op: str, end: bool | str = False, script: str = "") -> Any:
    """verify.js in the element's own document (handles stay in their own context)."""
    if probe.element is not None:
        return await probe.element.evaluate(script or js("verify.js"), [op, end])
    return await probe.frame.evaluate(script or js("verify.js"), [op, None, end])


async def _collect(probe: Probe, end: bool | str) -> Mapping[str, Any] | None:
    try:
        result: Mapping[str, Any] | None = await _verify_js(probe, "collect", end)
        top = await _verify_js(probe.top, "collect", end) if probe.top is not None else None
    except Error:
        return None
    return merge(result, top) if result is not None and top is not None else result


def merge(own: Mapping[str, Any], top: Mapping[str, Any]) -> dict[str, Any]:
    """The target frame's summary plus what changed in the main page around it."""
    out = dict(own)
    for key in ("causal", "late", "ambient", "modal", "handled"):
        out[key] = int(own.get(key, 0)) + int(top.get(key, 0))
    for key in ("url", "focusMoved", "scrolled"):
        out[key] = bool(own.get(key)) or bool(top.get(key))
    out["field"] = own.get("field") or top.get("field")
    return out


async def settle(
    probe: Probe,
    *,
    min_wait_s: float = MIN_SETTLE_S,
    max_wait_s: float,
    events: Callable[[], PageEvents] = PageEvents,
    read: Mapping[str, Any] | None = None,
) -> Outcome:
    """Wait min_wait_s, then until the action shows an effect or max_wait_s has passed, and
    say what changed, with what the session saw meanwhile (`events()`). `read`: the
    tracker's account the settle wait's last look already read (settle.py), used as the
    first read instead of a round trip of its own."""
    started = time.monotonic()
    await asyncio.sleep(min(min_wait_s, max_wait_s))
    diff: float | None = None
    while True:
        summary, read = read or await _collect(probe, end=_early_end(probe, events)), None
        current = outcome(summary, events(), requests=probe.sent)
        if not current.effect and probe.shot is not None and probe.clip is not None:
            after = await _shot(probe.page, probe.clip)  # a DOM-silent widget: look at it
            diff = None
            if after is not None and not (probe.whole and current.ambient):
                # a page ticking by timers (a clock) changes its pixels by itself
                diff = pixel_difference(probe.shot, after, peak=probe.whole, ring=probe.ring)
            current = replace(current, pixel_diff=diff)
        if current.effect or time.monotonic() - started >= max_wait_s:
            break
        await asyncio.sleep(POLL_S)
    probe.stop()
    ended = summary is not None and bool(summary.get("ended"))
    final = await _collect(probe, end=True) if summary is not None and not ended else None
    last = final if final is not None else summary
    seen = events()
    moved = probe.page.url != probe.url
    # the armed document answered, so it was not replaced: a same-document navigation to the
    # URL it already had (Enter on a link to the current #hash) is no page change (relay
    # 2026-11-27 finding 2); a new document (reload, another page) leaves `last` None
    seen = replace(seen, navigated=moved if last is not None else seen.navigated or moved)
    return outcome(last, seen, pixel_diff=diff, requests=probe.sent)


def read_end(probe: Probe, events: Callable[[], PageEvents]) -> Callable[[], bool | str] | None:
    """How the settle wait may read the effect session (settle.until_settled `read`): only
    a session of the main frame's document, where the settle wait looks."""
    if probe.top is not None or probe.frame != probe.page.main_frame:
        return None
    return lambda: _early_end(probe, events)


def _early_end(probe: Probe, events: Callable[[], PageEvents]) -> bool | str:
    """How the next look may end the session itself, making it the final account (one round
    trip less): at once when what the session saw (a request, a navigation, a dialog, a tab,
    a download) is already an effect; else when the DOM shows one. Never with an iframe
    target: its frame and the main page are read separately."""
    if probe.top is not None:
        return False
    return True if outcome({}, events(), requests=probe.sent).effect else "effect"


async def pointer(page: Page) -> tuple[float, float] | None:
    """Where the page last saw the pointer (after a hover by another tool, say)."""
    try:
        at = await page.main_frame.evaluate(js("verify.js"), ["mouse", None])
    except Error:
        return None
    return (float(at[0]), float(at[1])) if at else None
