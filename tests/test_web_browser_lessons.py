"""The lessons in a real browser (Debian's Chromium driven by Playwright): every lesson of
every game played through by clicks on its board, in English and German; a legal move
that is not the one asked for is explained and not played; a lesson done is ticked on the
learn page, kept by the browser.

With ``BOARDLAB_SCREENSHOTS=DIR`` the first lesson of each game is photographed into DIR,
asked and explained, on a desktop and on a phone."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

import boardlab
from boardlab.lessons import Lesson, lessons
from optional import need
from web_support import chromium, served_in_memory, watched_page

playwright = need("playwright.sync_api")
uvicorn = need("uvicorn")

chromium()  # or the module is skipped (CI: fails)

SHOTS = os.environ.get("BOARDLAB_SCREENSHOTS")
SCREENS = {"desktop": (1280, 860), "phone": (390, 844)}


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with served_in_memory() as served:
        yield served


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    with watched_page(browser) as opened:
        yield opened


def click_action(page: Any, game_id: str, position: str, action: str, options: Any) -> None:
    """Play ``action`` the way a person does: click its places in order, or its button."""
    start = boardlab.new_game(game_id, **options).from_position_string(position)
    parts = start.game.action_parts(start.state, start.parse_action(action))
    if not parts.places:
        page.click(f'#buttons button[data-action="{action}"]')
    for name in parts.places:
        page.click(f'#board [data-place="{name}"]')


def position_shown(page: Any) -> str:
    """The position on the board, as the page would share it."""
    href: str = page.get_attribute("#analyse", "href")
    from urllib.parse import parse_qs, urlsplit

    return parse_qs(urlsplit(href).query)["position"][0]


def play_through(page: Any, game_id: str, lesson: Lesson) -> None:
    position = lesson.start(game_id)
    page.wait_for_selector("#lesson[data-ready=true]")
    for number, step in enumerate(lesson.steps):
        action = step.accept[0] if step.accept else position.legal_action_strings()[0]
        assert page.get_attribute("#lesson", "data-step") == str(number)
        click_action(page, game_id, position.position_string(), action, lesson.options)
        last = number == len(lesson.steps) - 1
        page.wait_for_selector(f"#lesson[data-phase={'done' if last else 'explained'}]")
        position = position.play(action)
        if last:
            position = position.play_all(list(step.reply))
        assert position_shown(page) == position.position_string()
        assert page.inner_text("#explained").strip()
        if not last:
            page.click("#continue")
            page.wait_for_selector("#lesson[data-ready=true]")
            position = position.play_all(list(step.reply))
            assert position_shown(page) == position.position_string()


@pytest.mark.parametrize("game_id", boardlab.game_ids())
def test_every_lesson_plays_through_by_clicks_and_is_ticked(
    page: Any, url: str, game_id: str
) -> None:
    found = lessons(game_id)
    for lesson in found:
        page.goto(f"{url}/learn/{game_id}/{lesson.id}")
        play_through(page, game_id, lesson)
        assert page.is_visible("#next")
    page.goto(f"{url}/learn")
    card = page.locator(f'[data-game="{game_id}"]')
    assert card.locator("li.done").count() == len(found)
    assert f"{len(found)}" in card.locator(".progress").inner_text()


def test_a_legal_move_not_asked_for_is_explained_and_not_played(page: Any, url: str) -> None:
    game_id, lesson = next(
        (g, k)
        for g in boardlab.game_ids()
        for k in lessons(g)
        if k.steps[0].accept and k.steps[0].wrong
    )
    position = lesson.start(game_id)
    other = next(a for a in position.legal_action_strings() if a not in lesson.steps[0].accept)
    page.goto(f"{url}/learn/{game_id}/{lesson.id}?lang=de")
    page.wait_for_selector("#lesson[data-ready=true]")
    click_action(page, game_id, position.position_string(), other, lesson.options)
    page.wait_for_selector("#message.error")
    assert page.inner_text("#message") == lesson.steps[0].wrong["de"]
    assert page.get_attribute("#lesson", "data-phase") == "asking"
    assert position_shown(page) == position.position_string()
    page.goto(f"{url}/learn")  # nothing was done
    assert page.locator("li.done").count() == 0


def test_progress_is_kept_and_the_start_button_leads_to_the_next_lesson(
    page: Any, url: str
) -> None:
    game_id = boardlab.game_ids()[0]
    first, second = lessons(game_id)[:2]
    page.goto(f"{url}/learn/{game_id}/{first.id}")
    play_through(page, game_id, first)
    page.click("#next")
    page.wait_for_url(f"**/learn/{game_id}/{second.id}")
    page.goto(f"{url}/learn")
    card = page.locator(f'[data-game="{game_id}"]')
    assert card.locator("a[data-start]").get_attribute("href") == f"/learn/{game_id}/{second.id}"
    page.reload()
    assert card.locator("li.done").count() == 1


@pytest.mark.skipif(not SHOTS, reason="BOARDLAB_SCREENSHOTS names no folder")
@pytest.mark.parametrize("screen", SCREENS)
@pytest.mark.parametrize("lang", ["en", "de"])
def test_screenshots(browser: Any, url: str, lang: str, screen: str) -> None:
    width, height = SCREENS[screen]
    context = browser.new_context(viewport={"width": width, "height": height})
    shot = context.new_page()
    shot.goto(f"{url}/learn?lang={lang}")
    shot.screenshot(path=f"{SHOTS}/learn-{lang}-{screen}.png", full_page=True)
    for game_id in boardlab.game_ids():
        lesson = lessons(game_id)[0]
        shot.goto(f"{url}/learn/{game_id}/{lesson.id}")
        shot.wait_for_selector("#lesson[data-ready=true]")
        shot.screenshot(path=f"{SHOTS}/lesson-{game_id}-{lang}-{screen}.png", full_page=True)
    context.close()
