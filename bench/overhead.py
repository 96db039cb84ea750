"""Per-step framework overhead: the real worker vs a bare Playwright loop on the same page.

"Overhead" is everything in a step except model latency. Both loops run on the same local
page (a list that grows by one item per click, through a fetch to the page's server, so the
settle logic meets a real request) and in the same Chromium, interleaved episode by episode:

  webagent  the production job path, `workers.jobs.execute` on a WorkerRuntime: observe, the
            Worker's model call through the OpenAI client to a scripted local server that
            sleeps `--latency` seconds, the click with its effect check, screenshot, events,
            ledger and memory rows (SQLite file, or --db). Per step k (2..N-1, so the opening
            Planner call and the final verification are outside the window): the interval
            between `step.started` events minus the latency of the step's `llm.call`s.
  bare      aria_snapshot() of the body, the "model" (asyncio.sleep(latency), with a JPEG
            screenshot taken meanwhile), a role-locator click, and a wait until the new item
            shows. Overhead = step time minus the latency.

Also printed: CPU per step (`cpu_ms_per_step`): the CPU time the machine spent on each loop
(this process plus every process under it: the Playwright drivers and the Chromiums), read
around each loop's episodes (they run one after the other, so each loop's own processes are
the busy ones) and divided by its steps: the load-independent cost of a step, where the wall
times above grow with the machine's load. And: Playwright protocol calls per step (every
message the client sends to the driver, counted per thread: the worker runtime's loop vs the
bare loop; whole episodes, opening navigation included, divided by their steps). Under CPU
contention each such round trip costs far more than its idle time.

Run: .venv/bin/python bench/overhead.py [--episodes 6] [--steps 8] [--latency 0.3] [--humanize]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import re
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright._impl import connection  # noqa: E402
from playwright.async_api import Browser, async_playwright  # noqa: E402

from app.db import repositories  # noqa: E402
from app.db.migrate import upgrade  # noqa: E402
from app.events import MemoryEventBus  # noqa: E402
from app.settings import Settings  # noqa: E402
from bench.support import machine, pct  # noqa: E402
from tests.support.background import BackgroundServer  # noqa: E402
from tests.support.llm_server import Reply, ScriptedLLMServer, tool_reply  # noqa: E402
from tests.support.policies import latest_observation  # noqa: E402
from workers import jobs  # noqa: E402
from workers.process.runtime import WorkerRuntime  # noqa: E402

PAGE = """<!doctype html><html><head><title>Inventory</title></head><body>
<header><h1>Inventory</h1><nav>{links}</nav></header>
<main><p id="count">Items: 0</p><button id="add">Add item</button><ul id="items"></ul>
<section><h2>About</h2>{paras}</section></main>
<script>
let n = 0;
document.getElementById('add').addEventListener('click', async () => {{
  const r = await fetch('/api/add?n=' + (n + 1));
  const body = await r.json();
  n = body.n;
  const li = document.createElement('li');
  li.textContent = 'Item ' + n;
  document.getElementById('items').appendChild(li);
  document.getElementById('count').textContent = 'Items: ' + n;
}});
</script></body></html>"""


def _page() -> str:
    links = "".join(f'<a href="/p{i}">Section {i}</a> ' for i in range(20))
    paras = "".join(
        f"<p>Paragraph {i}: stock levels, suppliers and delivery notes.</p>" for i in range(30)
    )
    return PAGE.format(links=links, paras=paras)


class _Site(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        if self.path.startswith("/api/add"):
            n = int(self.path.split("n=", 1)[1])
            body, kind = json.dumps({"n": n}).encode(), "application/json"
        else:
            body, kind = _page().encode(), "text/html; charset=utf-8"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


COUNT = re.compile(r"Items: (\d+)")
CALLS: Counter[int] = Counter()  # protocol messages sent, per thread


def count_calls() -> None:
    """Count every message the Playwright client sends, by the thread that sends it."""
    send = connection.Connection.send_message_to_server

    def counted(self: Any, obj: Any, method: str, params: Any, options: Any) -> Any:
        if method != "__waitInfo__":
            CALLS[threading.get_ident()] += 1
        return send(self, obj, method, params, options)

    connection.Connection.send_message_to_server = counted  # type: ignore[method-assign,assignment]


def policy(steps: int, latency: float) -> Any:
    """Click "Add item" until the page shows `steps - 1` items, then done."""

    def answer(request: dict[str, Any]) -> Reply:
        text = latest_observation(request)
        count = COUNT.search(text)
        if count and int(count.group(1)) >= steps - 1:
            reply = tool_reply(("done", {"answer": count.group(0), "success": True}))
        else:
            line = next((ln for ln in text.splitlines() if "Add item" in ln), "")
            ref = re.search(r"\d+:\d+", line)
            reply = tool_reply(("click", {"ref": ref.group(0) if ref else "0:0"}))
        return dataclasses.replace(reply, delay_s=latency)

    return answer


def cpu_s() -> float:
    """CPU seconds (user + system) of this process and all its live descendants."""
    tick = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    times: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        pid = int(entry.name)
        parents[pid] = int(fields[1])
        times[pid] = (int(fields[11]) + int(fields[12])) / tick
    own = {os.getpid()}
    grew = True
    while grew:
        found = {pid for pid, parent in parents.items() if parent in own} - own
        grew = bool(found)
        own |= found
    return sum(times[pid] for pid in own if pid != os.getpid()) + time.process_time()


async def framework_episode(rt: WorkerRuntime, url: str, steps: int) -> list[float]:
    async with rt.sessions() as s:
        task, _ = await repositories.create_task(
            s,
            tenant_id="default",
            instruction="Add items to the inventory list until it has enough, then report it",
            start_url=url,
            max_steps=steps + 2,
            timeout_s=300,
            allowed_domains=(),
            metadata={},
        )
        await s.commit()
        task_id = task.id
    claimed = await jobs._claim(rt, task_id)
    assert claimed is not None
    await jobs.execute(rt, claimed)
    async with rt.sessions() as s:
        rows = await repositories.list_events(s, task_id=task_id)
        final = await repositories.get_task(s, task_id=task_id)
    assert final is not None and final.status == "succeeded", final and final.error_detail
    started = {r.data["step"]: r.ts for r in rows if r.type == "step.started"}
    llm: dict[int, float] = {}
    for r in rows:
        if r.type == "llm.call" and r.data.get("step") is not None:
            llm[r.data["step"]] = llm.get(r.data["step"], 0.0) + float(r.data["latency_s"])
    out = []
    for k in range(2, max(started)):
        if k + 1 in started:
            wall = (started[k + 1] - started[k]).total_seconds()
            out.append((wall - llm.get(k, 0.0)) * 1000)
    return out


async def bare_episode(browser: Browser, url: str, steps: int, latency: float) -> list[float]:
    context = await browser.new_context()
    page = await context.new_page()
    await page.goto(url)
    out = []
    try:
        for k in range(1, steps):
            t0 = time.perf_counter()
            await page.locator("body").aria_snapshot()
            await asyncio.gather(page.screenshot(type="jpeg", quality=70), asyncio.sleep(latency))
            await page.get_by_role("button", name="Add item").click()
            await page.get_by_text(f"Item {k}", exact=True).wait_for()
            out.append((time.perf_counter() - t0 - latency) * 1000)
    finally:
        await context.close()
    return out[1:]  # same window as the framework: not the first step


def settings(args: argparse.Namespace, llm: ScriptedLLMServer, data: str, db: str) -> Settings:
    return Settings(
        chromium_path=args.chromium,
        database_url=db,
        llm_base_url=llm.base_url,
        llm_max_retries=0,
        allow_private_networks=True,
        data_dir=data,
        humanize=args.humanize,  # seed 000 §6.3 cursor paths: a deliberate cost, off unless asked
    )


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    with (
        BackgroundServer(_Site) as site,
        ScriptedLLMServer(policy(args.steps, args.latency)) as llm,
        tempfile.TemporaryDirectory() as data,
    ):
        db = args.db or f"sqlite+aiosqlite:///{data}/bench.db"
        upgrade(db)
        rt = WorkerRuntime(settings(args, llm, data, db), MemoryEventBus())
        await asyncio.to_thread(rt.start)
        ours: list[float] = []
        bare: list[float] = []
        count_calls()
        worker = await asyncio.to_thread(rt.run, _thread_id, 30)
        try:
            async with async_playwright() as pw:
                browser = await pw.chromium.launch(executable_path=args.chromium)
                CALLS.clear()  # from here on: the episodes only
                cpu = {"webagent": 0.0, "bare": 0.0}
                for _ in range(args.episodes):
                    url = f"{site.origin}/"
                    started = cpu_s()
                    ours += await asyncio.to_thread(
                        rt.run, lambda u=url: framework_episode(rt, u, args.steps), 300
                    )
                    between = cpu_s()
                    bare += await bare_episode(browser, url, args.steps, args.latency)
                    cpu["webagent"] += between - started
                    cpu["bare"] += cpu_s() - between
                await browser.close()
        finally:
            await asyncio.to_thread(rt.stop)
    ratio = statistics.median(ours) / statistics.median(bare)
    steps = args.episodes * args.steps
    bare_calls = sum(n for t, n in CALLS.items() if t != worker)
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "load": os.getloadavg()[0],
        "latency_s": args.latency,
        "humanize": args.humanize,
        "webagent_ms": {"n": len(ours), "p50": statistics.median(ours), "p95": pct(ours, 95)},
        "bare_ms": {"n": len(bare), "p50": statistics.median(bare), "p95": pct(bare, 95)},
        "ratio_p50": round(ratio, 2),
        "calls_per_step": {"webagent": CALLS[worker] / steps, "bare": bare_calls / steps},
        "cpu_ms_per_step": {k: v * 1000 / steps for k, v in cpu.items()},
        "cpu_ratio": round(cpu["webagent"] / cpu["bare"], 2),
    }


async def _thread_id() -> int:
    return threading.get_ident()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=6)
    parser.add_argument("--steps", type=int, default=8)
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--humanize", action="store_true", help="WEBAGENT_HUMANIZE=true")
    parser.add_argument("--db", default="", help="database URL (default: a SQLite file)")
    parser.add_argument("--chromium", default=os.environ.get("WEBAGENT_CHROMIUM_PATH", ""))
    args = parser.parse_args()
    if not args.chromium:
        args.chromium = "/usr/bin/chromium"
    out = asyncio.run(main_async(args))
    print(json.dumps(out, indent=2, default=lambda v: round(v, 1)))


if __name__ == "__main__":
    main()
