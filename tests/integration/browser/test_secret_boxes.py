"""Secret-bearing elements are black in screenshots (issue 32, item 3;
workers/browser/runtime/secret_boxes.py).

The canary page (pages/secret_echo.html) renders a typed value in 64 px type: in its text
field (type=text, re-styled by the page on every keystroke, so the value stays visible), in
a paragraph echoing it, and URL-encoded in an open shadow root; it also has a password input
holding a value. There is no OCR, so the proof is in the pixels: after the agent types a task
secret into the field, the box of every element showing it is solid black in each kind of
screenshot the service takes (step screenshot, Set-of-Mark/`look` capture, the screenshot
tool's PNG, the live view's frames), while the page around it is untouched."""

from __future__ import annotations

import asyncio
import contextlib
import io
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from PIL import Image
from playwright.async_api import Browser

from app.secrets import SecretEntry
from app.settings import Settings
from tests.support.policies import find_ref
from workers.adapters.secrets import SecretVault
from workers.agent.protocols import Action
from workers.browser.observe import som
from workers.browser.runtime import secret_boxes
from workers.browser.runtime.profile import SessionProfile
from workers.browser.runtime.screencast import Screencast
from workers.browser.session import PageSession

pytestmark = [pytest.mark.browser]

CANARY = "QX7!Canary@9090"
VIEW = {"width": 1000, "height": 640}
FIELD, ECHO, SHADOW, PASSWORD, PUBLIC = "#c", "#echo", "#host", "#pw", "#public"
SHOWN = (FIELD, ECHO, SHADOW)  # where the page shows the typed value
NUDGE = "(n) => { document.body.style.background = n % 2 ? '#fff' : '#fefefe'; }"


@pytest.fixture
async def canary_page(
    chromium_browser: Browser, chromium_path: str, probe_port: int, tmp_path: Path
) -> AsyncIterator[PageSession]:
    context = await chromium_browser.new_context(viewport=VIEW)
    session = await PageSession.open(
        await context.new_page(),
        Settings(chromium_path=chromium_path),
        profile=SessionProfile(artifacts_dir=tmp_path),
    )
    session.secrets = SecretVault({"code": SecretEntry(value=CANARY, domains=("127.0.0.1",))})
    assert (await session.goto(f"http://127.0.0.1:{probe_port}/secret_echo.html")).success
    yield session
    await context.close()


async def type_canary(session: PageSession) -> None:
    obs = await session.observe()
    ref = find_ref(obs.text, "textbox", "Access code")
    typed = await session.execute(Action("type", {"ref": ref, "text": "<secret:code>"}))
    assert typed.success, typed
    shown = await session.page.locator("#echo").text_content()
    assert shown == f"Code {CANARY}"  # the page really shows the value


async def boxes(session: PageSession) -> dict[str, tuple[int, int, int, int]]:
    out = {}
    for sel in (*SHOWN, PASSWORD, PUBLIC):
        b = await session.page.locator(sel).bounding_box()
        assert b is not None, sel
        out[sel] = (int(b["x"]), int(b["y"]), int(b["x"] + b["width"]), int(b["y"] + b["height"]))
    return out


def pixels(img: Image.Image, box: tuple[int, int, int, int], scale: float) -> list[int]:
    """The brightest channel of every 4th pixel inside `box` (CSS px, 3 px in from its edge),
    in an image taken at `scale`."""
    x0, y0, x1, y1 = (round(v * scale) for v in (box[0] + 3, box[1] + 3, box[2] - 3, box[3] - 3))
    rgb = img.convert("RGB")
    return [max(rgb.getpixel((x, y))) for x in range(x0, x1, 4) for y in range(y0, y1, 4)]  # type: ignore[arg-type]


def assert_blacked_out(shot: bytes, where: dict[str, tuple[int, int, int, int]]) -> None:
    img = Image.open(io.BytesIO(shot))
    scale = img.width / VIEW["width"]
    for sel in (*SHOWN, PASSWORD):
        inside = pixels(img, where[sel], scale)
        assert inside and max(inside) < 40, (sel, "shows light pixels", max(inside))
    public = pixels(img, where[PUBLIC], scale)
    assert min(public) < 100 < max(public), "the public text is shown as it is"


async def test_a_typed_secret_is_black_in_every_screenshot(canary_page: PageSession) -> None:
    await type_canary(canary_page)
    where = await boxes(canary_page)
    page = canary_page.page
    saved = await canary_page.execute(Action("screenshot", {}))
    assert saved.success, saved
    tool_png = (canary_page.artifacts.root / saved.data["name"]).read_bytes()
    shots = {
        "step screenshot": await canary_page.screenshot(),
        "set-of-mark shot": await som.shoot(page, jpeg=False, quality=90),
        "look/set-of-mark capture": await som.capture(page, (0, 0, 1000, 640), scale=0.5),
        "screenshot tool": tool_png,
    }
    for name, shot in shots.items():
        try:
            assert_blacked_out(shot, where)
        except AssertionError as exc:
            raise AssertionError(f"{name}: {exc}") from exc


async def test_a_page_that_echoes_the_secret_later_is_painted_before_the_next_shot(
    canary_page: PageSession,
) -> None:
    """The echo appears after the typing (a timer, a new element): the next screenshot the
    service takes paints it first."""
    await type_canary(canary_page)
    await canary_page.page.evaluate(
        """(v) => { const p = document.getElementById('public');
                    p.textContent = 'Later ' + v.split('').join(' '); }""",
        CANARY,
    )
    where = await boxes(canary_page)
    img = Image.open(io.BytesIO(await canary_page.screenshot()))
    assert max(pixels(img, where[PUBLIC], 1.0)) < 40, "the late echo is not black"


async def test_live_view_frames_never_show_the_typed_secret(canary_page: PageSession) -> None:
    """Every frame the live view passes on shows each box either empty (before the typing:
    uniform white) or black: never the value."""
    frames: list[bytes] = []
    arrived = asyncio.Event()
    cast = Screencast(canary_page.page)

    async def sink(jpeg: bytes, width: float, height: float) -> None:
        frames.append(jpeg)
        arrived.set()

    await cast.start(sink)
    try:
        await type_canary(canary_page)
        where = await boxes(canary_page)
        before = len(frames)
        arrived.clear()
        for n in range(30):  # nudge a repaint until a frame after the typing is passed on
            await canary_page.page.evaluate(NUDGE, n)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(arrived.wait(), 1.0)
                break
    finally:
        await cast.close()
    assert len(frames) > before, "no frame after the typing"
    for i, jpeg in enumerate(frames):
        img = Image.open(io.BytesIO(jpeg))
        scale = img.width / VIEW["width"]
        for sel in SHOWN:
            inside = pixels(img, where[sel], scale)
            assert max(inside) - min(inside) < 40, (i, sel, "a frame shows text there")


async def test_password_inputs_holding_a_value_are_black_in_every_task(
    chromium_browser: Browser, chromium_path: str, probe_port: int
) -> None:
    """No secrets in the task: a password input's dots are still never shown."""
    context = await chromium_browser.new_context(viewport=VIEW)
    try:
        session = await PageSession.open(
            await context.new_page(), Settings(chromium_path=chromium_path)
        )
        assert (await session.goto(f"http://127.0.0.1:{probe_port}/secret_echo.html")).success
        where = await boxes(session)
        img = Image.open(io.BytesIO(await session.screenshot()))
        assert max(pixels(img, where[PASSWORD], 1.0)) < 40
        field = pixels(img, where[FIELD], 1.0)
        assert min(field) > 200, "an empty text field is not painted"
        assert secret_boxes.forms_of(session.page) is None
    finally:
        await context.close()


async def test_a_frame_that_never_loads_does_not_hold_the_screenshot(
    chromium_browser: Browser, chromium_path: str, probe_port: int
) -> None:
    """An iframe whose server accepts and never answers has no document (its URL stays
    empty): painting skips it instead of waiting for it forever, and still paints the page."""
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(1)
    context = await chromium_browser.new_context(viewport=VIEW)
    try:
        session = await PageSession.open(
            await context.new_page(), Settings(chromium_path=chromium_path)
        )
        assert (await session.goto(f"http://127.0.0.1:{probe_port}/secret_echo.html")).success
        port = silent.getsockname()[1]
        await session.page.evaluate(
            """(url) => { const f = document.createElement('iframe'); f.src = url;
                          document.body.appendChild(f); }""",
            f"http://127.0.0.1:{port}/never",
        )
        assert any(not f.url for f in session.page.frames), [f.url for f in session.page.frames]
        where = await boxes(session)
        img = Image.open(io.BytesIO(await asyncio.wait_for(session.screenshot(), 60)))
        assert max(pixels(img, where[PASSWORD], 1.0)) < 40
    finally:
        await context.close()
        silent.close()
