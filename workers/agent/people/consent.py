"""What the user's own instruction authorises (issue 31 item 5): an approval rule of
workers/agent/people/approvals.py says an action needs a person; this says whether the instruction
already asked for exactly that kind of act, so an unattended run is not held for what its
user requested ("request a quote for ..." authorises submitting the quote form; "find the
price of ..." authorises no purchase and no send).

The instruction is the user's (trusted); the page's text never authorises anything. Each
sensitive act falls in one family by its matched word (deletion, money, account, message,
form, download); the instruction must name a verb of that family, and for deletion, money
and account acts the control's own words (beyond the verb) must be words of the
instruction, so "delete the draft 'Q3 plan'" does not authorise "Delete account". Typing
one of the task's own secrets into a password field is authorised by an instruction that
asks to log in (the realapps relay runs: every asked-for login waited for a person);
literal text never is. Page script and challenges are never authorised this way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from workers.agent.people.approvals import SECRET_TOKEN, Sensitivity

_FAMILIES: dict[str, tuple[str, str]] = {
    # family: (the words of a sensitive control in it, the verbs of an instruction asking it)
    "deletion": (
        r"delete|remove|erase|destroy|wipe|purge|discard",
        r"delete|remove|erase|destroy|wipe|purge|discard|clear|get rid of",
    ),
    "money": (
        r"refund|transfer|wire|withdraw|pay|payment|purchase|buy|checkout|check out|order|"
        r"donate",
        r"refund|transfer|wire|withdraw|pay|purchase|buy|check ?out|order|donate|book|"
        r"reserve|get (?:\w+ )?tickets?|mark (?:\w+ ){0,3}as paid",
    ),
    "account": (
        r"unsubscribe|deactivate|terminate|close|cancel|revoke|password|sign|e-?sign",
        r"unsubscribe|deactivate|terminate|close|cancel|revoke|(?:change|reset|update|set)"
        r" (?:\w+ )?password|sign|e-?sign",
    ),
    "message": (
        r"send|post|publish|tweet|reply|share",
        r"send|post|publish|tweet|reply|share|submit|request|ask|contact|message|e-?mail|"
        r"write|comment|enquire|inquire|apply|register|sign up|book|file|report|invite",
    ),
    "form": (
        r"",
        r"submit|send|request|ask for|book|reserve|register|sign up|apply|order|buy|create|"
        r"add|post|file|open|report|change|update|edit|set|mark|assign|reassign|close|reopen|"
        r"rename|fill|complete|subscribe|contact|save|enter|upload|make|schedule|give|grant|"
        r"move|pin|publish|approve|reply|comment|write|leave|rate|review|vote|invite",
    ),
    "download": (
        r"",
        r"download|save|export|get the file|pdf|csv|attachment|fetch|retrieve|obtain|grab",
    ),
    # typing one of the task's own secrets into a password field (never a literal text)
    "login": (r"", r"log ?in|sign ?in|login|logged in|authenticate|as (?:user |admin )?\w+"),
}
_STOP = frozenset(
    {"a", "an", "the", "it", "this", "that", "my", "your", "our", "their", "yes", "no", "ok",
     "okay", "now", "all", "and", "or", "of", "to", "for", "in", "on", "at", "by", "with",
     "from", "me", "us", "them", "you", "we", "permanently", "anyway", "continue", "confirm",
     "proceed", "create", "add", "new", "make", "submit", "save", "apply", "manual"}
)  # fmt: skip  # also a control's own generic verbs: "Create payment" names no object
# words of a download's link and file that do not say what the file is
_GENERIC = frozenset(
    {"get", "download", "downloads", "file", "files", "here", "click", "link", "button",
     "save", "export", "pdf", "csv", "txt", "doc", "docx", "xlsx", "zip", "version",
     "latest", "full", "copy", "free", "now", "open", "view", "www", "http", "https", "com"}
)  # fmt: skip
# rules decided by a form's own facts rather than a control's word
_FORM_RULES = frozenset({"form_action", "cross_origin", "form_submit"})


@dataclass(frozen=True)
class Consent:
    """Why the instruction already authorises the act (shown in the tool result)."""

    family: str
    verb: str  # the instruction's word that asks for it

    def note(self) -> str:
        return f"ran without asking a person: your instruction asks for it ({self.verb!r})"


def family_of(found: Sensitivity) -> str | None:
    """The family of a sensitive act, or None for one no instruction authorises."""
    if found.rule == "download":
        return "download"
    if found.rule == "credential":  # a task secret's name; literal text is never authorised
        return "login" if SECRET_TOKEN.search(found.reason) else None
    if found.rule in _FORM_RULES:
        return "form"
    if found.rule != "keyword":
        return None  # credential entry, page script: judged elsewhere, or always asked
    for family, (words, _) in _FAMILIES.items():
        if words and re.search(rf"\b(?:{words})", found.word, re.IGNORECASE):
            return family
    return None


def _object_words(found: Sensitivity, family: str) -> set[str]:
    words = set(re.findall(r"[a-z0-9]{2,}", found.element.lower().split('"', 1)[-1]))
    verbs = re.compile(rf"^(?:{_FAMILIES[family][0]})", re.IGNORECASE)
    return {w for w in words if w not in _STOP and not verbs.match(w)}


def _mentions(instruction: str, word: str) -> bool:
    stem = word[:5] if len(word) > 5 else word  # "accounts" ~ "account", "ordered" ~ "order"
    return re.search(rf"\b{re.escape(stem)}", instruction) is not None


def _download_subject(found: Sensitivity, instruction: str) -> str | None:
    """A word of the download's link or file name that the instruction names: "Get the X200
    manual" asks for the file behind 'link "Get the manual (PDF)"' (x200-manual.pdf)."""
    words = re.findall(r"[a-z0-9]{3,}", f"{found.element} {found.reason}".lower())
    for word in words:
        if word not in _STOP and word not in _GENERIC and _mentions(instruction, word):
            return word
    return None


def consent(found: Sensitivity, instruction: str) -> Consent | None:
    """The instruction's authorisation of `found`, or None when a person must be asked."""
    family = family_of(found)
    if family is None or not instruction.strip():
        return None
    text = instruction.lower()
    asked = re.search(rf"\b(?:{_FAMILIES[family][1]})", text)
    if asked is None and family == "download":  # the file it names (issue 31 item 5)
        subject = _download_subject(found, text)
        return Consent(family, subject) if subject else None
    if asked is None:
        return None
    if asked.group(0).startswith("mark") and not re.search(r"\bpay", found.word, re.I):
        return None  # "mark it as paid" records a payment; it authorises no refund or buy
    if family in ("deletion", "money", "account"):
        objects = _object_words(found, family)
        if objects and not any(_mentions(text, w) for w in objects):
            return None
    return Consent(family, asked.group(0))
