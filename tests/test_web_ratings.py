"""Rated games between accounts, on SQLite and PostgreSQL: the seats held by accounts,
both Glicko-2 ratings moved by the end as glicko.py computes them, the record's headers
carrying them, an unrated game (an option changed) moving nothing, a guest refused from
a rated seat, and the profile and leaderboard showing the ratings."""

from __future__ import annotations

import re
from typing import Any

import pytest

import boardlab
from optional import need

need("fastapi")

from sqlalchemy import select  # noqa: E402

from boardlab.puzzles.glicko import Rating, bounded, update  # noqa: E402
from boardlab.web.app import create_app  # noqa: E402
from boardlab.web.data import NewGame  # noqa: E402
from boardlab.web.store import RatingHistoryRow, RatingRow  # noqa: E402
from web_support import SMALL, TESTING, browsers  # noqa: E402

PASSWORD = "correct horse"


def sign_up(http: Any, name: str) -> None:
    answer = http.post("/api/account/signup", json={"name": name, "password": PASSWORD})
    assert answer.status_code == 200, answer.text


def online_game(http: Any, rated: bool = True, **options: str) -> str:
    """A game online made by the form, its checkboxes sent as the form shows them."""
    ticked = {o.name: "true" for o in boardlab.new_game("galatjang").schema if o.default is True}
    form = {"opponent": "online", "seat": "0", **ticked, **options}
    if rated:
        form["rated"] = "true"
    answer = http.post("/new/galatjang", data=form, follow_redirects=False)
    assert answer.status_code == 303, answer.text
    return str(answer.headers["location"]).rsplit("/", 1)[1]


def join(http: Any, creator: Any, game_id: str) -> Any:
    page = creator.get(f"/play/{game_id}").text
    found = re.search(r'id="invitation-link" readonly value="([^"]+)"', page)
    assert found, "the creator's page shows the invitation"
    return http.post(found.group(1).split("testserver", 1)[1], follow_redirects=False)


def resign(http: Any, game_id: str) -> Any:
    ply = http.get(f"/api/games/{game_id}").json()["ply"]
    answer = http.post(f"/api/games/{game_id}/resign", json={"ply": ply})
    assert answer.status_code == 200, answer.text
    return answer.json()


def ratings(app: Any) -> dict[int, tuple[float, float, float, int]]:
    with app.state.site.store.reading() as session:
        return {
            row.account_id: (row.rating, row.deviation, row.volatility, row.games)
            for row in session.scalars(select(RatingRow))
        }


@pytest.fixture
def app(database: str) -> Any:
    return create_app(database, workers=1, limits=TESTING)


def test_a_rated_game_moves_both_ratings_as_glicko_2_says(app: Any) -> None:
    with browsers(app, 3) as (ana, ben, guest):
        sign_up(ana, "Ana")
        sign_up(ben, "Ben")
        game_id = online_game(ana)
        refused = join(guest, ana, game_id)  # a guest may not take a rated seat
        assert refused.status_code == 400
        assert "rated" in refused.text and "sign in" in refused.text
        assert join(ben, ana, game_id).status_code == 303
        stored = app.state.site.store.load(game_id)
        assert stored.rated and None not in stored.accounts
        assert stored.accounts[0] != stored.accounts[1]
        assert game_id in {g["id"] for g in ben.get("/api/account/games").json()}
        assert ratings(app) == {}  # nothing moves before the end
        resign(ben, game_id)  # Ben (seat 1) resigns: Ana wins

        won = bounded(update(Rating(), [(Rating(), 1.0)]))
        lost = bounded(update(Rating(), [(Rating(), 0.0)]))
        ana_id, ben_id = stored.accounts
        found = ratings(app)
        assert found[ana_id] == pytest.approx((won.rating, won.deviation, won.volatility, 1))
        assert found[ben_id] == pytest.approx((lost.rating, lost.deviation, lost.volatility, 1))
        assert round(won.rating) == 1662 and round(lost.rating) == 1338
        with app.state.site.store.reading() as session:
            history = session.scalars(select(RatingHistoryRow)).all()
        assert sorted((h.account_id, round(h.rating)) for h in history) == sorted(
            [(ana_id, 1662), (ben_id, 1338)]
        )

        record = ana.get(f"/api/games/{game_id}/record.txt").text
        assert '[SouthRating "1500?"]' in record and '[NorthRating "1500?"]' in record
        assert '[SouthRatingDiff "+162"]' in record and '[NorthRatingDiff "-162"]' in record

        profile = guest.get("/@/ana")
        assert profile.status_code == 200
        assert "1662?" in profile.text and "<svg" in profile.text
        assert f"/review/{game_id}" in profile.text
        # provisional ratings (deviation above 110) stay off the leaderboard
        board = guest.get("/players?game=galatjang")
        assert board.status_code == 200 and "/@/Ana" not in board.text


def test_an_unrated_game_moves_nothing(app: Any) -> None:
    with browsers(app, 2) as (ana, ben):
        sign_up(ana, "Ana")
        sign_up(ben, "Ben")
        game_id = online_game(ana, **SMALL["galatjang"])  # rated asked, options changed
        assert join(ben, ana, game_id).status_code == 303
        stored = app.state.site.store.load(game_id)
        assert not stored.rated and None not in stored.accounts
        resign(ben, game_id)
        assert ratings(app) == {}
        assert "Rating" not in ana.get(f"/api/games/{game_id}/record.txt").text


def test_an_aborted_rated_game_moves_nothing(app: Any) -> None:
    with browsers(app, 2) as (ana, ben):
        sign_up(ana, "Ana")
        sign_up(ben, "Ben")
        game_id = online_game(ana)
        assert join(ben, ana, game_id).status_code == 303
        ply = ana.get(f"/api/games/{game_id}").json()["ply"]
        answer = ana.post(f"/api/games/{game_id}/abort", json={"ply": ply})
        assert answer.status_code == 200, answer.text
        assert ratings(app) == {}


def test_the_leaderboard_lists_settled_ratings_best_first(app: Any) -> None:
    with browsers(app, 3) as (ana, ben, guest):
        sign_up(ana, "Ana")
        sign_up(ben, "Ben")
        for _ in range(2):
            game_id = online_game(ana)
            assert join(ben, ana, game_id).status_code == 303
            resign(ben, game_id)
        with app.state.site.store.session() as session:  # as after many games
            for row in session.scalars(select(RatingRow)):
                row.deviation = 100.0 if row.rating > 1500 else 111.0
        board = guest.get("/players?game=galatjang").text
        assert '<a href="/@/Ana">Ana</a>' in board  # settled: listed
        assert "/@/Ben" not in board  # provisional: not listed
        profile = guest.get("/@/BEN").text  # any case
        assert "Ben" in profile and "?" in profile
        assert profile.count("<circle") == 2  # one point a rated game
        assert guest.get("/@/nobody").status_code == 404


def test_the_migration_keeps_every_game_and_its_actions(database: str) -> None:
    """0008 adds columns to ``games`` in place: a copied table would have taken every
    game's actions with it (ON DELETE CASCADE)."""
    from alembic import command
    from sqlalchemy import inspect

    from boardlab.web.store import Store, alembic_config, schema_of

    old = Store(database, upgrade=None)
    with old.engine.begin() as connection:
        config = alembic_config()
        config.attributes["connection"] = connection
        command.upgrade(config, "0007")
    game = old.create(NewGame("galatjang", {"pits": 3, "seeds": 2}, ["human", "human"], "me"))
    old.append(game, 0, "s1", "*")
    old.close()
    store = Store(database)
    try:
        assert schema_of(store.engine)[0] >= "0008"
        assert {"ratings", "rating_history"} <= set(inspect(store.engine).get_table_names())
        stored = store.load(game)
        assert stored.actions == ("s1",)
        assert (stored.rated, stored.accounts) == (False, (None, None))
    finally:
        store.close()


def test_pages_speak_german_and_the_form_offers_rated_only_when_signed_in(app: Any) -> None:
    with browsers(app, 2) as (ana, guest):
        assert 'name="rated"' not in guest.get("/new/galatjang").text
        sign_up(ana, "Ana")
        form = ana.get("/new/galatjang").text
        assert 'name="rated"' in form and "default rules" in form
        german = {"accept-language": "de"}
        assert "Bestenliste" in guest.get("/players", headers=german).text
        profile = guest.get("/@/Ana", headers=german).text
        assert "Wertungen" in profile and "Noch keine gewerteten Partien." in profile


def test_a_rated_game_the_rules_end_moves_the_ratings_with_its_last_action(
    database: str,
) -> None:
    """The group commit's path: the action that ends the game and the ratings are one
    transaction (``store.rate_end`` on the driver's cursor)."""
    from boardlab.web.store import AccountRow, Store

    store = Store(database)
    try:
        with store.session() as session:
            session.add_all([AccountRow(name=n, key=n.lower(), password="x") for n in "AB"])
        with store.reading() as session:
            a, b = session.scalars(select(AccountRow.id).order_by(AccountRow.id)).all()
        kind = "galatjang"
        rated = store.create(
            NewGame(kind, {}, ["human", "human"], "me", accounts=[a, b], rated=True)
        )
        draw = store.create(
            NewGame(kind, {}, ["human", "human"], "me", accounts=[a, b], rated=True)
        )
        store.append(rated, 0, "s1", "*")
        assert ratings_of(store) == {}
        store.append(rated, 1, "n1", boardlab.new_game(kind).players[1])  # North wins
        store.append(draw, 0, "s1", "draw")
        first = [bounded(update(Rating(), [(Rating(), s)])) for s in (0.0, 1.0)]
        second = [bounded(update(first[k], [(first[1 - k], 0.5)])) for k in (0, 1)]
        found = ratings_of(store)
        for k, account in enumerate((a, b)):
            want = second[k]
            assert found[account] == pytest.approx(
                (want.rating, want.deviation, want.volatility, 2)
            )
        assert store.load(rated).headers == {
            "SouthRating": "1500?",
            "SouthRatingDiff": "-162",
            "NorthRating": "1500?",
            "NorthRatingDiff": "+162",
        }
    finally:
        store.close()


def ratings_of(store: Any) -> dict[int, tuple[float, float, float, int]]:
    with store.reading() as session:
        return {
            row.account_id: (row.rating, row.deviation, row.volatility, row.games)
            for row in session.scalars(select(RatingRow))
        }


def test_a_rated_games_rematch_is_rated_between_the_same_accounts(app: Any) -> None:
    with browsers(app, 2) as (ana, ben):
        sign_up(ana, "Ana")
        sign_up(ben, "Ben")
        game_id = online_game(ana)
        assert join(ben, ana, game_id).status_code == 303
        resign(ben, game_id)
        answer = ben.post(f"/api/games/{game_id}/rematch")
        assert answer.status_code == 200, answer.text
        first, again = (app.state.site.store.load(g) for g in (game_id, answer.json()["id"]))
        assert again.rated and again.accounts == (first.accounts[1], first.accounts[0])
        for http in (ana, ben):  # each player's games hold it, whoever asked for it
            assert again.id in {g["id"] for g in http.get("/api/account/games").json()}
        assert ana.post(f"/rematch/{game_id}", follow_redirects=False).status_code == 303
        resign(ana, again.id)  # Ana, now North, resigns: Ben wins this one
        assert {games for *_, games in ratings(app).values()} == {2}
        deleted = ben.post("/api/account/delete", json={"password": PASSWORD})
        assert deleted.status_code == 200, deleted.text
        assert app.state.site.store.load(again.id).accounts == (None, first.accounts[0])
        assert set(ratings(app)) == {first.accounts[0]}  # Ben's ratings went with him


def test_the_lobby_says_which_games_are_rated(app: Any) -> None:
    with browsers(app, 2) as (ana, guest):
        sign_up(ana, "Ana")
        rated = online_game(ana, lobby="true")
        unrated = online_game(ana, rated=False, lobby="true")
        rows = {
            found.group(1): found.group(0)
            for found in re.finditer(
                r"<tr>(?:(?!</tr>).)*?/lobby/([\w-]+)(?:(?!</tr>).)*</tr>",
                guest.get("/lobby").text,
                re.S,
            )
        }
        assert "signed-in players only" in rows[rated]
        assert "signed-in players only" not in rows[unrated]
        refused = guest.post(f"/lobby/{rated}", follow_redirects=False)
        assert refused.status_code == 400 and "sign in" in refused.text
