"""Shared test helpers: option sets to sweep, random games, Hypothesis strategies."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import strategies as st

import boardlab
from boardlab.core.game import Game, Position
from boardlab.core.options import Option

#: Small values for integer options, so that random games stay short and varied.
INT_CHOICES: dict[tuple[str, str], tuple[int, ...]] = {
    ("jinli", "target"): (1, 3, 10, 15),
    ("jinli", "stones"): (0, 1, 2, 6, 10, 22),
    ("jinli", "max_turns"): (1, 2, 7, 40, 300),
    ("linja", "max_turns"): (1, 2, 9, 60, 1000),
    ("galatjang", "pits"): (1, 2, 3, 4, 6, 7),
    ("galatjang", "seeds"): (1, 2, 3, 4, 6),
    ("galatjang", "max_turns"): (1, 2, 5, 30, 500),
    ("galatjang", "rounds"): (1, 2, 3, 5),
}


def option_values(game_id: str, option: Option) -> tuple[Any, ...]:
    if option.kind == "bool":
        return (False, True)
    if option.kind == "choice":
        return option.choices
    return INT_CHOICES.get((game_id, option.name), (option.default,))


def random_options(game_id: str, rng: random.Random) -> dict[str, Any]:
    """An option set drawn uniformly from each option's values above."""
    schema = boardlab.game_class(game_id).schema
    return {o.name: rng.choice(option_values(game_id, o)) for o in schema}


def options_strategy(game_id: str) -> st.SearchStrategy[dict[str, Any]]:
    schema = boardlab.game_class(game_id).schema
    return st.fixed_dictionaries(
        {o.name: st.sampled_from(option_values(game_id, o)) for o in schema}
    )


def games_strategy() -> st.SearchStrategy[Game[Any]]:
    """Any registered game under any option set the value lists can reach."""
    return st.sampled_from(boardlab.game_ids()).flatmap(
        lambda gid: options_strategy(gid).map(lambda options: boardlab.new_game(gid, options))
    )


def random_game(game: Game[Any], rng: random.Random) -> list[Position[Any]]:
    """The positions of one uniformly random game, start to end."""
    positions = [game.initial()]
    while not positions[-1].is_over():
        positions.append(positions[-1].play(rng.choice(positions[-1].legal_actions())))
    return positions
