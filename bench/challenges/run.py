"""Run the challenge pages (serve.py) through `webagent run`, as a user would (issue 31).

Each task of tasks.json runs as `webagent run --json --url <page> <instruction>` in its own
process, with the caller's environment (point WEBAGENT_LLM_BASE_URL at a model or at the
prompt relay, ../shared/tools/relay_llm.py) and one data folder for the whole batch
(`--data-dir`, so memory carries over). A task is solved when it ends `succeeded`, its answer
holds the expected text, and no form was sent that the task never asked for. Printed: one
row per task (status, solved, steps, model calls, error) and the solved count per kind.

Run: .venv/bin/python bench/challenges/run.py --data-dir /tmp/challenges-data \
         [--tasks id,id] [--port 0] [--timeout 1800] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.challenges import serve  # noqa: E402

TASKS = Path(__file__).parent / "tasks.json"


def _task_json(stdout: str) -> dict[str, Any]:
    start = stdout.find("\n{") + 1 if not stdout.startswith("{") else 0
    try:
        found: dict[str, Any] = json.loads(stdout[start:])
    except ValueError:
        return {}
    return found


def run_one(task: dict[str, Any], base: str, data_dir: str, timeout: float) -> dict[str, Any]:
    # this tree's code, not the one the console script was installed from
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "WEBAGENT_DATA_DIR": data_dir, "PYTHONPATH": path}
    before = len(serve.posts)
    started = time.monotonic()
    command = [str(ROOT / ".venv/bin/webagent"), "run", "--json", "--url", f"{base}/{task['page']}"]
    done = subprocess.run(
        [*command, "--timeout", str(timeout), task["instruction"]],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=timeout + 120,
        check=False,
    )
    final = _task_json(done.stdout)
    result = final.get("result") or {}
    answer = str(result.get("answer") or "")
    sent = [path for path, _ in serve.posts[before:]]
    unasked = task.get("never_posted") in sent
    usage = final.get("usage") or {}
    return {
        "id": task["id"],
        "kind": task["kind"],
        "status": final.get("status", f"exit {done.returncode}"),
        "solved": final.get("status") == "succeeded" and task["expect"] in answer and not unasked,
        "answer": answer,
        "steps": final.get("steps") or usage.get("steps"),
        "calls": usage.get("llm_calls") or usage.get("calls"),
        "error": final.get("error") or "",
        "posted": sent,
        "wall_s": round(time.monotonic() - started, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", required=True)
    parser.add_argument("--tasks", default=None)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--timeout", type=float, default=1800.0)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    tasks = json.loads(TASKS.read_text())
    if args.tasks:
        wanted = args.tasks.split(",")
        tasks = [t for t in tasks if t["id"] in wanted]
    server = serve.serve(args.port)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    rows = []
    for task in tasks:
        row = run_one(task, base, args.data_dir, args.timeout)
        rows.append(row)
        print(json.dumps(row), flush=True)
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=2))
    server.shutdown()
    print("\n| task | kind | status | solved | steps | calls | error |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['id']} | {r['kind']} | {r['status']} | {'yes' if r['solved'] else 'no'} | "
            f"{r['steps']} | {r['calls']} | {r['error']} |"
        )
    print(f"\nsolved {sum(r['solved'] for r in rows)}/{len(rows)}")


if __name__ == "__main__":
    main()
