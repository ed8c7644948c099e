"""The server tried as an attacker would: each class of attack against a live ``boardlab
serve`` (a child process, reached over real sockets) on SQLite and on PostgreSQL, and
the bound it must meet. The limits are set low (``--limit``) so that each is reached in
a moment; docs/web.md's "Limits" table gives their defaults."""

from __future__ import annotations

import json
import re
import socket
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from optional import need

need("fastapi")

import httpx2 as httpx  # noqa: E402
from websockets.exceptions import ConnectionClosed, InvalidStatus  # noqa: E402
from websockets.sync.client import connect  # noqa: E402

import boardlab  # noqa: E402
from boardlab.core.record import GameRecord  # noqa: E402
from web_support import SMALL, LiveServer  # noqa: E402

LIMITS = {
    "uploads": 3,
    "games": 1000,
    "sockets": 4,
    "connections": 12,
    "request_seconds": 2,
    "body": 65536,
    "actions": 1000,
}


def limited(**changes: float) -> list[str]:
    """The command line's ``--limit`` words for LIMITS with ``changes``."""
    words = []
    for name, value in {**LIMITS, **changes}.items():
        words += ["--limit", f"{name}={value}"]
    return words


def launch(request: pytest.FixtureRequest, folder: Path, **changes: float) -> LiveServer:
    if request.param == "sqlite":
        live = LiveServer(folder / "games.sqlite3", extra=limited(**changes))
    else:
        postgres = request.getfixturevalue("postgres")
        live = LiveServer(postgres.fresh(), folder, extra=limited(**changes))
    live.start()
    return live


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LiveServer]:
    """One server for the attacks that use up no rate (uploads unbounded by the minute)."""
    live = launch(request, tmp_path_factory.mktemp("attacks"), uploads=1000)
    yield live
    live.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def fresh_server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[LiveServer]:
    """A server of its own, for an attack that uses up a client's rate."""
    live = launch(request, tmp_path)
    yield live
    live.stop()


#: The clients a test opened, closed after it.
OPENED: list[Any] = []


@pytest.fixture(autouse=True)
def close_clients() -> Iterator[None]:
    yield
    while OPENED:
        OPENED.pop().close()


def browser(server: LiveServer) -> httpx.Client:
    """A browser: its own cookies, and the Origin a page of the server sends."""
    client = httpx.Client(base_url=server.url, headers={"origin": server.url}, timeout=30)
    OPENED.append(client)
    return client


def new_game(http: httpx.Client, game: str = "galatjang", **form: str) -> str:
    fields = {"opponent": "human", "seat": "0", **SMALL[game], **form}
    made = http.post(f"/new/{game}", data=fields)
    assert made.status_code == 303, made.text
    return str(made.headers["location"]).rsplit("/", 1)[1]


def upload(http: httpx.Client, text: str, headers: dict[str, str] | None = None) -> httpx.Response:
    return http.post("/upload", files={"record": ("game.txt", text.encode())}, headers=headers)


def random_record(game_id: str, length: int, seed: int = 1, **options: Any) -> GameRecord:
    import random

    rng = random.Random(seed)
    record = GameRecord(boardlab.new_game(game_id, **options))
    while len(record) < length and not record.is_over():
        record.play(rng.choice(record.position.legal_actions()))
    return record


def state(http: httpx.Client, game_id: str) -> dict[str, Any]:
    answer: dict[str, Any] = http.get(f"/api/games/{game_id}").json()
    return answer


def closed_by_server(connection: socket.socket, within: float) -> bool:
    """Whether the server closes ``connection`` within ``within`` seconds (what it
    sends first is read and dropped)."""
    connection.settimeout(within)
    try:
        while connection.recv(4096):
            pass
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True
    return True


def raw(server: LiveServer) -> socket.socket:
    connection = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    OPENED.append(connection)
    return connection


# ---------------------------------------------------------------------- seats
def test_an_uploaded_game_is_changed_by_its_uploader_alone(server: LiveServer) -> None:
    uploader, stranger = browser(server), browser(server)
    made = upload(uploader, '[Game "jinli"]\n\n1. a1-b2 @d4 2. a7-b6 @d5 *\n')
    assert made.status_code == 303, made.text
    game_id = str(made.headers["location"]).rsplit("/", 1)[1]
    before = state(stranger, game_id)
    assert before["ply"] == 4 and before["you"] == []
    for route, body in [
        ("undo", {"ply": 4}),
        ("resign", {"ply": 4}),
        ("play", {"action": before["legal"][0]["action"], "ply": 4}),
    ]:
        refused = stranger.post(f"/api/games/{game_id}/{route}", json=body)
        assert refused.status_code == 403, (route, refused.text)
    assert state(stranger, game_id)["revision"] == before["revision"]
    assert state(uploader, game_id)["you"] == [0, 1]
    taken = uploader.post(f"/api/games/{game_id}/undo", json={"ply": 4})
    assert taken.status_code == 200 and taken.json()["ply"] == 2


def test_joining_ones_own_game_keeps_ones_seat(server: LiveServer) -> None:
    creator = browser(server)
    game_id = new_game(creator, opponent="online")
    page = creator.get(f"/play/{game_id}").text
    link = re.search(r'id="invitation-link" readonly value="[^"]*(/join/[^"]+)"', page)
    assert link is not None
    seat = creator.cookies[f"seat-{game_id}"]
    refused = creator.post(link.group(1), headers={"accept": "application/json"})
    assert refused.status_code == 400 and "already" in refused.json()["error"]
    assert creator.cookies[f"seat-{game_id}"] == seat
    assert state(creator, game_id)["open_seat"] == 1 and state(creator, game_id)["you"] == [0]


def test_chat_is_limited_by_seat_whatever_else_a_socket_sends(server: LiveServer) -> None:
    creator, friend = browser(server), browser(server)
    game_id = new_game(creator, opponent="online")
    page = creator.get(f"/play/{game_id}").text
    link = re.search(r'id="invitation-link" readonly value="[^"]*(/join/[^"]+)"', page)
    assert link is not None and friend.post(link.group(1)).status_code == 303
    cookie = f"seat-{game_id}={creator.cookies[f'seat-{game_id}']}"
    address = f"ws://127.0.0.1:{server.port}/ws/games/{game_id}"
    refused = 0
    for k in range(3):  # each socket another junk seat header: once a way round the limit
        headers = {"Origin": server.url, "Cookie": cookie, "X-Boardlab-Seat": f"junk{k:020d}"}
        with connect(address, additional_headers=headers) as ws:
            for _ in range(4):
                ws.send(json.dumps({"type": "chat", "text": "hello"}))
            deadline = time.monotonic() + 2
            while time.monotonic() < deadline:
                try:
                    message = json.loads(ws.recv(timeout=0.3))
                except TimeoutError:
                    continue
                refused += message["type"] == "error" and "too many chat" in message["message"]
    headers = {"Origin": server.url, "Cookie": cookie}
    with connect(address, additional_headers=headers) as ws:
        kinds: dict[str, Any] = {}
        while "chat" not in kinds:
            message = json.loads(ws.recv(timeout=10))
            kinds[message["type"]] = message
    assert len(kinds["chat"]["lines"]) == 8 and refused == 4  # 8 in 10 s, a seat


def test_a_burst_of_messages_is_answered_in_order_until_the_socket_floods(
    server: LiveServer,
) -> None:
    """A page's messages that come at once wait for the app a few at a time (the rest
    in the network's buffers): each is answered, in order, until the page has sent more
    than its share; then it is told so and its socket closes."""
    from boardlab.web.routes.live import SOCKET_MOST

    http = browser(server)
    game_id = new_game(http)
    address = f"ws://127.0.0.1:{server.port}/ws/games/{game_id}"
    with connect(address, additional_headers={"Origin": server.url}) as ws:
        for k in range(SOCKET_MOST + 20):
            ws.send(json.dumps({"type": "ping", "id": k}))
        kinds = []
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                kinds.append(json.loads(ws.recv(timeout=10))["type"])
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
    assert kinds == ["welcome", "state", *["pong"] * SOCKET_MOST, "error"], kinds


# ---------------------------------------------------------------------- work and memory
def test_a_body_over_the_limit_is_refused_unread(server: LiveServer) -> None:
    http = browser(server)
    game_id = new_game(http)
    big = json.dumps({"action": "s1" * 40000, "ply": 0}).encode()
    declared = http.post(
        f"/api/games/{game_id}/play", content=big, headers={"content-type": "application/json"}
    )
    assert declared.status_code == 413 and "too large" in declared.json()["error"]

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted as it comes
        for _ in range(20):
            yield b"x" * 8192

    streamed = http.post(
        f"/api/games/{game_id}/play",
        content=chunks(),
        headers={"content-type": "application/json"},
    )
    assert streamed.status_code == 413
    assert state(http, game_id)["ply"] == 0


def test_refused_input_is_quoted_in_a_few_dozen_characters(server: LiveServer) -> None:
    http = browser(server)
    game_id = new_game(http)
    answer = http.post(f"/api/games/{game_id}/play", json={"action": "s" * 60000, "ply": 0})
    assert answer.status_code == 400
    assert len(answer.content) < 400, answer.text
    assert "60000 characters" in answer.json()["error"]


def test_records_and_options_over_the_longest_game_are_refused(server: LiveServer) -> None:
    http = browser(server)
    tags = '[Game "jinli"]\n[Options "max_turns=1000"]\n\n'
    long = tags + " ".join(["a1-b2"] * 1001) + " *\n"  # counted before any is played
    refused = upload(http, long, {"accept": "application/json"})
    assert refused.status_code == 400 and "more than 1000 actions" in refused.json()["error"]
    form = {"opponent": "human", "seat": "0", "max_turns": "100000"}
    too_long = http.post("/new/jinli", data=form)
    assert too_long.status_code == 400 and "games of up to 1,000" in too_long.text
    game = boardlab.new_game("jinli", max_turns=1000)
    allows = tags + " ".join(random_record("jinli", 60).action_strings()) + " *\n"
    answer = upload(http, allows, {"accept": "application/json"})
    assert answer.status_code == 400, answer.text
    assert f"up to {game.max_actions:,} actions" in answer.json()["error"]
    short = random_record("jinli", 60).to_text()
    assert upload(http, short).status_code == 303


def test_half_sent_requests_are_closed(server: LiveServer) -> None:
    game_id = new_game(browser(server))
    headers = raw(server)
    headers.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")  # never finished
    body = raw(server)
    body.sendall(
        f"POST /api/games/{game_id}/play HTTP/1.1\r\nHost: x\r\n".encode()
        + b'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"ply"'
    )
    assert closed_by_server(headers, within=10)
    body.settimeout(10)
    answer = body.recv(4096)
    assert answer.startswith(b"HTTP/1.1 408"), answer[:80]


def test_a_client_holds_a_bounded_number_of_connections(server: LiveServer) -> None:
    held = [raw(server) for _ in range(LIMITS["connections"])]
    time.sleep(1.0)  # all counted (the server accepts them in turn, also on a busy machine)
    extra = raw(server)
    assert closed_by_server(extra, within=5)
    for connection in held:
        connection.close()
    time.sleep(0.3)
    assert browser(server).get("/").status_code == 200


def test_a_client_holds_a_bounded_number_of_sockets(server: LiveServer) -> None:
    http = browser(server)
    game_id = new_game(http)
    address = f"ws://127.0.0.1:{server.port}/ws/games/{game_id}"
    headers = {"Origin": server.url}
    stack = ExitStack()
    OPENED.append(stack)
    sockets = [
        stack.enter_context(connect(address, additional_headers=headers))
        for _ in range(LIMITS["sockets"])
    ]
    for ws in sockets:
        assert json.loads(ws.recv(timeout=10))["type"] == "welcome"
    with pytest.raises(InvalidStatus) as refused:
        connect(address, additional_headers=headers)
    assert refused.value.response.status_code == 403
    sockets.pop().close()
    time.sleep(0.3)
    with connect(address, additional_headers=headers) as again:
        assert json.loads(again.recv(timeout=10))["type"] == "welcome"


# ---------------------------------------------------------------------- rates
def test_uploads_are_limited_per_client_whatever_it_says_it_is(fresh_server: LiveServer) -> None:
    http = browser(fresh_server)
    text = '[Game "jinli"]\n\n1. a1-b2 @d4 *\n'
    codes = [
        upload(http, text, {"x-forwarded-for": f"10.0.0.{k}"}).status_code
        for k in range(LIMITS["uploads"] + 1)
    ]
    assert codes == [303] * LIMITS["uploads"] + [429]
    refused = upload(http, text, {"accept": "application/json"})
    assert refused.status_code == 429 and refused.headers["retry-after"]


@pytest.mark.parametrize("fresh_server", ["sqlite"], indirect=True)
def test_a_named_proxy_is_believed(fresh_server: LiveServer, tmp_path: Path) -> None:
    fresh_server.stop()
    proxied = LiveServer(tmp_path / "proxied.sqlite3", extra=[*limited(), "--proxy", "127.0.0.1"])
    proxied.start()
    try:
        http = browser(proxied)
        text = '[Game "jinli"]\n\n1. a1-b2 @d4 *\n'
        codes = [
            upload(http, text, {"x-forwarded-for": f"10.0.0.{k % 2}"}).status_code
            for k in range(2 * LIMITS["uploads"] + 1)
        ]
        assert codes.count(303) == 2 * LIMITS["uploads"] and codes[-1] == 429
    finally:
        proxied.stop()


# ---------------------------------------------------------------------- web hygiene
def test_another_sites_page_cannot_act(server: LiveServer) -> None:
    http = browser(server)
    game_id = new_game(http)
    form = {"opponent": "human", "seat": "0", **SMALL["galatjang"]}
    for forged in ({"origin": "http://evil.example"}, {"sec-fetch-site": "cross-site"}):
        refused = http.post("/new/galatjang", data=form, headers=forged)
        assert refused.status_code == 403, refused.text
        resigned = http.post(f"/api/games/{game_id}/resign", json={"ply": 0}, headers=forged)
        assert resigned.status_code == 403
    assert state(http, game_id)["outcome"] is None
    address = f"ws://127.0.0.1:{server.port}/ws/games/{game_id}"
    with pytest.raises(InvalidStatus) as refused_socket:
        connect(address, additional_headers={"Origin": "http://evil.example"})
    assert refused_socket.value.response.status_code == 403
    own = {"sec-fetch-site": "same-origin"}
    assert http.post("/new/galatjang", data=form, headers=own).status_code == 303


def test_no_redirect_leaves_the_site(server: LiveServer) -> None:
    with socket.create_connection(("127.0.0.1", server.port)) as connection:
        connection.sendall(b"GET //evil.example/?lang=de HTTP/1.1\r\nHost: x\r\n\r\n")
        answer = connection.recv(4096).decode("latin-1")
    location = re.search(r"(?im)^location: (.*)$", answer)
    assert location is not None and location.group(1).strip() == "/evil.example/", answer


def test_small_answers_follow_http(server: LiveServer) -> None:
    http = browser(server)
    traced = http.request("TRACE", "/")
    assert traced.status_code == 405 and "GET" in traced.headers["allow"]
    assert http.get("/?lang=").status_code == 200


def test_cookies_are_secure_behind_https(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from boardlab.web.app import create_app

    form = {"opponent": "human", "seat": "0", **SMALL["galatjang"]}
    url = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    for base, flag, secure in [
        ("http://testserver", False, False),
        ("https://testserver", False, True),
        ("http://testserver", True, True),
    ]:
        with TestClient(create_app(url, 1, secure_cookies=flag), base_url=base) as http:
            made = http.post("/new/galatjang", data=form, follow_redirects=False)
            cookies = made.headers.get_list("set-cookie")
            assert cookies and all(("; secure" in c.lower()) == secure for c in cookies), cookies


# ---------------------------------------------------------------------- outages
def test_a_database_outage_is_a_503_said_once_in_the_log(
    request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    """While the database is away, a game in memory is still shown, but no change to it
    is taken (nothing is shown that is not stored), nor anything that needs the
    database: each is a 503 with Retry-After, and the log says so once."""
    postgres = request.getfixturevalue("postgres")
    live = LiveServer(postgres.fresh(), tmp_path, extra=limited())
    live.start()
    try:
        http = browser(live)
        game_id = new_game(http)
        first = http.get(f"/api/games/{game_id}").json()["legal"][0]["action"]
        # one action stored before: the connection that stores actions is open, and
        # the outage breaks it
        assert http.post(f"/api/games/{game_id}/play", json={"action": first, "ply": 0}).is_success
        state = http.get(f"/api/games/{game_id}").json()
        move = {"action": state["legal"][0]["action"], "ply": 1}
        postgres.stop()
        try:
            answers = [http.post(f"/api/games/{game_id}/play", json=move) for _ in range(5)]
            shown = http.get(f"/api/games/{game_id}")
            page = http.get("/games")
        finally:
            postgres.resume()
        for answer in answers:
            assert answer.status_code == 503 and answer.headers["retry-after"] == "5"
            assert "database is away" in answer.json()["error"]
        assert shown.status_code == 200 and shown.json()["ply"] == 1  # unchanged
        assert page.status_code == 503 and "database is away" in page.text
        deadline = time.monotonic() + 30
        while (back := http.post(f"/api/games/{game_id}/play", json=move)).status_code == 503:
            assert time.monotonic() < deadline, "the server did not come back"
            time.sleep(0.2)
        assert back.status_code == 200 and back.json()["ply"] == 2
    finally:
        live.stop()
    log = live.log.read_text()
    assert log.count("the database is away") == 1, log
    assert "the database is back" in log and "Traceback" not in log, log


def test_requests_are_limited_per_client(tmp_path: Path) -> None:
    live = LiveServer(tmp_path / "games.sqlite3", extra=limited(requests=30))
    live.start()
    try:
        http = browser(live)
        codes = [http.get("/api/games").status_code for _ in range(31)]
        assert codes == [200] * 30 + [429]
        refused = http.get("/")
        assert refused.status_code == 429 and refused.headers["retry-after"] == "10"
        assert "too many requests" in refused.json()["error"]
        assert http.get("/static/app.css").status_code == 200  # the page's files are free
    finally:
        live.stop()
