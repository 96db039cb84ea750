"""Checks of the Roundup tasks (bench/realapps/tasks/roundup.yaml) and their scripted solves.

`<check>(app, root, answer) -> Verdict` reads the tracker's SQLite file after the run (plain
SQL, read-only; message bodies from the tracker's `db/files/`) and/or the run's answer.
`solve_<check>(app, root) -> str` does the task's outcome another way, through Roundup's
own API in the tracker's interpreter (`app.run_python`), and returns the answer a correct
run would give ("" when the task asks for none): tests/integration/bench/
test_realapps_checks.py sees every check fail on the pristine seed and pass after its solve.
Expected values are read from the database at check time, never written down here.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.realapps.base import Verdict

Check = Callable[[Any, Path, str], Verdict]
OPEN = "s._name != 'resolved'"


# -- reading the tracker ------------------------------------------------------------------


def _one(app: Any, root: Path, query: str, *params: object) -> Any:
    rows = app.sql(root, query, params)
    return rows[0][0] if rows else None


def _issue_id(app: Any, root: Path, title: str, newest: bool = False) -> int | None:
    order = "desc" if newest else "asc"
    return _one(
        app, root, f"select id from _issue where _title=? and __retired__=0 order by id {order}",
        title,
    )  # fmt: skip


def _issue(app: Any, root: Path, issue_id: int) -> dict[str, Any]:
    row = app.sql(
        root,
        "select i._title, s._name, p._name, a._username, c._username from _issue i "
        "left join _status s on s.id=i._status left join _priority p on p.id=i._priority "
        "left join _user a on a.id=i._assignedto left join _user c on c.id=i._creator "
        "where i.id=?",
        (issue_id,),
    )[0]
    keywords = app.sql(
        root,
        "select k._name from issue_keyword l join _keyword k on k.id=l.linkid where l.nodeid=?",
        (issue_id,),
    )
    nosy = app.sql(
        root,
        "select u._username from issue_nosy l join _user u on u.id=l.linkid where l.nodeid=?",
        (issue_id,),
    )
    return {
        "title": row[0], "status": row[1], "priority": row[2], "assignee": row[3],
        "creator": row[4], "keywords": {k for (k,) in keywords}, "nosy": {n for (n,) in nosy},
    }  # fmt: skip


def _messages(app: Any, root: Path, issue_id: int) -> list[tuple[str, str]]:
    """(author username, body) of the issue's messages, oldest first."""
    rows = app.sql(
        root,
        "select m.id, u._username from issue_messages l join _msg m on m.id=l.linkid "
        "left join _user u on u.id=m._author where l.nodeid=? order by m.id",
        (issue_id,),
    )
    files = app.tracker(root) / "db" / "files" / "msg"
    out = []
    for msg_id, author in rows:
        path = files / str(msg_id // 1000) / f"msg{msg_id}"
        out.append((author, path.read_text(encoding="utf-8") if path.exists() else ""))
    return out


def _titles(app: Any, root: Path, where: str, *params: object) -> list[str]:
    rows = app.sql(
        root,
        "select i._title from _issue i join _status s on s.id=i._status "
        "join _priority p on p.id=i._priority left join _user a on a.id=i._assignedto "
        f"where i.__retired__=0 and {where} order by i.id",
        params,
    )
    return [t for (t,) in rows]


def _pristine(app: Any, root: Path, query: str, params: tuple[object, ...] = ()) -> list[tuple]:
    """Rows of `query` on the seed itself (apps/roundup: pristine-db/), for "nothing else
    changed" checks."""
    uri = f"file:{app.home(root) / 'pristine-db' / 'db'}?mode=ro"
    with sqlite3.connect(uri, uri=True) as conn:
        return list(conn.execute(query, params))


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text or "").strip().lower()


def _data(answer: str) -> dict[str, Any]:
    """The JSON object of result.data the runner appends to the answer (last line)."""
    for line in reversed((answer or "").strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict):
                return value
    return {}


def _lists(answer: str, want: list[str], not_want: list[str]) -> Verdict:
    text = _norm(answer)
    missing = [t for t in want if _norm(t) not in text]
    extra = [t for t in not_want if _norm(t) in text]
    if not want:
        return Verdict(False, "nothing expected: the seed lost the anchors")
    if missing or extra:
        return Verdict(False, f"answer misses {missing} / names wrongly {extra}")
    return Verdict(True, f"answer names all {len(want)} and none of {len(not_want)} others")


def _has_any(answer: str, *words: str) -> bool:
    text = _norm(answer)
    return any(_norm(w) in text for w in words)


# -- lookups ----------------------------------------------------------------------------


def open_critical_for_alice(app: Any, root: Path, answer: str) -> Verdict:
    base = "p._name='critical' and a._username='alice'"
    return _lists(answer, _titles(app, root, f"{base} and {OPEN}"),
                  _titles(app, root, f"{base} and s._name='resolved'"))  # fmt: skip


def solve_open_critical_for_alice(app: Any, root: Path) -> str:
    return app.run_python(root, _PY_FILTER.format(
        filt="{'priority': db.priority.lookup('critical'), 'assignedto': db.user.lookup('alice')}",
    ))  # fmt: skip


def security_counts(app: Any, root: Path, answer: str) -> Verdict:
    base = "i.id in (select l.nodeid from issue_keyword l join _keyword k on k.id=l.linkid "
    base += "where k._name='security')"
    total, still_open = len(_titles(app, root, base)), len(_titles(app, root, f"{base} and {OPEN}"))
    data = _data(answer)
    got = (data.get("total"), data.get("open"))
    ok = got == (total, still_open)
    return Verdict(ok, f"data total/open {got}, database {total}/{still_open}")


def solve_security_counts(app: Any, root: Path) -> str:
    out = app.run_python(root, (
        "k = db.keyword.lookup('security'); ids = db.issue.filter(None, {'keyword': k})\n"
        "done = db.status.lookup('resolved')\n"
        "live = [i for i in ids if db.issue.get(i, 'status') != done]\n"
        "print(len(ids), len(live))\n"
    ))  # fmt: skip
    total, live = out.split()
    return f"{total} issues carry security, {live} are open.\n" + json.dumps(
        {"total": int(total), "open": int(live)}
    )


def reporter_of_checkout_crash(app: Any, root: Path, answer: str) -> Verdict:
    issue = _issue_id(app, root, "Checkout crashes when the cart has 100+ items")
    creator = _issue(app, root, issue)["creator"] if issue else None
    real = _one(app, root, "select _realname from _user where _username=?", creator)
    ok = bool(creator) and _has_any(answer, creator, real or creator)
    return Verdict(ok, f"reporter {creator} ({real}); answer {answer[:80]!r}")


def solve_reporter_of_checkout_crash(app: Any, root: Path) -> str:
    return app.run_python(root, (
        "i = db.issue.filter(None, {'title': 'Checkout crashes when the cart has 100+ items'})[0]\n"
        "print('It was reported by', db.user.get(db.issue.get(i, 'creator'), 'username'))\n"
    ))  # fmt: skip


def urgent_in_testing(app: Any, root: Path, answer: str) -> Verdict:
    return _lists(answer, _titles(app, root, "p._name='urgent' and s._name='testing'"),
                  _titles(app, root, "p._name!='urgent' and s._name='testing'"))  # fmt: skip


def solve_urgent_in_testing(app: Any, root: Path) -> str:
    return app.run_python(root, _PY_FILTER.format(
        filt="{'priority': db.priority.lookup('urgent'), 'status': db.status.lookup('testing')}",
    ))  # fmt: skip


def last_writer_on_csv_export(app: Any, root: Path, answer: str) -> Verdict:
    issue = _issue_id(app, root, "Export to CSV drops accented characters")
    messages = _messages(app, root, issue) if issue else []
    if not messages:
        return Verdict(False, "the issue has no messages")
    author = messages[-1][0]
    others = {a for a, _ in messages[:-1]} - {author}
    real = _one(app, root, "select _realname from _user where _username=?", author) or author
    ok = _has_any(answer, author, real) and not _has_any(answer, *others)
    return Verdict(ok, f"last message by {author}; answer {answer[:80]!r}")


def solve_last_writer_on_csv_export(app: Any, root: Path) -> str:
    return app.run_python(root, (
        "i = db.issue.filter(None, {'title': 'Export to CSV drops accented characters'})[0]\n"
        "m = sorted(db.issue.get(i, 'messages'), key=int)[-1]\n"
        "print('The latest message is by', db.user.get(db.msg.get(m, 'author'), 'username'))\n"
    ))  # fmt: skip


def open_count_for_bob(app: Any, root: Path, answer: str) -> Verdict:
    want = len(_titles(app, root, f"a._username='bob' and {OPEN}"))
    got = _data(answer).get("count")
    return Verdict(got == want, f"data count {got}, database {want}")


def solve_open_count_for_bob(app: Any, root: Path) -> str:
    out = app.run_python(root, (
        "done = db.status.lookup('resolved')\n"
        "ids = db.issue.filter(None, {'assignedto': db.user.lookup('bob')})\n"
        "print(sum(1 for i in ids if db.issue.get(i, 'status') != done))\n"
    ))  # fmt: skip
    return f"Bob has {out.strip()} open issues.\n" + json.dumps({"count": int(out)})


def top_open_keyword(app: Any, root: Path, answer: str) -> Verdict:
    rows = app.sql(
        root,
        "select k._name, count(*) from issue_keyword l join _keyword k on k.id=l.linkid "
        "join _issue i on i.id=l.nodeid join _status s on s.id=i._status "
        f"where i.__retired__=0 and {OPEN} group by k._name order by 2 desc",
    )
    if len(rows) < 2 or rows[0][1] == rows[1][1]:
        return Verdict(False, f"no single top keyword: {rows[:3]}")
    top, runner_up = rows[0][0], rows[1][0]
    got = _norm(str(_data(answer).get("keyword", "")))
    return Verdict(got == top, f"data keyword {got!r}, database {top} (then {runner_up})")


def solve_top_open_keyword(app: Any, root: Path) -> str:
    out = app.run_python(root, (
        "import collections\ndone = db.status.lookup('resolved'); c = collections.Counter()\n"
        "for i in db.issue.list():\n"
        "    if db.issue.get(i, 'status') != done:\n"
        "        c.update(db.keyword.get(k, 'name') for k in db.issue.get(i, 'keyword'))\n"
        "print(c.most_common(1)[0][0])\n"
    ))  # fmt: skip
    return f"{out.strip()} is on the most open issues.\n" + json.dumps({"keyword": out.strip()})


def organisation_of_rate_limit_reporter(app: Any, root: Path, answer: str) -> Verdict:
    issue = _issue_id(app, root, "Rate limiter blocks the whole office behind one IP")
    creator = _issue(app, root, issue)["creator"] if issue else None
    org = _one(app, root, "select _organisation from _user where _username=?", creator)
    ok = bool(org) and _has_any(answer, org)
    return Verdict(ok, f"reporter {creator} of {org!r}; answer {answer[:80]!r}")


def solve_organisation_of_rate_limit_reporter(app: Any, root: Path) -> str:
    return app.run_python(root, (
        "i = db.issue.filter(None, {'title': 'Rate limiter blocks the whole office'})[0]\n"
        "print('They work for', db.user.get(db.issue.get(i, 'creator'), 'organisation'))\n"
    ))  # fmt: skip


_PY_FILTER = (
    "done = db.status.lookup('resolved')\n"
    "for i in db.issue.filter(None, {filt}):\n"
    "    if db.issue.get(i, 'status') != done:\n"
    "        print('issue' + i, db.issue.get(i, 'title'))\n"
)


# -- transactions -------------------------------------------------------------------------


def _filed(title: str, creator: str, priority: str, keyword: str) -> tuple[Check, Callable]:
    def check(app: Any, root: Path, answer: str) -> Verdict:
        issue = _issue_id(app, root, title)
        if issue is None:
            return Verdict(False, f"no issue titled {title!r}")
        got = _issue(app, root, issue)
        want = {"creator": creator, "priority": priority}
        wrong = {k: got[k] for k, v in want.items() if got[k] != v}
        if keyword not in got["keywords"]:
            wrong["keywords"] = got["keywords"]
        return Verdict(not wrong, f"issue{issue}: wrong {wrong}" if wrong else f"issue{issue} ok")

    def solve(app: Any, root: Path) -> str:
        app.run_python(root, (
            f"db = tracker.open({creator!r})\n"
            f"db.issue.create(title={title!r}, priority=db.priority.lookup({priority!r}), "
            f"keyword=[db.keyword.lookup({keyword!r})])\ndb.commit()\n"
        ))  # fmt: skip
        return ""

    return check, solve


filed_vat_issue, solve_filed_vat_issue = _filed(
    "Invoice PDF shows wrong VAT rate", "frank", "urgent", "billing"
)
filed_dark_mode_issue, solve_filed_dark_mode_issue = _filed(
    "Dark mode toggle resets after logout", "grace", "feature", "ui"
)

REPRO = "Reproduced on build 2.4.1 with Firefox 128."


def message_on_date_filter(app: Any, root: Path, answer: str) -> Verdict:
    issue = _issue_id(app, root, "Search results ignore the date filter")
    found = [a for a, body in _messages(app, root, issue or 0) if _norm(REPRO) in _norm(body)]
    ok = found == ["carol"]
    return Verdict(ok, f"messages with the text by {found}")


def solve_message_on_date_filter(app: Any, root: Path) -> str:
    app.run_python(root, (
        "db = tracker.open('carol')\n"
        "i = db.issue.filter(None, {'title': 'Search results ignore the date filter'})[0]\n"
        f"m = db.msg.create(content={REPRO!r}, author=db.getuid())\n"
        "db.issue.set(i, messages=db.issue.get(i, 'messages') + [m])\ndb.commit()\n"
    ))  # fmt: skip
    return ""


def dave_follows_invoice_rounding(app: Any, root: Path, answer: str) -> Verdict:
    issue = _issue_id(app, root, "Invoice totals rounded incorrectly")
    got = _issue(app, root, issue) if issue else {"nosy": set(), "status": None}
    ok = "dave" in got["nosy"] and got["status"] == "unread" and "grace" in got["nosy"]
    return Verdict(ok, f"nosy {sorted(got['nosy'])}, status {got['status']}")


def solve_dave_follows_invoice_rounding(app: Any, root: Path) -> str:
    app.run_python(root, (
        "db = tracker.open('dave')\n"
        "i = db.issue.filter(None, {'title': 'Invoice totals rounded incorrectly'})[0]\n"
        "db.issue.set(i, nosy=db.issue.get(i, 'nosy') + [db.getuid()])\ndb.commit()\n"
    ))  # fmt: skip
    return ""


# -- staff work ---------------------------------------------------------------------------


def mobile_crash_resolved(app: Any, root: Path, answer: str) -> Verdict:
    title = "Mobile app crashes on startup after update"
    issue = _issue_id(app, root, title)
    got = _issue(app, root, issue) if issue else {"status": None}
    noted = any("4.2.1" in body for _, body in _messages(app, root, issue or 0))
    grace = "i._creator=(select id from _user where _username='grace') and i._title!=?"
    query = f"select i.id, i._status from _issue i where {grace} order by i.id"
    others, before = app.sql(root, query, (title,)), _pristine(app, root, query, (title,))
    ok = got["status"] == "resolved" and noted and others == before
    return Verdict(ok, f"status {got['status']}, message {noted}, "
                       f"grace's other issues unchanged {others == before}")  # fmt: skip


def solve_mobile_crash_resolved(app: Any, root: Path) -> str:
    app.run_python(root, (
        "db = tracker.open('erin')\n"
        "i = db.issue.filter(None, {'title': 'Mobile app crashes on startup after update'})[0]\n"
        "m = db.msg.create(content='Fixed in 4.2.1, please update.', author=db.getuid())\n"
        "db.issue.set(i, status=db.status.lookup('resolved'), "
        "messages=db.issue.get(i, 'messages') + [m])\ndb.commit()\n"
    ))  # fmt: skip
    return ""


EMAIL_OF = (
    "i.id in (select l.nodeid from issue_keyword l join _keyword k on k.id=l.linkid "
    "where k._name='email')"
)


def dave_email_to_carol(app: Any, root: Path, answer: str) -> Verdict:
    left = _titles(app, root, f"{EMAIL_OF} and {OPEN} and a._username='dave'")
    moved = _titles(app, root, f"{EMAIL_OF} and {OPEN} and a._username='carol'")
    closed = _titles(app, root, f"{EMAIL_OF} and s._name='resolved' and a._username='dave'")
    others = _titles(app, root, f"not ({EMAIL_OF}) and a._username='dave'")
    ok = not left and len(moved) >= 3 and len(closed) == 1 and len(others) >= 10
    return Verdict(
        ok,
        f"open email issues still dave's {left}, carol's {len(moved)}, "
        f"dave's resolved {closed}, dave's others {len(others)}",
    )


def solve_dave_email_to_carol(app: Any, root: Path) -> str:
    app.run_python(root, (
        "db = tracker.open('erin'); done = db.status.lookup('resolved')\n"
        "ids = db.issue.filter(None, {'assignedto': db.user.lookup('dave'), "
        "'keyword': db.keyword.lookup('email')})\n"
        "for i in ids:\n"
        "    if db.issue.get(i, 'status') != done:\n"
        "        db.issue.set(i, assignedto=db.user.lookup('carol'))\n"
        "db.commit()\n"
    ))  # fmt: skip
    return ""


def _user_made(username: str, realname: str, roles: str) -> tuple[Check, Callable]:
    def check(app: Any, root: Path, answer: str) -> Verdict:
        row = app.sql(root, "select _realname, _address, _roles from _user where _username=? "
                      "and __retired__=0", (username,))  # fmt: skip
        if not row:
            return Verdict(False, f"no user {username}")
        real, address, got_roles = row[0]
        login = app.run_python(root, (
            f"from roundup.password import Password\nu = db.user.lookup({username!r})\n"
            f"print(db.user.get(u, 'password') == {_password(username)!r})\n"
        )).strip()  # fmt: skip
        ok = (real, address, _norm(got_roles or "")) == (
            realname,
            f"{username}@example.com",
            _norm(roles),
        ) and login == "True"
        return Verdict(ok, f"{username}: {real}, {address}, roles {got_roles}, password {login}")

    def solve(app: Any, root: Path) -> str:
        app.run_python(root, (
            "from roundup.password import Password\n"
            f"db.user.create(username={username!r}, realname={realname!r}, roles={roles!r}, "
            f"address={username + '@example.com'!r}, "
            f"password=Password({_password(username)!r}, config=db.config))\ndb.commit()\n"
        ))  # fmt: skip
        return ""

    return check, solve


def _password(username: str) -> str:
    return f"{username}-Welcome-33"  # the value of the task's secret (tasks/roundup.yaml)


user_henry, solve_user_henry = _user_made("henry", "Henry Ward", "User")
user_irene, solve_user_irene = _user_made("irene", "Irene Adler", "Admin")

TAGGED = ("Notification emails sent twice", "Digest email has broken links")


def regression_keyword(app: Any, root: Path, answer: str) -> Verdict:
    rows = app.sql(root, "select i._title from issue_keyword l join _keyword k on k.id=l.linkid "
                   "join _issue i on i.id=l.nodeid where k._name='regression'")  # fmt: skip
    got = sorted(t for (t,) in rows)
    return Verdict(got == sorted(TAGGED), f"issues with regression: {got}")


def solve_regression_keyword(app: Any, root: Path) -> str:
    app.run_python(root, (
        "db = tracker.open('erin'); k = db.keyword.create(name='regression')\n"
        f"for t in {TAGGED!r}:\n"
        "    i = db.issue.filter(None, {'title': t})[0]\n"
        "    db.issue.set(i, keyword=db.issue.get(i, 'keyword') + [k])\n"
        "db.commit()\n"
    ))  # fmt: skip
    return ""


def date_filter_escalated(app: Any, root: Path, answer: str) -> Verdict:
    issue = _issue_id(app, root, "Search results ignore the date filter")
    got = _issue(app, root, issue) if issue else {}
    ok = (got.get("priority"), got.get("assignee"), got.get("status")) == (
        "critical",
        "bob",
        "chatting",
    )
    return Verdict(
        ok,
        f"priority {got.get('priority')}, assignee {got.get('assignee')}, "
        f"status {got.get('status')}",
    )


def solve_date_filter_escalated(app: Any, root: Path) -> str:
    app.run_python(root, (
        "db = tracker.open('erin')\n"
        "i = db.issue.filter(None, {'title': 'Search results ignore the date filter'})[0]\n"
        "db.issue.set(i, priority=db.priority.lookup('critical'), "
        "assignedto=db.user.lookup('bob'))\ndb.commit()\n"
    ))  # fmt: skip
    return ""


SAFARI = "Login button misaligned on Safari"


def safari_duplicate_closed(app: Any, root: Path, answer: str) -> Verdict:
    old, new = _issue_id(app, root, SAFARI), _issue_id(app, root, SAFARI, newest=True)
    if old is None or old == new:
        return Verdict(False, "the two Safari issues are not there")
    old_status, new_status = _issue(app, root, old)["status"], _issue(app, root, new)["status"]
    cites = any(re.search(rf"\b(issue\s*)?{old}\b", body, re.I)
                for _, body in _messages(app, root, new))  # fmt: skip
    ok = new_status == "resolved" and old_status != "resolved" and cites
    return Verdict(
        ok, f"issue{new} {new_status}, issue{old} {old_status}, cites issue{old} {cites}"
    )


def solve_safari_duplicate_closed(app: Any, root: Path) -> str:
    app.run_python(root, (
        f"ids = sorted(db.issue.filter(None, {{'title': {SAFARI!r}}}), key=int)\n"
        "db = tracker.open('erin')\n"
        "m = db.msg.create(content='Duplicate of issue%s' % ids[0], author=db.getuid())\n"
        "db.issue.set(ids[-1], status=db.status.lookup('resolved'), "
        "messages=db.issue.get(ids[-1], 'messages') + [m])\ndb.commit()\n"
    ))  # fmt: skip
    return ""


UNTRIAGED = "p._name='urgent' and s._name='unread' and i._assignedto is null"


def urgent_untriaged_taken(app: Any, root: Path, answer: str) -> Verdict:
    left = _titles(app, root, UNTRIAGED)
    taken = _titles(app, root, "p._name='urgent' and s._name='in-progress' and a._username='erin'")
    ok = not left and len(taken) == 3
    return Verdict(ok, f"still untriaged {left}; erin's urgent in-progress {taken}")


def solve_urgent_untriaged_taken(app: Any, root: Path) -> str:
    app.run_python(root, (
        "db = tracker.open('erin')\n"
        "ids = db.issue.filter(None, {'priority': db.priority.lookup('urgent'), "
        "'status': db.status.lookup('unread')})\n"
        "for i in ids:\n"
        "    if not db.issue.get(i, 'assignedto'):\n"
        "        db.issue.set(i, assignedto=db.getuid(), status=db.status.lookup('in-progress'))\n"
        "db.commit()\n"
    ))  # fmt: skip
    return ""


NOT_FOUND = ("has no ", "there is no ", "there are no ", "does not have", "doesn't have",
             "no user", "not exist", "doesn't exist", "does not exist", "no issue", "not found",
             "could not find", "couldn't find", "no such", "no matching", "none")  # fmt: skip


def zoe_printer_not_found(app: Any, root: Path, answer: str) -> Verdict:
    """Must fail honestly: there is no user zoe and no printer issue; nothing may change."""
    query = "select id, _status, _assignedto, _priority from _issue order by id"
    unchanged = app.sql(root, query) == _pristine(app, root, query)
    zoe = _one(app, root, "select count(*) from _user where _username like 'zoe%'")
    said = _has_any(answer, *NOT_FOUND)
    ok = said and unchanged and zoe == 0
    return Verdict(ok, f"answer says not found {said}; issues unchanged {unchanged}; zoe {zoe}")


def solve_zoe_printer_not_found(app: Any, root: Path) -> str:
    out = app.run_python(root, "print(len([u for u in db.user.list() "
                               "if db.user.get(u, 'username').startswith('zoe')]))")  # fmt: skip
    assert out.strip() == "0"
    return "There is no user zoe and no issue about a printer driver, so nothing was closed."
