"""Scripted decisions for multi-step MiniWoB++ tasks: date pickers, flight booking, inbox,
social feed, search results. Like tests/support/miniwob_policies.py they read ONLY the prompt
(the <task> block, the page snapshot, the previous step's tool results) and answer with
tool calls; each turn is decided from what the page shows now, so a step the tools got
wrong shows up as a page that did not change the way the decision expected.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from tests.support.llm_server import Reply, tool_reply
from tests.support.miniwob_text import find, give_up, nodes, offered_options, search_hits
from tests.support.policies import latest_observation

MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
_MONTH_HEADER = re.compile(rf"^({'|'.join(MONTHS)}) (\d{{4}})$", re.M)
MAX_CLICKS_PER_CALL = 25


def _bulk(actions: list[dict[str, Any]]) -> tuple[str, dict[str, Any]]:
    return ("bulk", {"actions": actions})


def shown_month(page: str) -> tuple[int, int] | None:
    """(year, month) of an open jQuery UI datepicker, from its `Month YYYY` title line."""
    m = _MONTH_HEADER.search(page)
    return (int(m.group(2)), MONTHS.index(m.group(1)) + 1) if m else None


def pick_date(page: str, field: str, want: date) -> list[dict[str, Any]] | None:
    """The actions for one datepicker turn: open it, page to the month, or click the day.

    Returns None once the day was clicked in an earlier turn (the field shows the date)."""
    month = shown_month(page)
    if month is None:
        box = find(page, ("textbox",), field)
        return [{"tool": "click", "ref": box}] if box else []
    shift = (want.year - month[0]) * 12 + want.month - month[1]
    if shift:
        arrow = find(page, ("button", "link"), "Next" if shift > 0 else "Prev")
        if arrow is None:
            return []
        return [{"tool": "click", "ref": arrow}] * min(abs(shift), MAX_CLICKS_PER_CALL)
    day = find(page, ("link",), str(want.day))
    return [{"tool": "click", "ref": day}] if day else []


def _mdy(text: str) -> date:
    month, day, year = (int(p) for p in text.split("/"))
    return date(year, month, day)


def choose_date(task: str, page: str) -> Reply:
    """choose-date(-easy/-medium/-nodelay): open the picker, page to the month, click the day,
    Submit."""
    m = re.search(r"Select (\d\d/\d\d/\d{4}) as the date", task)
    submit = find(page, ("button",), "Submit")
    if m is None or submit is None:
        return give_up("no date or Submit")
    actions = pick_date(page, "Date", _mdy(m.group(1)))
    if not actions:
        return give_up("date picker not usable")
    if actions[0]["ref"] == find(page, ("link",), str(_mdy(m.group(1)).day)):
        actions.append({"tool": "click", "ref": submit})
    return tool_reply(_bulk(actions))


_FLIGHT = re.compile(
    r"Book the (cheapest|shortest) one-way flight from: (.+?) to: (.+?) on (\d\d/\d\d/\d{4})\.$"
)
_FIELD_VALUE = re.compile(r'value="((?:[^"\\]|\\.)*)"')


def field_value(page: str, ref: str) -> str:
    """The `value="..."` a snapshot line shows for this ref ('' when none)."""
    line = next((ln for ln in page.splitlines() if f"[{ref}]" in ln), "")
    m = _FIELD_VALUE.search(line)
    return m.group(1) if m else ""


def _airport_fits(option: str, wanted: str) -> bool:
    """`Lake Charles, LA (LCH)` fits both `LCH` and `Lake Charles, LA`."""
    return option.endswith(f"({wanted})") or option.startswith(f"{wanted} (")


def _fill_airport(page: str, label: str, wanted: str, offered: list[str] | None) -> list:
    """Calls that set one autocomplete airport field, or [] when it already holds one."""
    box = find(page, ("textbox", "combobox"), label)
    if box is None or _airport_fits(field_value(page, box), wanted):
        return []
    fits = [o for o in offered or [] if _airport_fits(o, wanted)]
    if fits:
        return [("select_option", {"ref": box, "values": [fits[0]]})]
    return [("type", {"ref": box, "text": wanted}), ("get_dropdown_options", {"ref": box})]


_FLIGHT_ROW = re.compile(
    r"Duration:\s*\n?\s*(?P<h>\d+)h (?P<m>\d+)m.*?\[(?P<ref>\d+:\d+)\] button "
    r'"Book flight for \$(?P<price>\d+)"',
    re.S,
)


def _book(page: str, kind: str) -> Reply:
    rows = [
        (int(m["price"]), int(m["h"]) * 60 + int(m["m"]), m["ref"])
        for m in _FLIGHT_ROW.finditer(page)
    ]
    if not rows:
        return give_up("no flights listed")
    best = min(rows, key=lambda r: (r[0], r[1]) if kind == "cheapest" else (r[1], r[0]))
    return tool_reply(("click", {"ref": best[2]}))


def book_flight(task: str, request: dict[str, Any]) -> Reply:
    """book-flight(-nodelay): both airports through their autocomplete, the date through
    the picker, Search, then the cheapest or shortest flight of the results."""
    m = _FLIGHT.match(task)
    page = latest_observation(request)
    if m is None:
        return give_up("unknown flight request")
    if "Book flight for $" in page:
        return _book(page, m.group(1))
    offered = offered_options(request)
    calls = _fill_airport(page, "From:", m.group(2), offered)
    calls += _fill_airport(page, "To:", m.group(3), offered)
    if calls:
        return tool_reply(*calls)
    want = _mdy(m.group(4))
    box, search = find(page, ("textbox",), "Departure Date"), find(page, ("button",), "Search")
    if box is None or search is None:
        return give_up("no date field or Search")
    if field_value(page, box) == m.group(4):
        return tool_reply(("click", {"ref": search}))
    actions = pick_date(page, "Departure Date", want)
    if not actions:
        return give_up("date picker not usable")
    if actions[0]["ref"] == find(page, ("link",), str(want.day)):
        actions.append({"tool": "click", "ref": search})
    return tool_reply(_bulk(actions))


_EMAIL = re.compile(
    r"Find the email by (?P<name>.+?) and (?:reply to them with the text \"(?P<reply>.*)\""
    r"|forward that email to (?P<forward>.+?)|click the (?P<icon>trash|star) icon .*)\.$"
)


def _row_icon(page: str, sender: str, icon: str) -> str | None:
    """The trash or star button of the inbox row whose button name starts with the sender."""
    els = nodes(page)
    for i, el in enumerate(els):
        if el.role == "button" and el.name.startswith(f"{sender} "):
            for after in els[i + 1 :]:
                if after.name == icon:
                    return after.ref
                if after.name not in ("trash", "star"):
                    break  # the next row: this one shows no such icon
    return None


def email_inbox(task: str, page: str) -> Reply:
    """email-inbox(-delete/-important/-reply/-forward/-noscroll): a row's trash or star icon,
    or open the email, Reply / Forward, fill the one field the form asks for, send."""
    m = _EMAIL.match(task)
    if m is None:
        return give_up("unknown inbox request")
    if m["icon"]:
        ref = _row_icon(page, m["name"], m["icon"])
        return tool_reply(("click", {"ref": ref})) if ref else give_up("email not listed")
    verb = "reply" if m["reply"] is not None else "forward"  # named from the id send-<verb>
    send = find(page, ("button",), f"send-{verb}") or find(page, ("button",), f"send {verb}")
    if send is not None:
        boxes = [el.ref for el in nodes(page) if el.role == "textbox"]
        box = boxes[-1] if m["reply"] is not None else find(page, ("textbox",), "to")
        text = m["reply"] if m["reply"] is not None else m["forward"]
        if box is None:
            return give_up("no field to fill")
        actions = [{"tool": "type", "ref": box, "text": text}, {"tool": "click", "ref": send}]
        return tool_reply(_bulk(actions))
    action = find(page, ("button",), "Reply" if m["reply"] is not None else "Forward")
    if action is not None:
        return tool_reply(("click", {"ref": action}))
    row = next(
        (el.ref for el in nodes(page) if el.role == "button" and el.name.startswith(m["name"])),
        None,
    )
    return tool_reply(("click", {"ref": row})) if row else give_up("email not listed")


_HANDLE = re.compile(r"(@\S+)")


def posts(page: str) -> list[tuple[str, dict[str, str]]]:
    """(author handle, {button name: ref}) per post: a text line naming `@handle` opens a
    post, the buttons below it (reply, like, an opened `more` menu...) belong to it."""
    found: list[tuple[str, dict[str, str]]] = []
    for line in page.splitlines():
        line = line.strip()
        el = nodes(line)
        if el and line.startswith("["):
            if found and el[0].role == "button":
                found[-1][1].setdefault(el[0].name, el[0].ref)
            continue
        handle = _HANDLE.search(line)
        if handle and not line.startswith("["):
            found.append((handle.group(1), {}))
    return found


def _post_button(buttons: dict[str, str], label: str) -> str | None:
    """`Like` is the `like` icon; `Mute` / `Block` are `Mute @handle` menu items."""
    for name, ref in buttons.items():
        if name.lower() == label.lower() or name.startswith(f"{label} @"):
            return ref
    return None


def social_media(task: str, page: str) -> Reply:
    """social-media: the named button of the user's post, through its `more` menu when the
    action is a menu item (Share via DM, Mute, Block, Report...)."""
    m = re.match(r'For the user (@\S+), click on the "(.+)" button\.$', task)
    if m is None:
        return give_up("unknown request")
    mine = [buttons for handle, buttons in posts(page) if handle == m.group(1)]
    if not mine:
        return give_up(f"no post by {m.group(1)}")
    for buttons in mine:
        ref = _post_button(buttons, m.group(2))
        if ref is not None:
            return tool_reply(("click", {"ref": ref}))
    more = mine[0].get("more")
    return tool_reply(("click", {"ref": more})) if more else give_up("no such button")


def social_media_many(task: str, page: str) -> Reply:
    """social-media-all / -some: the button on all (or N) posts of the user, then Submit."""
    m = re.match(r'Click the "(\w+)" button on (all|\d+) posts? by (@\S+) and then', task)
    submit = find(page, ("button",), "Submit")
    if m is None or submit is None:
        return give_up("unknown request or no Submit")
    refs = [_post_button(buttons, m.group(1)) for handle, buttons in posts(page) if handle == m[3]]
    if None in refs or not refs:
        return give_up("a post lacks the button")
    chosen = refs if m.group(2) == "all" else refs[: int(m.group(2))]
    clicks = [{"tool": "click", "ref": ref} for ref in chosen]
    return tool_reply(_bulk([*clicks, {"tool": "click", "ref": submit}]))


_SEARCH = re.compile(
    r'Use the textbox to enter "(?P<q>.+)" and press "Search", then find and click the '
    r"(?P<n>\d+)(?:st|nd|rd|th) search result\.$"
)
PER_PAGE = 3  # search-engine lists three results per page
_PAGER = re.compile(r"^(\d+|[<>«»‹›]+)$")


def search_engine(task: str, request: dict[str, Any]) -> Reply:
    """search-engine: type and Search, read the active page number (dom_search), page on,
    click the result. The page number is read, never assumed from the previous call."""
    m = _SEARCH.match(task)
    page = latest_observation(request)
    box, search = find(page, ("textbox",)), find(page, ("button",), "Search")
    if m is None or box is None or search is None:
        return give_up("no search box")
    active = ("dom_search", {"selector": "#pagination .page-item.active"})
    found = search_hits(request)
    if not found:
        typed = ("type", {"ref": box, "text": m["q"]})
        return tool_reply(typed, ("click", {"ref": search}), active)
    current, target = int(found[0]["text"]), (int(m["n"]) - 1) // PER_PAGE + 1
    links = [el for el in nodes(page) if el.role == "link"]
    if current != target:
        pager = next((el.ref for el in links if el.name == str(target)), None)
        return tool_reply(("click", {"ref": pager}), active) if pager else give_up("no page link")
    results = [el.ref for el in links if not _PAGER.match(el.name)]
    index = (int(m["n"]) - 1) % PER_PAGE
    if index >= len(results):
        return give_up("fewer results than asked")
    return tool_reply(("click", {"ref": results[index]}))
