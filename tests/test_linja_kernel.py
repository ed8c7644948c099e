"""The compiled Linja kernel against the readable engine: random games under the default
and random option sets, random positions, the perft tables, and playouts."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from optional import need

need("numba")

import boardlab  # noqa: E402
from boardlab.core.errors import InvalidNotationError  # noqa: E402
from boardlab.fast import rng  # noqa: E402
from boardlab.games.linja import kernel  # noqa: E402
from support import compare_kernel, kernel_perft, perft_cases, random_options  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def game_of(options: dict[str, Any] | None = None) -> Any:
    return boardlab.new_game("linja", options or {})


CASES = perft_cases("linja")


def loop_playout(s: np.ndarray, p: np.ndarray, g: np.ndarray) -> tuple[int, int]:
    """The unfused playout: the full legal list, index ``below(g, count)``, apply."""
    out = np.zeros(kernel.MAX_LEGAL, dtype=np.int64)
    actions = 0
    while True:
        count = kernel.legal(s, p, out)
        if count == 0:
            return kernel.result(s, p), actions
        kernel.apply(s, p, int(out[rng.below(g, count)]))
        actions += 1


def test_default_options_random_games() -> None:
    r = random.Random(2024)
    game = game_of()
    compared = sum(compare_kernel(game, kernel, r) for _ in range(60))
    assert compared > 60 * 50


def test_random_option_sets() -> None:
    r = random.Random(7)
    seen = set()
    for _ in range(320):
        options = random_options("linja", r)
        seen.add(tuple(sorted(options.items())))
        compare_kernel(game_of(options), kernel, r)
    assert len(seen) > 150


def random_counts(r: random.Random) -> list[int]:
    """12 pieces over rows 0..7: spread out, or packed into a few rows (full rows,
    empty goals and start zones, blocked moves)."""
    rows = list(range(8)) if r.random() < 0.4 else r.sample(range(8), r.randint(1, 4))
    counts = [0] * 8
    for _ in range(12):
        counts[r.choice(rows)] += 1
    return counts


def random_state_string(r: random.Random, extra_turn: bool) -> str:
    """A random position string (not always a legal one: the parser judges)."""
    while True:
        black, red = random_counts(r), random_counts(r)
        if all(black[i] + red[i] <= 6 for i in range(1, 7)):
            break
    phase = r.choice(("o", "o", "b", f"f{r.randint(1, 5)}", f"f{r.randint(6, 70)}"))
    if extra_turn:
        phase = phase.replace("b", "o") + r.choice(("", "+"))
    return (
        f"{','.join(map(str, black))}/{','.join(map(str, red))} {r.choice('br')} {phase} "
        f"{r.choice((0, 0, 1, 2, 3))} {r.choice((0, 5, 8, 999))}"
    )


#: (options, position): corners of the rules
EDGE_CASES = [
    # an extra turn without an opening move: pass, not a pass turn
    ("ruleset=extra-turn", "6,0,0,0,0,0,0,6/6,6,0,0,0,0,0,0 b o+ 1 4"),
    ("ruleset=extra-turn", "0,0,0,0,0,0,6,6/6,0,0,0,0,0,0,6 r o+ 1 4"),
    # a follow-up into an empty goal earns no extra turn
    ("ruleset=extra-turn", "6,1,1,1,1,1,1,0/3,2,2,2,2,1,0,0 b f1 0 3"),
    ("ruleset=extra-turn", "0,0,1,2,2,2,2,3/0,1,1,1,1,1,1,6 r f1 0 3"),
    # a follow-up far beyond the goal while row 6 (row 1) is full
    ("", "6,1,1,1,1,1,1,0/0,1,1,1,1,0,5,3 b f7 0 3"),
    ("", "3,5,0,1,1,1,1,0/0,1,1,1,1,1,1,6 r f7 0 3"),
    ("nasty=true goal_step_back=true", "2,1,2,1,2,1,1,2/1,1,2,1,2,1,2,2 b b 0 20"),
    ("nasty=true goal_step_back=true", "2,1,2,1,2,1,1,2/1,1,2,1,2,1,2,2 r b 0 20"),
    ("bonus_after_opening=true", "0,0,0,0,0,0,6,6/6,0,0,0,0,0,0,6 b o 0 0"),
]


@pytest.mark.parametrize(("options", "position"), EDGE_CASES)
def test_edge_cases(options: str, position: str) -> None:
    game = game_of(dict(o.split("=") for o in options.split()))
    r = random.Random(position)
    for _ in range(20):
        compare_kernel(game, kernel, r, game.parse_state(position))


def test_random_positions() -> None:
    r = random.Random(11)
    positions = 0
    while positions < 1500:
        options = random_options("linja", r)
        game = game_of(options)
        try:
            state = game.parse_state(random_state_string(r, game.rules.extra_turn))
        except InvalidNotationError:
            continue
        positions += 1
        compare_kernel(game, kernel, r, state)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_perft_positions(case: tuple[str, dict[str, str], str, dict[int, int]]) -> None:
    _, options, position, counts = case
    game = game_of(options)
    state = game.parse_state(position)
    s, p = kernel.encode(game, state), kernel.params(game)
    for depth in range(1, 5):
        assert kernel_perft(kernel, s, p, depth) == counts[depth], depth
    r = random.Random(position)
    assert sum(compare_kernel(game, kernel, r, state) for _ in range(10)) > 10


def test_playouts_terminate_and_repeat() -> None:
    r = random.Random(5)
    for i in range(60):
        game = game_of(random_options("linja", r) if i else None)
        p = kernel.params(game)
        start = kernel.encode(game, game.initial_state())
        first = kernel.playout(start.copy(), p, rng.seeded(i))
        assert first == kernel.playout(start.copy(), p, rng.seeded(i))
        assert first[0] in (0, 1, 2) and 0 < first[1] <= game.max_actions
        # the fused playout picks the same actions as the legal list and apply
        s, t = start.copy(), start.copy()
        assert kernel.playout(s, p, rng.seeded(i)) == loop_playout(t, p, rng.seeded(i))
        assert s.tolist() == t.tolist()
        assert kernel.legal(s, p, np.zeros(kernel.MAX_LEGAL, dtype=np.int64)) == 0
        assert kernel.result(s, p) == first[0]


def test_playouts_from_random_positions_match_the_loop() -> None:
    r = random.Random(13)
    done = 0
    while done < 200:
        game = game_of(random_options("linja", r))
        try:
            state = game.parse_state(random_state_string(r, game.rules.extra_turn))
        except InvalidNotationError:
            continue
        done += 1
        p = kernel.params(game)
        s, t = kernel.encode(game, state), kernel.encode(game, state)
        assert kernel.playout(s, p, rng.seeded(done)) == loop_playout(t, p, rng.seeded(done))
        assert s.tolist() == t.tolist()


def plain_python_check() -> int:
    """Run in a subprocess with ``NUMBA_DISABLE_JIT=1``: a few games under random options
    and fused playouts against the loop. Returns the number of positions compared."""
    r = random.Random(3)
    games = [game_of()] + [game_of(random_options("linja", r)) for _ in range(4)]
    compared = sum(compare_kernel(game, kernel, r) for game in games)
    for i, game in enumerate(games):
        p = kernel.params(game)
        s = kernel.encode(game, game.initial_state())
        t = s.copy()
        assert kernel.playout(s, p, rng.seeded(i)) == loop_playout(t, p, rng.seeded(i))
        assert s.tolist() == t.tolist()
    return compared


def test_kernel_runs_as_plain_python() -> None:
    code = "import test_linja_kernel as t; print(t.plain_python_check())"
    env = dict(os.environ, NUMBA_DISABLE_JIT="1", PYTHONPATH=str(ROOT / "tests"))
    done = subprocess.run(
        [sys.executable, "-W", "ignore::RuntimeWarning", "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 5 * 20
