"""Change gating predicate and cache (seed 000 §4.5)."""

from __future__ import annotations

from dataclasses import replace

from workers.browser.observe.fingerprint import (
    Fingerprint,
    ObservationCache,
    changed,
    mutation_delta,
)

BASE = Fingerprint(
    url="http://127.0.0.1/a",
    doc="d1",
    dom_hash="dom",
    text_hash="text",
    frame_hash="frame",
    mutations=10,
)


def test_first_observation_is_always_a_change() -> None:
    assert changed(None, BASE)


def test_identical_fingerprint_is_unchanged() -> None:
    assert not changed(BASE, replace(BASE))


def test_each_component_busts_the_gate() -> None:
    for field, value in [
        ("url", "http://127.0.0.1/b"),
        ("doc", "d2"),
        ("dom_hash", "x"),
        ("text_hash", "x"),
        ("frame_hash", "x"),
    ]:
        assert changed(BASE, replace(BASE, **{field: value})), field


def test_mutation_delta_against_tolerance() -> None:
    cur = replace(BASE, mutations=13)
    assert mutation_delta(BASE, cur) == 3
    assert changed(BASE, cur)
    assert not changed(BASE, cur, max_mutations=3)
    assert changed(BASE, cur, max_mutations=2)


def test_counter_reset_or_new_document_is_a_change() -> None:
    assert mutation_delta(BASE, replace(BASE, mutations=2)) == -1
    assert changed(BASE, replace(BASE, mutations=2), max_mutations=100)
    assert mutation_delta(BASE, replace(BASE, doc="other", mutations=11)) == -1


def test_from_js_and_key() -> None:
    fp = Fingerprint.from_js(
        {
            "url": "u",
            "doc": "d",
            "dom": "abcdef123456",
            "text": "0123456789",
            "frames": "ffffff00",
            "mutations": 4,
            "interactive": 7,
        }
    )
    assert fp.mutations == 4 and fp.interactive == 7
    assert fp.key == "abcdef12-01234567-ffffff"


def test_cache_reuses_while_unchanged_and_misses_after_change() -> None:
    cache: ObservationCache[str] = ObservationCache()
    assert cache.get("compact", BASE) is None
    cache.put("compact", BASE, "obs-1")
    assert cache.get("compact", replace(BASE)) == "obs-1"
    assert cache.get("pagemem", BASE) is None  # per mode
    assert cache.get("compact", replace(BASE, text_hash="scrolled")) is None
    assert (cache.hits, cache.misses) == (1, 3)
    last = cache.last("compact")
    assert last is not None and last.value == "obs-1"
    cache.invalidate("compact")
    assert cache.get("compact", BASE) is None


def test_cache_tolerance_is_applied() -> None:
    cache: ObservationCache[int] = ObservationCache(max_mutations=5)
    cache.put("som", BASE, 1)
    assert cache.get("som", replace(BASE, mutations=15)) == 1
    assert cache.get("som", replace(BASE, mutations=16)) is None
    cache.invalidate()
    assert cache.last("som") is None
