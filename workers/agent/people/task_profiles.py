"""Task profiles and per-task rules enforced by the tool layer, not by the model.

Seed 003 §9.3 (specialised agents with least-privilege scopes) and §8.4.3 (action
restriction): a task's `task_profile` decides which tools the Worker is offered, and every
call is checked again before the browser runs it, so a model that asks for a tool it was
not offered (or was talked into one by the page) is refused with `tool_not_allowed`.

- `assistant` (§9.3.1): read-only. Navigate, scroll, read, extract; no click, type, submit,
  no new tabs.
- `research` (§9.3.2): navigate, click, type only into search fields; clicks on elements
  whose text says send / post / delete / buy / submit ... are refused, and Enter only
  submits right after typing into a search field.
- `data_entry` (§9.3.3): fill and submit forms, pinned to its domains (the API pins a task
  without `allowed_domains` to its start URL's host: app/api/schemas.py); no tabs, no
  scripts.
- `general`: every tool (the default).

Seed 004 App. C.5: with `forbid_login` a login form (a visible password field) on the page
ends the task failed with error `login_prohibited`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from app.contracts import ErrorCode, TaskProfile
from workers.agent.errors import GuardViolation
from workers.agent.protocols import (
    Action,
    ActionTarget,
    Browser,
    Observation,
    TargetInspector,
    ToolResult,
)
from workers.agent.toolerrors import ToolError

NOT_ALLOWED = ToolError.tool_not_allowed.value
PASSWORD_SELECTOR = "input[type=password]"


# read, wait and report: what every profile may do
_READ = frozenset(
    {
        "navigate",
        "go_back",
        "go_forward",
        "scroll",
        "scroll_within",
        "wait",
        "wait_for",
        "wait_for_condition",
        "read_text",
        "snapshot",
        "screenshot",
        "dom_search",
        "get_console_errors",
        "get_accessibility_tree",
        "read_canvas",
        "look",
        "detect_captcha",
        "detect_geo_block",
        "read_download",
        "export_pdf",
        "record_fact",
        "bulk",
        "done",
        "more_tools",
    }
)
_RESEARCH = _READ | {"click", "type", "press_key", "hover", "focus", "tabs", "search"}
_DATA_ENTRY = _READ | {
    "click",
    "click_at",
    "type",
    "press_key",
    "hover",
    "focus",
    "select_option",
    "get_dropdown_options",
    "upload_file",
    "handle_dialog",
    "choose_option",
    "fill_form",
    "search",
    "type_at",
}
# None: every tool the registry has (the general profile)
ALLOWED_TOOLS: Mapping[TaskProfile, frozenset[str] | None] = {
    TaskProfile.general: None,
    TaskProfile.assistant: _READ,
    TaskProfile.research: frozenset(_RESEARCH),
    TaskProfile.data_entry: frozenset(_DATA_ENTRY),
}

# seed 003 §9.3.2: "prevented from executing actions on elements containing keywords like
# send, post, or delete"; plus the other ways a click changes state somewhere
_STATE_CHANGING = re.compile(
    r"\b(send|post|publish|submit|comment|reply|delete|remove|buy|purchase|pay|checkout|"
    r"order|transfer|subscribe|unsubscribe|sign ?up|register|log ?in|sign ?in|share|like|"
    r"follow|save|confirm|donate|upload|apply|book|add to cart|place)\b",
    re.IGNORECASE,
)
_SEARCH_WORDS = re.compile(r"\b(search|find|query|look ?up|filter)\b", re.IGNORECASE)
_FIELD_ROLES = frozenset({"textbox", "searchbox", "combobox"})
_LINE = re.compile(r'^\s*\[(?P<ref>[^\]]+)\]\s+(?P<role>[\w-]+)(?:\s+"(?P<name>(?:[^"\\]|\\.)*)")?')


def parse_profile(value: str | None) -> TaskProfile:
    """The profile named on a task ('' or None is `general`); unknown names raise ValueError."""
    return TaskProfile(value or TaskProfile.general.value)


def allowed_tools(profile: str | None) -> frozenset[str] | None:
    """Tool names the profile offers the model; None when it offers every tool."""
    return ALLOWED_TOOLS[parse_profile(profile)]


@dataclass(frozen=True)
class Target:
    """The snapshot line of an action's target element: role and accessible name."""

    role: str = ""
    name: str = ""

    @property
    def is_search_field(self) -> bool:
        if self.role == "searchbox":
            return True
        return self.role in _FIELD_ROLES and bool(_SEARCH_WORDS.search(self.name))


def target_of(action: Action, page_text: str) -> Target:
    ref = action.args.get("ref")
    if ref is None:
        return Target()
    for line in page_text.splitlines():
        match = _LINE.match(line)
        if match and match["ref"] == str(ref):
            return Target(match["role"], match["name"] or line[match.end() :].strip())
    return Target()


def refused(profile: TaskProfile, why: str) -> ToolResult:
    return ToolResult(
        success=False,
        error=NOT_ALLOWED,
        reason=f"refused by the task's {profile.value} profile: {why}",
    )


@dataclass
class ProfileGuard:
    """One per run: checks every call against the task's profile before it runs."""

    profile: TaskProfile = TaskProfile.general
    _searched: bool = field(default=False, repr=False)  # last action typed into a search field

    @classmethod
    def for_task(cls, profile: str | None) -> ProfileGuard:
        return cls(parse_profile(profile))

    async def check_on(self, browser: Browser, action: Action, page_text: str) -> ToolResult | None:
        """`check`, then for research the page's own facts: a click that would submit a
        form other than a search form is refused (seed 003 §9.3.2: no submits elsewhere)."""
        refusal = self.check(action, page_text)
        if refusal is not None or self.profile is not TaskProfile.research:
            return refusal
        if action.name not in ("click", "click_at") or not isinstance(browser, TargetInspector):
            return None
        target = await browser.inspect_target(action)
        if target is not None and target.submits and not _search_form(target):
            return refused(self.profile, "that submits a form other than a search")
        return None

    def check(self, action: Action, page_text: str) -> ToolResult | None:
        """A refusal ToolResult, or None when the action may run."""
        refusal = self._check(action, page_text)
        if refusal is None and self.profile is TaskProfile.research:
            target = target_of(action, page_text)
            self._searched = action.name in ("type", "search") and target.is_search_field
        return refusal

    def _check(self, action: Action, page_text: str) -> ToolResult | None:
        offered = ALLOWED_TOOLS[self.profile]
        if offered is None:
            return None
        if action.name not in offered:
            return refused(self.profile, f"{action.name} is not one of its tools")
        if action.name == "bulk":
            for step in action.args.get("actions", ()):
                inner = self._check(Action(str(step["tool"]), step.get("args", {})), page_text)
                if inner is not None:
                    return inner
            return None
        if self.profile is TaskProfile.research:
            return self._research(action, target_of(action, page_text))
        return None

    def _research(self, action: Action, target: Target) -> ToolResult | None:
        """Seed 003 §9.3.2: type only into search fields; no posting, sending, deleting."""
        if action.name in ("type", "search") and not target.is_search_field:
            what = f'{target.role} "{target.name}"' if target.role else "that element"
            return refused(self.profile, f"it types only into search fields, not {what}")
        changes = _STATE_CHANGING.search(target.name) and not _SEARCH_WORDS.search(target.name)
        if action.name in ("click", "hover", "focus") and changes:
            return refused(self.profile, f'"{target.name}" would change something; it only reads')
        if action.name == "press_key" and _submits(action.args) and not self._searched:
            return refused(self.profile, "Enter submits only right after typing a search")
        return None


def _search_form(target: ActionTarget) -> bool:
    """A search form: role search, a search field, or search words in its action or texts."""
    if target.role == "searchbox" or target.input_type == "search":
        return True
    return bool(_SEARCH_WORDS.search(f"{target.form_action} {target.form_text}"))


def _submits(args: Mapping[str, Any]) -> bool:
    return "enter" in str(args.get("key", "")).lower()


class LoginProhibited(GuardViolation):
    """Seed 004 App. C.5: a login form on the page ends a `forbid_login` task."""

    code = ErrorCode.login_prohibited


async def refuse_login_form(browser: Browser, observation: Observation) -> None:
    """Raise LoginProhibited when the page shows a visible password field."""
    found = await browser.execute(Action("dom_search", {"selector": PASSWORD_SELECTOR}))
    if found.success and found.data.get("hits"):
        raise LoginProhibited(
            f"login_prohibited: a login form (password field) is on {observation.url}"
        )
