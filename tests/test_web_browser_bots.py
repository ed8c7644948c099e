"""A person against a bot in a real browser (Debian's Chromium driven by Playwright):
the bot connected with ``boardlab connect`` and ``boardlab engine``, the person
challenges it to a rated game with a clock, opens the game's page once the bot has
accepted, and plays it to its end by clicking; the bot answers every move, the page
says the game is over, and the record is rated. The bot seeks in the lobby too: a guest
finds its seek there marked BOT and takes it with one click, and the game begins."""

from __future__ import annotations

import os
import random
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from optional import need
from web_support import TESTING, chromium, served_in_thread, watched_page

playwright = need("playwright.sync_api")
chromium()  # or the module is skipped (CI: fails)

from boardlab.web.app import create_app  # noqa: E402
from boardlab.web.bots import BotStore  # noqa: E402

ENGINE = f"{shlex.quote(sys.executable)} -m boardlab engine --agent random"
#: A folder for screenshots to look at (none: none taken).
SHOTS = os.environ.get("BOARDLAB_SCREENSHOTS")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str, Path]]:
    """The app served in a thread, with a bot connected to it: the address, the bot and
    the client's log."""
    folder = tmp_path_factory.mktemp("bots")
    app = create_app(f"sqlite:///{folder / 'games.sqlite3'}", workers=1, limits=TESTING)
    log = folder / "connect.log"
    with served_in_thread(app) as url, log.open("w") as written:
        _bot, token = BotStore(app.state.site.store).add("robo")
        command = [sys.executable, "-m", "boardlab", "connect", url, "--token", token]
        command += ["--engine", ENGINE, "--games", "2", "--seek", "galatjang"]
        connected = subprocess.Popen(command, stdout=written, stderr=subprocess.STDOUT)
        try:
            yield url, "robo", log
        finally:
            connected.terminate()
            connected.wait(timeout=20)


def test_a_person_plays_a_connected_bot_by_clicking(
    browser: Any, site: tuple[str, str, Path]
) -> None:
    url, bot, log = site
    with watched_page(browser) as page:
        answer = page.request.post(
            f"{url}/api/account/signup", data={"name": "Ana_b", "password": "correct horse"}
        )
        assert answer.ok, answer.text()
        body = {"to": bot, "game": "galatjang", "rated": True, "side": "south", "clock": "3+0"}
        made = page.request.post(f"{url}/api/challenges", data=body)
        assert made.status == 201, made.text()
        asked, deadline = f"{url}/api/challenges/{made.json()['id']}", time.monotonic() + 60
        while not (game_id := page.request.get(asked).json().get("game_id")):
            assert time.monotonic() < deadline, f"the bot did not accept: {log.read_text()}"
            page.wait_for_timeout(200)
        page.goto(f"{url}/play/{game_id}")  # the challenge's cookie became the seat's
        rng = random.Random(3)
        while True:
            state = page.request.get(f"{url}/api/games/{game_id}").json()
            if state["outcome"] is not None:
                break
            assert time.monotonic() < deadline + 90, "the game did not end"
            if not state["you_act"]:
                page.wait_for_timeout(50)
                continue
            ready = f'#play[data-ply="{state["ply"]}"][data-ready="true"]'
            page.wait_for_selector(ready, timeout=60000)  # (a busy machine)
            entry = rng.choice(state["legal"])
            for place in entry["places"]:  # a sowing: its pit (every action has places)
                page.click(f'#board [data-place="{place}"]')
            ply = state["ply"]
            while page.request.get(f"{url}/api/games/{game_id}").json()["ply"] == ply:
                assert time.monotonic() < deadline + 90, f"the click at ply {ply} did not play"
                page.wait_for_timeout(30)
        page.wait_for_selector("#status.over")
        shown = page.inner_text("main")
        if SHOTS:
            page.screenshot(path=f"{SHOTS}/bot-game-over.png", full_page=True)
        record = page.request.get(f"{url}/api/games/{game_id}/record.txt").text()
    assert bot in shown and "Ana_b" in shown
    assert state["ply"] >= 4 and len(state["moves"]) >= 2  # both played, turn by turn
    assert len(re.findall(r'\[\w+RatingDiff "[+-]?\d+"\]', record)) == 2


def test_a_person_takes_a_bots_seek_in_the_lobby(browser: Any, site: tuple[str, str, Path]) -> None:
    url, bot, log = site
    with watched_page(browser) as page:
        page.goto(f"{url}/lobby")
        deadline = time.monotonic() + 60
        while not page.locator("tr:has(.bot-mark)").count():
            assert time.monotonic() < deadline, f"the bot did not seek: {log.read_text()}"
            page.wait_for_timeout(300)
            page.reload()
        row = page.locator("tr:has(.bot-mark)").first
        assert bot in row.inner_text() and "BOT" in row.inner_text()
        row.get_by_role("button", name="Take the seat").click()
        page.wait_for_url(re.compile(r"/play/"))
        game_id = page.url.rsplit("/", 1)[1]
        while not (state := page.request.get(f"{url}/api/games/{game_id}").json())["you_act"]:
            assert time.monotonic() < deadline + 30, f"the bot did not play: {log.read_text()}"
            page.wait_for_timeout(50)  # (the bot may have the first turn)
        assert state["open_seat"] is None and len(state["you"]) == 1
        assert bot in page.inner_text("main")
        ended = page.request.post(f"{url}/api/games/{game_id}/resign", data={"ply": state["ply"]})
        assert ended.ok, ended.text()
