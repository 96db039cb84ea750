"""The Worker's tools: OpenAI function schemas and parsing of tool calls into Actions.

Refs are versioned "v:n" strings (seed 003 §5.1.1). Validation failures become FeedbackErrors
whose message goes back to the model instead of ending the run (seed 003 §5.4).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from workers.agent.errors import FeedbackError
from workers.agent.protocols import Action, ToolCall

# Keys an LLM client puts in ToolCall.arguments when the model's JSON did not parse.
PARSE_ERROR_KEY = "__parse_error__"
RAW_ARGUMENTS_KEY = "__raw_arguments__"

DONE = "done"
PAGE_CHANGING = frozenset({"navigate", "go_back"})
MAX_ACTIONS_PER_STEP = 5  # seed 000 §4.1: at most five actions before re-evaluation

_REF_RE = re.compile(r"^\d+:\d+$")
REF_HINT = "refs look like '3:12' (snapshot version, colon, element number) as shown in brackets"


def normalize_ref(value: Any) -> str:
    """Accept '3:12' and the bracketed '[3:12]' a model may copy from the snapshot."""
    if not isinstance(value, str):
        raise ValueError(f"ref must be a string; {REF_HINT}")
    ref = value.strip().removeprefix("ref=").strip("[] ")
    if not _REF_RE.match(ref):
        raise ValueError(f"invalid ref {value!r}; {REF_HINT}")
    return ref


class _Args(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


def _scalar_text(value: Any) -> Any:
    """Models send numbers for text fields (a quantity, a year): accept them as their text."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return value


class _RefArgs(_Args):
    ref: str

    @field_validator("ref", mode="before")
    @classmethod
    def _ref(cls, value: Any) -> str:
        return normalize_ref(value)


class ClickArgs(_RefArgs):
    pass


class HoverArgs(_RefArgs):
    pass


class TypeArgs(_RefArgs):
    text: str
    submit: bool = False
    clear: bool = True
    secret: bool = False

    @field_validator("text", mode="before")
    @classmethod
    def _text(cls, value: Any) -> Any:
        return _scalar_text(value)


class SelectOptionArgs(_RefArgs):
    values: list[str] = Field(min_length=1)

    @field_validator("values", mode="before")
    @classmethod
    def _values(cls, value: Any) -> Any:
        """One option is often sent bare ("Blue" or 3) instead of as a one-element list."""
        items = value if isinstance(value, list | tuple) else [value]
        return [_scalar_text(v) for v in items]


_KEY_NAMES = {
    name.lower(): name
    for name in (
        *("Enter", "Tab", "Escape", "Backspace", "Delete", "Insert", "Home", "End"),
        *("PageUp", "PageDown", "Space", "ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight"),
        *("Shift", "Control", "Alt", "Meta", "ControlOrMeta"),
        *(f"F{n}" for n in range(1, 13)),
    )
}
_KEY_ALIASES = {
    "return": "Enter",
    "esc": "Escape",
    "del": "Delete",
    "ctrl": "Control",
    "cmd": "Meta",
    "command": "Meta",
    "option": "Alt",
    "up": "ArrowUp",
    "down": "ArrowDown",
    "left": "ArrowLeft",
    "right": "ArrowRight",
    "pgup": "PageUp",
    "pgdn": "PageDown",
}


def normalize_key(value: str) -> str:
    """'enter', 'ctrl+a', 'ESC' -> Playwright's 'Enter', 'Control+a', 'Escape' (it is
    case-sensitive and rejects unknown names); single characters pass unchanged."""
    if len(value) == 1:
        return value
    parts = value.strip().split("+") if value.strip() != "+" else ["+"]
    named = []
    for part in parts:
        word = part.strip()
        low = word.lower()
        named.append(_KEY_NAMES.get(low) or _KEY_ALIASES.get(low) or word)
    return "+".join(named)


class PressKeyArgs(_Args):
    key: str = Field(min_length=1, max_length=40)

    @field_validator("key")
    @classmethod
    def _key(cls, value: str) -> str:
        return normalize_key(value)


class ScrollArgs(_Args):
    direction: Literal["up", "down"]
    ref: str | None = None

    @field_validator("ref", mode="before")
    @classmethod
    def _ref(cls, value: Any) -> str | None:
        return None if value in (None, "") else normalize_ref(value)


class NavigateArgs(_Args):
    url: str = Field(min_length=1)

    @field_validator("url")
    @classmethod
    def _scheme(cls, value: str) -> str:
        if not re.match(r"^https?://", value.strip()):
            raise ValueError("url must start with http:// or https://")
        return value.strip()


class GoBackArgs(_Args):
    pass


def _ref_index(value: Any) -> int:
    """Trim markers name plain indices ('[refs 120-480 trimmed: ...]'); '3:120' also works."""
    text = str(value).strip().strip("[] ")
    if isinstance(value, bool) or not re.match(r"^(\d+:)?\d+$", text):
        raise ValueError("use the numbers from a '[refs 120-480 trimmed: ...]' marker")
    return int(text.rsplit(":", 1)[-1])


class SnapshotArgs(_Args):
    start: int
    end: int

    @field_validator("start", "end", mode="before")
    @classmethod
    def _index(cls, value: Any) -> int:
        return _ref_index(value)

    @model_validator(mode="after")
    def _order(self) -> SnapshotArgs:
        if self.end < self.start:
            raise ValueError("end must not be smaller than start")
        return self


class DoneArgs(_Args):
    answer: str
    success: bool

    @field_validator("answer", mode="before")
    @classmethod
    def _answer(cls, value: Any) -> Any:
        return _scalar_text(value)


ARG_MODELS: dict[str, type[_Args]] = {
    "click": ClickArgs,
    "type": TypeArgs,
    "select_option": SelectOptionArgs,
    "press_key": PressKeyArgs,
    "hover": HoverArgs,
    "scroll": ScrollArgs,
    "navigate": NavigateArgs,
    "go_back": GoBackArgs,
    "snapshot": SnapshotArgs,
    DONE: DoneArgs,
}

_REF = {"type": "string", "description": "Element ref from the snapshot, e.g. '3:12'."}


def _tool(name: str, description: str, props: dict[str, Any], required: list[str]) -> dict:
    params = {"type": "object", "properties": props, "required": required}
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": params},
    }


WORKER_TOOLS: tuple[dict[str, Any], ...] = (
    _tool("click", "Click an element.", {"ref": _REF}, ["ref"]),
    _tool(
        "type",
        "Type text into an input or textbox.",
        {
            "ref": _REF,
            "text": {"type": "string"},
            "submit": {"type": "boolean", "description": "Press Enter afterwards."},
            "clear": {"type": "boolean", "description": "Clear existing text first (default)."},
            "secret": {"type": "boolean", "description": "Passwords: never echo the text."},
        },
        ["ref", "text"],
    ),
    _tool(
        "select_option",
        "Choose option(s) of a select/listbox by their visible labels.",
        {"ref": _REF, "values": {"type": "array", "items": {"type": "string"}, "minItems": 1}},
        ["ref", "values"],
    ),
    _tool(
        "press_key",
        "Press a key or chord on the focused element, e.g. 'Enter', 'Tab', 'Control+A'.",
        {"key": {"type": "string"}},
        ["key"],
    ),
    _tool("hover", "Move the pointer over an element (menus, tooltips).", {"ref": _REF}, ["ref"]),
    _tool(
        "scroll",
        "Scroll the page, or the scrollable element `ref`, by about one screen.",
        {"direction": {"type": "string", "enum": ["up", "down"]}, "ref": _REF},
        ["direction"],
    ),
    _tool("navigate", "Load a URL.", {"url": {"type": "string"}}, ["url"]),
    _tool("go_back", "Go back to the previous page.", {}, []),
    _tool(
        "snapshot",
        "Show a trimmed part of the page: the numbers of a '[refs 120-480 trimmed: ...]' marker.",
        {"start": {"type": "integer"}, "end": {"type": "integer"}},
        ["start", "end"],
    ),
    _tool(
        DONE,
        "Finish the task: the final answer, and whether the task was accomplished.",
        {"answer": {"type": "string"}, "success": {"type": "boolean"}},
        ["answer", "success"],
    ),
)


def _describe(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        message = str(err["msg"]).removeprefix("Value error, ")
        parts.append(f"{where}: {message}")
    return "; ".join(parts)


def parse_action(call: ToolCall) -> Action:
    """Validate one tool call; a FeedbackError's message tells the model how to fix it."""
    model = ARG_MODELS.get(call.name)
    if model is None:
        known = ", ".join(ARG_MODELS)
        raise FeedbackError(f"unknown tool {call.name!r}; available tools: {known}")
    if PARSE_ERROR_KEY in call.arguments:
        raise FeedbackError(
            f"{call.name}: arguments are not valid JSON ({call.arguments[PARSE_ERROR_KEY]});"
            " send a JSON object"
        )
    try:
        args = model.model_validate(dict(call.arguments))
    except ValidationError as exc:
        raise FeedbackError(f"{call.name}: {_describe(exc)}") from exc
    return Action(call.name, args.model_dump(exclude_none=True))


def redacted_args(action: Action) -> Mapping[str, Any]:
    """Arguments safe to put in events and history: secret text never leaves the worker."""
    if action.name == "type" and action.args.get("secret"):
        return {**action.args, "text": "***"}
    return action.args


def is_page_changing(action: Action) -> bool:
    return action.name in PAGE_CHANGING
