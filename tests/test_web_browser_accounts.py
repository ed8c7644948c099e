"""Accounts in a real browser (Debian's Chromium driven by Playwright): a guest starts a
game on one screen, signs up from the header, finds the game among the account's, signs
out; a second browser signs in and sees the same game; a wrong password is said in
words. With ``BOARDLAB_SCREENSHOTS=DIR`` the sign-up, sign-in, account and games pages
are photographed into DIR, on a desktop and on a phone."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from optional import need
from web_support import TESTING, chromium, served_in_thread, watched_page

playwright = need("playwright.sync_api")
chromium()  # or the module is skipped (CI: fails)

from boardlab.web.app import create_app  # noqa: E402

SHOTS = os.environ.get("BOARDLAB_SCREENSHOTS")
PASSWORD = "correct horse"
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = tmp_path_factory.mktemp("accounts") / "games.sqlite3"
    with served_in_thread(create_app(f"sqlite:///{db}", workers=1, limits=TESTING)) as url:
        yield url


def shoot(page: Any, name: str) -> None:
    """The page as it is, on a desktop and on a phone (then the desktop again)."""
    if not SHOTS:
        return
    Path(SHOTS).mkdir(parents=True, exist_ok=True)
    page.screenshot(path=f"{SHOTS}/{name}.png", full_page=True)
    page.set_viewport_size(PHONE)
    page.screenshot(path=f"{SHOTS}/{name}-phone.png", full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.set_viewport_size({"width": 1280, "height": 860})


def test_sign_up_keeps_a_guests_game_and_another_browser_signs_in_to_it(
    browser: Any, site: str
) -> None:
    expect = playwright.expect
    name = "Ana_b"
    with watched_page(browser) as page:
        page.goto(f"{site}/new/galatjang")
        page.select_option("select[name=opponent]", "human")  # two people on this screen
        page.get_by_role("button", name="Start the game").click()
        page.wait_for_url(re.compile(r"/play/"))
        game_id = page.url.rsplit("/", 1)[1]
        page.locator("[data-place]").first.wait_for()

        header = page.get_by_role("navigation", name="Account")
        header.get_by_role("link", name="Sign in").click()
        shoot(page, "signin")
        page.get_by_role("link", name="Sign up").click()
        page.get_by_label("Name").fill("x")  # refused by the browser's own check first
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign up").click()
        assert page.url.endswith("/signup")
        page.get_by_label("Name").fill(name)
        shoot(page, "signup")
        page.get_by_role("button", name="Sign up").click()
        page.wait_for_url(re.compile(r"/games$"))
        expect(header.get_by_role("link", name=name)).to_be_visible()
        expect(page.locator(f"a[href$='{game_id}']").first).to_be_visible()
        shoot(page, "games-signed-in")

        header.get_by_role("link", name=name).click()
        expect(page.get_by_role("heading", name=f"Account: {name}")).to_be_visible()
        shoot(page, "account")
        header.get_by_role("button", name="Sign out").click()
        expect(header.get_by_role("link", name="Sign in")).to_be_visible()
        page.goto(f"{site}/games")
        assert page.locator(f"a[href$='{game_id}']").count() == 0  # the next guest's list

    with watched_page(browser) as other:
        other.goto(f"{site}/signin")
        other.get_by_label("Name").fill(name.lower())
        other.get_by_label("Password").fill("not the password")
        other.get_by_role("button", name="Sign in").click()
        expect(other.get_by_role("alert")).to_have_text(
            "this name and password do not sign in: check both"
        )
        other.get_by_label("Password").fill(PASSWORD)
        other.get_by_role("button", name="Sign in").click()
        other.wait_for_url(re.compile(r"/games$"))
        expect(other.locator(f"a[href$='{game_id}']").first).to_be_visible()
        other.goto(f"{site}/?lang=de")
        header = other.get_by_role("navigation", name="Konto")
        expect(header.get_by_role("button", name="Abmelden")).to_be_visible()
        other.goto(f"{site}/account")
        shoot(other, "account-de")
