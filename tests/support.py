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


def compare_kernel(game: Game[Any], kernel: Any, rng: random.Random) -> int:
    """Play one random game with the engine and check the compiled kernel at every
    position: encoding round trip, legal actions (same ints, same order), the state after
    every legal action, the result. Returns the number of positions compared."""
    import numpy as np

    p = kernel.params(game)
    out = np.zeros(kernel.MAX_LEGAL, dtype=np.int64)
    position = game.initial()
    compared = 0
    while True:
        s = kernel.encode(game, position.state)
        assert kernel.decode(game, s) == position.state
        count = kernel.legal(s, p, out)
        assert list(out[:count]) == list(position.legal_actions()), position
        outcome = position.outcome()
        expected = -1 if outcome is None else (2 if outcome.winner is None else outcome.winner)
        assert kernel.result(s, p) == expected, position
        compared += 1
        if outcome is not None:
            return compared
        for action in position.legal_actions():
            child = s.copy()
            kernel.apply(child, p, action)
            assert kernel.decode(game, child) == game.apply(position.state, action), (
                position,
                position.action_string(action),
            )
        position = position.play(rng.choice(position.legal_actions()))
