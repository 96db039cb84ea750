"""Browser doubles: a tiny site of (role, name, target) elements, and one that also inspects
action targets and serves challenge pages.

FakeBrowser renders each page as snapshot lines `[v:n] role "name"`; clicking an element with a
target navigates there. Versions go up on an observe after an action or navigation (the
change gate), and refs from older versions are refused like the real PageSession.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from workers.agent.protocols import Action, ActionTarget, Observation, ToolResult

Page = list[tuple[str, str, str | None]]  # (role, name, target url or None)
_READS = frozenset({"dom_search", "snapshot", "read_text", "screenshot"})  # change nothing


class FakeBrowser:
    def __init__(self, pages: Mapping[str, Page], *, text_extra: str = "") -> None:
        self.pages = dict(pages)
        self.text_extra = text_extra
        self.current = "about:blank"
        self.version = 0
        self.actions: list[Action] = []
        self.screenshots = 0
        self.goto_error: Exception | None = None
        self.fail: dict[str, ToolResult] = {}  # action name -> forced result
        self.hidden_changes = 0  # DOM changes the text does not show (timers): a new version
        self._last: tuple[tuple[str, int, str, int], int] | None = None  # state, version observed

    @property
    def url(self) -> str:
        return self.current

    async def goto(self, url: str) -> ToolResult:
        if self.goto_error is not None:
            raise self.goto_error
        if url not in self.pages:
            return ToolResult(success=False, reason="404", error="navigation_failed")
        self.current = url
        return ToolResult(success=True, page_changed=True)

    async def observe(self, mode: str = "compact") -> Observation:
        # change-gated as the real PageSession: nothing happened since the last observation
        # (no action, no navigation) keeps its version and refs
        acted = sum(1 for a in self.actions if a.name not in _READS)
        state = (self.current, acted, self.text_extra, self.hidden_changes)
        if self._last is None or self._last[0] != state:
            self.version += 1
        self._last = (state, self.version)
        lines = [f'- heading "{self.current}"']
        for i, (role, name, _) in enumerate(self.pages.get(self.current, []), 1):
            lines.append(f'[{self.version}:{i}] {role} "{name}"')
        text = "\n".join(lines) + self.text_extra
        return Observation(self.current, self.current, text, self.version, tokens=len(text) // 4)

    async def execute(self, action: Action) -> ToolResult:
        self.actions.append(action)
        if action.name in self.fail:
            return self.fail[action.name]
        if action.name == "navigate":
            return await self.goto(str(action.args["url"]))
        if action.name == "dom_search" and "password" in str(action.args.get("selector")):
            return self._password_fields()
        if "ref" not in action.args:
            return ToolResult(success=True)
        version, index = (int(x) for x in str(action.args["ref"]).split(":"))
        if version != self.version:
            return ToolResult(success=False, reason="old snapshot", error="stale_ref")
        elements = self.pages.get(self.current, [])
        if not 1 <= index <= len(elements):
            return ToolResult(success=False, reason="no such element", error="bad_ref")
        target = elements[index - 1][2]
        if action.name == "click" and target:
            self.current = target
            return ToolResult(success=True, page_changed=True)
        return ToolResult(success=True)

    def _password_fields(self) -> ToolResult:
        """dom_search for password inputs: elements of role "password" on the page."""
        elements = self.pages.get(self.current, [])
        hits = [{"tag": "input", "text": name} for role, name, _ in elements if role == "password"]
        if not hits:
            return ToolResult(success=False, reason="nothing visible", error="text_not_found")
        return ToolResult(success=True, reason=f"{len(hits)} found", data={"hits": hits})

    async def screenshot(self) -> bytes:
        self.screenshots += 1
        return b"\xff\xd8fake-jpeg\xff\xd9"


class InspectableBrowser(FakeBrowser):
    """FakeBrowser that can say what an action would touch (TargetInspector) and serves
    challenge pages: `targets` maps an element name to its facts (default: its role and
    name), URLs in `challenged` answer with `bot_block` and show an interstitial to
    detect_captcha until removed from the set."""

    def __init__(self, pages: Mapping[str, Page], **kw: Any) -> None:
        super().__init__(pages, **kw)
        self.targets: dict[str, ActionTarget] = {}
        self.challenged: set[str] = set()

    async def inspect_target(self, action: Action) -> ActionTarget | None:
        ref = action.args.get("ref")
        if ref is None:
            return None
        index = int(str(ref).split(":")[1])
        elements = self.pages.get(self.current, [])
        if not 1 <= index <= len(elements):
            return None
        role, name, _ = elements[index - 1]
        found = self.targets.get(name, ActionTarget(role=role, name=name))
        return ActionTarget(**{**found.__dict__, "page_url": self.current})

    async def goto(self, url: str) -> ToolResult:
        result = await super().goto(url)
        if result.success and url in self.challenged:
            why = "Blocked by an anti-bot challenge page: cloudflare_interstitial."
            return ToolResult(False, why, error="bot_block")
        return result

    async def execute(self, action: Action) -> ToolResult:
        if action.name == "detect_captcha":
            self.actions.append(action)
            kinds = ["cloudflare_interstitial"] if self.current in self.challenged else []
            return ToolResult(success=True, data={"detected": bool(kinds), "kinds": kinds})
        return await super().execute(action)
