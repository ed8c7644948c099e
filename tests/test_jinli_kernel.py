"""What only the Jin Li kernel has, beside the shipped check every kernel passes
(tests/test_kernels.py): its bit helpers (portable and BMI2), the fused playout against
its own generic loop, the widest phases within ``MAX_LEGAL``, and the kernel compiled
for a CPU without fast BMI2 or run as plain Python (the portable path)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from typing import Any

import numpy as np

import boardlab
from boardlab.fast import rng
from boardlab.games.jinli import kernel
from support import perft_cases, random_options


def test_fused_playout_equals_the_generic_loop() -> None:
    """The same choices, final position and generator state as ``_playout_generic`` (the
    engine's own playout is compared in check_kernel)."""
    r = random.Random(11)
    starts: list[tuple[Any, Any]] = []
    option_sets: list[dict[str, Any]] = [{}, {"start": "inset", "first": "yellow"}]
    for options in option_sets + [random_options("jinli", r) for _ in range(150)]:
        game = boardlab.new_game("jinli", options)
        starts.append((game, game.initial_state()))
    for _, options, position, _ in perft_cases("jinli"):
        game = boardlab.new_game("jinli", options)
        starts.append((game, game.parse_state(position)))
    for i, (game, state) in enumerate(starts):
        p = kernel.params(game)
        for seed in (i, 1000 + i):
            fused, plain = kernel.encode(game, state), kernel.encode(game, state)
            g1, g2 = rng.seeded(seed), rng.seeded(seed)
            assert kernel.playout(fused, p, g1) == kernel._playout_generic(plain, p, g2)
            assert fused.tolist() == plain.tolist() and g1.tolist() == g2.tolist()


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
from boardlab.games.jinli import kernel
from boardlab.testing import check_kernel
from support import random_options
assert not kernel.USE_BMI2
if {check!r}:
    draw = lambda cls, r: random_options("jinli", r)
    print(check_kernel("jinli", option_sets=6, games=1, seed=5, draw=draw))
"""


def run_script(check: bool, **env: str) -> str:
    code = SCRIPT.format(tests=os.path.dirname(__file__), check=check)
    # Plain Python: xoshiro overflows numpy uint64 scalars on purpose (it wraps).
    done = subprocess.run(
        [sys.executable, "-W", "ignore::RuntimeWarning", "-c", code],
        env=dict(os.environ, **env),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_plain_python_takes_the_portable_path() -> None:
    """(check_kernel as plain Python: tests/test_kernels.py.)"""
    assert run_script(False, NUMBA_DISABLE_JIT="1") == ""


def test_portable_kernel_compiled_for_a_generic_cpu() -> None:
    """Compiled without pext/pdep (the path of CPUs without fast BMI2)."""
    assert int(run_script(True, NUMBA_CPU_NAME="generic")) > 100
