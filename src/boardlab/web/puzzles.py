"""The puzzles page's answers: the shipped puzzles of every game (read once), a puzzle
near a rating, one by id, the puzzle of the day, a player's new rating after an attempt,
and why a wrong answer is wrong, in words.

The server keeps nothing of a player: the browser keeps its rating and sends it with an
attempt; the answer is its new rating. A puzzle's own rating is its first difficulty
(docs/puzzles.md), with the deviation ``PUZZLE_DEVIATION``: its attempts are not stored
yet, so it does not move.
"""

from __future__ import annotations

import datetime
import hashlib
import random
from collections.abc import Sequence
from typing import Any

from boardlab.core.errors import clipped
from boardlab.core.i18n import _
from boardlab.core.registry import game_class
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
from boardlab.web.data import NotFound, RequestError

#: The most puzzle ids a request for the next puzzle may exclude (those just seen).
MOST_EXCLUDED = 50
#: The longest line of actions a ``why`` request may play into a puzzle.
MOST_PATH = 32


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


def describe(puzzle: Puzzle) -> dict[str, Any]:
    """A puzzle as the page plays it: its tree, themes in words, rating, task in words
    and the view of its position."""
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
        "rating": puzzle.rating,
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
) -> dict[str, Any]:
    """A puzzle of ``game`` (any when None) with ``theme`` (any when None), at random
    among the ``NEAREST`` nearest ``rating`` and not in ``exclude``; when every one that
    matches is excluded, among them all (a player who did them all starts again)."""
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
    return describe(pick_near(pool, rating, exclude, rng))


def daily(day: datetime.date | None = None) -> dict[str, Any]:
    """The puzzle of ``day`` (today, UTC): the same for everyone on a day."""
    day = day or datetime.datetime.now(datetime.UTC).date()
    puzzles = sorted(all_puzzles(), key=lambda p: p.id)
    if not puzzles:
        raise NotFound(_("there are no puzzles yet"))
    digest = hashlib.sha256(f"boardlab daily puzzle {day.isoformat()}".encode()).digest()
    return {**describe(puzzles[int.from_bytes(digest[:8]) % len(puzzles)]), "day": day.isoformat()}


def attempt(puzzle_id: str, rating: Any, solved: bool) -> dict[str, Any]:
    """The player's new rating after an attempt at the puzzle, from the rating the
    browser keeps (refused with ``RatingError``'s words when it is not one)."""
    puzzle = find(puzzle_id)
    player = glicko.Rating.from_dict(rating)
    after, _puzzle = glicko.attempt(player, puzzle_rating(puzzle), solved)
    return {
        "rating": after.to_dict(),
        "before": player.rating,
        "change": round(after.rating) - round(player.rating),
        "solved": solved,
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
    "WHY_TRIES",
    "all_puzzles",
    "attempt",
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
    "why",
    "why_position",
    "worth",
]
