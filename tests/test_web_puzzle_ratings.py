"""The puzzles' ratings as the stores keep them: a browser's first attempt alone moves
a puzzle, two attempts at once are one after the other (none lost), the first
attempts remembered are bounded, the migration adds the tables to a database that has
games, and a server process reads the ratings once in a while, not per request. On
SQLite and PostgreSQL, and in memory."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from sqlalchemy import inspect, select

from boardlab.core.errors import BoardlabError
from boardlab.puzzles import glicko
from boardlab.web import puzzles as web_puzzles
from boardlab.web import store as store_module
from boardlab.web.data import DatabaseAway, NewGame
from boardlab.web.puzzles import MemoryRatings, Ratings, tried_key
from boardlab.web.store import PuzzleRatingRow, Store, alembic_config, schema_of

FIRST = glicko.Rating(1200, web_puzzles.PUZZLE_DEVIATION, web_puzzles.PUZZLE_VOLATILITY)
PLAYER = glicko.Rating(1500, 150, 0.06)


def solved(standing: glicko.Rating) -> glicko.Rating:
    """The puzzle's rating after ``PLAYER`` solves it."""
    return glicko.attempt(PLAYER, standing, True)[1]


@pytest.fixture(params=["sqlite", "postgresql", "memory"])
def keeper(request: pytest.FixtureRequest, tmp_path: Any) -> Any:
    """A ``Store`` on SQLite, then on PostgreSQL, then ``MemoryRatings``."""
    if request.param == "memory":
        yield MemoryRatings()
        return
    store = Store(
        f"sqlite:///{tmp_path / 'games.sqlite3'}"
        if request.param == "sqlite"
        else request.getfixturevalue("postgres").fresh()
    )
    yield store
    store.close()


def test_only_a_browsers_first_attempt_moves_the_puzzle(keeper: Any) -> None:
    assert keeper.puzzle_ratings() == {}
    before, after = keeper.rate_puzzle("p-1", FIRST, tried_key("p-1", "ana"), solved)
    assert before == FIRST and after == solved(FIRST)
    assert keeper.rate_puzzle("p-1", FIRST, tried_key("p-1", "ana"), solved) == (after, None)
    assert keeper.rate_puzzle("p-1", FIRST, None, solved) == (after, None)  # not known
    again = keeper.rate_puzzle("p-1", FIRST, tried_key("p-1", "bo"), solved)
    assert again == (after, solved(after))
    other = keeper.rate_puzzle("p-2", FIRST, tried_key("p-2", "ana"), solved)
    assert other == (FIRST, solved(FIRST))  # ana's first attempt at another puzzle
    assert keeper.puzzle_ratings() == {"p-1": solved(after), "p-2": solved(FIRST)}
    if isinstance(keeper, Store):
        with keeper.reading() as session:
            counts = dict(
                session.execute(select(PuzzleRatingRow.puzzle_id, PuzzleRatingRow.attempts)).all()
            )
        assert counts == {"p-1": 2, "p-2": 1}


def test_the_first_attempts_remembered_are_bounded(
    keeper: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past ``MOST_TRIES`` the oldest is forgotten: that browser's next attempt counts
    again, the latest still do not."""
    monkeypatch.setattr(store_module, "MOST_TRIES", 3)
    monkeypatch.setattr(web_puzzles, "MOST_TRIES", 3)
    browsers = ["a", "b", "c", "d"]
    for name in browsers:
        assert keeper.rate_puzzle("p", FIRST, tried_key("p", name), solved)[1] is not None
    for name in browsers[1:]:
        assert keeper.rate_puzzle("p", FIRST, tried_key("p", name), solved)[1] is None
    assert keeper.rate_puzzle("p", FIRST, tried_key("p", "a"), solved)[1] is not None
    if isinstance(keeper, Store):
        with keeper.reading() as session:
            kept = session.scalars(select(store_module.PuzzleTryRow.key)).all()
        assert len(kept) == 3 and tried_key("p", "b") not in kept


def test_attempts_at_once_are_one_after_the_other(database: str) -> None:
    """Twelve browsers' first attempts at one puzzle, from twelve threads at once: each
    starts from the rating the one before left (a chain from the first difficulty to
    the stored rating), so none is lost."""
    store = Store(database)
    answers: list[tuple[glicko.Rating, glicko.Rating | None]] = []
    failures: list[BaseException] = []
    start = threading.Barrier(12)

    def attempt(k: int) -> None:
        try:
            start.wait()
            answers.append(store.rate_puzzle("p", FIRST, tried_key("p", str(k)), solved))
        except BaseException as error:  # the test says which
            failures.append(error)

    threads = [threading.Thread(target=attempt, args=(k,)) for k in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    try:
        assert not failures, failures
        moves = {before: after for before, after in answers}
        assert len(moves) == 12 and None not in moves.values()
        standing = FIRST
        for _step in range(12):
            after = moves.pop(standing)
            assert after == solved(standing)
            standing = after
        assert store.puzzle_ratings() == {"p": standing}
        with store.reading() as session:
            assert session.scalar(select(PuzzleRatingRow.attempts)) == 12
    finally:
        store.close()


def test_the_migration_adds_the_tables_to_a_database_with_games(database: str) -> None:
    """A database at the schema before (0005) with a game in it: opening it upgrades it,
    the game is still there, puzzles are rated; down to 0005 and up again."""
    from alembic import command

    def to(engine: Any, revision: str, way: Any = command.upgrade) -> None:
        with engine.begin() as connection:
            config = alembic_config()
            config.attributes["connection"] = connection
            way(config, revision)

    old = Store(database, upgrade=None)
    to(old.engine, "0005")
    assert schema_of(old.engine)[0] == "0005"
    game = old.create(NewGame("galatjang", {"pits": 3, "seeds": 2}, ["human", "human"], "me"))
    old.append(game, 0, "s1", "*")
    assert not inspect(old.engine).has_table("puzzle_ratings")
    old.close()

    store = Store(database)  # upgraded as it opens
    try:
        current, newest = schema_of(store.engine)
        assert current == newest >= "0006"
        assert {"puzzle_ratings", "puzzle_tries"} <= set(inspect(store.engine).get_table_names())
        assert store.load(game).actions == ("s1",)
        assert store.rate_puzzle("p", FIRST, 1, solved) == (FIRST, solved(FIRST))
        to(store.engine, "0005", command.downgrade)
        assert not inspect(store.engine).has_table("puzzle_tries")
        to(store.engine, "head")
        assert store.puzzle_ratings() == {}  # the tables made anew
        assert store.load(game).actions == ("s1",)
    finally:
        store.close()


class Counting:
    """A keeper that counts its reads, and can be away."""

    def __init__(self) -> None:
        self.inner = MemoryRatings()
        self.reads = 0
        self.away = False

    def puzzle_ratings(self) -> dict[str, glicko.Rating]:
        self.reads += 1
        if self.away:
            raise DatabaseAway("away")
        return self.inner.puzzle_ratings()

    def rate_puzzle(self, *args: Any) -> tuple[glicko.Rating, glicko.Rating | None]:
        return self.inner.rate_puzzle(*args)

    def puzzle_player(self, account_id: int) -> glicko.Rating | None:
        return self.inner.puzzle_player(account_id)

    def rate_player(self, *args: Any) -> tuple[glicko.Rating, glicko.Rating]:
        return self.inner.rate_player(*args)


def test_a_process_reads_the_ratings_once_in_a_while(monkeypatch: pytest.MonkeyPatch) -> None:
    """Picking reads the map, not the store: once, then again after ``REFRESH_SECONDS``
    (another process's attempts); this process's attempts show at once; while the
    database is away the map last read stands."""
    clock = [1000.0]
    monkeypatch.setattr(web_puzzles.time, "monotonic", lambda: clock[0])
    counting = Counting()
    ratings = Ratings(counting)
    assert ratings.keeper is counting
    assert ratings.current() == {} and ratings.current() == {}
    assert counting.reads == 1
    elsewhere = counting.inner.rate_puzzle("p", FIRST, 1, solved)[1]  # another process
    assert elsewhere is not None
    assert ratings.current() == {}
    clock[0] += web_puzzles.REFRESH_SECONDS
    assert ratings.current() == {"p": elsewhere.rating} and counting.reads == 2
    puzzle = web_puzzles.all_puzzles()[0] if web_puzzles.all_puzzles() else None
    if puzzle is not None:  # this process's own attempt: at once, no read
        found = ratings.attempt(puzzle.id, PLAYER.to_dict(), True, "ana")
        assert found["puzzle"]["counted"]
        assert ratings.current()[puzzle.id] == pytest.approx(
            solved(web_puzzles.puzzle_rating(puzzle)).rating
        )
        assert counting.reads == 2
    known = ratings.current()
    counting.away = True
    clock[0] += web_puzzles.REFRESH_SECONDS
    assert ratings.current() == known and counting.reads == 3
    clock[0] += web_puzzles.RETRY_SECONDS
    counting.away = False
    assert ratings.current() == known and counting.reads == 4
    assert isinstance(Ratings(object()).keeper, MemoryRatings)  # a store that keeps none


def test_a_bad_rating_is_refused_before_anything_is_kept() -> None:
    ratings = Ratings(MemoryRatings())
    puzzles = web_puzzles.all_puzzles()
    if not puzzles:
        pytest.skip("no game ships puzzles yet")
    with pytest.raises(BoardlabError):
        ratings.attempt(puzzles[0].id, {"rating": 1500}, True, "ana")
    assert ratings.keeper.puzzle_ratings() == {}
