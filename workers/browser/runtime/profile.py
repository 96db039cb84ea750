"""What a task's session may use beyond the page: attached files, an artifact directory and
whether scripts may run (seed 001 App. A.5: uploads come only from the task's attachments).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class SessionProfile:
    """Per-task limits; `artifacts_dir` None means a private temporary directory."""

    attachments: Mapping[str, Path] = field(default_factory=dict)  # name the model uses -> file
    artifacts_dir: Path | None = None
    allow_scripts: bool = False

    @classmethod
    def from_dir(cls, attachments_dir: Path, **kw: object) -> SessionProfile:
        """Every regular file of a directory, by its file name."""
        files = {p.name: p for p in sorted(attachments_dir.iterdir()) if p.is_file()}
        return cls(attachments=files, **kw)  # type: ignore[arg-type]


class Artifacts:
    """The task's artifact directory: downloads, PDFs and screenshots, by unique name."""

    def __init__(self, root: Path | None) -> None:
        self._root = root
        self._private = False  # the root is a temporary directory made here
        self.names: dict[str, Path] = {}

    @property
    def root(self) -> Path:
        if self._root is None:
            self._root = Path(tempfile.mkdtemp(prefix="webagent-artifacts-"))
            self._private = True
        self._root.mkdir(parents=True, exist_ok=True)
        return self._root

    def discard_private(self) -> None:
        """Remove the temporary directory made for a session without a task folder (a
        task's folder is the job's to remove, workers/process/scratch.py)."""
        if self._private and self._root is not None:
            shutil.rmtree(self._root, ignore_errors=True)
            self._root, self._private = None, False

    def path_for(self, wanted: str) -> Path:
        """A fresh path named after `wanted` (suffixed when the name is taken)."""
        name = Path(wanted).name or "file"
        stem, suffix = Path(name).stem, Path(name).suffix
        n = 1
        while name in self.names or (self.root / name).exists():
            n += 1
            name = f"{stem}-{n}{suffix}"
        path = self.root / name
        self.names[name] = path
        return path


ATTACHMENTS = "attachments"
ARTIFACTS = "artifacts"


def task_profile(files_root: str, task_id: str, *, allow_scripts: bool = False) -> SessionProfile:
    """The session profile of one task under the configured files root (empty: a private
    temporary artifact directory and no attachments): `<root>/<task_id>/attachments/` holds
    the files uploaded with the task, `<root>/<task_id>/artifacts/` what the page produced."""
    if not files_root:
        return SessionProfile(allow_scripts=allow_scripts)
    base = Path(files_root) / task_id
    attached = base / ATTACHMENTS
    artifacts = base / ARTIFACTS
    if attached.is_dir():
        return SessionProfile.from_dir(
            attached, artifacts_dir=artifacts, allow_scripts=allow_scripts
        )
    return SessionProfile(artifacts_dir=artifacts, allow_scripts=allow_scripts)
