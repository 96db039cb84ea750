"""Perception: one task's view of its page — snapshot versions, refs, the change gate.

observe() is change-gated (seed 000 §4.5): a cheap fingerprint first; an unchanged page gets
the last observation back (same version, refs still valid), a changed one a new snapshot
version. Actions name elements by `v:n` refs of the current version only (seed 003 §5.1.1);
a few past versions are kept so a stale ref of a re-rendered element can be re-found
(rerender.py, seed 003 §5.4). An open modal is shown alone (seed 001 A.4); mode "vision"
appends [Vn] boxes (seed 000 §4.3); mode "pipeline" is the seed 001 §2.4 summary for the task
goal; "full" is the untrimmed page.

The facade (workers/browser/session.py) owns one Perception and points it at the tab it acts
on; the hand (act/) reads it through its narrow context and never reaches inside.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from playwright.async_api import Error, Page

from app.settings import Settings
from workers.agent.errors import ConfigurationError
from workers.agent.protocols import LLM, Observation
from workers.browser.observe import fingerprint as gate
from workers.browser.observe import frames, views
from workers.browser.observe.fingerprint import Fingerprint, FingerprintError, ObservationCache
from workers.browser.observe.observe_pipeline import ObservePipeline
from workers.browser.observe.refs import RefTable
from workers.browser.observe.snapshot import Snapshot, capture
from workers.browser.observe.vision_observer import VisionObserver
from workers.browser.runtime import net_errors
from workers.browser.runtime.regions import NO_REGIONS, HiddenRegions
from workers.browser.runtime.scripts import NAVIGATION_TRIES, navigated_away, settle_navigation

RECENT_VERSIONS = 10  # past snapshots kept to re-find the element of a stale ref


class Perception:
    """Snapshot state of the page the session acts on (`page` follows tab switches)."""

    def __init__(
        self,
        page: Page,
        settings: Settings,
        *,
        max_tokens: int | None = None,
        llm: LLM | None = None,
        goal: str | None = None,
    ) -> None:
        self.page = page
        self.settings = settings
        self.max_tokens = max_tokens if max_tokens is not None else settings.snapshot_max_tokens
        self.goal = goal  # the task instruction: what mode "pipeline" summarises the page for
        self.hidden_regions: HiddenRegions = NO_REGIONS  # the task's private regions
        self.version = 0
        self.last: Snapshot | None = None
        self.refs: RefTable | None = None  # None before the first snapshot, after navigation
        self.navigated = False  # the main frame navigated since the last snapshot
        self.snap_fp: Fingerprint | None = None  # page fingerprint taken just before `last`
        self.stale_told: int | None = None  # stale snapshot version already explained
        self.good_url = ""  # the last document that loaded (not an error page)
        self.failed_navigation: tuple[str, str] | None = None  # url, why: set by the facade
        self._recent: dict[int, Snapshot] = {}
        self._cache: ObservationCache[Observation] = ObservationCache()
        self._vision = VisionObserver(llm, settings) if llm and settings.vision_enabled else None
        self._pipeline = ObservePipeline(llm) if llm else None  # per task: caches summaries
        self._vision_on = False  # the model asked for vision: prefetch after mutating actions

    def recent(self, version: int) -> Snapshot | None:
        """One of the last RECENT_VERSIONS snapshots, by version."""
        return self._recent.get(version)

    def forget_refs(self) -> None:
        """The document changed under the refs (navigation, another tab)."""
        self.refs = None

    def invalidate(self) -> None:
        """Next observe() takes a new snapshot whatever the fingerprint says."""
        self._cache.invalidate()
        self.snap_fp = None

    async def snapshot(
        self, fresh: bool | None = None, main: dict[str, Any] | None = None
    ) -> Snapshot:
        """New version, new refs; older refs become stale and cached observations go.
        `fresh`: the fingerprint just read whether this document was walked before; `main`:
        the main frame's walk of the next version, read with it (`_gated`)."""
        self.version += 1
        self.navigated = False
        self._cache.invalidate()
        self.snap_fp = None
        snap, refs = await self._capture(fresh, main)
        self.last, self.refs = snap, refs
        if not is_error_page(snap.url) and snap.url != "about:blank":
            self.good_url = snap.url
        self._recent = {v: s for v, s in self._recent.items() if v > snap.version - RECENT_VERSIONS}
        self._recent[snap.version] = snap
        return snap

    async def _capture(
        self, fresh: bool | None, main: dict[str, Any] | None = None
    ) -> tuple[Snapshot, RefTable]:
        """The walk of the current document; one replaced mid-walk (a redirect on load) is
        waited out and walked again (runtime/scripts.py)."""
        for attempt in range(NAVIGATION_TRIES):
            try:
                return await capture(
                    self.page,
                    version=self.version,
                    max_tokens=self.max_tokens,
                    hidden=self.hidden_regions,
                    fresh=None if attempt else fresh,
                    main=None if attempt else main,
                )
            except Error as exc:
                if not navigated_away(exc) or attempt == NAVIGATION_TRIES - 1:
                    raise
                await settle_navigation(self.page)
        raise AssertionError("unreachable")

    async def fingerprint(self) -> Fingerprint | None:
        try:
            return await gate.capture(self.page)
        except FingerprintError:
            return None  # mid-navigation: treat as changed

    async def _gated(self) -> tuple[Fingerprint | None, Snapshot]:
        """Nothing to reuse (no gate fingerprint or refs, or a navigation): the fingerprint
        and the main frame's walk in one call (issue 35); an unwalked document is walked
        after its first look, as before."""
        try:
            got = await frames.walk_gated(
                self.page,
                gate.SCRIPT,
                gate.ARG,
                self.version + 1,
                self.hidden_regions.selectors,
            )
        except Error:  # mid-navigation: the two calls of the ordinary path sort it out
            fp = await self.fingerprint()
            return fp, await self.snapshot(fp.fresh if fp is not None else None)
        fp = Fingerprint.from_js(dict(got.fingerprint))
        return fp, await self.snapshot(fp.fresh, got.main)

    def unchanged(self, fp: Fingerprint | None) -> bool:
        """Seed 000 §4.5 gate: the current refs still describe the page."""
        return (
            fp is not None
            and self.snap_fp is not None
            and self.refs is not None
            and not self.navigated
            and not gate.changed(self.snap_fp, fp)
        )

    def _check_mode(self, mode: str) -> None:
        if mode not in views.MODES:
            raise ValueError(f"unknown observation mode {mode!r} ({'|'.join(views.MODES)})")
        if mode == "vision" and self._vision is None:
            raise ConfigurationError(
                "observe(mode='vision') needs settings.vision_enabled and an injected vision LLM"
            )
        if mode == "pipeline" and (self._pipeline is None or self.goal is None):
            raise ConfigurationError(
                "observe(mode='pipeline') needs an injected summarizer LLM and the task goal"
            )

    async def observe(self, mode: str = "compact") -> Observation:
        """Change-gated observation: reuse while the fingerprint holds, else a new version.
        A document replaced while it is being observed (a redirect on load) is waited out
        and observed again."""
        self._check_mode(mode)
        for attempt in range(NAVIGATION_TRIES):
            try:
                return await self._observe_once(mode)
            except Error as exc:
                if not navigated_away(exc) or attempt == NAVIGATION_TRIES - 1:
                    raise
                await settle_navigation(self.page)
                self.invalidate()
        raise AssertionError("unreachable")

    async def _observe_once(self, mode: str) -> Observation:
        started = time.perf_counter()
        settled = (
            await self._vision.settle(self.page.url) if mode == "vision" and self._vision else None
        )
        note = await self._leave_error_page()
        if self.snap_fp is None or self.refs is None or self.navigated:
            fp, snap = await self._gated()  # a new snapshot whatever the fingerprint says
        else:
            # the fingerprint also says whether the document is unwalked, so a new snapshot
            # needs no check of its own before its first look (two round trips, two calls)
            fp = await self.fingerprint()
            unchanged = self.unchanged(fp)
            cached = self._cache.get(mode, fp) if unchanged and fp is not None else None
            if cached is not None:
                stats = {**cached.stats, "reused": True, "observe_ms": _ms(started)}
                return await self._repainted(replace(cached, stats=stats), mode)
            fresh = fp.fresh if fp is not None else None
            reuse = unchanged and self.last is not None
            snap = self.last if reuse and self.last is not None else await self.snapshot(fresh)
        self.snap_fp = fp
        text, extra = await views.render(
            self.page,
            mode,
            snap,
            max_tokens=self.max_tokens,
            vision=self._vision,
            fp=fp,
            settled=settled,
            pipeline=self._pipeline,
            goal=self.goal or "",
        )
        image, shot = await views.som_image(self.page, mode, snap, self.refs, self.settings)
        stats = {**snap.stats, **extra, **shot, "mode": mode, "reused": False}
        stats["observe_ms"] = _ms(started)
        obs = Observation(
            url=snap.url,
            title=snap.title,
            text=f"{note}\n{text}" if note else text,
            version=snap.version,
            refs=int(stats["refs"]),
            interactive=int(stats["interactive"]),
            fingerprint=fp.key if fp is not None else views.text_key(snap),
            tokens=(len(text) + 3) // 4,
            stats=stats,
            image=image,
        )
        if fp is not None:
            self._cache.put(mode, fp, obs)
        self._vision_on = self._vision_on or mode == "vision"
        return obs

    async def _repainted(self, cached: Observation, mode: str) -> Observation:
        """Issue 27 item 7: when the Worker reads images, an unchanged page state still gets
        a new screenshot, so a page its timers move (animation, canvas) is not shown as it
        was steps ago; the refs and text stay the cached ones."""
        if cached.image is None or self.last is None:
            return cached
        image, shot = await views.som_image(self.page, mode, self.last, self.refs, self.settings)
        if image is None or image == cached.image:
            return cached
        return replace(cached, image=image, stats={**cached.stats, **shot, "repainted": True})

    async def _leave_error_page(self) -> str:
        """A navigation the browser refused (the URL policy, a network error) leaves the tab
        on Chromium's error page: go back to the last page that loaded and say what was
        refused, instead of showing the model `chrome-error://chromewebdata/`."""
        if not is_error_page(self.page.url):
            return ""
        url, why = self.failed_navigation or ("the next page", "it failed")
        self.failed_navigation = None
        note = f"[navigation] Opening {url} was refused ({why})"
        if self.good_url and self.good_url != url:
            await self._back_to(self.good_url)
            if not is_error_page(self.page.url):
                note += f"; you are back on {self.good_url}, the last page that loaded"
        self.navigated = True
        self.forget_refs()
        self.invalidate()
        return note + "."

    async def _back_to(self, url: str) -> None:
        try:
            if await self.page.go_back(wait_until="domcontentloaded") is None:
                await self.page.goto(url, wait_until="domcontentloaded")
        except Error:
            return
        await settle_navigation(self.page)

    def after_mutation(self) -> None:
        """A mutating action ran: start the background vision look (seed 000 §4.5 prefetch)."""
        if self._vision is not None and self._vision_on:
            vp = self.page.viewport_size or {
                "width": self.settings.viewport_width,
                "height": self.settings.viewport_height,
            }
            self._vision.schedule(self.page, (float(vp["width"]), float(vp["height"])))

    async def close(self) -> None:
        """Stop a pending background vision look."""
        if self._vision is not None:
            await self._vision.close()


def is_error_page(url: str) -> bool:
    return url.startswith("chrome-error:")


def refusal_reason(failure: str | None) -> str:
    """A navigation's failure as a person would say it (runtime/net_errors.py)."""
    return net_errors.plain(failure)


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)
