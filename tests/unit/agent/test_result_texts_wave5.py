"""Result and hint texts name only tools the model can use; pointer paths parse (issue 26
item 12, issue 27 item 3 of the 2026-11-27 relay run)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from workers.agent.toolerrors import HINTS
from workers.agent.tools.args import PointerArgs
from workers.agent.tools.names import ToolName
from workers.agent.tools.offer import ToolOffer

ROOT = Path(__file__).resolve().parents[3]
# modules that belong to an opt-in tool may name it (look.py names `look`)
OWNERS = {"look.py": {"look"}}
_BACKTICKED = re.compile(r"`(\w+)`")
_CALLED = re.compile(r"\b(\w+)(?=\s*\(|\s+\w+=)")


def _named_tools(text: str) -> set[str]:
    """Tool names a text names as a tool: in backticks, as a call, or underscored."""
    names = set(ToolName)
    found = {m for m in _BACKTICKED.findall(text) if m in names}
    found |= {m for m in _CALLED.findall(text) if m in names}
    found |= {w for w in re.findall(r"\b\w+_\w+\b", text) if w in names}
    return found


def _result_strings(path: Path) -> list[str]:
    """String constants of a module, without docstrings."""
    tree = ast.parse(path.read_text())
    docs = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
    ]


def _enableable() -> ToolOffer:
    return ToolOffer(instruction="", allow_scripts=False, vision=False)


def test_recovery_hints_name_only_enableable_tools() -> None:
    offer = _enableable()
    bad = {
        code: sorted(t for t in _named_tools(hint) if not offer.allows(t))
        for code, hint in HINTS.items()
    }
    assert not {k: v for k, v in bad.items() if v}


def test_browser_result_texts_name_only_enableable_tools() -> None:
    """Every result text, alternative and hint the action code writes names tools the default
    offer has or `more_tools` can enable (`look` and `evaluate_script` are opt-in)."""
    offer = _enableable()
    bad: list[str] = []
    for path in sorted((ROOT / "workers" / "browser" / "act").glob("*.py")):
        allowed = OWNERS.get(path.name, set())
        for text in _result_strings(path):
            for tool in _named_tools(text) - allowed:
                if not offer.allows(tool):
                    bad.append(f"{path.name}: {tool!r} in {text[:80]!r}")
    assert not bad


@pytest.mark.parametrize(
    "points",
    [
        [(200, 150), (201, 150)],
        [[200.0, 150.0], [201.0, 150.0]],
        ((200, 150), (201, 150)),
        [{"x": 200, "y": 150}, {"x": 201, "y": 150}],
    ],
)
def test_pointer_two_point_path_is_two_points(points: object) -> None:
    args = PointerArgs.model_validate({"points": points, "press": True})
    assert args.points == [(200.0, 150.0), (201.0, 150.0)]


@pytest.mark.parametrize("points", [[(1, 2)], [[1, 2], [3, 4], [5, 6]], [1, 2], (1, 2)])
def test_pointer_paths_of_any_length(points: object) -> None:
    args = PointerArgs.model_validate({"points": points})
    assert args.points[0] == (1.0, 2.0)
    assert len(args.points) == max(1, len(points) if isinstance(points[0], list | tuple) else 1)  # type: ignore[index,arg-type]
