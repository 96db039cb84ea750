"""Per-task files: attachments the model may upload, an artifact directory for downloads."""

from __future__ import annotations

from pathlib import Path

from workers.browser.runtime.profile import Artifacts, task_profile


def test_task_profile_reads_the_tasks_attachments(tmp_path: Path) -> None:
    attached = tmp_path / "t1" / "attachments"
    attached.mkdir(parents=True)
    (attached / "cv.pdf").write_bytes(b"%PDF")
    profile = task_profile(str(tmp_path), "t1")
    assert dict(profile.attachments) == {"cv.pdf": attached / "cv.pdf"}
    assert profile.artifacts_dir == tmp_path / "t1" / "artifacts"
    assert not profile.allow_scripts
    other = task_profile(str(tmp_path), "t2", allow_scripts=True)
    assert dict(other.attachments) == {} and other.allow_scripts
    assert task_profile("", "t3").artifacts_dir is None


def test_artifact_names_never_overwrite(tmp_path: Path) -> None:
    store = Artifacts(tmp_path / "a")
    first = store.path_for("receipt.csv")
    first.write_text("1")
    second = store.path_for("../receipt.csv")
    assert first.name == "receipt.csv" and second.name == "receipt-2.csv"
    assert second.parent == tmp_path / "a"
