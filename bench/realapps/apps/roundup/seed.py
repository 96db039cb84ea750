"""Seed of the Roundup tracker (run by the tracker's own interpreter: `venv/bin/python seed.py
TRACKER_DIR`): 8 users with roles, 12 keywords, 65 issues in every status and priority with
assignees, keywords, nosy lists and 1-3 messages each. Deterministic (fixed anchors plus
filler from random.Random(33)); the anchors are what the tasks ask about, the filler never
matches their filters (no critical priority, no `security`/`email` keyword, no `testing`
status, no unassigned urgent issue), so each lookup's answer is the anchors' alone.
"""

# ruff: noqa: E501  (the anchors are a table, one issue a row)
from __future__ import annotations

import random
import sys

from roundup import instance
from roundup.password import Password

USERS = (  # username, real name, roles, organisation
    ("erin", "Erin Kowalski", "Admin", "Support"),
    ("alice", "Alice Martin", "User", "Engineering"),
    ("bob", "Bob Nguyen", "User", "Engineering"),
    ("carol", "Carol Diaz", "User", "Engineering"),
    ("dave", "Dave Okafor", "User", "Engineering"),
    ("frank", "Frank Miller", "User", "Northwind Traders"),
    ("grace", "Grace Lee", "User", "Contoso Ltd"),
)
KEYWORDS = (
    "login", "ui", "performance", "database", "email", "api", "security", "docs", "mobile",
    "billing", "search", "export",
)  # fmt: skip

# title, creator, priority, status, assignee, keywords, messages (author, text)
ANCHORS = (
    ("Password reset email never arrives", "frank", "critical", "in-progress", "alice",
     ("email", "login"), (("frank", "I requested a reset three times yesterday and got nothing, not even in spam."),
                          ("alice", "The mail queue shows the messages stuck with a TLS error; looking into it."))),
    ("Session cookie not marked Secure", "erin", "critical", "chatting", "alice",
     ("security", "login"), (("erin", "The audit found the session cookie sent over plain HTTP."),)),
    ("Data loss when two users edit the same record", "grace", "critical", "resolved", "alice",
     ("database",), (("grace", "My changes vanished after a colleague saved the same customer."),
                     ("alice", "Fixed with optimistic locking in 2.3.0."))),
    ("Checkout crashes when the cart has 100+ items", "frank", "critical", "need-eg", "alice",
     ("performance",), (("frank", "The page goes blank with a 500 error when the cart is large."),)),
    ("SQL injection in the report filter", "erin", "critical", "resolved", "bob",
     ("security", "database"), (("erin", "The date filter is concatenated into the query."),
                                ("bob", "Parameterised in 2.3.1."))),
    ("Nightly backup job fails silently", "dave", "critical", "unread", "bob",
     ("database",), (("dave", "The cron job exits 0 but the dump file is empty."),)),
    ("Mobile app crashes on startup after update", "grace", "critical", "in-progress", "carol",
     ("mobile",), (("grace", "Since version 4.2 the app closes right after the splash screen on my phone."),)),
    ("API returns 500 for unicode customer names", "frank", "urgent", "testing", "bob",
     ("api",), (("frank", "Creating a customer named Zoë through the API fails with a 500."),
                ("bob", "Fix is on the staging server, please retest."))),
    ("Export to CSV drops accented characters", "grace", "urgent", "testing", "carol",
     ("export",), (("grace", "Names like Müller come out as M?ller in the CSV file."),
                   ("carol", "Switched the writer to UTF-8 with BOM, ready for testing."),
                   ("dave", "Confirmed fixed in Excel on Windows, still checking LibreOffice."))),
    ("Search results ignore the date filter", "alice", "bug", "chatting", "dave",
     ("search",), (("alice", "Filtering by last week still shows results from 2019."),)),
    ("Login button misaligned on Safari", "frank", "bug", "unread", None,
     ("ui", "login"), (("frank", "The login button overlaps the password field on Safari 17."),)),
    ("Login button misaligned on Safari", "grace", "bug", "unread", None,
     ("ui", "login"), (("grace", "On my Mac the login button sits on top of the password box."),)),
    ("Notification emails sent twice", "carol", "bug", "in-progress", "dave",
     ("email",), (("carol", "Every status change sends two identical emails."),)),
    ("Digest email has broken links", "grace", "bug", "chatting", "dave",
     ("email", "ui"), (("grace", "The links in the weekly digest point to localhost."),)),
    ("Bounce handling marks valid addresses as invalid", "erin", "urgent", "deferred", "dave",
     ("email",), (("erin", "Three customers were flagged after a temporary mailbox-full bounce."),)),
    ("Email templates use the old logo", "bob", "wish", "resolved", "dave",
     ("email",), (("bob", "Marketing shipped the new logo in March."),)),
    ("Rate limiter blocks the whole office behind one IP", "frank", "urgent", "unread", None,
     ("api", "security"), (("frank", "Our 40 people share one public address and get 429 errors all day."),)),
    ("Invoice totals rounded incorrectly", "grace", "urgent", "unread", None,
     ("billing",), (("grace", "An invoice of 3 x 19.99 shows 59.96 instead of 59.97."),)),
    ("Two-factor codes rejected after daylight saving change", "erin", "urgent", "unread", None,
     ("security", "login"), (("erin", "Codes are off by one hour since Sunday for users in Europe."),)),
    ("Dashboard loads slowly with many projects", "alice", "feature", "deferred", "bob",
     ("performance", "ui"), (("alice", "With 200 projects the dashboard takes 12 seconds."),)),
    ("Date picker unusable with a screen reader", "grace", "feature", "chatting", "carol",
     ("ui",), (("grace", "Our accessibility audit flagged the date picker: no keyboard focus."),)),
    ("Add dark mode to the web interface", "grace", "wish", "chatting", None,
     ("ui",), (("grace", "Would be easier on the eyes in the evening."),
               ("carol", "We would need to audit every colour in the style sheet first."))),
    ("Document the webhook retry policy", "carol", "feature", "need-eg", "carol",
     ("docs", "api"), (("carol", "Customers keep asking how often failed webhooks are retried."),)),
    ("Password policy allows 4-character passwords", "erin", "urgent", "in-progress", "carol",
     ("security",), (("erin", "The minimum length check only runs on sign-up, not on change."),)),
    ("Audit log misses permission changes", "erin", "bug", "testing", "bob",
     ("security",), (("erin", "Granting Admin to a user leaves no trace in the audit log."),)),
    ("Billing page shows another customer's address", "frank", "critical", "resolved", "carol",
     ("billing", "security"), (("frank", "For a minute my billing page showed an address in Leeds."),
                               ("carol", "Cache key fixed; it was shared between sessions."))),
)  # fmt: skip

FILLER_AREAS = (
    "Dashboard", "Search page", "Report builder", "User settings", "Invoice list", "Admin panel",
    "Project overview", "Import wizard", "Calendar view", "Help centre", "Attachment upload",
    "Comment editor", "Team page",
)  # fmt: skip
FILLER_PROBLEMS = (
    "shows a spinner forever", "has a typo in the heading", "loses the sort order on refresh",
    "is hard to read on small screens", "should remember the last filter",
    "times out on large accounts", "needs keyboard shortcuts", "ignores the time zone setting",
    "prints an empty page", "should offer a bulk edit",
)  # fmt: skip
FILLER_KEYWORDS = tuple(k for k in KEYWORDS if k not in ("security", "email"))
FILLER_STATUS = ("unread", "deferred", "chatting", "need-eg", "in-progress", "done-cbb",
                 "resolved")  # fmt: skip
FILLER_COUNT = 39


def password(username: str) -> str:
    return f"{username}-rdu-2026"


def seed(home: str) -> None:
    tracker = instance.open(home)
    db = tracker.open("admin")
    for username, realname, roles, org in USERS:
        secret = Password(password(username), config=db.config)
        db.user.create(
            username=username, realname=realname, roles=roles, organisation=org,
            address=f"{username}@example.com", password=secret,
        )  # fmt: skip
    for name in KEYWORDS:
        db.keyword.create(name=name)
    db.commit()
    db.close()
    for anchor in ANCHORS:
        _issue(tracker, *anchor)
    rng = random.Random(33)
    people = ("alice", "bob", "carol", "dave", "erin", "frank", "grace")
    for n in range(FILLER_COUNT):
        area, problem = FILLER_AREAS[n % len(FILLER_AREAS)], rng.choice(FILLER_PROBLEMS)
        creator = rng.choice(people)
        priority = rng.choice(("bug", "bug", "feature", "wish", "urgent"))
        assignee = rng.choice(("alice", "bob", "carol", "dave", None))
        if priority == "urgent" and assignee is None:
            assignee = "bob"
        keywords = tuple(rng.sample(FILLER_KEYWORDS, rng.choice((0, 1, 1, 2))))
        texts = [(creator, f"{area} {problem}; seen on build 2.{n % 5}.{n % 7}.")]
        if rng.random() < 0.5:
            texts.append((rng.choice(people), "Thanks, I can reproduce this."))
        title = f"{area} {problem}"
        _issue(tracker, title, creator, priority, rng.choice(FILLER_STATUS), assignee, keywords,
               tuple(texts))  # fmt: skip


def _issue(tracker, title, creator, priority, status, assignee, keywords, messages) -> None:  # type: ignore[no-untyped-def]
    db = tracker.open(creator)
    msg_ids = []
    for author, text in messages:
        author_id = db.user.lookup(author)
        msg_ids.append(db.msg.create(content=text, author=author_id, summary=text[:60]))
    nosy = {db.user.lookup(creator)} | {db.user.lookup(a) for a, _ in messages}
    fields = {
        "title": title,
        "priority": db.priority.lookup(priority),
        "status": db.status.lookup(status),
        "keyword": [db.keyword.lookup(k) for k in keywords],
        "messages": msg_ids,
    }
    if assignee:
        fields["assignedto"] = db.user.lookup(assignee)
        nosy.add(fields["assignedto"])
    fields["nosy"] = sorted(nosy)
    db.issue.create(**fields)
    db.commit()
    db.close()


if __name__ == "__main__":
    seed(sys.argv[1])
