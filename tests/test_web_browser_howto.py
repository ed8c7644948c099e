"""The how-to pages in a real browser (Debian's Chromium driven by Playwright): short
enough to read in a few minutes at 1280 px wide, every diagram drawn and in sight, no
notation shown as text, and nothing wider than a phone, in English and in German.

With ``BOARDLAB_SCREENSHOTS=DIR`` each page is photographed into DIR, on a desktop and
on a phone, in both languages."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import boardlab
from boardlab.web import pages
from optional import need
from web_support import chromium, served_in_memory

playwright = need("playwright.sync_api")
uvicorn = need("uvicorn")

chromium()  # or the module is skipped (CI: fails)

SHOTS = os.environ.get("BOARDLAB_SCREENSHOTS")
SHIPPED = [
    g
    for g in boardlab.game_ids()
    if boardlab.game_class(g).__module__.startswith("boardlab.games.")
]
#: The most a how-to page may measure at 1280 px wide: a few minutes' reading.
MOST_HEIGHT = 5000
SCREENS = {"desktop": (1280, 860), "phone": (390, 844)}


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with served_in_memory() as served:
        yield served


@pytest.mark.parametrize("screen", SCREENS)
@pytest.mark.parametrize("lang", ["en", "de"])
def test_a_how_to_page_is_short_and_drawn(browser: Any, url: str, lang: str, screen: str) -> None:
    width, height = SCREENS[screen]
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on(
        "console",
        lambda message: "Content Security Policy" in message.text and errors.append(message.text),
    )
    try:
        page.goto(f"{url}/?lang={lang}")
        for game_id in SHIPPED:
            page.goto(f"{url}/rules/{game_id}")
            diagrams = pages.how_to_diagrams(game_id, lang)
            boards = page.locator(".howto figure.diagram svg.board")
            assert boards.count() == len(diagrams)
            for k in range(boards.count()):  # drawn, at a size a reader can see
                box = boards.nth(k).bounding_box()
                assert box is not None and box["width"] >= 200, (game_id, k, box)
            text = page.inner_text("main")
            assert ">>>" not in text
            assert not [d.position for d in diagrams if d.position in text]
            tall = page.evaluate("document.documentElement.scrollHeight")
            wide = page.evaluate("document.documentElement.scrollWidth")
            assert wide <= width, (game_id, wide)
            if screen == "desktop":
                assert tall < MOST_HEIGHT, (game_id, lang, tall)
            page.click(f'a[href="/rules/{game_id}/card"] >> nth=0')
            page.wait_for_url(f"{url}/rules/{game_id}/card")
            assert page.locator("article.card").count() == 1
            if SHOTS:
                page.go_back()
                page.screenshot(
                    path=str(Path(SHOTS) / f"howto-{game_id}-{lang}-{screen}.png"), full_page=True
                )
    finally:
        context.close()
    assert errors == [], errors
