"""The web app over HTTP and WebSockets: every endpoint, the same answers as the engine
on random games, and bad requests that get one clear message and change nothing."""

from __future__ import annotations

import dataclasses
import json
import random
import re
import time
from pathlib import Path
from typing import Any

import pytest
from markupsafe import escape

import boardlab
from boardlab.core.record import GameRecord
from boardlab.web.data import NewGame
from boardlab.web.memory import MEMORY_URL
from boardlab.web.rooms import changed_lines, moves_after, moves_of
from web_support import SMALL, TESTING, client, new_game, settled

GAMES = boardlab.game_ids()


@pytest.fixture
def http(database: str) -> Any:
    """The app on an empty database: the tests that take it run on SQLite and on
    PostgreSQL."""
    with client(database) as test_client:
        yield test_client


@pytest.fixture
def sqlite_http(tmp_path: Path) -> Any:
    """The app on SQLite alone, for what the storage does not decide (the AI's choice):
    the same on both databases, and slow to ask twice."""
    with client(f"sqlite:///{tmp_path / 'games.sqlite3'}") as test_client:
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
    play_random_games(http, game)


@pytest.mark.parametrize("game", GAMES)
def test_games_kept_in_memory_agree_with_the_engine(game: str) -> None:
    """The app on ``--db memory:`` (no database) plays as on a database."""
    with client(MEMORY_URL) as http:
        play_random_games(http, game)
        game_id = new_game(http, game)
        with http.websocket_connect(f"/ws/games/{game_id}") as socket:
            assert socket.receive_json()["type"] == "welcome"
            action = socket.receive_json()["state"]["legal"][0]["action"]
            socket.send_text(json.dumps({"type": "play", "id": 1, "ply": 0, "action": action}))
            assert socket.receive_json()["state"]["ply"] == 1
            assert socket.receive_json() == {"type": "ack", "id": 1, "v": 1}
        assert http.get(f"/api/games/{game_id}").json()["moves"][0]["actions"] == [action]


def play_first_actions(http: Any, game_id: str, count: int) -> dict[str, Any]:
    """Play the first legal action ``count`` times over the API; the state after."""
    state: dict[str, Any] = http.get(f"/api/games/{game_id}").json()
    for _ in range(count):
        action = state["legal"][0]["action"]
        state = http.post(
            f"/api/games/{game_id}/play", json={"action": action, "ply": state["ply"]}
        ).json()
    return state


def play_random_games(http: Any, game: str) -> None:
    """Three hot-seat games of random actions, each state compared with the engine."""
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
    assert again.status_code == 400  # documented: "the game already over" (not 409: ply is right)
    assert again.json()["error"] == "the game is already over"
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


@pytest.mark.parametrize(
    ("lang", "one", "many"),
    [
        ("en", "1 minute + 0 seconds a turn", "3 minutes + 2 seconds a turn"),
        ("de", "1 Minute + 0 Sekunden je Zug", "3 Minuten + 2 Sekunden je Zug"),
    ],
)
def test_time_controls_are_counted_in_words(http: Any, lang: str, one: str, many: str) -> None:
    page = http.get("/new/linja", headers={"accept-language": lang}).text
    shown = re.findall(r'<option value="\d+\+\d+" >([^<]*)</option>', page)
    assert shown[:2] == [one, many], shown


def test_perfect_without_a_solver_says_why(http: Any) -> None:
    answer = http.post("/new/jinli", data={"opponent": "perfect"}, follow_redirects=False)
    assert answer.status_code == 400
    assert "perfect" in answer.text
    assert 'value="perfect"' not in answer.text  # the form shown again does not offer it


def test_a_level_that_cannot_play_here_is_not_offered(
    http: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # Linja's perfect player needs its table: with none in the table folder the form
    # leaves the level out and the server's log names the command that builds it (the
    # host's business, not the player's); with Galatjang it is ready.
    monkeypatch.setenv("BOARDLAB_TABLES", str(tmp_path / "no-tables"))
    page = http.get("/new/linja").text
    assert 'value="perfect"' not in page
    assert "boardlab solve" not in page and "no-tables" not in page
    assert "boardlab solve linja" in caplog.text
    page = http.get("/new/galatjang").text
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
        ("get", "/api/games/nope/positions"),
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
    uploads = [
        {"files": {"record": ("game.txt", text.encode())}}
        for text in (record.to_text(), record.to_json())
    ]
    uploads.append({"data": {"pasted": record.to_text()}})  # pasted into the form instead
    for upload in uploads:
        answer = http.post("/upload", follow_redirects=False, **upload)
        assert answer.status_code == 303, answer.text
        game_id = answer.headers["location"].rsplit("/", 1)[1]
        state = http.get(f"/api/games/{game_id}").json()
        assert engine_record(state).action_strings() == record.action_strings()
        assert state["outcome"]["winner"] == record.outcome().winner  # type: ignore[union-attr]
        back = GameRecord.read(http.get(f"/api/games/{game_id}/record.txt").text)
        assert back.headers["Event"] == "Club [B] night"


@pytest.mark.parametrize(
    ("data", "status", "words"),
    [
        (b"", 400, "empty"),
        (b"\xff\xfe\x00garbage", 400, "UTF-8"),
        (b'[Game "chess"]\n1. e4 *\n', 400, "chess"),
        (b'[Game "galatjang"]\n1. s9 *\n', 400, "s9"),
        (b'{"game": "linja", "actions": [1, 2}', 400, "JSON"),
        (b"x" * (1024 * 1024 + 10), 413, "too large"),
    ],
)
def test_bad_uploads_are_refused_clearly(http: Any, data: bytes, status: int, words: str) -> None:
    count = len(http.get("/games").text)
    answer = http.post("/upload", files={"record": ("bad.txt", data)}, follow_redirects=False)
    assert answer.status_code == status
    assert words in answer.text
    assert "Traceback" not in answer.text
    assert len(http.get("/games").text) == count


def test_an_upload_without_a_file_or_a_pasted_record_is_refused(http: Any) -> None:
    for form in ({"x": "1"}, {"pasted": "  \n"}):
        answer = http.post("/upload", data=form, follow_redirects=False)
        assert answer.status_code == 400
        assert "the pasted record is empty" in answer.text
    count = len(http.get("/games").text)
    for pasted in ("hello world", '[Game "chess"]\n1. e4 *\n', '[Game "galatjang"]\n1. s9 *\n'):
        answer = http.post("/upload", data={"pasted": pasted}, follow_redirects=False)
        assert answer.status_code == 400, answer.text  # not a server error
        assert "the pasted record" in answer.text and "Traceback" not in answer.text
    assert len(http.get("/games").text) == count


# ---------------------------------------------------------------------- websockets
def test_the_socket_sends_the_state_then_every_change(http: Any) -> None:
    game_id = new_game(http, "galatjang")
    with http.websocket_connect(f"/ws/games/{game_id}") as socket:
        welcome = socket.receive_json()
        assert welcome == {"type": "welcome", "v": 0, "you": [0, 1]}  # hot seat: both
        first = socket.receive_json()
        assert first["type"] == "state" and first["v"] == 0
        assert first["state"]["ply"] == 0 and first["state"]["moves_from"] == 0
        assert "you" not in first["state"]  # the same text for every page
        http.post(f"/api/games/{game_id}/play", json={"action": "s1", "ply": 0})
        pushed = socket.receive_json()
        assert pushed["v"] == 1 and pushed["state"]["ply"] == 1
        socket.send_text('{"type": "ping"}')
        assert socket.receive_json() == {"type": "pong"}
        for bad in (
            "nonsense",
            '{"type": "play"}',
            "[1]",
            "x" * 10000,
            '{"type": "play", "id": "one", "ply": 1, "action": "n1"}',
        ):
            socket.send_text(bad)
            answer = socket.receive_json()
            assert answer["type"] == "error" and answer["status"] == 400
            assert answer["message"]
    assert http.get(f"/api/games/{game_id}").json()["ply"] == 1


def test_actions_over_the_socket_are_acknowledged_once_stored(http: Any) -> None:
    """A page acts over its socket: the event of its change comes first, then the ack
    with its id; a refusal is an error with the id and the status HTTP would give."""
    game_id = new_game(http, "galatjang")
    with http.websocket_connect(f"/ws/games/{game_id}") as socket:
        assert socket.receive_json()["type"] == "welcome"
        state = socket.receive_json()["state"]
        action = state["legal"][0]["action"]
        socket.send_text(json.dumps({"type": "play", "id": 7, "ply": 0, "action": action}))
        event = socket.receive_json()
        assert event["type"] == "state" and event["v"] == 1 and event["state"]["ply"] == 1
        assert socket.receive_json() == {"type": "ack", "id": 7, "v": 1}
        socket.send_text(json.dumps({"type": "play", "id": 8, "ply": 0, "action": action}))
        stale = socket.receive_json()
        assert stale["type"] == "error" and stale["id"] == 8 and stale["status"] == 409
        socket.send_text(json.dumps({"type": "play", "id": 9, "ply": 1, "action": "zz"}))
        illegal = socket.receive_json()
        assert illegal["id"] == 9 and illegal["status"] == 400 and "zz" in illegal["message"]
        socket.send_text(json.dumps({"type": "resign", "id": 10, "ply": 1}))
        ended = socket.receive_json()["state"]
        assert ended["outcome"]["reason"] == "resign"
        assert socket.receive_json() == {"type": "ack", "id": 10, "v": 2}
    stored = http.get(f"/api/games/{game_id}").json()
    assert stored["ply"] == 1 and stored["outcome"]["reason"] == "resign"
    http.cookies.clear()  # a spectator now
    with http.websocket_connect(f"/ws/games/{game_id}") as spectator:
        assert spectator.receive_json()["you"] == []
        spectator.send_text(json.dumps({"type": "undo", "id": 1, "ply": 1}))
        refused = spectator.receive_json()
        while refused["type"] != "error":
            refused = spectator.receive_json()
        assert refused["id"] == 1 and refused["status"] == 403


def test_a_page_that_comes_back_gets_only_what_it_missed(http: Any) -> None:
    game_id = new_game(http, "galatjang")
    state = play_first_actions(http, game_id, 3)
    with http.websocket_connect(f"/ws/games/{game_id}?since=1") as socket:
        assert socket.receive_json()["v"] == 3
        missed = socket.receive_json()  # the two changes after version 1, in one message
        assert missed["v"] == 3 and 0 < missed["state"]["moves_from"] < len(state["moves"])
        start = missed["state"]["moves_from"]
        assert state["moves"][:start] + missed["state"]["moves"] == state["moves"]
        socket.send_text('{"type": "ping"}')
        assert socket.receive_json()["type"] == "status"  # who is here, the AI's state
        assert socket.receive_json() == {"type": "pong"}  # nothing more came
    with http.websocket_connect(f"/ws/games/{game_id}?since=3") as socket:
        assert socket.receive_json()["type"] == "welcome"
        assert socket.receive_json()["type"] == "status"
        socket.send_text('{"type": "ping"}')
        assert socket.receive_json() == {"type": "pong"}  # up to date: no state at all
    with http.websocket_connect(f"/ws/games/{game_id}?since=99") as socket:
        socket.receive_json()
        whole = socket.receive_json()
        assert whole["state"]["moves_from"] == 0 and whole["state"]["moves"] == state["moves"]
    with http.websocket_connect(f"/ws/games/{game_id}?since=x") as socket:
        assert "bad since 'x'" in socket.receive_json()["message"]


@pytest.mark.parametrize("game", boardlab.game_ids())
def test_a_page_is_sent_only_the_lines_of_the_board_that_changed(http: Any, game: str) -> None:
    """After its first state a page is sent the board as the lines that changed since
    the version it holds, in its own language; patched, it is the board the API draws.
    A page further behind is sent the whole board."""
    game_id = new_game(http, game)
    rng = random.Random(game)
    pages = {
        lang: http.websocket_connect(f"/ws/games/{game_id}", headers={"accept-language": lang})
        for lang in ("en", "de")
    }
    boards = {}
    with pages["en"] as english, pages["de"] as german:
        for lang, socket in (("en", english), ("de", german)):
            assert socket.receive_json()["type"] == "welcome"
            boards[lang] = socket.receive_json()["state"]["svg"]
        assert boards["en"] != boards["de"]  # the board's words are the page's own
        state = http.get(f"/api/games/{game_id}").json()
        for _ in range(12):
            if state["outcome"] is not None:
                break
            action = rng.choice(state["legal"])["action"]
            http.post(f"/api/games/{game_id}/play", json={"action": action, "ply": state["ply"]})
            for lang, socket in (("en", english), ("de", german)):
                pushed = socket.receive_json()["state"]
                assert "svg" not in pushed and pushed["svg_base"] == pushed["revision"] - 1
                lines = boards[lang].split("\n")
                assert 0 < len(pushed["svg_lines"]) < len(lines)
                for k, line in pushed["svg_lines"].items():
                    lines[int(k)] = line
                boards[lang] = "\n".join(lines)
                drawn = http.get(f"/api/games/{game_id}", headers={"accept-language": lang})
                assert boards[lang] == drawn.json()["svg"]
            state = http.get(f"/api/games/{game_id}").json()
    version = state["revision"]
    with http.websocket_connect(f"/ws/games/{game_id}?since={version - 1}") as socket:
        socket.receive_json()
        assert socket.receive_json()["state"]["svg_base"] == version - 1
    with http.websocket_connect(f"/ws/games/{game_id}?since={version - 2}") as socket:
        socket.receive_json()
        assert socket.receive_json()["state"]["svg"] == boards["en"]


def test_board_lines_that_changed_rebuild_the_board() -> None:
    assert changed_lines(["a", "b", "c"], ["a", "B", "c"]) == {1: "B"}
    assert changed_lines(["a", "b"], ["a", "b"]) == {}
    assert changed_lines(["a", "b"], ["a", "b", "c"]) is None  # another shape: sent whole


@pytest.mark.parametrize("game_id", GAMES)
def test_a_room_keeps_its_move_list_as_the_record_would_list_it(game_id: str) -> None:
    """A room works out the move list from the one before (``moves_after``); through
    actions, take-backs, a game played on after another process changed it, and a
    resignation, it is always the record's own."""
    rng = random.Random(game_id)
    for _ in range(5):
        record = GameRecord(boardlab.new_game(game_id))
        moves = moves_of(record)
        while True:
            before = record.copy()
            roll = rng.random()
            if record.is_over() or roll < 0.02:
                if not record.is_over():
                    record.resign()
            elif roll < 0.08 and len(record) > 2:  # undone, and maybe played on as far
                cut = rng.randrange(len(record) - 1)  # as one action more than before
                onward = rng.choice([0, 1, len(record) + 1 - cut])
                record = GameRecord(boardlab.new_game(game_id))
                for action in before.actions[:cut]:
                    record.play(action)
                for _ in range(onward):
                    if not record.is_over():
                        record.play(rng.choice(record.position.legal_actions()))
            else:
                record.play(rng.choice(record.position.legal_actions()))
            moves = moves_after(moves, before, record)
            assert moves == moves_of(record)
            if record.is_over():
                break


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
        state = play_first_actions(http, game_id, 5)
    with client(db) as http:
        again = http.get(f"/api/games/{game_id}").json()
        assert again["ply"] == state["ply"]
        assert again["position"] == state["position"]
        assert json.dumps(again["legal"]) == json.dumps(state["legal"])


def test_small_options_exist() -> None:
    """``SMALL`` (web_support) holds, for every game, option texts that its game takes
    as they read, each number below its default (short games)."""
    assert SMALL.keys() == set(GAMES)
    for game_id, texts in SMALL.items():
        game = boardlab.new_game(game_id, **texts)
        values = {name: game.schema.get(name).parse(text) for name, text in texts.items()}
        assert game.non_default_options() == values
        for name, value in values.items():
            if type(value) is int:
                assert value < game.schema.get(name).default, (game_id, name)


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


def test_perfect_opens_galatjang_with_the_only_sowing_that_loses_least(sqlite_http: Any) -> None:
    """In the browser too, the perfect player plays the solved opening (from the book,
    no table needed): s1 is the one first sowing worth -16; every other loses more."""
    http = sqlite_http
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


# ---------------------------------------------------------------------- review positions
def upload(http: Any, record: GameRecord) -> str:
    """Upload a record as the home page's form does; the id of the game it makes."""
    text = record.to_text().encode()
    answer = http.post("/upload", files={"record": ("game.txt", text)}, follow_redirects=False)
    assert answer.status_code == 303, answer.text
    return str(answer.headers["location"]).rsplit("/", 1)[1]


def random_record(game_id: str, seed: int, most: int = 10_000, **options: Any) -> GameRecord:
    """A game of random legal actions, to its end or ``most`` actions."""
    record = GameRecord(boardlab.new_game(game_id, **options))
    rng = random.Random(seed)
    while len(record) < most and not record.is_over():
        record.play(rng.choice(record.position.legal_actions()))
    return record


def engine_board(record: GameRecord, ply: int) -> dict[str, Any]:
    """Position ``ply`` of a record as the engine has it: its board drawn with the places
    of the action that led to it marked, and that action's narration."""
    from boardlab.ui.svg import board_svg

    game, position = record.game, record.positions[ply]
    marked: tuple[str, ...] = ()
    notes: list[str] = []
    if ply:
        before, action = record.positions[ply - 1].state, record.actions[ply - 1]
        marked = game.action_parts(before, action).places
        notes = [str(note) for note in game.narrate(before, action)]
    board = game.board_model(position.state)
    return {
        "ply": ply,
        "position": position.position_string(),
        "svg": board_svg(game, board, marked),
        "notes": notes,
        "tallies": [[str(t) for t in side] for side in board.tallies],
        "due": board.due,
        "to_act": None if position.is_over() else position.to_act,
    }


def positions(http: Any, game_id: str, **query: Any) -> Any:
    return http.get(f"/api/games/{game_id}/positions", params=query)


@pytest.mark.parametrize("game", GAMES)
def test_positions_are_the_boards_of_the_replayed_game(http: Any, game: str) -> None:
    """Paged through in slices of random sizes, the positions are the engine's boards of
    every position of the game, in order, each once."""
    for seed in (1, 2):
        record = random_record(game, seed, **SMALL[game])
        game_id = upload(http, record)
        rng = random.Random(seed)
        seen: list[dict[str, Any]] = []
        while len(seen) < len(record) + 1:
            answer = positions(http, game_id, start=len(seen), count=rng.randint(1, 50))
            assert answer.status_code == 200, answer.text
            assert answer.json()["positions"] == len(record) + 1
            assert answer.json()["start"] == len(seen)
            seen.extend(answer.json()["boards"])
        assert seen == [engine_board(record, ply) for ply in range(len(record) + 1)]


def test_positions_are_paged_at_the_edges(http: Any) -> None:
    record = random_record("galatjang", 3, **SMALL["galatjang"])
    game_id = upload(http, record)
    last = len(record)
    first = positions(http, game_id, start=0, count=1).json()
    assert [b["ply"] for b in first["boards"]] == [0]
    assert first["boards"][0]["notes"] == [] and first["boards"][0]["to_act"] == 0
    final = positions(http, game_id, start=last, count=1).json()["boards"]
    assert final == [engine_board(record, last)] and final[0]["to_act"] is None
    clipped = positions(http, game_id, start=last - 2, count=50).json()
    assert [b["ply"] for b in clipped["boards"]] == [last - 2, last - 1, last]
    whole = positions(http, game_id).json()  # from the start, as many as one answer takes
    assert [b["ply"] for b in whole["boards"]] == list(range(min(50, last + 1)))


@pytest.mark.parametrize(
    ("query", "status", "words"),
    [
        ({"count": 0}, 422, "count: Input should be greater than or equal to 1"),
        ({"count": 51}, 422, "count: Input should be less than or equal to 50"),
        ({"start": -1}, 422, "start: Input should be greater than or equal to 0"),
        ({"start": "one"}, 422, "start: Input should be a valid integer"),
        ({"start": 9}, 400, "no position 9: this game has 9 positions (0 to 8)"),
        ({"start": 10**6, "count": 50}, 400, "this game has 9 positions"),
    ],
)
def test_positions_out_of_range_are_refused_with_a_json_error(
    http: Any, query: dict[str, Any], status: int, words: str
) -> None:
    record = random_record("jinli", 5, 8, **SMALL["jinli"])
    assert len(record) == 8
    game_id = upload(http, record)
    answer = positions(http, game_id, **query)
    assert answer.status_code == status
    assert words in answer.json()["error"]


#: A Jin Li game that runs long: 22 stones each, 99 koi to win, stones played again
#: (3,333 turns: just under the server's 10,000 actions).
LONG = {"stones": 22, "target": 99, "recycle": True, "max_turns": 3333}


@pytest.fixture
def roomy(database: str) -> Any:
    """The app of a host who keeps games of up to 10,000 actions."""
    with client(database, dataclasses.replace(TESTING, actions=10_000)) as test_client:
        yield test_client


def test_a_long_games_review_page_carries_no_boards(roomy: Any) -> None:
    """3,000 actions: the review page was 62 MB of boards; now it holds the game's state
    (one board, the legal actions, the move list) and the boards come 50 at most a call."""
    http = roomy
    record = random_record("jinli", 4, 3000, **LONG)
    assert len(record) == 3000
    game_id = upload(http, record)
    page = http.get(f"/review/{game_id}")
    assert page.status_code == 200
    assert 'data-positions="3001"' in page.text
    assert "<svg" not in page.text  # the state's one board is JSON, its "<" escaped
    # The bound: the page without moves (its frame, the messages of its scripts, the
    # final board and the legal actions: 27 KB measured, 200 KB allowed), and the move
    # list in the state's JSON: per turn its keys and numbers ({"actions": [], "first_ply":
    # 2999, "number": 2999, "player": 1}, : under 80 bytes), per action its text quoted
    # with a comma and a space. (Before: about 20 KB per action.)
    turns = list(record.turns())
    bound = 200_000 + 80 * len(turns) + sum(len(a) + 4 for a in record.action_strings())
    assert len(page.content) < bound, (len(page.content), bound)
    assert len(page.content) < 400_000
    answer = positions(http, game_id, start=1500, count=50).json()
    assert len(answer["boards"]) == 50 and answer["positions"] == 3001
    assert answer["boards"][-1] == engine_board(record, 1549)
    assert len(positions(http, game_id, start=2000).json()["boards"]) == 50
    assert positions(http, game_id, count=51).status_code == 422


def test_the_schema_is_upgraded_once_and_checked_by_the_servers_processes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``boardlab db upgrade`` (and ``serve``, once, before its processes) brings the
    schema to the newest; a server process only checks it, and refuses an old one."""
    from fastapi.testclient import TestClient

    from boardlab.cli import main
    from boardlab.core.errors import BoardlabError
    from boardlab.web.app import create_app

    url = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    with pytest.raises(BoardlabError, match="boardlab db upgrade"):
        create_app(url, workers=1, upgrade=False)
    assert main(["db", "status", "--db", url]) == 0
    assert "schema none; the newest is" in capsys.readouterr().out
    assert main(["db", "upgrade", "--db", url]) == 0
    assert "schema none upgraded to" in capsys.readouterr().out
    assert main(["db", "upgrade", "--db", url]) == 0
    assert ", the newest" in capsys.readouterr().out
    with TestClient(create_app(url, workers=1, upgrade=False)) as http:
        assert http.get("/").status_code == 200
    unreachable = "postgresql+psycopg://nobody@127.0.0.1:1/none"
    assert main(["db", "status", "--db", unreachable]) == 2
    said = capsys.readouterr().err
    assert "cannot open the database" in said and "Traceback" not in said


def test_sqlite_log_is_copied_into_the_database_beside_the_writers(tmp_path: Any) -> None:
    """The server's checkpoint: outside any transaction, it copies every frame of the
    write-ahead log while nothing else writes (a commit need not)."""
    from boardlab.web.store import Store

    store = Store(f"sqlite:///{tmp_path / 'games.sqlite3'}")
    for _ in range(5):
        store.create(NewGame("galatjang", {"pits": 3, "seeds": 2}, ["human", "human"], "me"))
    found = store.checkpoint()
    assert found is not None
    frames, copied = found
    assert frames > 0 and copied == frames
    assert store.away_since is None  # no outage was said
    store.engine.dispose()


def test_an_unknown_lesson_or_game_names_what_there_is() -> None:
    import html

    from boardlab.lessons import lessons

    game = boardlab.game_ids()[0]
    with client("memory:") as http:
        answer = http.get(f"/learn/{game}/nope")
        assert answer.status_code == 404
        ids = ", ".join(k.id for k in lessons(game))
        said = f"no lesson 'nope' of '{game}': its lessons are {ids}"
        assert said in html.unescape(answer.text)
        answer = http.get("/learn/chess/nope")
        assert answer.status_code == 404
        games = ", ".join(boardlab.game_ids())
        assert f"no game 'chess' here: the games are {games}" in html.unescape(answer.text)
