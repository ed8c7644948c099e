"""The engine against a second, deliberately simple implementation of the game cards
(``tests/reference``, string in, string out, written separately from the engine).

On every position of many random games under random option sets, both must agree on the
position string, the legal actions, the position after every legal action, and the
outcome."""

from __future__ import annotations

import random
from types import ModuleType
from typing import Any

import pytest

import boardlab
from boardlab.core.game import Position
from reference import galatjang, jinli, linja
from support import random_options

REFERENCES: dict[str, ModuleType] = {"jinli": jinli, "linja": linja, "galatjang": galatjang}
#: Random games per game id and test chunk; chunks run in parallel under pytest-xdist.
GAMES_PER_CHUNK = 100
CHUNKS = 5


def reference_outcome(position: Position[Any]) -> tuple[str, tuple[int, int], str] | None:
    outcome = position.outcome()
    return None if outcome is None else (outcome.winner_name, outcome.points, outcome.reason)


def compare_game(game_id: str, options: dict[str, Any], rng: random.Random) -> int:
    """Play one random game with the engine, checking the reference at every step;
    returns the number of positions compared."""
    ref = REFERENCES[game_id]
    game = boardlab.new_game(game_id, options)
    position = game.initial()
    text = ref.initial(options)
    compared = 0
    while True:
        assert position.position_string() == text, f"{options}: engine {position} vs {text}"
        legal = position.legal_action_strings()
        assert sorted(legal) == sorted(ref.legal(options, text)), f"{options}: {text}"
        assert reference_outcome(position) == ref.outcome(options, text), f"{options}: {text}"
        compared += 1
        if not legal:
            return compared
        for action in position.legal_actions():
            child = position.play_unchecked(action).position_string()
            expected = ref.play(options, text, position.action_string(action))
            assert child == expected, f"{options}: {text} {position.action_string(action)}"
        action = rng.choice(position.legal_actions())
        text = ref.play(options, text, position.action_string(action))
        position = position.play(action)


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize("game_id", list(REFERENCES))
def test_engine_agrees_with_reference_on_random_games(game_id: str, chunk: int) -> None:
    rng = random.Random(f"{game_id}-{chunk}")
    positions = 0
    for index in range(GAMES_PER_CHUNK):
        options = {} if index == 0 else random_options(game_id, rng)
        positions += compare_game(game_id, options, rng)
    assert positions > GAMES_PER_CHUNK


@pytest.mark.parametrize("game_id", list(REFERENCES))
def test_engine_agrees_with_reference_under_default_options(game_id: str) -> None:
    rng = random.Random(game_id)
    for _ in range(20):
        compare_game(game_id, {}, rng)
