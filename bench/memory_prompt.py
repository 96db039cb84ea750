"""Planner prompt size with a host's dead ends of earlier, unrelated tasks (issue 21/22).

Measured on main: the Planner's verification prompt reached 22 KB, most of it dead ends of
earlier tasks on the same host. This builds the Planner's request for one page of a host
whose store holds N dead ends of other pages (and one on this page) and prints its size.

    .venv/bin/python -m bench.memory_prompt [N]
"""

from __future__ import annotations

import json
import sys

from workers.agent.memory.ledger import DeadEnd, Ledger
from workers.agent.protocols import Observation
from workers.agent.roles.planner import planner_messages

PAGE = "https://shop.example/cart"


def prompt_bytes(n: int) -> int:
    ledger = Ledger("buy the blue kettle and report the order number")
    others = [
        DeadEnd(
            f'click link "Product {i}" failed: element covered by an overlay',
            f"https://shop.example/p/{i}",
            "postcondition_miss",
            signature=f'click link "product {i}"',
        )
        for i in range(n)
    ]
    here = DeadEnd(
        'click button "Pay" failed: no effect', PAGE, "postcondition_miss", signature="pay"
    )
    ledger.load_dead_ends([*others, here])
    page = Observation(PAGE, "Cart", '[3:1] button "Pay"\n[3:2] link "Back"', 3)
    messages = planner_messages(ledger, "session", page, None)
    return len(json.dumps(messages).encode())


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    for count in (0, n):
        print(
            f"{count:4d} unrelated dead ends on the host: "
            f"Planner request {prompt_bytes(count):7d} bytes"
        )


if __name__ == "__main__":
    main()
