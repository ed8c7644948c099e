"""``boardlab connect``'s client (boardlab.connect): its settings checked, the engine's
command and move time, and a game played to its end over the live socket with a seat's
secret, through a server that restarts mid-game."""

from __future__ import annotations

import asyncio
import random
import re
import shlex
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from optional import need

need("fastapi")

from boardlab.connect import (  # noqa: E402
    ConnectError,
    Settings,
    check_settings,
    engine_command,
    move_time,
    play_one,
)
from web_support import LiveServer  # noqa: E402

ENGINE = f"{shlex.quote(sys.executable)} -m boardlab engine --agent random"


@pytest.mark.parametrize(
    ("url", "token", "engine", "games", "accept", "words"),
    [
        ("localhost:8000", "t", "e", 1, None, "bad server address 'localhost:8000'"),
        ("ftp://host", "t", "e", 1, None, "expected one like http://localhost:8000"),
        ("http://host", " ", "e", 1, None, "the token is empty"),
        ("http://host", "a b", "e", 1, None, "has spaces"),
        ("http://host", "t", " ", 1, None, "bad engine ' '"),
        ("http://host", "t", "'open", 1, None, "bad engine"),
        ("http://host", "t", "e", 0, None, "bad --games 0: choose a number from 1 to 8"),
        ("http://host", "t", "e", 1, ["chess"], "unknown game 'chess' in --accept"),
    ],
)
def test_bad_settings_are_one_line(
    url: str, token: str, engine: str, games: int, accept: list[str] | None, words: str
) -> None:
    with pytest.raises(ConnectError, match=words.replace("(", r"\(")) as refused:
        check_settings(url, token, engine, games, accept)
    assert "\n" not in str(refused.value)


def test_settings_checked() -> None:
    settings = check_settings("http://host:8/base/", " tok ", "eng", 2, ["linja", ""])
    assert (settings.url, settings.token, settings.games) == ("http://host:8/base", "tok", 2)
    assert settings.accept == frozenset({"linja"})


def test_engine_command_takes_the_game() -> None:
    assert engine_command("boardlab engine --agent hard", "linja") == (
        "boardlab engine --agent hard linja"
    )
    assert engine_command("./eng --game {game} -q", "linja") == "./eng --game linja -q"


def test_move_time_from_the_clock() -> None:
    assert move_time({"clock": None}, 0, 0.5) == 0.5
    clock = {"clock": {"left": [60_000, 1_000], "increment": 2}}
    assert move_time(clock, 0, 9) == pytest.approx((2000 + 2000 - 100) / 1000)
    # a clock nearly gone: never past what is left (less the margin), never below 50 ms
    assert move_time(clock, 1, 9) == pytest.approx((1000 - 300 - 100) / 1000)
    assert move_time({"clock": {"left": [100, 100], "increment": 0}}, 0, 9) == 0.05


def test_a_bad_address_is_one_line(tmp_path: Path) -> None:
    from boardlab.connect import Bot

    port = LiveServer(tmp_path / "none.db").port  # nothing listens there
    bot = Bot(check_settings(f"http://127.0.0.1:{port}", "t", "e"), print)
    with pytest.raises(ConnectError, match=r"cannot reach http://127\.0\.0\.1:\d+"):
        asyncio.run(bot.sign_in())


def new_ai_game(url: str) -> tuple[str, str]:
    """A Jin Li game against the beginner, made by the form: its id and seat secret."""
    form = b"opponent=beginner&seat=0&stones=5&target=5"

    class Keep(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any) -> None:
            return None

    opener = urllib.request.build_opener(Keep)
    try:
        opener.open(urllib.request.Request(f"{url}/new/jinli", form, method="POST"))
        raise AssertionError("the form did not redirect")
    except urllib.error.HTTPError as answer:
        assert answer.code == 303
        game_id = str(answer.headers["location"]).rsplit("/", 1)[1]
        cookies = answer.headers.get_all("set-cookie")
    seat = next(c for c in cookies if c.startswith(f"seat-{game_id}="))
    return game_id, seat.split("=", 1)[1].split(";", 1)[0]


def state_of(url: str, game_id: str) -> dict[str, Any]:
    import json

    with urllib.request.urlopen(f"{url}/api/games/{game_id}") as answer:
        found: dict[str, Any] = json.loads(answer.read())
        return found


def test_a_game_played_to_its_end_through_a_restart(tmp_path: Path) -> None:
    """The client plays its seat with the seat's secret; the server is stopped after the
    client's first action and started again: the client opens the socket again and
    plays on to the end. A bad token's socket is refused, and the client says so once."""
    server = LiveServer(tmp_path / "games.db")
    server.start()
    said: list[str] = []
    try:
        game_id, seat = new_ai_game(server.url)
        from boardlab.connect import Bot

        stranger = Bot(Settings(server.url, "x" * 43, ENGINE), print)
        with pytest.raises(ConnectError, match="does not take this token: this token acts for no"):
            asyncio.run(stranger.sign_in())  # the server's own words
        refused: list[str] = []  # a token that is no bot's: its socket refused, once
        asyncio.run(play_one(Settings(server.url, "x" * 43, ENGINE), game_id, seat, refused.append))
        assert refused == [f"game {game_id}: the server refused its socket (HTTP 403)"]
        settings = Settings(server.url, "", ENGINE, movetime=0.05)  # the seat's secret only
        gate = threading.Event()

        def say(line: str) -> None:
            said.append(line)

        def run() -> None:
            asyncio.run(play_one(settings, game_id, seat, say))
            gate.set()

        player = threading.Thread(target=run, daemon=True)
        player.start()
        deadline = time.monotonic() + 30
        while state_of(server.url, game_id)["ply"] < 1:
            assert time.monotonic() < deadline, said
            time.sleep(0.05)
        server.stop()
        time.sleep(0.5)
        server.start()
        assert gate.wait(60), said
        state = state_of(server.url, game_id)
    finally:
        server.stop()
    assert state["outcome"] is not None and state["outcome"]["reason"] == "target", said
    assert f"game {game_id}: the connection dropped; opening it again" in said
    assert said[-1].startswith(f"game {game_id} is over: "), said
    assert state["ply"] > 2


def engines_of(parent: int) -> list[int]:
    """The processes ``parent`` started (a client's engines)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == parent:
            found.append(int(stat.parent.name))
    return found


def test_a_bot_connected_plays_a_rated_game_to_its_end(tmp_path: Path) -> None:
    """The proof of issue #34: a bot account with a token; ``boardlab connect`` with
    ``boardlab engine`` (random) as its engine, accepting one game; a person's challenge
    to another game is declined with the reason; their rated challenge is accepted and
    played through the API. Ctrl-C mid-game ends the client and its engine cleanly; the
    client started again picks the game up (the token holds the bot's seat) and plays it
    to the end; both ratings move and the record carries them."""
    import signal
    import subprocess

    import httpx2 as httpx

    from boardlab.web.bots import BotStore
    from boardlab.web.store import Store
    from web_support import alive_process, url_of

    # the game whose games under its default rules are shortest: the test's pace
    game, other = "galatjang", "linja"
    server = LiveServer(tmp_path / "games.db")
    server.start()
    clients: list[subprocess.Popen[bytes]] = []

    def connected() -> subprocess.Popen[bytes]:
        command = [sys.executable, "-m", "boardlab", "connect", server.url, "--token", token]
        clients.append(
            subprocess.Popen(
                [*command, "--engine", ENGINE, "--accept", game],
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                # A test run started in the background (`make test &`) ignores SIGINT,
                # and the client would inherit that: it hears Ctrl-C as in a terminal.
                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
            )
        )
        return clients[-1]

    def stopped(client: subprocess.Popen[bytes], how: int = signal.SIGINT) -> str:
        """The client's output once stopped by Ctrl-C (130, one line), or as a service
        is (SIGTERM: 0, nothing said)."""
        client.send_signal(how)
        output = client.communicate(timeout=60)[0].decode()  # generous: a loaded machine
        assert "Traceback" not in output, output
        if how == signal.SIGINT:
            assert client.returncode == 130, output
            assert output.rstrip().endswith("boardlab: interrupted"), output
        else:
            assert client.returncode == 0, output
        return output

    try:
        store = Store(url_of(server.db), upgrade=None)
        _bot, token = BotStore(store).add("robo")
        store.engine.dispose()
        first = connected()
        with httpx.Client(base_url=server.url, timeout=30) as person:
            signed = person.post("/api/account/signup", json={"name": "ana", "password": "p" * 8})
            assert signed.status_code == 200, signed.text
            refused = person.post("/api/challenges", json={"to": "robo", "game": other})
            body = {"to": "robo", "game": game, "rated": True, "side": "south"}
            made = person.post("/api/challenges", json=body)
            assert made.status_code == 201, made.text
            seat = {"x-boardlab-seat": made.json()["seat"]}
            deadline = time.monotonic() + 30
            asked = f"/api/challenges/{made.json()['id']}"
            while not (game_id := person.get(asked).json().get("game_id")):
                assert time.monotonic() < deadline, "the bot did not accept"
                time.sleep(0.1)
            while (declined := person.get(f"/api/challenges/{refused.json()['id']}").json())[
                "status"
            ] == "open":  # answered in the same look as the other, maybe after it
                assert time.monotonic() < deadline, "the bot did not decline"
                time.sleep(0.05)
            assert declined["status"] == "declined", declined
            assert declined["reason"] == f"this bot does not play {other}"
            rng, restarted = random.Random(7), None
            while (state := person.get(f"/api/games/{game_id}", headers=seat).json())[
                "outcome"
            ] is None:
                assert time.monotonic() < deadline + 60, "the game did not end"
                if restarted is None and state["ply"] >= 2:  # the bot has played: Ctrl-C
                    engines = engines_of(first.pid)
                    assert engines, "the game's engine runs beside the client"
                    output = stopped(first)
                    assert not any(alive_process(pid) for pid in engines), "an engine stayed"
                    restarted = connected()
                if state["you_act"]:
                    action = rng.choice(state["legal"])["action"]
                    body = {"ply": state["ply"], "action": action}
                    person.post(f"/api/games/{game_id}/play", json=body, headers=seat)
                else:
                    time.sleep(0.02)
            record = person.get(f"/api/games/{game_id}/record.txt").text
        assert restarted is not None
        output = stopped(restarted, signal.SIGTERM)
    finally:
        for client in clients:
            if client.poll() is None:
                client.kill()
                client.communicate()  # reaped here, not reported by a later test
        server.stop()
    assert f"game {game_id} is over" in output  # the second client's end of the game
    diffs = re.findall(r'\[\w+RatingDiff "([+-]?\d+)"\]', record)
    assert len(diffs) == 2 and len(re.findall(r'\[\w+Rating "1500\?"\]', record)) == 2
    if state["outcome"]["winner"] is not None:  # a win moves both, opposite ways
        assert int(diffs[0]) == -int(diffs[1]) != 0


SILENT_ENGINE = """
import sys
for line in sys.stdin:  # ready at once, then thinks for ever
    word = line.split()[0] if line.split() else ""
    if word == "ugi":
        print("id name silent", "ugiok", sep="\\n", flush=True)
    elif word == "isready":
        print("readyok", flush=True)
    elif word == "quit":
        break
"""


@pytest.mark.parametrize("started", [False, True], ids=["starting", "searching"])
def test_a_game_stopped_mid_search_ends_its_engine(tmp_path: Path, started: bool) -> None:
    """A game's task cancelled (Ctrl-C) while its engine thinks for ten minutes: closing
    it kills the search, also one whose thread is still starting the program, waits
    for the thread, and leaves no engine running, nothing sent and nothing unseen."""
    import gc
    import os

    import boardlab
    from boardlab.connect import Bot, Table
    from web_support import alive_process

    script = tmp_path / "silent.py"
    script.write_text(SILENT_ENGINE)
    engine = f"{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    bot = Bot(Settings("http://host", "t", engine, movetime=600.0), lambda line: None)
    game = boardlab.new_game("galatjang")
    start = game.initial().position_string()
    state: dict[str, Any] = {"game": game.id, "position": start, "ply": 0, "to_act": 0}
    sent: list[str] = []
    unseen: list[dict[str, Any]] = []  # what asyncio reports: a fault never retrieved

    async def send(text: str) -> None:
        sent.append(text)

    async def scene() -> Table:
        asyncio.get_running_loop().set_exception_handler(lambda _loop, got: unseen.append(got))
        table = Table("g1", None, you=[0])
        turn = asyncio.create_task(bot.turn(table, state, send))
        await asyncio.sleep(0)
        while started and not (table.engine and table.engine.name):  # its handshake done
            await asyncio.sleep(0.01)
        turn.cancel()
        with pytest.raises(asyncio.CancelledError):
            await turn
        await bot.close(table)
        return table

    before = set(engines_of(os.getpid()))
    table = asyncio.run(asyncio.wait_for(scene(), 120))  # (a hang guard, not a pace)
    assert table.thinking is not None and table.thinking.done()
    assert table.engine is None and sent == []
    started_here = set(engines_of(os.getpid())) - before
    assert not any(alive_process(pid) for pid in started_here), "an engine runs on"
    del table
    gc.collect()
    assert unseen == []


def test_the_win_is_claimed_from_an_opponent_who_left() -> None:
    """The server says when the win may be claimed (``claim_from``): the bot claims it
    then, and again while the opponent stays away, its early claims' refusals unsaid;
    the opponent back, it stops."""
    from boardlab.connect import Bot, Table

    said: list[str] = []
    bot = Bot(Settings("http://host", "t", "e"), said.append)
    sent: list[dict[str, Any]] = []

    async def send(text: str) -> None:
        import json

        sent.append(json.loads(text))

    async def scene() -> None:
        table = Table("g1", None, you=[1], ply=7)
        soon = time.time() * 1000 + 50
        await bot.hear(table, {"type": "status", "claim_from": [soon, None]}, send)
        await asyncio.sleep(0.3)
        assert sent == [{"type": "claim", "id": 1, "ply": 7}]
        await bot.hear(table, {"type": "error", "id": 1, "status": 400, "message": "x"}, send)
        assert said == []  # a claim refused as too early is not news
        await bot.hear(table, {"type": "status", "claim_from": [None, None]}, send)  # back
        assert table.claiming is None
        mine = Table("g2", None, you=[1])  # its own absence is not the opponent's
        await bot.hear(mine, {"type": "status", "claim_from": [None, soon]}, send)
        assert mine.claiming is None

    asyncio.run(scene())


def test_challenges_are_answered_within_the_bots_bounds() -> None:
    """A challenge to a game the bot does not play, or with options its game refuses,
    is declined with why; one it plays waits while the bot plays ``--games`` games."""
    from boardlab.connect import Bot

    asked: list[tuple[str, str, Any]] = []

    async def call(method: str, path: str, body: Any = None, seat: Any = None) -> Any:
        asked.append((method, path, body))
        return {"game": "new1", "seat": None}

    bot = Bot(check_settings("http://host", "t", "e", 1, ["linja"]), lambda line: None)
    bot.call = call  # type: ignore[method-assign]
    bot.tasks["busy"] = None  # type: ignore[assignment]  # one game, and room for one

    async def scene() -> None:
        await bot.answer({"id": "c1", "game": "jinli", "options": {}})
        await bot.answer({"id": "c2", "game": "linja", "options": {"nonsense": 1}})
        await bot.answer({"id": "c3", "game": "linja", "options": {}})

    asyncio.run(scene())
    assert [a[1] for a in asked] == ["/api/challenges/c1/decline", "/api/challenges/c2/decline"]
    assert asked[0][2] == {"reason": "this bot does not play jinli"}
    assert asked[1][2]["reason"].startswith("this bot does not play these options: ")


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("", "it is empty"),
        ("chess", "unknown game 'chess' (choose from"),
        ("linja clock=5", "bad clock '5': expected MINUTES+SECONDS such as 5+3"),
        ("linja range=wide", "bad range 'wide'"),
        ("linja side=east", "bad side 'east': choose south, north, random"),
        ("linja fast", "'fast' is not NAME=VALUE, rated or casual"),
        ("linja nonsense=1", "unknown option 'nonsense'"),
    ],
)
def test_bad_seeks_are_one_line(spec: str, words: str) -> None:
    with pytest.raises(ConnectError, match=re.escape(words)) as refused:
        check_settings("http://host", "t", "e", 1, None, [spec])
    said = str(refused.value)
    assert said.startswith(f"bad --seek {spec!r}: ") and "\n" not in said
    assert said.endswith(
        "write GAME [NAME=VALUE...] [clock=MINUTES+SECONDS] [rated|casual] [range=N] [side=SIDE]"
    )


def test_a_seek_in_the_words_of_the_form() -> None:
    (seek,) = check_settings(
        "http://host", "t", "e", 1, None, ["galatjang pits=5 clock=3+2 rated"]
    ).seeks
    assert seek.body() == {
        "game": "galatjang",
        "options": {"pits": "5"},
        "clock": "3+2",
        "rated": True,
        "range": None,
        "side": "random",
    }
    (plain,) = check_settings("http://h", "t", "e", 1, None, ["linja range=200 side=north"]).seeks
    assert (plain.options, plain.range, plain.side, plain.rated) == ((), 200, "north", False)
    assert seek.matches(
        {"game": "galatjang", "options": {"pits": 5}, "clock": "3+2", "rated": True}
    )
    assert not seek.matches({"game": "galatjang", "options": {}, "clock": "3+2", "rated": True})


def test_seeks_are_kept_open_within_the_room() -> None:
    """Each seek posted while the bot has room (games and open seeks at most
    ``--games``); the newest withdrawn when a challenge accepted fills the room; a
    first refusal of a seek stops the client (a bad seek), a later one is said once."""
    from boardlab.connect import BadSeek, Bot, Refused

    asked: list[tuple[str, str]] = []
    refusal: list[Refused] = []

    async def call(method: str, path: str, body: Any = None, seat: Any = None) -> Any:
        asked.append((method, path))
        if refusal:
            raise refusal[0]
        return {"id": f"s{len(asked)}"}

    said: list[str] = []
    seeks = ["linja", "galatjang clock=3+2"]
    bot = Bot(check_settings("http://host", "t", "e", 2, None, seeks), said.append)
    bot.call = call  # type: ignore[method-assign]
    asyncio.run(bot.keep_seeks())
    assert bot.seeking == ["s1", "s2"] and asked == [("POST", "/api/bot/seeks")] * 2
    bot.tasks["g1"] = None  # type: ignore[assignment]  # a challenge accepted
    asyncio.run(bot.keep_seeks())
    assert bot.seeking == ["s1", None] and asked[-1] == ("POST", "/api/games/s2/abort")
    refusal.append(Refused(400, "robo plays 8 games at once already"))
    del bot.tasks["g1"]
    for _ in range(2):  # the second seek has been posted before: its refusal said once
        asyncio.run(bot.keep_seeks())
    assert said.count("seek 'galatjang clock=3+2': robo plays 8 games at once already") == 1
    fresh = Bot(check_settings("http://host", "t", "e", 1, None, seeks), said.append)
    fresh.call = call  # type: ignore[method-assign]
    with pytest.raises(BadSeek, match="bad --seek 'linja': robo plays 8"):
        asyncio.run(fresh.keep_seeks())


def test_a_bot_seeks_and_plays_the_game_of_its_seek(tmp_path: Path) -> None:
    """``boardlab connect --seek``: a seek the server refuses stops the client in one
    line; a bot that may play one game at once keeps one seek open in the lobby (marked
    BOT), a person takes it with one click and plays it to its end against ``boardlab
    engine``; the bot seeks again once the game is over, and withdraws its seek when
    stopped (SIGTERM)."""
    import signal
    import subprocess

    import httpx2 as httpx

    from boardlab.web.bots import BotStore
    from boardlab.web.store import Store
    from web_support import url_of

    server = LiveServer(tmp_path / "games.db")
    server.start()
    client: subprocess.Popen[bytes] | None = None
    try:
        store = Store(url_of(server.db), upgrade=None)
        _bot, token = BotStore(store).add("seeker")
        store.engine.dispose()
        command = [sys.executable, "-m", "boardlab", "connect", server.url, "--token", token]
        command += ["--engine", ENGINE]
        bad = subprocess.run(
            [*command, "--seek", "galatjang pits=3 rated"], capture_output=True, timeout=60
        )
        assert bad.returncode == 2, bad
        assert bad.stderr.decode().splitlines()[-1] == (
            "boardlab: bad --seek 'galatjang pits=3 rated': only a game under the default "
            "rules is rated: leave the options at their defaults, or ask for a casual game"
        )
        client = subprocess.Popen(
            [*command, "--seek", "galatjang", "--seek", "linja clock=5+3"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        robot = {"authorization": f"Bearer {token}"}
        with httpx.Client(base_url=server.url, timeout=30) as person:

            def seeks() -> list[dict[str, Any]]:
                found: list[dict[str, Any]] = person.get("/api/bot/seeks", headers=robot).json()[
                    "seeks"
                ]
                return found

            deadline = time.monotonic() + 60
            while not (open_now := seeks()):
                assert time.monotonic() < deadline, "the bot did not seek"
                time.sleep(0.1)
            assert [s["game"] for s in open_now] == ["galatjang"]  # room for one game only
            game_id = open_now[0]["id"]
            assert "BOT</span> seeker" in person.get("/lobby").text
            assert person.post(f"/lobby/{game_id}", data={}).status_code == 303
            rng = random.Random(3)
            while (state := person.get(f"/api/games/{game_id}").json())["outcome"] is None:
                assert time.monotonic() < deadline + 60, "the game did not end"
                assert seeks() == []  # its one place is taken by the game
                if state["you_act"]:
                    action = rng.choice(state["legal"])["action"]
                    person.post(
                        f"/api/games/{game_id}/play", json={"ply": state["ply"], "action": action}
                    )
                else:
                    time.sleep(0.02)
            while not (again := seeks()):
                assert time.monotonic() < deadline + 90, "the bot did not seek again"
                time.sleep(0.1)
            assert again[0]["game"] == "galatjang" and again[0]["id"] != game_id
            client.send_signal(signal.SIGTERM)
            output = client.communicate(timeout=30)[0].decode()
            assert client.returncode == 0, output
            assert seeks() == []  # withdrawn on the way out
    finally:
        if client is not None and client.poll() is None:
            client.kill()
            client.communicate()
        server.stop()
    assert "Traceback" not in output
    assert f"seeking in the lobby: galatjang (game {game_id})" in output
    assert f"game {game_id} is over: " in output
    assert state["ply"] > 2


def test_a_server_that_takes_no_seeks_stops_a_seeking_client() -> None:
    """A server before bots' seeks refuses their route (403): the client told to seek
    stops in one line; one that cannot be reached a moment is tried again."""
    from boardlab.connect import BadSeek, Bot, Refused

    async def refusing(method: str, path: str, body: Any = None, seat: Any = None) -> Any:
        raise Refused(403, "a bot's token acts only on the bot API")

    async def away(method: str, path: str, body: Any = None, seat: Any = None) -> Any:
        raise ConnectError("cannot reach http://host: refused")

    said: list[str] = []
    bot = Bot(check_settings("http://host", "t", "e", 1, None, ["linja"]), said.append)
    bot.call = away  # type: ignore[method-assign]
    asyncio.run(bot.look())
    assert said[0] == "the server refused: cannot reach http://host: refused"
    bot.call = refusing  # type: ignore[method-assign]
    with pytest.raises(BadSeek, match="http://host takes no seeks from bots: a bot's token"):
        asyncio.run(bot.look())
