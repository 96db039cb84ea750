"""Motor humanization (seed 000 §6.4, Algorithm 6): cursor paths, click timing, typing rhythm.

Pure functions over an injected `random.Random`; the cascade (click.py) replays the paths as
CDP mouse events. Humanized motion exists to produce trusted, well-formed input sequences
(a real press/release pair reached by a real pointer path), not to defeat bot detection.

Algorithm 6 as written:
  d = ‖p_T − p_0‖, N = max(⌈d/12⌉, 12), T = clamp(1.8·d, 100, 800) ms,
  p_T += N(0, σ_T²I) with σ_T = 2 px for clicks, 0 for drags (drags release on the target),
  control points c_k = p_0 + α_k(p_T − p_0) + β_k·n, α_1~U(.25,.40), α_2~U(.60,.80),
  β_k~N(0,(0.12d)²); velocity φ(t) = ½(1−cos πt) for clicks, logistic σ(8(t−½)) for drags;
  waypoint i at the cubic Bézier of τ = φ(i/N) with Δt_i = T/N·(1 + 0.4(1 − φ′(i/N))) + U(0,5);
  drags add a U(40,120) ms micro-pause with probability 0.05; clicks end with 2-3 terminal
  wobble points p_T + N(0, 1.2²I), U(8,18) ms apart.
Algorithm 5 adds the pre-click hesitation N(100, 50) ms, the ±2 px centring jitter N(0, 2²I)
and the press-to-release hold N(90, 25) ms. §6.4 typing: 30-120 ms per character, longer
pauses after spaces and punctuation, a 10% chance of a 200-600 ms word pause, and an optional
2% typo followed by Backspace and the right key (off by default).
"""

from __future__ import annotations

import asyncio
import math
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal, Protocol

Mode = Literal["click", "drag"]

STEP_PX = 12.0  # N = max(ceil(d/12), 12)
MIN_STEPS = 12
MS_PER_PX = 1.8  # T = clamp(1.8 d, 100, 800) ms
MIN_T_MS, MAX_T_MS = 100.0, 800.0
TARGET_SIGMA_CLICK = 2.0
ARC_SIGMA = 0.12  # β ~ N(0, (0.12 d)²)
ALPHA1, ALPHA2 = (0.25, 0.40), (0.60, 0.80)
TIMING_NOISE_MS = (0.0, 5.0)
DRAG_PAUSE_P, DRAG_PAUSE_MS = 0.05, (40.0, 120.0)
WOBBLE_SIGMA, WOBBLE_MS, WOBBLE_COUNTS = 1.2, (8.0, 18.0), (2, 3)
HESITATION_MS = (100.0, 50.0)  # N(μ, σ) before the press (Alg. 5 line 13)
CENTRE_JITTER_PX = 2.0  # N(0, 2²I) on the press point (Alg. 5)
HOLD_MS = (90.0, 25.0)  # N(μ, σ) between press and release (Alg. 5 line 17)

CHAR_MS = (30.0, 120.0)
AFTER_SEPARATOR_MS = (120.0, 250.0)  # "longer pauses after spaces and punctuation"
WORD_PAUSE_P, WORD_PAUSE_MS = 0.10, (200.0, 600.0)
TYPO_P = 0.02
SEPARATORS = frozenset(" .,;:!?-/")
_QWERTY = ("qwertyuiop", "asdfghjkl", "zxcvbnm")


@dataclass(frozen=True)
class Waypoint:
    """One mouse move: go to (x, y) after waiting dt_ms."""

    x: float
    y: float
    dt_ms: float


@dataclass(frozen=True)
class Keystroke:
    """One typing step: wait delay_ms, then type `text` (or press Backspace when key is set)."""

    text: str
    delay_ms: float
    key: str = ""


@dataclass(frozen=True)
class Humanize:
    """Switch and options (Settings.humanize, Settings.humanize_typos)."""

    enabled: bool = True
    typos: bool = False


def ease(t: float, mode: Mode) -> float:
    """φ(t): sine easing for clicks (slow-fast-slow), logistic for drags."""
    if mode == "click":
        return 0.5 * (1.0 - math.cos(math.pi * t))
    return 1.0 / (1.0 + math.exp(-8.0 * (t - 0.5)))


def ease_slope(t: float, mode: Mode) -> float:
    """φ′(t) of `ease`."""
    if mode == "click":
        return 0.5 * math.pi * math.sin(math.pi * t)
    s = ease(t, mode)
    return 8.0 * s * (1.0 - s)


def _bezier(t: float, p0: tuple[float, float], c1: tuple[float, float], c2: tuple[float, float],
            p3: tuple[float, float]) -> tuple[float, float]:  # fmt: skip
    u = 1.0 - t
    a, b, c, d = u**3, 3 * u * u * t, 3 * u * t * t, t**3
    return (
        a * p0[0] + b * c1[0] + c * c2[0] + d * p3[0],
        a * p0[1] + b * c1[1] + c * c2[1] + d * p3[1],
    )


def steps_and_duration(d: float) -> tuple[int, float]:
    """N = max(⌈d/12⌉, 12) waypoints over T = clamp(1.8·d, 100, 800) ms."""
    return max(math.ceil(d / STEP_PX), MIN_STEPS), min(max(d * MS_PER_PX, MIN_T_MS), MAX_T_MS)


def motion_path(
    start: tuple[float, float], end: tuple[float, float], mode: Mode, rng: random.Random
) -> tuple[Waypoint, ...]:
    """Algorithm 6: the waypoint sequence from `start` to (a jittered) `end`."""
    sigma_t = TARGET_SIGMA_CLICK if mode == "click" else 0.0
    target = (end[0] + rng.gauss(0, sigma_t), end[1] + rng.gauss(0, sigma_t))
    dx, dy = target[0] - start[0], target[1] - start[1]
    d = math.hypot(dx, dy)
    n_steps, total_ms = steps_and_duration(d)
    ux, uy = (dx / d, dy / d) if d > 0 else (1.0, 0.0)
    nx, ny = -uy, ux
    a1, a2 = rng.uniform(*ALPHA1), rng.uniform(*ALPHA2)
    b1, b2 = rng.gauss(0, ARC_SIGMA * d), rng.gauss(0, ARC_SIGMA * d)
    c1 = (start[0] + a1 * dx + b1 * nx, start[1] + a1 * dy + b1 * ny)
    c2 = (start[0] + a2 * dx + b2 * nx, start[1] + a2 * dy + b2 * ny)
    points: list[Waypoint] = []
    for i in range(1, n_steps + 1):
        t = i / n_steps
        x, y = _bezier(ease(t, mode), start, c1, c2, target)
        dt = total_ms / n_steps * (1 + 0.4 * (1 - ease_slope(t, mode)))
        dt += rng.uniform(*TIMING_NOISE_MS)
        if mode == "drag" and rng.random() < DRAG_PAUSE_P:
            dt += rng.uniform(*DRAG_PAUSE_MS)
        points.append(Waypoint(x, y, dt))
    if mode == "click":
        for _ in range(rng.choice(WOBBLE_COUNTS)):
            wx, wy = target[0] + rng.gauss(0, WOBBLE_SIGMA), target[1] + rng.gauss(0, WOBBLE_SIGMA)
            points.append(Waypoint(wx, wy, rng.uniform(*WOBBLE_MS)))
    else:  # the logistic stops at φ(1) ≈ 0.98: drags release exactly on the target
        points.append(Waypoint(target[0], target[1], rng.uniform(*WOBBLE_MS)))
    return tuple(points)


def _normal_ms(mu_sigma: tuple[float, float], rng: random.Random) -> float:
    return max(0.0, rng.gauss(*mu_sigma))


def hesitation_ms(rng: random.Random) -> float:
    """Pre-click hesitation N(100, 50) ms, floored at 0."""
    return _normal_ms(HESITATION_MS, rng)


def hold_ms(rng: random.Random) -> float:
    """Press-to-release hold N(90, 25) ms, floored at 0."""
    return _normal_ms(HOLD_MS, rng)


def press_point(
    centre: tuple[float, float], rect: tuple[float, float, float, float], rng: random.Random
) -> tuple[float, float]:
    """Centre + N(0, 2²I), kept inside the element's rect (x0, y0, x1, y1) shrunk by 1 px so a
    small target (a 24 px calendar cell, a checkbox) is never missed by the jitter."""
    x0, y0, x1, y1 = rect
    x = centre[0] + rng.gauss(0, CENTRE_JITTER_PX)
    y = centre[1] + rng.gauss(0, CENTRE_JITTER_PX)
    clamp_x = min(max(x, x0 + 1), x1 - 1) if x1 - x0 > 2 else centre[0]
    clamp_y = min(max(y, y0 + 1), y1 - 1) if y1 - y0 > 2 else centre[1]
    return clamp_x, clamp_y


def _neighbour(ch: str, rng: random.Random) -> str:
    """A key next to `ch` on a QWERTY row (same case), for a simulated typo."""
    low = ch.lower()
    for row in _QWERTY:
        i = row.find(low)
        if i >= 0:
            options = [row[j] for j in (i - 1, i + 1) if 0 <= j < len(row)]
            pick = rng.choice(options)
            return pick.upper() if ch.isupper() else pick
    return ""


def typing_plan(text: str, humanize: Humanize, rng: random.Random) -> tuple[Keystroke, ...]:
    """§6.4 keystrokes for `text`; without humanization one step types the whole text."""
    if not humanize.enabled:
        return (Keystroke(text, 0.0),) if text else ()
    plan: list[Keystroke] = []
    previous = ""
    for ch in text:
        delay = rng.uniform(*CHAR_MS)
        if previous in SEPARATORS:
            delay = rng.uniform(*AFTER_SEPARATOR_MS)
            if previous == " " and rng.random() < WORD_PAUSE_P:
                delay += rng.uniform(*WORD_PAUSE_MS)
        wrong = _neighbour(ch, rng) if humanize.typos and rng.random() < TYPO_P else ""
        if wrong:
            plan.append(Keystroke(wrong, delay))
            plan.append(Keystroke("", rng.uniform(*CHAR_MS) * 2, key="Backspace"))
            delay = rng.uniform(*CHAR_MS)
        plan.append(Keystroke(ch, delay))
        previous = ch
    return tuple(plan)


class Keyboard(Protocol):
    """What replaying a plan needs of Playwright's page.keyboard."""

    async def type(self, text: str) -> None: ...

    async def press(self, key: str) -> None: ...


async def replay_typing(
    keyboard: Keyboard,
    plan: tuple[Keystroke, ...],
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> None:
    """Type a plan: its delays, its characters, its Backspaces."""
    for step in plan:
        if step.delay_ms > 0:
            await sleep(step.delay_ms / 1000)
        if step.key:
            await keyboard.press(step.key)
        elif step.text:
            await keyboard.type(step.text)
