"""False positives of the sensitive-action rules on harmless controls with risky-sounding
words, and their recall on really sensitive ones (issue 26 item 13).

Each row is an ActionTarget as the browser's inspector reports it (role, name, whether it
submits a form, its form's action and text, a link's target). `harmless` rows change only
the page's own state (a colour button "Send Red", a drawing tool's "Send to back"),
`sensitive` rows have an effect outside the page (a form posted to a server, a payment, a
deletion, a message to people). Printed: a markdown table of each group's flagged share by
the rules and by the verb in the name alone (the rule before), and the rows the rules got
wrong.

Run: .venv/bin/python bench/approval_corpus.py
"""

from __future__ import annotations

from dataclasses import dataclass

from workers.agent.people.approvals import SENSITIVE_TEXT, sensitivity
from workers.agent.protocols import Action, ActionTarget

PAGE = "https://app.example/board"
CLICK = Action("click", {"ref": "1:1"})


@dataclass(frozen=True)
class Row:
    label: str
    target: ActionTarget
    sensitive: bool


def _button(name: str, **kw: object) -> ActionTarget:
    return ActionTarget(page_url=PAGE, role="button", tag="button", name=name, **kw)  # type: ignore[arg-type]


def _submit(name: str, action: str = "/api/messages", text: str = "") -> ActionTarget:
    return _button(
        name, submits=True, form_action=f"https://app.example{action}", form_method="post",
        form_text=text,
    )  # fmt: skip


def _span(name: str, **kw: object) -> ActionTarget:
    return ActionTarget(page_url=PAGE, tag="span", name=name, **kw)  # type: ignore[arg-type]


def _link(name: str, href: str) -> ActionTarget:
    return ActionTarget(page_url=PAGE, role="link", tag="a", name=name, href=href)


HARMLESS = tuple(
    Row(label, target, False)
    for label, target in (
        ("colour button 'Send Red'", _button("Send Red")),
        ("colour button 'Send Blue'", _button("Send Blue")),
        ("colour button 'Send #ff0000'", _button("Send #ff0000")),
        ("drawing tool 'Send to back'", _button("Send to back")),
        ("drawing tool 'Send backward'", _button("Send backward")),
        ("layer tool 'Bring forward'", _button("Bring forward")),
        ("digit pad 'Send 7'", _button("Send 7")),
        ("game move 'Post left'", _button("Post left")),
        ("grid 'Remove 3'", _button("Remove 3")),
        ("list 'Remove a'", _button("Remove a")),
        ("note colour 'Post-it yellow'", _button("Post-it yellow")),
        ("direction 'Transfer up'", _button("Transfer up")),
        ("tab 'Sender details'", _button("Sender details")),
        ("tab 'Posts'", _button("Posts")),
        ("button 'Deleted items'", _button("Deleted items")),
        ("button 'Payments overview'", _button("Payments overview")),
        ("link 'Shipping and returns'", _link("Shipping and returns", "https://app.example/help")),
        ("button 'Reply count: 4'", _button("Replies: 4")),
        ("toggle 'Show removed'", _button("Show removed")),
        ("button 'Buyer guide'", _button("Buyer guide")),
        ("game 'Remove highlight'", _button("Remove highlight")),
        ("editor 'Delete character'", _button("Delete character")),
        ("quiz 'Pay attention'", _button("Pay attention")),
        ("filter chip 'Remove filter'", _button("Remove filter")),
        ("colour button 'Send Green' (no form)", _button("Send Green")),
        ("in-page span 'Share' (no form, no typed text)", _span("Share")),
        ("in-page span 'Reply' opening a composer", _span("Reply")),
        ("button 'Share' opening a share sheet", _button("Share")),
        ("toggle button 'Share location' (no form)", _button("Share location")),
        ("button 'Reply' opening a reply box", _button("Reply")),
    )
)

SENSITIVE = tuple(
    Row(label, target, True)
    for label, target in (
        ("button 'Delete account'", _button("Delete account")),
        ("button 'Send'", _button("Send")),
        ("button 'Pay now'", _button("Pay now")),
        ("button 'Place your order'", _button("Place your order")),
        ("button 'Transfer funds'", _button("Transfer funds")),
        ("button 'Send message'", _button("Send message")),
        ("submit 'Send Red' posting to /api/messages", _submit("Send Red")),
        ("submit 'Continue' of a payment form", _submit("Continue", "/checkout", "Payment")),
        ("submit 'OK' posting to /account/delete", _submit("OK", "/account/delete")),
        (
            "submit 'Go' to another site",
            _button(
                "Go", submits=True, form_action="https://other.example/collect", form_method="post"
            ),
        ),
        ("button 'Publish post'", _button("Publish post")),
        ("button 'Unsubscribe'", _button("Unsubscribe")),
        ("button 'Cancel subscription'", _button("Cancel subscription")),
        ("button 'Request refund'", _button("Request refund")),
        ("button 'Buy it now'", _button("Buy it now")),
        ("submit 'Share' posting to /api/share", _submit("Share", "/api/share")),
        ("submit 'Reply' posting a comment form", _submit("Reply", "/comments")),
        ("button 'Share' in a dialog with typed recipients", _button("Share", composed=True)),
        ("button 'Reply' under a typed reply", _button("Reply", composed=True)),
        ("span 'Share' inside a form", _span("Share", form_action="https://app.example/share")),
    )
)

CORPUS = HARMLESS + SENSITIVE


def flagged(row: Row) -> bool:
    return sensitivity(CLICK, row.target) is not None


def wrong(rows: tuple[Row, ...]) -> list[Row]:
    return [r for r in rows if flagged(r) != r.sensitive]


def table() -> str:
    """Markdown: per group, rows and flagged share; then the rows the rules got wrong."""
    lines = [
        "| group | rows | flagged (rules) | flagged (verb in the name alone) |",
        "|---|---:|---:|---:|",
    ]
    for name, rows in (("harmless", HARMLESS), ("sensitive", SENSITIVE)):
        hits = sum(flagged(r) for r in rows)
        verb = sum(bool(SENSITIVE_TEXT.search(r.target.name)) for r in rows)
        lines.append(f"| {name} | {len(rows)} | {hits} | {verb} |")
    misses = wrong(CORPUS)
    if misses:
        lines.append("")
        lines += [f"- wrong: {r.label} (flagged={flagged(r)})" for r in misses]
    return "\n".join(lines)


if __name__ == "__main__":
    print(table())
