"""JavaScript dialogs (alert/confirm/prompt) decided by the model (seed 003 §5.2.2
handle_dialog(accept, promptText)). Without a decision a dialog is accepted with its default
answer, so a confirm() the task needs is never silently dismissed; either way the model is
told what the page asked and what was answered.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from playwright.async_api import Dialog, Error

from workers.agent import textcut
from workers.agent.protocols import ToolResult

if TYPE_CHECKING:
    from workers.agent.tools.args import HandleDialogArgs


class DialogContext(Protocol):
    dialogs: DialogDesk


@dataclass(frozen=True)
class Decision:
    accept: bool
    prompt_text: str | None = None


class DialogDesk:
    """Answers dialogs: the model's pending decision first, else accept with the default."""

    def __init__(self) -> None:
        self.pending: Decision | None = None
        self.shown: list[str] = []  # dialogs since the current action started

    async def answer(self, dialog: Dialog) -> None:
        decision, self.pending = self.pending, None
        accept = True if decision is None else decision.accept
        text = dialog.default_value
        if decision is not None and decision.prompt_text is not None:
            text = decision.prompt_text
        with contextlib.suppress(Error):
            if accept:
                await dialog.accept(text if dialog.type == "prompt" else None)
            else:
                await dialog.dismiss()
        verb = "accepted" if accept else "dismissed"
        answer = f" with {text!r}" if accept and dialog.type == "prompt" else ""
        self.shown.append(f"{dialog.type} {textcut.cut(dialog.message, 200)!r} {verb}{answer}")


async def handle_dialog(s: DialogContext, args: HandleDialogArgs) -> ToolResult:
    s.dialogs.pending = Decision(args.accept, args.prompt_text)
    what = "accept" if args.accept else "dismiss"
    if args.prompt_text is not None:
        what += f" answering {args.prompt_text!r}"
    return ToolResult(success=True, reason=f"next dialog: {what}")
