"""Success the service can check: a run that never reached a page cannot succeed.

The model's `done(success=true)` is a claim. `Witness` is an EventSink that passes every
event on and notes what the run actually reached: a navigation (browser `navigate`, the
start page's step-0 open, the search route's `fetch`) that succeeded, or any successful
action that changed the page, or a person approving a request (a challenge handed to them
is solved on the page). A run with a start URL that reached nothing (DNS failure,
connection refused, HTTP 4xx/5xx, a bot wall; see the dead-shell checks of seed 000 §6.5)
ends `failed` with `start_page_unreachable` whatever the model said, with the first
navigation failure as the reason.

What the run saw is gathered for the answer check (workers/agent/judge/answer_check.py):
`SeeingBrowser` notes every observation's text, URL and title and the results of the tools
that read the page (read_text chunks, searches, downloads, the vision model's look, ...);
`SeeingFetcher` notes the search route's pages. Results of tools that echo what the model
wrote (type, fill_form, record_fact, evaluate_script) are never evidence.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from app.contracts import ErrorCode, EventType, TaskStatus
from workers.agent.judge.claims import SeenText
from workers.agent.people.proxy import BrowserProxy
from workers.agent.protocols import (
    Action,
    AgentOutcome,
    Browser,
    EventSink,
    FetchedPage,
    Fetcher,
    Observation,
    ToolResult,
)

NAVIGATIONS = frozenset({"navigate", "fetch"})
HISTORY = frozenset({"go_back", "go_forward"})  # may land on about:blank: reaches nothing
# tools whose result is page (or downloaded file) text, not the model's own words
READING = frozenset(
    {
        "read_text",
        "snapshot",
        "dom_search",
        "get_accessibility_tree",
        "read_canvas",
        "read_download",
        "look",
        "get_dropdown_options",
        "tabs",
    }
)


class Witness:
    """EventSink decorator: forwards to `inner`, remembers whether any page was reached."""

    def __init__(self, inner: EventSink) -> None:
        self.inner = inner
        self.reached = False
        self.first_failure: str | None = None

    async def emit(self, type: str, data: Mapping[str, Any]) -> None:
        if type == EventType.action_executed:
            self._note(data)
        elif type == EventType.approval_resolved and str(data.get("decision")).startswith("approv"):
            self.reached = True  # a person cleared the page (e.g. solved a challenge)
        await self.inner.emit(type, data)

    async def save_screenshot(self, step: int, jpeg: bytes) -> None:
        await self.inner.save_screenshot(step, jpeg)

    async def cancel_requested(self) -> bool:
        return await self.inner.cancel_requested()

    def _note(self, data: Mapping[str, Any]) -> None:
        action = str(data.get("action", ""))
        if data.get("success"):
            if action in NAVIGATIONS or (data.get("page_changed") and action not in HISTORY):
                self.reached = True
        elif action in NAVIGATIONS and self.first_failure is None:
            url = (data.get("args") or {}).get("url", "")
            why = data.get("reason") or data.get("error") or "failed"
            self.first_failure = f"{url}: {why}" if url else str(why)

    def judge(self, outcome: AgentOutcome, start_url: str | None) -> AgentOutcome:
        """`outcome`, or a failure when it claims success without ever reaching a page."""
        if not outcome.success or not start_url or self.reached:
            return outcome
        why = self.first_failure or "no page was opened"
        return replace(
            outcome,
            success=False,
            status=TaskStatus.failed.value,
            error=ErrorCode.start_page_unreachable.value,
            reason=f"the start page never loaded ({why}); the model's success claim was "
            "not accepted",
        )


def result_texts(value: Any) -> list[str]:
    """The strings inside a tool result's data (numbers there are offsets and counts)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [t for v in value.values() for t in result_texts(v)]
    if isinstance(value, list | tuple):
        return [t for v in value for t in result_texts(v)]
    return []


class SeeingBrowser(BrowserProxy):
    """Browser protocol over another Browser, noting what the run saw in `seen`."""

    def __init__(self, inner: Browser, seen: SeenText) -> None:
        super().__init__(inner)
        self.seen = seen

    async def observe(self, mode: str = "compact") -> Observation:
        observation = await self.inner.observe(mode)
        self.seen.add(f"{observation.url}\n{observation.title}\n{observation.text}")
        return observation

    async def execute(self, action: Action) -> ToolResult:
        result = await self.inner.execute(action)
        if action.name in READING and result.success:
            self.seen.add("\n".join([result.reason, *result_texts(result.data)]))
        elif action.name == "bulk" and result.data.get("reads"):  # issue 31 item 4
            self.seen.add(str(result.data["reads"]))  # its reads' results, never its echoes
        return result


class SeeingFetcher:
    """Fetcher over another Fetcher, noting each page the search route read."""

    def __init__(self, inner: Fetcher, seen: SeenText) -> None:
        self.inner, self.seen = inner, seen

    async def fetch(self, url: str) -> FetchedPage:
        page = await self.inner.fetch(url)
        if page.error is None:
            self.seen.add(f"{page.url}\n{page.title}\n{page.text}")
        return page
