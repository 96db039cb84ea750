"""Algorithm 6 cursor paths and §6.4 typing plans (seed 000), checked against the paper's
constants with seeded randomness."""

from __future__ import annotations

import itertools
import math
import random

import pytest

from workers.browser.act import humanize as h


def test_step_count_and_duration_follow_distance() -> None:
    assert h.steps_and_duration(0) == (12, 100.0)
    assert h.steps_and_duration(300) == (25, 540.0)
    assert h.steps_and_duration(1000) == (84, 800.0)


@pytest.mark.parametrize("seed", range(20))
def test_click_path_ends_near_target_with_wobble(seed: int) -> None:
    rng = random.Random(seed)
    path = h.motion_path((10, 10), (400, 300), "click", rng)
    n, total = h.steps_and_duration(math.hypot(390, 290))
    assert len(path) in (n + 2, n + 3)  # N waypoints + 2 or 3 terminal wobble points
    end = path[n - 1]  # last Bézier point: the jittered target (σ = 2 px)
    assert math.hypot(end.x - 400, end.y - 300) < 10
    for wobble in path[n:]:
        assert math.hypot(wobble.x - end.x, wobble.y - end.y) < 8
        assert 8 <= wobble.dt_ms <= 18
    moving = sum(w.dt_ms for w in path[:n])
    # Δt_i = T/N (1 + 0.4(1 - φ')) + U(0,5): between 0.77 T and 1.4 T + 5N
    assert 0.75 * total <= moving <= 1.4 * total + 5 * n


def test_click_path_is_eased_slow_fast_slow() -> None:
    path = h.motion_path((0, 0), (600, 0), "click", random.Random(1))
    n = h.steps_and_duration(600)[0]
    xs = [0.0] + [w.x for w in path[:n]]
    steps = [abs(b - a) for a, b in itertools.pairwise(xs)]
    middle = steps[n // 2]
    assert steps[0] < middle and steps[-1] < middle


def test_path_arcs_off_the_straight_line_sometimes() -> None:
    offsets = []
    for seed in range(30):
        path = h.motion_path((0, 0), (500, 0), "click", random.Random(seed))
        offsets.append(max(abs(w.y) for w in path))
    assert max(offsets) > 20  # β ~ N(0, (0.12 d)²) = 60 px spread


def test_drag_releases_exactly_on_target_without_wobble() -> None:
    path = h.motion_path((0, 0), (60, 0), "drag", random.Random(3))
    n = h.steps_and_duration(60)[0]
    assert len(path) == n + 1
    assert (path[-1].x, path[-1].y) == (60, 0)


def test_ease_profiles() -> None:
    assert h.ease(0, "click") == 0 and h.ease(1, "click") == pytest.approx(1)
    assert h.ease(0.5, "drag") == pytest.approx(0.5)
    assert h.ease_slope(0.5, "click") == pytest.approx(math.pi / 2)
    assert h.ease_slope(0.5, "drag") == pytest.approx(2.0)


def test_press_point_stays_inside_a_small_cell() -> None:
    rng = random.Random(0)
    for _ in range(500):
        x, y = h.press_point((112, 212), (100, 200, 124, 224), rng)
        assert 101 <= x <= 123 and 201 <= y <= 223


def test_typing_plan_types_text_with_humane_delays() -> None:
    plan = h.typing_plan("hello world, again", h.Humanize(), random.Random(5))
    assert "".join(k.text for k in plan) == "hello world, again"
    assert all(30 <= k.delay_ms <= 250 + 600 for k in plan)
    after_space = plan[6]  # the "w" after the space
    assert after_space.delay_ms >= 120


def test_typos_are_corrected_and_off_by_default() -> None:
    text = "the quick brown fox jumps over the lazy dog " * 10
    off = h.typing_plan(text, h.Humanize(), random.Random(2))
    assert not any(k.key for k in off)
    on = h.typing_plan(text, h.Humanize(typos=True), random.Random(2))
    assert any(k.key == "Backspace" for k in on)
    typed: list[str] = []
    for k in on:
        if k.key == "Backspace":
            typed.pop()
        else:
            typed.append(k.text)
    assert "".join(typed) == text


def test_without_humanization_one_step() -> None:
    assert h.typing_plan("abc", h.Humanize(enabled=False), random.Random(0)) == (
        h.Keystroke("abc", 0.0),
    )


async def test_replay_typing_presses_backspace() -> None:
    class Keys:
        def __init__(self) -> None:
            self.log: list[str] = []

        async def type(self, text: str) -> None:
            self.log.append(text)

        async def press(self, key: str) -> None:
            self.log.append(f"<{key}>")

    async def no_sleep(_: float) -> None:
        return None

    keys = Keys()
    plan = (h.Keystroke("x", 10), h.Keystroke("", 10, key="Backspace"), h.Keystroke("a", 5))
    await h.replay_typing(keys, plan, sleep=no_sleep)
    assert keys.log == ["x", "<Backspace>", "a"]
