"""Files uploaded with a task (table task_attachments, migrations 0008 and 0016): metadata
rows here, bytes in the artifact store (app/store/records.py add_attachments and
load_attachments); the worker that runs the task stages them for upload_file (seed 001
App. A.5: upload_file uses only these)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Attachment:
    name: str
    media_type: str
    data: bytes
