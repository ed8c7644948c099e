"""German beside English: the catalogue is complete, the language is chosen as gettext
and browsers choose it, and every face of boardlab (narration, boards, errors, the
command line, the web app and its live updates) speaks the language chosen, while
notation stays the same."""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import boardlab
from boardlab.core.errors import BoardlabError
from boardlab.core.i18n import (
    counted,
    from_environment,
    language,
    negotiate,
    pgettext,
    set_language,
    supported,
    use_language,
)
from optional import need

GAMES = boardlab.game_ids()


# ---------------------------------------------------------------------- the catalogue
def test_every_message_has_its_german_with_the_same_placeholders() -> None:
    need("babel")
    from boardlab.messages import problems

    found = problems("de")
    assert not found, f"{len(found)} problems, e.g.:\n" + "\n".join(found[:20])


@pytest.mark.parametrize(
    ("english", "german", "same"),
    [
        ("{player} sows {pit}.", "{player} verteilt aus {pit}.", True),
        ("{n} seed", "{n} Bohne", True),
        ("bad value {text!r}", "falscher Wert {text}", False),
        ("{a} and {b}", "{a} und {a}", False),
        ("%(game)s rules", "Regeln von %(game)s", True),
        ("%(game)s rules", "Regeln von %(spiel)s", False),
    ],
)
def test_the_placeholder_check_tells_a_broken_translation(
    english: str, german: str, same: bool
) -> None:
    from boardlab.messages import FIELD

    assert (sorted(FIELD.findall(english)) == sorted(FIELD.findall(german))) is same


# ---------------------------------------------------------------------- choosing
@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, "en"),
        ({"LANG": "de_DE.UTF-8"}, "de"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({"LANG": "fr_FR.UTF-8"}, "en"),
        ({"LC_ALL": "de_AT.UTF-8", "LANG": "en_GB.UTF-8"}, "de"),
        ({"LC_MESSAGES": "de_CH", "LANG": "en_US"}, "de"),
        ({"LANGUAGE": "fr:de", "LANG": "en_US.UTF-8"}, "de"),
        ({"LANGUAGE": "en:de", "LANG": "de_DE.UTF-8"}, "en"),
    ],
)
def test_the_environment_chooses_as_gettext_does(environ: dict[str, str], expected: str) -> None:
    assert from_environment(environ) == expected


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("de-DE,de;q=0.9,en;q=0.8", "de"),
        ("en-US,en;q=0.9,de;q=0.8", "en"),
        ("fr-CH, fr;q=0.9, de;q=0.8, en;q=0.5", "de"),
        ("de;q=0, en", "en"),
        ("*", "en"),
        ("", "en"),
        ("de;q=nonsense, en;q=0.1", "en"),
        (";;;,,,q=", "en"),
    ],
)
def test_accept_language_chooses_the_best_language_we_speak(header: str, expected: str) -> None:
    assert negotiate(header) == expected


def test_an_unknown_language_is_refused_by_name() -> None:
    assert supported("de_DE.UTF-8@euro") == "de"
    with pytest.raises(BoardlabError, match=r"unknown language 'xx'.*en, de"):
        use_language("xx").__enter__()


def test_each_context_keeps_its_own_language() -> None:
    """Two requests served at once never see each other's language."""

    async def speak(lang: str) -> str:
        with use_language(lang):
            await asyncio.sleep(0.01)
            return pgettext("result", "draw")

    async def both() -> list[str]:
        return list(await asyncio.gather(speak("de"), speak("en"), speak("de")))

    assert asyncio.run(both()) == ["Unentschieden", "draw", "Unentschieden"]
    assert language() == "en"


# ---------------------------------------------------------------------- the games in German
def random_game(game_id: str, seed: int, limit: int = 60) -> list[tuple[Any, int]]:
    """(position, action) pairs of a random game."""
    position = boardlab.new_game(game_id).initial()
    rng = random.Random(seed)
    pairs = []
    while not position.is_over() and len(pairs) < limit:
        action = rng.choice(position.legal_actions())
        pairs.append((position, action))
        position = position.play(action)
    return pairs


@pytest.mark.parametrize("game_id", GAMES)
def test_narration_and_boards_are_german_and_notation_is_not(game_id: str) -> None:
    """Every sentence of random games differs from its English (a message the
    catalogue lacks would read the same), while actions and positions are the same."""
    for seed in range(3):
        for position, action in random_game(game_id, seed):
            game = position.game
            english = [str(note) for note in game.narrate(position.state, action)]
            board_en = game.board_model(position.state)
            render_en = game.render(position.state)
            # written afresh in each language (a position keeps its string once written)
            notation_en = (
                game.format_action(position.state, action),
                game.format_state(position.state),
            )
            with use_language("de"):
                german = [str(note) for note in game.narrate(position.state, action)]
                board_de = game.board_model(position.state)
                render_de = game.render(position.state)
                notation_de = (
                    game.format_action(position.state, action),
                    game.format_state(position.state),
                )
                read_de = (
                    position.parse_action(notation_en[0]),
                    game.from_position_string(notation_en[1]),
                )
            assert notation_de == notation_en
            assert read_de == (action, position)
            assert len(german) == len(english)
            for en, de in zip(english, german, strict=True):
                assert en != de, f"{game_id}: {en!r} reads the same in German"
            if board_en.due:
                assert board_de.due != board_en.due
            assert render_de != render_en
            assert [p.name for p in board_de.places] == [p.name for p in board_en.places]


@pytest.mark.parametrize("game_id", GAMES)
def test_the_rules_in_brief_and_outcomes_are_german(game_id: str) -> None:
    game = boardlab.new_game(game_id)
    with use_language("de"):
        brief = game.rules_in_brief()
        names = [game.player_name(0), game.player_name(1)]
    assert brief != game.rules_in_brief()
    assert names != [game.player_name(0), game.player_name(1)]
    pairs = random_game(game_id, 7, limit=10_000)
    last_position, last_action = pairs[-1]
    final = last_position.play(last_action)
    outcome = final.outcome()
    if outcome is not None:
        with use_language("de"):
            sentence = outcome.sentence(game.reason_words, names)
        assert sentence.startswith(("Unentschieden", *names)), sentence


@pytest.mark.parametrize("game_id", GAMES)
def test_errors_quote_the_input_in_both_languages(game_id: str) -> None:
    position = boardlab.new_game(game_id).initial()
    for lang in ("en", "de"):
        with use_language(lang), pytest.raises(BoardlabError) as caught:
            position.parse_action("zz99")
        assert "zz99" in str(caught.value)
    with use_language("de"), pytest.raises(BoardlabError) as german:
        position.parse_action("zz99")
    with pytest.raises(BoardlabError) as english:
        position.parse_action("zz99")
    assert str(german.value) != str(english.value)


def test_counts_take_the_german_plural() -> None:
    with use_language("de"):
        assert counted(1, "{n} seed", "{n} seeds") == "1 Bohne"
        assert counted(3, "{n} seed", "{n} seeds") == "3 Bohnen"


# ---------------------------------------------------------------------- the command line
def boardlab_command(*args: str, lang_env: str | None = None, stdin: str = "") -> Any:
    env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES")}
    env["LANG"] = lang_env or "C.UTF-8"
    env["COLUMNS"] = "100"
    env["NO_COLOR"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "boardlab", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_lang_de_in_the_environment_speaks_german_on_the_command_line() -> None:
    german = boardlab_command("rules", "linja", lang_env="de_DE.UTF-8")
    english = boardlab_command("rules", "linja")
    assert german.returncode == english.returncode == 0
    assert german.stdout != english.stdout
    assert "Reihe" in german.stdout


def test_lang_flag_overrides_the_environment() -> None:
    english = boardlab_command("--lang", "en", "rules", "jinli", lang_env="de_DE.UTF-8")
    german = boardlab_command("--lang", "de", "rules", "jinli")
    assert english.stdout == boardlab_command("rules", "jinli").stdout
    assert german.stdout == boardlab_command("rules", "jinli", lang_env="de_DE.UTF-8").stdout


def test_errors_on_the_command_line_are_german_and_one_line() -> None:
    answer = boardlab_command("replay", "galatjang", lang_env="de_DE.UTF-8", stdin="s9\n")
    assert answer.returncode != 0
    lines = answer.stderr.strip().splitlines()
    assert len(lines) == 1, answer.stderr
    assert "s9" in lines[0]
    assert "Traceback" not in answer.stderr
    english = boardlab_command("replay", "galatjang", stdin="s9\n")
    assert english.stderr != answer.stderr


def test_a_terminal_game_in_german(tmp_path: Path) -> None:
    """A whole game of two people at the terminal under LANG=de_DE.UTF-8: the prompts,
    the narration and the result are German; the actions typed are the same."""
    position = boardlab.new_game("galatjang", pits=3, seeds=2).initial()
    typed = []
    rng = random.Random(3)
    while not position.is_over():
        action = rng.choice(position.legal_actions())
        typed.append(position.action_string(action))
        position = position.play(action)
    script = "\n".join([*typed, "quit", ""])
    args = ("play", "galatjang", "-o", "pits=3", "-o", "seeds=2", "--south", "human")
    args += ("--north", "human")
    german = boardlab_command(*args, lang_env="de_DE.UTF-8", stdin=script)
    english = boardlab_command(*args, stdin=script)
    assert german.returncode == english.returncode == 0, german.stderr
    assert "Traceback" not in german.stdout + german.stderr
    assert "Süd" in german.stdout and "Bohne" in german.stdout
    assert "South" not in german.stdout
    sentence = position.outcome().sentence(  # type: ignore[union-attr]
        position.game.reason_words
    )
    assert sentence.split(":")[0] in english.stdout
    with use_language("de"):
        names = [position.game.player_name(0), position.game.player_name(1)]
        german_sentence = position.outcome().sentence(  # type: ignore[union-attr]
            position.game.reason_words, names
        )
    assert german_sentence.split(":")[0] in german.stdout


# ---------------------------------------------------------------------- the web app
@pytest.fixture
def http(database: str) -> Any:
    need("fastapi")
    from web_support import client

    with client(database) as test_client:
        yield test_client


def test_the_browser_language_chooses_and_a_link_switches_and_is_remembered(http: Any) -> None:
    german = http.get("/", headers={"Accept-Language": "de-DE,de;q=0.9"})
    assert german.headers["content-language"] == "de"
    assert '<html lang="de">' in german.text and "Neue Partie" in german.text
    english = http.get("/", headers={"Accept-Language": "en"})
    assert '<html lang="en">' in english.text and "New game" in english.text
    switched = http.get("/rules/linja?lang=de", follow_redirects=False)
    assert switched.status_code == 303
    assert switched.headers["location"] == "/rules/linja"
    page = http.get("/rules/linja", headers={"Accept-Language": "en"})
    assert '<html lang="de">' in page.text, "the choice outlives the browser's header"
    assert "Anfangszug" in page.text
    http.get("/?lang=en")
    assert '<html lang="en">' in http.get("/rules/linja").text


def test_an_unknown_language_gets_a_clear_page(http: Any) -> None:
    answer = http.get("/?lang=xx")
    assert answer.status_code == 400
    assert "xx" in answer.text and "en, de" in answer.text
    api = http.get("/api/games?lang=klingon")
    assert api.status_code == 400 and "klingon" in api.json()["error"]


def test_errors_of_the_api_follow_the_language(http: Any) -> None:
    from web_support import new_game

    game_id = new_game(http, "galatjang")
    body = {"action": "s9", "ply": 0}
    english = http.post(f"/api/games/{game_id}/play", json=body)
    german = http.post(f"/api/games/{game_id}/play", json=body, headers={"Accept-Language": "de"})
    assert english.status_code == german.status_code == 400
    assert "s9" in german.json()["error"]
    assert german.json()["error"] != english.json()["error"]
    assert http.get(f"/api/games/{game_id}").json()["ply"] == 0


def test_watchers_get_the_game_each_in_their_own_language(http: Any) -> None:
    """One move, two pages watching in German and English: each is told in its own
    language, and the actions are the same."""
    from web_support import new_game

    game_id = new_game(http, "galatjang")
    with (
        http.websocket_connect(f"/ws/games/{game_id}", headers={"Accept-Language": "de"}) as de,
        http.websocket_connect(f"/ws/games/{game_id}", headers={"Accept-Language": "en"}) as en,
    ):
        assert de.receive_json()["type"] == en.receive_json()["type"] == "welcome"
        first_de, first_en = de.receive_json()["state"], en.receive_json()["state"]
        assert first_de["seats"][0]["name"] == "Süd"
        assert first_en["seats"][0]["name"] == "South"
        http.post(f"/api/games/{game_id}/play", json={"action": "s1", "ply": 0})

        def moved(socket: Any) -> dict[str, Any]:  # (a player's page opening is told too)
            while True:
                message = socket.receive_json()
                state: dict[str, Any] = message.get("state", {})
                if state.get("ply") == 1:
                    return state

        after_de, after_en = moved(de), moved(en)
    assert after_de["ply"] == after_en["ply"] == 1
    assert after_de["moves"] == after_en["moves"]
    assert after_de["legal"] == after_en["legal"] or [a["action"] for a in after_de["legal"]] == [
        a["action"] for a in after_en["legal"]
    ]
    assert after_de["last"]["notes"][0]["text"] != after_en["last"]["notes"][0]["text"]
    assert "Bohne" in after_de["last"]["notes"][0]["text"]


def test_numbers_and_dates_are_written_as_the_language_writes_them() -> None:
    need("babel")
    import datetime

    from boardlab.web.language import format_number, format_when

    moment = datetime.datetime(2026, 11, 25, 8, 5)
    with use_language("de"):
        assert format_number(12345.5, 1) == "12.345,5"
        assert format_when(moment).startswith("25.11.2026")
    assert format_number(12345.5, 1) == "12,345.5"
    assert "Nov 25, 2026" in format_when(moment)


def test_set_language_holds_for_the_rest_of_the_context() -> None:
    async def run() -> tuple[str, str]:
        set_language("de")
        return language(), pgettext("result", "draw")

    assert asyncio.run(run()) == ("de", "Unentschieden")
    assert language() == "en"


def test_the_page_scripts_get_each_of_their_messages_in_german() -> None:
    """The messages play.js and review.js ask for reach the page translated (the raw
    arguments of a call with values are read as one message, not a plural)."""
    need("babel")
    import json

    from boardlab.web.language import script_catalogue

    german = json.loads(script_catalogue("de"))
    english = json.loads(script_catalogue("en"))
    assert len(german) >= 25
    assert set(german) == set(english)
    same = [key for key, value in german.items() if value == english[key]]
    assert not same, same
    assert all(value == key for key, value in english.items() if isinstance(value, str))
    # every call in the scripts is found (one inside a template literal would not be)
    import re

    from boardlab.web.language import STATIC

    called = {
        text
        for script in STATIC.glob("*.js")
        for text in re.findall(r'\b_\(\s*"((?:[^"\\]|\\.)*)"', script.read_text(encoding="utf-8"))
    }
    assert called and called <= set(german), called - set(german)
