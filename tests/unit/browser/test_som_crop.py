"""Issue 26 item 6: the Set-of-Mark crop holds every tagged element (and its tag), not only
the box the page's content measured."""

from __future__ import annotations

from workers.browser.observe.som import TAG_PX, covering, crop_region


def test_crop_holds_every_tagged_box() -> None:
    content = (0.0, 0.0, 99.0, 40.0)  # "viewport from x=0 to 99" hid the icons
    icons = [(900.0, 10.0, 20.0, 20.0), (950.0, 300.0, 16.0, 16.0)]
    x, y, w, h = crop_region(covering(content, icons), 1280, 800)
    for bx, by, bw, bh in icons:
        assert x <= bx - TAG_PX and bx + bw + TAG_PX <= x + w
        assert y <= max(0.0, by - TAG_PX) and by + bh <= y + h


def test_no_tags_keep_the_content_box_and_an_empty_content_takes_the_tags() -> None:
    assert covering((10.0, 10.0, 50.0, 50.0), []) == (10.0, 10.0, 50.0, 50.0)
    assert covering((0.0, 0.0, 0.0, 0.0), [(100.0, 100.0, 10.0, 10.0)]) == (
        100.0 - TAG_PX,
        100.0 - TAG_PX,
        10.0 + 2 * TAG_PX,
        10.0 + 2 * TAG_PX,
    )
