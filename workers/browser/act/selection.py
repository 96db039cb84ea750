"""select_text: select words on the page as a person's drag would (relay after fidelity wave 3,
finding 10: "select the words 'quick brown fox'" took dom_search and a pixel drag with guessed
letter widths, and the drag's result did not say what it selected).

The words are found in the element's text (js/select_text.js): a text field gets its selection
range, any other element a DOM Range over its text nodes. The page hears selectionchange (and
`select` in a field) from the browser and a mouseup on the element the selection ends in; the
result says the text that is selected now.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from playwright.async_api import ElementHandle, Frame

from workers.agent import textcut
from workers.agent.protocols import ToolResult
from workers.agent.toolerrors import ToolError as E
from workers.browser.act import actions
from workers.browser.runtime.scripts import js

if TYPE_CHECKING:
    from workers.agent.tools.args_read import SelectTextArgs
    from workers.browser.act.context import Acting

SHOWN_CHARS = 120  # the selected text in the result


async def select_text(s: Acting, args: SelectTextArgs) -> ToolResult:
    where = f"in {args.ref}" if args.ref else "on the page"
    root, frame = await _root(s, args)
    held: list[dict[str, Any]] = []
    arg = {"text": args.text, "occurrence": args.occurrence}

    async def act() -> None:
        on = root if root is not None else frame
        held.append(dict(await on.evaluate(js("select_text.js"), arg)))

    what = f"select {textcut.cut(args.text, 40)!r} {where}"
    result = await s.verified(what, frame, act, ghost=False, mutating=False, el=root)
    found = held[0] if held else {"found": False, "count": 0}
    if not found["found"]:
        count = int(found["count"])
        return actions.failure(
            E.text_not_found,
            f"{textcut.cut(args.text, 80)!r} is {where} {count} times"
            + (f", not {args.occurrence}" if count else "")
            + ".",
            "read_text to see the exact words, then select_text with them",
            *(["select_text without ref: the whole page"] if args.ref else []),
        )
    selected = textcut.cut(str(found.get("selected") or ""), SHOWN_CHARS)
    if found["count"] > 1:
        result = actions.note(result, f"match {args.occurrence} of {found['count']}")
    return actions.note(result, f"selected text: {selected!r}")


async def _root(s: Acting, args: SelectTextArgs) -> tuple[ElementHandle | None, Frame]:
    """The element named by the ref and its frame, else no element: the main document."""
    if args.ref:
        el, target = await s.element(args.model_dump())
        return el, target.frame
    return None, s.page.main_frame
