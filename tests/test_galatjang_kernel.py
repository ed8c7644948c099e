"""What only the Galatjang kernel is tested on, beside the shipped check every kernel
passes (tests/test_kernels.py: random games, option sets, the perft trees, playouts,
plain Python): random positions (1-16 pits, blocked pits, many seeds, more than 255 in
all) against the engine, and the fast playout path against the general one."""

from __future__ import annotations

import random
from typing import Any, cast

import numpy as np

import boardlab
from boardlab.fast import rng
from boardlab.games.galatjang import kernel
from boardlab.games.galatjang.game import Galatjang
from boardlab.games.galatjang.rules import BLOCKED, GalatjangState, end_reason, round_over
from boardlab.testing import check_kernel_game, check_playout
from support import random_options


def new_game(options: dict[str, Any] | None = None) -> Galatjang:
    return cast(Galatjang, boardlab.new_game("galatjang", options or {}))


def random_cell(r: random.Random, blocked: bool, high: int) -> int:
    if blocked and r.random() < 0.2:
        return BLOCKED
    return r.randint(0, high) if r.random() < 0.8 else 0


def random_position(r: random.Random) -> tuple[Galatjang, GalatjangState]:
    """A random legal position: 1-16 pits, random seeds (up to far more than 255 in all),
    blocked pits when rounds > 1, any round and turn count, either side to act."""
    while True:
        options = random_options("galatjang", r)
        pits = r.randint(1, 16)
        options["pits"] = pits
        game = new_game(options)
        rules = game.rules
        high = r.choice((3, 8, 30, 60))
        cells = [random_cell(r, rules.rounds > 1, high) for _ in range(2 * pits)]
        ring = (*cells[:pits], r.randint(0, 40), *cells[pits:], r.randint(0, 40))
        state = GalatjangState(
            ring, r.randint(0, 1), r.randint(1, rules.rounds), r.randint(0, rules.max_turns)
        )
        if round_over(state, rules) and end_reason(state, rules) is None:
            continue  # not a position the engine accepts (the next round follows at once)
        return game, state


def test_random_positions_any_pits_and_blocked_pits() -> None:
    r = random.Random(3)
    compared = 0
    for _ in range(500):
        game, state = random_position(r)
        compared += check_kernel_game(game, r, state)
    assert compared > 500


def test_playouts_from_random_positions_equal_the_engine() -> None:
    """The fast path and the general path both play the k-th legal action of the engine
    (check_playout), from random positions and from rings of more than 255 seeds."""
    r = random.Random(5)
    starts = [random_position(r) for _ in range(60)]
    for pits in range(1, 7):  # up to 6 pits but more than 255 seeds: no bytes
        game = new_game({"pits": pits})
        ring = [r.randint(0, 80) for _ in range(2 * pits + 2)]
        ring[pits] = ring[-1] = 150
        starts.append((game, GalatjangState(tuple(ring), pits % 2, 1, 0)))
    for i, (game, state) in enumerate(starts):
        for seed in range(3):
            check_playout(game, state, 100 * i + seed)


def test_fast_playout_equals_the_general_path() -> None:
    r = random.Random(6)
    for i in range(150):
        options = random_options("galatjang", r)
        options.update(sow_opponent_store=True, skip_origin=False, pits=r.randint(1, 6))
        game = new_game(options)
        state = game.initial_state()
        for _ in range(r.randint(0, 20)):
            legal = game.legal_actions(state)
            if not legal:
                break
            state = game.apply(state, r.choice(legal))
        p = kernel.params(game)
        fast, general = kernel.encode(game, state), kernel.encode(game, state)
        g_fast, g_general = rng.seeded(i), rng.seeded(i)
        assert kernel.playout(fast, p, g_fast) == kernel._playout_general(general, p, g_general)
        assert np.array_equal(fast, general)
        assert np.array_equal(g_fast, g_general)
