"""Emoji draw in colour, not as empty boxes (issue 26, item 6): the machine's Chromium has a
colour emoji font (`make setup` and the Dockerfile install fonts-noto-color-emoji)."""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import Page

ROOT = Path(__file__).resolve().parents[3]
DRAW = """(text) => {
  const c = document.createElement('canvas'); c.width = c.height = 96;
  const g = c.getContext('2d'); g.font = '64px sans-serif'; g.textBaseline = 'top';
  g.fillText(text, 8, 8);
  const px = g.getImageData(0, 0, 96, 96).data; let coloured = 0;
  for (let i = 0; i < px.length; i += 4) {
    const [r, gr, b, a] = [px[i], px[i + 1], px[i + 2], px[i + 3]];
    if (a > 200 && Math.max(r, gr, b) - Math.min(r, gr, b) > 80) coloured += 1;
  }
  return coloured;
}"""


async def test_an_emoji_draws_in_colour(page: Page) -> None:
    await page.set_content("<!doctype html><meta charset=utf-8><body></body>")
    assert await page.evaluate(DRAW, "\U0001f600") > 200  # a yellow face, not a black box
    assert await page.evaluate(DRAW, "A") == 0  # plain text stays plain


def test_set_up_and_image_install_the_emoji_font() -> None:
    # Liberation too: without it Chromium's default sans-serif is DejaVu Sans, whose
    # black-and-white emoji glyphs draw before the colour font is asked (a fresh machine)
    for name in ("Makefile", "Dockerfile"):
        for package in ("fonts-noto-color-emoji", "fonts-liberation"):
            assert package in (ROOT / name).read_text(), (name, package)
