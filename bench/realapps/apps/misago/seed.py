"""Seed of the bench's Misago forum (issue 33): "Tinker Town Makers", a makerspace forum.

Run once by `MisagoApp.install` with the forum's own interpreter and settings
(`DJANGO_SETTINGS_MODULE=realapps_settings`), on the freshly migrated database that then
becomes the pristine template. Deterministic: fixed names, texts and dates, no randomness.
Builds 7 categories, 17 users (admin, two moderators, members, one awaiting activation),
60+ threads with 150+ posts: pinned (category and global), closed, hidden, unapproved.
Facts the tasks ask about are in FACT_THREADS; the filler threads carry none of them.
"""

# ruff: noqa: E501
from __future__ import annotations

import html
from datetime import UTC, datetime, timedelta

import django

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.utils.text import slugify  # noqa: E402

from misago.categories.models import Category, RoleCategoryACL  # noqa: E402
from misago.conf.models import Setting  # noqa: E402
from misago.threads.checksums import update_post_checksum  # noqa: E402
from misago.threads.models import Post, Thread  # noqa: E402
from misago.users.avatars import dynamic  # noqa: E402
from misago.users.models import Rank  # noqa: E402

User = get_user_model()
BASE = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
PASSWORD = "maker-{}-2026"  # each user's password: maker-<username>-2026

SETTINGS = {
    "forum_name": "Tinker Town Makers",
    "logo_text": "Tinker Town Makers",
    "forum_address": "http://127.0.0.1:8603/",
    "default_avatar": "dynamic",
    "default_gravatar_fallback": "dynamic",
    "account_activation": "none",
    "index_header": "Tinker Town Makers",
    "index_message": "The forum of the Tinker Town makerspace: printing, electronics, wood and more.",
}

# username, email, rank ("team" or "members"), superuser, location
USERS = [
    ("marta", "marta.lindqvist@tinkertown.example", "team", True, "Malmo, Sweden"),
    ("oskar", "oskar.brandt@tinkertown.example", "team", False, "Hamburg, Germany"),
    ("priya", "priya.raman@tinkertown.example", "team", False, "Pune, India"),
    ("jonas", "jonas.weber@mailbox.example", "members", False, "Bristol, UK"),
    ("lena_k", "lena.kowalski@mailbox.example", "members", False, "Krakow, Poland"),
    ("farid", "farid.haddad@example.com", "members", False, "Marseille, France"),
    ("hiroshi", "hiroshi.tanaka@example.jp", "members", False, "Osaka, Japan"),
    ("claire", "claire.dubois@example.fr", "members", False, "Nantes, France"),
    ("tomasz", "tomasz.nowak@example.pl", "members", False, "Gdansk, Poland"),
    ("amara", "amara.okafor@example.net", "members", False, "Lagos, Nigeria"),
    ("ben_w", "ben.whitaker@example.co.uk", "members", False, "Leeds, UK"),
    ("sofia", "sofia.marino@example.it", "members", False, "Turin, Italy"),
    ("dmitri", "dmitri.volkov@example.org", "members", False, "Riga, Latvia"),
    ("ines", "ines.carvalho@example.pt", "members", False, "Porto, Portugal"),
    ("kwame", "kwame.mensah@example.com", "members", False, "Accra, Ghana"),
    ("cheap_watches_77", "deals4u@spam-mail.example", "members", False, ""),
]
INACTIVE = ("newbie_ray", "ray.mcallister@example.com")

# name, description, parent name (None: top level)
CATEGORIES = [
    ("Announcements", "News, meetups and rules from the makerspace team.", None),
    ("3D Printing", "FDM and resin printers, slicers, filaments.", None),
    ("Electronics", "Soldering, test gear, circuits and components.", None),
    ("Microcontrollers", "Arduino, ESP32, RP2040 and friends.", "Electronics"),
    ("Woodworking", "Hand tools, the CNC router and the wood shop.", None),
    ("Marketplace", "Buy, sell and swap tools and parts.", None),
    ("Off-topic", "Everything else.", None),
]

# category, title, starter, flags, [(author, text), ...]; the first post is the starter's
FACT_THREADS = [
    (
        "Announcements",
        "Meetup: December build night",
        "marta",
        {"weight": 2},
        [
            (
                "marta",
                "Our December build night is on Thursday 17 December from 18:30 in room B214 of the Old Mill building. Bring a project, we bring pizza.",
            ),
            ("jonas", "Count me in, I will bring the half-finished weather station."),
            ("claire", "Is there parking at the Old Mill?"),
            ("marta", "Yes, the courtyard behind the building is free after 18:00."),
        ],
    ),
    (
        "Announcements",
        "Meetup: January repair café",
        "priya",
        {"weight": 1},
        [
            (
                "priya",
                "The January repair café is on Saturday 16 January from 10:00 in room C108 of the library annex. Bring broken toasters, lamps and radios.",
            ),
            ("tomasz", "I can help with anything that has a motor."),
            ("ines", "Will there be a sewing machine for textile repairs?"),
            ("priya", "Yes, Lena is bringing hers."),
        ],
    ),
    (
        "Woodworking",
        "Wood shop safety rules (read before using the table saw)",
        "oskar",
        {"weight": 1},
        [
            (
                "oskar",
                "1. You must be at least 16 years old to use the table saw, and only after the induction. 2. Push sticks always. 3. The dust extractor runs whenever a machine runs. 4. Never work alone in the wood shop after 21:00.",
            ),
            ("ben_w", "Where do I book the induction?"),
            ("oskar", "Ask any team member on a Thursday evening."),
        ],
    ),
    (
        "Woodworking",
        "Workshop dust extraction on a budget",
        "tomasz",
        {},
        [
            (
                "tomasz",
                "I built a cyclone separator from a 30 litre drum and a shop vac. Total cost about 60 euros. Anyone else done this?",
            ),
            ("amara", "Did you ground the drum? Static can be nasty with fine dust."),
            ("tomasz", "Yes, a copper wire from the inlet to the vac's earth."),
        ],
    ),
    (
        "3D Printing",
        "Ender 3 bed levelling: paper vs feeler gauge",
        "farid",
        {},
        [
            (
                "farid",
                "I keep getting uneven first layers. I level with a sheet of printer paper. Is a feeler gauge better?",
            ),
            (
                "hiroshi",
                "Use a 0.1 mm feeler gauge, it is far more repeatable than paper. Level with the bed at printing temperature.",
            ),
            (
                "lena_k",
                "Also check that the bed springs are not worn out. Yellow springs helped me.",
            ),
            ("farid", "Thanks both, the gauge made a big difference."),
        ],
    ),
    (
        "3D Printing",
        "Which filament dryer is worth it?",
        "claire",
        {},
        [
            ("claire", "My nylon prints are stringy. Which dryer do you use?"),
            ("dmitri", "A cheap food dehydrator at 70 C for six hours works fine for me."),
            ("hiroshi", "For nylon go longer, eight hours at least."),
        ],
    ),
    (
        "3D Printing",
        "Resin printer smell",
        "ines",
        {},
        [
            ("ines", "My new resin printer makes the whole room smell. How do you vent yours?"),
            ("sofia", "An enclosure with a small inline fan to the window helped me."),
        ],
    ),
    (
        "Electronics",
        "Soldering iron tip keeps oxidising",
        "lena_k",
        {},
        [
            (
                "lena_k",
                "My iron tip turns black after a few weeks. I keep it at 400 C. What am I doing wrong?",
            ),
            ("kwame", "400 C is hot for leaded solder, try 330 C."),
        ],
    ),
    (
        "Electronics",
        "Beginner FAQ: choosing your first multimeter",
        "priya",
        {},
        [
            (
                "priya",
                "Short version: get an autoranging meter with CAT III 600 V rating, continuity beeper and a fused 10 A input.",
            ),
            ("jonas", "Good list. I would add: check it has a backlight."),
        ],
    ),
    (
        "Electronics",
        "Selling: box of assorted Arduino shields",
        "ben_w",
        {},
        [
            (
                "ben_w",
                "Motor shield, two relay shields, an Ethernet shield and a proto shield. 25 pounds for the lot, pickup in Leeds.",
            ),
        ],
    ),
    (
        "Microcontrollers",
        "3.3 V regulator for an ESP32 board",
        "dmitri",
        {},
        [
            (
                "dmitri",
                "My ESP32 browns out when WiFi starts. I power it from 5 V through a cheap regulator.",
            ),
            (
                "kwame",
                "Which regulator? The AMS1117 needs at least 22 uF on its output or it oscillates; also add 470 uF bulk near the ESP32.",
            ),
            (
                "dmitri",
                "It was an AMS1117 with a 10 uF cap. Swapped to 22 uF plus bulk and the brown-outs are gone.",
            ),
        ],
    ),
    (
        "Microcontrollers",
        "RP2040 PIO for WS2812 LEDs",
        "hiroshi",
        {"is_closed": True},
        [
            (
                "hiroshi",
                "Sharing my PIO program for driving 300 WS2812 LEDs from a Pico without flicker.",
            ),
            ("jonas", "Works great, thanks!"),
        ],
    ),
    (
        "Marketplace",
        "For sale: Prusa MK3S with enclosure",
        "sofia",
        {},
        [
            (
                "sofia",
                "Selling my Prusa MK3S, about 1500 print hours, with the IKEA Lack enclosure and two spare nozzles. Asking 350 euros, pickup in Turin.",
            ),
            ("farid", "Does it have the MMU2 upgrade?"),
            ("sofia", "No, single extruder only."),
        ],
    ),
    (
        "Marketplace",
        "Wanted: bench vice, 100 mm jaws",
        "amara",
        {},
        [
            ("amara", "Looking for a sturdy bench vice with 100 mm jaws, up to 40 euros."),
        ],
    ),
    (
        "Marketplace",
        "Cheap watches best prices click here",
        "cheap_watches_77",
        {"is_hidden": True},
        [
            ("cheap_watches_77", "Best replica watches, visit our shop for discounts!!!"),
        ],
    ),
    (
        "Woodworking",
        "First dovetail joint attempt",
        "kwame",
        {"is_unapproved": True},
        [
            (
                "kwame",
                "Here is my first hand-cut dovetail in oak. The gaps are big, any advice on sawing to the line?",
            ),
        ],
    ),
    (
        "Off-topic",
        "Best glue for PLA to PLA?",
        "amara",
        {},
        [
            ("amara", "I need to glue two PLA halves of a cosplay helmet. Superglue or epoxy?"),
            ("lena_k", "Thin superglue with an activator for tacking, then epoxy for strength."),
        ],
    ),
    (
        "Off-topic",
        "What podcasts do you listen to in the shop?",
        "jonas",
        {},
        [
            ("jonas", "I need something for long sanding sessions."),
            ("claire", "The Amp Hour for electronics and Making It for everything else."),
            ("tomasz", "Audiobooks, mostly history."),
        ],
    ),
]

FILLER_TITLES = {
    "3D Printing": [
        "PETG stringing on long travel moves",
        "Klipper input shaping results",
        "Printing TPU on a Bowden extruder",
        "Glass bed vs PEI sheet",
        "Nozzle clog after switching to carbon fibre filament",
        "Cura vs PrusaSlicer supports",
        "Layer shifts at high speed",
        "Best infill pattern for functional parts",
        "Annealing PLA for heat resistance",
        "Bambu AMS jams with cardboard spools",
    ],
    "Electronics": [
        "Rigol oscilloscope probe compensation",
        "Desoldering braid vs pump",
        "Building a bench power supply from an ATX unit",
        "Reading resistor colour codes quickly",
        "Fume extractor for the soldering desk",
        "Hot air station recommendations",
        "Why does my 555 timer circuit drift?",
        "Safe lithium cell spot welding",
    ],
    "Microcontrollers": [
        "ESP32 deep sleep current too high",
        "Arduino Nano clone USB driver",
        "MicroPython vs C++ on the Pico",
        "I2C sensor returns 0xFF",
        "Driving a stepper with the A4988",
        "Home Assistant with ESPHome",
    ],
    "Woodworking": [
        "Sharpening chisels with water stones",
        "CNC router spoilboard surfacing",
        "Finishing oak with hard wax oil",
        "Bandsaw blade tension",
        "Making a crosscut sled",
        "Hand plane restoration",
    ],
    "Marketplace": [
        "For sale: spare NEMA 17 motors",
        "Swap: Arduino Mega for a Pico W",
        "Free to collect: old PC power supplies",
        "For sale: set of Japanese pull saws",
    ],
    "Off-topic": [
        "Makerspace playlist",
        "Favourite workshop snacks",
        "Show us your workbench",
        "Winter heating in the shop",
        "Books about the history of computing",
    ],
    "Announcements": [
        "New opening hours from January",
        "Laser cutter out of order until further notice",
    ],
}
FILLER_REPLIES = [
    "I had the same problem last month; a fresh look at the settings fixed it.",
    "Thanks for posting this, very useful.",
    "Could you share a photo of your setup?",
    "Following, I am curious about this too.",
    "We have one at the space you could try on Thursday.",
    "Check the documentation first, it covers this case.",
]
MEMBERS = [
    "jonas",
    "lena_k",
    "farid",
    "hiroshi",
    "claire",
    "tomasz",
    "amara",
    "ben_w",
    "sofia",
    "dmitri",
    "ines",
    "kwame",
]


def configure() -> None:
    for name, value in SETTINGS.items():
        Setting.objects.filter(setting=name).update(dry_value=value)


def make_users() -> dict[str, object]:
    team = Rank.objects.get(slug="forum-team")
    members = Rank.objects.get(slug="members")
    out: dict[str, object] = {}
    for i, (username, email, rank, superuser, location) in enumerate(USERS):
        make = User.objects.create_superuser if superuser else User.objects.create_user
        user = make(
            username,
            email,
            PASSWORD.format(username),
            rank=team if rank == "team" else members,
            joined_on=BASE - timedelta(days=400 - i * 10),
        )
        if rank == "team" and not superuser:
            user.is_staff = False
        if location:
            user.profile_fields = {"location": location}
        user.save()
        dynamic.set_avatar(user)
        user.save()
        out[username] = user
    username, email = INACTIVE
    user = User.objects.create_user(
        username,
        email,
        PASSWORD.format(username),
        rank=members,
        requires_activation=User.ACTIVATION_ADMIN,
        joined_on=BASE - timedelta(days=2),
    )
    dynamic.set_avatar(user)
    user.save()
    return out


def make_categories() -> dict[str, Category]:
    first = Category.objects.get(name="First category")
    acl_source = list(first.category_role_set.all())
    root = Category.objects.root_category()
    out: dict[str, Category] = {}
    for name, description, parent in CATEGORIES:
        if name == "Announcements":
            category = first
            category.set_name(name)
            category.description = description
            category.save()
        else:
            category = Category(description=description)
            category.set_name(name)
            category.insert_at(out[parent] if parent else root, position="last-child", save=True)
            RoleCategoryACL.objects.bulk_create(
                RoleCategoryACL(
                    role_id=a.role_id, category=category, category_role_id=a.category_role_id
                )
                for a in acl_source
            )
        out[name] = category
    return out


def make_thread(category, title, starter, flags, posts, when, users) -> Thread:
    thread = Thread(
        category=category,
        started_on=when,
        last_post_on=when,
        starter_name=starter,
        starter_slug=slugify(starter),
        last_poster_name=starter,
        last_poster_slug=slugify(starter),
        weight=flags.get("weight", 0),
        is_closed=flags.get("is_closed", False),
        is_hidden=flags.get("is_hidden", False),
        is_unapproved=flags.get("is_unapproved", False),
    )
    thread.set_title(title)
    thread.save()
    for n, (author, text) in enumerate(posts):
        posted = when + timedelta(hours=3 * n)
        first = n == 0
        post = Post.objects.create(
            category=category,
            thread=thread,
            poster=users[author],
            poster_name=author,
            original=text,
            parsed=f"<p>{html.escape(text)}</p>",
            checksum="-",
            posted_on=posted,
            updated_on=posted,
            is_hidden=first and thread.is_hidden,
            is_unapproved=first and thread.is_unapproved,
        )
        update_post_checksum(post)
        post.set_search_document(thread.title)
        post.save()
        post.update_search_vector()
        post.save(update_fields=["search_vector"])
        if first:
            thread.first_post = post
    thread.synchronize()
    thread.save()
    return thread


def make_threads(categories, users) -> int:
    count = 0
    day = 0
    for n, (cat, title, starter, flags, posts) in enumerate(FACT_THREADS):
        make_thread(
            categories[cat],
            title,
            starter,
            flags,
            posts,
            BASE - timedelta(days=60 - n * 3, hours=n),
            users,
        )
        count += 1
    for c, (cat, titles) in enumerate(FILLER_TITLES.items()):
        for t, title in enumerate(titles):
            day += 1
            starter = MEMBERS[(c * 5 + t) % len(MEMBERS)]
            replies = [
                (
                    MEMBERS[(c + t + k + 1) % len(MEMBERS)],
                    FILLER_REPLIES[(c + t + k) % len(FILLER_REPLIES)],
                )
                for k in range((c + t) % 4)
            ]
            first = (starter, f"{title}: looking for advice and experiences from the group.")
            make_thread(
                categories[cat],
                title,
                starter,
                {},
                [first, *replies],
                BASE - timedelta(days=90 - day, hours=t),
                users,
            )
            count += 1
    return count


def finish(categories, users) -> None:
    for category in Category.objects.all_categories():
        category.synchronize()
        category.save()
    for user in users.values():
        user.threads = Thread.objects.filter(starter=user).count()
        user.posts = Post.objects.filter(poster=user).count()
        user.save(update_fields=["threads", "posts"])


def main() -> None:
    configure()
    users = make_users()
    categories = make_categories()
    count = make_threads(categories, users)
    for thread in Thread.objects.all():
        starter = users.get(thread.starter_name)
        if starter is not None:
            thread.starter = starter
            thread.save(update_fields=["starter"])
            thread.synchronize()
            thread.save()
    finish(categories, users)
    print(f"seeded {count} threads, {Post.objects.count()} posts, {User.objects.count()} users")


if __name__ == "__main__":
    main()
