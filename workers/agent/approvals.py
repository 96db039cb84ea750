"""Which actions need a person first: deterministic rules enforced in code (seed 003 §8.4.1
"Deterministic Safety Boundaries" and §8.4.3 "Action Restriction": block clicks on elements
whose labels say refund, delete, transfer, password ... unless a person confirms).

The rules read only facts the page states about the target (ActionTarget: its accessible
text, the owning form's action and labels, link targets), never the model's reasoning, so a
prompt-injected model cannot talk its way past them:

- activating an element (click, Enter, type with submit) whose text, form action or form
  labels name an irreversible verb (delete, remove, refund, transfer, pay, purchase, buy,
  send, post, publish, password change, unsubscribe, ...); a control that submits no form
  and whose verb only names a value of the page ("Send Red", "Send to back": a colour, a
  direction, a digit) changes the page's own state and passes (issue 26 item 13); a verb
  that as often only opens something in the page ("Share", "Reply": a share sheet, a reply
  box) needs evidence that something goes out: a form it belongs to, or typed text in its
  form or dialog (ActionTarget.composed)
- submitting a form whose action is on another origin than the page
- sending what was typed into a POST form out, whatever its button says (issue 31 item 5);
  not a search or login form
- typing into a password field (credential entry, kind "login")
- starting a download (a link with `download`, or a link to an executable or archive)
- running page script (`evaluate_script`, offered only by profiles that allow it)

Everything here is pure; workers/agent/supervised.py asks the browser for the target and
the ApprovalGate for the decision, unless the user's instruction already asks for that act
(workers/agent/consent.py), or the typed credential is one the site itself showed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from workers.agent import textcut
from workers.agent.protocols import Action, ActionTarget

SENSITIVE_ACTION = "sensitive_action"
LOGIN = "login"
NAME_CHARS = 80

# irreversible or outward-facing verbs (seed 003 §8.4.3 names refund, delete, transfer, password)
_VERBS = (
    r"delete|remove|erase|destroy|wipe|purge|discard|"
    r"refund|transfer|wire|withdraw|pay|payment|purchase|buy|checkout|check out|"
    r"place (?:your |the )?order|order now|confirm (?:order|purchase|payment)|donate|"
    r"send|post|publish|tweet|reply|share|"
    r"unsubscribe|deactivate|terminate|close (?:my |your |the )?account|cancel (?:my |your )?"
    r"(?:subscription|membership|account|plan|order)|revoke|"
    r"(?:change|reset|update|new) password|sign (?:the )?contract|e-?sign"
)
SENSITIVE_TEXT = re.compile(rf"\b(?:{_VERBS})\b", re.IGNORECASE)
# verbs whose click usually opens an in-page sheet or box (the sending is a later control,
# judged when it is pressed): sensitive only with form or typed-text evidence (issue 26 item
# 13: an in-page "Share" with no form and no request was held for a person)
OPENING_VERBS = frozenset({"share", "reply"})
# the same verbs as URL path words: /account/delete, /api/pay, /checkout
SENSITIVE_PATH = re.compile(
    r"(?:^|[/_.\-])(delete|remove|destroy|refund|transfer|withdraw|pay|payment|purchase|buy|"
    r"checkout|order|send|post|publish|unsubscribe|deactivate|terminate|cancel|close|password)"
    r"(?:$|[/_.\-?])",
    re.IGNORECASE,
)
DOWNLOAD_EXTENSIONS = (
    ".exe", ".msi", ".dmg", ".pkg", ".apk", ".app", ".bat", ".cmd", ".sh", ".ps1", ".jar",
    ".zip", ".rar", ".7z", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".iso", ".deb", ".rpm",
)  # fmt: skip
SECRET_TOKEN = re.compile(r"<secret:[A-Za-z0-9_.-]{1,64}>")
ENTER_KEYS = frozenset({"enter", "numpadenter", "return"})
# tools that activate their target (a click, or a key press that may submit)
ACTIVATING = frozenset({"click", "click_at"})
PRESSABLE_ROLES = frozenset({"button", "link", "menuitem"})


@dataclass(frozen=True)
class Sensitivity:
    """Why an action needs a person: the rule that matched and the words it matched on."""

    kind: str  # sensitive_action | login
    rule: str  # keyword | form_action | cross_origin | credential | download
    reason: str
    element: str
    word: str = ""  # the verb the keyword rule matched ("send", "delete")


def describe(target: ActionTarget) -> str:
    """`button "Delete account"`: how the element is named in requests and events."""
    role = target.role or target.tag or "element"
    name = textcut.cut(" ".join(target.name.split()), NAME_CHARS)
    return f'{role} "{name}"' if name else role


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = None
    return parts.scheme.lower(), (parts.hostname or "").lower(), port


def _match(pattern: re.Pattern[str], text: str) -> str | None:
    found = pattern.search(text or "")
    return found.group(found.lastindex or 0).lower() if found else None


# words that make a verb's object a value of the page's own state, not something sent out
# (issue 26 item 13: a colour button "Send Red" paused for approval): colours, directions,
# layer order, digits, single characters
VALUE_WORDS = frozenset(
    {
        "red", "green", "blue", "yellow", "orange", "purple", "violet", "pink", "black",
        "white", "grey", "gray", "brown", "cyan", "magenta", "teal", "navy", "gold", "silver",
        "left", "right", "up", "down", "top", "bottom", "back", "front", "backward",
        "backwards", "forward", "forwards", "north", "south", "east", "west", "first", "last",
        "next", "previous", "one", "two", "three", "four", "five", "six", "seven", "eight",
        "nine", "ten", "to", "the", "a", "it",
    }
)  # fmt: skip


def only_values(name: str) -> bool:
    """The risky verb in `name` only moves a value of the page itself: "Send Red", "Send to
    back", "Remove 3", "Post-it note" (the verb as part of a word). A control that submits
    a form never gets this pass (approvals.activation)."""
    found = SENSITIVE_TEXT.search(name or "")
    if found is None:
        return False
    rest = name[found.end() :]
    if rest.startswith("-") and rest[1:2].isalpha():  # "Post-it", "send-off": one word
        return True
    words = re.findall(r"[\w#]+", rest.lower())
    return bool(words) and all(
        w in VALUE_WORDS or w.isdigit() or len(w) == 1 or re.fullmatch(r"#[0-9a-f]{3,8}", w)
        for w in words
    )


def credential_entry(action: Action, target: ActionTarget) -> Sensitivity | None:
    """Typing into a password field."""
    if action.name != "type":
        return None
    if target.input_type == "password":
        # a task secret is named (`<secret:pw>`); literal text is never repeated anywhere
        text = str(action.args.get("text", "")).strip()
        what = text if SECRET_TOKEN.fullmatch(text) else "a credential"
        return Sensitivity(
            LOGIN,
            "credential",
            f"typing {what} into the password field {describe(target)}",
            describe(target),
        )
    return None


def _key(action: Action) -> str:
    """The pressed key, normalised ("Enter", "NumpadEnter", " " -> "space"); "" if released."""
    if action.name != "press_key" or action.args.get("action", "press") == "up":
        return ""
    raw = str(action.args.get("key", ""))
    return "space" if raw == " " else raw.replace(" ", "").lower()


def _activates(action: Action, target: ActionTarget) -> bool:
    """The action clicks the target or may submit its form."""
    if action.name in ACTIVATING:
        return True
    if action.name == "press_key":
        return _key(action) in ENTER_KEYS or _presses(action, target)
    return bool(action.args.get("submit"))


def _presses(action: Action, target: ActionTarget) -> bool:
    """A click, or Enter/Space on a focused button or link: the same activation."""
    if action.name in ACTIVATING:
        return True
    key = _key(action)
    return (key in ENTER_KEYS or key == "space") and target.role in PRESSABLE_ROLES


def _submits(action: Action, target: ActionTarget) -> bool:
    if action.name in ACTIVATING:
        return target.submits
    return bool(target.form_action or target.form_method) and _activates(action, target)


def _outward(target: ActionTarget) -> bool:
    """Evidence that activating the target sends something: it submits or sits in a form,
    or its form or dialog holds typed text."""
    return target.submits or bool(target.form_action) or target.composed


def _stays_in_page(word: str, target: ActionTarget) -> bool:
    """The verb in the name changes only the page's own state: it names a value of the
    page, or it is an opening verb with no sign of anything going out."""
    if word in OPENING_VERBS:
        return not _outward(target)
    return not target.submits and only_values(target.name)


def activation(action: Action, target: ActionTarget) -> Sensitivity | None:
    """A click or submit on an element or form that names an irreversible verb."""
    if not _activates(action, target):
        return None
    element = describe(target)
    word = _match(SENSITIVE_TEXT, target.name) if _presses(action, target) else None
    if word is not None and not _stays_in_page(word, target):
        why = f"{action.name} on {element} ({word!r})"
        return Sensitivity(SENSITIVE_ACTION, "keyword", why, element, word)
    if not _submits(action, target):
        return None
    if (word := _match(SENSITIVE_TEXT, target.form_text)) is not None:
        why = f"submits a form labelled {word!r} via {element}"
        return Sensitivity(SENSITIVE_ACTION, "keyword", why, element, word)
    path = urlsplit(target.form_action).path if target.form_action else ""
    if (word := _match(SENSITIVE_PATH, path)) is not None:
        why = f"submits a form to {path} ({word!r}) via {element}"
        return Sensitivity(SENSITIVE_ACTION, "form_action", why, element)
    cross = bool(target.form_action and target.page_url) and (
        _origin(target.form_action) != _origin(target.page_url)
    )
    if cross:
        host = urlsplit(target.form_action).hostname or target.form_action
        why = f"submits a form to another site ({host}) via {element}"
        return Sensitivity(SENSITIVE_ACTION, "cross_origin", why, element)
    return None


def download(action: Action, target: ActionTarget) -> Sensitivity | None:
    """A click that starts a download."""
    if action.name not in ACTIVATING:
        return None
    path = urlsplit(target.href).path.lower() if target.href else ""
    if target.download or (path and path.endswith(DOWNLOAD_EXTENSIONS)):
        element = describe(target)
        what = path.rsplit("/", 1)[-1] or target.href
        why = f"{action.name} on {element} downloads a file ({what})"
        return Sensitivity(SENSITIVE_ACTION, "download", why, element)
    return None


_SEARCH_OR_LOGIN = re.compile(r"\b(?:search|find|filter|log ?in|sign ?in|password)\b", re.I)


def form_submit(action: Action, target: ActionTarget) -> Sensitivity | None:
    """Sending what was typed into a form out (issue 31 item 5: a quote form held under
    "Send request" went out with no approval as "Submit quote"): what the action does, not
    its label. A POST form whose fields hold typed text; a search or login form is not one
    (typing a password is judged by credential_entry)."""
    if not (_submits(action, target) and target.composed):
        return None
    if target.form_method.lower() != "post" or _SEARCH_OR_LOGIN.search(target.form_text):
        return None
    element = describe(target)
    why = f"sends what was typed into the form out via {element}"
    return Sensitivity(SENSITIVE_ACTION, "form_submit", why, element)


RULES = (credential_entry, activation, download, form_submit)


def script(action: Action) -> Sensitivity | None:
    """Page script (a task profile's opt-in `evaluate_script`) can click or send anything,
    out of reach of the rules above: it needs a person too."""
    if action.name != "evaluate_script":
        return None
    body = textcut.cut(" ".join(str(action.args.get("script", "")).split()), NAME_CHARS)
    return Sensitivity(SENSITIVE_ACTION, "script", f"runs a script in the page: {body}", "script")


def sensitivity(action: Action, target: ActionTarget | None) -> Sensitivity | None:
    """The first rule that says this action needs a person, or None."""
    if (found := script(action)) is not None:
        return found
    if target is None:
        return None
    for rule in RULES:
        found = rule(action, target)
        if found is not None:
            return found
    return None


def steps_of(action: Action) -> Iterator[Action]:
    """The actions a call runs: a bulk call's steps one by one, anything else as itself."""
    if action.name != "bulk":
        yield action
        return
    for step in action.args.get("actions", ()):
        if isinstance(step, Mapping):
            args: Mapping[str, Any] = step.get("args") or {}
            yield Action(str(step.get("tool", "")), dict(args))


def signature(action: Action, target: ActionTarget | None) -> str:
    """The same request again (same tool, element and page) is not asked twice."""
    url = target.page_url.split("#", 1)[0] if target else ""
    element = describe(target) if target else ""
    return f"{action.name}|{element}|{target.form_action if target else ''}|{url}"
