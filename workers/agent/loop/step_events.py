"""What watchers see of a step: the payloads of the `observation` and `action.executed` events."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from workers.agent import textcut
from workers.agent.context.history import TIER, transport_attempts
from workers.agent.protocols import Action, Observation, ToolResult
from workers.agent.tools import redacted_args

PREVIEW_CHARS = 600


def observation_event(step: int, observation: Observation) -> Mapping[str, Any]:
    """Figures and a preview of the page, not the whole snapshot."""
    return {
        "step": step,
        "url": observation.url,
        "title": observation.title,
        "version": observation.version,
        "refs": observation.refs,
        "interactive": observation.interactive,
        "tokens": observation.tokens,
        "fingerprint": observation.fingerprint,
        "stats": dict(observation.stats),
        "preview": textcut.cut(observation.text, PREVIEW_CHARS),
    }


def action_event(
    step: int, action: Action, result: ToolResult, *, replayed: bool = False
) -> Mapping[str, Any]:
    """One executed action with its arguments redacted (secrets never reach the event log);
    `replayed`: taken from a proven route, no model call decided it
    (workers/agent/replay/replay.py);
    `cause` is the raw failure (e.g. Chromium's net:: code) kept for operators; `tried` and
    `tier` the click's transport attempts, which the model is shown only after a fallback."""
    extra = {"replayed": True} if replayed else {}
    event: dict[str, Any] = {
        "step": step,
        "action": action.name,
        "args": dict(redacted_args(action)),
        "success": result.success,
        "reason": result.reason,
        "error": result.error,
        "page_changed": result.page_changed,
        **extra,
    }
    if result.cause:
        event["cause"] = result.cause
    tier = result.data.get(TIER)
    if isinstance(tier, str):  # the click's transport (the model sees it after a fallback)
        event["tier"], event["tried"] = tier, list(transport_attempts(result.tried))
    return event
