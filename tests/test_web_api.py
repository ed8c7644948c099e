"""The web app over HTTP and WebSockets: every endpoint, the same answers as the engine
on random games, and bad requests that get one clear message and change nothing."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import pytest
from markupsafe import escape

import boardlab
from boardlab.core.record import GameRecord
from web_support import SMALL, client, new_game, settled

GAMES = boardlab.game_ids()


@pytest.fixture
def http(database: str) -> Any:
    """The app on an empty database: every test here runs on SQLite and on PostgreSQL."""
    with client(database) as test_client:
        yield test_client


def engine_record(state: dict[str, Any]) -> GameRecord:
    """The engine's record of the actions a state lists."""
    options = {o.split("=")[0]: o.split("=")[1] for o in state["options"]}
    record = GameRecord(boardlab.new_game(state["game"], **options))
    for turn in state["moves"]:
        for action in turn["actions"]:
            record.play(action)
    return record


def assert_agrees(state: dict[str, Any]) -> None:
    """The page's state says what the engine says of the same actions."""
    record = engine_record(state)
    position = record.position
    assert state["ply"] == len(record)
    assert state["position"] == position.position_string()
    if position.is_over():
        assert state["legal"] == []
        assert state["outcome"]["winner"] == record.outcome().winner  # type: ignore[union-attr]
        return
    assert [a["action"] for a in state["legal"]] == position.legal_action_strings()
    assert state["to_act"] == position.to_act
    game = position.game
    for entry in state["legal"]:
        parts = game.action_parts(position.state, position.parse_action(entry["action"]))
        assert entry["places"] == list(parts.places)
        for place in entry["places"]:  # every place to click is drawn
            assert f'data-place="{place}"' in state["svg"]


@pytest.mark.parametrize("game", GAMES)
def test_random_hot_seat_games_agree_with_the_engine(http: Any, game: str) -> None:
    rng = random.Random(game)
    for _ in range(3):
        game_id = new_game(http, game)
        state = http.get(f"/api/games/{game_id}").json()
        assert_agrees(state)
        while state["outcome"] is None:
            action = rng.choice(state["legal"])["action"]
            answer = http.post(
                f"/api/games/{game_id}/play", json={"action": action, "ply": state["ply"]}
            )
            assert answer.status_code == 200, answer.text
            state = answer.json()
            assert_agrees(state)
        text = http.get(f"/api/games/{game_id}/record.txt")
        assert text.status_code == 200
        assert "attachment" in text.headers["content-disposition"]
        record = GameRecord.read(text.text)
        assert record.action_strings() == engine_record(state).action_strings()
        assert record.result() == engine_record(state).result()
        data = http.get(f"/api/games/{game_id}/record.json").json()
        assert GameRecord.from_dict(data).action_strings() == record.action_strings()


@pytest.mark.parametrize("game", GAMES)
def test_against_the_ai_every_action_is_legal_and_undo_takes_back_a_turn(
    http: Any, game: str
) -> None:
    rng = random.Random(7)
    game_id = new_game(http, game, opponent="easy", seat="1")
    state = settled(http, game_id)
    assert state["ply"] > 0  # the AI moved first
    assert state["seats"][0]["human"] is False and state["seats"][1]["human"] is True
    assert_agrees(state)
    undone = http.post(f"/api/games/{game_id}/undo", json={"ply": state["ply"]})
    assert undone.status_code == 400
    assert "nothing to undo" in undone.json()["error"]
    before = state
    action = rng.choice(state["legal"])["action"]
    http.post(f"/api/games/{game_id}/play", json={"action": action, "ply": state["ply"]})
    state = settled(http, game_id)
    assert_agrees(state)
    if state["outcome"] is None:
        undone = http.post(f"/api/games/{game_id}/undo", json={"ply": state["ply"]}).json()
        # Back to the start of the person's turn, the AI's reply gone too.
        assert undone["ply"] <= before["ply"]
        assert undone["human_to_act"]
        state = undone
    while state["outcome"] is None:
        action = rng.choice(state["legal"])["action"]
        answer = http.post(
            f"/api/games/{game_id}/play", json={"action": action, "ply": state["ply"]}
        )
        assert answer.status_code == 200, answer.text
        state = settled(http, game_id)
        assert_agrees(state)


def test_resign_ends_the_game_and_undo_takes_it_back(http: Any) -> None:
    game_id = new_game(http, "galatjang")
    state = http.get(f"/api/games/{game_id}").json()
    resigned = http.post(f"/api/games/{game_id}/resign", json={"ply": 0}).json()
    assert resigned["outcome"]["reason"] == "resign"
    assert resigned["outcome"]["winner"] == 1
    assert "resignation" in resigned["outcome"]["sentence"]
    again = http.post(f"/api/games/{game_id}/resign", json={"ply": 0})
    assert again.status_code == 409 or "over" in again.json()["error"]
    back = http.post(f"/api/games/{game_id}/undo", json={"ply": 0}).json()
    assert back["outcome"] is None
    assert back["legal"] == state["legal"]


def test_hint_names_a_legal_action_with_its_places(http: Any) -> None:
    game_id = new_game(http, "galatjang")
    hint = http.post(f"/api/games/{game_id}/hint", json={"ply": 0})
    assert hint.status_code == 200, hint.text
    data = hint.json()
    state = http.get(f"/api/games/{game_id}").json()
    legal = {a["action"]: a["places"] for a in state["legal"]}
    assert data["action"] in legal
    assert data["places"] == legal[data["action"]]
    assert -1.0 <= data["value"] <= 1.0
    assert data["line"][0] == data["action"]
    assert data["player"] == "south"


def test_the_catalogue_lists_every_option_and_level(http: Any) -> None:
    catalogue = http.get("/api/games").json()
    assert [g["id"] for g in catalogue] == GAMES
    for entry in catalogue:
        game = boardlab.new_game(entry["id"])
        assert [o["name"] for o in entry["options"]] == [o.name for o in game.schema]
        assert [o["default"] for o in entry["options"]] == [o.default for o in game.schema]
        assert "easy" in entry["levels"]


def test_pages_render(http: Any) -> None:
    home = http.get("/")
    assert home.status_code == 200
    assert "boardlab_browser" in home.headers.get("set-cookie", "")
    for game in GAMES:
        page = http.get(f"/new/{game}")
        assert page.status_code == 200
        for option in boardlab.new_game(game).schema:
            assert f'name="{option.name}"' in page.text
            assert str(escape(option.description)) in page.text
        rules = http.get(f"/rules/{game}")
        assert rules.status_code == 200
        assert rules.text.count("<svg") >= 2  # the start and the card's diagrams
        game_id = new_game(http, game)
        play = http.get(f"/play/{game_id}")
        assert play.status_code == 200
        assert 'class="board"' in play.text
        review = http.get(f"/review/{game_id}")
        assert review.status_code == 200


def test_my_games_lists_the_games_of_this_browser_only(http: Any, tmp_path: Path) -> None:
    mine = new_game(http, "linja")
    listed = http.get("/games").text
    assert f"/play/{mine}" in listed
    http.cookies.clear()
    assert f"/play/{mine}" not in http.get("/games").text


# ---------------------------------------------------------------------- bad requests
def unchanged(http: Any, game_id: str, before: dict[str, Any]) -> None:
    after = http.get(f"/api/games/{game_id}").json()
    assert after["ply"] == before["ply"]
    assert after["position"] == before["position"]


BAD_BODIES = [
    (b"not json", "not JSON"),
    (b"[]", "bad request"),
    (b'{"action": "s1"}', "ply"),
    (b'{"ply": 0}', "action"),
    (b'{"action": "s1", "ply": "0"}', "ply"),
    (b'{"action": "s1", "ply": true}', "ply"),
    (b'{"action": 5, "ply": 0}', "action"),
    (b'{"action": "s1", "ply": 0, "extra": 1}', "extra"),
    (b'{"action": "s1", "ply": 99}', "moved on"),
    (b'{"action": "s1", "ply": -1}', "moved on"),
    (b'{"action": "zz9", "ply": 0}', "zz9"),
    (b'{"action": "n1", "ply": 0}', "n1"),
    (b'{"action": "", "ply": 0}', "no action"),
    (b'{"action": "s1\\u0000", "ply": 0}', "s1"),
    (b'{"action": "' + b"s" * 5000 + b'", "ply": 0}', "invalid"),
]


@pytest.mark.parametrize(("body", "words"), BAD_BODIES)
def test_bad_actions_get_a_clear_message_and_change_nothing(
    http: Any, body: bytes, words: str
) -> None:
    game_id = new_game(http, "galatjang")
    before = http.get(f"/api/games/{game_id}").json()
    answer = http.post(
        f"/api/games/{game_id}/play", content=body, headers={"content-type": "application/json"}
    )
    assert 400 <= answer.status_code < 500
    error = answer.json()["error"]
    assert words in error
    assert "Traceback" not in error
    unchanged(http, game_id, before)


def test_stale_answers_are_refused_with_409(http: Any) -> None:
    game_id = new_game(http, "galatjang")
    first = http.post(f"/api/games/{game_id}/play", json={"action": "s1", "ply": 0})
    assert first.status_code == 200
    twice = http.post(f"/api/games/{game_id}/play", json={"action": "s1", "ply": 0})
    assert twice.status_code == 409
    assert "moved on" in twice.json()["error"]
    for path in ("undo", "resign", "hint"):
        stale = http.post(f"/api/games/{game_id}/{path}", json={"ply": 0})
        assert stale.status_code == 409, path
    unchanged(http, game_id, first.json())


def test_actions_in_the_ais_turn_are_refused(http: Any) -> None:
    game_id = new_game(http, "galatjang", opponent="easy", seat="1")
    answer = http.post(f"/api/games/{game_id}/play", json={"action": "s1", "ply": 0})
    assert answer.status_code in (400, 409)
    assert "AI" in answer.json()["error"] or "moved on" in answer.json()["error"]


@pytest.mark.parametrize(
    ("form", "words"),
    [
        ({"pits": "99"}, "pits"),
        ({"pits": "three"}, "pits"),
        ({"opponent": "grandmaster"}, "unknown opponent"),
        ({"seat": "2"}, "bad seat"),
        ({"unknown_option": "1"}, ""),  # unknown fields are ignored like any form
    ],
)
def test_bad_new_game_forms_say_what_is_wrong(http: Any, form: dict[str, str], words: str) -> None:
    answer = http.post("/new/galatjang", data=form, follow_redirects=False)
    if not words:
        assert answer.status_code == 303
        return
    assert answer.status_code == 400
    assert words in answer.text
    assert 'class="error"' in answer.text


def test_perfect_without_a_solver_says_why(http: Any) -> None:
    answer = http.post("/new/jinli", data={"opponent": "perfect"}, follow_redirects=False)
    assert answer.status_code == 400
    assert "perfect" in answer.text


def test_a_level_that_cannot_play_says_so_on_the_form(
    http: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Linja's perfect player needs its table: with none in the table folder the form
    # marks the level and names the command that builds it; with Galatjang it is ready.
    monkeypatch.setenv("BOARDLAB_TABLES", str(tmp_path / "no-tables"))
    page = http.get("/new/linja").text
    assert "table (not ready, see below)</option>" in page
    assert "Perfect: no Linja table for these rules" in page
    assert "<code>boardlab solve linja</code>" in page
    page = http.get("/new/galatjang").text
    assert "not ready" not in page
    assert "perfect: exact play" in page


@pytest.mark.parametrize(
    "path", ["/play/nope", "/review/nope", "/rules/chess", "/new/chess", "/nowhere"]
)
def test_unknown_pages_are_404_pages(http: Any, path: str) -> None:
    answer = http.get(path)
    assert answer.status_code == 404
    assert "<html" in answer.text
    assert "Traceback" not in answer.text


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/games/nope"),
        ("post", "/api/games/nope/play"),
        ("get", "/api/games/nope/record.txt"),
        ("get", "/api/games/nope/review"),
    ],
)
def test_unknown_games_in_the_api_are_404_json(http: Any, method: str, path: str) -> None:
    answer = getattr(http, method)(
        path, **({"json": {"action": "a", "ply": 0}} if method == "post" else {})
    )
    assert answer.status_code == 404
    assert "nope" in answer.json()["error"]


# ---------------------------------------------------------------------- uploads
def test_an_uploaded_record_opens_for_review_with_the_same_actions(http: Any) -> None:
    game = boardlab.new_game("galatjang", pits=3, seeds=2)
    record = GameRecord(game, headers={"Event": "Club [B] night"})
    rng = random.Random(3)
    while not record.is_over():
        record.play(rng.choice(record.position.legal_actions()))
    for text in (record.to_text(), record.to_json()):
        answer = http.post(
            "/upload", files={"record": ("game.txt", text.encode())}, follow_redirects=False
        )
        assert answer.status_code == 303, answer.text
        game_id = answer.headers["location"].rsplit("/", 1)[1]
        state = http.get(f"/api/games/{game_id}").json()
        assert engine_record(state).action_strings() == record.action_strings()
        assert state["outcome"]["winner"] == record.outcome().winner  # type: ignore[union-attr]
        back = GameRecord.read(http.get(f"/api/games/{game_id}/record.txt").text)
        assert back.headers["Event"] == "Club [B] night"


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"", "empty"),
        (b"\xff\xfe\x00garbage", "UTF-8"),
        (b'[Game "chess"]\n1. e4 *\n', "chess"),
        (b'[Game "galatjang"]\n1. s9 *\n', "s9"),
        (b'{"game": "linja", "actions": [1, 2}', "JSON"),
        (b"x" * (1024 * 1024 + 10), "larger"),
    ],
)
def test_bad_uploads_are_refused_clearly(http: Any, data: bytes, words: str) -> None:
    count = len(http.get("/games").text)
    answer = http.post("/upload", files={"record": ("bad.txt", data)}, follow_redirects=False)
    assert answer.status_code == 400
    assert words in answer.text
    assert "Traceback" not in answer.text
    assert len(http.get("/games").text) == count


def test_an_upload_without_a_file_is_refused(http: Any) -> None:
    answer = http.post("/upload", data={"x": "1"}, follow_redirects=False)
    assert answer.status_code == 422
    assert "record" in answer.text


# ---------------------------------------------------------------------- websockets
def test_the_socket_sends_the_state_then_every_change(http: Any) -> None:
    game_id = new_game(http, "galatjang")
    with http.websocket_connect(f"/ws/games/{game_id}") as socket:
        first = socket.receive_json()
        assert first["type"] == "state" and first["state"]["ply"] == 0
        http.post(f"/api/games/{game_id}/play", json={"action": "s1", "ply": 0})
        pushed = socket.receive_json()
        assert pushed["state"]["ply"] == 1
        socket.send_text('{"type": "ping"}')
        assert socket.receive_json() == {"type": "pong"}
        for bad in ("nonsense", '{"type": "play"}', "[1]", "x" * 10000):
            socket.send_text(bad)
            answer = socket.receive_json()
            assert answer["type"] == "error"
            assert answer["message"]
    assert http.get(f"/api/games/{game_id}").json()["ply"] == 1


def test_a_socket_for_an_unknown_game_says_so(http: Any) -> None:
    with http.websocket_connect("/ws/games/nope") as socket:
        answer = socket.receive_json()
        assert answer["type"] == "error"
        assert "nope" in answer["message"]


# ---------------------------------------------------------------------- durability
def test_games_survive_a_restart_of_the_app(database: str) -> None:
    db = database
    with client(db) as http:
        game_id = new_game(http, "linja")
        state = http.get(f"/api/games/{game_id}").json()
        for _ in range(5):
            action = state["legal"][0]["action"]
            state = http.post(
                f"/api/games/{game_id}/play", json={"action": action, "ply": state["ply"]}
            ).json()
    with client(db) as http:
        again = http.get(f"/api/games/{game_id}").json()
        assert again["ply"] == state["ply"]
        assert again["position"] == state["position"]
        assert json.dumps(again["legal"]) == json.dumps(state["legal"])


def test_small_options_exist() -> None:
    for game, options in SMALL.items():
        boardlab.new_game(game, **options)


# ---------------------------------------------------------------------- reviews
def test_a_review_is_made_in_the_background_and_kept(http: Any) -> None:
    record = GameRecord(boardlab.new_game("jinli", stones=3, target=3))
    rng = random.Random(11)
    while not record.is_over():
        record.play(rng.choice(record.position.legal_actions()))
    answer = http.post(
        "/upload", files={"record": ("game.txt", record.to_text().encode())}, follow_redirects=False
    )
    game_id = answer.headers["location"].rsplit("/", 1)[1]
    deadline = time.monotonic() + 300
    data = http.get(f"/api/games/{game_id}/review").json()
    assert data["status"] in ("running", "ready")
    while data["status"] != "ready":
        assert time.monotonic() < deadline, "the review did not finish"
        time.sleep(0.5)
        data = http.get(f"/api/games/{game_id}/review").json()
    assert [item["played"] for item in data["items"]] == record.action_strings()
    for item in data["items"]:
        assert item["loss"] >= 0
        assert item["mark"] in ("", "inaccuracy", "mistake", "blunder")
    assert http.get(f"/api/games/{game_id}/review").json() == data  # kept, not made again


def test_perfect_opens_galatjang_with_the_only_sowing_that_loses_least(http: Any) -> None:
    """In the browser too, the perfect player plays the solved opening (from the book,
    no table needed): s1 is the one first sowing worth -16; every other loses more."""
    game_id = new_game(http, "galatjang", opponent="perfect", seat="1", pits="6", seeds="6")
    state = settled(http, game_id)
    assert state["moves"][0]["actions"][0] == "s1"
    assert_agrees(state)


def test_the_migrations_make_the_tables_the_code_declares(database: str) -> None:
    """Alembic's comparison of the migrated database with the models finds nothing: a
    column added to one and not the other fails here, not on a user's database."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from boardlab.web.store import Base, Store

    store = Store(database)
    with store.engine.connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []
    store.engine.dispose()
