"""ORM helpers run with pretix's own interpreter (`PretixApp.run_python` prepends this text):
the seed and the checks' scripted solves make orders the same way. Not imported by webagent."""
# ruff: noqa
# mypy: ignore-errors

import datetime as _dt
from decimal import Decimal

from django.utils.timezone import make_aware
from django_scopes import scopes_disabled
from pretix.base.models import (
    Event,
    InvoiceAddress,
    Item,
    ItemVariation,
    Order,
    OrderPayment,
    OrderPosition,
    OrderRefund,
    Organizer,
    Voucher,
)


def at(y, m, d, hh=12, mm=0):
    return make_aware(_dt.datetime(y, m, d, hh, mm))


def event_of(slug):
    return Event.objects.get(organizer__slug="harbour", slug=slug)


def item_of(event, name):
    return next(i for i in event.items.all() if str(i.name) == name)


def variation_of(item, value):
    return next(v for v in item.variations.all() if str(v.value) == value)


def parts(name):
    given, _, family = name.partition(" ")
    return {"_scheme": "given_family", "given_name": given, "family_name": family}


def make_order(event, email, name, lines, status="n", when=None, voucher=None, refunded=False):
    """lines: (item name, variation value or None, count); status n/p/c/e."""
    when = when or at(2026, 11, 20)
    channel = event.organizer.sales_channels.get(identifier="web")
    order = Order.objects.create(
        event=event,
        email=email,
        status="n",
        datetime=when,
        expires=at(2027, 1, 31),
        total=Decimal("0.00"),
        locale="en",
        sales_channel=channel,
    )
    total = Decimal("0.00")
    pid = 1
    for item_name, value, count in lines:
        item = item_of(event, item_name)
        var = variation_of(item, value) if value else None
        price = var.default_price if var and var.default_price is not None else item.default_price
        if voucher is not None and (voucher.item_id in (None, item.pk)):
            price = voucher.calculate_price(price)
        for _ in range(count):
            OrderPosition.objects.create(
                order=order,
                item=item,
                variation=var,
                price=price,
                positionid=pid,
                attendee_name_parts=parts(name) if item.admission else {},
                voucher=voucher
                if voucher is not None and voucher.item_id in (None, item.pk)
                else None,
            )
            total += price
            pid += 1
    order.total = total
    InvoiceAddress.objects.create(order=order, name_parts=parts(name))
    payment = order.payments.create(amount=total, provider="banktransfer", state="created")
    if status in ("p", "c") and (status == "p" or refunded):
        payment.state = "confirmed"
        payment.payment_date = when + _dt.timedelta(days=2)
        payment.save()
    if refunded:
        order.refunds.create(
            amount=total,
            provider="banktransfer",
            state="done",
            source="admin",
            payment=payment,
            execution_date=when + _dt.timedelta(days=9),
        )
    if status in ("c", "e") and not refunded:
        payment.state = "canceled"
        payment.save()
    order.status = status
    if status == "c":
        order.cancellation_date = when + _dt.timedelta(days=8)
    order.save()
    order.create_transactions(is_new=True, dt_now=when)
    return order
