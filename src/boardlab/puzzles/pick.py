"""What every way of playing puzzles shares (the web page and ``boardlab puzzles play``):
the shipped puzzles of every game, one picked near a rating, the task and the themes in
words, the step of the solution a line reaches, the rating a puzzle is played against,
and why a wrong answer is wrong, in words from the solver's exact values (or, for a
game without a solver, from its win search: the move lets the forced win slip).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

import boardlab
from boardlab.core.game import Position
from boardlab.core.i18n import N_, _, ngettext
from boardlab.core.registry import game_class
from boardlab.puzzles import glicko
from boardlab.puzzles.puzzle import Puzzle, Step, read_puzzles, shipped_path
from boardlab.puzzles.wins import searched, win_search_or_none

#: How many puzzles nearest the asked rating a pick is made among at random.
NEAREST = 20
#: The deviation of a puzzle's rating against which a player's attempt is rated: a
#: first difficulty known to within about two levels (300 points) either way.
PUZZLE_DEVIATION = 80.0
#: A puzzle's volatility (Glicko-2's usual start).
PUZZLE_VOLATILITY = 0.06
#: How often ``solver_values`` asks the solver, whose search above its table has a budget.
WHY_TRIES = 3

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


def pick_near(
    pool: Sequence[Puzzle],
    rating: float,
    exclude: Sequence[str] = (),
    rng: random.Random | None = None,
    ratings: Mapping[str, float] | None = None,
) -> Puzzle:
    """A puzzle of ``pool`` (not empty) at random among the ``NEAREST`` nearest
    ``rating`` and not in ``exclude``; when every one is excluded, among them all (a
    player who did them all starts again). A puzzle's rating is its entry in
    ``ratings`` (the server's, from players' attempts), else its first difficulty."""
    excluded = set(exclude)
    known = ratings or {}
    fresh = [p for p in pool if p.id not in excluded] or list(pool)
    nearest = sorted(fresh, key=lambda p: (abs(known.get(p.id, p.rating) - rating), p.id))[:NEAREST]
    return (rng or random.Random()).choice(nearest)


def task(puzzle: Puzzle) -> str:
    game = game_class(puzzle.game)
    return _("Find the best move for {player}").format(player=game.player_name(puzzle.player))


def puzzle_rating(puzzle: Puzzle) -> glicko.Rating:
    return glicko.Rating(float(puzzle.rating), PUZZLE_DEVIATION, PUZZLE_VOLATILITY)


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


def solver_values(position: Position[Any], chosen: int) -> dict[str, Any]:
    """The solver's exact values (for the player to act in ``position``) of ``chosen``
    and of the best; the value None when the solver does not reach the position. No
    words here (``explain`` says them): the solver may take a moment."""
    from boardlab.solve import exact_values

    if searched(position.game):
        return searched_values(position, chosen)
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


def searched_values(position: Position[Any], chosen: int) -> dict[str, Any]:
    """``solver_values`` from the game's win search, within its horizon: the value is
    the least number of own turns in which an action forces the win (0: it does not);
    the best are the quickest. ``explain`` judges them within the turns a puzzle has
    left; None where the search is not here (no fast extra)."""
    search = win_search_or_none(position.game)
    text = position.action_string(chosen)
    if search is None:
        return {"action": text, "value": None}
    turns = search.turns(position.state, position.to_act, search.horizon)
    quickest = min((n for n in turns.values() if n), default=0)
    return {
        "action": text,
        "value": turns[chosen] or 0,
        "best": [position.action_string(a) for a, n in turns.items() if n and n == quickest],
        "best_value": quickest,
    }


def turns_left(puzzle: Puzzle, path: Sequence[str]) -> int:
    """The solver's own turns left, after ``path``, in a searched puzzle's forced win
    (its value): one fewer for each of his turns the path ends."""
    game = puzzle.new_game()
    state = game.parse_state(puzzle.position)
    left = puzzle.value
    for text in path:
        mine = game.to_act(state) == puzzle.player
        state = game.apply(state, game.parse_action(state, text))
        left -= mine and game.to_act(state) != puzzle.player
    return left


def worth(game: Any, value: int) -> str:
    if searched(game) and value > 0:
        return ngettext(
            "forces the win within {n} turn", "forces the win within {n} turns", value
        ).format(n=value)
    if value == 0:
        return _("leads to a draw")
    singular, plural = game.point_words
    unit = ngettext(singular, plural, abs(value))
    words = _("wins by {n} {unit}") if value > 0 else _("loses by {n} {unit}")
    return words.format(n=abs(value), unit=unit)


def explain(puzzle: Puzzle, path: Sequence[str], found: dict[str, Any]) -> dict[str, Any]:
    """``solver_values``' values with the sentence that says them (the value of the
    best is the puzzle's: best play keeps it along the tree)."""
    game = game_class(puzzle.game)
    if searched(game) and found["value"] is not None:
        return explain_searched(puzzle, path, found)
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


def explain_searched(puzzle: Puzzle, path: Sequence[str], found: dict[str, Any]) -> dict[str, Any]:
    """``explain`` for a forced win found by search: right within the turns the puzzle
    has left, else the win slips (the opponent can stop it); the best are the tree's."""
    game = puzzle.new_game()
    left = turns_left(puzzle, path)
    step = node_after(puzzle, path)
    best = [a for a, _after in step.answers] if step is not None else found["best"]
    found = {**found, "best": best, "best_value": left}
    if found["value"] and found["value"] <= left:
        sentence = _("{action} is as good as the best: it {worth}.").format(
            action=found["action"], worth=worth(game, left)
        )
        return {**found, "value": left, "sentence": sentence}
    search = win_search_or_none(game)
    goal = search.goal() if search is not None else ""
    sentence = _(
        "{action} lets the win slip: after it, {opponent} can stop you {goal}; "
        "the best, {best}, {best_worth}."
    ).format(
        action=found["action"],
        opponent=game.player_name(1 - puzzle.player),
        goal=goal,
        best=" / ".join(best),
        best_worth=worth(game, left),
    )
    return {**found, "value": 0, "sentence": sentence}
