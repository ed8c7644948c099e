"""Compiled searches are specialised for each kernel in a generated module that numba
caches on disk, so a second process loads them instead of compiling them again."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import boardlab
from optional import need

need("numba")

CHILD = """
import boardlab
from boardlab.fast.perft import compiled_perft
from boardlab.fast import perft as module
from boardlab.fast.specialise import specialised
game = boardlab.new_game("{game}")
print(compiled_perft(game, game.initial_state(), 4))
count = specialised(module._perft, game.kernel, ("legal", "apply"))
print(sum(count.stats.cache_hits.values()), sum(count.stats.cache_misses.values()))
"""


def run(code: str, folder: Path, path: str = "") -> list[str]:
    """The words ``code`` prints in a new process that compiles into ``folder``."""
    env = {**os.environ, "BOARDLAB_COMPILED": str(folder)}
    if path:
        env["PYTHONPATH"] = os.pathsep.join([path, os.environ.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0 and "Warning" not in done.stderr, done.stderr
    return done.stdout.split()


def child(game_id: str, folder: Path) -> tuple[int, int, int]:
    count, hits, misses = run(CHILD.format(game=game_id), folder)
    return int(count), int(hits), int(misses)


@pytest.mark.parametrize("game_id", boardlab.game_ids())
def test_a_second_process_loads_the_search_from_the_cache(game_id: str, tmp_path: Path) -> None:
    from boardlab.core.perft import perft

    expected = perft(boardlab.new_game(game_id).initial(), 4)
    first = child(game_id, tmp_path)
    assert first[0] == expected and first[2] == 1  # compiled once, and cached
    assert list(tmp_path.glob("*.py")) and list(tmp_path.glob("__pycache__/*.nbi"))
    second = child(game_id, tmp_path)
    assert second == (expected, 1, 0)  # loaded, not compiled


def test_the_template_must_start_with_the_kernel_functions() -> None:
    from boardlab.fast.perft import _perft
    from boardlab.fast.specialise import specialised

    with pytest.raises(ValueError, match="does not start with parameters"):
        specialised(_perft, boardlab.new_game("linja").kernel or "", ("apply", "legal"))


FAKE_KERNEL = """
from numba import njit


@njit(cache=True)
def legal(s, p, out):
    for k in range({moves}):
        out[k] = k
    return {moves}


@njit(cache=True)
def apply(s, p, action):
    s[0] += action
"""

FAKE_CHILD = """
import numpy as np
from boardlab.fast import perft
from boardlab.fast.specialise import specialised
count = specialised(perft._perft, "fakegame.kernel", ("legal", "apply"), inline={inline})
print(count(np.zeros(1, np.int64), np.zeros(1, np.int64), 3, 8), count.__module__)
"""


def test_a_changed_kernel_is_compiled_again_and_the_old_module_pruned(tmp_path: Path) -> None:
    # Numba's own cache of the generated module would keep the old kernel's code; the
    # superseded module and its cache go, while the other variant (inline) stays.
    package = tmp_path / "fakegame"
    package.mkdir()
    (package / "__init__.py").write_text("")
    folder = tmp_path / "compiled"
    seen: dict[bool, list[str]] = {False: [], True: []}
    for moves in (2, 3, 2):
        (package / "kernel.py").write_text(FAKE_KERNEL.format(moves=moves))
        for inline in (False, True):
            count, module = run(FAKE_CHILD.format(inline=inline), folder, str(tmp_path))
            assert int(count) == moves**3
            seen[inline].append(module)
        now = {seen[False][-1], seen[True][-1]}
        assert {path.stem for path in folder.glob("*.py")} == now
        cached = {path.name.split(".")[0] for path in (folder / "__pycache__").iterdir()}
        assert cached == now, "numba's cache of a pruned module is gone with it"
    for modules in seen.values():
        assert modules[0] != modules[1] and modules[0] == modules[2]  # the same source's name
    assert seen[False][0] != seen[True][0]


def test_a_helper_is_bound_to_the_kernel_and_compiled_beside_the_template() -> None:
    from boardlab.fast import vector

    kernel = str(boardlab.new_game("linja").kernel)
    step = vector.specialised(
        vector._step_rows,
        kernel,
        vector.KERNEL_FUNCTIONS,
        inline=True,
        helpers=(vector._play_rows,),
    )
    module = sys.modules[step.__module__]
    assert "parallel" not in module._play_rows.targetoptions  # run inside the prange loop
    assert "_play_rows(rows, actions," in Path(str(module.__file__)).read_text()
    # The kernel's functions must be passed on first, as the template receives them.
    with pytest.raises(ValueError, match="does not start with parameters"):
        vector.specialised(
            vector._step_rows, kernel, ("apply", "moves"), helpers=(vector._play_rows,)
        )
