"""Cost of the private-network guard on page loads: direct vs through the egress proxy.

Same pool code, same page (one HTML document with 40 sub-resources and 300 KB of text),
served locally. "guarded" is the production default (allow_private_networks=false: context
router + SOCKS5 egress proxy that resolves and checks every connection); a resolver override
makes the local server look public, as in tests/integration/workers/test_egress.py.
"direct" is allow_private_networks=true (no router, no proxy).

Run: .venv/bin/python bench/runtime/egress_overhead.py [--loads 30]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from app.settings import Settings  # noqa: E402
from app.urlpolicy import system_resolve  # noqa: E402
from workers.browser.runtime.pool import BrowserPool  # noqa: E402

PUBLIC_IP = "93.184.216.34"  # what the override resolves bench.test to
PIXEL = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082"
)
ASSETS = 40
PAGE = (
    "<html><head><title>bench</title></head><body>"
    + "".join(f'<img src="/a/{i}.png" width=8 height=8>' for i in range(ASSETS))
    + "".join(f"<p>paragraph {i} " + "lorem ipsum " * 50 + "</p>" for i in range(500))
    + "</body></html>"
).encode()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        body, kind = (PIXEL, "image/png") if self.path.startswith("/a/") else (PAGE, "text/html")
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):  # the context closed mid-transfer
            return

    def log_message(self, *args: object) -> None:
        return


def _resolve(host: str) -> list[str]:
    return [PUBLIC_IP] if host == "bench.test" else system_resolve(host)


def _connector(port: int):  # type: ignore[no-untyped-def]
    async def connect(host: str, _port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        return await asyncio.open_connection("127.0.0.1" if host == PUBLIC_IP else host, port)

    return connect


async def _loads(pool: BrowserPool, url: str, n: int) -> list[float]:
    times: list[float] = []
    await pool.start()
    try:
        for _ in range(n + 1):
            async with pool.context() as page:
                t0 = time.perf_counter()
                await page.goto(url, wait_until="load")
                times.append((time.perf_counter() - t0) * 1000)
    finally:
        await pool.close()
    return times[1:]  # the first load warms Chromium's caches of code, not of content


async def main(loads: int) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    direct = BrowserPool(Settings(allow_private_networks=True))
    guarded = BrowserPool(
        Settings(allow_private_networks=False), resolve=_resolve, connect=_connector(port)
    )
    results = {}
    for name, pool, url in (
        ("direct", direct, f"http://127.0.0.1:{port}/"),
        ("guarded", guarded, f"http://bench.test:{port}/"),
    ):
        results[name] = await _loads(pool, url, loads)
    server.shutdown()
    med = {k: statistics.median(v) for k, v in results.items()}
    print(f"page + {ASSETS} sub-resources, {len(PAGE) // 1024} KB HTML, {loads} loads each")
    print("| path | load p50 ms | load max ms |")
    print("|---|---|---|")
    for name, values in results.items():
        print(f"| {name} | {med[name]:.1f} | {max(values):.1f} |")
    print(f"guarded / direct (p50): {med['guarded'] / med['direct']:.2f}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=30)
    asyncio.run(main(parser.parse_args().loads))
