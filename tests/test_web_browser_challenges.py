"""A challenge in real browsers (Debian's Chromium driven by Playwright): Ana challenges
Bea from Bea's profile to a rated game, Bea accepts it from her challenges, and both
browsers land on the game's page, each holding its own seat (Ana's page learns of the
answer by itself), the game rated between their accounts."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from optional import need
from web_support import TESTING, chromium, served_in_thread, watched_page

playwright = need("playwright.sync_api")
chromium()  # or the module is skipped (CI: fails)

from boardlab.web.app import create_app  # noqa: E402

PASSWORD = "correct horse"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    db = tmp_path_factory.mktemp("challenges") / "games.sqlite3"
    app = create_app(f"sqlite:///{db}", workers=1, limits=TESTING)
    with served_in_thread(app) as url:
        yield url, app


def signed_up(page: Any, url: str, name: str) -> None:
    answer = page.request.post(
        f"{url}/api/account/signup", data={"name": name, "password": PASSWORD}
    )
    assert answer.ok, answer.text()


def test_a_challenge_from_a_profile_accepted_puts_both_on_a_rated_game(
    browser: Any, site: tuple[str, Any]
) -> None:
    url, app = site
    expect = playwright.expect
    with watched_page(browser) as ana, watched_page(browser) as bea:
        signed_up(ana, url, "Ana_c")
        signed_up(bea, url, "Bea_c")
        ana.goto(f"{url}/@/Bea_c")
        ana.get_by_role("link", name="Galatjang").click()
        expect(ana.locator("select[name=opponent]")).to_have_value("challenge")
        expect(ana.locator("input[name=to]")).to_have_value("Bea_c")
        ana.get_by_label("Against a friend online: rated").check()
        ana.get_by_role("button", name="Start the game").click()
        ana.wait_for_url(re.compile(r"/challenges/"))
        expect(ana.get_by_role("heading", name="Your challenge to Bea_c")).to_be_visible()

        bea.goto(f"{url}/challenges")
        expect(bea.get_by_text("Ana_c")).to_be_visible()
        bea.get_by_role("button", name="Accept").click()
        bea.wait_for_url(re.compile(r"/play/"))
        game_id = bea.url.rsplit("/", 1)[1]
        ana.wait_for_url(f"{url}/play/{game_id}", timeout=20000)  # asked again by itself
        for page in (ana, bea):
            page.locator("[data-place]").first.wait_for()
        seats = [
            page.request.get(f"{url}/api/games/{game_id}").json()["you"] for page in (ana, bea)
        ]
        assert sorted(seats) == [[0], [1]]  # each browser holds its own seat
        stored = app.state.site.store.load(game_id)
        assert stored.rated and None not in stored.accounts
        assert set(stored.names) == {"Ana_c", "Bea_c"}
