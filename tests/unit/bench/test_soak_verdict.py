"""bench/soak.py's fd rule: a growing worker fails, renderer churn alone passes."""

from __future__ import annotations

from bench.soak import FDS_TOLERANCE, Footprint, fds_verdict, settle


def tree(worker_fds: int, renderers: int, renderer_fds: int = 31) -> Footprint:
    """A worker tree footprint: worker python, driver, standby, Chromium main + renderers."""
    return {
        "worker": {"procs": 1, "fds": worker_fds, "rss_mb": 250.0},
        "driver": {"procs": 1, "fds": 25, "rss_mb": 130.0},
        "standby": {"procs": 11, "fds": 352, "rss_mb": 1300.0},
        "browser": {"procs": 1, "fds": 119, "rss_mb": 217.0},
        "renderer": {"procs": renderers, "fds": renderers * renderer_fds, "rss_mb": 120.0},
    }


def test_a_steadily_growing_worker_fails() -> None:
    early = settle([tree(24 + i, 3) for i in range(5)])
    late = settle([tree(24 + 40 + i, 3) for i in range(5)])  # 8 fds leaked per 10% of tasks
    verdict = fds_verdict(early, late)
    assert verdict["fds_delta_by_kind"]["worker"] == 40
    assert not verdict["fds_ok"]


def test_a_leak_just_over_the_bound_fails_and_at_the_bound_passes() -> None:
    early = settle([tree(24, 3)])
    assert fds_verdict(early, settle([tree(24 + FDS_TOLERANCE, 3)]))["fds_ok"]
    assert not fds_verdict(early, settle([tree(24 + FDS_TOLERANCE + 1, 3)]))["fds_ok"]


def test_renderer_churn_alone_passes() -> None:
    early = settle([tree(24, n) for n in (3, 5, 3, 4, 3)])
    late = settle([tree(24, n, renderer_fds=30) for n in (2, 2, 4, 2, 2)])
    verdict = fds_verdict(early, late)
    assert verdict["fds_ok"]
    assert abs(verdict["fds_delta_tree_sum"]) > FDS_TOLERANCE  # the old whole-tree sum failed


def test_renderers_piling_up_fail() -> None:
    early = settle([tree(24, 3)])
    late = settle([tree(24, 9)])  # pages left open: their renderers stay
    verdict = fds_verdict(early, late)
    assert verdict["chromium_procs_delta"] == 6
    assert not verdict["fds_ok"]


def test_a_kind_absent_at_one_mark_is_listed_not_compared() -> None:
    early = tree(24, 3)
    del early["standby"]  # still warming up at the 10% mark
    verdict = fds_verdict(settle([early]), settle([tree(24, 3)]))
    assert verdict["fds_not_compared"] == ["standby"]
    assert "standby" not in verdict["fds_delta_by_kind"]
    assert verdict["fds_ok"]
