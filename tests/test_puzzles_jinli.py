"""Jin Li's forced wins found by search (``boardlab.games.jinli.wins``), and the puzzles
they prove (docs/puzzles.md)."""

from __future__ import annotations

import random
from typing import Any

import pytest

import boardlab

pytest.importorskip("numba")

from boardlab.games.jinli.wins import JinLiWins, reference_turns

GAME = boardlab.new_game("jinli")
#: The card's example: d3-d4 lands next to three koi, 7 + 3 = 10 points, the target.
WIN_IN_ONE = "7/7/2Y1Y2/7/3RR2/7/7 r m 4/4 7/6 0 30"


def late_positions(game: Any, count: int, seed: int, last: int) -> list[Any]:
    """Positions of the last ``last`` plies of seeded random games."""
    rng = random.Random(seed)
    found: list[Any] = []
    while len(found) < count:
        position = game.initial()
        states = []
        while not position.is_over():
            states.append(position.state)
            position = position.play(rng.choice(position.legal_actions()))
        found.extend(states[-last:])
    return found[:count]


def named(game: Any, state: Any, turns: dict[int, int | None]) -> dict[str, int | None]:
    return {game.format_action(state, a): n for a, n in turns.items()}


def test_a_landing_that_reaches_the_target_wins_in_one_turn() -> None:
    state = GAME.parse_state(WIN_IN_ONE)
    turns = named(GAME, state, JinLiWins(GAME).turns(state, 0, 1))
    assert turns["d3-d4"] == 1 and turns["d3-c3"] is None
    assert turns == named(GAME, state, reference_turns(GAME, state, 0, 1))
    assert named(GAME, state, JinLiWins(GAME).turns(state, 0, 2))["d3-d4"] == 1
    # Yellow, not to act, cannot win before Red's landing ends the game
    assert set(JinLiWins(GAME).turns(state, 1, 2).values()) == {None}


@pytest.mark.parametrize(
    ("options", "seed"),
    [({}, 1), ({}, 2), ({"max_turns": 24, "stones": 3}, 3), ({"no_move": "lose", "stones": 12}, 4)],
)
def test_the_search_agrees_with_a_plain_search_over_the_engine(
    options: dict[str, Any], seed: int
) -> None:
    """Every legal action's least turns to a forced win, for both players, within one
    and (where few stones are left to drop: the plain search is slow) two turns; the
    options put the turn cap and a stuck player's loss, which the search's shortcuts
    leave out, in play."""
    game = boardlab.new_game("jinli", **options)
    search = JinLiWins(game)
    compared = forced = twice = 0
    for state in late_positions(game, 24, seed, 8):
        horizons = (1, 2) if sum(state.supply) == 0 else (1,)
        for player in (0, 1):
            for horizon in horizons:
                found = search.turns(state, player, horizon)
                assert found == reference_turns(game, state, player, horizon), (
                    game.format_state(state),
                    player,
                    horizon,
                )
                compared += 1
                twice += horizon == 2
                forced += any(found.values())
    assert compared >= 48 and twice and forced  # some forced wins among them
