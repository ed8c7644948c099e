"""Finding a game, on SQLite and PostgreSQL: challenges from one account to another
(made, listed, accepted into a game online whose seats both accounts hold, the
challenger's seat reaching the challenger's browser alone; declined, cancelled, expired,
bounded, and every bad request refused with why), seeks in the lobby with a rating range
(taken only within it, never by a guest), the lobby filtered by game, and a profile's
games in pages."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

import boardlab
from optional import need

need("fastapi")

from sqlalchemy import update  # noqa: E402

from boardlab.web.app import create_app  # noqa: E402
from boardlab.web.challenges import COOKIE, MOST_OPEN  # noqa: E402
from boardlab.web.store import ChallengeRow, RatingRow  # noqa: E402
from web_support import TESTING, browsers  # noqa: E402

PASSWORD = "correct horse"
CROSS_SITE = {"origin": "http://evil.example", "sec-fetch-site": "cross-site"}


@pytest.fixture
def app(database: str) -> Any:
    return create_app(database, workers=1, limits=TESTING)


def sign_up(http: Any, name: str) -> None:
    answer = http.post("/api/account/signup", json={"name": name, "password": PASSWORD})
    assert answer.status_code == 200, answer.text


def challenge(http: Any, to: str, **terms: Any) -> Any:
    return http.post("/api/challenges", json={"to": to, "game": "galatjang", **terms})


def seat_cookie(http: Any, game_id: str) -> str | None:
    return http.cookies.get(f"seat-{game_id}")


def test_a_challenge_accepted_is_a_game_whose_seats_both_accounts_hold(app: Any) -> None:
    with browsers(app, 3) as (ana, ben, cy):
        for http, name in ((ana, "Ana"), (ben, "Ben"), (cy, "Cyd")):
            sign_up(http, name)
        made = challenge(ana, "ben", clock="5+3", rated=True, side="north")
        assert made.status_code == 201, made.text
        sent = made.json()
        cid, secret = sent["id"], sent["seat"]
        assert (sent["from"], sent["to"], sent["status"], sent["side"]) == (
            "Ana",
            "Ben",
            "open",
            "north",
        )
        assert sent["clock"] == "5+3" and sent["rated"] is True
        listed = ben.get("/api/challenges").json()
        assert [c["id"] for c in listed["in"]] == [cid] and listed["out"] == []
        assert "seat" not in listed["in"][0]  # the secret went to its challenger alone
        assert ana.get("/api/challenges").json()["out"][0]["status"] == "open"
        assert cy.get(f"/api/challenges/{cid}").status_code == 404  # not Cy's to see
        assert cy.post(f"/api/challenges/{cid}/accept").status_code == 404  # nor to take
        assert "Ana" in ben.get("/lobby").text  # the challenged sees it in the lobby too

        accepted = ben.post(f"/api/challenges/{cid}/accept")
        assert accepted.status_code == 200, accepted.text
        game_id = accepted.json()["game"]
        assert accepted.json()["url"] == f"/play/{game_id}"
        assert seat_cookie(ben, game_id) == accepted.json()["seat"]
        stored = app.state.site.store.load(game_id)
        assert stored.rated and stored.open_seat is None and not stored.listed
        assert stored.names == ("Ben", "Ana")  # Ana plays north, as she asked
        assert stored.clock is not None and stored.clock["since"] is None  # until both come
        assert ben.get(f"/api/games/{game_id}").json()["you"] == [0]

        # Cy, and Ben, with Ana's challenge cookie copied, are given no seat
        for other in (cy, ben):
            other.cookies.set(f"{COOKIE}-{cid}", secret)
            other.get(f"/api/challenges/{cid}")
            assert other.get(f"/api/games/{game_id}").json()["you"] in ([], [0])
        # Ana's browser, which made the challenge, holds her seat once it learns the game
        seen = ana.get(f"/api/challenges/{cid}").json()
        assert seen["status"] == "accepted" and seen["game_id"] == game_id
        assert seat_cookie(ana, game_id) == secret
        assert ana.get(f"/api/games/{game_id}").json()["you"] == [1]
        page = ana.get(f"/challenges/{cid}", follow_redirects=False)
        assert page.status_code == 303 and page.headers["location"] == f"/play/{game_id}"
        # a program holds it by the secret it was given with the challenge
        with browsers(app, 1) as (program,):
            head = {"x-boardlab-seat": secret}
            assert program.get(f"/api/games/{game_id}", headers=head).json()["you"] == [1]
        again = ben.post(f"/api/challenges/{cid}/accept")
        assert again.status_code == 400 and "accepted already" in again.json()["error"]
        assert game_id in ana.get("/api/account/games").text


def test_challenges_refused_with_why(app: Any) -> None:
    with browsers(app, 3) as (ana, ben, guest):
        sign_up(ana, "Ana")
        sign_up(ben, "Ben")
        assert challenge(guest, "Ana").status_code == 401
        assert guest.get("/api/challenges").status_code == 401
        for terms, words in (
            ({"to": "Ana"}, "yourself"),
            ({"to": "nobody-here"}, "no player named 'nobody-here'"),
            ({"to": "Ben", "game": "chess"}, "unknown game 'chess'"),
            ({"to": "Ben", "options": {"pits": 99}}, "pits"),
            ({"to": "Ben", "options": {"nosuch": 1}}, "nosuch"),
            ({"to": "Ben", "options": {"pits": 3}, "rated": True}, "default rules"),
            ({"to": "Ben", "clock": "5 minutes"}, "'5 minutes'"),
            ({"to": "Ben", "side": "east"}, "'east'"),
        ):
            answer = ana.post("/api/challenges", json={"game": "galatjang", **terms})
            assert answer.status_code == 400, (terms, answer.text)
            assert words in answer.json()["error"], (terms, answer.json())
        for body in ({"to": "Ben", "game": "galatjang", "admin": True}, {"to": 3, "game": "x"}):
            assert ana.post("/api/challenges", json=body).status_code == 422
        assert ana.post("/api/challenges", content=b"{not json").status_code == 422
        forged = ana.post(  # another site's page, the victim's cookie sent along
            "/api/challenges", json={"to": "Ben", "game": "galatjang"}, headers=CROSS_SITE
        )
        assert forged.status_code == 403 and "another site" in forged.text
        assert ana.get("/api/challenges").json() == {"in": [], "out": []}  # nothing made

        declined, cancelled, expired = (challenge(ana, "Ben").json()["id"] for _ in range(3))
        assert ana.post(f"/api/challenges/{declined}/accept").status_code == 403
        forged = ben.post(f"/api/challenges/{declined}/accept", headers=CROSS_SITE)
        assert forged.status_code == 403 and "another site" in forged.text
        assert ana.post(f"/api/challenges/{declined}/decline").status_code == 403
        assert ben.post(f"/api/challenges/{cancelled}/cancel").status_code == 403
        long = ben.post(f"/api/challenges/{declined}/decline", json={"reason": "x" * 201})
        assert long.status_code == 400 and "200" in long.json()["error"]
        no = ben.post(f"/api/challenges/{declined}/decline", json={"reason": "not now, sorry"})
        assert no.status_code == 200
        assert ana.post(f"/api/challenges/{cancelled}/cancel").status_code == 200
        with app.state.site.store.session() as session:
            past = datetime.now(UTC) - timedelta(seconds=1)
            session.execute(
                update(ChallengeRow).where(ChallengeRow.id == expired).values(expires=past)
            )
        for cid, words in ((declined, "declined"), (cancelled, "cancelled"), (expired, "expired")):
            answer = ben.post(f"/api/challenges/{cid}/accept")
            assert answer.status_code == 400 and words in answer.json()["error"], answer.text
        out = {c["id"]: c for c in ana.get("/api/challenges").json()["out"]}
        assert out[declined]["status"] == "declined"
        assert out[declined]["reason"] == "not now, sorry"
        assert out[expired]["status"] == "expired"
        assert ben.get("/api/challenges").json()["in"] == []

        for _ in range(MOST_OPEN):  # a flood: bounded per challenger
            assert challenge(ana, "Ben").status_code == 201
        flood = challenge(ana, "Ben")
        assert flood.status_code == 400 and "open challenges" in flood.json()["error"]
        sign_up(guest, "Cyd")  # and per challenged, whoever asks
        late = challenge(guest, "Ben")
        assert late.status_code == 400 and "Ben has" in late.json()["error"]
        assert len(ben.get("/api/challenges").json()["in"]) == MOST_OPEN


def lobby_game(http: Any, **form: str) -> Any:
    ticked = {o.name: "true" for o in boardlab.new_game("galatjang").schema if o.default is True}
    sent = {"opponent": "online", "seat": "0", "lobby": "true", **ticked, **form}
    return http.post("/new/galatjang", data=sent, follow_redirects=False)


def test_a_seek_with_a_rating_range_is_taken_only_within_it(app: Any) -> None:
    with browsers(app, 4) as (ana, ben, cy, guest):
        for http, name in ((ana, "Ana"), (ben, "Ben"), (cy, "Cyd")):
            sign_up(http, name)
        refused = lobby_game(guest, range="200")
        assert refused.status_code == 400 and "sign in" in refused.text
        for bad in ("250", "-1", "99999"):
            answer = lobby_game(ana, range=bad)
            assert answer.status_code == 400 and f"bad rating range &#39;{bad}&#39;" in answer.text
        made = lobby_game(ana, range="200", clock="3+2")
        assert made.status_code == 303, made.text
        game_id = made.headers["location"].rsplit("/", 1)[1]
        assert app.state.site.store.load(game_id).rating_range == (1300, 1700)
        with app.state.site.store.session() as session:  # Cy rated above the range
            cy_account = app.state.site.accounts.store.find("Cyd")[0].id
            session.add(
                RatingRow(
                    account_id=cy_account,
                    game="galatjang",
                    rating=1800.0,
                    deviation=60.0,
                    volatility=0.06,
                    games=30,
                )
            )
        page = cy.get("/lobby").text
        assert "1300 to 1700" in page and "Ana" in page and "(1500?)" in page
        assert "yours is 1800" in page and "3 minutes + 2 seconds" in page
        assert re.search(r"<button type=\"submit\" disabled aria-describedby=\"why-", page)
        assert "sign in" in guest.get("/lobby").text
        for http, words in ((guest, "sign in"), (cy, "your rating at this game is 1800")):
            answer = http.post(f"/lobby/{game_id}", follow_redirects=False)
            assert answer.status_code == 400 and words in answer.text, answer.text
        assert app.state.site.store.load(game_id).open_seat == 1  # still open
        assert "1300 to 1700" in ana.get("/lobby?game=galatjang").text  # filtered by game
        assert "1300 to 1700" not in ana.get("/lobby?game=linja").text
        taken = ben.post(f"/lobby/{game_id}", follow_redirects=False)
        assert taken.status_code == 303, taken.text
        assert app.state.site.store.load(game_id).accounts[1] is not None


def test_a_profile_pages_its_games_and_offers_a_challenge(app: Any) -> None:
    with browsers(app, 2) as (ana, ben):
        sign_up(ana, "Ana")
        sign_up(ben, "Ben")
        for _ in range(21):
            assert lobby_game(ana).status_code == 303
        first = ben.get("/@/ana").text
        assert first.count("/review/") == 20 and 'href="/@/Ana?page=2"' in first
        assert 'href="/new/galatjang?to=Ana"' in first  # Ben may challenge Ana
        second = ben.get("/@/Ana?page=2").text
        assert second.count("/review/") == 1 and "?page=2" not in second.split("rel=")[-1]
        assert "to=Ana" not in ana.get("/@/Ana").text  # not oneself
        form = ben.get("/new/galatjang?to=Ana").text
        assert 'value="challenge" selected' in form and 'value="Ana"' in form
        made = ben.post(
            "/new/galatjang",
            data={"opponent": "challenge", "to": "Ana", "seat": "random", "clock": "5+3"},
            follow_redirects=False,
        )
        assert made.status_code == 303 and made.headers["location"].startswith("/challenges/")
        assert "Ben" in ana.get("/challenges").text


def test_a_server_without_a_database_keeps_no_challenges() -> None:
    app = create_app("memory:", workers=1, limits=TESTING)
    with browsers(app, 1) as (guest,):
        assert guest.get("/lobby?game=jinli").status_code == 200
        assert guest.get("/challenges", follow_redirects=False).status_code == 303
        refused = challenge(guest, "Ana")  # said so, as signing up is
        assert refused.status_code == 400 and "keeps no accounts" in refused.json()["error"]
