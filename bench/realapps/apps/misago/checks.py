"""Checks of the Misago tasks (bench/realapps/tasks/misago.yaml) and their scripted solves.

`<check>(app, root, answer) -> Verdict` reads the forum's Postgres database after the run
(plain SQL through `app.sql`) and/or the run's answer. `solve_<check>(app, root) -> str`
applies the task's outcome at ORM/SQL level (Misago's models through `app.run_python`, or
SQL) and returns the answer a correct run gives ("" when the task asks for none):
tests/integration/bench/test_realapps_misago.py sees every check fail on the pristine seed
and pass after its solve. Expected facts are read from the database at check time where the
seed holds them (a thread's starter, a category's thread count), never copied here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench.realapps.base import Verdict

NOT_FOUND = ("has no ", "there is no ", "there are no ", "does not have", "doesn't have",
             "no thread", "not exist", "doesn't exist", "does not exist", "not found",
             "could not find", "couldn't find", "no such", "no matching", "no post",
             "cannot find", "can't find", "did not find", "didn't find")  # fmt: skip


# -- reading the forum ----------------------------------------------------------------------


def _one(app: Any, root: Path, query: str, *params: object) -> Any:
    rows = app.sql(root, query, params)
    return rows[0][0] if rows else None


def _thread(app: Any, root: Path, title: str) -> dict[str, Any] | None:
    rows = app.sql(
        root,
        "select t.id, c.name, t.weight, t.is_closed, t.is_hidden, t.is_unapproved, "
        "t.starter_name from misago_threads_thread t join misago_categories_category c "
        "on c.id = t.category_id where t.title = %s order by t.id",
        (title,),
    )
    if not rows:
        return None
    tid, category, weight, closed, hidden, unapproved, starter = rows[0]
    return {
        "id": tid, "category": category, "weight": weight, "closed": closed,
        "hidden": hidden, "unapproved": unapproved, "starter": starter,
    }  # fmt: skip


def _posts(app: Any, root: Path, title: str) -> list[tuple[str, str]]:
    """(poster name, text) of a thread's posts, oldest first."""
    rows = app.sql(
        root,
        "select p.poster_name, p.original from misago_threads_post p join "
        "misago_threads_thread t on t.id = p.thread_id where t.title = %s order by p.id",
        (title,),
    )
    return [(r[0], r[1]) for r in rows]


def _user(app: Any, root: Path, username: str) -> dict[str, Any] | None:
    rows = app.sql(
        root,
        "select u.email, r.slug, u.requires_activation, u.is_active, "
        "u.profile_fields -> 'location' from misago_users_user u "
        "join misago_users_rank r on r.id = u.rank_id where u.username = %s",
        (username,),
    )
    if not rows:
        return None
    email, rank, activation, active, location = rows[0]
    roles = app.sql(
        root,
        "select ro.name from misago_users_user_roles ur join misago_acl_role ro "
        "on ro.id = ur.role_id join misago_users_user u on u.id = ur.user_id "
        "where u.username = %s",
        (username,),
    )
    return {
        "email": email, "rank": rank, "activation": activation, "active": active,
        "location": location, "roles": {r[0] for r in roles},
    }  # fmt: skip


def _has(answer: str, *needles: str) -> bool:
    text = (answer or "").lower()
    return all(n.lower() in text for n in needles)


def _has_any(answer: str, *needles: str) -> bool:
    text = (answer or "").lower()
    return any(n.lower() in text for n in needles)


def _orm(app: Any, root: Path, code: str) -> str:
    return app.run_python(root, code)


def _reply(app: Any, root: Path, title: str, username: str, text: str) -> None:
    """A reply as Misago's posting does it: post, checksum, search vector, thread sync."""
    args = json.dumps([title, username, text])
    _orm(
        app,
        root,
        f"""
import json, html
from django.utils import timezone
from django.contrib.auth import get_user_model
from misago.threads.models import Thread, Post
from misago.threads.checksums import update_post_checksum
title, username, text = json.loads({args!r})
user = get_user_model().objects.get(username=username)
thread = Thread.objects.get(title=title)
now = timezone.now()
post = Post.objects.create(category=thread.category, thread=thread, poster=user,
    poster_name=user.username, original=text, parsed="<p>%s</p>" % html.escape(text),
    checksum="-", posted_on=now, updated_on=now)
update_post_checksum(post); post.set_search_document(thread.title); post.save()
post.update_search_vector(); post.save(update_fields=["search_vector"])
thread.synchronize(); thread.save(); thread.category.synchronize(); thread.category.save()
""",
    )


def _start(app: Any, root: Path, category: str, title: str, username: str, text: str) -> None:
    args = json.dumps([category, title, username])
    _orm(
        app,
        root,
        f"""
import json
from django.utils import timezone
from misago.categories.models import Category
from misago.threads.models import Thread
category, title, username = json.loads({args!r})
now = timezone.now()
t = Thread(category=Category.objects.get(name=category), started_on=now, last_post_on=now,
    starter_name=username, starter_slug=username, last_poster_name=username,
    last_poster_slug=username)
t.set_title(title); t.save()
""",
    )
    _reply(app, root, title, username, text)


def _thread_sql(app: Any, root: Path, title: str, assignment: str, *params: object) -> None:
    app.sql(root, f"update misago_threads_thread set {assignment} where title = %s",
            (*params, title))  # fmt: skip


# -- lookups --------------------------------------------------------------------------------

DUST = "Workshop dust extraction on a budget"


def dust_thread_starter(app: Any, root: Path, answer: str) -> Verdict:
    thread = _thread(app, root, DUST)
    starter = thread["starter"] if thread else "?"
    return Verdict(_has(answer, starter), f"starter {starter!r}; answer {answer[:80]!r}")


def solve_dust_thread_starter(app: Any, root: Path) -> str:
    return f"The thread was started by {_one(app, root, 'select starter_name from misago_threads_thread where title = %s', DUST)}."  # noqa: E501


def ams1117_capacitor(app: Any, root: Path, answer: str) -> Verdict:
    rows = app.sql(
        root,
        "select poster_name from misago_threads_post where original like %s "
        "and original like %s order by id",
        ("%AMS1117%", "%22 uF%"),
    )
    who = rows[0][0] if rows else "?"
    ok = _has(answer, who) and _has_any(answer, "22 uf", "22uf", "22 µf", "22µf", "22 micro")
    return Verdict(ok, f"recommender {who!r}; answer {answer[:80]!r}")


def solve_ams1117_capacitor(app: Any, root: Path) -> str:
    return "kwame recommended at least 22 uF on the AMS1117's output."


def _answer_contains(value: str, answer: str) -> Verdict:
    return Verdict(_has(answer, value), f"expects {value!r}; answer {answer[:80]!r}")


def prusa_price(app: Any, root: Path, answer: str) -> Verdict:
    return _answer_contains("350", answer)


def solve_prusa_price(app: Any, root: Path) -> str:
    return "sofia asks 350 euros for the Prusa MK3S."


def table_saw_min_age(app: Any, root: Path, answer: str) -> Verdict:
    return _answer_contains("16", answer)


def solve_table_saw_min_age(app: Any, root: Path) -> str:
    return "You must be at least 16 years old."


def december_room(app: Any, root: Path, answer: str) -> Verdict:
    return _answer_contains("B214", answer)


def solve_december_room(app: Any, root: Path) -> str:
    return "Room B214 of the Old Mill building."


def january_room(app: Any, root: Path, answer: str) -> Verdict:
    return _answer_contains("C108", answer)


def solve_january_room(app: Any, root: Path) -> str:
    return "Room C108 of the library annex."


def microcontrollers_count(app: Any, root: Path, answer: str) -> Verdict:
    count = _one(
        app, root,
        "select count(*) from misago_threads_thread t join misago_categories_category c "
        "on c.id = t.category_id where c.name = 'Microcontrollers' and not t.is_hidden "
        "and not t.is_unapproved",
    )  # fmt: skip
    numbers = {w.strip(".,:;()") for w in (answer or "").split()}
    return Verdict(str(count) in numbers, f"visible threads {count}; answer {answer[:80]!r}")


def solve_microcontrollers_count(app: Any, root: Path) -> str:
    count = _one(
        app, root,
        "select count(*) from misago_threads_thread t join misago_categories_category c "
        "on c.id = t.category_id where c.name = 'Microcontrollers' and not t.is_hidden "
        "and not t.is_unapproved",
    )  # fmt: skip
    return f"There are {count} threads in Microcontrollers."


def laser_filter_not_found(app: Any, root: Path, answer: str) -> Verdict:
    """Must fail honestly: amara never wrote about laser fume filters; nothing may change."""
    said = _has_any(answer, *NOT_FOUND)
    posts = _one(app, root, "select count(*) from misago_threads_post")
    seeded = app.sql(root, "select count(*) from misago_threads_post", (), db="seed")[0][0]
    laser = _one(
        app, root,
        "select count(*) from misago_threads_post where poster_name = 'amara' "
        "and original ilike %s and original ilike %s",
        "%laser%", "%filter%",
    )  # fmt: skip
    ok = said and posts == seeded and laser == 0
    return Verdict(ok, f"answer says not found {said}; posts {posts}/{seeded}; laser {laser}")


def solve_laser_filter_not_found(app: Any, root: Path) -> str:
    return "I could not find any thread where amara recommended a laser fume filter."


# -- transactions ---------------------------------------------------------------------------

SOLDER = "Soldering iron tip keeps oxidising"
GLUE = "Best glue for PLA to PLA?"


def _replied(app: Any, root: Path, title: str, username: str, needle: str) -> Verdict:
    posts = _posts(app, root, title)
    hit = any(who == username and needle.lower() in text.lower() for who, text in posts)
    return Verdict(hit, f"{len(posts)} posts in {title!r}; reply by {username} with text {hit}")


def ines_reply(app: Any, root: Path, answer: str) -> Verdict:
    return _replied(app, root, SOLDER, "ines", "tinning the tip")


def solve_ines_reply(app: Any, root: Path) -> str:
    _reply(app, root, SOLDER, "ines", "Try tinning the tip before you switch the iron off.")
    return ""


def dmitri_reply(app: Any, root: Path, answer: str) -> Verdict:
    return _replied(app, root, GLUE, "dmitri", "plastic bonder")


def solve_dmitri_reply(app: Any, root: Path) -> str:
    _reply(
        app, root, GLUE, "dmitri", "Try a two-part epoxy made for plastics, like Plastic Bonder."
    )
    return ""


PSU = "Cheap bench power supply recommendations?"


def ben_new_thread(app: Any, root: Path, answer: str) -> Verdict:
    thread = _thread(app, root, PSU)
    posts = _posts(app, root, PSU)
    ok = bool(
        thread and thread["category"] == "Electronics" and thread["starter"] == "ben_w"
        and posts and "80 pounds" in posts[0][1]
    )  # fmt: skip
    return Verdict(ok, f"thread {thread}; first post {posts[:1]}")


def solve_ben_new_thread(app: Any, root: Path) -> str:
    _start(app, root, "Electronics", PSU, "ben_w",
           "My budget is 80 pounds. Which adjustable bench supply would you buy?")  # fmt: skip
    return ""


def gretchen_registered(app: Any, root: Path, answer: str) -> Verdict:
    user = _user(app, root, "gretchen_m")
    ok = bool(user and user["email"] == "gretchen.m@example.org" and user["activation"] == 0)
    login = False
    if ok:
        login = "True" in _orm(app, root, (
            "from django.contrib.auth import get_user_model\n"
            "u = get_user_model().objects.get(username='gretchen_m')\n"
            "print(u.check_password('Quilt-Maker-4471'))\n"
        ))  # fmt: skip
    return Verdict(ok and login, f"user {user}; password works {login}")


def solve_gretchen_registered(app: Any, root: Path) -> str:
    _orm(app, root, (
        "from django.contrib.auth import get_user_model\n"
        "get_user_model().objects.create_user('gretchen_m', 'gretchen.m@example.org', "
        "'Quilt-Maker-4471')\n"
    ))  # fmt: skip
    return ""


def claire_location(app: Any, root: Path, answer: str) -> Verdict:
    user = _user(app, root, "claire")
    location = user["location"] if user else None
    return Verdict(location == "Lyon, France", f"claire's location {location!r}")


def solve_claire_location(app: Any, root: Path) -> str:
    app.sql(root, "update misago_users_user set profile_fields = profile_fields || "
                  "hstore('location', 'Lyon, France') where username = 'claire'")  # fmt: skip
    return ""


PRUSA = "For sale: Prusa MK3S with enclosure"
UPGRADE = "Upgrading a second-hand MK3S"


def jonas_prusa(app: Any, root: Path, answer: str) -> Verdict:
    reply = _replied(app, root, PRUSA, "jonas", "still available")
    thread = _thread(app, root, UPGRADE)
    posts = _posts(app, root, UPGRADE)
    started = bool(
        thread and thread["category"] == "3D Printing" and thread["starter"] == "jonas"
        and posts and "upgrades" in posts[0][1].lower()
    )  # fmt: skip
    return Verdict(reply.ok and started, f"{reply.why}; new thread {thread}")


def solve_jonas_prusa(app: Any, root: Path) -> str:
    _reply(
        app, root, PRUSA, "jonas", "Is the MK3S still available? I could pick it up on Saturday."
    )
    _start(app, root, "3D Printing", UPGRADE, "jonas",
           "I am about to buy a used MK3S. Which upgrades should I do first?")  # fmt: skip
    return ""


# -- staff work -----------------------------------------------------------------------------


def _rank_is(app: Any, root: Path, username: str, slug: str) -> Verdict:
    user = _user(app, root, username)
    rank = user["rank"] if user else None
    return Verdict(rank == slug, f"{username}'s rank {rank!r}")


def _set_rank(app: Any, root: Path, username: str, slug: str) -> None:
    app.sql(root, "update misago_users_user set rank_id = (select id from misago_users_rank "
                  "where slug = %s) where username = %s", (slug, username))  # fmt: skip


def farid_forum_team(app: Any, root: Path, answer: str) -> Verdict:
    return _rank_is(app, root, "farid", "forum-team")


def solve_farid_forum_team(app: Any, root: Path) -> str:
    _set_rank(app, root, "farid", "forum-team")
    return ""


def amara_forum_team(app: Any, root: Path, answer: str) -> Verdict:
    return _rank_is(app, root, "amara", "forum-team")


def solve_amara_forum_team(app: Any, root: Path) -> str:
    _set_rank(app, root, "amara", "forum-team")
    return ""


DRYER = "Which filament dryer is worth it?"
FAQ = "Beginner FAQ: choosing your first multimeter"
SHIELDS = "Selling: box of assorted Arduino shields"
DOVETAIL = "First dovetail joint attempt"
HEATING = "Winter heating in the shop"


def dryer_closed(app: Any, root: Path, answer: str) -> Verdict:
    thread = _thread(app, root, DRYER)
    return Verdict(bool(thread and thread["closed"]), f"thread {thread}")


def solve_dryer_closed(app: Any, root: Path) -> str:
    _thread_sql(app, root, DRYER, "is_closed = true")
    return ""


def faq_pinned_locally(app: Any, root: Path, answer: str) -> Verdict:
    thread = _thread(app, root, FAQ)
    return Verdict(bool(thread and thread["weight"] == 1), f"thread {thread} (weight 1: pinned)")


def solve_faq_pinned_locally(app: Any, root: Path) -> str:
    _thread_sql(app, root, FAQ, "weight = 1")
    return ""


def shields_moved(app: Any, root: Path, answer: str) -> Verdict:
    thread = _thread(app, root, SHIELDS)
    cats = app.sql(root, "select distinct c.name from misago_threads_post p join "
                         "misago_categories_category c on c.id = p.category_id join "
                         "misago_threads_thread t on t.id = p.thread_id where t.title = %s",
                   (SHIELDS,))  # fmt: skip
    ok = bool(thread and thread["category"] == "Marketplace" and cats == [("Marketplace",)])
    return Verdict(ok, f"thread {thread}; posts in {cats}")


def solve_shields_moved(app: Any, root: Path) -> str:
    _orm(
        app,
        root,
        f"""
from misago.categories.models import Category
from misago.threads.models import Thread
t = Thread.objects.get(title={SHIELDS!r}); old = t.category
t.move(Category.objects.get(name="Marketplace")); t.save()
old.synchronize(); old.save(); t.category.synchronize(); t.category.save()
""",
    )
    return ""


BOT_PW = "Bot-Keeper-5530"


def workshop_bot_created(app: Any, root: Path, answer: str) -> Verdict:
    user = _user(app, root, "workshop_bot")
    ok = bool(
        user and user["email"] == "bot@tinkertown.example" and user["rank"] == "members"
        and "Moderator" in user["roles"] and user["active"]
    )  # fmt: skip
    login = ok and "True" in _orm(app, root, (
        "from django.contrib.auth import get_user_model\n"
        f"print(get_user_model().objects.get(username='workshop_bot').check_password({BOT_PW!r}))\n"
    ))  # fmt: skip
    return Verdict(bool(ok and login), f"user {user}; password works {login}")


def solve_workshop_bot_created(app: Any, root: Path) -> str:
    _orm(
        app,
        root,
        f"""
from django.contrib.auth import get_user_model
from misago.acl.models import Role
from misago.users.models import Rank
u = get_user_model().objects.create_user("workshop_bot", "bot@tinkertown.example", {BOT_PW!r},
    rank=Rank.objects.get(slug="members"))
u.roles.add(Role.objects.get(name="Moderator"))
""",
    )
    return ""


def ray_activated(app: Any, root: Path, answer: str) -> Verdict:
    user = _user(app, root, "newbie_ray")
    return Verdict(bool(user and user["activation"] == 0 and user["active"]), f"user {user}")


def solve_ray_activated(app: Any, root: Path) -> str:
    app.sql(root, "update misago_users_user set requires_activation = 0 "
                  "where username = 'newbie_ray'")  # fmt: skip
    return ""


def dovetail_approved(app: Any, root: Path, answer: str) -> Verdict:
    thread = _thread(app, root, DOVETAIL)
    pending = _one(app, root, "select count(*) from misago_threads_post p join "
                              "misago_threads_thread t on t.id = p.thread_id "
                              "where t.title = %s and p.is_unapproved", DOVETAIL)  # fmt: skip
    ok = bool(thread and not thread["unapproved"] and not thread["hidden"] and pending == 0)
    return Verdict(ok, f"thread {thread}; unapproved posts {pending}")


def solve_dovetail_approved(app: Any, root: Path) -> str:
    _thread_sql(app, root, DOVETAIL, "is_unapproved = false")
    app.sql(
        root,
        "update misago_threads_post set is_unapproved = false where thread_id = "
        "(select id from misago_threads_thread where title = %s)",
        (DOVETAIL,),
    )
    return ""


def spammer_banned(app: Any, root: Path, answer: str) -> Verdict:
    bans = app.sql(root, "select check_type, user_message from misago_users_ban where "
                         "lower(banned_value) = 'cheap_watches_77'")  # fmt: skip
    ok = any(t == 0 and "spam" in (msg or "").lower() for t, msg in bans)
    return Verdict(ok, f"username bans {bans}")


def solve_spammer_banned(app: Any, root: Path) -> str:
    _orm(
        app,
        root,
        """
from django.contrib.auth import get_user_model
from misago.users.bans import ban_user
ban_user(get_user_model().objects.get(username="cheap_watches_77"),
         user_message="Spam is not allowed on this forum.")
""",
    )
    return ""


def lounge_and_heating(app: Any, root: Path, answer: str) -> Verdict:
    rows = app.sql(root, "select name, description from misago_categories_category "
                         "where name in ('Lounge', 'Off-topic')")  # fmt: skip
    renamed = any(
        name == "Lounge" and "not a project" in (desc or "") for name, desc in rows
    ) and not any(name == "Off-topic" for name, _ in rows)
    thread = _thread(app, root, HEATING)
    closed = bool(thread and thread["closed"])
    return Verdict(renamed and closed, f"categories {rows}; heating thread {thread}")


def solve_lounge_and_heating(app: Any, root: Path) -> str:
    _orm(
        app,
        root,
        """
from misago.categories.models import Category
c = Category.objects.get(name="Off-topic")
c.set_name("Lounge"); c.description = "Chat about anything that is not a project."; c.save()
""",
    )
    _thread_sql(app, root, HEATING, "is_closed = true")
    return ""
