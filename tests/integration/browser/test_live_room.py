"""The live view on a real page (workers/browser/runtime/live_room.py, screencast.py):
screencast frames only while someone watches, private regions black in them, and a
person's click, keys and scroll reach the page only while the agent is paused for them."""

from __future__ import annotations

import asyncio
import base64
import io
from typing import Any

import pytest
from PIL import Image
from playwright.async_api import Page

from app.live import (
    LiveFeed,
    LiveInput,
    MemoryLiveHub,
    handback_command,
    input_command,
    takeover_command,
)
from workers.agent.people.takeover import Takeover
from workers.browser.runtime.live_room import LiveRoom
from workers.browser.runtime.regions import HiddenRegions

pytestmark = [pytest.mark.browser]

TASK = "live-task"
PAGE = """<!doctype html><title>Clicker</title>
<style>body { margin: 0; background: #fff; font: 20px sans-serif; }
#add { position: absolute; left: 0; top: 0; width: 640px; height: 300px; }
#name { position: absolute; left: 660px; top: 0; width: 600px; height: 300px; font-size: 40px; }
#secret { position: absolute; left: 100px; top: 400px; width: 400px; height: 200px;
  background: #fff; color: #fff; }
#tall { height: 3000px; }</style>
<button id="add">Add one</button><input id="name" aria-label="Name">
<div id="secret">CANARY-ACCOUNT-1234</div><p id="count">Clicks: 0</p><div id="tall"></div>
<script>let n = 0; document.querySelector('#add').onclick = () => {
  n += 1; document.querySelector('#count').textContent = 'Clicks: ' + n; };</script>"""


async def _message(feed: LiveFeed, kind: str, **match: Any) -> dict[str, Any]:
    """The next message of `kind` (and fields) the watcher gets; fails after 20 s of none."""
    async with asyncio.timeout(20):
        while True:
            message = await feed.next(timeout=1.0)
            if message and message["type"] == kind and match.items() <= message.items():
                return message


def _image(frame: dict[str, Any]) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(frame["jpeg"]))).convert("RGB")


async def _count(page: Page) -> str:
    return str(await page.text_content("#count"))


async def test_frames_only_while_watched_with_private_regions_black(page: Page) -> None:
    await page.set_content(PAGE)
    hub, takeover = MemoryLiveHub(), Takeover()
    room = LiveRoom(page, hub, TASK, takeover, HiddenRegions.of(["#secret"]))
    async with room.running():
        assert not room.screen.casting  # nobody watches: no screencast
        async with hub.watch(TASK) as feed:
            frame = await _message(feed, "frame")
            assert (frame["width"], frame["height"]) == (1280, 800)
            img = _image(frame)
            scale = img.width / frame["width"]
            inside = [
                img.getpixel((int(x * scale), int(y * scale)))
                for x in range(110, 490, 20)
                for y in range(410, 590, 20)
            ]
            assert max(max(p) for p in inside) < 40  # type: ignore[arg-type]
            white = img.getpixel((int(700 * scale), int(700 * scale)))
            assert min(white) > 200  # type: ignore[arg-type]
        async with asyncio.timeout(20):
            while room.screen.casting:  # the last watcher left: the screencast stops
                await asyncio.sleep(0.1)


async def test_person_input_lands_only_while_the_agent_is_paused(page: Page) -> None:
    await page.set_content(PAGE)
    hub, takeover = MemoryLiveHub(), Takeover()
    room = LiveRoom(page, hub, TASK, takeover)
    click = input_command(LiveInput(kind="click", x=0.25, y=0.2))
    async with room.running(), hub.watch(TASK) as feed:
        await _message(feed, "frame")
        await room.apply(click)  # the agent is acting: a person's click is dropped
        assert await _count(page) == "Clicks: 0"
        await hub.send(TASK, takeover_command("local"))
        await _message(feed, "control", by="agent", requested=True)
        turn = asyncio.create_task(takeover.agent_turn(lambda: page.url))  # between steps
        await _message(feed, "control", by="person")
        await hub.send(TASK, click)
        await page.wait_for_function("document.querySelector('#count').textContent === 'Clicks: 1'")
        await hub.send(TASK, input_command(LiveInput(kind="click", x=0.75, y=0.2)))
        for key in ("h", "i", "Backspace", "!"):
            await hub.send(TASK, input_command(LiveInput(kind="key", key=key)))
        await page.wait_for_function("document.querySelector('#name').value === 'h!'")
        await hub.send(TASK, input_command(LiveInput(kind="wheel", x=0.5, y=0.5, dy=500)))
        await page.wait_for_function("window.scrollY >= 400")
        await hub.send(TASK, handback_command("local"))
        await asyncio.wait_for(turn, 20)
        await _message(feed, "control", by="agent", requested=False)
    [note] = takeover.take_notes()
    assert "2 clicks, 1 scroll, 4 key presses" in note
    assert "h!" not in note  # what was typed is never recorded


async def test_a_whole_text_is_typed_in_order_and_counted_as_key_presses(page: Page) -> None:
    await page.set_content(PAGE)
    await page.focus("#name")
    hub, takeover = MemoryLiveHub(), Takeover()
    room = LiveRoom(page, hub, TASK, takeover)
    async with room.running():
        await takeover.request("local")
        turn = asyncio.create_task(takeover.agent_turn(lambda: page.url))
        await _until(lambda: takeover.person_may_act)
        await room.apply(input_command(LiveInput(kind="text", text="hello agent")))
        await room.apply(input_command(LiveInput(kind="key", key="!")))
        assert await page.input_value("#name") == "hello agent!"
        await takeover.hand_back("local")
        await asyncio.wait_for(turn, 20)
    [note] = takeover.take_notes()
    assert "12 key presses" in note and "hello" not in note


BANDS = "".join(
    f'<div style="height: 100px; background: rgb({i * 8}, {255 - i * 8}, 128)"></div>'
    for i in range(30)
)


def _band(y: int) -> tuple[int, int, int]:
    """The colour of BANDS at page offset y."""
    i = y // 100
    return (i * 8, 255 - i * 8, 128)


def _close(a: Any, b: tuple[int, ...]) -> bool:
    return all(abs(x - y) <= 16 for x, y in zip(a, b, strict=True))


async def test_after_a_scroll_the_picture_shows_the_page_at_rest(page: Page) -> None:
    """Issue 37 item 1: frames of a scroll come faster than the rate limit; the one the
    burst ends on must reach the watcher (it stayed a stale, half-painted frame before)."""
    await page.set_content(f"<!doctype html><style>body {{ margin: 0; }}</style>{BANDS}")
    hub, takeover = MemoryLiveHub(), Takeover()
    room = LiveRoom(page, hub, TASK, takeover)
    async with room.running(), hub.watch(TASK) as feed:
        await _message(feed, "frame")
        await takeover.request("local")
        turn = asyncio.create_task(takeover.agent_turn(lambda: page.url))
        await _until(lambda: takeover.person_may_act)
        height = await page.evaluate("innerHeight")
        top, bottom = _band(1800 + 5), _band(1800 + height - 5)
        for _ in range(3):  # a person's flick of the wheel: three turns in quick succession
            await room.apply(input_command(LiveInput(kind="wheel", x=0.5, y=0.5, dy=600)))
            await asyncio.sleep(0.05)
        # nothing touches the page from here (a screenshot or a wait would make a frame)
        async with asyncio.timeout(20):  # the page at rest, top and bottom, in a frame
            while True:
                frame = _image(await _message(feed, "frame"))
                seen = frame.getpixel((5, 5)), frame.getpixel((5, frame.height - 5))
                if _close(seen[0], top) and _close(seen[1], bottom):
                    break
        # ...and it is the frame a late joiner is sent again, not an earlier one
        again = _image(await _message(feed, "frame"))
        assert _close(again.getpixel((5, 5)), top)
        assert await page.evaluate("scrollY") == 1800
        await takeover.hand_back("local")
        await asyncio.wait_for(turn, 20)


async def _until(check: Any) -> None:
    async with asyncio.timeout(20):
        while not check():
            await asyncio.sleep(0.01)


class _CancelTurnedIntoTimeout(MemoryLiveHub):
    """A relay client that turns the first cancel during its blocking read into its own
    timeout error, as a client library's read timeout can when both land together (the
    production e2e runs: the run sat in LiveRoom's exit until its hard timeout, its task
    `running`)."""

    turned = 0

    async def next_command(self, task_id: str, timeout: float) -> dict[str, Any] | None:
        from redis.exceptions import TimeoutError as RedisTimeout

        try:
            return await super().next_command(task_id, timeout)
        except asyncio.CancelledError:
            if self.turned:
                raise
            self.turned += 1
            raise RedisTimeout("Timeout reading from socket") from None


async def test_the_room_stops_when_its_relay_turns_the_cancel_into_an_error(page: Page) -> None:
    await page.set_content(PAGE)
    hub = _CancelTurnedIntoTimeout()
    room = LiveRoom(page, hub, TASK, Takeover())

    async def run_and_stop() -> None:
        async with room.running():
            await asyncio.sleep(0.3)  # the room sits in its blocking read

    stopping = asyncio.create_task(run_and_stop())
    done, _ = await asyncio.wait({stopping}, timeout=10)
    assert hub.turned == 1
    assert done, "the room's loop went on after its cancel: the run would hang in its exit"
