"""Per-task scratch folders: `<root>/<task_id>/` holds a task's staged attachments and what
its page produced (downloads, PDFs) until the task ends (issue 25).

The root is `WEBAGENT_TASK_FILES_DIR`, else a folder in the system temp dir named after the
database, so two deployments on one machine (tests, helpers) never sweep each other's
folders. The job removes its task's folder when the task ends; a worker that crashed
mid-task leaves it behind, and the supervisor's sweep (workers/process/housekeeping.py)
removes the folders of tasks that are no longer live.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import shutil
import tempfile
from pathlib import Path

from sqlalchemy.engine import make_url

TASK_ID = re.compile(r"^[0-9a-f]{32}$")  # app.db.models.new_id


def scratch_root(files_dir: str, database_url: str) -> Path:
    """Where the per-task folders of this deployment live. A relative SQLite path is made
    absolute first: the default `.webagent/webagent.db` of two services started in two
    folders names two databases, so it must name two roots (issue 31 item 1)."""
    if files_dir:
        return Path(files_dir)
    tag = hashlib.sha256(_absolute(database_url).encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"webagent-tasks-{tag}"


def _absolute(database_url: str) -> str:
    url = make_url(database_url)
    path = url.database
    if not url.drivername.startswith("sqlite") or not path or path == ":memory:":
        return database_url
    if Path(path).is_absolute():
        return database_url
    return url.set(database=str(Path(path).resolve())).render_as_string(hide_password=False)


def last_change(folder: Path) -> float:
    """When anything in a task's folder last changed (the newest mtime in it)."""
    stamps = [folder.stat().st_mtime]
    for path in folder.rglob("*"):
        with contextlib.suppress(OSError):  # removed while we looked
            stamps.append(path.stat().st_mtime)
    return max(stamps)


def remove_task_dir(root: Path, task_id: str) -> bool:
    """Remove one task's folder (and everything in it); whether there was one."""
    folder = root / task_id
    if not folder.is_dir():
        return False
    shutil.rmtree(folder, ignore_errors=True)
    return True


def task_dirs(root: Path) -> list[str]:
    """The task ids that have a folder under `root`."""
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if p.is_dir() and TASK_ID.match(p.name))
