"""The analysis board in a real browser (Debian's Chromium driven by Playwright): random
games played on it by clicks give the engine's positions; the editor sets up a position
by clicks, passing through positions the rules refuse (said why, nothing to play) to one
they accept; the address shares the position; the AI's lines are legal and play by a
click; a game's and a review's positions open on it.

With ``BOARDLAB_SCREENSHOTS=DIR`` the board is photographed into DIR, playing with the
AI's lines and setting up, on a desktop and on a phone, in both languages."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

import boardlab
from boardlab.core.game import Position
from optional import need
from web_support import SMALL, chromium, served_in_memory, watched_page

playwright = need("playwright.sync_api")
uvicorn = need("uvicorn")

chromium()  # or the module is skipped (CI: fails)

SHOTS = os.environ.get("BOARDLAB_SCREENSHOTS")
SCREENS = {"desktop": (1280, 860), "phone": (390, 844)}
GAMES = boardlab.game_ids()


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with served_in_memory() as served:
        yield served


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    with watched_page(browser) as opened:
        yield opened


def ready(page: Any) -> str:
    """The position on show once the page has settled."""
    page.wait_for_selector("#analysis[data-ready=true]")
    shown: str = page.get_attribute("#analysis", "data-position")
    return shown


def click_action(page: Any, position: Position[Any], action: int) -> None:
    parts = position.game.action_parts(position.state, action)
    if not parts.places:
        page.click(f'#buttons button[data-action="{position.action_string(action)}"]')
    for name in parts.places:
        page.click(f'#board [data-place="{name}"]')


def address_position(page: Any) -> str:
    return parse_qs(urlsplit(page.url).query)["position"][0]


@pytest.mark.parametrize("game_id", GAMES)
def test_random_games_played_by_clicks_agree_with_the_engine(
    page: Any, url: str, game_id: str
) -> None:
    rng = random.Random(f"analysis board {game_id}")
    position = boardlab.new_game(game_id).initial()
    page.goto(f"{url}/analysis/{game_id}")
    assert ready(page) == position.position_string()
    played = [position]
    while not position.is_over() and len(played) < 25:
        action = rng.choice(position.legal_actions())
        click_action(page, position, action)
        position = position.play(action)
        played.append(position)
        page.wait_for_function(
            "n => document.querySelectorAll('#moves li').length === n", arg=len(played) - 1
        )
        assert ready(page) == position.position_string()
        assert address_position(page) == position.position_string()
    # stepping back and forth through the line
    page.click("#first")
    assert ready(page) == played[0].position_string()
    page.keyboard.press("ArrowRight")
    assert ready(page) == played[1].position_string()
    page.keyboard.press("End")
    assert ready(page) == position.position_string()
    # the address shares the position shown
    page.goto(page.url)
    assert ready(page) == position.position_string()


def test_the_editor_passes_through_refused_positions_to_an_accepted_one(
    page: Any, url: str
) -> None:
    game = boardlab.new_game("jinli")
    start = game.initial()
    page.goto(f"{url}/analysis/jinli?lang=de")
    ready(page)
    page.click("#mode-setup")
    page.wait_for_selector("#analysis[data-mode=setup]")
    page.check("input[name=tool][value=clear]")
    page.click('#board [data-place="a1"]')  # a red koi lifted: 1 koi, refused
    page.wait_for_selector("#verdict.error")
    lifted = ready(page)
    assert lifted == game.edit(start.position_string(), "clear", "a1")
    assert "Koi" in page.inner_text("#verdict")
    assert page.is_disabled("#setup-done") and page.is_disabled("#mode-play")
    assert page.locator("#board svg").count() == 1  # drawn all the same
    page.check("input[name=tool][value=red-koi]")
    page.click('#board [data-place="d4"]')  # put down elsewhere: accepted
    page.wait_for_selector("#verdict:not(.error)")
    moved = game.edit(lifted, "red-koi", "d4")
    assert ready(page) == moved == game.from_position_string(moved).position_string()
    page.click("[data-tool=switch]")
    page.wait_for_function(
        "t => document.getElementById('analysis').dataset.position !== t", arg=moved
    )
    switched = game.from_position_string(game.edit(moved, "switch"))
    assert ready(page) == switched.position_string()
    page.click("#setup-done")
    page.wait_for_selector("#analysis[data-mode=play]")
    action = switched.legal_actions()[0]
    click_action(page, switched, action)
    page.wait_for_function("() => document.querySelectorAll('#moves li').length === 1")
    assert ready(page) == switched.play(action).position_string()


def test_a_position_string_typed_is_opened_or_refused_with_the_reason(page: Any, url: str) -> None:
    page.goto(f"{url}/analysis/galatjang")
    ready(page)
    page.fill("#position-text", "1,2,3")
    page.click("#position-form button[type=submit]")
    page.wait_for_selector("#message.error")
    assert "'1,2,3'" in page.inner_text("#message")
    assert ready(page) == boardlab.new_game("galatjang").initial().position_string()
    legal = "0,0,0,1,2,0/0,1,0,0,3,1 32/32 s 1 0"
    page.fill("#position-text", legal)
    page.click("#position-form button[type=submit]")
    page.wait_for_function(
        "t => document.getElementById('analysis').dataset.position === t", arg=legal
    )
    assert page.get_attribute("#analysis", "data-mode") == "play"


def test_an_impossible_position_in_the_address_opens_in_the_editor(page: Any, url: str) -> None:
    impossible = "0,0,0,1,2,0/0,1,0,0,3,1 33/32 s 1 0"  # 73 seeds
    page.goto(f"{url}/analysis/galatjang?position={impossible.replace(' ', '+')}")
    assert ready(page) == impossible
    assert page.get_attribute("#analysis", "data-mode") == "setup"
    assert "73" in page.inner_text("#verdict")
    unreadable = page.goto(f"{url}/analysis/galatjang?position=nonsense")
    assert unreadable is not None and unreadable.status == 400
    assert "nonsense" in page.inner_text("main")


@pytest.mark.parametrize("game_id", GAMES)
def test_the_ais_lines_are_legal_and_play_by_a_click(page: Any, url: str, game_id: str) -> None:
    position = boardlab.new_game(game_id).initial()
    page.goto(f"{url}/analysis/{game_id}")
    ready(page)
    page.check("#lines-on")
    page.wait_for_selector("#lines ol li", timeout=120000)
    lines = page.locator("#lines ol li")
    assert 1 <= lines.count() <= 3
    for k in range(lines.count()):
        first = lines.nth(k).locator("button.action").inner_text()
        rest = lines.nth(k).locator(".line-rest").inner_text().split()
        position.play_all([first, *rest])  # raises for an illegal line
    from boardlab.solve import exact_values

    values = exact_values(position.game, position.state)
    if values is not None:  # every move's exact value, shown as a tablebase shows them
        rows = page.locator("#explorer tr")
        assert rows.count() == len(values) == len(position.legal_actions())
    else:
        assert page.locator("#explorer").count() == 0
    first = lines.nth(0).locator("button.action").inner_text()
    lines.nth(0).locator("button.action").click()
    page.wait_for_function("() => document.querySelectorAll('#moves li').length === 1")
    assert ready(page) == position.play(first).position_string()
    page.reload()  # the choice to see the lines is kept
    assert page.is_checked("#lines-on")


def test_a_games_and_a_reviews_positions_open_on_the_analysis_board(page: Any, url: str) -> None:
    form = {"opponent": "human", "seat": "0", **SMALL["galatjang"]}
    made = page.request.post(f"{url}/new/galatjang", form=form, max_redirects=0)
    game_id = str(made.headers["location"]).rsplit("/", 1)[1]
    state = page.request.get(f"{url}/api/games/{game_id}").json()
    for _ in range(3):
        action = state["legal"][0]["action"]
        page.request.post(
            f"{url}/api/games/{game_id}/play",
            data={"action": action, "ply": state["ply"]},
        )
        state = page.request.get(f"{url}/api/games/{game_id}").json()
    page.goto(f"{url}/play/{game_id}")
    page.wait_for_selector("#play[data-ply='3']")
    page.click("#analyse")
    assert ready(page) == state["position"]
    assert parse_qs(urlsplit(page.url).query)["option"] == state["options"] != []
    page.goto(f"{url}/review/{game_id}")
    page.wait_for_selector("#board svg")
    page.click("#first")
    page.wait_for_function("() => document.getElementById('where').textContent !== ''")
    page.click("#analyse")
    game = boardlab.new_game("galatjang", **{k: int(v) for k, v in SMALL["galatjang"].items()})
    assert ready(page) == game.initial().position_string()


@pytest.mark.skipif(not SHOTS, reason="BOARDLAB_SCREENSHOTS names no folder")
@pytest.mark.parametrize("screen", SCREENS)
@pytest.mark.parametrize("lang", ["en", "de"])
def test_screenshots(browser: Any, url: str, lang: str, screen: str) -> None:
    width, height = SCREENS[screen]
    context = browser.new_context(viewport={"width": width, "height": height})
    shot = context.new_page()
    for game_id in GAMES:
        shot.goto(f"{url}/analysis/{game_id}?lang={lang}")
        ready(shot)
        shot.check("#lines-on")
        shot.wait_for_selector("#lines ol li", timeout=120000)
        shot.screenshot(path=f"{SHOTS}/analysis-{game_id}-{lang}-{screen}.png", full_page=True)
        shot.click("#mode-setup")
        shot.screenshot(path=f"{SHOTS}/setup-{game_id}-{lang}-{screen}.png", full_page=True)
    context.close()
