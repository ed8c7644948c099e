"""The compiled Jin Li kernel against the readable engine (boardlab.games.jinli.rules).

Random games under the default options and hundreds of random option sets are compared
position by position (tests/support.py: compare_kernel); the perft tables are recomputed
with the kernel; the fused playout is checked against the plain legal/apply loop (same
choices, same final position, same generator state); and the kernel also runs as plain
Python (NUMBA_DISABLE_JIT=1)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import boardlab
from boardlab.fast import rng
from boardlab.games.jinli import kernel
from support import compare_kernel, kernel_perft, perft_cases, random_options

#: perft counts up to this size are recomputed with the kernel (every case to depth 4).
PERFT_LIMIT = 1_500_000


CASES = perft_cases("jinli")


def check_playout(game: Any, state: Any, seed: int) -> tuple[int, int]:
    """The fused playout against the plain legal/apply loop from ``state``: the same
    result, number of actions, final position and generator state; and the engine agrees
    that the final position is over with that result. Returns (result, actions)."""
    p = kernel.params(game)
    fused, plain = kernel.encode(game, state), kernel.encode(game, state)
    g1, g2 = rng.seeded(seed), rng.seeded(seed)
    got = kernel.playout(fused, p, g1)
    assert got == kernel._playout_generic(plain, p, g2)
    assert fused.tolist() == plain.tolist() and g1.tolist() == g2.tolist()
    outcome = game.outcome_of(kernel.decode(game, fused))
    assert outcome is not None
    assert got[0] == (2 if outcome.winner is None else outcome.winner)
    return int(got[0]), int(got[1])


def test_default_options() -> None:
    game = boardlab.new_game("jinli")
    r = random.Random(20240601)
    assert sum(compare_kernel(game, kernel, r) for _ in range(100)) > 5000


def test_to_act() -> None:
    r = random.Random(13)
    for _ in range(40):
        game = boardlab.new_game("jinli", random_options("jinli", r))
        assert compare_kernel(game, kernel, r) >= 1


def test_random_option_sets() -> None:
    r = random.Random(7)
    compared = 0
    for _ in range(600):
        game = boardlab.new_game("jinli", random_options("jinli", r))
        compared += compare_kernel(game, kernel, r)
    assert compared > 15_000


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_perft_positions(case: tuple[str, dict[str, str], str, dict[int, int]]) -> None:
    _, options, position, counts = case
    game = boardlab.new_game("jinli", options)
    state = game.parse_state(position)
    s, p = kernel.encode(game, state), kernel.params(game)
    checked = [(d, n) for d, n in counts.items() if d <= 4 or n <= PERFT_LIMIT]
    assert max(d for d, _ in checked) >= 4
    for depth, count in checked:
        assert kernel_perft(kernel, s, p, depth) == count, depth
    assert s.tolist() == kernel.encode(game, state).tolist()  # perft left the root alone
    r = random.Random(position)
    for _ in range(10):
        compare_kernel(game, kernel, r, state)
    for seed in range(20):
        check_playout(game, state, seed)


def test_playouts_terminate_and_repeat() -> None:
    r = random.Random(11)
    option_sets: list[dict[str, Any]] = [{}, {"start": "inset", "first": "yellow"}]
    option_sets += [random_options("jinli", r) for _ in range(150)]
    for i, options in enumerate(option_sets):
        game = boardlab.new_game("jinli", options)
        start = game.initial_state()
        for seed in (i, 1000 + i):
            result, actions = check_playout(game, start, seed)
            assert result in (0, 1, 2) and 0 <= actions <= game.max_actions
            again = kernel.playout(
                kernel.encode(game, start), kernel.params(game), rng.seeded(seed)
            )
            assert again == (result, actions)


def test_playout_of_a_finished_game_plays_nothing() -> None:
    game = boardlab.new_game("jinli", stones=0, no_move="lose", max_turns=5)
    over = game.initial().play_all(["a1-a2", "a7-a6", "a2-a3", "a6-a5", "a3-a4"]).state
    s, p = kernel.encode(game, over), kernel.params(game)
    assert kernel.legal(s, p, np.zeros(kernel.MAX_LEGAL, dtype=np.int64)) == 0
    assert kernel.playout(s, p, rng.seeded(3)) == (kernel.result(s, p), 0)
    assert kernel.decode(game, s) == over


def test_max_legal_bounds_the_widest_phases() -> None:
    game = boardlab.new_game("jinli", recycle=True, stones=22)
    out = np.zeros(kernel.MAX_LEGAL, dtype=np.int64)
    p = kernel.params(game)
    # All 44 stones of the largest game around four koi: a give of any of them; 45 empty
    # squares: a drop anywhere.
    wide = [
        ("oooooo1/ooooooo/ooooooo/ooYoYoo/ooooooo/ooRoRoo/ooooooo r g 0/0 0/0 0 44", 44),
        ("7/7/7/2Y1Y2/7/2R1R2/7 y d 5/5 0/0 0 3", 45),
    ]
    for text, actions in wide:
        state = game.parse_state(text)
        count = kernel.legal(kernel.encode(game, state), p, out)
        assert count == len(game.legal_actions(state)) == actions <= kernel.MAX_LEGAL


def test_bit_helpers() -> None:
    from boardlab.games.jinli.rules import ADJACENT, JUMPS

    r = random.Random(3)
    for _ in range(3000):
        x = r.getrandbits(49) & r.getrandbits(49) | 1 << r.randrange(49)
        bits = [i for i in range(49) if x >> i & 1]
        k = r.randrange(len(bits))
        assert kernel._popcount(x) == len(bits) and kernel._ctz(x) == bits[0]
        assert kernel._select_portable(x, k) == bits[k]
        square = r.randrange(49)
        koi = 1 << square
        stones = r.getrandbits(49) & ~koi
        empty = r.getrandbits(49) & ~stones & ~koi
        lands = sum(
            1 << land for _, over, land in JUMPS[square] if stones >> over & 1 and empty >> land & 1
        )
        assert kernel._jumps_portable(square, koi, empty, stones) == lands
        swims = ADJACENT[square] & empty
        codes = sum(
            1 << int(kernel.CODE[t - square + 16]) for t in range(49) if (swims | lands) >> t & 1
        )
        assert kernel._codes_portable(square, empty, stones) == codes
        if kernel.USE_BMI2:
            assert kernel._select_bmi2(x, k) == bits[k]
            assert kernel._jumps_bmi2(square, koi, empty, stones) == lands
            assert kernel._codes_bmi2(square, empty, stones) == codes


SCRIPT = """
import random, sys
sys.path.insert(0, {tests!r})
import boardlab
from boardlab.games.jinli import kernel
from support import compare_kernel, kernel_perft, perft_cases, random_options
import test_jinli_kernel as t
assert not kernel.USE_BMI2
r = random.Random(5)
games = [boardlab.new_game("jinli")] + [
    boardlab.new_game("jinli", random_options("jinli", r)) for _ in range(5)
]
compared = sum(compare_kernel(game, kernel, r) for game in games)
for i, game in enumerate(games):
    t.check_playout(game, game.initial_state(), i)
print(compared)
"""


def run_script(**env: str) -> int:
    code = SCRIPT.format(tests=str(Path(__file__).parent))
    # Plain Python: xoshiro overflows numpy uint64 scalars on purpose (it wraps).
    done = subprocess.run(
        [sys.executable, "-W", "ignore::RuntimeWarning", "-c", code],
        env=dict(os.environ, **env),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return int(done.stdout.split()[-1])


def test_kernel_runs_as_plain_python() -> None:
    assert run_script(NUMBA_DISABLE_JIT="1") > 100


def test_portable_kernel_compiled_for_a_generic_cpu() -> None:
    """Compiled without pext/pdep (the path of CPUs without fast BMI2)."""
    assert run_script(NUMBA_CPU_NAME="generic") > 100
