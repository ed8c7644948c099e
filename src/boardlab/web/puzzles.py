"""The puzzles page's answers: the shipped puzzles of every game (read once), a puzzle
near a rating, one by id, the puzzle of the day, the new ratings after an attempt, and
why a wrong answer is wrong, in words.

The browser keeps its player's rating and sends it with an attempt; the answer is its
new rating. The server keeps the puzzles' ratings (``Ratings``): each starts at its
first difficulty (docs/puzzles.md) with the deviation ``PUZZLE_DEVIATION``, and a
browser's first attempt at a puzzle moves it by Glicko-2, the player its opponent.
"""

from __future__ import annotations

import datetime
import hashlib
import random
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from sqlalchemy import select

from boardlab.core.errors import BoardlabError, clipped
from boardlab.core.game import Game
from boardlab.core.i18n import _
from boardlab.core.registry import game_class, new_game
from boardlab.puzzles import glicko
from boardlab.puzzles.pick import (
    NEAREST,
    PUZZLE_DEVIATION,
    PUZZLE_VOLATILITY,
    QUIET,
    WHY_TRIES,
    catalogue,
    explain,
    node_after,
    pick_near,
    puzzle_rating,
    shipped,
    solver_values,
    task,
    theme_words,
    worth,
)
from boardlab.puzzles.puzzle import Puzzle
from boardlab.web import positions
from boardlab.web.data import DatabaseAway, NotFound, RequestError
from boardlab.web.store import MOST_TRIES, GameRow, Store

#: The most puzzle ids a request for the next puzzle may exclude (those just seen).
MOST_EXCLUDED = 50
#: The longest line of actions a ``why`` request may play into a puzzle.
MOST_PATH = 32
#: Seconds a server process answers with the puzzles' ratings it read before reading
#: them again: another process's attempts show within this, its own at once.
REFRESH_SECONDS = 60.0
#: Seconds before the ratings are read again when the database was away.
RETRY_SECONDS = 5.0


def all_puzzles() -> list[Puzzle]:
    return [p for found in catalogue().values() for p in found]


def find(puzzle_id: str) -> Puzzle:
    for puzzle in all_puzzles():
        if puzzle.id == puzzle_id:
            return puzzle
    raise NotFound(_("there is no puzzle {id!r}").format(id=clipped(puzzle_id, 40)))


def games() -> list[dict[str, Any]]:
    """Each game with its count of puzzles and their themes (the page's filters)."""
    found = []
    for game_id, puzzles in catalogue().items():
        kinds = sorted({t for p in puzzles for t in p.themes})
        found.append(
            {
                "id": game_id,
                "name": game_class(game_id).name,
                "count": len(puzzles),
                "themes": [{"id": k, "words": theme_words(game_id, k)} for k in kinds],
            }
        )
    return found


def describe(puzzle: Puzzle, ratings: Mapping[str, float] | None = None) -> dict[str, Any]:
    """A puzzle as the page plays it: its tree, themes in words, rating (its entry in
    ``ratings``, else its first difficulty; a whole number, as the page shows it), task
    in words and the view of its position."""
    rating = round((ratings or {}).get(puzzle.id, puzzle.rating))
    position = puzzle.new_game().from_position_string(puzzle.position)
    return {
        "id": puzzle.id,
        "game": puzzle.game,
        "name": position.game.name,
        "options": list(puzzle.options),
        "position": puzzle.position,
        "player": puzzle.player,
        "player_name": position.game.player_name(puzzle.player),
        "task": task(puzzle),
        "value": puzzle.value,
        "rating": rating,
        "themes": [{"id": t, "words": theme_words(puzzle.game, t)} for t in puzzle.themes],
        "tree": puzzle.tree.to_json(),
        "start": positions.view(position),
        "link": f"/puzzles/{puzzle.id}",
    }


def next_puzzle(
    game: str | None,
    theme: str | None,
    rating: float,
    exclude: Sequence[str] = (),
    rng: random.Random | None = None,
    ratings: Mapping[str, float] | None = None,
) -> dict[str, Any]:
    """A puzzle of ``game`` (any when None) with ``theme`` (any when None), at random
    among the ``NEAREST`` nearest ``rating`` and not in ``exclude``; when every one that
    matches is excluded, among them all (a player who did them all starts again). The
    puzzles' ratings are those of ``ratings`` (``Ratings.current``), else their first."""
    if len(exclude) > MOST_EXCLUDED:
        raise RequestError(
            _("too many puzzles excluded: {count}, at most {most}").format(
                count=len(exclude), most=MOST_EXCLUDED
            )
        )
    if game:
        positions.game_of(game, ())  # an unknown game refused with the known ones named
    pool = catalogue().get(game, []) if game else all_puzzles()
    if not pool:
        raise NotFound(
            _("{game} has no puzzles yet").format(game=game_class(game).name)
            if game
            else _("there are no puzzles yet")
        )
    if theme:
        pool = [p for p in pool if theme in p.themes]
        if not pool:
            raise NotFound(_("no puzzle has the theme {theme!r}").format(theme=clipped(theme, 40)))
    return describe(pick_near(pool, rating, exclude, rng, ratings), ratings)


def daily(
    day: datetime.date | None = None, ratings: Mapping[str, float] | None = None
) -> dict[str, Any]:
    """The puzzle of ``day`` (today, UTC): the same for everyone on a day."""
    day = day or datetime.datetime.now(datetime.UTC).date()
    puzzles = sorted(all_puzzles(), key=lambda p: p.id)
    if not puzzles:
        raise NotFound(_("there are no puzzles yet"))
    digest = hashlib.sha256(f"boardlab daily puzzle {day.isoformat()}".encode()).digest()
    chosen = puzzles[int.from_bytes(digest[:8]) % len(puzzles)]
    return {**describe(chosen, ratings), "day": day.isoformat()}


def tried_key(puzzle_id: str, browser: str) -> int:
    """A browser's attempt at a puzzle as the store keeps it: a 64-bit digest (signed,
    as a database's integer), neither id readable from it."""
    digest = hashlib.blake2b(f"{puzzle_id} {browser}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, signed=True)


@runtime_checkable
class RatingKeeper(Protocol):
    """Where the puzzles' ratings are kept: ``Store``, or ``MemoryRatings``."""

    def puzzle_ratings(self) -> dict[str, glicko.Rating]: ...
    def rate_puzzle(
        self,
        puzzle_id: str,
        first: glicko.Rating,
        tried: int | None,
        rate: Callable[[glicko.Rating], glicko.Rating],
    ) -> tuple[glicko.Rating, glicko.Rating | None]: ...
    def puzzle_player(self, account_id: int) -> glicko.Rating | None: ...
    def rate_player(
        self,
        account_id: int,
        first: glicko.Rating,
        rate: Callable[[glicko.Rating], glicko.Rating],
    ) -> tuple[glicko.Rating, glicko.Rating]: ...


class MemoryRatings:
    """The puzzles' ratings of a server that keeps its games in memory (``--db
    memory:``), answering as ``Store.rate_puzzle`` does, with the same bound on the
    first attempts remembered; gone when the server stops."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ratings: dict[str, glicko.Rating] = {}
        self._tried: dict[int, None] = {}  # in the order made, the oldest first
        self._players: dict[int, glicko.Rating] = {}

    def puzzle_ratings(self) -> dict[str, glicko.Rating]:
        with self._lock:
            return dict(self._ratings)

    def rate_puzzle(
        self,
        puzzle_id: str,
        first: glicko.Rating,
        tried: int | None,
        rate: Callable[[glicko.Rating], glicko.Rating],
    ) -> tuple[glicko.Rating, glicko.Rating | None]:
        with self._lock:
            before = self._ratings.get(puzzle_id, first)
            if tried is None or tried in self._tried:
                return before, None
            self._tried[tried] = None
            if len(self._tried) > MOST_TRIES:
                del self._tried[next(iter(self._tried))]
            after = self._ratings[puzzle_id] = rate(before)
            return before, after

    def puzzle_player(self, account_id: int) -> glicko.Rating | None:
        with self._lock:
            return self._players.get(account_id)

    def rate_player(
        self,
        account_id: int,
        first: glicko.Rating,
        rate: Callable[[glicko.Rating], glicko.Rating],
    ) -> tuple[glicko.Rating, glicko.Rating]:
        with self._lock:
            before = self._players.get(account_id, first)
            after = self._players[account_id] = rate(before)
            return before, after


class Ratings:
    """The puzzles' ratings of one server: kept by its store (in memory when the store
    keeps none), and known to this process as a map read at most every
    ``REFRESH_SECONDS`` (picking a puzzle reads no database), which its own attempts
    change at once."""

    def __init__(self, store: Any) -> None:
        self.keeper: RatingKeeper = store if isinstance(store, RatingKeeper) else MemoryRatings()
        self._lock = threading.Lock()
        self._known: dict[str, float] | None = None
        self._due = 0.0

    def current(self) -> dict[str, float]:
        """Each puzzle's rating that attempts have moved, by id (the others have their
        first). Blocking (it may read the database): call it beside the event loop.
        While the database is away, the ratings last read (none at first)."""
        with self._lock:
            if self._known is None or time.monotonic() >= self._due:
                try:
                    kept = self.keeper.puzzle_ratings()
                except DatabaseAway:
                    self._due = time.monotonic() + RETRY_SECONDS
                    self._known = self._known or {}
                else:
                    self._known = {key: found.rating for key, found in kept.items()}
                    self._due = time.monotonic() + REFRESH_SECONDS
            return self._known

    def player(self, account: int | None) -> glicko.Rating | None:
        """A signed-in player's puzzle rating as kept with the account (None for a
        guest, or before the account's first attempt). Blocking."""
        return None if account is None else self.keeper.puzzle_player(account)

    def attempt(
        self,
        puzzle_id: str,
        rating: Any,
        solved: bool,
        browser: str | None,
        account: int | None = None,
    ) -> dict[str, Any]:
        """The player's new rating after an attempt at the puzzle, from the rating the
        browser keeps (refused with ``RatingError``'s words when it is not one), or for
        a signed-in ``account`` the one kept with it (the browser's at its first
        attempt), kept again; against the puzzle's rating as it stands. The puzzle's
        rating is moved and kept when this is ``browser``'s first attempt at it (None:
        a browser not known, which does not count). Blocking: it writes to the store."""
        puzzle = find(puzzle_id)
        player = glicko.Rating.from_dict(rating)
        player = self.player(account) or player
        tried = None if browser is None else tried_key(puzzle.id, browser)
        before, after = self.keeper.rate_puzzle(
            puzzle.id,
            puzzle_rating(puzzle),
            tried,
            lambda standing: glicko.attempt(player, standing, solved)[1],
        )
        mine, _puzzle = glicko.attempt(player, before, solved)
        if account is not None:  # from the kept rating as it is now (attempts at once)
            player, mine = self.keeper.rate_player(
                account, player, lambda kept: glicko.attempt(kept, before, solved)[0]
            )
        if after is not None:
            with self._lock:
                if self._known is not None:  # a new map: a reader may hold the old one
                    self._known = {**self._known, puzzle.id: after.rating}
        return {
            "rating": mine.to_dict(),
            "before": player.rating,
            "change": round(mine.rating) - round(player.rating),
            "solved": solved,
            "puzzle": {
                "rating": round((after or before).rating),
                "before": round(before.rating),
                "counted": after is not None,
            },
        }


def why_position(puzzle_id: str, path: Sequence[str], action: str) -> tuple[Puzzle, str]:
    """The puzzle and the position string after ``path``, checked: the solver to act
    there and ``action`` legal (a BoardlabError says what is wrong)."""
    if len(path) > MOST_PATH:
        raise RequestError(
            _("too many actions: {count}, at most {most}").format(count=len(path), most=MOST_PATH)
        )
    puzzle = find(puzzle_id)
    position = puzzle.new_game().from_position_string(puzzle.position)
    for text in path:
        position = position.play(position.parse_action(text))
    if position.is_over() or position.to_act != puzzle.player:
        raise RequestError(
            _("the puzzle's player does not act after {path}").format(
                path=" ".join(path) or _("the start")
            )
        )
    position.parse_action(action)  # an illegal one refused, the legal ones named
    return puzzle, position.position_string()


def why(game_id: str, options: Sequence[str], text: str, action: str) -> dict[str, Any]:
    """The solver's exact values (for the player to act) in the position ``text`` of
    ``action`` and of the best: work for a worker, the solver may take a moment. No
    words here: a worker does not know the asker's language (``explain`` says it)."""
    position = positions.read_position(game_id, options, text)
    return solver_values(position, position.parse_action(action))


__all__ = [  # the shared parts (boardlab.puzzles.pick) stay reachable from here
    "MOST_EXCLUDED",
    "MOST_PATH",
    "NEAREST",
    "PUZZLE_DEVIATION",
    "PUZZLE_VOLATILITY",
    "QUIET",
    "REFRESH_SECONDS",
    "WHY_TRIES",
    "MemoryRatings",
    "RatingKeeper",
    "Ratings",
    "all_puzzles",
    "catalogue",
    "daily",
    "describe",
    "explain",
    "find",
    "games",
    "next_puzzle",
    "node_after",
    "puzzle_rating",
    "shipped",
    "task",
    "theme_words",
    "tried_key",
    "why",
    "why_position",
    "worth",
]


def stored_positions(game: Game[Any], url: str) -> Iterator[tuple[str, Any, int]]:
    """The positions of the games the web server stored at ``url`` (an SQLAlchemy URL)
    of ``game`` under its rules, oldest first, as the puzzle generator reads them:
    (source, state, ply). A stored game the rules no longer replay is passed over."""
    store = Store(url, upgrade=None)
    try:
        with store.reading() as session:
            ids = session.scalars(
                select(GameRow.id).where(GameRow.game == game.id).order_by(GameRow.created)
            ).all()
        for stored_id in ids:
            stored = store.load(stored_id)
            try:
                if new_game(game.id, stored.options) != game:
                    continue
                position = (
                    game.from_position_string(stored.start) if stored.start else game.initial()
                )
                states = [position.state]
                for text in stored.actions:
                    position = position.play(text)
                    states.append(position.state)
            except BoardlabError:
                continue
            for ply, state in enumerate(states):
                if game.outcome_of(state) is None:
                    yield f"stored game {stored_id}", state, ply
    finally:
        store.close()
