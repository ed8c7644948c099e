"""Positions no game stores, asked about by the lessons and the analysis board: the API
gives the engine's answers (legal actions, the position after an action, the outcome) on
random games under random options, reads nothing but what the request carries, and
refuses bad input with a message that quotes it."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

import boardlab
from boardlab.core.game import Position
from boardlab.testing import random_options
from web_support import client

GAMES = boardlab.game_ids()


@pytest.fixture(scope="module")
def http(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Nothing here is stored: one app on SQLite serves the whole file."""
    with client(tmp_path_factory.mktemp("boards") / "games.sqlite3") as test_client:
        yield test_client


def params(position: Position[Any], **more: Any) -> dict[str, Any]:
    return {
        "position": position.position_string(),
        "option": position.game.option_assignments(),
        **more,
    }


def assert_shows(view: dict[str, Any], position: Position[Any]) -> None:
    """The page's view of ``position`` says what the engine says."""
    assert view["position"] == position.position_string()
    assert [a["action"] for a in view["legal"]] == (
        [] if position.is_over() else position.legal_action_strings()
    )
    outcome = position.outcome()
    if outcome is None:
        assert view["outcome"] is None and view["to_act"] == position.to_act
    else:
        assert view["outcome"]["winner"] == outcome.winner and view["to_act"] is None
    assert view["svg"].startswith("<svg")


@pytest.mark.parametrize("game_id", GAMES)
def test_random_games_played_on_a_board_agree_with_the_engine(http: Any, game_id: str) -> None:
    rng = random.Random(f"boards {game_id}")
    cls = type(boardlab.new_game(game_id))
    for _game in range(6):
        game = cls(random_options(cls, rng))
        position = game.initial()
        first = http.get(f"/api/board/{game_id}", params={"option": game.option_assignments()})
        assert first.status_code == 200, first.text
        assert_shows(first.json(), position)
        while not position.is_over() and position.turns < 60:
            action = rng.choice(position.legal_actions())
            text = position.action_string(action)
            answer = http.get(f"/api/board/{game_id}/play", params=params(position, action=[text]))
            assert answer.status_code == 200, answer.text
            view = answer.json()
            narrated = [str(n) for n in game.narrate(position.state, action)]
            position = position.play(action)
            assert_shows(view, position)
            assert [n["text"] for n in view["last"]["notes"]] == narrated


def test_several_actions_in_one_request_are_played_in_order(http: Any) -> None:
    position = boardlab.new_game("linja").initial()
    line = []
    for _ in range(4):
        action = position.legal_actions()[0]
        line.append(position.action_string(action))
        position = position.play(action)
    answer = http.get("/api/board/linja/play", params={"action": line}).json()
    assert_shows(answer, position)
    assert {n["ply"] for n in answer["last"]["notes"]} == set(range(4))


@pytest.mark.parametrize(
    ("path", "query", "words"),
    [
        ("/api/board/jinli", {"position": "Y5Y/7/7 r m"}, ["'Y5Y/7/7 r m'", "fields"]),
        ("/api/board/jinli", {"position": "YY4Y/7/7/7/7/7/R5R r m 10/10 0/0 0 0"}, ["3 koi"]),
        ("/api/board/jinli", {"option": ["stones=-3"]}, ["stones", "-3"]),
        ("/api/board/jinli", {"option": ["colour=blue"]}, ["colour"]),
        ("/api/board/linja/play", {"action": ["9-9"]}, ["'9-9'"]),
        ("/api/board/galatjang/play", {"action": ["s1", "s1"]}, ["'s1'"]),
    ],
)
def test_bad_boards_are_refused_with_a_message_that_quotes_them(
    http: Any, path: str, query: dict[str, Any], words: list[str]
) -> None:
    answer = http.get(path, params=query)
    assert answer.status_code == 400, answer.text
    message = answer.json()["error"]
    for word in words:
        assert word in message, message


def test_an_overlong_position_is_refused_before_it_is_read(http: Any) -> None:
    answer = http.get("/api/board/jinli", params={"position": "7/" * 300})
    assert answer.status_code == 422
    assert "400" in answer.json()["error"]


@pytest.mark.parametrize("game_id", GAMES)
def test_the_analysis_ranks_legal_actions_and_its_lines_are_legal(http: Any, game_id: str) -> None:
    rng = random.Random(f"analysis {game_id}")
    position = boardlab.new_game(game_id).initial()
    for _ in range(rng.randrange(2, 12)):
        position = position.play(rng.choice(position.legal_actions()))
    if position.is_over():
        pytest.skip("the random game ended")
    answer = http.get(f"/api/board/{game_id}/analysis", params=params(position))
    assert answer.status_code == 200, answer.text
    data = answer.json()
    assert data["player"] == position.to_act
    assert 1 <= len(data["lines"]) <= 3
    legal = position.legal_action_strings()
    for line in data["lines"]:
        assert line["line"][0] == line["action"] in legal
        position.play_all(line["line"])  # raises for an illegal line
    values = [line["value"] for line in data["lines"]]
    if data["exact"]:
        assert values == sorted(values, reverse=True)
        assert all(isinstance(v, int) for v in values)
    else:
        assert all(-1 <= v <= 1 for v in values)


def test_exact_values_are_the_solvers(http: Any) -> None:
    from boardlab.solve import exact_values

    game = boardlab.new_game("galatjang")
    data = http.get("/api/board/galatjang/analysis").json()
    values = exact_values(game, game.initial().state)
    if values is None:
        pytest.skip("no solver reaches Galatjang's start here")
    best = sorted(values.values(), reverse=True)[:3]
    assert data["exact"] and [line["value"] for line in data["lines"]] == best
    position = game.initial()  # every move with its value, as a tablebase shows them
    assert {m["action"]: m["value"] for m in data["moves"]} == {
        position.action_string(a): v for a, v in values.items()
    }


def test_a_bad_position_is_refused_before_the_analysis_waits(http: Any) -> None:
    answer = http.get("/api/board/galatjang/analysis", params={"position": "1,2,3"})
    assert answer.status_code == 400 and "'1,2,3'" in answer.json()["error"]


def test_boards_need_no_path_of_the_filesystem(tmp_path: Path) -> None:
    """The app's board answers read nothing of the database: a board is the request's."""
    with client(tmp_path / "other.sqlite3") as other:
        assert other.get("/api/board/linja").json()["position"] == (
            boardlab.new_game("linja").initial().position_string()
        )


def test_too_many_actions_are_refused_before_they_are_read(http: Any) -> None:
    answer = http.get("/api/board/linja/play", params={"action": ["0-1"] * 17})
    assert answer.status_code == 422
    message = answer.json()["error"]
    assert "16" in message and "JSON" not in message, message


@pytest.mark.parametrize("game_id", GAMES)
def test_every_tool_of_the_editor_gives_what_the_game_edits(http: Any, game_id: str) -> None:
    """Each tool at each place it changes, from the start: the page gets the string the
    game's editor makes, drawn, and the legal actions exactly when the rules accept it,
    else the parser's reason."""
    game = boardlab.new_game(game_id)
    start = game.initial()
    places = http.get(f"/api/board/{game_id}/edit").json()["places"]
    for tool in game.edit_tools():
        spots = [name for name, kind in places.items() if kind in tool.kinds] or [None]
        for place in spots:
            query = {"tool": tool.id, **({"place": place} if place else {})}
            answer = http.get(f"/api/board/{game_id}/edit", params=query)
            assert answer.status_code == 200, answer.text
            view = answer.json()
            made = game.edit(start.position_string(), tool.id, place)
            assert view["position"] == made and view["svg"].startswith("<svg")
            try:
                position = game.from_position_string(made)
            except boardlab.InvalidNotationError as refusal:
                # the reason, without the string the page shows beside it
                assert view["error"] == str(refusal).replace(f" {made!r}", "")
                assert made not in view["error"] and view["legal"] == []
            else:
                assert view["error"] is None
                assert [a["action"] for a in view["legal"]] == position.legal_action_strings()


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ({"tool": "hammer", "place": "d4"}, ["'hammer'", "red-koi"]),
        ({"tool": "stone", "place": "z9"}, ["'z9'"]),
        ({"tool": "stone"}, ["stone"]),
        ({"position": "Y5Y/7/7 r", "tool": "stone", "place": "d4"}, ["'Y5Y/7/7 r'"]),
    ],
)
def test_a_bad_edit_is_refused_with_a_message_that_quotes_it(
    http: Any, query: dict[str, str], words: list[str]
) -> None:
    answer = http.get("/api/board/jinli/edit", params=query)
    assert answer.status_code == 400, answer.text
    message = answer.json()["error"]
    for word in words:
        assert word in message, message


@pytest.mark.parametrize("path", ["/api/board/chess", "/api/board/chess/play", "/analysis/chess"])
def test_an_unknown_game_is_not_found(http: Any, path: str) -> None:
    answer = http.get(path, headers={"Accept": "application/json"})
    assert answer.status_code == 404, answer.text
    assert "'chess'" in answer.text and "jinli" in answer.text
