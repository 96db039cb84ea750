"""Page moves under the guards of workers/agent/people/guards.py, as the loop performs them.

Seed 000 §6.5 (fenced navigations refused, regressions flagged, challenged hops noted) and seed
003 §8.4.2 (never show the model a page outside the allowed domains: lead the tab back).
"""

from __future__ import annotations

from dataclasses import replace

from workers.agent.memory.dead_end_causes import cause_of
from workers.agent.memory.site_memory import SiteMemory
from workers.agent.people.guards import DomainGuard, NavigationGuard, UrlGrammar, same_page
from workers.agent.protocols import Action, AgentTask, Browser, ToolResult

REGRESSION_NOTE = "regression: this page was already visited; repair the current state"


class GuardedNavigation:
    """The browser's page-moving calls with the task's domain and navigation guards."""

    def __init__(self, browser: Browser, task: AgentTask) -> None:
        self.browser = browser
        self.start_url = task.start_url or ""
        self.guard = DomainGuard(task.allowed_domains)
        self.nav_guard = NavigationGuard(task.allowed_domains, task.start_url)
        self.grammar = UrlGrammar(task.start_url, task.instruction)

    def learn(self, site: SiteMemory) -> None:
        """The URL templates earlier runs learned on a domain the run entered."""
        self.grammar.learn(site)

    async def open(self, url: str) -> ToolResult:
        """The start page; a failure to load it is a result for the model, not a fault."""
        result = await self.browser.goto(url)
        self.grammar.reached(self.browser.url)
        self.nav_guard.after_hop(url, challenged=cause_of(result.error) == "bot_block")
        return result

    async def execute(self, action: Action) -> ToolResult:
        """Run one action; a navigate is checked before it runs and noted after."""
        target = str(action.args.get("url", "")) if action.name == "navigate" else ""
        refusal = None
        if target:
            refusal = self.nav_guard.before_navigate(target) or self.grammar.refusal(target)
        if refusal is not None:
            return refusal
        # the page the tab is on, opened again, is a reload the page may have asked for
        here = bool(target) and same_page(target, self.browser.url)
        regression = bool(target) and not here and self.nav_guard.regression(target)
        result = await self.browser.execute(action)
        result = await self.stay_on_allowlist() or result
        self.grammar.reached(self.browser.url)  # a URL the page got to teaches its shape
        if target:
            challenged = cause_of(result.error) == "bot_block"
            self.nav_guard.after_hop(target, challenged=challenged)
        if regression and result.success:
            reason = f"{result.reason} ({REGRESSION_NOTE} instead of restarting)"
            result = replace(result, reason=reason)
        return result

    async def stay_on_allowlist(self) -> ToolResult | None:
        """Lead a tab that left the allowed domains back; the refusal, or None if it stayed."""
        reason = self.guard.check(self.browser.url)
        if reason is None:
            return None
        await self.browser.goto(self.guard.last_allowed)
        return ToolResult(
            success=False,
            error="guard_violation",
            reason=f"navigation blocked: {reason}; returned to {self.guard.last_allowed}",
            page_changed=True,
        )
