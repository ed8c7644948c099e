"""Every game's compiled kernel against its engine, through the one shipped check
(``boardlab.testing.check_kernel``): random games under the default options and hundreds
of random option sets, the perft positions (tests/data/perft) as starts, and the kernels
as plain Python (``NUMBA_DISABLE_JIT=1``). A fault planted in a copy of the fourth game's
kernel is caught. What only one kernel has is tested in tests/test_<id>_kernel.py."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from optional import need

need("numba")

import boardlab  # noqa: E402
from boardlab.core.game import Game  # noqa: E402
from boardlab.testing import ConformanceError, check_kernel  # noqa: E402
from fourth_game import TicTacToe  # noqa: E402
from support import perft_cases, random_options  # noqa: E402

TESTS = Path(__file__).resolve().parent
KERNEL_GAMES = [g for g in boardlab.game_ids() if boardlab.game_class(g).kernel]


def wide(cls: type[Game[Any]], rng: random.Random) -> dict[str, Any]:
    """Option sets over the value lists of tests/support.py (e.g. 16 pits, 22 stones):
    wider than check_kernel's own."""
    return random_options(cls.id, rng)


def test_every_shipped_game_has_a_kernel() -> None:
    assert boardlab.game_ids() == KERNEL_GAMES


@pytest.mark.parametrize("game_id", KERNEL_GAMES)
def test_default_options(game_id: str) -> None:
    assert check_kernel(game_id, option_sets=1, games=100, seed=1) > 100 * 10


@pytest.mark.parametrize("game_id", KERNEL_GAMES)
def test_random_option_sets(game_id: str) -> None:
    assert check_kernel(game_id, option_sets=600, games=1, seed=2, draw=wide) > 600
    assert check_kernel(game_id, option_sets=30, games=1, seed=3) > 30  # its own draw


@pytest.mark.parametrize("game_id", KERNEL_GAMES)
def test_perft_positions(game_id: str) -> None:
    """From every perft position: every position of the tree three actions deep and ten
    random games. (The kernel's perft counts against the tables, at every depth:
    tests/test_perft.py, test_compiled_perft_matches_table.)"""
    starts = [(options, position) for _, options, position, _ in perft_cases(game_id)]
    assert check_kernel(game_id, option_sets=0, games=10, starts=starts, depth=3) > 1000


PLAIN = """
import sys
sys.path.insert(0, {tests!r})
import boardlab
from boardlab.testing import check_kernel
from fourth_game import TicTacToe
from support import perft_cases
for game in [*{games!r}, TicTacToe]:
    name = getattr(game, "id", game)
    starts = [(o, p) for _, o, p, _ in perft_cases(name)][-1:] if name != "tictactoe" else []
    print(name, check_kernel(game, option_sets=3, games=1, seed=4, starts=starts, depth=1))
"""


def test_kernels_run_as_plain_python() -> None:
    """Every kernel, the fourth game's too, as plain Python: the same checks hold (its
    playouts the same as the engine's, so the same as compiled)."""
    code = PLAIN.format(tests=str(TESTS), games=KERNEL_GAMES)
    done = subprocess.run(
        [sys.executable, "-W", "ignore::RuntimeWarning", "-c", code],
        env=dict(os.environ, NUMBA_DISABLE_JIT="1"),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    counts = dict(line.split() for line in done.stdout.splitlines())
    assert list(counts) == [*KERNEL_GAMES, "tictactoe"]
    assert all(int(n) > 3 for n in counts.values())


# ---------------------------------------------------------------------- planted faults
def test_the_fourth_game_kernel_passes() -> None:
    assert check_kernel(TicTacToe, option_sets=12, games=4) > 12 * 4


def with_kernel(module: str | None) -> type[TicTacToe]:
    return type("Faulty", (TicTacToe,), {"kernel": module})


def planted(monkeypatch: pytest.MonkeyPatch, name: str, function: Any) -> type[TicTacToe]:
    """Tic-tac-toe whose kernel is a copy of its own with ``name`` replaced."""
    import fourth_game_kernel as real

    copy = SimpleNamespace(**vars(real))
    setattr(copy, name, function(getattr(real, name)))
    monkeypatch.setitem(sys.modules, "faulty_kernel", copy)
    return with_kernel("faulty_kernel")


def swap_first_two(legal: Any) -> Any:
    def faulty(s: np.ndarray, p: np.ndarray, out: np.ndarray) -> int:
        count = legal(s, p, out)
        if count > 1:
            out[0], out[1] = out[1], out[0]
        return count

    return faulty


def bad_observation(observe: Any) -> Any:
    def faulty(s: np.ndarray, p: np.ndarray, me: int, out: np.ndarray) -> None:
        observe(s, p, me, out)
        out[-1] += me  # the turns, seen wrong by o
        # (x sees them right: the check must look at both players)

    return faulty


def wrong_mark(apply: Any) -> Any:
    def faulty(s: np.ndarray, p: np.ndarray, action: int) -> None:
        apply(s, p, action)
        if action == 4:
            s[4] = 0  # the centre always x's

    return faulty


def no_draw(result: Any) -> Any:
    return lambda s, p: 0 if result(s, p) == 2 else result(s, p)


def stuck_player(to_act: Any) -> Any:
    return lambda s, p: 0


def fixed_choice(playout: Any) -> Any:
    """A playout that plays the first legal action, not the drawn one."""
    import fourth_game_kernel as real

    def faulty(s: np.ndarray, p: np.ndarray, g: np.ndarray) -> tuple[int, int]:
        out, actions = np.empty(9, dtype=np.int64), 0
        while real.legal(s, p, out):
            real.apply(s, p, out[0])
            actions += 1
        return real.result(s, p), actions

    return faulty


def side_read_wrong_at_the_start(decode: Any) -> Any:
    def faulty(game: Any, s: np.ndarray) -> Any:
        state = decode(game, s)
        return state._replace(side=1 - state.side) if state.turns == 0 else state

    return faulty


def tired_evaluation(evaluate: Any) -> Any:
    return lambda s, p, player: evaluate(s, p, player) + (0.5 if s[10] > 3 else 0.0)


FAULTS = [
    ("legal", swap_first_two, "kernel legal [1, 0, 2"),
    ("observe", bad_observation, "observation of player 1 differs at [10]"),
    ("apply", wrong_mark, "state after b2 differs"),
    ("result", no_draw, "kernel result 0, engine 2"),
    ("to_act", stuck_player, "kernel to_act 0"),
    ("playout", fixed_choice, "playout"),
    ("decode", side_read_wrong_at_the_start, "decode(encode(state)) differs"),
    ("evaluate", tired_evaluation, "evaluation for player 0"),
]


@pytest.mark.parametrize(("name", "fault", "said"), FAULTS, ids=[f[0] for f in FAULTS])
def test_a_planted_fault_is_caught(
    monkeypatch: pytest.MonkeyPatch, name: str, fault: Any, said: str
) -> None:
    faulty = planted(monkeypatch, name, fault)
    with pytest.raises(ConformanceError) as caught:
        check_kernel(faulty, option_sets=12, games=4)
    assert said in str(caught.value)
    assert str(caught.value).startswith("tictactoe")  # the game, then where
    assert " at '" in str(caught.value)  # the position string


def test_a_fault_compiled_into_a_copy_of_the_module_is_caught(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kernel's source copied with one observation entry changed, compiled by numba."""
    source = (TESTS / "fourth_game_kernel.py").read_text()
    faulty = source.replace("out[k] = s[k]", "out[k] = s[k] if k != 4 else 0")
    assert faulty != source
    (tmp_path / "copied_kernel.py").write_text(faulty)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert check_kernel(with_kernel("fourth_game_kernel"), option_sets=2, games=1) > 0
    with pytest.raises(ConformanceError, match="observation of player 0 differs at \\[4\\]"):
        check_kernel(with_kernel("copied_kernel"), option_sets=2, games=1)


def test_a_game_without_a_kernel_is_refused() -> None:
    with pytest.raises(ConformanceError, match="tictactoe: no kernel declared"):
        check_kernel(with_kernel(None), option_sets=1, games=1)
