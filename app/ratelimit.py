"""Per-caller request rate limit: a token bucket per API key (per client address without one).

In-memory, per API process: N replicas admit up to N times the rate. The clock is injected
so tests step time instead of sleeping.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

MAX_BUCKETS = 100_000  # forget the idlest callers beyond this (bounded memory)


@dataclass(frozen=True)
class Decision:
    allowed: bool
    limit: int
    remaining: int
    retry_after_s: int  # whole seconds until one request is admitted again (0 when allowed)


class RateLimiter:
    """`per_minute` requests per caller on average, bursts of up to `burst`; 0 disables."""

    def __init__(
        self, *, per_minute: int, burst: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = per_minute / 60.0
        self.burst = max(1, burst)
        self.enabled = per_minute > 0
        self.clock = clock
        self._buckets: dict[str, tuple[float, float]] = {}  # caller → (tokens, last time)

    def take(self, caller: str) -> Decision:
        if not self.enabled:
            return Decision(True, 0, 0, 0)
        now = self.clock()
        tokens, last = self._buckets.get(caller, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - last) * self.rate)
        if tokens >= 1.0:
            self._store(caller, tokens - 1.0, now)
            return Decision(True, self.burst, int(tokens - 1.0), 0)
        self._store(caller, tokens, now)
        wait = math.ceil((1.0 - tokens) / self.rate)
        return Decision(False, self.burst, 0, max(1, wait))

    def _store(self, caller: str, tokens: float, now: float) -> None:
        if caller not in self._buckets and len(self._buckets) >= MAX_BUCKETS:
            oldest = min(self._buckets, key=lambda c: self._buckets[c][1])
            del self._buckets[oldest]
        self._buckets[caller] = (tokens, now)
