"""bench/soak.py's fd and RSS rules: a growing worker fails, renderer churn alone passes."""

from __future__ import annotations

from bench.soak import FDS_TOLERANCE, Footprint, fds_verdict, rss_verdict, settle


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


def test_a_younger_browser_passes_and_a_growing_one_fails() -> None:
    early = tree(24, 3)
    fewer, more = tree(24, 3), tree(24, 3)
    fewer["browser"]["fds"] = 104  # recycled: a new browser main without a gpu child
    more["browser"]["fds"] = 119 + FDS_TOLERANCE + 1
    assert fds_verdict(settle([early]), settle([fewer]))["fds_ok"]
    assert not fds_verdict(settle([early]), settle([more]))["fds_ok"]


def test_the_standby_chromium_is_compared_per_process() -> None:
    early, late = tree(24, 3), tree(24, 3)
    early["standby:renderer"] = {"procs": 1, "fds": 31, "rss_mb": 100.0}
    late["standby:renderer"] = {"procs": 2, "fds": 63, "rss_mb": 200.0}
    verdict = fds_verdict(settle([early]), settle([late]))
    assert verdict["fds_delta_by_kind"]["standby:renderer"] == 0.5
    assert verdict["fds_ok"]


def test_rss_counts_python_and_driver_not_exited_renderers() -> None:
    early, late = tree(24, 3), tree(24, 0)
    late["renderer"]["rss_mb"] = 0.0  # the last pages' renderers have exited
    assert rss_verdict(settle([early]), settle([late]))["rss_ok"]
    late["worker"]["rss_mb"] = 250.0 * 1.5  # the worker grew by half
    assert not rss_verdict(settle([early]), settle([late]))["rss_ok"]


def test_a_kind_that_shrank_is_no_leak_but_one_that_grew_is() -> None:
    """The 500-task run of 2026-11-26 21:27: the idle standby's driver fell 11.9%."""
    early, late = tree(24, 3), tree(24, 3)
    early["standby:driver"] = {"procs": 1, "fds": 25, "rss_mb": 130.0}
    late["standby:driver"] = {"procs": 1, "fds": 25, "rss_mb": 130.0 * 0.881}
    verdict = rss_verdict(settle([early]), settle([late]))
    assert verdict["rss_ok"] and verdict["rss_delta_pct_by_kind"]["standby:driver"] == -11.9
    late["worker"]["rss_mb"] = 250.0 * 1.12  # one kind grew by 12%: the total stays in bounds
    verdict = rss_verdict(settle([early]), settle([late]))
    assert abs(verdict["rss_delta_pct"]) <= 10 and not verdict["rss_ok"]
