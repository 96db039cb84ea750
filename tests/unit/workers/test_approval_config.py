"""Task supervision from approval_policy and the operator's challenge solver setting."""

from __future__ import annotations

import pytest

from app.contracts import TaskSpec
from app.settings import Settings
from workers.adapters.approval_gate import load_solver, supervision_of
from workers.agent.errors import ConfigurationError
from workers.agent.protocols import Browser, Challenge


class Solver:
    """What an operator plugs in: any object with `async solve(challenge, browser)`."""

    async def solve(self, challenge: Challenge, browser: Browser) -> bool:
        return False


NOT_A_SOLVER = object()


def spec(policy: str) -> TaskSpec:
    return TaskSpec(
        task_id="t", instruction="x", max_steps=1, timeout_s=1.0, approval_policy=policy
    )


def test_policy_decides_what_is_supervised() -> None:
    on = supervision_of(spec("sensitive"), Settings())
    assert on.sensitive_actions and on.challenges and on.solver is None
    off = supervision_of(spec("none"), Settings())
    assert not off.sensitive_actions and not off.challenges


def test_an_operators_solver_is_loaded_by_path() -> None:
    settings = Settings(challenge_solver=f"{__name__}:Solver")
    assert isinstance(supervision_of(spec("sensitive"), settings).solver, Solver)
    assert load_solver("") is None


@pytest.mark.parametrize(
    "path", ["no.such.module:x", f"{__name__}:Missing", f"{__name__}:NOT_A_SOLVER"]
)
def test_a_bad_solver_path_is_a_configuration_error(path: str) -> None:
    with pytest.raises(ConfigurationError, match="WEBAGENT_CHALLENGE_SOLVER"):
        load_solver(path)
