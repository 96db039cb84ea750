"""A Browser over another Browser: every call and attribute goes to the inner one.

Wrappers that act on some calls (supervision, the answer check's evidence) subclass it and
override only those; anything else (inspect_target, downloads, ...) reaches the inner
browser unchanged.
"""

from __future__ import annotations

from typing import Any

from workers.agent.protocols import Action, Browser, Observation, ToolResult


class BrowserProxy:
    """Browser protocol forwarding to `inner`; attributes it lacks are the inner one's."""

    def __init__(self, inner: Browser) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    @property
    def url(self) -> str:
        return self.inner.url

    async def goto(self, url: str) -> ToolResult:
        return await self.inner.goto(url)

    async def observe(self, mode: str = "compact") -> Observation:
        return await self.inner.observe(mode)

    async def execute(self, action: Action) -> ToolResult:
        return await self.inner.execute(action)

    async def screenshot(self) -> bytes:
        return await self.inner.screenshot()
