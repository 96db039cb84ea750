"""PageSession: the Browser protocol over one Playwright page — the facade of the package.

It wires the three rooms below it and owns nothing they do:
  observe/  Perception (perception.py): snapshots, refs, the change gate, the views
  act/      the tool handlers (handlers.py, the one registry), the click cascade, the
            effect checks (verify.py, settle.py), workflows, files, tabs, dialogs
  runtime/  the pool, contexts, egress, crash watch, profiles, private regions
Handlers get the facade only through their narrow Protocol (act/context.py); nothing below
imports this module. The facade listens to the page (navigations, dialogs, popups, downloads,
console), runs each action's arm-act-settle effect check, and switches tabs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import replace
from typing import Any

from playwright.async_api import (
    ConsoleMessage,
    Dialog,
    Download,
    ElementHandle,
    Error,
    Frame,
    Page,
    Request,
)

from app import metrics
from app.settings import Settings
from workers.adapters.secrets import SecretVault
from workers.agent import textcut
from workers.agent.errors import AgentError, FeedbackError
from workers.agent.protocols import LLM, Action, ActionTarget, Observation, ToolCall, ToolResult
from workers.agent.toolerrors import ToolError
from workers.agent.tools import TOOLS, parse_action
from workers.browser.act import (
    actions,
    files,
    handlers,
    handlers_read,
    popups,
    settle,
    tabs,
    verdicts,
    verify,
)
from workers.browser.act.click import ClickPolicy, Hand
from workers.browser.act.click_memory import ClickMemory, InMemoryClickMemory
from workers.browser.act.dialogs import DialogDesk
from workers.browser.act.handlers import NAV_TIMEOUT_MS
from workers.browser.act.humanize import Humanize
from workers.browser.act.target_info import inspect as inspect_action_target
from workers.browser.observe import frames, rerender
from workers.browser.observe.perception import Perception, refusal_reason
from workers.browser.observe.refs import RefError, RefTable, RefTarget, resolve
from workers.browser.observe.snapshot import Snapshot
from workers.browser.observe.vision import VisionBox
from workers.browser.runtime import net_errors, secret_boxes
from workers.browser.runtime.profile import Artifacts, SessionProfile
from workers.browser.runtime.regions import HiddenRegions, blackout

log = logging.getLogger(__name__)
CONSOLE_KEPT = 50
DOWNLOAD_NOTE_S = 5.0  # a late download is waited for this long before it is named
DOWNLOAD_CLOSE_S = 30.0  # a download still arriving when the task ends is waited for this long
SETTLE_S = 0.3  # longest wait for a late effect when none has shown yet (settle.py first)


class PageSession:
    """One task's page; build with `await PageSession.open(page, settings)`."""

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
        self.secrets = SecretVault()  # the task's secret values (jobs wires the task's own)
        secret_boxes.watch(page.context, self)  # black in every screenshot (secret_boxes.py)
        self.profile = profile or SessionProfile()  # attachments, artifacts dir, scripts
        self.artifacts = Artifacts(self.profile.artifacts_dir)
        self.downloads: list[str] = []  # artifact names of files the page downloaded
        self.downloads_started = 0  # an action that starts a download had an effect
        self._downloads_before = 0
        self._downloads_told = 0  # downloads the model was told of (an action's result, a note)
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
        self._listened: set[int] = set()
        self._watches: dict[int, settle.NetworkWatch] = {}
        self.settings = settings
        # perception: snapshots, refs and the change gate of the page acted on (observe/)
        self.view = Perception(page, settings, max_tokens=max_tokens, llm=llm, goal=goal)
        self.look_llm = llm if llm and settings.vision_enabled else None  # the `look` tool
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
        page.on("requestfailed", self._on_request_failed)
        page.on(
            "pageerror",
            lambda exc: self.console_errors.append(textcut.cut(f"uncaught: {exc}", 300)),
        )

    def _on_request_failed(self, request: Request) -> None:
        """A refused navigation of the tab (perception leads back from its error page)."""
        if request.is_navigation_request() and request.frame == self.page.main_frame:
            self.view.failed_navigation = (request.url, refusal_reason(request.failure))

    def _on_console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self.console_errors.append(textcut.cut(message.text, 300))

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
        self.page = self.view.page = page
        self._listen(page)
        self.view.forget_refs()
        self.view.navigated = True
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
        await self.view.close()
        self.artifacts.discard_private()

    def _on_navigated(self, frame: Frame) -> None:
        if frame == self.page.main_frame:
            self.view.navigated = True

    # the current snapshot, read through the facade (observe/perception.py owns it)
    @property
    def refs(self) -> RefTable | None:
        """Ref table of the current snapshot (None before the first or after navigation)."""
        return self.view.refs

    @property
    def last(self) -> Snapshot | None:
        return self.view.last

    @property
    def version(self) -> int:
        return self.view.version

    @property
    def navigated(self) -> bool:
        return self.view.navigated

    @property
    def max_tokens(self) -> int:
        return self.view.max_tokens

    @max_tokens.setter
    def max_tokens(self, tokens: int) -> None:
        self.view.max_tokens = tokens

    @property
    def hidden_regions(self) -> HiddenRegions:
        return self.view.hidden_regions

    @hidden_regions.setter
    def hidden_regions(self, regions: HiddenRegions) -> None:
        """The task's private regions (runtime/regions.py): out of text and screenshots."""
        self.view.hidden_regions = regions

    def forget_refs(self) -> None:
        self.view.forget_refs()

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
            failed = actions.failure(
                "navigation_failed", f"Could not open {url}: {net_errors.plain(exc.message)}"
            )
            return replace(failed, cause=net_errors.cause(exc.message))
        self.view.forget_refs()
        self.invalidate()
        self.after_mutation()
        shell = await handlers_read.dead_shell(self.page, self.last_status)
        if shell is not None:
            return shell
        return ToolResult(
            success=True, reason=f"Opened {self.page.url}", page_changed=before != url
        )

    async def dismiss_popup(self, role: str, name: str) -> bool:
        """A consent banner earlier runs dismissed, dismissed again (act/popups.py)."""
        return await popups.dismiss(self, role, name)

    async def snapshot(self, fresh: bool | None = None) -> Snapshot:
        """New version, new refs; older refs become stale (perception.py)."""
        return await self.view.snapshot(fresh)

    async def observe(self, mode: str = "compact") -> Observation:
        """Change-gated observation: reuse while the fingerprint holds, else a new version.
        A tab the page opened after the last action was judged is adopted here and named
        (issue 31 item 4), never left for the next action to find."""
        popup = await self._adopt_popup() if self._popups else None
        observation = await self.view.observe(mode)
        notes = [tabs.tab_note(popup)] if popup is not None else []
        if self.downloads_started > self._downloads_told:  # a page script's late download
            notes.append(await self._download_note())
        if not notes:
            return observation
        return replace(observation, text="\n".join([*notes, observation.text]))

    async def _download_note(self) -> str:
        """Issue 31 item 4: a download the page started after the action that caused it was
        judged (a script that prepares the file first) is named at the next look."""
        late = self.downloads_started - self._downloads_told
        self._downloads_told = self.downloads_started
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.settle_downloads(), DOWNLOAD_NOTE_S)
        names = ", ".join(self.downloads[-late:]) or "still being saved"
        return f"[a download started after your last action: {names}; read it with read_download]"

    async def screenshot(self) -> bytes:
        await blackout(self.page, self.hidden_regions)  # a document not snapshotted yet too
        await secret_boxes.paint(self.page)
        return await self.page.screenshot(type="jpeg", quality=70)

    async def inspect_target(self, action: Action) -> ActionTarget | None:
        """What `action` would touch, read-only (target_info.py; the approval rules' facts)."""
        return await inspect_action_target(self, action)

    async def execute(self, action: Action, *, step: bool = True) -> ToolResult:
        """Run one tool; the hand watches for dead clicks and stalling (verify.py);
        `step=False`: a bulk's sub-action, which the stalling count does not see."""
        return self.hand.note(action, await self.run_tool(action), step=step)

    async def run_tool(self, action: Action) -> ToolResult:
        """Validate with the tool's argument model (workers/agent/tools), run its handler."""
        try:
            parsed = parse_action(ToolCall("browser", action.name, dict(action.args)))
        except FeedbackError as exc:
            return actions.failure(exc.error, exc.message)
        handler: handlers.Handler | None = handlers.HANDLERS.get(parsed.name)
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
        except FeedbackError as exc:  # a fixable mistake found inside the tool
            return actions.failure(exc.error, exc.message)
        except AgentError:  # cancel, browser crash, guard: these end the run by design
            raise
        except Exception as exc:  # noqa: BLE001 - a tool's fault is a failure the model sees
            return self._crashed(parsed.name, exc)
        for note in self.rerouted:
            result = actions.note(result, note)
        return result

    def _crashed(self, tool: str, exc: Exception) -> ToolResult:
        """A handler raised (issue 31 item 1): logged with its traceback (the task id rides
        on every log line of the run), counted, and answered as a tool failure, secrets
        masked; the run goes on."""
        log.exception("tool %s raised", tool)
        metrics.tool_crashed(tool, exc)
        text = textcut.cut(str(self.secrets.redact(f"{type(exc).__name__}: {exc}")), 300)
        return actions.failure(ToolError.tool_crashed, f"{tool} failed inside the tool: {text}")

    async def _ref_failure(self, exc: RefError, action: Action) -> ToolResult:
        """Stale/bad ref that could not be re-resolved: a compact refusal (rerender.py)."""
        return await rerender.stale_failure(self.view, exc, action)

    async def element(self, args: Mapping[str, Any]) -> tuple[ElementHandle, RefTarget]:
        if self.view.navigated and self.view.refs is not None:
            self.view.forget_refs()
        try:
            return await resolve(self.view.refs, args.get("ref"))
        except RefError as exc:
            if exc.code != ToolError.stale_ref:
                raise
            found = await rerender.reresolve(self.view, args.get("ref"), self.rerouted)
            if found is None:
                raise
            return found

    def invalidate(self) -> None:
        """Next observe() takes a new snapshot whatever the fingerprint says."""
        self.view.invalidate()

    def after_mutation(self) -> None:
        """A mutating action ran: start the background vision look (seed 000 §4.5 prefetch)."""
        self.view.after_mutation()

    def watch(self) -> settle.NetworkWatch:
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
            self.view.navigated, tuple(self._dialogs), bool(self._popups), downloads
        )

    async def effect(
        self,
        frame: Frame | None,
        el: ElementHandle | None,
        act: Callable[[], Awaitable[Any]],
        wait_s: float,
        mutating: bool = True,
        whole: bool = False,
        armed: Mapping[str, Any] | None = None,
    ) -> verify.Outcome:
        """Arm, act, settle (verify.py, seed 004 F.2.2): what the action changed.
        `frame`, when given, is the element's own frame (a ref's or the snapper's);
        `armed`: the before-state of a session the click's aim started (verify.arm)."""
        watch = self.watch().mark()
        probe = await verify.arm(
            self.page,
            frame or self.page.main_frame,
            el,
            exact=frame is not None,
            counted=lambda: watch.started,
            whole=whole,
            armed=armed,
        )
        self.view.navigated = False
        self._dialogs.clear()
        self._downloads_before = self.downloads_started
        started = time.monotonic()
        await act()
        # settle on evidence (settle.py), then read the effect; a late one is still
        # waited for up to wait_s from the action, as the fixed 0.3 s pause did before
        read = verify.read_end(probe, self._events)  # the first read rides on the last look
        settled = await settle.until_settled(self.page, watch, frame, read=read)
        left = max(0.0, wait_s - (time.monotonic() - started))
        out = await verify.settle(
            probe, min_wait_s=0.0, max_wait_s=left, events=self._events, read=settled.summary
        )
        if not out.effect and out.handled:  # answered, nothing seen: a tab may be coming
            await tabs.late_tab(self._popups)
        elif not out.effect and await tabs.opens_tab(el):  # a link to another tab, no tab yet
            await tabs.late_tab(self._popups, tabs.LATE_LINK_S)
        self._downloads_told = self.downloads_started  # the result names them (report)
        popup = await self._adopt_popup()
        if popup is not None:  # also when it came after the check (issue 31 item 4)
            out = replace(out, popup=True, tab_url=popup)
        if out.url_changed or popup is not None:
            self.view.forget_refs()
        if out.effect and (mutating or out.url_changed):
            self.invalidate()  # the fingerprint may miss class/style-only effects
            self.after_mutation()
        return out

    async def verified(
        self,
        what: str,
        frame: Frame | None,
        act: Callable[[], Awaitable[Any]],
        ghost: bool,
        mutating: bool = True,
        el: ElementHandle | None = None,
        whole: bool = False,
    ) -> ToolResult:
        """Act, then report what changed; a ghost action with no effect fails (seed 002).
        `whole`: the viewport's pixels count as an effect too (keys, pointer moves)."""
        out = await self.effect(frame, el, act, SETTLE_S, mutating, whole)
        if ghost and not out.effect:
            return verdicts.ghost(what, out)
        return verdicts.report(what, out, self.page.url)
