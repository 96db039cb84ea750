"""Argument models of the Worker's tools: one pydantic model per tool (seed 000 App. A,
seed 003 §5.2), from which the JSON schema the model sees is generated (registry.py).

Refs are versioned "v:n" strings (seed 003 §5.1.1). Validators accept the shapes models
commonly send (a bracketed ref, a number for text, one option bare instead of a list, the
camelCase names of seed 003 §5.2) so a near miss is not a wasted turn.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator
from pydantic.json_schema import SkipJsonSchema
from pydantic_core import PydanticCustomError

from workers.agent.toolerrors import ToolError

REF_HINT = "refs look like '3:12' (snapshot version, colon, element number) as shown in brackets"
_REF_RE = re.compile(r"^\d+:\d+$")
MAX_KEY_REPEAT = 100  # press_key repeat: three sliders by keyboard took 30 presses
MAX_TEXT_FILE_CHARS = 20000  # upload_file's own small text file


def normalize_ref(value: Any) -> str:
    """Accept '3:12' and the bracketed '[3:12]' a model may copy from the snapshot."""
    if not isinstance(value, str):
        raise ValueError(f"ref must be a string; {REF_HINT}")
    ref = value.strip().removeprefix("ref=").strip("[] ")
    if not _REF_RE.match(ref):
        raise ValueError(f"invalid ref {value!r}; {REF_HINT}")
    return ref


def _optional_ref(value: Any) -> str | None:
    return None if value in (None, "") else normalize_ref(value)


def scalar_text(value: Any) -> Any:
    """Models send numbers for text fields (a quantity, a year): accept them as their text."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    return value


def _text_list(value: Any) -> Any:
    """One item is often sent bare ("Blue" or 3) instead of as a one-element list."""
    items = value if isinstance(value, list | tuple) else [value]
    return [scalar_text(v) for v in items]


# refs are explained once, in the system prompt, not in every ref parameter (issue 22)
Ref = Annotated[str, BeforeValidator(normalize_ref)]
OptRef = Annotated[str | None, BeforeValidator(_optional_ref)]
Text = Annotated[str, BeforeValidator(scalar_text)]
TextList = Annotated[list[str], BeforeValidator(_text_list), Field(min_length=1)]


class Args(BaseModel):
    """Base of every tool's arguments: unknown keys are ignored, values are frozen."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _renamed(cls, data: Any) -> Any:
        """camelCase and seed 003 §5.2 spellings (doubleClick, shouldClear) -> field names."""
        if not isinstance(data, dict):
            return data
        renames: dict[str, str] = getattr(cls, "RENAMES", {})
        out = dict(data)
        for alias, name in renames.items():
            if alias in out and name not in out:
                out[name] = out.pop(alias)
        return out


class NoArgs(Args):
    pass


class RefArgs(Args):
    ref: Ref


class NavigateArgs(Args):
    url: str = Field(min_length=1)

    @model_validator(mode="after")
    def _scheme(self) -> NavigateArgs:
        if not re.match(r"^https?://", self.url.strip()):
            # a code of its own (not invalid_tool_call): the browser refuses the same way
            raise PydanticCustomError(
                ToolError.navigation_blocked.value, "url must start with http:// or https://"
            )
        return self.model_copy(update={"url": self.url.strip()})


Button = Literal["left", "right", "middle"]
Modifier = Literal["Shift", "Control", "Alt", "Meta"]


def _modifiers(value: Any) -> Any:
    """'shift', 'ctrl+shift' or ['Ctrl', 'cmd'] -> ['Shift'], ['Control', 'Shift'], ..."""
    if value in (None, ""):
        return []
    items = value.split("+") if isinstance(value, str) else value
    if not isinstance(items, list | tuple):
        return value
    return [normalize_key(str(v).strip()) if len(str(v).strip()) > 1 else v for v in items]


Modifiers = Annotated[list[Modifier], BeforeValidator(_modifiers)]


class ClickArgs(RefArgs):
    RENAMES: ClassVar[dict[str, str]] = {
        "doubleClick": "double",
        "double_click": "double",
        "holdMs": "hold_ms",
        "click_count": "count",
        "clickCount": "count",
    }
    button: Button = "left"
    double: SkipJsonSchema[bool] = False  # an older spelling of count=2, still accepted
    count: int = Field(1, ge=1, le=3)
    hold_ms: int = Field(0, ge=0, le=10000)
    modifiers: Modifiers = []

    @model_validator(mode="before")
    @classmethod
    def _right(cls, data: Any) -> Any:
        if isinstance(data, dict) and (data.get("rightClick") or data.get("right_click")):
            return {**data, "button": "right"}
        return data


class ClickAtArgs(Args):
    RENAMES: ClassVar[dict[str, str]] = {"vision_index": "index"}
    index: int | None = Field(None, ge=0, description="A [Vn] box number.")
    x: float | None = None
    y: float | None = None
    button: Button = "left"
    double: SkipJsonSchema[bool] = False  # an older spelling of count=2, still accepted
    count: int = Field(1, ge=1, le=3)
    modifiers: Modifiers = []

    @model_validator(mode="after")
    def _target(self) -> ClickAtArgs:
        if self.index is None and (self.x is None or self.y is None):
            raise ValueError("give a vision index, or both x and y")
        return self


class TypeAtArgs(ClickAtArgs):
    RENAMES: ClassVar[dict[str, str]] = {"vision_index": "index", "shouldClear": "clear"}
    text: Text
    clear: bool = True
    submit: bool = False


class TypeArgs(RefArgs):
    RENAMES: ClassVar[dict[str, str]] = {"shouldClear": "clear", "should_clear": "clear"}
    text: Text
    submit: bool = False
    clear: bool = True
    secret: bool = Field(False, description="A password: never echoed.")


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


class PressKeyArgs(Args):
    RENAMES: ClassVar[dict[str, str]] = {"count": "repeat", "times": "repeat"}
    key: Annotated[str, Field(min_length=1, max_length=40), BeforeValidator(str)]
    action: Literal["press", "down", "up"] = "press"
    hold_ms: int = Field(0, ge=0, le=10000)
    repeat: int = Field(1, ge=1, le=MAX_KEY_REPEAT)

    @model_validator(mode="after")
    def _key(self) -> PressKeyArgs:
        return self.model_copy(update={"key": normalize_key(self.key)})


class SelectOptionArgs(RefArgs):
    values: TextList


class UploadFileArgs(RefArgs):
    RENAMES: ClassVar[dict[str, str]] = {"filePaths": "files", "paths": "files", "file": "files"}
    files: TextList = Field(description="Task attachments or this run's downloads, by name.")
    text: str | None = Field(
        None, max_length=MAX_TEXT_FILE_CHARS, description="Or: write it to files[0]."
    )

    @model_validator(mode="after")
    def _one_written(self) -> UploadFileArgs:
        if self.text is not None and len(self.files) != 1:
            raise ValueError("with text, give exactly one file name to write it to")
        return self


class DragArgs(Args):
    RENAMES: ClassVar[dict[str, str]] = {"startRef": "ref", "endRef": "to_ref", "target": "to_ref"}
    ref: OptRef = None
    from_x: float | None = None
    from_y: float | None = None
    to_ref: OptRef = None
    x: float | None = None
    y: float | None = None
    dx: float | None = None
    dy: float | None = None
    steps: int = Field(12, ge=1, le=100)

    @model_validator(mode="after")
    def _target(self) -> DragArgs:
        kinds = [
            self.to_ref is not None,
            self.x is not None and self.y is not None,
            self.dx is not None or self.dy is not None,
        ]
        if sum(kinds) != 1:
            raise ValueError("give exactly one target: to_ref, or x and y, or dx/dy")
        if (self.ref is None) == (self.from_x is None or self.from_y is None):
            raise ValueError("give exactly one start: ref, or from_x and from_y")
        return self


def _points(value: Any) -> Any:
    """[[x, y], ...] or [{"x": .., "y": ..}, ...]; one point may come bare."""
    if isinstance(value, dict) or (
        isinstance(value, list | tuple)
        and len(value) == 2
        and not isinstance(value[0], list | dict)
    ):
        value = [value]
    if not isinstance(value, list | tuple):
        return value
    return [(p.get("x"), p.get("y")) if isinstance(p, dict) else p for p in value]


class PointerArgs(Args):
    """The pointer as a primitive (issue 26 item 9): move to a point, or press, move along a
    path and release, with a pause before the release."""

    RENAMES: ClassVar[dict[str, str]] = {"path": "points", "hold_ms": "pause_ms"}
    points: Annotated[
        list[tuple[float, float]], BeforeValidator(_points), Field(min_length=1, max_length=50)
    ] = Field(description="[[x, y], ...] in the viewport.")
    press: bool = False
    release: bool | None = Field(None, description="Default: when pressed.")
    pause_ms: int = Field(0, ge=0, le=10000)
    steps: int = Field(8, ge=1, le=100)

    @model_validator(mode="before")
    @classmethod
    def _one_point(cls, data: Any) -> Any:
        if isinstance(data, dict) and "points" not in data and "path" not in data and "x" in data:
            return {**data, "points": [[data.get("x"), data.get("y")]]}
        return data


Direction = Literal["up", "down", "left", "right"]


class ScrollArgs(Args):
    RENAMES: ClassVar[dict[str, str]] = {"percent": "to_percent", "text": "to_text"}
    direction: Direction = "down"
    ref: OptRef = None
    pixels: int | None = Field(None, ge=1, le=20000)
    to_text: str | None = None
    to_percent: float | None = Field(None, ge=0, le=100)
    to: Literal["top", "bottom"] | None = None


class ScrollWithinArgs(RefArgs):
    direction: Direction = "down"
    pixels: int | None = Field(None, ge=1, le=20000)


class WaitArgs(Args):
    RENAMES: ClassVar[dict[str, str]] = {"time": "seconds"}
    seconds: float = Field(1.0, ge=0, le=10)


class WaitForArgs(Args):
    RENAMES: ClassVar[dict[str, str]] = {"textToWait": "text", "textGone": "text_gone"}
    time: float | None = Field(None, ge=0, le=10, description="Seconds to wait.")
    text: str | None = Field(None, description="Wait until this text appears.")
    text_gone: str | None = Field(None, description="Wait until this text is gone.")
    timeout_s: float = Field(10.0, gt=0, le=30)

    @model_validator(mode="after")
    def _some(self) -> WaitForArgs:
        if self.time is None and not self.text and not self.text_gone:
            raise ValueError("give time, text or text_gone")
        return self


class WaitForConditionArgs(Args):
    selector: str | None = Field(None, description="CSS selector.")
    state: Literal["visible", "hidden", "attached", "detached"] = "visible"
    url_contains: str | None = None
    load_state: Literal["load", "domcontentloaded", "networkidle"] | None = None
    timeout_s: float = Field(10.0, gt=0, le=30)

    @model_validator(mode="after")
    def _some(self) -> WaitForConditionArgs:
        if not (self.selector or self.url_contains or self.load_state):
            raise ValueError("give selector, url_contains or load_state")
        return self


class HandleDialogArgs(Args):
    RENAMES: ClassVar[dict[str, str]] = {"promptText": "prompt_text"}
    accept: bool = True
    prompt_text: str | None = Field(None, description="Answer for a prompt() dialog.")


class TabsArgs(Args):
    RENAMES: ClassVar[dict[str, str]] = {"tabId": "tab_id", "index": "tab_id"}
    action: Literal["list", "open", "switch", "close"] = "list"
    url: str | None = None
    tab_id: int | None = Field(None, ge=0)

    @model_validator(mode="after")
    def _need_id(self) -> TabsArgs:
        if self.action == "switch" and self.tab_id is None:
            raise ValueError("switch needs tab_id (see tabs action 'list')")
        return self


class RecordFactArgs(Args):
    key: str = Field(min_length=1, max_length=80)
    value: Text


class EvaluateScriptArgs(Args):
    script: str = Field(min_length=1, description="A JS function body or expression.")


class DoneArgs(Args):
    answer: Text
    success: bool
    # the result typed by the task's output_schema; only offered then (tools/typed_done.py)
    data: SkipJsonSchema[Any] = None


def _names(value: Any) -> Any:
    return [] if value in (None, "") else _text_list(value)


class MoreToolsArgs(Args):
    RENAMES: ClassVar[dict[str, str]] = {"names": "enable", "tools": "enable"}
    enable: Annotated[list[str], BeforeValidator(_names)] = []
