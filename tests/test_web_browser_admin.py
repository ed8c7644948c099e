"""Perfect play enabled by the host, in a real browser (Debian's Chromium driven by
Playwright): an admin opens /admin, clicks Build for Linja, watches the build's
progress, and once the table is built a game against the perfect level starts from the
new game form, which did not offer it before.

The table is a reduced one, built in seconds (``BOARDLAB_TEST_TABLE_REACH``: the last
levels of Linja's table alone, docs/web.md "Perfect play on a server"): it does not reach
the start, so the test stops once the game against ``perfect`` has started (the player
is to move first); the table's answers are tested in tests/test_solve_linja.py. With
``BOARDLAB_SCREENSHOTS=DIR`` the admin page is photographed into DIR while it builds and
once built (``python tests/test_web_browser_admin.py DIR`` does that)."""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from optional import need
from web_support import TESTING, chromium, served_in_thread, watched_page

playwright = need("playwright.sync_api")
chromium()  # or the module is skipped (CI: fails)

import httpx2 as httpx  # noqa: E402

from boardlab.web.admin import AdminStore  # noqa: E402
from boardlab.web.app import create_app  # noqa: E402
from boardlab.web.store import Store  # noqa: E402

SHOTS = os.environ.get("BOARDLAB_SCREENSHOTS")
PASSWORD = "correct horse"
REACH = "160"  # Linja's levels 160 to 168: seconds to build


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = tmp_path_factory.mktemp("admin")
    url = f"sqlite:///{folder / 'games.sqlite3'}"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BOARDLAB_TABLES", str(folder / "tables"))  # the builder's too
        patch.setenv("BOARDLAB_TEST_TABLE_REACH", REACH)
        app = create_app(url, workers=1, limits=TESTING)
        with served_in_thread(app) as served:
            with httpx.Client(base_url=served) as http:
                answer = http.post(
                    "/api/account/signup", json={"name": "host", "password": PASSWORD}
                )
                assert answer.status_code == 200, answer.text
            store = Store(url, upgrade=None)
            AdminStore(store).mark("host")
            store.engine.dispose()
            try:
                yield served
            finally:
                app.state.builds.close()


def shoot(page: Any, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=f"{SHOTS}/{name}.png", full_page=True)


def test_a_host_enables_perfect_play_and_a_game_against_it_starts(browser: Any, site: str) -> None:
    expect = playwright.expect
    with watched_page(browser, timeout=60000) as page:
        page.goto(f"{site}/signin")
        page.get_by_label("Name").fill("host")
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(re.compile(r"/games$"))

        page.goto(f"{site}/new/linja")
        opponents = page.locator("select[name=opponent] option")
        assert "perfect" not in opponents.evaluate_all("all => all.map(o => o.value)")

        page.goto(f"{site}/admin")
        row = page.locator("#table-linja")
        expect(row.locator(".state")).to_have_text("Not built.")
        row.get_by_role("button", name="Build").click()
        page.wait_for_url(re.compile(r"/admin$"))
        expect(row).to_have_attribute("data-state", re.compile("waiting|building|built"))
        if row.get_attribute("data-state") != "built":
            shoot(page, "admin-building")
        # the page shows itself anew every 5 s while the table is built
        expect(row).to_have_attribute("data-state", "built", timeout=180_000)
        expect(row.locator(".state")).to_contain_text("the perfect level plays")
        expect(row.get_by_role("button")).to_have_count(0)  # nothing more to build
        shoot(page, "admin")

        page.goto(f"{site}/new/linja")
        page.select_option("select[name=opponent]", "perfect")
        page.select_option("select[name=seat]", "0")
        page.get_by_role("button", name="Start the game").click()
        page.wait_for_url(re.compile(r"/play/"))
        page.locator("[data-place]").first.wait_for()
        game_id = page.url.rsplit("/", 1)[1]
    with httpx.Client(base_url=site) as http:
        state = http.get(f"/api/games/{game_id}").json()
    assert [seat["spec"] for seat in state["seats"]] == ["human", "perfect"]
    assert state["outcome"] is None
    assert state["human_to_act"] and state["ply"] == 0


if __name__ == "__main__":  # the admin page photographed: python tests/... DIR
    os.environ["BOARDLAB_SCREENSHOTS"] = sys.argv[1] if len(sys.argv) > 1 else "."
    sys.exit(pytest.main([__file__, "-q", "-p", "no:cacheprovider"]))
