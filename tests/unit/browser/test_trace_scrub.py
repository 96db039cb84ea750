"""tracing.scrub (workers/browser/runtime/tracing.py): typed arguments and input values
blanked in the trace events, secret values masked in every text file, images untouched."""

from __future__ import annotations

import io
import json
import zipfile

from workers.browser.runtime.tracing import BLANK, TracePlan, scrub

SECRET = "Zq7-hunter2-Secret!"
VALUE_ATTR = "__playwright_value_"  # how a DOM snapshot records an input's value
JPEG = b"\xff\xd8\xff\xe0" + bytes(range(256))


def trace_zip() -> bytes:
    events = [
        {"type": "before", "method": "type", "params": {"text": "Zq7", "delay": 0}},
        {"type": "before", "method": "press", "params": {"key": "h"}},
        {
            "type": "frame-snapshot",
            "snapshot": {"html": ["INPUT", {"__playwright_value_": "Zq7-h"}]},
        },
        {"type": "before", "method": "goto", "params": {"url": "http://127.0.0.1/login"}},
    ]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("trace.trace", "\n".join(json.dumps(e) for e in events) + "\n")
        z.writestr("trace.network", json.dumps({"postData": f"password={SECRET}"}) + "\n")
        z.writestr("resources/body", f"user=a&password={SECRET}")
        z.writestr("resources/shot.jpeg", JPEG)
    return out.getvalue()


def read(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {n: z.read(n) for n in z.namelist()}


def test_scrub_blanks_typing_and_masks_secrets_everywhere() -> None:
    files = read(scrub(trace_zip(), [SECRET], blank_typed=True))
    events = [json.loads(line) for line in files["trace.trace"].decode().splitlines()]
    assert events[0]["params"] == {"text": BLANK, "delay": 0}
    assert events[1]["params"] == {"key": BLANK}
    assert events[2]["snapshot"]["html"][1] == {VALUE_ATTR: BLANK}
    assert events[3]["params"]["url"] == "http://127.0.0.1/login"  # other arguments stay
    for name in ("trace.network", "resources/body"):
        assert SECRET.encode() not in files[name] and b"password=" in files[name]
    assert files["resources/shot.jpeg"] == JPEG


def test_without_secrets_the_trace_keeps_what_was_typed() -> None:
    files = read(scrub(trace_zip(), [], blank_typed=False))
    assert b'"text": "Zq7"' in files["trace.trace"] and SECRET.encode() in files["resources/body"]


def test_plan_drops_screenshots_for_regions_and_snapshots_for_secrets() -> None:
    assert TracePlan.of(private_regions=True, secrets=False) == TracePlan(False, True)
    assert TracePlan.of(private_regions=False, secrets=True) == TracePlan(True, False)
