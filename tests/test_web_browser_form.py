"""The new game form and the lobby in a real browser (Debian's Chromium driven by
Playwright), as a new player meets them: only the opponents that can play on this server,
nothing a host must do, options named in words in both languages, refusals that speak of
the game rather than of its notation, and a lobby that keeps itself current.

With ``BOARDLAB_SCREENSHOTS=DIR`` the form and the lobby are photographed into DIR, on a
desktop and on a phone, in English and in German."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import boardlab
from boardlab.core.i18n import _, use_language
from optional import need
from web_support import SMALL, LiveServer, chromium

playwright = need("playwright.sync_api")

chromium()  # or the module is skipped (CI: fails)

SHOTS = os.environ.get("BOARDLAB_SCREENSHOTS")
#: A position string of any game: fields of digits, letters and slashes between spaces,
#: as a message would quote one.
POSITION = re.compile(r"'[^' ]*[/,][^' ]* [^']*'")


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The server's table folder: empty, as on a new server (no Linja table)."""
    return tmp_path_factory.mktemp("tables")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, tables: Path) -> Iterator[LiveServer]:
    """``boardlab serve`` on SQLite, with no solver's table built."""
    live = LiveServer(tmp_path_factory.mktemp("web") / "games.sqlite3")
    before = os.environ.get("BOARDLAB_TABLES")
    os.environ["BOARDLAB_TABLES"] = str(tables)  # the server process inherits it
    try:
        live.start()
    finally:
        if before is None:
            del os.environ["BOARDLAB_TABLES"]
        else:
            os.environ["BOARDLAB_TABLES"] = before
    yield live
    live.stop()


def watched(page: Any) -> list[str]:
    """The page's script errors and Content-Security-Policy refusals, as they come."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on(
        "console",
        lambda message: "Content Security Policy" in message.text and errors.append(message.text),
    )
    page.set_default_timeout(30000)
    return errors


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    opened = context.new_page()
    errors = watched(opened)
    yield opened
    context.close()
    assert errors == [], errors  # no script error on any page


def wait_until(page: Any, expression: str, timeout: int = 30000) -> None:
    """Wait until a JavaScript expression is true in the page (``evaluate`` goes through
    the debugging protocol, which the pages' Content-Security-Policy does not refuse)."""
    deadline = time.monotonic() + timeout / 1000
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"waited {timeout} ms for {expression}"
        page.wait_for_timeout(100)


def opponents(page: Any) -> list[str]:
    found: list[str] = page.eval_on_selector_all(
        "select[name=opponent] option", "options => options.map(o => o.value)"
    )
    return found


def error_text(page: Any) -> str:
    return str(page.inner_text("[role=alert], main .error, main"))


# ---------------------------------------------------------------------- the opponents
def test_the_form_offers_only_opponents_that_can_play_here(page: Any, server: LiveServer) -> None:
    """Jin Li has no perfect player and Linja's needs a table this server has not built:
    neither is offered, and nothing on the page asks the player to build one. Galatjang's
    perfect player needs no table: it is offered, and a game against it starts."""
    for game in ("jinli", "linja"):
        page.goto(f"{server.url}/new/{game}")
        offered = opponents(page)
        assert "perfect" not in offered, (game, offered)
        assert {"beginner", "easy", "medium", "hard", "expert"} <= set(offered)
        text = page.inner_text("main")
        for host_matter in ("boardlab solve", "table", "not ready", "/tables", ".bltab"):
            assert host_matter not in text, (game, host_matter, text)
    page.goto(f"{server.url}/new/galatjang")
    assert "perfect" in opponents(page)
    page.select_option("select[name=opponent]", "perfect")
    page.select_option("select[name=seat]", "1")
    for name, value in SMALL["galatjang"].items():
        page.fill(f"input[name={name}]", value)
    page.click("button[type=submit]")
    page.wait_for_url("**/play/*")
    page.wait_for_selector("svg.board")


def test_a_level_sent_where_it_cannot_play_is_refused_in_words(
    page: Any, server: LiveServer
) -> None:
    """A form sent with the perfect player anyway (an old page, a crafted form) is
    refused with a sentence for a player: no command, no path, no table."""
    for game in ("jinli", "linja"):
        page.goto(f"{server.url}/new/{game}")
        page.eval_on_selector(  # the choice an old page could still hold
            "select[name=opponent]",
            "s => { s.add(new Option('perfect', 'perfect')); s.value = 'perfect'; }",
        )
        page.click("button[type=submit]")
        page.wait_for_selector(".error")
        message = page.inner_text(".error")
        assert "perfect" in message.lower(), message
        for host_matter in ("boardlab solve", "table", "/", "'perfect'", "expected"):
            assert host_matter not in message, (game, host_matter, message)
        assert "perfect" not in opponents(page)  # the form shown again offers it no more


# ---------------------------------------------------------------------- option labels
@pytest.mark.parametrize("game", ["jinli", "linja", "galatjang"])
def test_options_are_named_in_words_in_both_languages(
    page: Any, server: LiveServer, game: str
) -> None:
    """Each option of the form is labelled in words (not ``max_turns``), in English and
    in German, and its choices too."""
    names = [option.name for option in boardlab.new_game(game).schema]
    labels: dict[str, dict[str, str]] = {}
    for lang in ("en", "de"):
        page.goto(f"{server.url}/new/{game}?lang={lang}")
        fieldset = page.locator("fieldset.options")
        assert fieldset.locator("code").count() == 0, "no option is shown as code"
        labels[lang] = {}
        for name in names:
            field = page.locator(f"fieldset.options [name={name}]")
            label = (
                str(field.evaluate("f => (f.labels[0] ? f.labels[0].innerText : '').trim()"))
                .split("\n")[0]
                .strip()
            )
            assert label, (lang, name)
            assert "_" not in label and label != name, label
            labels[lang][name] = label
            if field.evaluate("f => f.tagName") == "SELECT":
                shown = field.evaluate("s => [...s.options].map(o => [o.value, o.text])")
                assert all(value == "" or text for value, text in shown), shown
                if "_" in "".join(value for value, _text in shown):
                    assert all(value != text for value, text in shown), shown
    differ = [name for name in names if labels["en"][name] != labels["de"][name]]
    assert len(differ) >= len(names) - 1, labels  # German labels, not the English ones
    with use_language("de"):
        first = boardlab.new_game(game).schema.get("first")
        assert labels["de"]["first"] == _(first.label)


# ---------------------------------------------------------------------- refusals
def test_refused_options_are_named_as_the_form_names_them(page: Any, server: LiveServer) -> None:
    """An option out of range (the browser's own check taken away, as an old browser
    would) is refused with the option's label, not its name in code."""
    page.goto(f"{server.url}/new/jinli")
    page.eval_on_selector("input[name=stones]", "i => { i.removeAttribute('max'); }")
    page.fill("input[name=stones]", "99")
    page.click("button[type=submit]")
    page.wait_for_selector(".error")
    message = page.inner_text(".error")
    assert "Stones per player" in message, message
    assert "'stones'" not in message and "99" in message, message
    page.goto(f"{server.url}/new/jinli")
    page.eval_on_selector("input[name=max_turns]", "i => { i.removeAttribute('max'); }")
    page.fill("input[name=max_turns]", "99999")
    page.click("button[type=submit]")
    page.wait_for_selector(".error")
    message = page.inner_text(".error")
    assert "max_turns" not in message and "Turn limit" in message, message


@pytest.mark.parametrize(
    ("record", "said", "position_after"),
    [
        ('[Game "galatjang"]\n1. s1 2. s9\n', "s9", ["s1"]),
        ('[Game "galatjang"]\n1. zz\n', "zz", []),
        ('[Game "galatjang"]\n[Position "1,2,3 x"]\n', "", None),
    ],
)
def test_an_upload_is_refused_in_words_of_the_game(
    page: Any,
    server: LiveServer,
    tmp_path: Path,
    record: str,
    said: str,
    position_after: list[str] | None,
) -> None:
    """A record with a move that is not legal where it is played, or that is no move of
    the game, or with a start position that cannot be read, is refused with the move's
    number and text: never the engine's notation of the position."""
    saved = tmp_path / "game.txt"
    saved.write_text(record)
    page.goto(f"{server.url}/")
    page.set_input_files("input[name=record]", str(saved))
    page.click("form.upload button")
    page.wait_for_load_state()
    message = page.inner_text("main")
    assert "game.txt" in message and said in message, message
    assert POSITION.search(message) is None, message
    assert "position '" not in message and "position string" not in message, message
    if position_after is not None:
        position = boardlab.new_game("galatjang").initial()
        for action in position_after:
            position = position.play(action)
        assert position.position_string() not in message, message


def test_a_typed_action_is_refused_in_words_of_the_game(page: Any, server: LiveServer) -> None:
    """An action typed on the game page that is not legal is refused naming the action,
    not the position in the engine's notation."""
    page.goto(f"{server.url}/new/galatjang")
    page.select_option("select[name=opponent]", "human")
    page.click("button[type=submit]")
    page.wait_for_url("**/play/*")
    page.wait_for_selector('#play[data-ready="true"]')
    page.fill("#typed-action", "s9")
    page.press("#typed-action", "Enter")
    wait_until(page, "document.getElementById('message').textContent.includes('s9')")
    message = page.inner_text("#message")
    start = boardlab.new_game("galatjang").initial().position_string()
    assert start not in message and POSITION.search(message) is None, message


# ---------------------------------------------------------------------- the lobby
def make_lobby_game(browser: Any, server: LiveServer, name: str) -> str:
    """A game put in the lobby by another person, through the form; its id."""
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    try:
        maker = context.new_page()
        errors = watched(maker)
        maker.goto(f"{server.url}/new/galatjang")
        maker.select_option("select[name=opponent]", "online")
        maker.fill("input[name=name]", name)
        maker.check("input[name=lobby]")
        for option, value in SMALL["galatjang"].items():
            maker.fill(f"input[name={option}]", value)
        maker.click("button[type=submit]")
        maker.wait_for_url("**/play/*")
        assert errors == [], errors
        return str(maker.url.rsplit("/", 1)[1])
    finally:
        context.close()


def test_the_lobby_keeps_itself_current(browser: Any, page: Any, server: LiveServer) -> None:
    """A lobby left open shows a game put in it meanwhile, and drops a game once someone
    else takes its seat, without being reloaded (and keeps the name typed meanwhile)."""
    first = make_lobby_game(browser, server, "Bo")
    page.goto(f"{server.url}/lobby")
    page.evaluate("window.notReloaded = true")
    page.fill("input[name=name]", "Ana")
    second = make_lobby_game(browser, server, "Cy")
    row = 'button[formaction="/lobby/{game}"]'
    wait_until(page, f"document.querySelector('{row.format(game=second)}') !== null", 15000)
    assert "Cy" in page.inner_text("table.lobby")
    assert page.locator("table.lobby time:not([data-local])").count() == 0  # the new list too
    assert page.evaluate("window.notReloaded === true")
    assert page.input_value("input[name=name]") == "Ana"
    other = browser.new_context()
    try:
        taker = other.new_page()
        taker.goto(f"{server.url}/lobby")
        taker.click(row.format(game=first))
        taker.wait_for_url(f"**/play/{first}")
    finally:
        other.close()
    wait_until(page, f"document.querySelector('{row.format(game=first)}') === null", 15000)
    assert page.evaluate("window.notReloaded === true")
    assert page.input_value("input[name=name]") == "Ana"


def test_times_are_in_the_readers_time_zone(browser: Any, server: LiveServer) -> None:
    """The server writes a moment in UTC (it cannot know where its reader is); the
    page shows it in the browser's time zone, the UTC wording as its tooltip."""
    from datetime import datetime
    from zoneinfo import ZoneInfo

    make_lobby_game(browser, server, "Di")
    context = browser.new_context(timezone_id="Asia/Kolkata")  # UTC+5:30: no hour lines up
    try:
        reader = context.new_page()
        reader.goto(f"{server.url}/lobby")
        moment = reader.locator("table.lobby time[data-local]").first
        moment.wait_for()
        local = datetime.fromisoformat(moment.get_attribute("datetime") or "").astimezone(
            ZoneInfo("Asia/Kolkata")
        )
        shown = moment.inner_text()
        assert f"{local.hour % 12 or 12}:{local:%M}" in shown and "UTC" not in shown, shown
        assert (moment.get_attribute("title") or "").endswith(" UTC")
    finally:
        context.close()


def test_a_hidden_lobby_does_not_ask(page: Any, server: LiveServer) -> None:
    """A lobby in a tab out of sight asks the server nothing; in sight again it asks at
    once."""
    page.goto(f"{server.url}/lobby")
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    page.evaluate(
        "Object.defineProperty(document, 'visibilityState', {get: () => 'hidden', "
        "configurable: true});"
        "document.dispatchEvent(new Event('visibilitychange'))"
    )
    page.wait_for_timeout(7000)
    assert not [url for url in asked if "/lobby" in url], asked
    page.evaluate(
        "Object.defineProperty(document, 'visibilityState', {get: () => 'visible', "
        "configurable: true});"
        "document.dispatchEvent(new Event('visibilitychange'))"
    )
    page.wait_for_timeout(1000)
    assert [url for url in asked if "/lobby" in url], asked


# ---------------------------------------------------------------------- sizes
@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize(("width", "height"), [(1280, 860), (390, 844)])
def test_the_form_and_the_lobby_fit_the_screen(
    browser: Any, server: LiveServer, lang: str, width: int, height: int
) -> None:
    """On a desktop and on a phone, in both languages, nothing on the form or in the
    lobby is wider than the screen."""
    make_lobby_game(browser, server, "Carla")
    context = browser.new_context(viewport={"width": width, "height": height})
    try:
        opened = context.new_page()
        errors = watched(opened)
        for path in ("/new/jinli", "/new/linja", "/new/galatjang", "/lobby"):
            opened.goto(f"{server.url}{path}?lang={lang}")
            wide = opened.evaluate("document.documentElement.scrollWidth")
            assert wide <= width, (path, wide)
            if SHOTS:
                shot = f"{path.strip('/').replace('/', '-')}-{lang}-{width}.png"
                opened.screenshot(path=str(Path(SHOTS) / shot), full_page=True)
        assert errors == [], errors
    finally:
        context.close()
