"""Observation vectors: the layout each game declares, documented in its card, and the
compiled kernels' ``observe`` number for number against the engine's ``observation``."""

from __future__ import annotations

import importlib
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import boardlab
from support import random_game, random_options

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("game_id", boardlab.game_ids())
def test_the_layout_adds_up_and_every_number_lies_in_0_1(game_id: str) -> None:
    rng = random.Random(5)
    for _ in range(20):
        game = boardlab.new_game(game_id, random_options(game_id, rng))
        size = sum(feature.size for feature in game.observation_layout())
        for position in random_game(game, rng):
            for seat in (None, 0, 1):
                vector = game.observation(position.state, seat)
                assert len(vector) == size
                assert all(0.0 <= x <= 1.0 for x in vector), (position.position_string(), vector)
            assert game.observation(position.state) == game.observation(
                position.state, position.to_act
            )


@pytest.mark.parametrize("game_id", boardlab.game_ids())
def test_the_card_documents_every_feature(game_id: str) -> None:
    # the card's table row of each feature is the declaration, word for word
    card = (ROOT / "docs" / "games" / f"{game_id}.md").read_text()
    for feature in boardlab.new_game(game_id).observation_layout():
        assert table_row(feature) in card, table_row(feature)


def table_row(feature: Any) -> str:
    return f"| `{feature.name}` | {feature.size} | {feature.meaning} |"


@pytest.mark.parametrize("game_id", boardlab.game_ids())
def test_the_kernel_observes_as_the_engine_does(game_id: str) -> None:
    rng = random.Random(6)
    for n in range(30):
        options = {} if n == 0 else random_options(game_id, rng)
        game = boardlab.new_game(game_id, options)
        kernel: Any = importlib.import_module(str(game.kernel))
        p = kernel.params(game)
        size = len(game.observation(game.initial_state()))
        out = np.full(size, -1.0)
        for position in random_game(game, rng):
            for seat in (0, 1):
                kernel.observe(kernel.encode(game, position.state), p, seat, out)
                expected = game.observation(position.state, seat)
                assert out.tolist() == expected, position.position_string()


def test_the_view_is_the_observer_s() -> None:
    # The same Linja board with the colours swapped and mirrored: each player to act
    # sees his own pieces first, so only the rows' order and the observer differ.
    game = boardlab.new_game("linja")
    black = game.parse_state("5,2,1,1,1,1,1,0/0,1,1,1,1,1,1,6 b o 0 4")
    red = game.parse_state("6,1,1,1,1,1,1,0/0,1,1,1,1,1,2,5 r o 0 4")
    seen_by_black, seen_by_red = game.observation(black), game.observation(red)
    assert seen_by_black[:8] == seen_by_red[:8][::-1]
    assert seen_by_black[8:16] == seen_by_red[8:16][::-1]
    assert (seen_by_black[-2], seen_by_red[-2]) == (0.0, 1.0)
    assert seen_by_black[16:-2] == seen_by_red[16:-2] and seen_by_black[-1] == 1.0
    # the opponent's view of the same position: the two sides swap, it is not his turn
    other = game.observation(black, 1)
    assert other[:8] == seen_by_black[8:16] and other[8:16] == seen_by_black[:8]
    assert other[-2:] == [1.0, 0.0]
