"""Accounts through the API, on SQLite and PostgreSQL: signing up, in and out, the
rules of names and passwords, sessions kept hashed and rotated, a guest's games moving
to the account and seen from another browser, a changed password ending the other
sessions, a deleted account leaving its games with its name replaced, the migration,
and the hashing kept off the event loop and bounded."""

from __future__ import annotations

import asyncio
import hashlib
import threading
from typing import Any

import pytest

from optional import need

need("fastapi")

from fastapi.testclient import TestClient  # noqa: E402
from sqlalchemy import inspect, select, text  # noqa: E402

from boardlab.web.accounts import SESSION_COOKIE, Hasher  # noqa: E402
from boardlab.web.app import create_app  # noqa: E402
from boardlab.web.data import NewGame  # noqa: E402
from boardlab.web.store import AccountRow, SessionRow, Store, alembic_config, schema_of  # noqa: E402
from web_support import TESTING, browsers, new_game  # noqa: E402

PASSWORD = "correct horse"


def sign_up(http: Any, name: str = "Ana", password: str = PASSWORD) -> Any:
    return http.post("/api/account/signup", json={"name": name, "password": password})


def sign_in(http: Any, name: str = "Ana", password: str = PASSWORD) -> Any:
    return http.post("/api/account/signin", json={"name": name, "password": password})


def plant(http: Any, token: str) -> None:
    """Make the browser send ``token`` as its session id (an attacker's, a stolen one)."""
    http.cookies.set(SESSION_COOKIE, token, domain=http.base_url.host + ".local")


def session_id(http: Any) -> str:
    (token,) = [c.value for c in http.cookies.jar if c.name == SESSION_COOKIE]
    return str(token)


def games_of(http: Any) -> set[str]:
    answer = http.get("/api/account/games")
    assert answer.status_code == 200, answer.text
    return {game["id"] for game in answer.json()}


def test_a_guests_games_move_to_the_account_and_are_seen_from_another_browser(
    database: str,
) -> None:
    app = create_app(database, workers=1, limits=TESTING)
    with browsers(app, 2) as (home, away):
        made = new_game(home, "galatjang")  # a guest's game on one screen
        assert made in home.get("/games").text
        assert home.get("/api/account").status_code == 401

        answer = sign_up(home)
        assert answer.status_code == 200, answer.text
        assert answer.json() == {"name": "Ana"}
        assert home.get("/api/account").json() == {"name": "Ana"}
        assert games_of(home) == {made}
        later = new_game(home, "jinli")  # made signed in: the account's at once
        assert games_of(home) == {made, later}

        assert made not in away.get("/games").text  # another browser, a guest
        guest = new_game(away, "linja")
        assert sign_in(away, "ANA").status_code == 200  # any case
        assert games_of(away) == {made, later, guest}  # the guest's game moved too
        page = away.get("/games").text
        assert made in page and later in page and guest in page
        assert "Ana" in page and "Sign out" in page  # the header names the player

        # the seats are still held by their secrets: the other browser watches only
        state = away.get(f"/api/games/{made}").json()
        assert state["you"] == []
        assert home.get(f"/api/games/{made}").json()["you"] == [0, 1]


def test_names_and_passwords_are_refused_in_words_that_say_what_is_valid(database: str) -> None:
    app = create_app(database, workers=1, limits=TESTING)
    with TestClient(app) as http:
        for name, quoted in (("ab", "'ab'"), ("has space", "'has space'"), ("_x1", "'_x1'")):
            answer = sign_up(http, name)
            assert answer.status_code == 400
            message = answer.json()["error"]
            assert quoted in message and "3 to 20 letters" in message, message
        answer = sign_up(http, "Bo" * 11)
        assert answer.status_code == 400 and "'" + "Bo" * 11 + "'" in answer.json()["error"]
        short = sign_up(http, "Bea", "seven77")
        assert short.status_code == 400
        assert "7 characters" in short.json()["error"] and "at least 8" in short.json()["error"]
        assert "seven77" not in short.json()["error"]  # a password is never quoted
        long = sign_up(http, "Bea", "ä" * 129)  # 129 characters, 258 bytes
        assert long.status_code == 400 and "258 bytes" in long.json()["error"]
        assert http.get("/api/account").status_code == 401  # nothing was made

        assert sign_up(http, "Bea-2_x").status_code == 200
        taken = sign_up(http, "bEA-2_X")
        assert taken.status_code == 400
        assert "'bEA-2_X' is taken" in taken.json()["error"]


def test_a_name_no_account_can_have_finds_nobody_on_any_database(database: str) -> None:
    """The API fuzz's find: a sign-in name with a NUL was a server error on PostgreSQL,
    which refuses NUL in text. Such a name, a challenge to it and its profile find
    nobody, as an unknown name does."""
    app = create_app(database, workers=1, limits=TESTING)
    with TestClient(app) as http:
        assert sign_up(http).status_code == 200
        for name in ("An\x00a", "m$\u0090UJ\x13N", "Ana" * 10):
            answer = sign_in(http, name)
            assert answer.status_code == 401, (name, answer.text)
            assert "do not sign in" in answer.json()["error"]
            body = {"to": name, "game": "linja", "rated": False, "side": "south"}
            challenged = http.post("/api/challenges", json=body)
            assert challenged.status_code == 400, (name, challenged.text)
            assert "there is no player named" in challenged.json()["error"]
        assert http.get("/@/An%00a").status_code == 404
        assert sign_in(http).status_code == 200


def test_sessions_are_stored_hashed_rotated_on_sign_in_and_ended_by_sign_out(
    database: str,
) -> None:
    app = create_app(database, workers=1, limits=TESTING)
    store = Store(database)
    try:
        with browsers(app, 2) as (first, second):
            # a session id planted before the sign-in is not kept (fixation)
            plant(first, "planted-by-an-attacker-0123456789")
            sign_up(first)
            token = session_id(first)
            assert token != "planted-by-an-attacker-0123456789"
            plant(second, "planted-by-an-attacker-0123456789")
            assert second.get("/api/account").status_code == 401

            with store.reading() as session:
                (row,) = session.scalars(select(SessionRow)).all()
                hashed = session.scalar(select(AccountRow.password))
            assert row.key == hashlib.sha256(token.encode()).hexdigest() != token
            assert hashed is not None and hashed.startswith("$argon2id$")
            assert PASSWORD not in hashed

            # signing in again makes a new id and ends the one the browser held
            assert sign_in(first).status_code == 200
            again = session_id(first)
            assert again != token
            plant(second, token)
            assert second.get("/api/account").status_code == 401
            plant(second, again)  # a stolen live id works...
            assert second.get("/api/account").status_code == 200
            assert first.post("/api/account/signout").status_code == 200
            assert second.get("/api/account").status_code == 401  # ...until signed out
            with store.reading() as session:
                assert session.scalars(select(SessionRow)).all() == []
    finally:
        store.close()


def test_a_changed_password_ends_every_other_session(database: str) -> None:
    app = create_app(database, workers=1, limits=TESTING)
    with browsers(app, 3) as (here, there, elsewhere):
        sign_up(here)
        sign_in(there)
        sign_in(elsewhere)
        wrong = here.post(
            "/api/account/password", json={"password": "not it at all", "new_password": "x" * 9}
        )
        assert wrong.status_code == 401
        short = here.post("/api/account/password", json={"password": PASSWORD, "new_password": "x"})
        assert short.status_code == 400 and "at least 8" in short.json()["error"]
        assert there.get("/api/account").status_code == 200  # nothing changed yet

        answer = here.post(
            "/api/account/password", json={"password": PASSWORD, "new_password": "battery staple"}
        )
        assert answer.status_code == 200, answer.text
        assert here.get("/api/account").json() == {"name": "Ana"}
        assert there.get("/api/account").status_code == 401
        assert elsewhere.get("/api/account").status_code == 401
        assert sign_in(there).status_code == 401
        assert sign_in(there, password="battery staple").status_code == 200


def test_a_deleted_account_leaves_its_games_under_a_neutral_name(database: str) -> None:
    app = create_app(database, workers=1, limits=TESTING)
    with browsers(app, 2) as (ana, other):
        sign_up(ana)
        form = {"opponent": "online", "seat": "0", "name": "Ana", "pits": "3", "seeds": "2"}
        made = ana.post("/new/galatjang", data=form, follow_redirects=False)
        game_id = made.headers["location"].rsplit("/", 1)[1]
        sign_in(other)
        assert ana.post("/api/account/delete", json={"password": "wrong one"}).status_code == 401
        assert ana.get("/api/account").status_code == 200

        assert ana.post("/api/account/delete", json={"password": PASSWORD}).status_code == 200
        assert ana.get("/api/account").status_code == 401
        assert other.get("/api/account").status_code == 401  # every session ended
        assert sign_in(other).status_code == 401

        # a fresh app reads the game from the database (a loaded room keeps what it read)
    with TestClient(create_app(database, workers=1, limits=TESTING)) as fresh:
        state = fresh.get(f"/api/games/{game_id}").json()
        assert state["seats"][0]["player"] == "deleted player"
        german = fresh.get(f"/api/games/{game_id}", headers={"accept-language": "de"}).json()
        assert german["seats"][0]["player"] == "gelöschter Spieler"
        record = fresh.get(f"/api/games/{game_id}/record.txt").text
        assert "deleted player" in record and "Ana" not in record
        assert sign_up(fresh).status_code == 200  # the name is free again
        assert games_of(fresh) == set()


def test_the_migration_adds_the_account_tables_to_a_database_with_games(database: str) -> None:
    from alembic import command

    def to(engine: Any, revision: str, way: Any = command.upgrade) -> None:
        with engine.begin() as connection:
            config = alembic_config()
            config.attributes["connection"] = connection
            way(config, revision)

    old = Store(database, upgrade=None)
    to(old.engine, "0006")
    game = old.create(
        NewGame("galatjang", {"pits": 3, "seeds": 2}, ["human", "human"], "browser-1")
    )
    assert not inspect(old.engine).has_table("accounts")
    old.close()
    store = Store(database)  # upgraded as it opens
    try:
        current, newest = schema_of(store.engine)
        assert current == newest >= "0007"
        names = set(inspect(store.engine).get_table_names())
        assert {"accounts", "sessions", "account_games"} <= names
        assert store.load(game).owner == "browser-1"
        to(store.engine, "0006", command.downgrade)
        assert not inspect(store.engine).has_table("sessions")
        with store.engine.connect() as connection:  # the models are of the newest schema
            owner = connection.execute(text("SELECT owner FROM games WHERE id = :id"), {"id": game})
            assert owner.scalar_one() == "browser-1"
        to(store.engine, "head")
        assert store.load(game).owner == "browser-1"
    finally:
        store.close()


def test_hashing_runs_beside_the_event_loop_a_few_at_a_time() -> None:
    """Eight passwords checked at once: never more than two hashing, and the loop turns
    meanwhile (a tick every few ms: argon2 on the loop would hold it ~70 ms a hash)."""
    hasher = Hasher(at_once=2)

    async def run() -> tuple[list[bool], int]:
        hashed = await hasher.hash(PASSWORD)
        ticks, done = 0, threading.Event()

        async def tick() -> None:
            nonlocal ticks
            while not done.is_set():
                ticks += 1
                await asyncio.sleep(0)

        ticking = asyncio.create_task(tick())
        answers = await asyncio.gather(
            *(hasher.verify(hashed, PASSWORD if k % 2 else "wrong") for k in range(8))
        )
        done.set()
        await ticking
        return answers, ticks

    answers, ticks = asyncio.run(run())
    assert answers == [bool(k % 2) for k in range(8)]
    assert hasher.most_running == 2
    assert ticks > 100, ticks  # the loop turned while the hashes ran


@pytest.mark.parametrize("unknown", [False, True])
def test_an_unknown_name_costs_a_hash_as_a_known_one_does(unknown: bool) -> None:
    """No name is told by the time of its refusal: the dummy hash is checked."""
    hasher = Hasher()
    calls: list[str] = []

    class Counted:
        """The argon2 hasher, each hash it checks against noted."""

        def __init__(self, real: Any) -> None:
            self.real = real

        def hash(self, password: str) -> str:
            return str(self.real.hash(password))

        def verify(self, hashed: str, password: str) -> bool:
            calls.append(hashed)
            return bool(self.real.verify(hashed, password))

    async def run() -> bool:
        hashed = await hasher.hash(PASSWORD)
        hasher._hasher = Counted(hasher._argon2())
        return await hasher.verify(None if unknown else hashed, "wrong password")

    assert asyncio.run(run()) is False
    assert len(calls) == 1 and calls[0].startswith("$argon2id$")
