"""Private regions named by landmark instead of CSS (workers/browser/runtime/regions.py,
issue 12)."""

from __future__ import annotations

import pytest

from workers.browser.runtime.regions import HiddenRegionError, HiddenRegions, expand


def test_landmark_roles_expand_to_native_elements_and_roles() -> None:
    assert expand("landmark:navigation") == 'nav, [role="navigation"]'
    assert expand("LANDMARK:Main") == 'main, [role="main"]'
    assert expand("#inbox .row") == "#inbox .row"  # a selector stays as given


def test_a_landmark_label_matches_its_aria_label() -> None:
    assert expand("landmark:Messages") == '[aria-label="Messages" i]'
    assert HiddenRegions.of(["landmark:Messages"]).selectors == ('[aria-label="Messages" i]',)


@pytest.mark.parametrize("bad", ['landmark:a"b', "landmark:", "landmark:" + "x" * 81])
def test_a_label_that_could_break_out_of_the_selector_is_refused(bad: str) -> None:
    with pytest.raises(HiddenRegionError):
        HiddenRegions.of([bad])
