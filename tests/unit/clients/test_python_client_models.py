"""clients/python's models are datamodel-codegen's output for docs/openapi.json, and every
problem code of the document has its exception class."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from webagent_client import errors
from webagent_client.models import ProblemCode

ROOT = Path(__file__).resolve().parents[3]
CLIENT = ROOT / "clients" / "python"
MODELS = CLIENT / "src" / "webagent_client" / "models.py"


def test_models_are_the_generators_output_for_the_openapi_document() -> None:
    bin_dir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    # beside models.py, so that ruff formats it with the same configuration
    with tempfile.NamedTemporaryFile(dir=MODELS.parent, prefix="_check_", suffix=".py") as out:
        done = subprocess.run(
            [str(bin_dir / "datamodel-codegen"), "--output", out.name],
            cwd=CLIENT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        fresh = Path(out.name).read_text()
    assert fresh == MODELS.read_text(), "models.py is stale: run `make client-models`"


def test_every_problem_code_has_its_exception() -> None:
    assert set(errors.BY_CODE) == set(ProblemCode)
    classes = list(errors.BY_CODE.values())
    assert len(set(classes)) == len(classes)
    assert all(issubclass(c, errors.ApiError) and c is not errors.ApiError for c in classes)
