"""The Worker's image channel: content parts, change gating, one image in the prompt, refusal."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from workers.agent.context.eviction import SCREENSHOT_MARKER
from workers.agent.context.vision_channel import (
    PROBE_IMAGE,
    UNCHANGED,
    ChannelConfig,
    VisionChannel,
    image_count,
    image_part,
    probe,
)
from workers.agent.errors import ConfigurationError, LLMRejected
from workers.agent.protocols import LLMReply, Observation
from workers.agent.testing import FakeLLM

JPEG_A = b"\xff\xd8screen-a\xff\xd9"
JPEG_B = b"\xff\xd8screen-b\xff\xd9"


def obs(version: int, image: bytes | None, fp: str = "fp1", url: str = "http://x/") -> Observation:
    return Observation(url, "T", f"[{version}:1] button", version, fingerprint=fp, image=image)


def images_in(content: Any) -> list[bytes]:
    if not isinstance(content, list):
        return []
    out = []
    for part in content:
        if part.get("type") == "image_url":
            url = part["image_url"]["url"]
            assert url.startswith("data:image/jpeg;base64,")
            out.append(base64.b64decode(url.split(",", 1)[1]))
    return out


def texts_in(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(p["text"] for p in content if p.get("type") == "text")


def test_image_part_is_an_openai_data_url_with_detail() -> None:
    part = image_part(JPEG_A, "high")
    assert part["type"] == "image_url" and part["image_url"]["detail"] == "high"
    assert base64.b64decode(part["image_url"]["url"].split(",", 1)[1]) == JPEG_A


def test_off_or_without_image_the_content_stays_text() -> None:
    assert VisionChannel(ChannelConfig(enabled=False)).content("page", obs(1, JPEG_A), 1) == "page"
    assert VisionChannel(ChannelConfig(enabled=True)).content("page", obs(1, None), 1) == "page"


def test_new_screen_carries_text_caption_and_image() -> None:
    channel = VisionChannel(ChannelConfig(enabled=True, detail="low"))
    content = channel.content("page text", obs(3, JPEG_A), 1)
    assert isinstance(content, list) and content[0] == {"type": "text", "text": "page text"}
    assert images_in(content) == [JPEG_A]
    assert "ref 3:N" in texts_in(content) and "[3:12]" in texts_in(content)
    assert content[-1]["image_url"]["detail"] == "low"
    assert channel.images_sent == 1


def test_unchanged_page_says_so_instead_of_resending() -> None:
    channel = VisionChannel(ChannelConfig(enabled=True))
    channel.content("page", obs(3, JPEG_A), 1)
    again = channel.content("page", obs(3, JPEG_A), 2)  # same version + fingerprint
    assert images_in(again) == [] and UNCHANGED in texts_in(again)
    assert "step 1" in texts_in(again)
    assert channel.images_sent == 1


def test_same_pixels_under_a_new_version_are_not_resent() -> None:
    channel = VisionChannel(ChannelConfig(enabled=True))
    channel.content("page", obs(3, JPEG_A), 1)
    again = channel.content("page", obs(4, JPEG_A, fp="fp2"), 2)
    assert images_in(again) == [] and "ref 4:N" in texts_in(again)


def test_changed_page_sends_the_new_image() -> None:
    channel = VisionChannel(ChannelConfig(enabled=True))
    channel.content("page", obs(3, JPEG_A), 1)
    changed = channel.content("page", obs(4, JPEG_B, fp="fp2"), 2)
    assert images_in(changed) == [JPEG_B] and channel.images_sent == 2


def test_same_state_with_new_pixels_sends_the_new_image() -> None:
    """Issue 27 item 7: a page moved by its timers keeps its version and fingerprint."""
    channel = VisionChannel(ChannelConfig(enabled=True))
    channel.content("page", obs(3, JPEG_A), 1)
    moved = channel.content("page", obs(3, JPEG_B), 2)
    assert images_in(moved) == [JPEG_B] and channel.images_sent == 2


def _prompt(*contents: Any) -> list[dict[str, Any]]:
    return [{"role": "system", "content": "sys"}] + [
        {"role": "user", "content": c} for c in contents
    ]


def test_finish_keeps_only_the_latest_image() -> None:
    channel = VisionChannel(ChannelConfig(enabled=True))
    first = channel.content("one", obs(1, JPEG_A), 1)
    second = channel.content("two", obs(2, JPEG_B, fp="fp2"), 2)
    out = channel.finish(_prompt(first, second))
    assert image_count(out) == 1 and images_in(out[-1]["content"]) == [JPEG_B]
    assert SCREENSHOT_MARKER in texts_in(out[1]["content"])


def test_unchanged_page_keeps_the_held_image_in_its_earlier_message() -> None:
    channel = VisionChannel(ChannelConfig(enabled=True))
    first = channel.content("one", obs(1, JPEG_A), 1)
    second = channel.content("one", obs(1, JPEG_A), 2)
    out = channel.finish(_prompt(first, second))
    assert image_count(out) == 1 and images_in(out[1]["content"]) == [JPEG_A]
    assert UNCHANGED in texts_in(out[-1]["content"])


def test_image_reattached_when_the_history_dropped_its_message() -> None:
    """A history that shows only the latest page must not leave the model without a screen."""
    channel = VisionChannel(ChannelConfig(enabled=True))
    channel.content("one", obs(1, JPEG_A), 1)
    second = channel.content("one", obs(1, JPEG_A), 2)
    out = channel.finish(_prompt(second))
    assert images_in(out[-1]["content"]) == [JPEG_A] and image_count(out) == 1
    assert UNCHANGED in texts_in(out[-1]["content"]) and channel.images_sent == 1


def _answer(text: str) -> LLMReply:
    return LLMReply(text, (), 10, 1, "m", 0.01, "stop")


async def test_probe_accepts_a_model_that_sees_the_red_image() -> None:
    llm = FakeLLM([_answer("Red.")])
    await probe(llm, "worker", "worker model m")
    role, messages = llm.roles[0], llm.prompts[0]
    url = messages[0]["content"][1]["image_url"]["url"]
    assert role == "worker" and base64.b64decode(url.split(",", 1)[1]) == PROBE_IMAGE
    assert PROBE_IMAGE[:8] == b"\x89PNG\r\n\x1a\n"


async def test_probe_refuses_an_endpoint_that_rejects_images() -> None:
    llm = FakeLLM([LLMRejected("LLM endpoint rejected the request: image input is not supported")])
    with pytest.raises(ConfigurationError, match="worker model m is not vision-capable"):
        await probe(llm, "worker", "worker model m")


async def test_probe_refuses_a_model_that_ignores_the_image() -> None:
    with pytest.raises(ConfigurationError, match="does not read images"):
        await probe(FakeLLM([_answer("I cannot see any image.")]), "vision", "vision model m")


def test_caption_example_is_a_tag_that_is_in_the_image() -> None:
    channel = VisionChannel(ChannelConfig(enabled=True))
    seen = Observation(
        "http://x/", "T", "[3:5] button", 3, fingerprint="f", image=JPEG_A,
        stats={"som": {"refs": ["3:5", "3:6"]}},
    )  # fmt: skip
    assert "the box tagged 5 is [3:5]" in texts_in(channel.content("page", seen, 1))


def test_caption_says_where_the_image_sits_in_the_viewport() -> None:
    """An untagged pixel (a canvas, a pie slice) can be clicked with click_at from the image."""
    channel = VisionChannel(ChannelConfig(enabled=True))
    seen = Observation(
        "http://x/", "T", "[3:5] button", 3, fingerprint="f", image=JPEG_A,
        stats={"som": {"refs": ["3:5"], "region": [46, 45, 68, 70], "scale": 2.0}},
    )  # fmt: skip
    text = texts_in(channel.content("page", seen, 1))
    assert "from x=46 to 114 and y=45 to 115" in text
    assert "(46 + px / 2.0, 45 + py / 2.0)" in text
