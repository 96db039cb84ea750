"""The lock file (`constraints.txt`, pip-tools) pins what make and the Dockerfile install, and
Playwright's pin stays close to the Chromium Debian ships (the browser the workers drive)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tomllib
from importlib import metadata
from pathlib import Path

from tests.conftest import unavailable

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "constraints.txt"
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)", re.MULTILINE)
# Playwright drives Debian's Chromium over CDP; a Playwright built for a Chromium more than
# this many major versions newer than Debian's has not been tried by the suite
MAX_MAJOR_GAP = 3


def pins() -> dict[str, str]:
    return {m[1].lower().replace("_", "-"): m[2] for m in PIN.finditer(LOCK.read_text())}


def test_every_direct_dependency_is_pinned() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    requires = [*project["dependencies"], *extras["dev"], *extras["docs"]]  # docs: make docs
    names = {re.split(r"[<>=!~;\[ ]", r, maxsplit=1)[0].lower().replace("_", "-") for r in requires}
    missing = names - set(pins())
    assert missing == set(), f"not in constraints.txt: {sorted(missing)}; run `make lock`"


def test_make_and_docker_install_through_the_lock() -> None:
    assert "-c constraints.txt" in (ROOT / "Makefile").read_text()
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "COPY pyproject.toml README.md constraints.txt" in dockerfile
    assert "-c constraints.txt" in dockerfile


def test_installed_playwright_is_the_pinned_one() -> None:
    assert metadata.version("playwright") == pins()["playwright"]


def _playwright_chromium_major() -> int:
    import playwright

    browsers = Path(playwright.__file__).parent / "driver" / "package" / "browsers.json"
    entries = json.loads(browsers.read_text())["browsers"]
    version = next(b["browserVersion"] for b in entries if b["name"] == "chromium")
    return int(version.split(".")[0])


def test_playwright_is_built_for_a_chromium_close_to_debians() -> None:
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(chromium).exists():
        unavailable("Chromium", f"{chromium} missing (make setup installs it)")
    shown = subprocess.run([chromium, "--version"], capture_output=True, text=True, check=True)
    debian = int(re.search(r"(\d+)\.\d+\.\d+", shown.stdout)[1])  # type: ignore[index]
    wanted = _playwright_chromium_major()
    assert abs(wanted - debian) <= MAX_MAJOR_GAP, (
        f"playwright {pins()['playwright']} is built for Chromium {wanted}, Debian ships "
        f"{debian}: pin a playwright whose browsers.json names a Chromium within "
        f"{MAX_MAJOR_GAP} majors"
    )
