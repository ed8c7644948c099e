"""The web app in a real browser (Debian's Chromium driven by Playwright): whole games of
each game against the AI by clicking, a game on one screen, undo, hint, typed actions, an
illegal click, download, upload and review, and a server killed in the middle of a game.

With ``BOARDLAB_SCREENSHOTS=DIR`` the game pages are photographed into DIR (``make
screenshots`` refreshes the ones in docs/images)."""

from __future__ import annotations

import contextlib
import os
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from optional import need
from web_support import SMALL, LiveServer, chromium

playwright = need("playwright.sync_api")

chromium()  # or the module is skipped (CI: fails)

SHOTS = os.environ.get("BOARDLAB_SCREENSHOTS")


@pytest.fixture(scope="module")
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    """``boardlab serve`` on PostgreSQL, a host's database, for what the storage keeps
    between two browsers (online play, a spectator, clocks, takebacks). The API's tests
    walk the same on SQLite too (tests/test_web_online.py), as the pages' tests below
    walk SQLite alone."""
    folder = tmp_path_factory.mktemp("web")
    live = LiveServer(request.getfixturevalue("postgres").fresh(), folder)
    live.start()
    yield live
    live.stop()


#: Moves shown at once unless a test chose a pace (the tests of how a move is shown do):
#: a whole game's animations would take minutes of the suite.
AT_ONCE = "localStorage.getItem('boardlab.speed') || localStorage.setItem('boardlab.speed', 'off')"


@pytest.fixture(scope="module")
def page_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """``boardlab serve`` on SQLite only, for what happens in one page (a game against
    the AI or on one screen, how a move is shown, the keyboard, sounds, the move list,
    review, languages): the storage under it is the same for both databases, and the
    API's tests walk it on each (tests/test_web_api.py, test_web_online.py)."""
    live = LiveServer(tmp_path_factory.mktemp("page") / "games.sqlite3")
    live.start()
    yield live
    live.stop()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1200, "height": 900}, accept_downloads=True)
    context.add_init_script(AT_ONCE)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.on(  # nothing the page needs is refused by its Content-Security-Policy
        "console",
        lambda message: "Content Security Policy" in message.text and errors.append(message.text),
    )
    opened.set_default_timeout(30000)
    yield opened
    context.close()
    assert errors == [], errors  # no script error on any page


def start(
    page: Any,
    server: LiveServer,
    game: str,
    opponent: str,
    seat: str = "0",
    clock: str = "",
    small: bool = True,
) -> str:
    """Open the new game page, choose (a small board unless not ``small``), start; the
    game id."""
    page.goto(f"{server.url}/new/{game}")
    page.select_option("select[name=opponent]", opponent)
    page.select_option("select[name=seat]", seat)
    if clock:
        page.select_option("select[name=clock]", clock)
    for name, value in SMALL[game].items() if small else ():
        page.fill(f"input[name={name}]", value)
    page.click("button[type=submit]")
    page.wait_for_url("**/play/*")
    page.wait_for_selector("svg.board")
    return str(page.url.rsplit("/", 1)[1])


def wait_until(page: Any, expression: str, timeout: int = 30000) -> None:
    """Wait until a JavaScript expression is true in the page. (Playwright's
    ``wait_for_function`` evaluates a string, which the pages' Content-Security-Policy
    rightly refuses; ``evaluate`` goes through the debugging protocol.)"""
    deadline = time.monotonic() + timeout / 1000
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"waited {timeout} ms for {expression}"
        page.wait_for_timeout(100)


def state_of(page: Any, server: LiveServer, game_id: str) -> dict[str, Any]:
    answer: dict[str, Any] = page.request.get(f"{server.url}/api/games/{game_id}").json()
    return answer


def wait_for(page: Any, server: LiveServer, game_id: str, ready: Any) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while True:
        state = state_of(page, server, game_id)
        if ready(state):
            return state
        assert time.monotonic() < deadline, f"gave up waiting at {state['position']}"
        page.wait_for_timeout(100)


def settled(page: Any, server: LiveServer, game_id: str) -> dict[str, Any]:
    """The state once a person is to act or the game is over, as the page shows it."""
    state = wait_for(page, server, game_id, lambda s: s["outcome"] is not None or s["human_to_act"])
    # The page has caught up when it shows the same ply, waiting for a person.
    ready = "true" if state["outcome"] is None else "false"
    page.wait_for_selector(f'#play[data-ply="{state["ply"]}"][data-ready="{ready}"]')
    return state


def click_action(page: Any, entry: dict[str, Any]) -> None:
    """Play a legal action the way a person does: click its places, or its button."""
    if not entry["places"]:
        page.click(f'#buttons button[data-action="{entry["action"]}"]')
        return
    for place in entry["places"]:
        page.click(f'#board [data-place="{place}"]')


def play_by_clicking(
    page: Any, server: LiveServer, game_id: str, rng: random.Random
) -> dict[str, Any]:
    state = settled(page, server, game_id)
    while state["outcome"] is None:
        entry = rng.choice(state["legal"])
        ply = state["ply"]
        click_action(page, entry)
        if entry["places"] and any(
            other["places"][: len(entry["places"])] == entry["places"]
            and len(other["places"]) > len(entry["places"])
            for other in state["legal"]
        ):  # the places also begin a longer action: the last click again confirms it
            page.click(f'#board [data-place="{entry["places"][-1]}"]')
        moved = wait_for(page, server, game_id, lambda s, ply=ply: s["ply"] > ply)
        assert moved["moves"], moved
        state = settled(page, server, game_id)
    page.wait_for_selector("#status.over")
    return state


@pytest.mark.parametrize("game", ["jinli", "linja", "galatjang"])
def test_a_whole_game_against_the_ai_by_clicking(
    page: Any, page_server: LiveServer, game: str
) -> None:
    game_id = start(page, page_server, game, "easy")
    if SHOTS:
        page.wait_for_timeout(300)
        page.screenshot(path=str(Path(SHOTS) / f"{game}.png"))
    state = play_by_clicking(page, page_server, game_id, random.Random(game))
    status = page.inner_text("#status")
    assert state["outcome"]["sentence"] in status
    moves = page.inner_text("#moves")
    for turn in state["moves"]:
        assert " ".join(turn["actions"]) in moves


def test_two_people_on_one_screen(page: Any, page_server: LiveServer) -> None:
    game_id = start(page, page_server, "galatjang", "human")
    state = state_of(page, page_server, game_id)
    assert all(seat["human"] for seat in state["seats"])
    final = play_by_clicking(page, page_server, game_id, random.Random(1))
    assert final["outcome"] is not None
    assert {turn["player"] for turn in final["moves"]} == {0, 1}


def test_undo_hint_typed_actions_and_an_illegal_click(page: Any, page_server: LiveServer) -> None:
    game_id = start(page, page_server, "galatjang", "easy")
    state = settled(page, page_server, game_id)
    # An illegal click: a pit of North's is not South's to sow.
    page.click('#board [data-place="n1"]')
    assert "cannot be played now" in page.inner_text("#message")
    assert state_of(page, page_server, game_id)["ply"] == 0
    # A typed action that is not legal is refused with the engine's reason.
    page.fill("#typed-action", "s9")
    page.press("#typed-action", "Enter")
    wait_until(page, "document.getElementById('message').textContent.includes('s9')")
    assert state_of(page, page_server, game_id)["ply"] == 0
    # The hint names a legal action and lights its pit.
    page.click("#hint-button")
    wait_until(page, "document.getElementById('hint').textContent.startsWith('Hint:')")
    assert page.locator("#board [data-place].hinted").count() == 1
    # A typed legal action plays; the AI answers; undo takes both back.
    page.fill("#typed-action", "s1")
    page.press("#typed-action", "Enter")
    wait_for(page, page_server, game_id, lambda s: s["ply"] >= 1)
    state = settled(page, page_server, game_id)
    if state["outcome"] is None:
        page.click("#undo")
        back = wait_for(page, page_server, game_id, lambda s: s["ply"] == 0)
        assert back["human_to_act"]
        wait_until(page, "document.getElementById('message').textContent.includes('Taken back')")


def test_download_upload_and_review(page: Any, page_server: LiveServer, tmp_path: Path) -> None:
    game_id = start(page, page_server, "galatjang", "easy")
    final = play_by_clicking(page, page_server, game_id, random.Random(2))
    with page.expect_download() as download:
        page.click("#download-text")
    saved = tmp_path / "game.txt"
    download.value.save_as(saved)
    text = saved.read_text()
    assert all(a in text for turn in final["moves"] for a in turn["actions"])
    page.goto(f"{page_server.url}/")
    page.set_input_files("input[name=record]", str(saved))
    page.click("form.upload button")
    page.wait_for_url("**/review/*")
    wait_until(
        page,
        "document.getElementById('review-status').textContent.startsWith('Reviewed')",
        timeout=120000,
    )
    assert page.locator("#graph svg").count() == 1
    judged = page.request.get(f"{page_server.url}/api/games/{page.url.rsplit('/', 1)[1]}/review")
    summary = judged.json()
    for k, player in enumerate(summary["players"]):
        row = page.locator("#summary tbody tr").nth(k).locator("td")
        estimated = [i["loss"] for i in summary["items"] if i["player"] == k and not i["exact"]]
        shown = row.nth(4).inner_text()
        if not estimated:
            assert shown == "–"
            continue
        # the AI's losses alone: exact points do not mix with them
        assert abs(float(shown) - sum(estimated) / len(estimated)) <= 0.0005 + 1e-9
        assert abs(float(shown) - player["average_loss"]) <= 0.0006
    page.click("#first")
    assert page.inner_text("#where") == "start"
    page.click("#next")
    assert "after action 1" in page.inner_text("#where")
    first = final["moves"][0]["actions"][0]
    assert first in page.inner_text("#notes")
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / "review.png"), full_page=True)
    # The same record pasted instead of uploaded opens the same game.
    page.goto(f"{page_server.url}/")
    page.fill("form.upload textarea[name=pasted]", text)
    page.click("form.upload button")
    page.wait_for_url("**/review/*")
    pasted = state_of(page, page_server, page.url.rsplit("/", 1)[1])
    assert pasted["moves"] == final["moves"]


def test_rules_pages_draw_their_diagrams(page: Any, page_server: LiveServer) -> None:
    for game in ("jinli", "linja", "galatjang"):
        page.goto(f"{page_server.url}/rules/{game}")
        assert page.locator("svg.board").count() >= 2
        assert page.locator("table.options tr").count() > 2
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / "rules.png"))


def test_a_game_survives_the_server_being_killed(page: Any, tmp_path: Path) -> None:
    """On SQLite, the database of ``make serve``: the API's test kills the server on
    PostgreSQL too (tests/test_web_online.py)."""
    live = LiveServer(tmp_path / "games.sqlite3", tmp_path)
    live.start()
    try:
        game_id = start(page, live, "linja", "easy")
        rng = random.Random(4)

        def two_turns(state: dict[str, Any]) -> dict[str, Any]:
            for _ in range(2):
                entry = rng.choice(state["legal"])
                ply = state["ply"]
                click_action(page, entry)
                wait_for(page, live, game_id, lambda s, ply=ply: s["ply"] > ply)
                state = settled(page, live, game_id)
            return state

        before = two_turns(settled(page, live, game_id))
        live.kill()
        click_action(page, rng.choice(before["legal"]))  # into the void: the page says so
        unreachable = "The server cannot be reached"
        wait_until(
            page, f"document.getElementById('message').textContent.includes('{unreachable}')"
        )
        live.start()
        # The page reconnects by itself, and the message about the lost server goes (it
        # stayed on screen after the game had come back).
        wait_until(page, "document.getElementById('message').textContent === ''")
        after = settled(page, live, game_id)
        assert after["ply"] == before["ply"]
        assert after["position"] == before["position"]
        # (a whole game by clicking is test_a_whole_game_against_the_ai_by_clicking's)
        assert two_turns(after)["ply"] > after["ply"]
    finally:
        live.stop()


def test_a_phone_sized_screen(browser: Any, page_server: LiveServer) -> None:
    context = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    phone = context.new_page()
    sideways = "document.documentElement.scrollWidth"  # above 390: the page scrolls sideways
    try:
        for path in ("/", "/rules/jinli", "/new/linja", "/new/galatjang"):
            phone.goto(f"{page_server.url}{path}")
            assert phone.evaluate(sideways) <= 390, path
        phone.click("button[type=submit]")
        phone.wait_for_selector('#play[data-ready="true"]')  # the script is listening
        assert phone.evaluate(sideways) <= 390
        phone.tap('#board [data-place="s2"]')
        wait_until(phone, "document.getElementById('moves').textContent.includes('s2')")
        if SHOTS:
            phone.screenshot(path=str(Path(SHOTS) / "phone.png"), full_page=True)
    finally:
        context.close()


TRAIL = """() => {
  window.trail = [];
  new MutationObserver((changes) => {
    for (const change of changes) {
      const place = change.target;
      if (place.classList.contains("trail") && !change.oldValue?.includes("trail"))
        window.trail.push([place.dataset.place,
                           place.querySelector("text.count")?.textContent ?? ""]);
    }
  }).observe(document.getElementById("board"),
             {subtree: true, attributes: true, attributeFilter: ["class"],
              attributeOldValue: true});
}"""


def board_counts(page: Any) -> dict[str, int]:
    """The number each place of the board shows now."""
    shown = page.evaluate(
        """() => [...document.querySelectorAll('#board [data-place]')].map(
             (p) => [p.dataset.place, p.querySelector('text.count')?.textContent ?? ''])"""
    )
    return {name: int(count) for name, count in shown if count.isdigit()}


def test_a_sowing_is_shown_seed_by_seed(page: Any, page_server: LiveServer) -> None:
    game_id = start(page, page_server, "galatjang", "human")
    page.evaluate("localStorage.setItem('boardlab.speed', 'normal')")
    page.reload()
    before = settled(page, page_server, game_id)
    page.evaluate(TRAIL)  # every place the board lights while a move is shown
    pit = "s1"
    start_counts = board_counts(page)
    lifted = int(page.text_content(f'#board [data-place="{pit}"] text.count') or "")
    page.click(f'#board [data-place="{pit}"]')
    wait_for(page, page_server, game_id, lambda s: s["ply"] > before["ply"])
    after = settled(page, page_server, game_id)
    trail = page.evaluate("window.trail")
    notes = [n for n in after["last"]["notes"] if n["ply"] >= before["ply"] and n["places"]]
    # The board walks through exactly the places the engine's narration names, in order.
    assert [name for name, _ in trail] == [p for n in notes for p in n["places"]]
    sowing = notes[0]
    assert sowing["sows"] and sowing["places"][0] == pit
    # One place per seed: the pit is emptied, then each seed lands in the next place.
    assert len(sowing["places"]) == lifted + 1
    assert trail[0] == [pit, "0"]
    counts = {pit: 0}
    for name, count in trail[1 : lifted + 1]:
        counts[name] = counts.get(name, start_counts.get(name, 0)) + 1
        assert count in ("", str(counts[name])), (name, count, counts)


def test_a_relay_sowing_shows_every_count_and_a_click_skips_it(
    page: Any, page_server: LiveServer
) -> None:
    """Galatjang on its full board, relay sowing: on every move the count a place shows
    as it lights is the seeds lifted from and dropped into it so far, a pit sown from
    showing 0 and then 1 when a lap passes it again (the board was drawn again from the
    old position when the move's ack came, so it showed 6 -> 7). A click meanwhile skips
    to the end and is not sent as a move of the position still shown (it was refused:
    "the game has moved on")."""
    game_id = start(page, page_server, "galatjang", "human", small=False)
    page.evaluate("localStorage.setItem('boardlab.speed', 'fast')")
    page.reload()
    page.evaluate(TRAIL)
    rng = random.Random(3)
    passed_again = 0
    for _ in range(6):
        state = settled(page, page_server, game_id)
        counts = board_counts(page)
        page.evaluate("window.trail = []")
        click_action(page, rng.choice(state["legal"]))
        wait_for(page, page_server, game_id, lambda s, ply=state["ply"]: s["ply"] > ply)
        after = settled(page, page_server, game_id)
        notes = [n for n in after["last"]["notes"] if n["ply"] >= state["ply"] and n["places"]]
        trail = page.evaluate("window.trail")
        assert [name for name, _ in trail] == [p for n in notes for p in n["places"]]
        shown = iter(trail)
        lifted = set()
        for note in notes:
            for k, place in enumerate(note["places"]):
                _, count = next(shown)
                if not note["sows"]:
                    continue
                if k == 0:
                    counts[place] = 0
                    lifted.add(place)
                else:
                    counts[place] = counts.get(place, 0) + 1
                    passed_again += place in lifted
                assert count in ("", str(counts[place])), (place, count, counts[place], note)
    assert passed_again, "no lap passed a pit it was sown from: choose another seed"
    page.select_option("#speed", "normal")
    state = settled(page, page_server, game_id)
    counts = board_counts(page)
    longest = max(state["legal"], key=lambda a: counts[a["places"][0]])
    click_action(page, longest)
    page.wait_for_selector("#skip")
    clicked = page.evaluate(  # at once, while the sowing is still shown
        """(name) => {
          if (!document.getElementById('skip')) return false;
          document.querySelector(`#board [data-place="${name}"]`)
            .dispatchEvent(new MouseEvent('click', {bubbles: true}));
          return true;
        }""",
        state["legal"][-1]["places"][0],
    )
    assert clicked
    page.wait_for_selector("#skip", state="detached")
    after = settled(page, page_server, game_id)
    assert after["ply"] == state["ply"] + 1, "the click during the sowing was not a move"
    assert page.inner_text("#message") == ""


def test_an_action_without_places_is_a_button_in_sight(
    browser: Any, page_server: LiveServer
) -> None:
    """Linja's "decline the bonus" is a button: on a laptop's screen (1280x860) it shows
    above the board, not below the fold where it was."""
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    page = context.new_page()
    try:
        game_id = start(page, page_server, "linja", "human")
        rng = random.Random(2)
        state = settled(page, page_server, game_id)
        while not any(not a["places"] for a in state["legal"]):
            assert state["outcome"] is None, "no action without places in a whole game"
            action = rng.choice(state["legal"])["action"]
            page.request.post(
                f"{page_server.url}/api/games/{game_id}/play",
                data={"action": action, "ply": state["ply"]},
            )
            state = settled(page, page_server, game_id)
        button = page.locator("#buttons button").first
        button.wait_for()
        box = button.bounding_box()
        assert box is not None and box["y"] + box["height"] <= 860, box
    finally:
        context.close()


def test_a_turn_played_with_the_keyboard_alone(page: Any, page_server: LiveServer) -> None:
    game_id = start(page, page_server, "linja", "human")
    state = settled(page, page_server, game_id)

    def tab_to(selector: str) -> str:
        """Press Tab until the focus is on ``selector`` inside the board; its place."""
        for _ in range(60):
            page.keyboard.press("Tab")
            name = page.evaluate(
                f"document.activeElement.matches('#board {selector}') && "
                "document.activeElement.dataset.place"
            )
            if name:
                return str(name)
        raise AssertionError(f"Tab never reached {selector}")

    first = tab_to("[data-place].selectable")
    page.keyboard.press("Enter")
    page.wait_for_selector(f'#board [data-place="{first}"].selected')
    target = tab_to("[data-place].target")
    page.keyboard.press("Enter")
    played = wait_for(page, page_server, game_id, lambda s: s["ply"] == state["ply"] + 1)
    assert played["moves"][0]["actions"] == [f"{first}-{target}"]
    assert f"{first}-{target}" in [a["action"] for a in state["legal"]]


def test_a_whole_turn_of_several_actions_by_keyboard_keeps_the_focus_on_the_board(
    page: Any, page_server: LiveServer
) -> None:
    """A Jin Li turn is a swim and a drop: after the swim played with Enter the focus
    stays on the board, on a place the drop can use, so Enter plays it at once (the
    focus used to fall out of the board, some ten Tabs away through the header)."""
    game_id = start(page, page_server, "jinli", "human")
    state = settled(page, page_server, game_id)
    for _ in range(60):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.matches('#board [data-place].selectable')"):
            break
    page.keyboard.press("Enter")  # the koi
    page.wait_for_selector("#board [data-place].selected")
    assert page.evaluate("document.activeElement.closest('#board') !== null")
    for _ in range(60):
        if page.evaluate("document.activeElement.matches('#board [data-place].target')"):
            break
        page.keyboard.press("Tab")
    page.keyboard.press("Enter")  # where it swims
    swum = wait_for(page, page_server, game_id, lambda s: s["ply"] == state["ply"] + 1)
    assert swum["to_act"] == state["to_act"], "the drop is still this player's"
    page.wait_for_selector(f'#play[data-ply="{swum["ply"]}"][data-ready="true"]')
    focused = page.evaluate("document.activeElement.dataset.place ?? null")
    drops = {a["places"][0] for a in swum["legal"] if len(a["places"]) == 1}
    assert focused in drops, (focused, sorted(drops))
    page.keyboard.press("Enter")  # the stone, where the focus already is
    dropped = wait_for(page, page_server, game_id, lambda s: s["ply"] == swum["ply"] + 1)
    drop = next(a["action"] for a in swum["legal"] if a["places"] == [focused])
    assert dropped["moves"][-1]["actions"][-1] == drop


def test_a_game_in_german_switched_to_english_mid_game(
    browser: Any, page_server: LiveServer
) -> None:
    """A browser that prefers German gets the game in German (status, narration, an
    illegal click's reason); the language link switches mid-game without losing a move,
    and the choice is remembered."""
    from boardlab.core.i18n import _, use_language

    context = browser.new_context(viewport={"width": 1200, "height": 900}, locale="de-DE")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_default_timeout(30000)
    try:
        game_id = start(page, page_server, "galatjang", "easy")
        assert page.get_attribute("html", "lang") == "de"
        with use_language("de"):
            your_turn = _("Your turn, {player}").format(player="Süd")
            not_now = _("{place} cannot be played now ({due}). {player} can start from {places}.")
        state = settled(page, page_server, game_id)
        assert your_turn in page.inner_text("#status")
        page.click('#board [data-place="n1"]')
        assert not_now.split("{due}")[0].format(place="n1") in page.inner_text("#message")
        click_action(page, state["legal"][0])
        wait_for(page, page_server, game_id, lambda s: s["ply"] >= 1)
        state = settled(page, page_server, game_id)
        notes = page.inner_text("#notes")
        assert "Bohne" in notes, notes
        if SHOTS:
            page.screenshot(path=str(Path(SHOTS) / "galatjang-de.png"))
        moves = page.inner_text("#moves")
        with page.expect_navigation():
            page.click('nav.languages a[hreflang="en"]')
        page.wait_for_selector('html[lang="en"]', state="attached")
        settled(page, page_server, game_id)
        assert page.inner_text("#moves") == moves
        assert "Your turn, South" in page.inner_text("#status") or state["outcome"] is not None
        final = play_by_clicking(page, page_server, game_id, random.Random(5))
        assert final["outcome"] is not None
        english = page.inner_text("#status")
        page.goto(f"{page_server.url}/play/{game_id}")
        assert page.get_attribute("html", "lang") == "en", "the choice is remembered"
        with page.expect_navigation():
            page.click('nav.languages a[hreflang="de"]')
        page.wait_for_selector('html[lang="de"]', state="attached")
        page.wait_for_selector("#status.over")
        assert page.inner_text("#status") != english
    finally:
        context.close()
    assert errors == [], errors


@contextlib.contextmanager
def two_players(
    browser: Any, server: LiveServer, game: str, clock: str = ""
) -> Iterator[tuple[Any, Any, str]]:
    """A game online between two browsers, the second seated by the invitation link:
    their pages and the game's id; no script error on either."""
    contexts = [browser.new_context(viewport={"width": 1200, "height": 900}) for _ in range(2)]
    for context in contexts:
        context.add_init_script(AT_ONCE)
    creator, friend = (context.new_page() for context in contexts)
    errors: list[str] = []
    for opened in (creator, friend):
        opened.on("pageerror", lambda error: errors.append(str(error)))
        opened.set_default_timeout(30000)
    try:
        game_id = start(creator, server, game, "online", clock=clock)
        friend.goto(creator.input_value("#invitation-link"))
        friend.click("form.take-seat button[type=submit]")
        friend.wait_for_url(f"**/play/{game_id}")
        creator.wait_for_selector("#invitation", state="hidden")
        yield creator, friend, game_id
    finally:
        for context in contexts:
            context.close()
    assert errors == [], errors


def test_a_clocked_rematch_runs_its_clock(browser: Any, server: LiveServer) -> None:
    """The rematch of a game on a clock: its clock stands until both players have come
    to it, then runs for the player to act (it stood at full time for good, so nobody
    could lose on time in a rematch)."""
    with two_players(browser, server, "galatjang", clock="1+0") as (creator, friend, game_id):
        creator.once("dialog", lambda dialog: dialog.accept())
        creator.click("#resign")
        friend.wait_for_selector("#status.over")
        creator.click("#rematch-button")
        creator.wait_for_url(lambda url: game_id not in url)
        rematch = creator.url.rsplit("/", 1)[1]
        assert state_of(creator, server, rematch)["clock"]["running"] is None
        wait_until(friend, "document.getElementById('rematch-button').textContent !== ''")
        friend.click("#rematch-button")
        friend.wait_for_url(f"**/play/{rematch}")
        state = wait_for(creator, server, rematch, lambda s: s["clock"]["running"] is not None)
        assert state["clock"]["running"] == state["to_act"]
        to_act = state["to_act"]
        wait_for(creator, server, rematch, lambda s: s["clock"]["left"][to_act] < 59000)
        mover = (creator, friend)[to_act ^ 1]  # the seats are swapped in a rematch
        mover.wait_for_selector('#play[data-ready="true"]')
        wait_until(mover, "document.querySelector('.clock.running') !== null")


def test_a_declined_draw_is_told_to_who_offered_it(browser: Any, page_server: LiveServer) -> None:
    with two_players(browser, page_server, "linja") as (creator, friend, _):
        creator.click("#draw")
        friend.wait_for_selector("#draw-decline", state="visible")
        friend.click("#draw-decline")
        creator.wait_for_selector("#draw-offer", state="hidden")
        wait_until(creator, "document.getElementById('message').textContent.includes('declined')")
        assert "declined" not in friend.inner_text("#message")


def act_by_api(pages: dict[int, Any], server: LiveServer, game_id: str, rng: random.Random) -> Any:
    """The player to act plays a random legal action through the API with their own
    browser's seat (as a script would); the state after it."""
    state = state_of(pages[0], server, game_id)
    mover = pages[state["to_act"]]
    action = rng.choice(state["legal"])["action"]
    answer = mover.request.post(
        f"{server.url}/api/games/{game_id}/play", data={"action": action, "ply": state["ply"]}
    )
    assert answer.ok, answer.text()
    return answer.json()


SAME_BOARD = """(svg) => {
  const drawn = document.createElement('div');
  drawn.innerHTML = svg;
  return drawn.innerHTML === document.getElementById('board').innerHTML;
}"""


def test_earlier_positions_from_the_move_list(browser: Any, page_server: LiveServer) -> None:
    """A click on an action in the move list shows the position after it, as the API
    draws it, and the board takes no click meanwhile; the arrow keys step; the
    opponent's action comes into the list without taking the player away from the
    position shown; End comes back to the game."""
    with two_players(browser, page_server, "linja") as (creator, friend, game_id):
        pages, rng = {0: creator, 1: friend}, random.Random(6)
        for _ in range(4):
            state = act_by_api(pages, page_server, game_id, rng)
        creator.wait_for_selector(f'#play[data-ply="{state["ply"]}"]')
        creator.click('#moves button[data-ply="2"]')
        creator.wait_for_selector('#play[data-browsing="2"]')
        boards = creator.request.get(
            f"{page_server.url}/api/games/{game_id}/positions?start=1&count=2"
        )
        first, second = boards.json()["boards"]
        assert creator.evaluate(SAME_BOARD, second["svg"])
        assert creator.get_attribute("#play", "data-ready") == "false"
        assert creator.locator("#board [tabindex]").count() == 0
        creator.keyboard.press("ArrowLeft")
        creator.wait_for_selector('#play[data-browsing="1"]')
        assert creator.evaluate(SAME_BOARD, first["svg"])
        state = act_by_api(pages, page_server, game_id, rng)
        creator.wait_for_selector(f'#moves button[data-ply="{state["ply"]}"]')
        assert creator.get_attribute("#play", "data-browsing") == "1"
        assert creator.evaluate(SAME_BOARD, first["svg"])
        creator.keyboard.press("End")
        creator.wait_for_selector('#play[data-browsing=""]')
        live = state_of(creator, page_server, game_id)
        ready = "true" if live["to_act"] == 0 else "false"
        creator.wait_for_selector(f'#play[data-ply="{live["ply"]}"][data-ready="{ready}"]')
        assert creator.locator("#board [data-place]").count() > 0


def test_sounds_tell_a_move_and_your_turn_unless_switched_off(
    browser: Any, page_server: LiveServer
) -> None:
    """The page sounds when the opponent's action makes it the player's turn; a player
    who switched sounds off hears none, also after a reload."""
    with two_players(browser, page_server, "galatjang") as (creator, friend, game_id):
        pages, rng = {0: creator, 1: friend}, random.Random(1)
        state = state_of(creator, page_server, game_id)
        waiting = pages[1 - state["to_act"]]
        while state_of(creator, page_server, game_id)["to_act"] == state["to_act"]:
            act_by_api(pages, page_server, game_id, rng)
        wait_until(waiting, "document.getElementById('play').dataset.sound === 'turn'")
        waiting.uncheck("#sounds")
        waiting.reload()
        waiting.wait_for_selector("svg.board")
        assert not waiting.is_checked("#sounds")
        now = state_of(creator, page_server, game_id)
        other = pages[1 - now["to_act"]]  # whose sounds are on
        other.evaluate("delete document.getElementById('play').dataset.sound")
        while state_of(creator, page_server, game_id)["to_act"] == now["to_act"]:
            act_by_api(pages, page_server, game_id, rng)
        wait_until(other, "document.getElementById('play').dataset.sound === 'turn'")
        while state_of(creator, page_server, game_id)["to_act"] != now["to_act"]:
            act_by_api(pages, page_server, game_id, rng)
        waiting.wait_for_selector('#play[data-ready="true"]')
        assert waiting.get_attribute("#play", "data-sound") is None


def test_a_takeback_asked_declined_and_allowed(browser: Any, server: LiveServer) -> None:
    """A player online asks to take back their move: the other is asked and declines
    (the asker is told), then allows it, and both boards are back where it began."""
    with two_players(browser, server, "linja") as (creator, friend, game_id):
        pages, rng = {0: creator, 1: friend}, random.Random(4)
        start = state_of(creator, server, game_id)
        while state_of(creator, server, game_id)["to_act"] == start["to_act"]:
            act_by_api(pages, server, game_id, rng)
        asker, other = pages[start["to_act"]], pages[1 - start["to_act"]]
        moved = state_of(creator, server, game_id)
        asker.wait_for_selector(f'#play[data-ply="{moved["ply"]}"]')
        for answer in ("decline", "accept"):
            asker.click("#takeback")
            other.wait_for_selector("#takeback-accept", state="visible")
            other.click(f"#takeback-{answer}")
            other.wait_for_selector("#takeback-offer", state="hidden")
            if answer == "decline":
                told = "document.getElementById('message').textContent.includes('declined')"
                wait_until(asker, told)
        for page in pages.values():
            page.wait_for_selector(f'#play[data-ply="{start["ply"]}"]')
        back = state_of(creator, server, game_id)
        assert back["ply"] == start["ply"] and back["position"] == start["position"]
        asker.wait_for_selector('#play[data-ready="true"]')


def test_a_game_aborted_in_one_browser_is_aborted_in_the_other(
    browser: Any, page_server: LiveServer
) -> None:
    """Before the game has really begun a player clicks Abort (and confirms): both
    pages say who aborted it, the board takes no more clicks, and Abort and Resign are
    gone; once both players have had a turn, Abort is no longer offered."""
    with two_players(browser, page_server, "galatjang") as (creator, friend, game_id):
        pages, rng = {0: creator, 1: friend}, random.Random(3)
        for page in pages.values():
            page.wait_for_selector("#abort", state="visible")
        start = state_of(creator, page_server, game_id)
        while state_of(creator, page_server, game_id)["to_act"] == start["to_act"]:
            act_by_api(pages, page_server, game_id, rng)
        aborter = pages[1 - start["to_act"]]  # the one to reply aborts instead
        moved = state_of(creator, page_server, game_id)
        aborter.wait_for_selector(f'#play[data-ply="{moved["ply"]}"]')
        aborter.once("dialog", lambda dialog: dialog.accept())
        aborter.click("#abort")
        for page in pages.values():
            page.wait_for_selector("#status.over")
            assert page.inner_text("#status").startswith("The game was aborted by")
            page.wait_for_selector("#abort", state="hidden")
            assert page.is_disabled("#resign")
            assert page.locator("#board [tabindex]").count() == 0
        over = state_of(creator, page_server, game_id)
        assert over["outcome"]["result"] == "aborted" and over["outcome"]["winner"] is None
    with two_players(browser, page_server, "galatjang") as (creator, friend, game_id):
        pages, rng = {0: creator, 1: friend}, random.Random(5)
        while state_of(creator, page_server, game_id)["abortable"]:
            act_by_api(pages, page_server, game_id, rng)
        ply = state_of(creator, page_server, game_id)["ply"]
        for page in pages.values():
            page.wait_for_selector(f'#play[data-ply="{ply}"]')
            assert page.is_hidden("#abort") and page.is_visible("#resign")


def test_two_friends_online_and_a_spectator(browser: Any, server: LiveServer) -> None:
    """A game by invitation link between two browsers, watched live by a third: each
    player's clicks act only for their own seat, the spectator has no controls."""
    contexts = [browser.new_context(viewport={"width": 1200, "height": 900}) for _ in range(3)]
    creator, friend, spectator = (context.new_page() for context in contexts)
    errors: list[str] = []
    for opened in (creator, friend, spectator):
        opened.on("pageerror", lambda error: errors.append(str(error)))
        opened.set_default_timeout(30000)
    try:
        game_id = start(creator, server, "galatjang", "online")
        link = creator.input_value("#invitation-link")
        assert link.startswith(server.url) and f"/join/{game_id}/" in link
        friend.goto(link)
        friend.fill("input[name=name]", "<i>Ana</i>")
        friend.click("form.take-seat button[type=submit]")
        friend.wait_for_url(f"**/play/{game_id}")
        spectator.goto(f"{server.url}/play/{game_id}")
        assert spectator.is_visible("#watching") and not spectator.is_visible("#resign")
        for watched in (creator, friend, spectator):  # the players see they are watched
            wait_until(
                watched, "document.getElementById('watching-count')?.textContent === '1 spectator'"
            )
        creator.wait_for_selector("#invitation", state="hidden")
        # names and chat are text: markup in them is shown, never run or rendered
        wait_until(creator, "document.getElementById('players').textContent.includes('<i>Ana</i>')")
        evil = "<img src=x id=evil> hello"
        creator.fill("#chat-text", evil)
        creator.press("#chat-text", "Enter")
        for reader in (creator, friend):
            wait_until(reader, "document.getElementById('chat-lines').textContent.includes('<img')")
            assert reader.locator("#chat-lines img, #players i").count() == 0
        assert not spectator.is_visible("#chat")
        # the chat box's placeholder is shown whole (it was cut off)
        fits = """() => {
          const input = document.getElementById('chat-text');
          const style = getComputedStyle(input);
          const pen = document.createElement('canvas').getContext('2d');
          pen.font = style.font;
          const room = input.clientWidth - parseFloat(style.paddingLeft)
                       - parseFloat(style.paddingRight);
          return pen.measureText(input.placeholder).width <= room;
        }"""
        assert creator.evaluate(fits)
        rng = random.Random(8)
        players = {0: creator, 1: friend}
        state = state_of(creator, server, game_id)
        for _ in range(6):
            if state["outcome"] is not None:
                break
            mover = players[state["to_act"]]
            mover.wait_for_selector(f'#play[data-ply="{state["ply"]}"][data-ready="true"]')
            other = players[1 - state["to_act"]]
            assert other.get_attribute("#play", "data-ready") == "false"
            entry = rng.choice(state["legal"])
            click_action(mover, entry)
            ply = state["ply"]
            state = wait_for(creator, server, game_id, lambda s, ply=ply: s["ply"] > ply)
            wait_until(
                spectator,
                f"document.getElementById('moves').textContent.includes('{entry['action']}')",
            )
        assert spectator.get_attribute("#play", "data-ready") == "false"
        if SHOTS:
            creator.screenshot(path=str(Path(SHOTS) / "online.png"))
        spectator.close()  # and when the spectator goes, the count goes
        wait_until(creator, "document.getElementById('watching-count') === null")
    finally:
        for context in contexts:
            context.close()
    assert errors == [], errors


def test_a_long_review_fetches_the_boards_it_shows(
    page: Any, page_server: LiveServer, tmp_path: Path
) -> None:
    """A review of 300 actions: the page carries no boards; End, Home, the arrow keys and
    a click in the move list each show the engine's board of that position, fetched in
    chunks of at most 50."""
    import boardlab
    from boardlab.core.record import GameRecord
    from boardlab.ui.svg import board_svg

    game = boardlab.new_game("jinli", stones=22, target=99, recycle=True, max_turns=1000)
    record = GameRecord(game)
    rng = random.Random(9)
    while len(record) < 300:
        record.play(rng.choice(record.position.legal_actions()))
    saved = tmp_path / "long.txt"
    saved.write_text(record.to_text())
    asked: list[str] = []
    page.on(  # the review's requests for boards (not the script positions.js)
        "request",
        lambda request: (
            "/api/games/" in request.url
            and "/positions" in request.url
            and asked.append(request.url)
        ),
    )
    page.goto(f"{page_server.url}/")
    page.set_input_files("input[name=record]", str(saved))
    page.click("form.upload button")
    page.wait_for_url("**/review/*")
    sent = page.request.get(page.url).text()  # the page as the page_server sends it
    assert 'data-positions="301"' in sent and "<svg" not in sent

    def board_of(ply: int) -> str:
        before = record.positions[ply - 1].state if ply else None
        marked = game.action_parts(before, record.actions[ply - 1]).places if ply else ()
        return board_svg(game, game.board_model(record.positions[ply].state), marked)

    def assert_shows(ply: int) -> str:
        """Wait until the page shows position ``ply``; the board's markup."""
        where = "start" if ply == 0 else f"after action {ply} of 300"
        wait_until(
            page,
            f"document.getElementById('where').textContent === {where!r} && "
            "document.getElementById('board').getAttribute('aria-busy') === 'false'",
        )
        shown: str = page.inner_html("#board")
        # the engine's board, read by the browser the way the page reads the server's
        expected = page.evaluate(
            "(svg) => { const box = document.createElement('div'); box.innerHTML = svg;"
            " return box.innerHTML; }",
            board_of(ply),
        )
        assert shown == expected, f"not the board of position {ply}"
        assert "Loading" not in page.inner_text("#status")
        return shown

    end = assert_shows(300)
    page.screenshot(path=str(tmp_path / "review-long.png"), full_page=True)  # to look at
    page.keyboard.press("Home")
    start = assert_shows(0)
    assert start != end
    for _ in range(55):  # quickly, across the edge of the first chunk
        page.keyboard.press("ArrowRight")
    assert_shows(55)
    page.keyboard.press("ArrowLeft")
    assert_shows(54)
    page.keyboard.press("End")
    assert assert_shows(300) == end
    page.click('#moves .ply[data-ply="150"]')
    assert_shows(150)
    assert page.get_attribute("#moves .ply.current", "data-ply") == "150"
    notes = [str(note) for note in game.narrate(record.positions[149].state, record.actions[149])]
    assert page.inner_text("#notes").splitlines()[-len(notes) :] == notes
    page.click("#prev")
    assert_shows(149)
    page.click('#moves .ply[data-ply="7"]')
    assert_shows(7)
    for url in asked:  # aligned chunks, never more than one answer draws
        query = dict(part.split("=") for part in url.split("?")[1].split("&"))
        assert int(query["count"]) <= 50 and int(query["start"]) % 50 == 0, url
    assert len(asked) <= 12, asked
