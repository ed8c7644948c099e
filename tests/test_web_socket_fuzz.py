"""Whatever a page sends over its WebSocket, Hypothesis-made: text that is not JSON, JSON
of every shape, messages of every type with every kind of ``text``. Each gets one
answer (a pong, a line of chat, or an error that says what would do), the socket stays
open, nothing but the valid lines of chat is kept, and the game does not move."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boardlab.web.app import create_app
from boardlab.web.routes.live import MAX_MESSAGE
from boardlab.web.talk import MAX_LINE
from web_support import SMALL, TESTING, browsers, url_of

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)
TEXTS = st.text() | st.text(min_size=MAX_LINE - 2, max_size=MAX_LINE + 2) | JSON
MESSAGES = st.one_of(
    st.text(max_size=200),
    st.text(min_size=MAX_MESSAGE - 2, max_size=MAX_MESSAGE + 10).map(
        lambda t: t[: MAX_MESSAGE + 10]
    ),
    JSON.map(json.dumps),
    st.fixed_dictionaries(
        {"type": st.sampled_from(["ping", "chat", "play", "state", "error", ""]) | st.text()},
        optional={"text": TEXTS, "action": JSON, "ply": JSON},
    ).map(json.dumps),
)


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, str, str]]:
    """A game between two people online on SQLite: a browser without cookies (a
    spectator, or South when it sends South's secret), the game's id and that secret."""
    app = create_app(url_of(tmp_path_factory.mktemp("fuzz") / "games.sqlite3"), 1, TESTING)
    with browsers(app, 3) as (creator, friend, stranger):
        form = {"opponent": "online", "seat": "0", **SMALL["galatjang"]}
        made = creator.post("/new/galatjang", data=form, follow_redirects=False)
        game_id = made.headers["location"].rsplit("/", 1)[1]
        invitation = creator.cookies[f"invite-{game_id}"]
        assert friend.post(f"/join/{game_id}/{invitation}", follow_redirects=False).status_code
        yield stranger, game_id, creator.cookies[f"seat-{game_id}"]  # a seat by header only


def answer_to(socket: Any) -> dict[str, Any]:
    """The next message that is not a state (pages come and go: states pass by)."""
    while True:
        message = socket.receive_json()
        if message.get("type") not in ("state", "welcome", "status"):
            return message


@settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(messages=st.lists(MESSAGES, min_size=1, max_size=6), seated=st.booleans())
def test_every_socket_message_gets_one_clear_answer(
    game: tuple[TestClient, str, str], messages: list[str], seated: bool
) -> None:
    http, game_id, secret = game
    headers = {"X-Boardlab-Seat": secret} if seated else {}
    before = http.get(f"/api/games/{game_id}").json()
    with http.websocket_connect(f"/ws/games/{game_id}", headers=headers) as socket:
        if seated:
            heard = len(answer_to(socket)["lines"])  # the chat so far
        for message in messages:
            socket.send_text(message)
            answer = answer_to(socket)
            assert answer["type"] in ("pong", "chat", "error"), answer
            if answer["type"] == "error":
                assert answer["message"] and "Traceback" not in answer["message"]
                continue
            data = json.loads(message)
            assert answer["type"] == ("pong" if data["type"] == "ping" else "chat")
            if answer["type"] == "chat":
                assert seated and data["type"] == "chat"
                (line,) = answer["lines"]
                assert line["text"] == " ".join(data["text"].split()) and line["seat"] == 0
                heard += 1
        socket.send_text('{"type": "ping"}')  # still open and answering
        assert answer_to(socket) == {"type": "pong"}
    if seated:  # what was said is what was kept, no more
        with http.websocket_connect(f"/ws/games/{game_id}", headers=headers) as socket:
            assert len(answer_to(socket)["lines"]) == min(heard, 500)
    after = http.get(f"/api/games/{game_id}").json()
    assert after["revision"] == before["revision"] and after["ply"] == before["ply"]
