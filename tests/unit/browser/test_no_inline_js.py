"""No JavaScript source in Python strings under workers/browser (project rule: JS lives in
workers/browser/{observe,act,runtime}/js/*.js, data goes in through evaluate's argument).

Every call to evaluate / evaluate_handle / wait_for_function / add_init_script is checked
with the ast module: its script argument, followed through names assigned in the module or
the enclosing function, must not contain JS-looking string text ("=>", "function(",
"document."). The one exception is the run_script tool, whose script is the caller's own
input; its call line carries the MARKER comment.
"""

from __future__ import annotations

import ast
from pathlib import Path

import workers.browser

MARKER = "# inline-js: run_script input"
CALLS = {"evaluate", "evaluate_handle", "wait_for_function", "add_init_script"}
SCRIPT_KEYWORDS = {"expression", "script"}
JS_SIGNS = ("=>", "function(", "function (", "document.")
BROWSER = Path(workers.browser.__file__).parent


def _assignments(body: list[ast.stmt]) -> dict[str, list[ast.expr]]:
    """Values assigned to each plain name by the statements (nested blocks included)."""
    found: dict[str, list[ast.expr]] = {}
    for stmt in body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                targets, value = [node.target], node.value
            else:
                continue
            for target in targets:
                if isinstance(target, ast.Name):
                    found.setdefault(target.id, []).append(value)
    return found


def _text(node: ast.AST, names: dict[str, list[ast.expr]], seen: frozenset[str]) -> str:
    """The string text `node` can evaluate to: constants and f-string parts, joined."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else ""
    if isinstance(node, ast.Name):
        if node.id in seen:
            return ""
        return " ".join(_text(v, names, seen | {node.id}) for v in names.get(node.id, []))
    if isinstance(node, (ast.JoinedStr, ast.BinOp, ast.IfExp, ast.BoolOp)):
        parts = [_text(c, names, seen) for c in ast.iter_child_nodes(node)]
        return " ".join(p for p in parts if p)
    return ""  # calls (js("x.js")), attributes, ...: not a literal here


def _script_arg(call: ast.Call) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg in SCRIPT_KEYWORDS:
            return kw.value
    return call.args[0] if call.args else None


def _calls(tree: ast.Module) -> list[tuple[ast.Call, dict[str, list[ast.expr]], str]]:
    """Each evaluate-like call with the names visible to it and its function's name."""
    module_names = _assignments([s for s in tree.body if not isinstance(s, ast.ClassDef)])
    out = []
    scopes: list[tuple[ast.AST, str]] = [(tree, "<module>")]
    scopes += [
        (f, f.name)
        for f in ast.walk(tree)
        if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
    ]
    for scope, name in scopes:
        names = module_names
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names = {**module_names, **_assignments(scope.body)}
        for node in _own_nodes(scope):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in CALLS
            ):
                out.append((node, names, name))
    return out


def _own_nodes(scope: ast.AST) -> list[ast.AST]:
    """Nodes of `scope` outside the functions nested in it."""
    nodes: list[ast.AST] = []
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        nodes.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return nodes


def inline_js(source: str) -> tuple[list[str], list[str]]:
    """(offending calls as "line: text", marked calls as "function:line") in `source`."""
    lines = source.splitlines()
    offending, marked = [], []
    for call, names, func in _calls(ast.parse(source)):
        arg = _script_arg(call)
        if arg is None:
            continue
        text = _text(arg, names, frozenset())
        if not any(sign in text for sign in JS_SIGNS):
            continue
        span = lines[call.lineno - 1 : (call.end_lineno or call.lineno)]
        if any(MARKER in line for line in span):
            marked.append(f"{func}:{call.lineno}")
        else:
            offending.append(f"{call.lineno}: {text[:80]!r}")
    return sorted(offending, key=lambda o: int(o.split(":")[0])), sorted(marked)


def test_no_js_source_in_python_strings() -> None:
    found = {}
    for path in sorted(BROWSER.rglob("*.py")):
        offending, _ = inline_js(path.read_text("utf-8"))
        if offending:
            found[path.name] = [o.split(": ", 1)[1] for o in offending]
    assert found == {}, f"move these scripts into a js/ folder beside their module: {found}"


def test_only_the_run_script_tool_is_exempt() -> None:
    marked = {}
    for path in sorted(BROWSER.rglob("*.py")):
        _, found = inline_js(path.read_text("utf-8"))
        if found:
            marked[path.name] = [m.split(":")[0] for m in found]
    assert marked == {"handlers_read.py": ["evaluate_script"]}


SAMPLE = """_CONST = "e => e.localName"
_SAFE = "plain text"

async def f(page, el, body):
    await el.evaluate("e => e.checked")                                   # 5: literal
    await el.evaluate(_CONST)                                             # 6: module constant
    source = body if body.startswith("(") else f"() => ({body})"
    await page.evaluate(source)                                           # 8: local f-string
    await page.wait_for_function(expression="() => window.ready")         # 9: keyword
    await page.add_init_script(script="document.title = 'x'")             # 10: init script
    await page.evaluate_handle("function(){ return 1 }")                  # 11: function(
    await page.evaluate(js("ok.js"), "e => not JS, data")                 # loaded script
    await page.evaluate(_SAFE)                                            # no JS signs
    await page.evaluate(source)  # inline-js: run_script input
"""


def test_the_checker_finds_each_form_of_inline_js() -> None:
    offending, marked = inline_js(SAMPLE)
    assert [o.split(":")[0] for o in offending] == ["5", "6", "8", "9", "10", "11"]
    assert marked == ["f:14"]
