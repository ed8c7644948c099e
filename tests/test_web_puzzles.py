"""The puzzles' API: a puzzle near a rating, by id, of the day, each as its shipped file
has it (tree, themes, rating) with the engine's view of its position; filters and
excludes; a player's new rating after an attempt, equal to Glicko-2's; why a wrong answer
is wrong, with the solver's values (or, where the solver does not reach, as Linja's
without its table, the tree's best). Games that ship no puzzles are answered in words;
the tests that need a game's puzzles skip when its file is missing, those that need
the solver's values of them when its table is not built here."""

from __future__ import annotations

import datetime
import json
import os
import random
import re
from pathlib import Path
from typing import Any

import pytest

import boardlab
from boardlab.core.registry import game_class
from boardlab.puzzles import glicko
from boardlab.puzzles.make import why_not
from boardlab.puzzles.pick import pick_near
from boardlab.puzzles.puzzle import Puzzle, read_puzzles, shipped_path
from boardlab.solve import exact_values, solver_class_or_none
from boardlab.web import positions
from boardlab.web import puzzles as web_puzzles
from web_support import client

SHIPPED = {
    g: read_puzzles(shipped_path(game_class(g)))
    for g in boardlab.game_ids()
    if shipped_path(game_class(g)).exists()
}
WITH = sorted(SHIPPED)
WITHOUT = sorted(set(boardlab.game_ids()) - set(SHIPPED))
#: The games whose shipped puzzles the solver proves here (Linja's need its table).
PROVABLE = [g for g in WITH if why_not(boardlab.new_game(g)) is None]
#: The game the tests that need one game's puzzles use: one proven here, if any.
FIRST = (PROVABLE or WITH or [""])[0]
#: The games whose solver needs a table (Linja): without it ``why`` says the tree's best.
TABLED = [
    g for g in WITH if getattr(solver_class_or_none(boardlab.new_game(g)), "needs_table", False)
]
needs_puzzles = pytest.mark.skipif(not WITH, reason="no game ships puzzles yet")
needs_proof = pytest.mark.skipif(
    not PROVABLE, reason="no game's shipped puzzles are proven here (no solver or table)"
)


@pytest.fixture(scope="module")
def http(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with client(tmp_path_factory.mktemp("puzzles") / "games.sqlite3") as test_client:
        yield test_client


def by_id(puzzle_id: str) -> Puzzle:
    (found,) = [p for ps in SHIPPED.values() for p in ps if p.id == puzzle_id]
    return found


def assert_as_shipped(answer: dict[str, Any]) -> None:
    """The answer says what the file says, and shows the position as the engine does."""
    puzzle = by_id(answer["id"])
    assert answer["tree"] == puzzle.tree.to_json()
    assert answer["rating"] == puzzle.rating and answer["position"] == puzzle.position
    assert [t["id"] for t in answer["themes"]] == list(puzzle.themes)
    assert all(t["words"] for t in answer["themes"])
    position = puzzle.new_game().from_position_string(puzzle.position)
    assert answer["start"] == positions.view(position)
    assert answer["player"] == puzzle.player == position.to_act
    assert position.game.player_name(puzzle.player) in answer["task"]


@needs_puzzles
@pytest.mark.parametrize("game", WITH)
def test_next_is_a_shipped_puzzle_of_the_game_near_the_rating(http: Any, game: str) -> None:
    for rating in (600, 1500, 2500):
        answer = http.get("/api/puzzles/next", params={"game": game, "rating": rating})
        assert answer.status_code == 200, answer.text
        found = answer.json()
        assert found["game"] == game
        assert_as_shipped(found)
        nearest = sorted(abs(p.rating - rating) for p in SHIPPED[game])
        assert abs(found["rating"] - rating) <= nearest[web_puzzles.NEAREST - 1]


@needs_puzzles
def test_the_theme_filter_and_the_excludes(http: Any) -> None:
    game = FIRST
    theme = sorted({t for p in SHIPPED[game] for t in p.themes})[0]
    for _try in range(5):
        found = http.get("/api/puzzles/next", params={"game": game, "theme": theme}).json()
        assert theme in [t["id"] for t in found["themes"]]
    near = sorted(SHIPPED[game], key=lambda p: (abs(p.rating - 1500), p.id))
    excluded = [p.id for p in near[: web_puzzles.MOST_EXCLUDED]]
    for _try in range(5):
        found = http.get(
            "/api/puzzles/next", params={"game": game, "rating": 1500, "exclude": excluded}
        ).json()
        assert found["id"] not in excluded
    too_many = http.get("/api/puzzles/next", params={"exclude": [str(k) for k in range(51)]})
    assert too_many.status_code == 422
    unknown = http.get("/api/puzzles/next", params={"game": game, "theme": "no-such-theme"})
    assert unknown.status_code == 404 and "no-such-theme" in unknown.json()["error"]
    bad_game = http.get("/api/puzzles/next", params={"game": "chess"})
    assert bad_game.status_code == 404 and "chess" in bad_game.json()["error"]


@pytest.mark.parametrize("game", boardlab.game_ids())
def test_a_game_without_puzzles_says_so(
    http: Any, game: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As a game added without a puzzle file (each game ships one today: it is taken
    out of the server's catalogue here)."""
    shipped = web_puzzles.catalogue()
    without = {g: found for g, found in shipped.items() if g != game}
    monkeypatch.setattr(web_puzzles, "catalogue", lambda: without)
    answer = http.get("/api/puzzles/next", params={"game": game})
    assert answer.status_code == 404
    assert game_class(game).name in answer.json()["error"]


@needs_puzzles
def test_one_puzzle_by_id_and_the_daily_puzzle(http: Any) -> None:
    puzzle = SHIPPED[FIRST][0]
    answer = http.get(f"/api/puzzles/{puzzle.id}")
    assert answer.status_code == 200
    assert_as_shipped(answer.json())
    assert http.get("/api/puzzles/nope-123").status_code == 404
    before = datetime.datetime.now(datetime.UTC).date().isoformat()
    daily = http.get("/api/puzzles/daily").json()
    again = http.get("/api/puzzles/daily").json()
    after = datetime.datetime.now(datetime.UTC).date().isoformat()
    assert_as_shipped(daily)
    assert daily["day"] in {before, after}  # a run may cross midnight
    assert again["id"] == daily["id"] or again["day"] != daily["day"]
    days = {web_puzzles.daily(datetime.date(2026, 1, d))["id"] for d in range(1, 11)}
    assert len(days) > 1
    for path in ("/puzzles", f"/puzzles/{puzzle.id}", "/puzzles/daily"):
        page = http.get(path)
        assert page.status_code == 200 and 'id="puzzle"' in page.text


def first_of(puzzle: Puzzle) -> glicko.Rating:
    """A puzzle's rating before any attempt: its first difficulty, deviation 80."""
    return glicko.Rating(puzzle.rating, web_puzzles.PUZZLE_DEVIATION, 0.06)


@needs_puzzles
def test_an_attempt_gives_glickos_new_ratings_and_refuses_a_bad_one(http: Any) -> None:
    """The browser's first attempt rates the player against the puzzle's first rating
    and moves the puzzle; its second rates the player against the moved puzzle and
    leaves it."""
    puzzle = SHIPPED[FIRST][1]
    http.get("/puzzles")  # the page gives the browser its cookie
    player = glicko.Rating(1432.5, 120.0, 0.061)
    standing = first_of(puzzle)
    for solved, counted in ((True, True), (False, False)):
        answer = http.post(
            f"/api/puzzles/{puzzle.id}/attempt",
            json={"rating": player.to_dict(), "solved": solved},
        )
        assert answer.status_code == 200, answer.text
        expected, moved = glicko.attempt(player, standing, solved)
        found = answer.json()
        assert found["rating"] == pytest.approx(expected.to_dict())
        assert found["change"] == round(expected.rating) - round(player.rating)
        assert found["puzzle"]["counted"] is counted
        assert found["puzzle"]["before"] == round(standing.rating)
        if counted:
            assert moved.rating != standing.rating
            standing = moved
        assert found["puzzle"]["rating"] == round(standing.rating)
        assert http.get(f"/api/puzzles/{puzzle.id}").json()["rating"] == round(standing.rating)
    for bad in ({"rating": "x"}, {"rating": 1500, "deviation": -1, "volatility": 0.06}, [1]):
        refused = http.post(
            f"/api/puzzles/{puzzle.id}/attempt", json={"rating": bad, "solved": True}
        )
        assert refused.status_code == 400, refused.text
        with pytest.raises(glicko.RatingError) as error:
            glicko.Rating.from_dict(bad)  # type: ignore[arg-type]
        assert refused.json()["error"] == str(error.value)
    not_bool = http.post(
        f"/api/puzzles/{puzzle.id}/attempt", json={"rating": player.to_dict(), "solved": "yes"}
    )
    assert not_bool.status_code == 422
    unknown = http.post(
        "/api/puzzles/nope-1/attempt", json={"rating": player.to_dict(), "solved": True}
    )
    assert unknown.status_code == 404


def stored_rating(database: str, puzzle_id: str) -> glicko.Rating | None:
    """The puzzle's rating as the database keeps it (a Store of its own, as another
    process would read it)."""
    from boardlab.web.store import Store

    store = Store(database)
    try:
        return store.puzzle_ratings().get(puzzle_id)
    finally:
        store.close()


@needs_puzzles
def test_each_browsers_first_attempt_moves_the_puzzle_and_it_is_kept(database: str) -> None:
    """On SQLite and PostgreSQL: a browser's first attempt moves the stored rating by
    Glicko-2's update, its second does not, another browser's does; a request without
    the browser's cookie does not (and gets one); the rating is kept across a restart
    of the app, and ``next``, ``daily`` and the puzzle's own answer give it."""
    from boardlab.web.app import create_app
    from web_support import TESTING, browsers

    puzzle = SHIPPED[FIRST][0]
    one, two = glicko.Rating(1700, 90, 0.06), glicko.Rating(1100, 200, 0.07)

    def attempt(http: Any, player: glicko.Rating, solved: bool) -> dict[str, Any]:
        answer = http.post(
            f"/api/puzzles/{puzzle.id}/attempt", json={"rating": player.to_dict(), "solved": solved}
        )
        assert answer.status_code == 200, answer.text
        found: dict[str, Any] = answer.json()
        return found

    assert stored_rating(database, puzzle.id) is None  # made by its first attempt
    with browsers(create_app(database, workers=1, limits=TESTING), 3) as (first, second, bare):
        for http in (first, second):
            assert http.get("/puzzles").status_code == 200  # the page gives the cookie
        after_one = glicko.attempt(one, first_of(puzzle), True)[1]
        assert attempt(first, one, True)["puzzle"]["counted"]
        kept = stored_rating(database, puzzle.id)
        assert kept is not None and kept.to_dict() == pytest.approx(after_one.to_dict())

        again = attempt(first, one, False)  # the same browser again: the player only
        assert not again["puzzle"]["counted"]
        assert again["rating"] == pytest.approx(glicko.attempt(one, after_one, False)[0].to_dict())
        assert stored_rating(database, puzzle.id) == kept

        after_two = glicko.attempt(two, after_one, False)[1]  # another browser: it moves
        assert attempt(second, two, False)["puzzle"]["counted"]
        kept = stored_rating(database, puzzle.id)
        assert kept is not None and kept.to_dict() == pytest.approx(after_two.to_dict())

        unknown = bare.post(
            f"/api/puzzles/{puzzle.id}/attempt", json={"rating": one.to_dict(), "solved": True}
        )
        assert unknown.status_code == 200 and not unknown.json()["puzzle"]["counted"]
        assert "boardlab_browser" in unknown.headers.get("set-cookie", "")
        assert stored_rating(database, puzzle.id) == kept
        assert attempt(bare, one, True)["puzzle"]["counted"]  # with the cookie it got
        kept = stored_rating(database, puzzle.id)
        assert kept is not None
        shown = round(kept.rating)
        assert first.get(f"/api/puzzles/{puzzle.id}").json()["rating"] == shown
        assert page_data(first.get(f"/puzzles/{puzzle.id}").text)["puzzle"]["rating"] == shown
    with client(database) as again_http:  # a new app on the same database
        found = again_http.get(f"/api/puzzles/{puzzle.id}").json()
        assert found["rating"] == shown != puzzle.rating


@needs_puzzles
def test_next_and_daily_answer_the_stored_ratings(database: str) -> None:
    """Twenty puzzles and the day's rated 3990 by attempts (more than any first
    difficulty): a player rated 4000 gets one of them, with that rating; the daily puzzle and a
    puzzle's own answer give its stored rating, and the app's own attempts show at
    once."""
    from boardlab.web.store import Store

    pool = SHIPPED[FIRST][:20]
    today = web_puzzles.daily()["id"]
    store = Store(database)
    try:
        for puzzle in (*pool, by_id(today)):
            store.rate_puzzle(
                puzzle.id,
                first_of(puzzle),
                web_puzzles.tried_key(puzzle.id, "a browser"),
                lambda _r: glicko.Rating(3990, 45, 0.06),
            )
    finally:
        store.close()
    top = {p.id for p in pool} | {today}  # the day's puzzle, when of FIRST, is one of them
    with client(database) as http:
        for _try in range(5):
            near = http.get("/api/puzzles/next", params={"game": FIRST, "rating": 4000}).json()
            assert near["id"] in top and near["rating"] == 3990
        assert http.get("/api/puzzles/daily").json()["rating"] == 3990
        assert http.get(f"/api/puzzles/{pool[0].id}").json()["rating"] == 3990
        http.get("/puzzles")
        moved = http.post(
            f"/api/puzzles/{pool[0].id}/attempt",
            json={"rating": glicko.Rating(1500, 100, 0.06).to_dict(), "solved": True},
        ).json()["puzzle"]
        assert moved["counted"] and moved["rating"] < 3990
        assert http.get(f"/api/puzzles/{pool[0].id}").json()["rating"] == moved["rating"]


def test_a_server_in_memory_rates_puzzles_too() -> None:
    """``--db memory:`` keeps the puzzles' ratings in memory, by the same rules."""
    if not WITH:
        pytest.skip("no game ships puzzles yet")
    from fastapi.testclient import TestClient

    from boardlab.web.app import create_app

    puzzle = SHIPPED[FIRST][0]
    player = glicko.Rating(1500, 100, 0.06)
    with TestClient(create_app("memory:", workers=1)) as http:
        http.get("/puzzles")
        answers = [
            http.post(
                f"/api/puzzles/{puzzle.id}/attempt",
                json={"rating": player.to_dict(), "solved": True},
            ).json()
            for _try in range(2)
        ]
        assert [a["puzzle"]["counted"] for a in answers] == [True, False]
        moved = glicko.attempt(player, first_of(puzzle), True)[1]
        assert answers[0]["puzzle"]["rating"] == round(moved.rating) != puzzle.rating
        assert http.get(f"/api/puzzles/{puzzle.id}").json()["rating"] == round(moved.rating)


def test_pick_near_reads_the_ratings_it_is_given() -> None:
    """Twenty puzzles first rated 600 and twenty 2100, their ratings swapped by the map:
    a player rated 600 gets one of those first rated 2100, every time."""
    if not WITH:
        pytest.skip("no game ships puzzles yet")
    puzzles = [p for ps in SHIPPED.values() for p in ps]
    low = [p for p in puzzles if p.rating == 600][:20]
    high = [p for p in puzzles if p.rating == 2100][:20]
    assert len(low) == len(high) == 20
    swapped = {**{p.id: 2100.0 for p in low}, **{p.id: 600.0 for p in high}}
    for seed in range(20):
        rng = random.Random(seed)
        assert pick_near([*low, *high], 600, rng=rng).id in {p.id for p in low}
        assert pick_near([*low, *high], 600, rng=rng, ratings=swapped).id in {p.id for p in high}


@needs_proof
def test_why_names_the_action_and_the_solvers_values(http: Any) -> None:
    checked = 0
    for puzzle in SHIPPED[PROVABLE[0]][:40]:
        position = puzzle.new_game().from_position_string(puzzle.position)
        values = exact_values(position.game, position.state)
        right = [a for a, _after in puzzle.tree.answers]
        wrong = [a for a in position.legal_action_strings() if a not in right]
        if not values or not wrong:
            continue
        answer = http.get(f"/api/puzzles/{puzzle.id}/why", params={"action": wrong[0]})
        assert answer.status_code == 200, answer.text
        found = answer.json()
        assert wrong[0] in found["sentence"] and found["action"] == wrong[0]
        assert found["best_value"] == max(values.values()) == puzzle.value
        if found["value"] is not None:
            assert found["value"] == values[position.parse_action(wrong[0])]
            assert sorted(found["best"]) == sorted(right)
        checked += 1
        if checked == 3:
            break
    assert checked
    puzzle = SHIPPED[PROVABLE[0]][0]
    illegal = http.get(f"/api/puzzles/{puzzle.id}/why", params={"action": "zz9"})
    assert illegal.status_code == 400
    not_solver = http.get(
        f"/api/puzzles/{puzzle.id}/why",
        params={"action": "x", "path": puzzle.tree.main_line()[:1]},
    )
    assert not_solver.status_code == 400


def wrong_answer(puzzle: Puzzle) -> str | None:
    """A legal first action of the puzzle that is not among its right answers."""
    position = puzzle.new_game().from_position_string(puzzle.position)
    right = [a for a, _after in puzzle.tree.answers]
    return next((a for a in position.legal_action_strings() if a not in right), None)


@pytest.mark.parametrize("game", WITH or ["none"])
def test_why_answers_for_every_game_with_puzzles(http: Any, game: str) -> None:
    """Where the solver reaches, with its values; where it does not (Linja without its
    table), with the tree's best and the puzzle's value: either way the wrong answer and
    the right ones named."""
    if game == "none":
        pytest.skip("no game ships puzzles yet")
    puzzle = next(p for p in SHIPPED[game] if wrong_answer(p) is not None)
    wrong = wrong_answer(puzzle)
    answer = http.get(f"/api/puzzles/{puzzle.id}/why", params={"action": wrong})
    assert answer.status_code == 200, answer.text
    found = answer.json()
    right = [a for a, _after in puzzle.tree.answers]
    assert found["action"] == wrong and wrong in found["sentence"]
    assert sorted(found["best"]) == sorted(right) and found["best_value"] == puzzle.value
    assert all(a in found["sentence"] for a in right)
    if game in PROVABLE:
        assert found["value"] is not None and found["value"] < puzzle.value
    else:
        assert found["value"] is None


@pytest.mark.parametrize("game", TABLED or ["none"])
def test_why_without_the_table_says_the_trees_best(
    game: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Linja's puzzles where its table is not built (CI; simulated here with an empty
    table folder): ``why`` finds no values and ``explain`` says the tree's best, which is
    the solver's (as its values say where the table is built)."""
    if game == "none":
        pytest.skip("no game whose solver needs a table ships puzzles")
    puzzles = [p for p in SHIPPED[game] if wrong_answer(p) is not None][:5]
    built = why_not(boardlab.new_game(game)) is None
    tables = os.environ.get("BOARDLAB_TABLES")
    monkeypatch.setenv("BOARDLAB_TABLES", str(tmp_path))
    for puzzle in puzzles:
        wrong = wrong_answer(puzzle)
        assert wrong is not None
        found = web_puzzles.why(puzzle.game, puzzle.options, puzzle.position, wrong)
        assert found == {"action": wrong, "value": None}
        said = web_puzzles.explain(puzzle, [], found)
        right = [a for a, _after in puzzle.tree.answers]
        game_words = puzzle.new_game()
        assert said["best"] == right and said["best_value"] == puzzle.value
        assert said["sentence"] == (
            f"{wrong} is not the best; the best, {' / '.join(right)}, "
            f"{web_puzzles.worth(game_words, puzzle.value)}."
        )
        if built:  # the fallback says what the solver's values say
            if tables is None:
                monkeypatch.delenv("BOARDLAB_TABLES")
            else:
                monkeypatch.setenv("BOARDLAB_TABLES", tables)
            exact = web_puzzles.why(puzzle.game, puzzle.options, puzzle.position, wrong)
            monkeypatch.setenv("BOARDLAB_TABLES", str(tmp_path))
            assert sorted(exact["best"]) == sorted(right)
            assert exact["best_value"] == puzzle.value > exact["value"]


def test_the_shipped_files_are_read_from_the_games_packages() -> None:
    for game in boardlab.game_ids():
        path = shipped_path(game_class(game))
        assert isinstance(path, Path) and path.name == "puzzles.jsonl.gz"
        assert len(web_puzzles.catalogue()[game]) == len(SHIPPED.get(game, []))


def page_data(html: str) -> dict[str, Any]:
    """The puzzle page's data, as its script reads it."""
    found = re.search(r'<script id="puzzle-data" type="application/json">(.*?)</script>', html)
    assert found, "the page carries its puzzle"
    data: dict[str, Any] = json.loads(found.group(1))
    return data


@needs_puzzles
def test_a_signed_in_players_rating_is_kept_with_the_account(database: str) -> None:
    """On SQLite and PostgreSQL: a signed-in player's first attempt starts from the
    rating their browser kept as a guest; the account keeps the new one, later attempts
    start from it whatever a browser sends, and the puzzles page of another browser
    signed in to the account shows it. A guest's rating stays in the browser."""
    from boardlab.web.app import create_app
    from web_support import TESTING, browsers

    puzzles_of = SHIPPED[FIRST]
    guest_kept, sent_later = glicko.Rating(1700, 90, 0.06), glicko.Rating(900, 300, 0.06)
    credentials = {"name": "Ana", "password": "koi and seeds"}

    def attempt(http: Any, puzzle: Puzzle, player: glicko.Rating, solved: bool) -> Any:
        answer = http.post(
            f"/api/puzzles/{puzzle.id}/attempt", json={"rating": player.to_dict(), "solved": solved}
        )
        assert answer.status_code == 200, answer.text
        return answer.json()

    with browsers(create_app(database, workers=1, limits=TESTING), 3) as (one, two, guest):
        for http in (one, two, guest):
            assert http.get("/puzzles").status_code == 200  # each its browser cookie
        assert page_data(one.get("/puzzles").text)["player"] is None  # a guest
        assert one.post("/api/account/signup", json=credentials).status_code == 200
        assert page_data(one.get("/puzzles").text)["player"] is None  # no attempt yet

        first = puzzles_of[0]
        found = attempt(one, first, guest_kept, True)
        expected = glicko.attempt(guest_kept, first_of(first), True)[0]
        assert found["before"] == guest_kept.rating
        assert found["rating"] == pytest.approx(expected.to_dict())

        # another browser signed in: the account's rating, not the one it sends
        assert two.post("/api/account/signin", json=credentials).status_code == 200
        shown = page_data(two.get("/puzzles").text)["player"]
        assert shown == pytest.approx(expected.to_dict())
        second = puzzles_of[1]
        found = attempt(two, second, sent_later, False)
        assert found["before"] == pytest.approx(expected.rating)
        after = glicko.attempt(expected, first_of(second), False)[0]
        assert found["rating"] == pytest.approx(after.to_dict())

        # a guest's attempt rates the rating it sends, and nothing is kept for it
        found = attempt(guest, second, sent_later, True)
        assert found["before"] == sent_later.rating
        assert page_data(guest.get("/puzzles").text)["player"] is None
    with client(database) as again:  # kept across a restart
        assert again.post("/api/account/signin", json=credentials).status_code == 200
        assert page_data(again.get("/puzzles").text)["player"] == pytest.approx(after.to_dict())
