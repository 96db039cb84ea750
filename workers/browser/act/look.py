"""`look`: a text-only Worker asks the vision model about pixels (seed 003 §4.4).

Seed 003 §4.4: the accessibility text is the primary context and vision is used selectively
for "elements that never appear in the accessibility tree snapshot, such as charts,
canvas-based editors, and game interfaces", by delegating the screenshot to a separate vision
model. Seed 004 §3.3 (MoGE) adds the visual annotation layer: a whole-screen look carries
outline Set-of-Mark tags (tag N = ref v:N, no fill so colours stay true), so an answer can
name the element to act on; like the Worker's image it is cropped to the visible content and
enlarged when small. `look(ref, question)` sends a padded, enlarged crop of that element
instead (no tags). The reply goes back to the Worker as untrusted page content.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from workers.agent import textcut
from workers.agent.context.vision_channel import image_part
from workers.agent.errors import ConfigurationError, LLMError
from workers.agent.protocols import LLM, ToolResult
from workers.browser.act import actions
from workers.browser.observe import som
from workers.browser.observe.summaries import prompt
from workers.browser.runtime.regions import blackout

# what a saved screenshot's result adds when the `look` tool is on (issue 26 item 12: only then)
SCREENSHOT_LOOK = "; ask `look` to describe it"

if TYPE_CHECKING:
    from workers.browser.act.context import LookContext

ROLE = "vision"
PAD_PX = 24.0  # context around an element crop
MAX_UPSCALE = 3.0  # small elements are enlarged up to 3x for the vision model
QUALITY = 85  # pixels are the point of a look: less JPEG loss than the observation image
ANSWER_CHARS = 2000


@dataclass(frozen=True)
class LookShot:
    """What the vision model is shown: the image and one sentence saying what it is."""

    jpeg: bytes
    subject: str
    region: som.Box
    scale: float
    tags: tuple[str, ...] = ()  # refs tagged in the image (whole-screen looks)


def _viewport(s: LookContext) -> tuple[float, float]:
    size = s.page.viewport_size or {
        "width": s.settings.viewport_width,
        "height": s.settings.viewport_height,
    }
    return float(size["width"]), float(size["height"])


async def _element_shot(s: LookContext, ref: str, max_side: int) -> LookShot:
    el, target = await s.element({"ref": ref})
    await el.scroll_into_view_if_needed(timeout=actions.ACTION_TIMEOUT_MS)
    box = await el.bounding_box()
    width, height = _viewport(s)
    if box is None:
        raise som.SomError(f"{ref} has no visible box to look at")
    region = som.crop_region(
        (box["x"], box["y"], box["width"], box["height"]), width, height, PAD_PX
    )
    scale = som.fit_scale(region[2], region[3], max_side, MAX_UPSCALE)
    jpeg = await som.capture(s.page, region, scale=scale, quality=QUALITY)
    subject = f"a crop of the page around element {ref} (a {target.role}), enlarged {scale:.1f}x."
    return LookShot(jpeg, subject, region, scale)


async def _screen_shot(s: LookContext, max_side: int) -> LookShot:
    """The visible screen with outline tags of the current snapshot's in-view refs."""
    width, height = _viewport(s)
    snap = s.last if s.refs is not None else None
    pairs = som.marks_for(snap, short=True) if snap is not None else []
    try:
        if pairs:
            await som.draw(s.page, [m for _, m in pairs], style="outline")
        region = som.crop_region(await som.content_box(s.page), width, height)
        scale = som.fit_scale(region[2], region[3], max_side, MAX_UPSCALE)
        jpeg = await som.capture(s.page, region, scale=scale, quality=QUALITY)
    finally:
        if pairs:
            await som.clear(s.page)
    refs = tuple(n.ref for n, _ in pairs)
    subject = f"the visible part of the web page (cropped to its content, enlarged {scale:.1f}x)."
    return LookShot(jpeg, subject, region, scale, refs)


def messages(question: str, shot: LookShot, version: int | None) -> list[dict[str, Any]]:
    tags = ""
    if shot.tags and version is not None:
        tags = (
            f"Red outlined boxes tagged with a number N mark interactive elements; tag N is "
            f"element {version}:N. Name tags when the question is about what to click, and "
            "ignore the tags when reading the content under them."
        )
    text = prompt("look.txt").substitute(subject=shot.subject, tags=tags, question=question)
    return [{"role": "user", "content": [{"type": "text", "text": text}, image_part(shot.jpeg)]}]


IMAGE_QUESTION = (
    "Transcribe every piece of text in this image exactly (codes, names, numbers), then say in"
    " one sentence what it shows."
)


def _jpeg(data: bytes, max_side: int) -> bytes:
    """Any image file as a JPEG no larger than max_side (the vision model's input). PIL loads
    here, on first use: not on every process start."""
    from PIL import Image

    with Image.open(io.BytesIO(data)) as img:
        rgb = img.convert("RGB")
        rgb.thumbnail((max_side, max_side))
        out = io.BytesIO()
        rgb.save(out, "JPEG", quality=QUALITY)
        return out.getvalue()


async def read_image(llm: LLM | None, max_side: int, name: str, data: bytes) -> ToolResult:
    """Issue 27 item 6: a downloaded image goes to the vision model; its reading comes back
    as the file's text (untrusted, like page text)."""
    if llm is None:
        return actions.failure(
            "vision_unavailable",
            f"{name} is an image, and no vision model is configured to read it.",
        )
    try:
        jpeg = _jpeg(data, max_side)
    except (OSError, ValueError) as exc:
        return actions.failure("unsupported_format", f"{name}: not a readable image ({exc}).")
    shot = LookShot(jpeg, f"the image file {name!r} the run downloaded.", (0, 0, 0, 0), 1.0)
    try:
        reply = await llm.chat(ROLE, messages(IMAGE_QUESTION, shot, None))
    except (LLMError, ConfigurationError) as exc:
        return actions.failure("vision_unavailable", f"{name}: the vision model failed ({exc})")
    text = textcut.cut((reply.content or "").strip(), ANSWER_CHARS) or "(no reading)"
    return ToolResult(
        success=True, reason=f"{name}: an image, read by the vision model", data={"text": text}
    )


async def look(s: LookContext, args: dict[str, Any]) -> ToolResult:
    """Handler of the `look` tool: {"question": str, "ref": optional "v:n"}."""
    llm = s.look_llm
    question = str(args.get("question", "")).strip()
    if llm is None:
        return actions.failure(
            "vision_unavailable",
            "look needs a vision model, and none is configured for this run "
            "(WEBAGENT_VISION_ENABLED=true with a vision-capable WEBAGENT_LLM_MODEL_VISION).",
        )
    if not question:
        return actions.failure("invalid_tool_call", "look needs a question about the image.")
    max_side = s.settings.llm_image_max_side
    ref = args.get("ref")
    try:
        await blackout(s.page, s.hidden_regions)  # private regions are black (regions.py)
        shot = await (_element_shot(s, ref, max_side) if ref else _screen_shot(s, max_side))
    except som.SomError as exc:
        return actions.failure("screenshot_failed", f"look: {exc}")
    version = s.last.version if s.last is not None else None
    try:
        reply = await llm.chat(ROLE, messages(question, shot, version))
    except (LLMError, ConfigurationError) as exc:
        return actions.failure("vision_unavailable", f"look: the vision model failed ({exc})")
    answer = (
        textcut.cut((reply.content or "").strip(), ANSWER_CHARS)
        or "(the vision model gave no answer)"
    )
    where = f"element {ref}" if ref else "the visible screen"
    return ToolResult(
        success=True, reason=f"the vision model looked at {where}", data={"answer": answer}
    )
