"""PageSession: the Browser protocol over one Playwright page (observe, act, screenshot).

observe() is change-gated (seed 000 §4.5): a cheap fingerprint first; an unchanged page gets
the last observation back (same version, refs still valid), a changed one a new snapshot
version. Actions name elements by `v:n` refs of the current version only (seed 003 §5.1.1);
a stale ref fails safely with a fresh snapshot and the element's new refs (seed 003 §5.4).
An open modal is shown alone (seed 001 A.4); mode "vision" appends [Vn] boxes (seed 000 §4.3);
mode "pipeline" is the seed 001 §2.4 summary for the task goal; "full" is the untrimmed page.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import Any

from playwright.async_api import ConsoleMessage, Dialog, Download, ElementHandle, Error, Frame, Page

from app.settings import Settings
from workers.adapters.secrets import SecretVault
from workers.agent.errors import ConfigurationError, FeedbackError
from workers.agent.protocols import LLM, Action, ActionTarget, Observation, ToolCall, ToolResult
from workers.agent.toolerrors import ToolError
from workers.agent.tools import TOOLS, parse_action
from workers.browser import (
    actions,
    files,
    frames,
    handlers,
    handlers_read,
    rerender,
    settle,
    verify,
    views,
)
from workers.browser import fingerprint as gate
from workers.browser.click import ClickPolicy, Hand
from workers.browser.click_memory import ClickMemory, InMemoryClickMemory
from workers.browser.dialogs import DialogDesk
from workers.browser.fingerprint import Fingerprint, FingerprintError, ObservationCache
from workers.browser.handlers import NAV_TIMEOUT_MS
from workers.browser.humanize import Humanize
from workers.browser.observe_pipeline import ObservePipeline
from workers.browser.profile import Artifacts, SessionProfile
from workers.browser.refs import RefError, RefTable, RefTarget, resolve
from workers.browser.regions import NO_REGIONS, HiddenRegions, blackout
from workers.browser.snapshot import Snapshot, capture
from workers.browser.target_info import inspect as inspect_action_target
from workers.browser.vision import VisionBox
from workers.browser.vision_observer import VisionObserver

CONSOLE_KEPT = 50
RECENT_VERSIONS = 10  # past snapshots kept to re-find the element of a stale ref
DOWNLOAD_CLOSE_S = 30.0  # a download still arriving when the task ends is waited for this long
SETTLE_S = 0.3  # longest wait for a late effect when none has shown yet (settle.py first)


POPUP_CLICK_MS = 2000  # a learned consent button that does not take a click is left alone


class PageSession:
    """One task's page; build with `await PageSession.open(page, settings)`."""

    hidden_regions: HiddenRegions = NO_REGIONS  # the task's private regions (regions.py)

    def __init__(
        self,
        page: Page,
        settings: Settings,
        *,
        max_tokens: int | None = None,
        llm: LLM | None = None,
        goal: str | None = None,
        click_memory: ClickMemory | None = None,
        profile: SessionProfile | None = None,
    ) -> None:
        self.page = page
        self.secrets = (
            SecretVault()
        )  # the task's secret values (workers/adapters/secrets.py; jobs wires)
        self.profile = profile or SessionProfile()  # attachments, artifacts dir, scripts
        self.artifacts = Artifacts(self.profile.artifacts_dir)
        self.downloads: list[str] = []  # artifact names of files the page downloaded
        self.downloads_started = 0  # an action that starts a download had an effect
        self._downloads_before = 0
        self._saving: set[asyncio.Task[None]] = set()
        # stores a kept download / printed PDF as a task artifact (wired by workers/jobs.py)
        self.keep_file: Callable[[str, str, bytes], Awaitable[None]] | None = None
        self.facts: dict[str, str] = {}  # record_fact
        self.console_errors: deque[str] = deque(maxlen=CONSOLE_KEPT)
        self.held_keys: list[str] = []  # press_key action "down" until "up"
        self.dialogs = DialogDesk()
        self.vision_boxes: tuple[VisionBox, ...] = ()  # [Vn] boxes click_at(index) uses
        self.last_status: int | None = None  # HTTP status of the last goto
        self.rerouted: list[str] = []  # stale refs re-resolved during the current tool
        self.stale_told: int | None = None  # stale snapshot version already explained
        self._listened: set[int] = set()
        self._watches: dict[int, settle.NetworkWatch] = {}
        self.goal = goal  # the task instruction: what mode "pipeline" summarises the page for
        self.settings = settings
        self.max_tokens = max_tokens if max_tokens is not None else settings.snapshot_max_tokens
        self.version = 0
        self.last: Snapshot | None = None
        self._recent: dict[int, Snapshot] = {}  # a few past versions, to re-find stale refs
        self._refs: RefTable | None = None
        self._navigated = False
        self._cache: ObservationCache[Observation] = ObservationCache()
        self._snap_fp: Fingerprint | None = None  # page fingerprint taken just before `last`
        self._vision = VisionObserver(llm, settings) if llm and settings.vision_enabled else None
        self._pipeline = ObservePipeline(llm) if llm else None  # per task: caches summaries
        self.look_llm = llm if llm and settings.vision_enabled else None  # the `look` tool
        self._vision_on = False  # the model asked for vision: prefetch after mutating actions
        self._dialogs = self.dialogs.shown  # JS dialogs shown since the current action started
        self._popups: list[Page] = []  # tabs/windows the page opened, adopted after an action
        humane = Humanize(settings.humanize, settings.humanize_typos)
        policy = ClickPolicy(humane, allow_untrusted=settings.click_allow_untrusted)
        self.hand = Hand(policy, click_memory or InMemoryClickMemory())  # click.py cascade
        self._listen(page)

    def _listen(self, page: Page) -> None:
        if id(page) in self._listened:
            return
        self._listened.add(id(page))
        # requests of the page, counted from each action's start (kept for the page's life)
        self._watches[id(page)] = settle.NetworkWatch(page).start()
        page.on("framenavigated", self._on_navigated)
        page.on("dialog", self._on_dialog)
        page.on("popup", self._on_popup)
        page.on("download", self._on_download)
        page.on("console", self._on_console)
        page.on("pageerror", lambda exc: self.console_errors.append(f"uncaught: {exc}"[:300]))

    def _on_console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.console_errors.append(message.text[:300])

    def _on_download(self, download: Download) -> None:
        self.downloads_started += 1
        task = asyncio.get_running_loop().create_task(files.keep_download(self, download))
        self._saving.add(task)
        task.add_done_callback(self._saving.discard)

    async def settle_downloads(self) -> None:
        """Wait for downloads still being saved into the artifact directory."""
        if self._saving:
            await asyncio.gather(*list(self._saving), return_exceptions=True)

    def switch_to(self, page: Page) -> None:
        """Act on another tab from now on (tabs tool); its refs come with the next look."""
        if page is self.page:
            return
        self.page = page
        self._listen(page)
        self._refs = None
        self._navigated = True
        self.invalidate()

    def _on_popup(self, popup: Page) -> None:
        self._popups.append(popup)

    async def _on_dialog(self, dialog: Dialog) -> None:
        """The model's handle_dialog decision, else accept (dialogs.py): unhandled,
        Playwright dismisses them silently, so a needed confirm() could never get OK."""
        await self.dialogs.answer(dialog)

    async def _adopt_popup(self) -> str | None:
        """A click opened a new tab: continue there (the agent would be lost otherwise)."""
        opened = [p for p in self._popups if not p.is_closed()]
        self._popups.clear()
        if not opened:
            return None
        popup = opened[-1]
        with contextlib.suppress(Error):
            await popup.wait_for_load_state("domcontentloaded", timeout=NAV_TIMEOUT_MS)
        self.switch_to(popup)
        return popup.url

    @classmethod
    async def open(cls, page: Page, settings: Settings, **kw: Any) -> PageSession:
        """Install the init script (closed shadow roots, click listeners) before browsing.
        Pass `llm=` (role "vision") with settings.vision_enabled for observe(mode="vision"),
        `llm=` (role "summarizer") and `goal=` for observe(mode="pipeline")."""
        await frames.install(page)
        await frames.install(page.context)  # popups the page opens get the hooks too
        await verify.install(page.context)  # effect tracker in every frame (verify.py)
        return cls(page, settings, **kw)

    async def close(self) -> None:
        """Stop a pending background vision look (the page itself belongs to the pool) and
        finish saving downloads (for at most DOWNLOAD_CLOSE_S), so a run that ends right after
        one still keeps the file."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.settle_downloads(), DOWNLOAD_CLOSE_S)
        if self._vision is not None:
            await self._vision.close()

    def _on_navigated(self, frame: Frame) -> None:
        if frame == self.page.main_frame:
            self._navigated = True

    @property
    def refs(self) -> RefTable | None:
        """Ref table of the current snapshot (None before the first or after navigation)."""
        return self._refs

    @property
    def url(self) -> str:
        return self.page.url

    async def goto(self, url: str) -> ToolResult:
        before = self.page.url
        try:
            response = await self.page.goto(
                url, wait_until="domcontentloaded", timeout=NAV_TIMEOUT_MS
            )
            self.last_status = response.status if response is not None else None
        except Error as exc:
            return actions.failure("navigation_failed", f"Could not open {url}: {exc.message}")
        self._refs = None
        self.invalidate()
        self._after_mutation()
        shell = await handlers_read.dead_shell(self.page, self.last_status)
        if shell is not None:
            return shell
        return ToolResult(
            success=True, reason=f"Opened {self.page.url}", page_changed=before != url
        )

    async def dismiss_popup(self, role: str, name: str) -> bool:
        """Click the one visible element with this role and exact accessible name, if the
        page shows it (a consent banner earlier runs dismissed, issue 21); True if clicked."""
        try:
            target = self.page.get_by_role(role, name=name, exact=True)  # type: ignore[arg-type]
            if await target.count() != 1 or not await target.is_visible():
                return False
            await target.click(timeout=POPUP_CLICK_MS)
        except Error:
            return False
        self.invalidate()
        self._after_mutation()
        return True

    async def snapshot(self, fresh: bool | None = None) -> Snapshot:
        """New version, new refs; older refs become stale and cached observations go.
        `fresh`: the fingerprint just read whether this document was walked before."""
        self.version += 1
        self._navigated = False
        self._cache.invalidate()
        self._snap_fp = None
        snap, refs = await capture(
            self.page,
            version=self.version,
            max_tokens=self.max_tokens,
            hidden=self.hidden_regions,
            fresh=fresh,
        )
        self.last, self._refs = snap, refs
        self._recent = {v: s for v, s in self._recent.items() if v > snap.version - RECENT_VERSIONS}
        self._recent[snap.version] = snap
        return snap

    async def _fingerprint(self) -> Fingerprint | None:
        try:
            return await gate.capture(self.page)
        except FingerprintError:
            return None  # mid-navigation: treat as changed

    def _unchanged(self, fp: Fingerprint | None) -> bool:
        """Seed 000 §4.5 gate: the current refs still describe the page."""
        return (
            fp is not None
            and self._snap_fp is not None
            and self._refs is not None
            and not self._navigated
            and not gate.changed(self._snap_fp, fp)
        )

    async def observe(self, mode: str = "compact") -> Observation:
        """Change-gated observation: reuse while the fingerprint holds, else a new version."""
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
        started = time.perf_counter()
        settled = (
            await self._vision.settle(self.page.url) if mode == "vision" and self._vision else None
        )
        # the fingerprint also says whether the document is unwalked, so a new snapshot
        # needs no check of its own before its first look (two round trips, two calls)
        fp = await self._fingerprint()
        unchanged = self._unchanged(fp)
        cached = self._cache.get(mode, fp) if unchanged and fp is not None else None
        if cached is not None:
            stats = {**cached.stats, "reused": True, "observe_ms": _ms(started)}
            return replace(cached, stats=stats)
        fresh = fp.fresh if fp is not None else None
        snap = self.last if unchanged and self.last is not None else await self.snapshot(fresh)
        self._snap_fp = fp
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
        image, shot = await views.som_image(self.page, mode, snap, self._refs, self.settings)
        stats = {**snap.stats, **extra, **shot, "mode": mode, "reused": False}
        stats["observe_ms"] = _ms(started)
        obs = Observation(
            url=snap.url,
            title=snap.title,
            text=text,
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

    async def screenshot(self) -> bytes:
        await blackout(self.page, self.hidden_regions)  # a document not snapshotted yet too
        return await self.page.screenshot(type="jpeg", quality=70)

    async def inspect_target(self, action: Action) -> ActionTarget | None:
        """What `action` would touch, read-only (target_info.py; the approval rules' facts)."""
        return await inspect_action_target(self, action)

    async def execute(self, action: Action) -> ToolResult:
        """Run one tool; the hand watches for dead clicks and stalling (verify.py)."""
        return self.hand.note(action, await self._execute(action))

    async def _execute(self, action: Action) -> ToolResult:
        """Validate with the tool's argument model (workers/agent/tools), run its handler."""
        try:
            parsed = parse_action(ToolCall("browser", action.name, dict(action.args)))
        except FeedbackError as exc:
            return actions.failure(exc.error, exc.message)
        handler = handlers.HANDLERS.get(parsed.name)
        if handler is None:
            return actions.failure(
                ToolError.unknown_tool,
                f"No browser tool named {action.name!r}.",
                *sorted(handlers.HANDLERS),
            )
        self.rerouted.clear()
        try:
            result = await handler(self, TOOLS[parsed.name].args.model_validate(parsed.args))
        except RefError as exc:
            return await self._ref_failure(exc, parsed)
        except actions.OptionNotFound as exc:
            return actions.failure(ToolError.option_not_found, f"{action.name}: {exc}")
        except Error as exc:
            return actions.explain(exc, action.name)
        for note in self.rerouted:
            result = actions.note(result, note)
        return result

    async def _ref_failure(self, exc: RefError, action: Action) -> ToolResult:
        """Stale/bad ref that could not be re-resolved: a compact refusal (rerender.py)."""
        return await rerender.stale_failure(self, exc, action)

    async def _element(self, args: dict[str, Any]) -> tuple[Any, RefTarget]:
        if self._navigated and self._refs is not None:
            self._refs = None
        try:
            return await resolve(self._refs, args.get("ref"))
        except RefError as exc:
            if exc.code != ToolError.stale_ref:
                raise
            found = await rerender.reresolve(self, args.get("ref"))
            if found is None:
                raise
            return found

    def invalidate(self) -> None:
        """Next observe() takes a new snapshot whatever the fingerprint says."""
        self._cache.invalidate()
        self._snap_fp = None

    def _after_mutation(self) -> None:
        """A mutating action ran: start the background vision look (seed 000 §4.5 prefetch)."""
        if self._vision is not None and self._vision_on:
            vp = self.page.viewport_size or {
                "width": self.settings.viewport_width,
                "height": self.settings.viewport_height,
            }
            self._vision.schedule(self.page, (float(vp["width"]), float(vp["height"])))

    def _watch(self) -> settle.NetworkWatch:
        watch = self._watches.get(id(self.page))
        if watch is None or watch.page is not self.page:  # an id reused by a new page
            self._listened.discard(id(self.page))
            self._listen(self.page)
            watch = self._watches[id(self.page)]
        return watch

    def _events(self) -> verify.PageEvents:
        """What the page did during the current action (listeners, not the DOM)."""
        downloads = self.downloads_started - self._downloads_before
        return verify.PageEvents(
            self._navigated, tuple(self._dialogs), bool(self._popups), downloads
        )

    async def _effect(
        self,
        frame: Frame | None,
        el: ElementHandle | None,
        act: Callable[[], Awaitable[Any]],
        wait_s: float,
        mutating: bool = True,
    ) -> verify.Outcome:
        """Arm, act, settle (verify.py, seed 004 F.2.2): what the action changed.
        `frame`, when given, is the element's own frame (a ref's or the snapper's)."""
        watch = self._watch().mark()
        probe = await verify.arm(
            self.page,
            frame or self.page.main_frame,
            el,
            exact=frame is not None,
            counted=lambda: watch.started,
        )
        self._navigated = False
        self._dialogs.clear()
        self._downloads_before = self.downloads_started
        started = time.monotonic()
        await act()
        # settle on evidence (settle.py), then read the effect; a late one is still
        # waited for up to wait_s from the action, as the fixed 0.3 s pause did before
        await settle.until_settled(self.page, watch, frame)
        left = max(0.0, wait_s - (time.monotonic() - started))
        out = await verify.settle(probe, min_wait_s=0.0, max_wait_s=left, events=self._events)
        popup = await self._adopt_popup()
        if out.url_changed or popup is not None:
            self._refs = None
        if out.effect and (mutating or out.url_changed):
            self.invalidate()  # the fingerprint may miss class/style-only effects
            self._after_mutation()
        return out

    async def _verified(
        self,
        what: str,
        frame: Frame | None,
        act: Callable[[], Awaitable[Any]],
        ghost: bool,
        mutating: bool = True,
        el: ElementHandle | None = None,
    ) -> ToolResult:
        """Act, then report what changed; a ghost action with no effect fails (seed 002)."""
        out = await self._effect(frame, el, act, SETTLE_S, mutating)
        if ghost and not out.effect:
            return verify.ghost(what, out)
        return verify.report(what, out, self.page.url)


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)
