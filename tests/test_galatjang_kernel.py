"""The Galatjang numba kernel against the readable engine: random games under the default
and random option sets, the perft positions and tables, random positions (1-16 pits,
blocked pits, many seeds), random playouts replayed by the engine, and the kernel as plain
Python (NUMBA_DISABLE_JIT=1)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any, cast

import numpy as np
import pytest

import boardlab
from boardlab.core.game import Game
from boardlab.fast import rng
from boardlab.games.galatjang import kernel
from boardlab.games.galatjang.game import Galatjang
from boardlab.games.galatjang.rules import BLOCKED, GalatjangState, end_reason, round_over
from support import compare_kernel, kernel_perft, perft_cases, random_options

PERFT_DEPTH = 4


def new_game(options: dict[str, Any] | None = None) -> Galatjang:
    return cast(Galatjang, boardlab.new_game("galatjang", options or {}))


CASES = perft_cases("galatjang")


def outcome_code(game: Game[GalatjangState], state: GalatjangState) -> int:
    outcome = game.outcome_of(state)
    return -1 if outcome is None else (2 if outcome.winner is None else outcome.winner)


def check_position(game: Game[GalatjangState], state: GalatjangState) -> np.ndarray:
    """Encoding round trip, legal actions, result and every child of one position."""
    p = kernel.params(game)
    out = np.zeros(kernel.MAX_LEGAL, dtype=np.int64)
    s = kernel.encode(game, state)
    assert kernel.decode(game, s) == state
    count = kernel.legal(s, p, out)
    assert list(out[:count]) == game.legal_actions(state), game.format_state(state)
    assert kernel.result(s, p) == outcome_code(game, state), game.format_state(state)
    for action in game.legal_actions(state):
        child = s.copy()
        kernel.apply(child, p, action)
        assert kernel.decode(game, child) == game.apply(state, action), (
            game.format_state(state),
            action,
        )
    return s


def engine_playout(
    game: Game[GalatjangState], state: GalatjangState, g: np.ndarray
) -> tuple[int, int, GalatjangState]:
    """The kernel's playout rule played by the engine: index below(g, count) each time."""
    actions = 0
    while legal := game.legal_actions(state):
        state = game.apply(state, legal[rng.below(g, len(legal))])
        actions += 1
    return outcome_code(game, state), actions, state


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


# ------------------------------------------------------------------ random games
def test_default_options_random_games() -> None:
    r = random.Random(1)
    game = new_game()
    compared = sum(compare_kernel(game, kernel, r) for _ in range(300))
    assert compared > 300 * 15


def test_random_option_sets() -> None:
    r = random.Random(2)
    compared = 0
    for _ in range(600):
        game = new_game(random_options("galatjang", r))
        compared += compare_kernel(game, kernel, r)
    assert compared > 600


def test_random_positions_any_pits_and_blocked_pits() -> None:
    r = random.Random(3)
    compared = 0
    for _ in range(500):
        game, state = random_position(r)
        compared += compare_kernel(game, kernel, r, state)
    assert compared > 500


# ------------------------------------------------------------------ perft data
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_perft_positions(case: tuple[str, dict[str, str], str, dict[int, int]]) -> None:
    _, options, text, counts = case
    game = new_game(dict(options))
    start = game.parse_state(text)
    s = kernel.encode(game, start)
    p = kernel.params(game)
    for depth in range(1, PERFT_DEPTH + 1):
        assert kernel_perft(kernel, s.copy(), p, depth) == counts[depth], depth
    # every position of the tree to depth 3 against the engine, then random games on
    frontier = [start]
    for _ in range(3):
        following = []
        for state in frontier:
            check_position(game, state)
            following += [game.apply(state, action) for action in game.legal_actions(state)]
        frontier = following
    r = random.Random(text)
    for state in frontier[:: max(1, len(frontier) // 20)]:
        compare_kernel(game, kernel, r, state)


# ------------------------------------------------------------------ playouts
def test_playouts_end_and_repeat_with_the_same_seed() -> None:
    r = random.Random(4)
    games = [new_game()] + [new_game(random_options("galatjang", r)) for _ in range(60)]
    for i, game in enumerate(games):
        p = kernel.params(game)
        start = kernel.encode(game, game.initial_state())
        first, second = start.copy(), start.copy()
        one = kernel.playout(first, p, rng.seeded(i))
        two = kernel.playout(second, p, rng.seeded(i))
        assert one == two
        assert np.array_equal(first, second)
        outcome, actions = one
        assert outcome in (0, 1, 2)
        assert 0 < actions <= game.max_actions
        assert kernel.result(first, p) == outcome
        assert kernel.legal(first, p, np.zeros(kernel.MAX_LEGAL, dtype=np.int64)) == 0


def test_playouts_equal_the_engine_with_the_same_choices() -> None:
    """The fast path and the general path both play the k-th legal action of the engine."""
    r = random.Random(5)
    starts = [(new_game(), new_game().initial_state())]
    for _ in range(60):
        game = new_game(random_options("galatjang", r))
        starts.append((game, game.initial_state()))
    for _ in range(60):
        starts.append(random_position(r))
    for pits in range(1, 7):  # up to 6 pits but more than 255 seeds: no bytes
        game = new_game({"pits": pits})
        ring = [r.randint(0, 80) for _ in range(2 * pits + 2)]
        ring[pits] = ring[-1] = 150
        starts.append((game, GalatjangState(tuple(ring), pits % 2, 1, 0)))
    for _, options, text, _ in CASES:
        game = new_game(dict(options))
        starts.append((game, game.parse_state(text)))
    for i, (game, state) in enumerate(starts):
        p = kernel.params(game)
        for seed in range(3):
            s = kernel.encode(game, state)
            g_kernel, g_engine = rng.seeded(100 * i + seed), rng.seeded(100 * i + seed)
            outcome, actions = kernel.playout(s, p, g_kernel)
            expected, expected_actions, end = engine_playout(game, state, g_engine)
            assert (outcome, actions) == (expected, expected_actions), game.format_state(state)
            assert kernel.decode(game, s) == end
            assert np.array_equal(g_kernel, g_engine)


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


# ------------------------------------------------------------------ plain Python
PLAIN = """
import random, sys, warnings
sys.path.insert(0, {tests!r})
warnings.simplefilter("ignore", RuntimeWarning)  # numpy scalars warn on wrapping uint64
import numpy as np
import boardlab
from support import compare_kernel, random_options
from boardlab.fast import rng
from boardlab.games.galatjang import kernel
from boardlab.games.galatjang.game import Galatjang
r = random.Random(7)
games = [boardlab.new_game("galatjang")]
games += [boardlab.new_game("galatjang", random_options("galatjang", r)) for _ in range(4)]
games.append(boardlab.new_game("galatjang", {{"rounds": 3, "pits": 3, "seeds": 2}}))
compared = sum(compare_kernel(game, kernel, r) for game in games)
for game in games:
    s = kernel.encode(game, game.initial_state())
    print("playout", *kernel.playout(s, kernel.params(game), rng.seeded(9)), *s)
print("compared", compared)
"""


def test_kernel_runs_as_plain_python() -> None:
    code = PLAIN.format(tests=str(Path(__file__).parent))
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    plain = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert plain.returncode == 0, plain.stderr
    assert "compared" in plain.stdout
    compiled = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert compiled.returncode == 0, compiled.stderr
    playouts = [line for line in plain.stdout.splitlines() if line.startswith("playout")]
    assert len(playouts) == 6
    assert playouts == [line for line in compiled.stdout.splitlines() if line.startswith("playout")]
