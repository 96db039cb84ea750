"""Fixed MiniWoB++ task lists: `all` (the 125-task BrowserGym set), `core` and `smoke`.

`core` keeps the tasks an LLM agent can do with element-level actions at its own pace:
it drops tasks that need a real-time reaction and the pointer tasks the tools cannot do
deliberately (a curved free-hand path, hover at a bare point, momentum). Drag, sliders, text
selection, resize, calendars by drag, colour pickers and points placed by geometry read from
the page are in `core` (issue 8). Every drop is listed with its reason.
"""

from __future__ import annotations

from collections.abc import Iterable

# The task set of the `miniwob` gym package and BrowserGym's `miniwob` benchmark
# (125 tasks; BrowserGym runs 5 seeds each). Published GenericAgent figures use it.
ALL_TASKS: tuple[str, ...] = (
    "ascending-numbers", "bisect-angle", "book-flight", "book-flight-nodelay", "buy-ticket",
    "choose-date", "choose-date-easy", "choose-date-medium", "choose-date-nodelay",
    "choose-list", "circle-center", "click-button", "click-button-sequence",
    "click-checkboxes", "click-checkboxes-large", "click-checkboxes-soft",
    "click-checkboxes-transfer", "click-collapsible", "click-collapsible-2",
    "click-collapsible-2-nodelay", "click-collapsible-nodelay", "click-color", "click-dialog",
    "click-dialog-2", "click-link", "click-menu", "click-menu-2", "click-option", "click-pie",
    "click-pie-nodelay", "click-scroll-list", "click-shades", "click-shape", "click-tab",
    "click-tab-2", "click-tab-2-easy", "click-tab-2-hard", "click-tab-2-medium", "click-test",
    "click-test-2", "click-test-transfer", "click-widget", "copy-paste", "copy-paste-2",
    "count-shape", "count-sides", "daily-calendar", "drag-box", "drag-circle", "drag-cube",
    "drag-items", "drag-items-grid", "drag-shapes", "drag-shapes-2", "drag-single-shape",
    "drag-sort-numbers", "draw-circle", "draw-line", "email-inbox", "email-inbox-delete",
    "email-inbox-forward", "email-inbox-forward-nl", "email-inbox-forward-nl-turk",
    "email-inbox-important", "email-inbox-nl-turk", "email-inbox-noscroll",
    "email-inbox-reply", "email-inbox-star-reply", "enter-date", "enter-password",
    "enter-text", "enter-text-2", "enter-text-dynamic", "enter-time", "find-greatest",
    "find-midpoint", "find-word", "focus-text", "focus-text-2", "form-sequence",
    "form-sequence-2", "form-sequence-3", "generate-number", "grid-coordinate",
    "guess-number", "highlight-text", "highlight-text-2", "hot-cold", "identify-shape",
    "login-user", "login-user-popup", "multi-layouts", "multi-orderings", "navigate-tree",
    "number-checkboxes", "odd-or-even", "order-food", "phone-book", "read-table",
    "read-table-2", "resize-textarea", "right-angle", "scroll-text", "scroll-text-2",
    "search-engine", "sign-agreement", "simple-algebra", "simple-arithmetic", "social-media",
    "social-media-all", "social-media-some", "stock-market", "terminal", "text-editor",
    "text-transform", "tic-tac-toe", "unicode-test", "use-autocomplete",
    "use-autocomplete-nodelay", "use-colorwheel", "use-colorwheel-2", "use-slider",
    "use-slider-2", "use-spinner", "visual-addition",
)  # fmt: skip

_REAL_TIME = "real-time: "
_POINTER = "free-form pointer: "

# Pages left out of `core`, with why. The first five are not in ALL_TASKS either (the gym
# package and BrowserGym leave them out for the same reason).
EXCLUDED: dict[str, str] = {
    "chase-circle": _REAL_TIME + "keep the pointer on a circle that keeps moving",
    "moving-items": _REAL_TIME + "targets move on a timer; a click lands where one was",
    "simon-says": _REAL_TIME + "the sequence is shown once as a timed blinking animation",
    "hover-shape": _REAL_TIME + "hold the pointer on a highlight that jumps on a timer",
    "button-delay": _REAL_TIME + "press the second button after an exact wall-clock delay",
    "stock-market": _REAL_TIME + "price ticks every 100 ms; buy at the moment it dips",
    "drag-cube": _POINTER + "the cube turns with momentum from the pointer's speed; a drag "
    "does not land on a chosen face (only trial and error: drag, read the face, repeat)",
    "draw-circle": _POINTER + "free-hand circle on a canvas (the drag tool moves in a line)",
    "hot-cold": _POINTER + "search a blank area by hover feedback (hover takes an element, "
    "not a point), then click a pixel",
}

CORE_TASKS: tuple[str, ...] = tuple(t for t in ALL_TASKS if t not in EXCLUDED)

# Three quick tasks a scripted policy can solve from the prompt alone (tests, CI).
SMOKE_TASKS: tuple[str, ...] = ("click-button", "click-link", "enter-text")

SUITES: dict[str, tuple[str, ...]] = {
    "core": CORE_TASKS,
    "all": ALL_TASKS,
    "smoke": SMOKE_TASKS,
}


class UnknownTask(ValueError):
    """Configuration error: a task or suite name the harness does not know."""


def resolve_tasks(
    *, suite: str | None, tasks: Iterable[str] | None, available: frozenset[str]
) -> tuple[str, ...]:
    """The task list to run: explicit `tasks` win over `suite`; every name must have a page."""
    if tasks:
        chosen = tuple(dict.fromkeys(t.strip() for t in tasks if t.strip()))
    else:
        name = suite or "core"
        if name not in SUITES:
            raise UnknownTask(f"unknown suite {name!r}; choose one of {sorted(SUITES)}")
        chosen = SUITES[name]
    missing = [t for t in chosen if t not in available]
    if missing:
        raise UnknownTask(f"no MiniWoB++ page for: {', '.join(missing)}")
    if not chosen:
        raise UnknownTask("no tasks selected")
    return chosen
