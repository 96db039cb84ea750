"""Checks of the pretix tasks (bench/realapps/tasks/pretix.yaml) and their scripted solves.

`<check>(app, root, answer) -> Verdict` reads pretix's SQLite file after the run (plain SQL,
read-only; quota availability through pretix's own ORM, `app.run_orm`) and/or the run's answer.
`solve_<check>(app, root) -> str` does the task's outcome another way, at ORM level in pretix's
interpreter, and returns the answer a correct run would give ("" when the task asks for none).
Expected values are read from the database at check time, never written down here; a new
order is one whose email the pristine seed does not have.
"""

from __future__ import annotations

import re
import sqlite3
from decimal import Decimal
from pathlib import Path
from typing import Any

from bench.realapps.base import Verdict

NAME = "CASE WHEN json_valid({c}) THEN json_extract({c}, '$.en') ELSE {c} END"
ITEM_NAME, VAR_NAME = NAME.format(c="i.name"), NAME.format(c="v.value")
NOT_FOUND = ("has no ", "there is no ", "there are no ", "does not have", "doesn't have",
             "not exist", "doesn't exist", "does not exist", "not found", "no product",
             "could not find", "couldn't find", "no such", "not available", "not offered",
             "isn't offered", "is not offered", "no ticket", "not listed", "cannot find",
             "can't find", "no matching")  # fmt: skip


# -- reading pretix's database -------------------------------------------------------------


def _one(app: Any, root: Path, query: str, *params: object) -> Any:
    rows = app.sql(root, query, params)
    return rows[0][0] if rows else None


def _pristine(app: Any, root: Path, query: str, *params: object) -> list[tuple]:
    with sqlite3.connect(f"file:{app.pristine(root)}?mode=ro", uri=True) as conn:
        return list(conn.execute(query, params))


def _orders(app: Any, root: Path, event: str, email: str) -> list[tuple[int, str, str]]:
    """(id, code, status) of the orders of `email` for the event, oldest first."""
    return [
        (r[0], r[1], r[2])
        for r in app.sql(
            root,
            "select o.id, o.code, o.status from pretixbase_order o join pretixbase_event e "
            "on e.id=o.event_id where e.slug=? and lower(o.email)=lower(?) order by o.id",
            (event, email),
        )
    ]


def _lines(app: Any, root: Path, order_id: int) -> list[tuple[str, str | None, Decimal, str]]:
    """(item name, variation value, price, voucher code) of the order's live positions."""
    rows = app.sql(
        root,
        f"select {ITEM_NAME}, {VAR_NAME}, p.price, vo.code from pretixbase_orderposition p "
        "join pretixbase_item i on i.id=p.item_id "
        "left join pretixbase_itemvariation v on v.id=p.variation_id "
        "left join pretixbase_voucher vo on vo.id=p.voucher_id "
        "where p.order_id=? and p.canceled=0 order by p.positionid",
        (order_id,),
    )
    return [(r[0], r[1], Decimal(str(r[2])).quantize(Decimal("0.01")), r[3] or "") for r in rows]


def _item(app: Any, root: Path, event: str, name: str) -> tuple[int, Decimal, str | None] | None:
    """(id, default price, category name) of the event's product of that exact name."""
    rows = app.sql(
        root,
        f"select i.id, i.default_price, {NAME.format(c='c.name')} from pretixbase_item i "
        "join pretixbase_event e on e.id=i.event_id "
        "left join pretixbase_itemcategory c on c.id=i.category_id "
        f"where e.slug=? and lower({ITEM_NAME})=lower(?)",
        (event, name),
    )
    if not rows:
        return None
    return rows[0][0], Decimal(str(rows[0][1])).quantize(Decimal("0.01")), rows[0][2]


def _seeded_order(app: Any, root: Path, event: str, email: str, item: str, status: str) -> tuple:
    """The pristine seed's order of `email` with that status holding `item`: (id, code)."""
    rows = _pristine(
        app,
        root,
        "select o.id, o.code from pretixbase_order o join pretixbase_event e on e.id=o.event_id "
        "join pretixbase_orderposition p on p.order_id=o.id join pretixbase_item i "
        f"on i.id=p.item_id where e.slug=? and o.email=? and o.status=? and {ITEM_NAME}=? "
        "order by o.id",
        event,
        email,
        status,
        item,
    )
    assert rows, f"seed has no {status} order of {email} with {item}"
    return rows[0]


def _status(app: Any, root: Path, order_id: int) -> str | None:
    return _one(app, root, "select status from pretixbase_order where id=?", order_id)


def _numbers(answer: str) -> list[Decimal]:
    return [Decimal(n.replace(",", "")) for n in re.findall(r"\d[\d,]*(?:\.\d+)?", answer)]


def _says(answer: str, *phrases: str) -> bool:
    low = answer.lower()
    return any(p in low for p in phrases)


def _availability(app: Any, root: Path, event: str, quota: str) -> int:
    out = app.run_orm(
        root,
        f"q = event_of({event!r}).quotas.get(name={quota!r})\nprint(q.availability()[1])",
    )
    return int(out.strip().splitlines()[-1])


def _new_order(app: Any, root: Path, event: str, email: str) -> tuple[int, str, str] | None:
    """The newest order of `email` for the event that the pristine seed does not have."""
    seeded = {r[0] for r in _pristine(app, root, "select id from pretixbase_order")}
    fresh = [o for o in _orders(app, root, event, email) if o[0] not in seeded]
    return fresh[-1] if fresh else None


def _bought(app: Any, root: Path, event: str, email: str, want: dict[tuple, int],
            voucher: str = "") -> Verdict:  # fmt: skip
    """A new pending or paid order of `email` holds exactly `want` {(item, variation): n}
    (and every line of it used `voucher` when given)."""
    order = _new_order(app, root, event, email)
    if order is None:
        return Verdict(False, f"no new order of {email} for {event}")
    lines = _lines(app, root, order[0])
    got: dict[tuple, int] = {}
    for item, var, _price, _code in lines:
        got[(item, var)] = got.get((item, var), 0) + 1
    codes = {code.upper() for *_, code in lines}
    ok = order[2] in ("n", "p") and got == want and (not voucher or codes == {voucher})
    return Verdict(ok, f"order {order[1]} status {order[2]!r} lines {got} vouchers {codes}")


def _buy(app: Any, root: Path, event: str, email: str, name: str, lines: list[tuple],
         voucher: str = "") -> str:  # fmt: skip
    vo = f"Voucher.objects.get(event=ev, code={voucher!r})" if voucher else "None"
    app.run_orm(
        root,
        f"ev = event_of({event!r})\n"
        f"o = make_order(ev, {email!r}, {name!r}, {lines!r}, 'n', voucher={vo})\n"
        "print(o.code)",
    )
    return ""


def _set_status(app: Any, root: Path, order_id: int, status: str) -> None:
    app.run_orm(root, f"o = Order.objects.get(pk={order_id})\no.status = {status!r}\no.save()")


# -- lookups -------------------------------------------------------------------------------


def weekend_pass_left(app: Any, root: Path, answer: str) -> Verdict:
    left = _availability(app, root, "jazz27", "Weekend Pass")
    return Verdict(Decimal(left) in _numbers(answer), f"{left} left; answer {answer[:120]!r}")


def solve_weekend_pass_left(app: Any, root: Path) -> str:
    left = _availability(app, root, "jazz27", "Weekend Pass")
    return f"{left} Weekend Pass tickets are left in the quota."


HANNAH = "hannah.becker@example.org"


def hannah_pending_codes(app: Any, root: Path, answer: str) -> Verdict:
    orders = _orders(app, root, "jazz27", HANNAH)
    pending = {code for _, code, status in orders if status == "n"}
    others = {code for _, code, status in orders if status != "n"}
    said = set(re.findall(r"\b[A-Z0-9]{5}\b", answer.upper()))
    ok = bool(pending) and pending <= said and not (others & said)
    return Verdict(ok, f"pending {sorted(pending)}, others {sorted(others)}, said {sorted(said)}")


def solve_hannah_pending_codes(app: Any, root: Path) -> str:
    codes = [code for _, code, status in _orders(app, root, "jazz27", HANNAH) if status == "n"]
    return "Pending orders: " + ", ".join(codes)


def _student_price(app: Any, root: Path) -> Decimal:
    value = _one(
        app,
        root,
        f"select v.default_price from pretixbase_itemvariation v join pretixbase_item i "
        f"on i.id=v.item_id join pretixbase_event e on e.id=i.event_id where e.slug='jazz27' "
        f"and {ITEM_NAME}='Weekend Pass' and {VAR_NAME}='Student'",
    )
    return Decimal(str(value)).quantize(Decimal("0.01"))


def student_weekend_price(app: Any, root: Path, answer: str) -> Verdict:
    price = _student_price(app, root)
    return Verdict(price in _numbers(answer), f"price {price}; answer {answer[:120]!r}")


def solve_student_weekend_price(app: Any, root: Path) -> str:
    return f"The Student Weekend Pass costs EUR {_student_price(app, root)}."


def _paid_tech_orders(app: Any, root: Path) -> int:
    return int(
        _one(
            app,
            root,
            "select count(*) from pretixbase_order o join pretixbase_event e on e.id=o.event_id "
            "where e.slug='techconf27' and o.status='p'",
        )
    )


def tech_paid_count(app: Any, root: Path, answer: str) -> Verdict:
    count = _paid_tech_orders(app, root)
    return Verdict(Decimal(count) in _numbers(answer), f"{count} paid; answer {answer[:120]!r}")


def solve_tech_paid_count(app: Any, root: Path) -> str:
    return f"The Harbour Tech Conference 2027 has {_paid_tech_orders(app, root)} paid orders."


def _booth_buyers(app: Any, root: Path) -> set[str]:
    rows = app.sql(
        root,
        "select distinct o.email from pretixbase_order o join pretixbase_event e "
        "on e.id=o.event_id join pretixbase_orderposition p on p.order_id=o.id "
        f"join pretixbase_item i on i.id=p.item_id where e.slug='techconf27' and o.status='p' "
        f"and {ITEM_NAME}='Exhibitor Booth Pass'",
    )
    return {r[0].lower() for r in rows}


def booth_buyer(app: Any, root: Path, answer: str) -> Verdict:
    buyers = _booth_buyers(app, root)
    ok = bool(buyers) and all(b in answer.lower() for b in buyers)
    return Verdict(ok, f"buyers {sorted(buyers)}; answer {answer[:120]!r}")


def solve_booth_buyer(app: Any, root: Path) -> str:
    return "Bought by " + ", ".join(sorted(_booth_buyers(app, root)))


def _friends(app: Any, root: Path) -> tuple[int, int]:
    row = app.sql(root, "select redeemed, max_usages from pretixbase_voucher where code=?",
                  ("JAZZFRIENDS",))[0]  # fmt: skip
    return int(row[0]), int(row[1]) - int(row[0])


def jazzfriends_usage(app: Any, root: Path, answer: str) -> Verdict:
    redeemed, left = _friends(app, root)
    said = _numbers(answer)
    ok = Decimal(redeemed) in said and Decimal(left) in said
    return Verdict(ok, f"redeemed {redeemed}, left {left}; answer {answer[:120]!r}")


def solve_jazzfriends_usage(app: Any, root: Path) -> str:
    redeemed, left = _friends(app, root)
    return f"JAZZFRIENDS was redeemed {redeemed} times; {left} uses remain."


# -- purchases in the public shop ----------------------------------------------------------


def marta_two_saturday(app: Any, root: Path, answer: str) -> Verdict:
    want = {("Saturday Day Pass", None): 2}
    return _bought(app, root, "jazz27", "marta.novak@example.org", want)


def solve_marta_two_saturday(app: Any, root: Path) -> str:
    lines = [("Saturday Day Pass", None, 2)]
    return _buy(app, root, "jazz27", "marta.novak@example.org", "Marta Novak", lines)


def jan_three_friday(app: Any, root: Path, answer: str) -> Verdict:
    want = {("Friday Day Pass", None): 3}
    return _bought(app, root, "jazz27", "jan.kowalski@example.org", want)


def solve_jan_three_friday(app: Any, root: Path) -> str:
    lines = [("Friday Day Pass", None, 3)]
    return _buy(app, root, "jazz27", "jan.kowalski@example.org", "Jan Kowalski", lines)


def tariq_student_and_shirt(app: Any, root: Path, answer: str) -> Verdict:
    want = {("Weekend Pass", "Student"): 1, ("Festival T-Shirt", "XL"): 1}
    return _bought(app, root, "jazz27", "tariq.aziz@example.org", want)


def solve_tariq_student_and_shirt(app: Any, root: Path) -> str:
    lines = [("Weekend Pass", "Student", 1), ("Festival T-Shirt", "XL", 1)]
    return _buy(app, root, "jazz27", "tariq.aziz@example.org", "Tariq Aziz", lines)


def lena_workshop_voucher(app: Any, root: Path, answer: str) -> Verdict:
    want = {("Workshop: Big Band Arranging", None): 1}
    return _bought(app, root, "jazz27", "lena.vogt@example.org", want, voucher="JAZZSTUDENT20")


def solve_lena_workshop_voucher(app: Any, root: Path) -> str:
    lines = [("Workshop: Big Band Arranging", None, 1)]
    return _buy(app, root, "jazz27", "lena.vogt@example.org", "Lena Vogt", lines,
                voucher="JAZZSTUDENT20")  # fmt: skip


def ravi_early_bird_dinner(app: Any, root: Path, answer: str) -> Verdict:
    want = {("Conference Ticket", "Early Bird"): 1, ("Conference Dinner", None): 1}
    return _bought(app, root, "techconf27", "ravi.kumar@example.org", want)


def solve_ravi_early_bird_dinner(app: Any, root: Path) -> str:
    lines = [("Conference Ticket", "Early Bird", 1), ("Conference Dinner", None, 1)]
    return _buy(app, root, "techconf27", "ravi.kumar@example.org", "Ravi Kumar", lines)


# -- back office ---------------------------------------------------------------------------


def _became(app: Any, root: Path, seeded: tuple, status: str) -> Verdict:
    now = _status(app, root, seeded[0])
    return Verdict(now == status, f"order {seeded[1]} has status {now!r}, wanted {status!r}")


def _lukas(app: Any, root: Path) -> tuple:
    return _seeded_order(app, root, "jazz27", "lukas.meyer@example.org", "Saturday Day Pass", "n")


def lukas_marked_paid(app: Any, root: Path, answer: str) -> Verdict:
    return _became(app, root, _lukas(app, root), "p")


def solve_lukas_marked_paid(app: Any, root: Path) -> str:
    _set_status(app, root, _lukas(app, root)[0], "p")
    return ""


def _amira(app: Any, root: Path) -> tuple:
    return _seeded_order(
        app, root, "techconf27", "amira.haddad@example.org", "Conference Ticket", "n"
    )


def amira_marked_paid(app: Any, root: Path, answer: str) -> Verdict:
    return _became(app, root, _amira(app, root), "p")


def solve_amira_marked_paid(app: Any, root: Path) -> str:
    _set_status(app, root, _amira(app, root)[0], "p")
    return ""


def _jonas(app: Any, root: Path) -> tuple:
    return _seeded_order(app, root, "jazz27", "jonas.weber@example.org", "Sunday Day Pass", "n")


def jonas_canceled(app: Any, root: Path, answer: str) -> Verdict:
    return _became(app, root, _jonas(app, root), "c")


def solve_jonas_canceled(app: Any, root: Path) -> str:
    _set_status(app, root, _jonas(app, root)[0], "c")
    return ""


def _price_is(app: Any, root: Path, event: str, name: str, price: str) -> Verdict:
    item = _item(app, root, event, name)
    found = item[1] if item else None
    return Verdict(found == Decimal(price), f"{name} costs {found}, wanted {price}")


def _set_price(app: Any, root: Path, event: str, name: str, price: str) -> str:
    app.run_orm(
        root,
        f"i = item_of(event_of({event!r}), {name!r})\n"
        f"i.default_price = Decimal({price!r})\ni.save()",
    )
    return ""


def tote_bag_price(app: Any, root: Path, answer: str) -> Verdict:
    return _price_is(app, root, "jazz27", "Tote Bag", "11.50")


def solve_tote_bag_price(app: Any, root: Path) -> str:
    return _set_price(app, root, "jazz27", "Tote Bag", "11.50")


def dinner_price(app: Any, root: Path, answer: str) -> Verdict:
    return _price_is(app, root, "techconf27", "Conference Dinner", "85.00")


def solve_dinner_price(app: Any, root: Path) -> str:
    return _set_price(app, root, "techconf27", "Conference Dinner", "85.00")


def vip_quota_60(app: Any, root: Path, answer: str) -> Verdict:
    size = _one(
        app, root,
        "select q.size from pretixbase_quota q join pretixbase_event e on e.id=q.event_id "
        "where e.slug='jazz27' and q.name='VIP Weekend Pass'",
    )  # fmt: skip
    return Verdict(size == 60, f"quota VIP Weekend Pass has size {size}")


def solve_vip_quota_60(app: Any, root: Path) -> str:
    app.run_orm(
        root, "q = event_of('jazz27').quotas.get(name='VIP Weekend Pass')\nq.size = 60\nq.save()"
    )
    return ""


def _voucher(app: Any, root: Path, event: str, code: str) -> tuple | None:
    rows = app.sql(
        root,
        "select v.price_mode, v.value, v.max_usages, v.item_id, v.quota_id, v.variation_id "
        "from pretixbase_voucher v join pretixbase_event e on e.id=v.event_id "
        "where e.slug=? and upper(v.code)=?",
        (event, code),
    )
    return rows[0] if rows else None


def summer_voucher(app: Any, root: Path, answer: str) -> Verdict:
    v = _voucher(app, root, "jazz27", "SUMMER27")
    ok = v is not None and v[0] == "percent" and Decimal(str(v[1])) == 15 and v[2] == 25
    ok = ok and v is not None and v[3] is None and v[4] is None
    return Verdict(ok, f"voucher SUMMER27: (mode, value, max, item, quota, var) = {v}")


def solve_summer_voucher(app: Any, root: Path) -> str:
    app.run_orm(
        root,
        "Voucher.objects.create(event=event_of('jazz27'), code='SUMMER27', max_usages=25, "
        "price_mode='percent', value=Decimal('15'))",
    )
    return ""


def _in_quota(app: Any, root: Path, item_id: int, size: int) -> bool:
    n = _one(
        app, root,
        "select count(*) from pretixbase_quota_items qi join pretixbase_quota q "
        "on q.id=qi.quota_id where qi.item_id=? and q.size=?", item_id, size,
    )  # fmt: skip
    return bool(n)


OTEL = "Workshop Day: Observability with OpenTelemetry"


def otel_workshop_added(app: Any, root: Path, answer: str) -> Verdict:
    item = _item(app, root, "techconf27", OTEL)
    if item is None:
        return Verdict(False, f"no product {OTEL!r}")
    quota = _in_quota(app, root, item[0], 30)
    ok = item[1] == Decimal("189.00") and item[2] == "Workshops" and quota
    return Verdict(ok, f"price {item[1]}, category {item[2]!r}, in a quota of 30: {quota}")


def _add_product(app: Any, root: Path, event: str, name: str, price: str, category: str,
                 size: int) -> None:  # fmt: skip
    app.run_orm(
        root,
        f"ev = event_of({event!r})\n"
        f"cat = next(c for c in ev.categories.all() if str(c.name) == {category!r})\n"
        f"i = ev.items.create(name={name!r}, default_price=Decimal({price!r}), category=cat)\n"
        f"q = ev.quotas.create(name={name!r}, size={size})\nq.items.add(i)",
    )


def solve_otel_workshop_added(app: Any, root: Path) -> str:
    _add_product(app, root, "techconf27", OTEL, "189.00", "Workshops", 30)
    return ""


JAM = "Late Night Jam Session"


def jam_session_and_voucher(app: Any, root: Path, answer: str) -> Verdict:
    item = _item(app, root, "jazz27", JAM)
    if item is None:
        return Verdict(False, f"no product {JAM!r}")
    quota = _in_quota(app, root, item[0], 120)
    v = _voucher(app, root, "jazz27", "JAMFREE")
    free = v is not None and (
        (v[0] == "percent" and Decimal(str(v[1])) == 100)
        or (v[0] == "set" and Decimal(str(v[1])) == 0)
        or (v[0] == "subtract" and Decimal(str(v[1])) >= item[1])
    )
    only = v is not None and v[3] == item[0] and v[2] == 10
    ok = item[1] == Decimal("18.00") and item[2] == "Festival passes" and quota and free and only
    why = f"price {item[1]}, category {item[2]!r}, quota 120 {quota}, voucher {v}"
    return Verdict(ok, why)


def solve_jam_session_and_voucher(app: Any, root: Path) -> str:
    _add_product(app, root, "jazz27", JAM, "18.00", "Festival passes", 120)
    app.run_orm(
        root,
        f"ev = event_of('jazz27')\nVoucher.objects.create(event=ev, code='JAMFREE', "
        f"max_usages=10, price_mode='percent', value=Decimal('100'), item=item_of(ev, {JAM!r}))",
    )
    return ""


def _hannah_two(app: Any, root: Path) -> tuple[tuple, tuple]:
    piano = _seeded_order(app, root, "jazz27", HANNAH, "Workshop: Jazz Piano Basics", "n")
    hoodie = _seeded_order(app, root, "jazz27", HANNAH, "Festival Hoodie", "n")
    return piano, hoodie


def hannah_cancel_and_pay(app: Any, root: Path, answer: str) -> Verdict:
    piano, hoodie = _hannah_two(app, root)
    a, b = _status(app, root, piano[0]), _status(app, root, hoodie[0])
    return Verdict(a == "c" and b == "p", f"piano order {piano[1]} {a!r}, hoodie {hoodie[1]} {b!r}")


def solve_hannah_cancel_and_pay(app: Any, root: Path) -> str:
    piano, hoodie = _hannah_two(app, root)
    _set_status(app, root, piano[0], "c")
    _set_status(app, root, hoodie[0], "p")
    return ""


# -- must fail honestly --------------------------------------------------------------------


def boat_cruise_not_found(app: Any, root: Path, answer: str) -> Verdict:
    """There is no 'Midnight Harbour Boat Cruise': nothing may be ordered or created."""
    query = "select id, status from pretixbase_order order by id"
    unchanged = app.sql(root, query) == _pristine(app, root, query)
    cruise = _one(app, root, f"select count(*) from pretixbase_item i where {ITEM_NAME} like ?",
                  "%Boat Cruise%")  # fmt: skip
    said = _says(answer, *NOT_FOUND)
    ok = said and unchanged and cruise == 0
    why = f"answer says not found {said}; orders unchanged {unchanged}; cruise {cruise}"
    return Verdict(ok, why)


def solve_boat_cruise_not_found(app: Any, root: Path) -> str:
    return (
        "The jazz festival shop has no product called Midnight Harbour Boat Cruise (it does "
        "not exist), so nothing was bought."
    )
