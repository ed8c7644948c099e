"""Bots and their tokens against a running server on SQLite and on PostgreSQL: the table
"Who may do what with a bot's token" of docs/web.md walked cell by cell for every viewer
(the bot's token, another bot's, a revoked one, the token as a session cookie, none),
the live socket opened by each, then the bounds: tokens a bot holds, requests a bot
sends from many addresses, games a bot plays at once; a bot's seek taken from the lobby,
the seeks a bot keeps open (at once too), and the clock of a game played over the API
alone, no page open."""

from __future__ import annotations

import asyncio
import itertools
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import boardlab
from optional import need

need("fastapi")

import httpx2 as httpx  # noqa: E402

from boardlab.web.accounts import SESSION_COOKIE, session_key  # noqa: E402
from boardlab.web.bots import TOKENS_MOST, BotStore, allowed, bearer_of, tag_of  # noqa: E402
from boardlab.web.data import RequestError  # noqa: E402
from boardlab.web.store import Store  # noqa: E402
from web_support import LiveServer, expected, permission_rows, url_of  # noqa: E402

PASSWORD = "correct horse"
BOT, OTHER, REVOKED, COOKIE, NONE = "bot", "other bot", "revoked", "cookie", "no token"
VIEWERS = (BOT, OTHER, REVOKED, COOKIE, NONE)
ADDRESSES = (f"10.8.{k // 250}.{k % 250 + 1}" for k in itertools.count())
GAME = boardlab.game_ids()[0]


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def server(request: pytest.FixtureRequest, tmp_path_factory: Any) -> Iterator[LiveServer]:
    folder = tmp_path_factory.mktemp("bots")
    if request.param == "sqlite":
        db: Path | str = folder / "games.sqlite3"
    else:
        db = request.getfixturevalue("postgres").fresh()
    live = LiveServer(db, folder, extra=["--proxy", "127.0.0.1", "--limit", "games=100000"])
    live.start()
    yield live
    live.stop()


class World:
    """A server's bots and a person: the bot ``robo`` (its token, and one revoked),
    another bot, and a player signed in who challenges the bot."""

    def __init__(self, server: LiveServer) -> None:
        self.server = server
        store = Store(url_of(server.db), upgrade=None)
        try:
            bots = BotStore(store)
            suffix = secrets.token_hex(3)
            self.bot_name = f"robo{suffix}"
            account, self.token = bots.add(self.bot_name)
            self.revoked = bots.make_token(account)
            assert bots.revoke(account, tag_of(session_key(self.revoked))) == 1
            self.other = bots.add(f"droid{suffix}")[1]
        finally:
            store.engine.dispose()
        self.player = client(server)
        self.player_name = f"ana{suffix}"
        self.seats: dict[str, str] = {}
        answer = self.player.post(
            "/api/account/signup", json={"name": self.player_name, "password": PASSWORD}
        )
        assert answer.status_code == 200, answer.text

    def close(self) -> None:
        self.player.close()

    def as_viewer(self, viewer: str) -> httpx.Client:
        if viewer == BOT:
            return client(self.server, authorization=f"Bearer {self.token}")
        if viewer == OTHER:
            return client(self.server, authorization=f"Bearer {self.other}")
        if viewer == REVOKED:
            return client(self.server, authorization=f"Bearer {self.revoked}")
        http = client(self.server)
        if viewer == COOKIE:
            http.cookies.set(SESSION_COOKIE, self.token, domain="127.0.0.1")
        return http

    def challenge(self) -> str:
        """An open challenge from the player to the bot, the bot to move first."""
        body = {"to": self.bot_name, "game": GAME, "side": "north"}
        answer = self.player.post("/api/challenges", json=body)
        assert answer.status_code == 201, answer.text
        self.seats[answer.json()["id"]] = answer.json()["seat"]
        return str(answer.json()["id"])

    def bot_challenge(self) -> str:
        """An open challenge from the bot to the player, made with the bot's token."""
        with self.as_viewer(BOT) as bot:
            answer = bot.post("/api/challenges", json={"to": self.player_name, "game": GAME})
            assert answer.status_code == 201, answer.text
            return str(answer.json()["id"])

    def bot_seek(self) -> str:
        """A casual seek of the bot's in the lobby, made with its token."""
        with self.as_viewer(BOT) as bot:
            answer = bot.post("/api/bot/seeks", json={"game": GAME})
            assert answer.status_code == 201, answer.text
            return str(answer.json()["id"])

    def withdraw(self, game_id: str) -> None:
        """The bot aborts its seek's game (waiting, or taken and not yet begun)."""
        with self.as_viewer(BOT) as bot:
            answer = bot.post(f"/api/games/{game_id}/abort", json={"ply": 0})
            assert answer.status_code == 200, answer.text

    def seek(self) -> str:
        """A casual seek of the player's in the lobby, made by the form."""
        ticked = {o.name: "true" for o in boardlab.new_game(GAME).schema if o.default is True}
        form = {"opponent": "online", "seat": "0", "lobby": "true", **ticked}
        answer = self.player.post(f"/new/{GAME}", data=form, follow_redirects=False)
        assert answer.status_code == 303, answer.text
        return str(answer.headers["location"]).rsplit("/", 1)[1]

    def game(self) -> str:
        """A game between the player and the bot, accepted with the bot's token only."""
        with self.as_viewer(BOT) as bot:
            challenge = self.challenge()
            answer = bot.post(f"/api/challenges/{challenge}/accept", json={})
            assert answer.status_code == 200, answer.text
            game_id = str(answer.json()["game"])
            self.seats[game_id] = self.seats[challenge]
            return game_id

    def end(self, game_id: str) -> None:
        """The player resigns the game (a bot plays a bounded number at once)."""
        seat = {"x-boardlab-seat": self.seats[game_id]}
        ply = self.player.get(f"/api/games/{game_id}").json()["ply"]
        self.player.post(f"/api/games/{game_id}/resign", json={"ply": ply}, headers=seat)


def client(server: LiveServer, **headers: str) -> httpx.Client:
    sent = {"x-forwarded-for": next(ADDRESSES), **headers}
    return httpx.Client(base_url=server.url, headers=sent, timeout=30)


def table() -> list[tuple[str, list[str], str]]:
    """The rows of "Who may do what with a bot's token": name, routes, rule."""
    return permission_rows("Who may do what with a bot's token")


def ask(world: World, http: httpx.Client, route: str, kept: dict[str, str]) -> httpx.Response:
    """``route`` asked as ``http``, on the game or challenge ``kept`` for the route (a
    refusal leaves it as it was); one that a change used up is made afresh next time."""
    method, path = route.split(" ", 1)
    body: dict[str, Any] = {}
    makers = (
        ("BOTGAME", world.game),
        ("BOTCHALLENGE", world.bot_challenge),
        ("CHALLENGE", world.challenge),
        ("BOTSEEK", world.bot_seek),
        ("SEEK", world.seek),
    )
    for word, make in makers:
        if word in path:
            if word not in kept:
                kept[word] = make()
            path = path.replace(word, kept[word])
    game_id = kept.get("BOTGAME", "")
    if path.endswith("/play"):
        state = world.player.get(f"/api/games/{game_id}").json()
        body = {"ply": state["ply"], "action": state["legal"][0]["action"]}
    elif path.endswith(("/resign", "/abort")):
        body = {"ply": 0}
    path = path.replace("GAME", GAME)
    if path == "/api/challenges" and method == "POST":
        body = {"to": world.player_name, "game": GAME}
    elif path == "/api/bot/seeks" and method == "POST":
        body = {"game": GAME}
    elif path.endswith("/password"):
        body = {"password": PASSWORD, "new_password": "battery staple"}
    elif path.endswith("/delete"):
        body = {"password": PASSWORD}
    if method == "GET":
        return http.get(path)
    if not path.startswith("/api/"):
        answer = http.post(path, data={"opponent": "human", "seat": "0"})
        if answer.is_redirect and "BOTSEEK" in route:  # taken: its game, aborted
            world.withdraw(kept.pop("BOTSEEK"))
        elif answer.is_redirect and "SEEK" in route:
            kept.pop("SEEK")
        return answer
    answer = http.post(path, json=body)
    if answer.is_success and path == "/api/bot/seeks" and method == "POST":
        http.post(f"/api/games/{answer.json()['id']}/abort", json={"ply": 0})  # its own
    elif answer.is_success and "BOTSEEK" in route:
        kept.pop("BOTSEEK")
    elif answer.is_success and "BOTGAME" in route:
        world.end(kept.pop("BOTGAME"))
    elif answer.is_success and "BOTCHALLENGE" in route:
        kept.pop("BOTCHALLENGE")
    elif answer.is_success and "CHALLENGE" in route:
        challenge = kept.pop("CHALLENGE")
        if path.endswith("/accept"):  # its game, ended
            world.seats[answer.json()["game"]] = world.seats[challenge]
            world.end(answer.json()["game"])
    return answer


def test_every_token_route_for_every_viewer(server: LiveServer) -> None:
    world = World(server)
    failures, walked = [], 0
    mine = {"name": world.bot_name, "bot": True}
    for row, routes, rule in table():
        for route in routes:
            if route.startswith("WS "):
                continue  # test_the_live_socket_for_every_viewer
            kept: dict[str, str] = {}
            for viewer in VIEWERS:
                with world.as_viewer(viewer) as http:
                    answer = ask(world, http, route, kept)
                status, want = str(answer.status_code), expected(rule, viewer)
                walked += 1
                where = f"{row}: {route} as {viewer}"
                if want is not None and status != want:
                    failures.append(f"{where}: {status} {answer.text[:80]}, the table says {want}")
                elif want is None and status not in ("200", "201", "303"):
                    failures.append(f"{where}: {status} {answer.text[:80]}, the table allows it")
                elif route == "GET /api/bot/account" and viewer == BOT and answer.json() != mine:
                    failures.append(f"{where}: {answer.json()}")
            if "BOTGAME" in kept:
                world.end(kept["BOTGAME"])
            if "BOTSEEK" in kept:
                world.withdraw(kept["BOTSEEK"])
    assert walked >= 80
    assert not failures, "\n".join(failures)
    with world.as_viewer(BOT) as bot:  # the walk's games are over: none left to play
        assert bot.get("/api/bot/games").json() == {"games": []}
        assert bot.get("/api/bot/seeks").json() == {"seeks": []}
    assert world.player.get("/api/account").json() == {"name": world.player_name}
    world.close()


def test_the_live_socket_for_every_viewer(server: LiveServer) -> None:
    """The bot's token holds its seat on the socket (no secret sent); another bot's
    token, the token as a cookie and none hold no seat; a revoked token is refused."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidStatus

    world = World(server)
    game_id = world.game()
    url = server.url.replace("http://", "ws://") + f"/ws/games/{game_id}"

    async def welcome(viewer: str) -> Any:
        with world.as_viewer(viewer) as http:
            wanted = ("authorization", "x-forwarded-for")
            headers = {k: v for k, v in http.headers.items() if k in wanted}
        if viewer == COOKIE:
            headers["cookie"] = f"{SESSION_COOKIE}={world.token}"
        try:
            async with connect(url, additional_headers=headers, proxy=None) as socket:
                first = await socket.recv()
        except InvalidStatus as refused:
            return refused.response.status_code
        import json

        return json.loads(first)["you"]

    async def everyone() -> dict[str, Any]:
        return {viewer: await welcome(viewer) for viewer in VIEWERS}

    seen = asyncio.run(everyone())
    world.close()
    assert seen == {BOT: [0], OTHER: [], REVOKED: 403, COOKIE: [], NONE: []}


def test_tokens_are_bounded_and_kept_hashed(server: LiveServer) -> None:
    store = Store(url_of(server.db), upgrade=None)
    try:
        bots = BotStore(store)
        account, first = bots.add("tok" + secrets.token_hex(4))
        for _ in range(TOKENS_MOST - 1):
            bots.make_token(account)
        with pytest.raises(RequestError, match=f"has {TOKENS_MOST} tokens: revoke one first"):
            bots.make_token(account)
        with pytest.raises(RequestError, match="is taken: a bot is a new account"):
            bots.add(account.name.upper())
        from sqlalchemy import select

        from boardlab.web.store import BotTokenRow

        with store.reading() as session:
            kept = session.scalars(select(BotTokenRow.key)).all()
        assert first not in kept and all(len(key) == 64 for key in kept)
        assert bots.account_of(first) == account
        assert bots.revoke(account, None) == TOKENS_MOST
        assert bots.account_of(first) is None
    finally:
        store.engine.dispose()


def test_a_bots_requests_are_counted_from_every_address(tmp_path: Path) -> None:
    """A bot's requests share one count (the ``requests`` limit) whatever address
    they come from."""
    live = LiveServer(tmp_path / "limit.db", extra=["--proxy", "127.0.0.1"])
    live.extra += ["--limit", "requests=20"]
    live.start()
    try:
        world_store = Store(url_of(live.db), upgrade=None)
        _account, token = BotStore(world_store).add("counted")
        world_store.engine.dispose()
        statuses = []
        started = time.monotonic()
        with client(live, authorization=f"Bearer {token}") as http:  # one connection: quick
            for _ in range(25):  # each from an address of its own, under its own count
                own = {"x-forwarded-for": next(ADDRESSES)}
                statuses.append(http.get("/api/bot/account", headers=own).status_code)
        took = time.monotonic() - started  # all within the 10 s window, or the count drops
        assert statuses[:20] == [200] * 20, (statuses, took)
        assert set(statuses[20:]) == {429}, (statuses, took)
        with client(live, authorization=f"Bearer {token}") as http:
            refused = http.get("/api/bot/account")
        assert refused.headers["retry-after"] == "10"
        assert "too many requests from this bot: at most 20 in 10 seconds" in refused.text
    finally:
        live.stop()


def test_a_bot_plays_a_bounded_number_of_games(server: LiveServer, monkeypatch: Any) -> None:
    """Past ``BOT_GAMES_MOST`` games not over, a bot's accept is refused (checked here
    through the store's count, as the route asks it)."""
    from boardlab.web import bots as bots_module

    world = World(server)
    for _ in range(2):
        world.game()
    world.close()
    store = Store(url_of(server.db), upgrade=None)
    try:
        monkeypatch.setattr(bots_module, "BOT_GAMES_MOST", 2)
        found = bots_module.BotStore(store).find(world.bot_name)
        with pytest.raises(RequestError, match="plays 2 games at once already"):
            asyncio.run(bots_module.Bots(store, 10).check_room(found))
    finally:
        store.engine.dispose()


def test_the_allow_list_and_the_header() -> None:
    assert allowed("POST", "/api/games/abc/play") and allowed("WS", "/ws/games/abc")
    assert not allowed("POST", "/api/games/abc/undo")
    assert not allowed("GET", "/api/games/abc/play/x") and not allowed("GET", "/lobby")
    assert bearer_of([(b"Authorization", b"Bearer  tok ")]) == "tok"
    assert bearer_of([(b"authorization", b"Bearer")]) == ""
    assert bearer_of([(b"authorization", b"Basic xyz")]) is None  # a proxy's, not ours
    assert bearer_of([(b"cookie", b"a=b")]) is None


def test_malformed_tokens_are_refused_alike(server: LiveServer) -> None:
    """Made-up, oversized, empty and binary tokens: 401 with one sentence, before the
    app; a Basic header (a proxy's) is left to the app (a guest)."""
    for sent in ("Bearer " + "x" * 43, "Bearer " + "y" * 10_000, "Bearer", "bearer \u00ff" * 9):
        with client(server) as http:
            answer = http.get("/api/bot/account", headers={"authorization": sent.encode("latin-1")})
        assert answer.status_code == 401, (sent[:20], answer.text)
        assert answer.json()["error"].startswith("this token acts for no bot")
    with client(server, authorization="Basic dXNlcjpwYXNz") as http:
        assert http.get("/api/bot/account").status_code == 401  # no bot: a guest
        assert http.get("/lobby").status_code == 200


def test_a_bot_is_marked_on_its_profile_and_the_leaderboard(server: LiveServer) -> None:
    from boardlab.web.store import RatingRow

    world = World(server)
    mark = 'class="bot-mark"'
    assert mark in world.player.get(f"/@/{world.bot_name}").text
    assert mark not in world.player.get(f"/@/{world.player_name}").text
    store = Store(url_of(server.db), upgrade=None)
    try:  # a rating sure enough for the leaderboard (rated games would make it so)
        bot = BotStore(store).find(world.bot_name)
        with store.session() as session:
            session.add(
                RatingRow(
                    account_id=bot.id,
                    game=GAME,
                    rating=3999,
                    deviation=50,
                    volatility=0.06,
                    games=40,
                )
            )
    finally:
        store.engine.dispose()
    board = world.player.get(f"/players?game={GAME}").text
    assert f'{mark} title="played by a program">BOT</span> <a href="/@/{world.bot_name}"' in board
    world.close()


def test_the_hosts_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``boardlab bots``: add prints a token that acts for the bot, token another, list
    names their tags, revoke takes one then all; each problem one line."""
    from boardlab.cli import main

    db = f"sqlite:///{tmp_path / 'bots.db'}"
    Store(db).engine.dispose()  # the schema, made

    def bots(*words: str) -> tuple[int, str]:
        code = main(["bots", *words, "--db", db])
        said = capsys.readouterr()
        return code, (said.out + said.err).strip()

    code, first = bots("add", "robo")
    assert code == 0 and len(first) == 43
    code, second = bots("token", "Robo")
    assert code == 0 and second != first
    code, listed = bots("list")
    tags = sorted(tag_of(session_key(token)) for token in (first, second))
    assert code == 0 and listed.split("\t")[0] == "robo"
    assert sorted(listed.split("\t")[1].split()) == tags
    assert bots("revoke", "robo", tags[0]) == (0, "1 token revoked")
    assert bots("revoke", "robo") == (0, "1 token revoked")
    for words, said in (
        (("add", "robo"), "boardlab: the name 'robo' is taken: a bot is a new account"),
        (("token", "nobody"), "boardlab: there is no bot named 'nobody'"),
        (("revoke", "robo", "zz"), "boardlab: robo has no token 'zz': see boardlab bots list"),
        (("add",), "boardlab: boardlab bots add: name the bot, e.g. boardlab bots add NAME"),
        (("offer", "http://x", "wizard"), "boardlab: unknown level 'wizard': choose from"),
        (
            ("offer", "http://x", "hard", "--seek", "chess"),
            "boardlab: bad --seek 'chess': unknown game 'chess' (choose from",
        ),
    ):
        code, output = bots(*words)
        assert code == 2 and output.startswith(said) and "\n" not in output, output
    assert "hard-bot" not in bots("list")[1]  # refused before its bot was made


def test_a_bots_seek_waits_in_the_lobby_and_a_person_takes_it(server: LiveServer) -> None:
    """The bot seeks with its token on a form's terms (checked as a challenge's); the
    lobby marks the seek BOT; a person takes it with one click; its game is then the
    bot's, its clock running, and the seek is gone from the bot's list."""
    world = World(server)
    with world.as_viewer(BOT) as bot:
        for body, words in (
            ({"game": GAME, "range": 150}, "bad range 150: choose 100, 200, 300, 500"),
            ({"game": "chess"}, "unknown game 'chess'"),
            ({"game": "linja", "options": {"nasty": True}, "rated": True}, "default rules"),
            ({"game": GAME, "clock": "0+3"}, "bad time control '0+3'"),
            ({"game": GAME, "side": "east"}, "bad side 'east'"),
        ):
            refused = bot.post("/api/bot/seeks", json=body)
            assert refused.status_code == 400 and words in refused.json()["error"], refused.text
        terms = {"game": GAME, "clock": "3+2", "rated": True, "range": 200, "side": "south"}
        made = bot.post("/api/bot/seeks", json=terms)
        assert made.status_code == 201, made.text
        seek = made.json()
        assert (seek["range"], seek["side"], seek["clock"]) == ([1300, 1700], "south", "3+2")
        assert len(seek.pop("seat")) >= 16
        assert bot.get("/api/bot/seeks").json() == {"seeks": [seek]}  # no secret listed
        assert bot.get("/api/bot/games").json() == {"games": []}  # waiting: not played yet
        lobby = world.player.get(f"/lobby?game={GAME}").text
        assert f'title="played by a program">BOT</span> {world.bot_name}' in lobby
        taken = world.player.post(f"/lobby/{seek['id']}", data={}, follow_redirects=False)
        assert taken.status_code == 303, taken.text
        assert bot.get("/api/bot/seeks").json() == {"seeks": []}
        assert bot.get("/api/bot/games").json() == {"games": [seek["id"]]}
        state = bot.get(f"/api/games/{seek['id']}").json()
        assert state["you"] == [0] and state["you_act"] and state["clock"]["running"] == 0
        world.withdraw(seek["id"])  # not yet begun: aborted
    world.close()


def test_a_bot_keeps_a_bounded_number_of_seeks(server: LiveServer) -> None:
    """At most ``SEEKS_MOST`` open, also when asked for all at once; another bot cannot
    withdraw them; withdrawn, one may be posted again; a bot's games and seeks together
    at most ``BOT_GAMES_MOST`` (a seek or a challenge accepted past them refused)."""
    from concurrent.futures import ThreadPoolExecutor

    from boardlab.web.bots import BOT_GAMES_MOST, SEEKS_MOST

    world = World(server)

    def post(_k: int) -> httpx.Response:
        with world.as_viewer(BOT) as bot:
            return bot.post("/api/bot/seeks", json={"game": GAME})

    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(post, range(6)))
    made = [a.json()["id"] for a in answers if a.status_code == 201]
    refused = [a for a in answers if a.status_code != 201]
    assert len(made) == SEEKS_MOST, [a.text for a in answers]
    for answer in refused:
        assert answer.status_code == 400, answer.text
        assert f"has {SEEKS_MOST} seeks open: cancel one first" in answer.json()["error"]
    with world.as_viewer(OTHER) as other:
        assert other.post(f"/api/games/{made[0]}/abort", json={"ply": 0}).status_code == 403
    with world.as_viewer(REVOKED) as revoked:
        assert revoked.post("/api/bot/seeks", json={"game": GAME}).status_code == 401
    with world.as_viewer(BOT) as bot:
        assert len(bot.get("/api/bot/seeks").json()["seeks"]) == SEEKS_MOST
        world.withdraw(made[0])
        assert post(0).status_code == 201  # room again
        world.withdraw(made[1])  # two seeks open, and games to fill the bound
        games = [world.game() for _ in range(BOT_GAMES_MOST - 2)]
        over = post(0)
        assert over.status_code == 400, over.text
        assert f"plays {BOT_GAMES_MOST} games at once already" in over.json()["error"]
        challenge = world.challenge()
        refused_accept = bot.post(f"/api/challenges/{challenge}/accept", json={})
        assert refused_accept.status_code == 400, refused_accept.text
        for seek in bot.get("/api/bot/seeks").json()["seeks"]:
            world.withdraw(seek["id"])
        for game_id in games:
            world.end(game_id)
        assert bot.get("/api/bot/games").json() == {"games": []}
    world.close()


def short_clock(server: LiveServer, game_id: str, seconds: int) -> None:
    """Give a game not yet loaded by the server a clock of ``seconds`` (the form's
    shortest is a minute: a test waits less)."""
    from boardlab.web.clock import new_clock
    from boardlab.web.store import GameRow

    store = Store(url_of(server.db), upgrade=None)
    try:
        with store.session() as session:
            row = session.get_one(GameRow, game_id)
            row.clock = new_clock(seconds, 0)
    finally:
        store.engine.dispose()


def stored_ending(server: LiveServer, game_id: str, within: float = 30.0) -> Any:
    """The game as stored once it has ended, read from the database (no request to the
    server: its own timer must have ended it)."""
    store = Store(url_of(server.db), upgrade=None)
    try:
        deadline = time.monotonic() + within
        while (stored := store.load(game_id)).ending is None:
            assert time.monotonic() < deadline, "the flag did not fall"
            time.sleep(0.05)
        return stored
    finally:
        store.engine.dispose()


def test_the_clock_of_a_game_played_over_the_api_alone(server: LiveServer) -> None:
    """No page open, no socket: in a bot's seek taken from the lobby the clock runs from
    the seat taken; in a challenge's game (its clock standing until both have come) it
    starts once both players have asked for the game over the API. Each time the flag
    falls on time with nobody asking (the server's timer), for the player to act, and
    both learn it at their next request."""
    world = World(server)
    with world.as_viewer(BOT) as bot:
        seek = bot.post("/api/bot/seeks", json={"game": GAME, "clock": "1+0", "side": "south"})
        game_id = seek.json()["id"]
        short_clock(server, game_id, 2)
        assert world.player.post(f"/lobby/{game_id}", data={}).status_code == 303
        state = bot.get(f"/api/games/{game_id}").json()
        assert state["clock"]["running"] == 0 and state["you_act"]
        ended = stored_ending(server, game_id)  # the bot, to act, never acts
        assert (ended.ending, ended.clock["left"][0], ended.clock["since"]) == ("time", 0, None)
        for http in (bot, world.player):
            outcome = http.get(f"/api/games/{game_id}").json()["outcome"]
            assert (outcome["reason"], outcome["winner"]) == ("time", 1), outcome

        body = {"to": world.bot_name, "game": GAME, "clock": "1+0", "side": "south"}
        made = world.player.post("/api/challenges", json=body).json()
        seat = {"x-boardlab-seat": made["seat"]}
        accepted = bot.post(f"/api/challenges/{made['id']}/accept", json={}).json()
        game_id = accepted["game"]
        short_clock(server, game_id, 2)
        state = bot.get(f"/api/games/{game_id}").json()
        assert state["clock"]["running"] is None  # the player has not come yet
        state = world.player.get(f"/api/games/{game_id}", headers=seat).json()
        deadline = time.monotonic() + 10
        while state["clock"]["running"] is None:  # started beside the request
            assert time.monotonic() < deadline, "the clock did not start"
            state = world.player.get(f"/api/games/{game_id}", headers=seat).json()
        assert state["you_act"] and state["clock"]["running"] == 0
        ended = stored_ending(server, game_id)  # the person, to act, never acts
        assert (ended.ending, ended.clock["left"][0]) == ("time", 0)
        outcome = bot.get(f"/api/games/{game_id}").json()["outcome"]
        assert (outcome["reason"], outcome["winner"]) == ("time", 1), outcome
    world.close()


def test_a_player_who_plays_over_the_api_keeps_the_win_from_being_claimed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A player with no page open who asks for the game over the API is away only from
    their last request: the other cannot claim the win from them while they keep
    asking, and can once they have not asked for ``CLAIM_SECONDS`` (here one)."""
    from boardlab.web import rooms
    from boardlab.web.data import HUMAN, NewGame, key_of, new_secret
    from web_support import client as app_client

    monkeypatch.setattr(rooms, "CLAIM_SECONDS", 1)
    db = tmp_path / "games.sqlite3"
    store = Store(url_of(db))
    person, program = new_secret(), new_secret()
    keys = [key_of(person), key_of(program)]
    game_id = store.create(NewGame(GAME, {}, [HUMAN, HUMAN], "x", seat_keys=keys))
    store.engine.dispose()
    with app_client(db) as http:

        def claim() -> Any:
            seat = {"x-boardlab-seat": person}
            return http.post(f"/api/games/{game_id}/claim", json={"ply": 0}, headers=seat)

        http.get(f"/api/games/{game_id}")  # the room loaded: both away from now
        time.sleep(1.2)
        assert http.get(f"/api/games/{game_id}", headers={"x-boardlab-seat": program}).is_success
        refused = claim()  # the program asked a moment ago
        assert refused.status_code == 400, refused.text[:200]
        assert "may be claimed after 1 s" in refused.json()["error"]
        time.sleep(1.2)  # it asks no more
        won = claim().json()
    assert (won["outcome"]["winner"], won["outcome"]["reason"]) == (0, "abandoned")
