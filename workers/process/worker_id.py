"""Worker ids, without the runtime's imports (the supervisor names its slots with them)."""

from __future__ import annotations

import os
import socket
import uuid


def make_worker_id(label: str = "") -> str:
    """host:pid[:label]:random, unique across restarts (the DB records who ran what)."""
    suffix = f":{label}" if label else ""
    return f"{socket.gethostname()}:{os.getpid()}{suffix}:{uuid.uuid4().hex[:6]}"
