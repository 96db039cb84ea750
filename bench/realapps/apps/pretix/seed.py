"""The pretix seed of the real-apps bench: run once at install with pretix's interpreter after
`orm_helpers.py` (PretixApp.run_python). Organizer "Harbour Lights Events" (slug harbour) with
three events, 54 products (variations, quotas, categories), five staff users in five teams with
different permissions, 40+ orders in every state, and vouchers. Deterministic (no randomness)."""
# ruff: noqa
# mypy: ignore-errors

from pretix.base.models import Team, User, Quota, ItemCategory
from i18nfield.strings import LazyI18nString

PLUGINS = "pretix.plugins.banktransfer,pretix.plugins.ticketoutputpdf,pretix.plugins.sendmail,pretix.plugins.statistics,pretix.plugins.checkinlists,pretix.plugins.reports"

# (category, item name, price, quota size or None for unlimited, variations [(value, price, own quota size)])
JAZZ = [
    ("Festival passes", "Friday Day Pass", "59.00", 400, []),
    ("Festival passes", "Saturday Day Pass", "69.00", 400, []),
    ("Festival passes", "Sunday Day Pass", "59.00", 400, []),
    (
        "Festival passes",
        "Weekend Pass",
        "149.00",
        300,
        [("Regular", "149.00", None), ("Student", "99.00", None), ("Senior", "119.00", None)],
    ),
    ("Festival passes", "VIP Weekend Pass", "349.00", 40, []),
    ("Festival passes", "Children's Day Ticket (6-14)", "15.00", 200, []),
    ("Workshops", "Workshop: Jazz Piano Basics", "35.00", 20, []),
    ("Workshops", "Workshop: Improvisation for Saxophone", "35.00", 20, []),
    ("Workshops", "Workshop: Big Band Arranging", "35.00", 16, []),
    ("Workshops", "Workshop: Vocal Scat Singing", "35.00", 24, []),
    ("Workshops", "Workshop: Rhythm Section Grooves", "35.00", 20, []),
    ("Workshops", "Workshop: Jazz Guitar Voicings", "35.00", 18, []),
    ("Workshops", "Workshop: Trumpet Masterclass", "45.00", 12, []),
    ("Workshops", "Workshop: Music Business for Musicians", "29.00", 40, []),
    (
        "Merchandise",
        "Festival T-Shirt",
        "25.00",
        None,
        [("S", "25.00", 50), ("M", "25.00", 80), ("L", "25.00", 80), ("XL", "27.00", 40)],
    ),
    (
        "Merchandise",
        "Festival Hoodie",
        "55.00",
        100,
        [("S", "55.00", None), ("M", "55.00", None), ("L", "55.00", None), ("XL", "55.00", None)],
    ),
    ("Merchandise", "Poster 2027", "12.00", 150, []),
    ("Merchandise", "Tote Bag", "9.00", 300, []),
    ("Merchandise", "Enamel Mug", "14.00", 120, []),
    ("Merchandise", "Baseball Cap", "19.00", 90, []),
    ("Merchandise", "Vinyl LP: Live at the Harbour 2026", "29.00", 60, []),
    ("Merchandise", "CD: Live at the Harbour 2026", "15.00", 100, []),
    ("Merchandise", "Festival Programme Booklet", "5.00", None, []),
    ("Merchandise", "Umbrella", "22.00", 50, []),
    ("Parking & camping", "Parking Friday", "10.00", 150, []),
    ("Parking & camping", "Parking Saturday", "10.00", 150, []),
    ("Parking & camping", "Parking Sunday", "10.00", 150, []),
    ("Parking & camping", "Parking Weekend", "25.00", 100, []),
    ("Parking & camping", "Camping Tent Pitch", "45.00", 80, []),
    ("Parking & camping", "Campervan Spot", "85.00", 25, []),
    ("Food & drinks", "Food Voucher 10 EUR", "10.00", None, []),
    ("Food & drinks", "Food Voucher 25 EUR", "25.00", None, []),
    ("Food & drinks", "Drinks Package", "30.00", 200, []),
    ("Food & drinks", "Harbour Brunch Sunday", "32.00", 60, []),
]
TECH = [
    (
        "Conference tickets",
        "Conference Ticket",
        "399.00",
        500,
        [("Standard", "399.00", None), ("Early Bird", "299.00", None), ("Student", "149.00", None)],
    ),
    ("Conference tickets", "One-Day Ticket Wednesday", "229.00", 150, []),
    ("Conference tickets", "One-Day Ticket Thursday", "229.00", 150, []),
    ("Conference tickets", "Exhibitor Booth Pass", "990.00", 20, []),
    ("Workshops", "Workshop Day: Kubernetes in Practice", "189.00", 30, []),
    ("Workshops", "Workshop Day: Applied Machine Learning", "189.00", 30, []),
    ("Workshops", "Workshop Day: Secure Web Development", "189.00", 30, []),
    ("Workshops", "Workshop Day: Rust for Backend Teams", "189.00", 25, []),
    ("Workshops", "Hackathon Seat", "25.00", 60, []),
    ("Extras", "Conference Dinner", "79.00", 150, []),
    (
        "Extras",
        "Conference T-Shirt",
        "20.00",
        200,
        [("S", "20.00", None), ("M", "20.00", None), ("L", "20.00", None), ("XL", "20.00", None)],
    ),
    ("Extras", "Video Recordings Access", "49.00", None, []),
    ("Extras", "Parking Garage Day Pass", "15.00", 100, []),
    ("Extras", "Childcare (per day)", "20.00", 15, []),
]
GALA = [
    ("Tickets", "Gala Ticket", "120.00", 200, []),
    ("Tickets", "Gala Table for 8", "900.00", 15, []),
    ("Tickets", "After-Party Ticket", "25.00", 250, []),
    ("Extras", "Champagne Reception", "35.00", 150, []),
    ("Extras", "Coat Check", "3.00", 300, []),
    ("Extras", "Gala Photo Package", "18.00", 80, []),
]
ADMISSION = ("Pass", "Ticket", "Workshop", "Hackathon", "Dinner", "Brunch", "Reception")

STAFF = [
    # email, name, password, team, all events / event slugs, event permissions, organizer permissions
    (
        "olivia.owner@harbour.test",
        "Olivia Owner",
        "Olivia-Pretix-2026!",
        "Owners",
        None,
        "all",
        "all",
    ),
    (
        "ben.boxoffice@harbour.test",
        "Ben Boxoffice",
        "Ben-Pretix-2026!",
        "Box office",
        None,
        ["event.orders:read", "event.orders:write", "event.orders:checkin", "event.vouchers:read"],
        [],
    ),
    (
        "carla.products@harbour.test",
        "Carla Products",
        "Carla-Pretix-2026!",
        "Product managers",
        None,
        ["event.items:write", "event.orders:read", "event.vouchers:read"],
        [],
    ),
    (
        "dan.viewer@harbour.test",
        "Dan Viewer",
        "Dan-Pretix-2026!",
        "Jazz festival viewers",
        ["jazz27"],
        ["event.orders:read"],
        [],
    ),
    (
        "eva.marketing@harbour.test",
        "Eva Marketing",
        "Eva-Pretix-2026!",
        "Marketing",
        None,
        ["event.vouchers:read", "event.vouchers:write", "event.orders:read"],
        [],
    ),
]


def make_event(org, slug, name, start, end, live, products):
    ev = Event.objects.create(
        organizer=org,
        slug=slug,
        name=LazyI18nString({"en": name}),
        currency="EUR",
        date_from=start,
        date_to=end,
        live=live,
        plugins=PLUGINS,
        presale_start=at(2026, 9, 1) if live else None,
    )
    ev.set_defaults()
    ev.checkin_lists.create(name="Default", all_products=True)
    ev.settings.payment_banktransfer__enabled = True
    ev.settings.payment_banktransfer_bank_details_type = "other"
    ev.settings.payment_banktransfer_bank_details = LazyI18nString(
        {"en": "Harbour Lights Events, IBAN DE02 1203 0000 0000 2020 51, Nordbank"}
    )
    ev.settings.payment_banktransfer_invoice_immediately = False
    ev.settings.attendee_names_asked = True
    ev.settings.contact_mail = "tickets@harbour.test"
    ev.settings.imprint_url = "http://127.0.0.1:8602/"
    cats = {}
    for pos, (cat, name, price, size, variations) in enumerate(products):
        if cat not in cats:
            cats[cat] = ItemCategory.objects.create(
                event=ev, name=LazyI18nString({"en": cat}), position=len(cats)
            )
        item = Item.objects.create(
            event=ev,
            name=LazyI18nString({"en": name}),
            default_price=Decimal(price),
            category=cats[cat],
            position=pos,
            active=True,
            admission=any(w in name for w in ADMISSION),
        )
        shared = None
        if size is not None or not variations:
            shared = Quota.objects.create(event=ev, name=name, size=size)
            shared.items.add(item)
        for vpos, (value, vprice, vsize) in enumerate(variations):
            var = ItemVariation.objects.create(
                item=item,
                value=LazyI18nString({"en": value}),
                default_price=Decimal(vprice),
                position=vpos,
            )
            if shared is not None:
                shared.variations.add(var)
            else:
                q = Quota.objects.create(event=ev, name=f"{name} {value}", size=vsize)
                q.items.add(item)
                q.variations.add(var)
    return ev


with scopes_disabled():
    org = Organizer.objects.create(name="Harbour Lights Events", slug="harbour")
    org.plugins = "pretix.plugins.banktransfer"  # a hybrid plugin: on for the organizer too
    org.save()
    org.settings.contact_mail = "tickets@harbour.test"
    jazz = make_event(
        org,
        "jazz27",
        "Harbour Jazz Festival 2027",
        at(2027, 6, 18, 18),
        at(2027, 6, 20, 23),
        True,
        JAZZ,
    )
    tech = make_event(
        org,
        "techconf27",
        "Harbour Tech Conference 2027",
        at(2027, 3, 10, 9),
        at(2027, 3, 11, 18),
        True,
        TECH,
    )
    gala = make_event(
        org, "gala26", "New Year's Gala 2026", at(2026, 12, 31, 19), at(2027, 1, 1, 2), False, GALA
    )
    events = {"jazz27": jazz, "techconf27": tech, "gala26": gala}

    for email, name, pw, team_name, evs, eperms, operms in STAFF:
        given, _, family = name.partition(" ")
        user = User.objects.create(
            email=email, fullname=name, locale="en", timezone="Europe/Berlin"
        )
        user.set_password(pw)
        user.save()
        team = Team.objects.create(
            organizer=org,
            name=team_name,
            all_events=evs is None,
            all_event_permissions=eperms == "all",
            all_organizer_permissions=operms == "all",
            limit_event_permissions={} if eperms == "all" else {p: True for p in eperms},
            limit_organizer_permissions={} if operms == "all" else {p: True for p in operms},
        )
        team.members.add(user)
        for slug in evs or []:
            team.limit_events.add(events[slug])

    friends = Voucher.objects.create(
        event=jazz,
        code="JAZZFRIENDS",
        max_usages=50,
        price_mode="percent",
        value=Decimal("10.00"),
        comment="Friends of the festival",
    )
    student = Voucher.objects.create(
        event=jazz,
        code="JAZZSTUDENT20",
        max_usages=30,
        price_mode="percent",
        value=Decimal("20.00"),
        item=item_of(jazz, "Workshop: Big Band Arranging"),
        comment="Music school partnership",
    )
    Voucher.objects.create(
        event=jazz,
        code="PRESS2027",
        max_usages=10,
        price_mode="set",
        value=Decimal("0.00"),
        item=item_of(jazz, "Weekend Pass"),
        comment="Press accreditation",
    )
    Voucher.objects.create(
        event=jazz,
        code="PARKFREE",
        max_usages=5,
        price_mode="set",
        value=Decimal("0.00"),
        item=item_of(jazz, "Parking Weekend"),
        valid_until=at(2027, 6, 1),
    )
    Voucher.objects.create(
        event=tech,
        code="TECHSPEAKER",
        max_usages=40,
        price_mode="set",
        value=Decimal("0.00"),
        item=item_of(tech, "Conference Ticket"),
        comment="Speakers",
    )
    Voucher.objects.create(
        event=tech,
        code="EARLYTEAM5",
        max_usages=20,
        price_mode="subtract",
        value=Decimal("50.00"),
        comment="Teams of five",
    )
    Voucher.objects.create(
        event=tech,
        code="STARTUP30",
        max_usages=25,
        price_mode="percent",
        value=Decimal("30.00"),
        valid_until=at(2027, 2, 1),
    )
    Voucher.objects.create(
        event=gala,
        code="GALAVIP",
        max_usages=8,
        price_mode="percent",
        value=Decimal("100.00"),
        item=item_of(gala, "Gala Ticket"),
    )

    J, T, G = jazz, tech, gala
    ORDERS = [
        # event, email, name, lines, status, day (Nov 2026 unless > 30 then Oct), voucher, refunded
        (
            J,
            "hannah.becker@example.org",
            "Hannah Becker",
            [("Weekend Pass", "Regular", 2)],
            "p",
            3,
            None,
            False,
        ),
        (
            J,
            "hannah.becker@example.org",
            "Hannah Becker",
            [("Festival Hoodie", "M", 1), ("Parking Weekend", None, 1)],
            "n",
            21,
            None,
            False,
        ),
        (
            J,
            "hannah.becker@example.org",
            "Hannah Becker",
            [("Workshop: Jazz Piano Basics", None, 2)],
            "n",
            24,
            None,
            False,
        ),
        (
            J,
            "hannah.becker@example.org",
            "Hannah Becker",
            [("Umbrella", None, 1)],
            "c",
            5,
            None,
            False,
        ),
        (
            J,
            "lukas.meyer@example.org",
            "Lukas Meyer",
            [("Saturday Day Pass", None, 1), ("Tote Bag", None, 1)],
            "n",
            22,
            None,
            False,
        ),
        (
            J,
            "lukas.meyer@example.org",
            "Lukas Meyer",
            [("Friday Day Pass", None, 1)],
            "p",
            2,
            None,
            False,
        ),
        (
            J,
            "jonas.weber@example.org",
            "Jonas Weber",
            [("Sunday Day Pass", None, 3), ("Parking Sunday", None, 1)],
            "n",
            23,
            None,
            False,
        ),
        (
            J,
            "sofia.rossi@example.org",
            "Sofia Rossi",
            [("VIP Weekend Pass", None, 1)],
            "p",
            4,
            None,
            False,
        ),
        (
            J,
            "tom.fischer@example.org",
            "Tom Fischer",
            [("Weekend Pass", "Senior", 2)],
            "c",
            6,
            None,
            True,
        ),
        (
            J,
            "mia.wagner@example.org",
            "Mia Wagner",
            [("Weekend Pass", "Student", 1), ("Festival T-Shirt", "S", 1)],
            "p",
            7,
            friends,
            False,
        ),
        (
            J,
            "noah.schulz@example.org",
            "Noah Schulz",
            [("Workshop: Big Band Arranging", None, 1)],
            "p",
            8,
            student,
            False,
        ),
        (
            J,
            "emma.hoffmann@example.org",
            "Emma Hoffmann",
            [("Weekend Pass", "Regular", 4), ("Campervan Spot", None, 1)],
            "p",
            9,
            None,
            False,
        ),
        (
            J,
            "leon.koch@example.org",
            "Leon Koch",
            [("Saturday Day Pass", None, 2)],
            "e",
            1,
            None,
            False,
        ),
        (
            J,
            "clara.richter@example.org",
            "Clara Richter",
            [("Workshop: Trumpet Masterclass", None, 1)],
            "p",
            10,
            None,
            False,
        ),
        (
            J,
            "felix.klein@example.org",
            "Felix Klein",
            [("Friday Day Pass", None, 2), ("Drinks Package", None, 2)],
            "p",
            11,
            friends,
            False,
        ),
        (
            J,
            "lina.wolf@example.org",
            "Lina Wolf",
            [("Children's Day Ticket (6-14)", None, 2), ("Saturday Day Pass", None, 2)],
            "p",
            12,
            None,
            False,
        ),
        (
            J,
            "paul.neumann@example.org",
            "Paul Neumann",
            [("Camping Tent Pitch", None, 1), ("Weekend Pass", "Regular", 2)],
            "n",
            25,
            None,
            False,
        ),
        (
            J,
            "ella.schwarz@example.org",
            "Ella Schwarz",
            [("VIP Weekend Pass", None, 2)],
            "c",
            13,
            None,
            True,
        ),
        (
            J,
            "ben.zimmermann@example.org",
            "Ben Zimmermann",
            [("Festival T-Shirt", "L", 2), ("Enamel Mug", None, 1)],
            "p",
            14,
            None,
            False,
        ),
        (
            J,
            "marie.braun@example.org",
            "Marie Braun",
            [("Workshop: Vocal Scat Singing", None, 1)],
            "c",
            15,
            None,
            False,
        ),
        (
            J,
            "finn.krueger@example.org",
            "Finn Krueger",
            [("Weekend Pass", "Student", 2)],
            "p",
            16,
            None,
            False,
        ),
        (
            J,
            "amelie.hartmann@example.org",
            "Amelie Hartmann",
            [("Harbour Brunch Sunday", None, 4)],
            "n",
            26,
            None,
            False,
        ),
        (
            J,
            "elias.lange@example.org",
            "Elias Lange",
            [("VIP Weekend Pass", None, 1), ("Parking Weekend", None, 1)],
            "p",
            17,
            None,
            False,
        ),
        (
            J,
            "lea.schmitt@example.org",
            "Lea Schmitt",
            [("Workshop: Jazz Piano Basics", None, 1)],
            "p",
            18,
            None,
            False,
        ),
        (
            J,
            "anton.werner@example.org",
            "Anton Werner",
            [("Sunday Day Pass", None, 1)],
            "e",
            2,
            None,
            False,
        ),
        (
            T,
            "amira.haddad@example.org",
            "Amira Haddad",
            [("Conference Ticket", "Standard", 1), ("Conference Dinner", None, 1)],
            "n",
            22,
            None,
            False,
        ),
        (
            T,
            "amira.haddad@example.org",
            "Amira Haddad",
            [("Workshop Day: Secure Web Development", None, 1)],
            "p",
            5,
            None,
            False,
        ),
        (
            T,
            "sofia.rossi@example.org",
            "Sofia Rossi",
            [
                ("Conference Ticket", "Early Bird", 1),
                ("Workshop Day: Applied Machine Learning", None, 1),
            ],
            "p",
            6,
            None,
            False,
        ),
        (
            T,
            "david.chen@example.org",
            "David Chen",
            [("Conference Ticket", "Standard", 3)],
            "p",
            7,
            None,
            False,
        ),
        (
            T,
            "priya.nair@example.org",
            "Priya Nair",
            [("Conference Ticket", "Student", 1)],
            "n",
            23,
            None,
            False,
        ),
        (
            T,
            "omar.farouk@example.org",
            "Omar Farouk",
            [("Exhibitor Booth Pass", None, 1)],
            "p",
            8,
            None,
            False,
        ),
        (
            T,
            "julia.berg@example.org",
            "Julia Berg",
            [("One-Day Ticket Wednesday", None, 2)],
            "c",
            9,
            None,
            True,
        ),
        (
            T,
            "marco.bianchi@example.org",
            "Marco Bianchi",
            [
                ("Workshop Day: Kubernetes in Practice", None, 2),
                ("Parking Garage Day Pass", None, 2),
            ],
            "p",
            10,
            None,
            False,
        ),
        (
            T,
            "nina.petrova@example.org",
            "Nina Petrova",
            [("Conference Ticket", "Early Bird", 2), ("Conference T-Shirt", "M", 2)],
            "p",
            11,
            None,
            False,
        ),
        (
            T,
            "lukas.meyer@example.org",
            "Lukas Meyer",
            [("Hackathon Seat", None, 1)],
            "e",
            3,
            None,
            False,
        ),
        (
            T,
            "sara.lind@example.org",
            "Sara Lind",
            [("Workshop Day: Rust for Backend Teams", None, 1)],
            "n",
            24,
            None,
            False,
        ),
        (
            T,
            "kenji.sato@example.org",
            "Kenji Sato",
            [("Video Recordings Access", None, 1)],
            "p",
            12,
            None,
            False,
        ),
        (
            T,
            "lucia.garcia@example.org",
            "Lucia Garcia",
            [("Conference Ticket", "Standard", 1), ("Childcare (per day)", None, 2)],
            "c",
            13,
            None,
            False,
        ),
        (
            G,
            "hannah.becker@example.org",
            "Hannah Becker",
            [("Gala Ticket", None, 2)],
            "p",
            4,
            None,
            False,
        ),
        (
            G,
            "peter.lorenz@example.org",
            "Peter Lorenz",
            [("Gala Table for 8", None, 1), ("Champagne Reception", None, 8)],
            "p",
            5,
            None,
            False,
        ),
        (
            G,
            "greta.vogel@example.org",
            "Greta Vogel",
            [("Gala Ticket", None, 1), ("Coat Check", None, 1)],
            "n",
            20,
            None,
            False,
        ),
        (
            G,
            "karl.jung@example.org",
            "Karl Jung",
            [("After-Party Ticket", None, 3)],
            "c",
            6,
            None,
            True,
        ),
        (
            G,
            "ida.frank@example.org",
            "Ida Frank",
            [("Gala Ticket", None, 2), ("Gala Photo Package", None, 1)],
            "p",
            7,
            None,
            False,
        ),
    ]
    for ev, email, name, lines, status, day, voucher, refunded in ORDERS:
        make_order(
            ev, email, name, lines, status, at(2026, 11, day, 10 + day % 9, day), voucher, refunded
        )
    for v in (friends, student):
        v.redeemed = OrderPosition.objects.filter(voucher=v, order__status__in=("p", "n")).count()
        v.save()
    print("seeded", Item.objects.count(), "items", Order.objects.count(), "orders")
