"""Token bucket per caller: burst, refill at the configured rate, Retry-After, disabled at 0."""

from __future__ import annotations

from app.ratelimit import RateLimiter


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_burst_then_refill_and_retry_after() -> None:
    clock = Clock()
    limiter = RateLimiter(per_minute=30, burst=2, clock=clock)  # one token per 2 s
    assert [limiter.take("k").allowed for _ in range(3)] == [True, True, False]
    denied = limiter.take("k")
    assert not denied.allowed and denied.retry_after_s == 2
    assert limiter.take("other").allowed  # buckets are per caller
    clock.now = 2.0
    assert limiter.take("k").allowed and not limiter.take("k").allowed


def test_remaining_counts_down_and_zero_disables() -> None:
    limiter = RateLimiter(per_minute=60, burst=3, clock=Clock())
    assert [limiter.take("k").remaining for _ in range(3)] == [2, 1, 0]
    off = RateLimiter(per_minute=0, burst=1, clock=Clock())
    assert all(off.take("k").allowed for _ in range(1000))
