"""Cutting text on grapheme boundaries, at every cut length of an emoji-dense corpus."""

from __future__ import annotations

import pytest

from tests.support import emoji
from workers.agent.textcut import ELLIPSIS, clip, cut, well_formed


@pytest.mark.parametrize("shift", range(len(emoji.CLUSTERS)))
def test_every_cut_length_ends_on_a_cluster_boundary(shift: int) -> None:
    clusters = emoji.dense(40, shift)
    s = emoji.text(clusters)
    bounds = emoji.boundaries(clusters)
    for n in range(len(s) + 2):
        head = cut(s, n)
        assert s.startswith(head)
        assert len(head) <= n
        assert len(head) in bounds, (n, head[-4:])
        assert len(head) == max(b for b in bounds if b <= n)
        head.encode("utf-8")


def test_clip_marks_the_cut_and_keeps_the_budget() -> None:
    s = emoji.text(emoji.dense(30))
    for n in range(1, len(s)):
        shown = clip(s, n)
        assert len(shown) <= n and shown.endswith(ELLIPSIS)
        assert s.startswith(shown[: -len(ELLIPSIS)])
    assert clip(s, len(s)) == s


def test_lone_surrogates_become_replacement_characters() -> None:
    assert well_formed("🚙\ud83d…") == "🚙\ufffd…"
    assert well_formed("a\ude99b") == "a\ufffdb"
    assert well_formed("\ud83d\ude99") == "🚙"  # two halves of one pair are joined
    assert well_formed("plain é 🚙") == "plain é 🚙"
    cut_js_style = "🚙".encode("utf-16-le")[:2].decode("utf-16-le", "surrogatepass")
    well_formed(cut_js_style).encode("utf-8")
