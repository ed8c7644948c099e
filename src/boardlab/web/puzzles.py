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
from functools import cache
from typing import Any

import boardlab
from boardlab.core.errors import clipped
from boardlab.core.i18n import N_, _, ngettext
from boardlab.core.registry import game_class
from boardlab.puzzles import glicko
from boardlab.puzzles.puzzle import Puzzle, Step, read_puzzles, shipped_path
from boardlab.web import positions
from boardlab.web.data import NotFound, RequestError

#: How many puzzles nearest the asked rating ``next`` picks among at random.
NEAREST = 20
#: The most puzzle ids a request for the next puzzle may exclude (those just seen).
MOST_EXCLUDED = 50
#: The deviation of a puzzle's rating against which a player's attempt is rated: a
#: first difficulty known to within about two levels (300 points) either way.
PUZZLE_DEVIATION = 80.0
#: A puzzle's volatility (Glicko-2's usual start).
PUZZLE_VOLATILITY = 0.06
#: How often ``why`` asks the solver, whose search above its table has a budget.
WHY_TRIES = 3
#: The longest line of actions a ``why`` request may play into a puzzle.
MOST_PATH = 32

#: The theme of a puzzle whose right answer no narration tells apart from the others.
QUIET = N_("Quiet move")


def theme_words(game_id: str, kind: str) -> str:
    """A theme in words, in the current language: the game's name for its narration
    kind (``Game.note_words``), else the kind's id, humanised."""
    words = game_class(game_id).note_words.get(kind)
    if words is None:
        return _(QUIET) if kind == "none" else kind.replace("_", " ").capitalize()
    return _(words)


def shipped(game_id: str) -> list[Puzzle]:
    """The puzzles a game ships in its package; none when it has no file."""
    path = shipped_path(game_class(game_id))
    return read_puzzles(path) if path.exists() else []


@cache
def catalogue() -> dict[str, list[Puzzle]]:
    """Every game's shipped puzzles, read once: game id -> its puzzles."""
    return {game_id: shipped(game_id) for game_id in boardlab.game_ids()}


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


def task(puzzle: Puzzle) -> str:
    game = game_class(puzzle.game)
    return _("Find the best move for {player}").format(player=game.player_name(puzzle.player))


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
    excluded = set(exclude)
    fresh = [p for p in pool if p.id not in excluded] or pool
    nearest = sorted(fresh, key=lambda p: (abs(p.rating - rating), p.id))[:NEAREST]
    return describe((rng or random.Random()).choice(nearest))


def daily(day: datetime.date | None = None) -> dict[str, Any]:
    """The puzzle of ``day`` (today, UTC): the same for everyone on a day."""
    day = day or datetime.datetime.now(datetime.UTC).date()
    puzzles = sorted(all_puzzles(), key=lambda p: p.id)
    if not puzzles:
        raise NotFound(_("there are no puzzles yet"))
    digest = hashlib.sha256(f"boardlab daily puzzle {day.isoformat()}".encode()).digest()
    return {**describe(puzzles[int.from_bytes(digest[:8]) % len(puzzles)]), "day": day.isoformat()}


def puzzle_rating(puzzle: Puzzle) -> glicko.Rating:
    return glicko.Rating(float(puzzle.rating), PUZZLE_DEVIATION, PUZZLE_VOLATILITY)


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


def node_after(puzzle: Puzzle, path: Sequence[str]) -> Step | None:
    """The step of the tree reached by ``path`` (actions from the start), None where
    the path leaves the tree (an alternative answer) or the puzzle ends."""
    step: Step | None = puzzle.tree
    for action in path:
        if step is None:
            return None
        if step.reply is not None:
            step = step.then if action == step.reply else None
        else:
            step = dict(step.answers).get(action) if action in dict(step.answers) else None
    return step


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


def worth(game: Any, value: int) -> str:
    if value == 0:
        return _("leads to a draw")
    singular, plural = game.point_words
    unit = ngettext(singular, plural, abs(value))
    words = _("wins by {n} {unit}") if value > 0 else _("loses by {n} {unit}")
    return words.format(n=abs(value), unit=unit)


def why(game_id: str, options: Sequence[str], text: str, action: str) -> dict[str, Any]:
    """The solver's exact values (for the player to act) in the position ``text`` of
    ``action`` and of the best: work for a worker, the solver may take a moment. No
    words here: a worker does not know the asker's language (``explain`` says it)."""
    from boardlab.solve import exact_values

    position = positions.read_position(game_id, options, text)
    chosen = position.parse_action(action)
    values = None
    for _try in range(WHY_TRIES):  # a search within a budget may reach on a later try
        values = exact_values(position.game, position.state)
        if values:
            break
    if not values:  # ``explain`` says the best from the tree
        return {"action": position.action_string(chosen), "value": None}
    best_value = max(values.values())
    return {
        "action": position.action_string(chosen),
        "value": values[chosen],
        "best": [position.action_string(a) for a, v in values.items() if v == best_value],
        "best_value": best_value,
    }


def explain(puzzle: Puzzle, path: Sequence[str], found: dict[str, Any]) -> dict[str, Any]:
    """``why``'s values with the sentence that says them (the value of the best is the
    puzzle's: best play keeps it along the tree)."""
    game = game_class(puzzle.game)
    if found["value"] is None:  # out of the solver's reach in time: the tree's best
        step = node_after(puzzle, path)
        best = [a for a, _after in step.answers] if step is not None else []
        found = {**found, "best": best, "best_value": puzzle.value}
        sentence = _("{action} is not the best; the best, {best}, {best_worth}.").format(
            action=found["action"], best=" / ".join(best), best_worth=worth(game, puzzle.value)
        )
        return {**found, "sentence": sentence}
    if found["value"] == found["best_value"]:
        sentence = _("{action} is as good as the best: it {worth}.").format(
            action=found["action"], worth=worth(game, found["value"])
        )
    else:
        sentence = _("{action} {worth}; the best, {best}, {best_worth}.").format(
            action=found["action"],
            worth=worth(game, found["value"]),
            best=" / ".join(found["best"]),
            best_worth=worth(game, found["best_value"]),
        )
    return {**found, "sentence": sentence}
