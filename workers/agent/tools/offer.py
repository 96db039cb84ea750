"""Which tools the Worker is offered on each call: tools by need (issue 22).

The registry (registry.py) defines every tool; this module only chooses. A core set goes
on every call; the others join when the task names a need for them (attachments -> upload_file,
a download -> read_download, another tab -> tabs, ...), when the page shows one (a combobox ->
choose_option, a slider -> drag, a trimmed snapshot -> snapshot, vision boxes -> click_at), when
a tool result names them (`read it with read_download name=...`; a native alert/confirm/prompt
the page showed names handle_dialog, which decides the next one: an in-page "dialog" element
or the word in the task does not), when the model calls one it was not offered, or through
`more_tools`, the one small tool that lists and enables the rest.

The block only grows and never reorders: a tool joins at the end, so every later request
keeps the earlier block as its prefix (seed 003 §7.2, provider prefix caching). The task's
profile (task_profiles.py), the script opt-in and the vision model still bound what may be
offered at all. `every=True` is the naive baseline's offer: the whole registry every call.
A task with an `output_schema` gets `done` with `data` typed by it (typed_done.py).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from workers.agent.protocols import ToolResult
from workers.agent.tools.names import ToolName as T
from workers.agent.tools.registry import DONE, MORE_TOOLS, TOOLS, ToolSpec, worker_tools
from workers.agent.tools.typed_done import typed_done

# select_option joins with the first dropdown on the page and scroll with a page taller than
# the viewport (PAGE_NEEDS): the tokens they cost on every other page pay for naming every
# tool in more_tools (issue 31 item 3); a call to a tool not offered yet still runs
_CORE = (T.click, T.type, T.press_key, T.navigate, T.read_text)
CORE: tuple[str, ...] = (*(t.value for t in _CORE), T.bulk.value, T.done.value, MORE_TOOLS)

_ELEMENT = r"^\s*\[\d+:\d+\]\s+"
# (what the page shows, the tools it calls for)
PAGE_NEEDS: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = tuple(
    (re.compile(pattern, re.M | re.I), tools)
    for pattern, tools in (
        (
            _ELEMENT + r"(combobox|listbox)\b",
            ("select_option", "choose_option", "get_dropdown_options"),
        ),
        (_ELEMENT + r"(slider|spinbutton)\b", ("focus", "drag")),
        (_ELEMENT + r"searchbox\b", ("search",)),
        (r"\[refs \d+-\d+ trimmed", ("snapshot", "scroll")),
        (r"^\[viewport shows |\b(above|below) viewport\b", ("scroll",)),
        (r"^\[a download started after your last action", ("read_download",)),
        (r"\[V\d+\]", ("click_at", "type_at")),
        (_ELEMENT + r'\w+\s+"[^"\n]*\b(upload|attach|choose files?|browse)\b', ("upload_file",)),
    )
)
_FIELD = re.compile(_ELEMENT + r"(textbox|combobox|checkbox|radio|spinbutton)\b", re.M)
FORM_FIELDS = 3  # a form of this many fields calls for fill_form

# (what the task says, the tools it calls for)
TASK_NEEDS: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = tuple(
    (re.compile(pattern, re.I), tools)
    for pattern, tools in (
        (r"upload|attach", ("upload_file",)),
        (r"download|\bpdf\b|\bcsv\b|spreadsheet", ("read_download",)),
        (r"\bprint\b|\bpdf\b", ("export_pdf",)),
        (r"\b(new|another|other|second|each) (browser )?(tab|window)s?\b|pop-?up", ("tabs",)),
        (r"\bdrag|\bdrop\b|slider|resize|highlight", ("drag",)),
        (
            r"\b(select|highlight|mark)\b[^.\n]{0,40}\b(words?|text|phrase|sentence|letters)\b",
            ("select_text",),
        ),
        (r"\bhover", ("hover",)),
        (r"\b(mouse|pointer|cursor|game|throw|aim|steer)\b", ("pointer",)),
        (r"screenshot", ("screenshot",)),
        (r"canvas|pixel", ("read_canvas",)),
        (r"\b(wait|until)\b", ("wait_for",)),
        (r"\bgo back\b|previous page", ("go_back",)),
        (r"\b(reload|refresh)\b", ("reload",)),
        (r"\bscroll", ("scroll",)),
        (r"\bsearch\b|look up", ("search",)),
        (r"\bpoint\b|cent(er|re)|coordinat|\bdraw\b|angle|mid-?point", ("click_at", "dom_search")),
        (r"\bfocus\b", ("focus",)),
    )
)
_NAMES = "|".join(sorted(TOOLS, key=len, reverse=True))
# a tool named like a call (`read_download name=...`, `snapshot(`) or with an underscore
_MENTION = re.compile(rf"\b({_NAMES})\b(?=\s*\(|\s+\w+=)|\b({_NAMES})\b")


# Every tool `more_tools` can enable, named in its description in short lines by purpose
# (issue 31 item 3: the model learned they existed only by calling it, a step). The text is
# the same all run long, so the request prefix still caches.
GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("pages", ("scroll", "go_back", "go_forward", "reload", "tabs", "snapshot", "handle_dialog")),
    ("points, [Vn] boxes", ("click_at", "type_at")),
    ("pointer", ("hover", "focus", "drag", "pointer", "select_text", "scroll_within")),
    ("forms", ("select_option", "choose_option", "get_dropdown_options", "fill_form", "search")),
    ("files", ("upload_file", "read_download", "export_pdf", "screenshot")),
    ("waiting", ("wait", "wait_for", "wait_for_condition")),
    ("reading", ("dom_search", "get_accessibility_tree", "read_canvas", "look")),
    ("checks", ("get_console_errors", "detect_captcha", "detect_geo_block")),
    ("other", ("record_fact", "evaluate_script")),
)


def _described(schema: dict[str, Any], names: Iterable[str]) -> dict[str, Any]:
    """more_tools' schema naming every tool it can enable, grouped by purpose (`; ` between
    groups: the labels cost 24 o200k tokens and said nothing the names do not)."""
    can = set(names)
    groups = [", ".join(n for n in group if n in can) for _, group in GROUPS]
    function = {**schema["function"]}
    function["description"] = f"{function['description']} " + "; ".join(g for g in groups if g)
    return {**schema, "function": function}


def _summary(spec: ToolSpec) -> str:
    return spec.description.split(": ")[0].split("; ")[0].rstrip(".")


class ToolOffer:
    """One run's offer: the names offered so far, in the order they joined."""

    def __init__(
        self,
        *,
        instruction: str = "",
        allow_scripts: bool = False,
        vision: bool = False,
        only: frozenset[str] | None = None,
        every: bool = False,
        output_schema: Mapping[str, Any] | None = None,
    ) -> None:
        allowed = worker_tools(allow_scripts=allow_scripts, vision=vision, only=only)
        self._schemas = {t["function"]["name"]: t for t in allowed}
        if output_schema and DONE in self._schemas:  # `data` typed by the task's schema
            self._schemas[DONE] = typed_done(self._schemas[DONE], output_schema)
        if every:
            self._names = [n for n in self._schemas if n != MORE_TOOLS]
            return
        self._names = []
        extra = ["evaluate_script"] * allow_scripts + ["look"] * vision
        if MORE_TOOLS in self._schemas:  # the same list all run long: it stays a prefix
            rest = [n for n in self._schemas if n not in CORE]
            self._schemas[MORE_TOOLS] = _described(self._schemas[MORE_TOOLS], rest)
        self.enable([*CORE, *extra])
        for pattern, tools in TASK_NEEDS:
            if pattern.search(instruction):
                self.enable(tools)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._names)

    def allows(self, name: str) -> bool:
        """The task may use this tool (offered now or not)."""
        return name in self._schemas

    def enable(self, names: Iterable[str]) -> list[str]:
        """Add allowed tools at the end of the block; returns the ones that were new."""
        added = []
        for name in names:
            if name in self._schemas and name not in self._names:
                self._names.append(name)
                added.append(name)
        return added

    def tools(self, page_text: str) -> tuple[dict[str, Any], ...]:
        """The schemas to send with this call, after the page's needs joined."""
        for pattern, needed in PAGE_NEEDS:
            if pattern.search(page_text):
                self.enable(needed)
        if len(_FIELD.findall(page_text)) >= FORM_FIELDS:
            self.enable(["fill_form"])
        return tuple(self._schemas[n] for n in self._names)

    def enable_mentioned(self, texts: Iterable[str]) -> list[str]:
        """Tools a tool result names (as a call, or by an underscored name)."""
        found = []
        for text in texts:
            for match in _MENTION.finditer(text):
                name = match[1] or match[2]
                if match[1] or "_" in name:
                    found.append(name)
        return self.enable(found)

    def more_tools(self, enable: Iterable[str]) -> ToolResult:
        """The `more_tools` call: list what is not offered yet, or enable tools by name."""
        wanted = list(enable)
        if not wanted:
            rest = [n for n in self._schemas if n not in self._names]
            lines = "; ".join(f"{n}: {_summary(TOOLS[n])}" for n in rest) or "none"
            return ToolResult(success=True, reason=f"tools you can enable: {lines}")
        added = self.enable(wanted)
        unknown = [n for n in wanted if n not in self._schemas]
        # the batch goes on with them: a later call of this turn may use them already
        reason = f"enabled now: {', '.join(added) or 'nothing new'}"
        if unknown:
            reason += f"; not available to this task: {', '.join(unknown)}"
        return ToolResult(success=True, reason=reason, data={"enabled": added})
