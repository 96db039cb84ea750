"""The dead-end cause tags of seed 000 §5.2, from a ToolResult.error value."""

from __future__ import annotations

from collections.abc import Mapping

# ToolResult.error values -> the dead-end cause tags of seed 000 §5.2
CAUSES: Mapping[str, str] = {
    "navigation_failed": "network",
    "http_error": "network",
    "timeout": "network",
    "network": "network",
    "bot_block": "bot_block",
    "captcha": "bot_block",
    "stale_ref": "stale_selector",
    "ref_not_found": "stale_selector",
    "bad_ref": "stale_selector",
    "no_effect": "postcondition_miss",
    "covered": "postcondition_miss",
    "not_clickable": "postcondition_miss",
    "not_visible": "postcondition_miss",
    "disabled": "postcondition_miss",
    "blocked_url": "policy_block",
    "guard_violation": "policy_block",
    "rate_limit": "rate_limit",
    "handoff_timeout": "handoff_timeout",
    "approval_denied": "policy_block",
}


def cause_of(error: str | None) -> str:
    """The §5.2 cause tag for a ToolResult.error value ("generic" when none fits)."""
    return CAUSES.get(error or "", "generic")
