"""What a tool handler may touch: narrow contexts, one per kind of handler.

A handler never sees the facade (workers/browser/session.py); it names the Protocol of just
the parts it uses, and the facade, which satisfies them all (`ToolContext`), passes itself.
mypy checks that fit where the facade dispatches through the one tool registry
(act/handlers.py).

    PageContext      the page acted on
    Acting           + resolve a ref, act-and-verify (verify.py, settle.py), invalidate
    InputContext     + the hand (click.py cascade), held keys, secrets, vision boxes
    NavContext       + open a URL, forget the refs after a navigation
    ReadContext      + the current snapshot and what the page logged, facts, artifacts
    LookContext      + the vision model for `look`
    TabContext       + switch the tab acted on
    WorkflowContext  + run one sub-tool (seed 001 §2.5 compound actions)
    FileContext      + downloads and task files
    ToolContext      all of the above, plus `execute` for bulk
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol

from playwright.async_api import ElementHandle, Frame, Page

from app.settings import Settings
from workers.adapters.secrets import SecretVault
from workers.agent.protocols import LLM, Action, Observation, ToolResult
from workers.browser.act.click import Hand
from workers.browser.act.dialogs import DialogContext
from workers.browser.act.settle import NetworkWatch
from workers.browser.act.verify import Outcome
from workers.browser.observe.refs import RefTable, RefTarget
from workers.browser.observe.snapshot import Snapshot
from workers.browser.observe.vision import VisionBox
from workers.browser.runtime.profile import Artifacts, SessionProfile
from workers.browser.runtime.regions import HiddenRegions

Act = Callable[[], Awaitable[Any]]


class PageContext(Protocol):
    page: Page


class Acting(PageContext, Protocol):
    async def element(self, args: Mapping[str, Any]) -> tuple[ElementHandle, RefTarget]:
        """The element a ref names (a stale ref of a re-rendered element is re-found)."""
        ...

    async def verified(
        self,
        what: str,
        frame: Frame | None,
        act: Act,
        ghost: bool,
        mutating: bool = True,
        el: ElementHandle | None = None,
        whole: bool = False,
    ) -> ToolResult:
        """Act, then report what changed; a ghost action with no effect fails (seed 002)."""
        ...

    async def effect(
        self,
        frame: Frame | None,
        el: ElementHandle | None,
        act: Act,
        wait_s: float,
        mutating: bool = True,
        whole: bool = False,
        armed: Mapping[str, Any] | None = None,
    ) -> Outcome:
        """Arm, act, settle: what the action changed (verify.py); `armed`: the before-state
        of a session started already (the click's aim)."""
        ...

    def invalidate(self) -> None:
        """The next observation takes a new snapshot."""
        ...

    def after_mutation(self) -> None:
        """A mutating action ran outside `effect` (prefetch the vision look)."""
        ...


class InputContext(Acting, Protocol):
    hand: Hand
    held_keys: list[str]
    secrets: SecretVault
    vision_boxes: tuple[VisionBox, ...]

    def watch(self) -> NetworkWatch:
        """The current page's request counter (marked per action)."""
        ...


class NavContext(Acting, Protocol):
    async def goto(self, url: str) -> ToolResult: ...

    def forget_refs(self) -> None:
        """The document changed under the refs."""
        ...


class SnapshotView(PageContext, Protocol):
    hidden_regions: HiddenRegions

    @property
    def last(self) -> Snapshot | None: ...

    @property
    def refs(self) -> RefTable | None: ...

    @property
    def navigated(self) -> bool:
        """The main frame navigated since the last snapshot."""
        ...


class ReadContext(Acting, SnapshotView, Protocol):
    secrets: SecretVault
    last_status: int | None
    facts: dict[str, str]
    console_errors: Any  # a bounded deque of strings
    artifacts: Artifacts
    profile: SessionProfile
    look_llm: LLM | None  # `look` is offered only with it (screenshot's result names it then)

    @property
    def max_tokens(self) -> int:
        """The observation's token budget."""
        ...

    async def snapshot(self, fresh: bool | None = None) -> Snapshot: ...

    async def observe(self, mode: str = "compact") -> Observation: ...


class LookContext(Acting, SnapshotView, Protocol):
    settings: Settings
    look_llm: LLM | None


class TargetContext(Acting, SnapshotView, Protocol):
    vision_boxes: tuple[VisionBox, ...]


class TabContext(PageContext, Protocol):
    def switch_to(self, page: Page) -> None: ...

    async def goto(self, url: str) -> ToolResult: ...


class WorkflowContext(Acting, Protocol):
    hand: Hand
    secrets: SecretVault  # a field given `<secret:name>` is typed and checked by `type` alone

    async def run_tool(self, action: Action) -> ToolResult:
        """One sub-tool of a compound action (validated, no dead-click bookkeeping)."""
        ...


class FileContext(Acting, Protocol):
    settings: Settings
    look_llm: LLM | None  # reads a downloaded image (look.read_image)
    profile: SessionProfile
    artifacts: Artifacts
    downloads: list[str]
    keep_file: Callable[[str, str, bytes], Awaitable[None]] | None

    async def settle_downloads(self) -> None: ...


class ToolContext(
    InputContext,
    NavContext,
    ReadContext,
    LookContext,
    TargetContext,
    TabContext,
    WorkflowContext,
    FileContext,
    DialogContext,
    Protocol,
):
    async def execute(self, action: Action, *, step: bool = True) -> ToolResult:
        """One tool with the hand's bookkeeping (bulk runs its steps through it, step=False)."""
        ...
