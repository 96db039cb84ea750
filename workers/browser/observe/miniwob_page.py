"""Playwright side of a MiniWoB++ episode: open, seed, start, read the reward globals.

Mirrors miniwob's own `SeleniumInstance` (begin_task / get_metadata) and BrowserGym's task
setup; the JS lives in js/miniwob.js. The benchmark harness never touches Playwright itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from workers.browser.runtime.scripts import js, js_with

# setTimeout overflows above 2**31-1 ms and fires at once; 24 h is "no timer" for a run.
LIFTED_EPISODE_MS = 24 * 3600 * 1000
_LOAD_TIMEOUT_MS = 15_000
_READY_TIMEOUT_MS = 5_000


def _script() -> str:
    return js_with("miniwob.js", "icon_name.js")


class MiniWobPageError(RuntimeError):
    """Browser fault: the task page did not load or did not behave like a MiniWoB++ page."""


@dataclass(frozen=True)
class EpisodeStart:
    utterance: str
    max_time_ms: int


@dataclass(frozen=True)
class EpisodeState:
    """WOB_* globals: `raw_reward` is the reward before the time penalty."""

    done: bool
    reward: float
    raw_reward: float
    reason: str | None
    episode_id: int


class MiniWobPage:
    """One task page in an isolated context; one episode per instance in the harness."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self._js = _script()

    async def open(self, url: str) -> None:
        """Load the page and wait for window.onload's core.startEpisode() (the sync cover)."""
        try:
            await self.page.goto(url, wait_until="load", timeout=_LOAD_TIMEOUT_MS)
            await self.page.wait_for_function(
                js("miniwob_ready.js"), arg="loaded", timeout=_LOAD_TIMEOUT_MS
            )
        except PlaywrightError as exc:
            raise MiniWobPageError(f"MiniWoB++ page {url} did not load: {exc}") from exc

    async def start(self, seed: int | str, *, keep_timer: bool) -> EpisodeStart:
        """Seed, start the episode (core.startEpisodeReal) and read the utterance."""
        request = {
            "op": "start",
            "seed": seed,
            "maxTimeMs": None if keep_timer else LIFTED_EPISODE_MS,
        }
        try:
            result: dict[str, Any] = await self.page.evaluate(self._js, request)
            await self.page.wait_for_function(
                js("miniwob_ready.js"), arg="task", timeout=_READY_TIMEOUT_MS
            )
        except PlaywrightError as exc:
            raise MiniWobPageError(f"episode did not start: {exc}") from exc
        utterance = result["utterance"]
        if isinstance(utterance, dict):  # a few tasks return {utterance, fields}
            utterance = utterance.get("utterance", "")
        return EpisodeStart(utterance=str(utterance), max_time_ms=int(result["maxTimeMs"]))

    async def state(self) -> EpisodeState:
        """Current done flag and rewards (read after every agent action)."""
        try:
            raw: dict[str, Any] = await self.page.evaluate(self._js, {"op": "state"})
        except PlaywrightError as exc:
            raise MiniWobPageError(f"cannot read the episode state: {exc}") from exc
        return EpisodeState(
            done=bool(raw["done"]),
            reward=float(raw["reward"]),
            raw_reward=float(raw["rawReward"]),
            reason=raw["reason"],
            episode_id=int(raw["episodeId"]),
        )
