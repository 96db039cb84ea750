"""Job used by the bare-rq floor in bench/backbone.py: returns when it started."""

from __future__ import annotations

import time


def stamp(_label: str) -> float:
    return time.time()
