"""The Worker's tools: argument models (args.py, args_read.py, args_workflows.py), names and
aliases (names.py), generated schemas (schema.py) and the one registry table (registry.py).
Public names are re-exported here for the loop and history."""

from workers.agent.tools.args import REF_HINT, normalize_key, normalize_ref
from workers.agent.tools.names import ALIASES, ToolName, resolve_alias
from workers.agent.tools.registry import (
    DONE,
    MAX_ACTIONS_PER_STEP,
    PARSE_ERROR_KEY,
    RAW_ARGUMENTS_KEY,
    TOOLS,
    WORKER_TOOLS,
    ToolSpec,
    is_page_changing,
    parse_action,
    redacted_args,
    worker_tools,
)

__all__ = [
    "ALIASES",
    "DONE",
    "MAX_ACTIONS_PER_STEP",
    "PARSE_ERROR_KEY",
    "RAW_ARGUMENTS_KEY",
    "REF_HINT",
    "TOOLS",
    "WORKER_TOOLS",
    "ToolName",
    "ToolSpec",
    "is_page_changing",
    "normalize_key",
    "normalize_ref",
    "parse_action",
    "redacted_args",
    "resolve_alias",
    "worker_tools",
]
