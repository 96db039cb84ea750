"""The Worker's image channel: the Set-of-Mark screenshot beside the page text (seed 002).

Seed 002's dual channel shows a vision-capable Worker the screenshot with numbered tags and
lets it act through the same ids; seed 003 §4.4 pairs that image with the accessibility text
("plan actions using a structured representation and use vision when that structure is
missing or misleading"). Here the
tags are the element numbers of the text's refs (tag 12 = ref `v:12`), so the Worker keeps
acting through refs.

Change gating (seed 000 §4.5): an image is attached only when its pixels differ from the one
the model already holds (a new page state, or the same state moved on by the page's timers,
issue 27 item 7); otherwise the text says `[screenshot unchanged]`. Only the latest image
stays in the prompt (seed 002: "only the current step's screenshot is sent"); older ones
become the eviction marker of seed 000 Phase 1. If the history dropped the message holding
the image, the image is attached again rather than leaving the model without the screen.

`probe()` is the refusal check: one tiny image to the configured model; a model that rejects
it or cannot say its colour is not vision-capable.
"""

from __future__ import annotations

import base64
import hashlib
import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast

from workers.agent import prompts, textcut
from workers.agent.context.blocks import Message, is_image_part
from workers.agent.context.eviction import back_patch_screenshots
from workers.agent.errors import ConfigurationError, LLMRejected
from workers.agent.protocols import LLM, AgentTask, Observation

UNCHANGED = "[screenshot unchanged]"
KEEP_IMAGES = 1
Detail = Literal["low", "high", "auto"]


@dataclass(frozen=True)
class ChannelConfig:
    """What the loop needs to know: is the channel on, and the OpenAI `detail` of images."""

    enabled: bool = False
    detail: Detail = "auto"

    @classmethod
    def of(cls, task: AgentTask) -> ChannelConfig:
        detail = task.image_detail if task.image_detail in ("low", "high") else "auto"
        return cls(task.worker_vision, cast(Detail, detail))


def system_addendum(task: AgentTask) -> str:
    """System-prompt sections for the image channel and the `look` tool, when they are on."""
    parts = []
    if task.worker_vision:
        parts.append(prompts.load("worker_vision.md").strip())
    if task.look_tool:
        parts.append(prompts.load("look_tool.md").strip())
    return "".join("\n\n" + p for p in parts)


def image_part(jpeg: bytes, detail: Detail = "auto") -> dict[str, Any]:
    """An OpenAI `image_url` content part with a base64 data URL."""
    url = "data:image/jpeg;base64," + base64.b64encode(jpeg).decode("ascii")
    return {"type": "image_url", "image_url": {"url": url, "detail": detail}}


def image_count(messages: Sequence[Message]) -> int:
    return sum(
        1
        for m in messages
        if isinstance(m.get("content"), list)
        for p in m["content"]
        if is_image_part(p)
    )


@dataclass(frozen=True)
class _Sent:
    key: tuple[str, int, str]
    digest: str
    jpeg: bytes
    step: int


def _example(observation: Observation | None, version: int) -> dict[str, str]:
    """Caption values: a tag that is really in the image (stats["som"]["refs"]) as the
    example, and where the image sits in the viewport, for click_at on untagged pixels."""
    som = (observation.stats.get("som") or {}) if observation else {}
    refs = som.get("refs") or []
    tag = str(refs[0]).split(":")[-1] if refs else "12"
    geometry = ""
    if som.get("region") and som.get("scale"):
        x, y, w, h = som["region"]
        geometry = prompts.render(
            "screenshot_geometry.md", x=x, y=y, x1=x + w, y1=y + h, scale=som["scale"]
        )
        geometry = " " + geometry
    return {"tag": tag, "ref": f"{version}:{tag}", "geometry": geometry}


class VisionChannel:
    """Per run: which screen the model already holds, and the content of each observation."""

    def __init__(self, config: ChannelConfig) -> None:
        self.config = config
        self._sent: _Sent | None = None
        self._unchanged_version: int | None = None  # set when this step's text says UNCHANGED
        self._held: Observation | None = None  # the observation whose image the model holds
        self.images_sent = 0

    def _is_new(self, key: tuple[str, int, str], digest: str) -> bool:
        """Other pixels. Identical pixels include identical tag numbers, so the held image
        still maps onto new refs; other pixels under the same page state (a page moved by its
        timers, issue 27 item 7) are a fresh image, not `[screenshot unchanged]`."""
        sent = self._sent
        return sent is None or sent.digest != digest

    def content(self, text: str, observation: Observation, step: int) -> str | list[Any]:
        """The observation message content: text alone, text + new image, or text + marker."""
        self._unchanged_version = None
        image = observation.image
        if not self.config.enabled or image is None:
            return text
        key = (observation.url, observation.version, observation.fingerprint)
        digest = hashlib.sha256(image).hexdigest()
        if self._sent is not None and not self._is_new(key, digest):
            self._unchanged_version = observation.version
            note = prompts.render(
                "screenshot_unchanged.md",
                marker=UNCHANGED,
                step=self._sent.step,
                version=observation.version,
            )
            return [{"type": "text", "text": text}, {"type": "text", "text": note}]
        self._sent = _Sent(key, digest, image, step)
        self._held = observation
        self.images_sent += 1
        caption = prompts.render(
            "screenshot.md",
            version=observation.version,
            **_example(observation, observation.version),
        )
        return [
            {"type": "text", "text": text},
            {"type": "text", "text": caption},
            image_part(image, self.config.detail),
        ]

    def finish(self, messages: Sequence[Message]) -> list[Message]:
        """Keep only the latest image; re-attach it when the history dropped its message."""
        out = back_patch_screenshots(messages, KEEP_IMAGES).messages
        version = self._unchanged_version
        if version is None or self._sent is None or image_count(out) > 0:
            return out
        last = dict(out[-1])
        parts = list(last.get("content") or [])
        caption = prompts.render("screenshot.md", version=version, **_example(self._held, version))
        # the note stays: "unchanged since step k" tells the model its actions had no
        # visible effect; the image comes back because nothing else in the prompt holds it
        last["content"] = [
            *parts,
            {"type": "text", "text": caption},
            image_part(self._sent.jpeg, self.config.detail),
        ]
        return [*out[:-1], last]


# --- refusal: is the configured model able to read images? -------------------------------

PROBE_COLOUR = "red"


def _png(width: int, height: int, rgb: tuple[int, int, int]) -> bytes:
    """A solid-colour PNG built with the standard library (no image dependency)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    row = b"\x00" + bytes(rgb) * width
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(row * height))
        + chunk(b"IEND", b"")
    )


PROBE_IMAGE = _png(32, 32, (220, 20, 20))


def probe_messages() -> list[Message]:
    url = "data:image/png;base64," + base64.b64encode(PROBE_IMAGE).decode("ascii")
    return [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": prompts.render("vision_probe.md")},
                {"type": "image_url", "image_url": {"url": url, "detail": "low"}},
            ],
        }
    ]


async def probe(llm: LLM, role: str, what: str) -> None:
    """Send one tiny red image to `role`; raise ConfigurationError naming `what` (the setting
    and model) when the endpoint refuses images or the model cannot tell the colour."""
    try:
        reply = await llm.chat(role, probe_messages())
    except LLMRejected as exc:
        raise ConfigurationError(
            f"{what} is not vision-capable: the endpoint rejected an image ({exc})"
        ) from exc
    answer = (reply.content or "").strip()
    if PROBE_COLOUR not in answer.lower():
        raise ConfigurationError(
            f"{what} does not read images: asked the colour of a red test image, it answered "
            f"{textcut.cut(answer, 80)!r}"
        )
