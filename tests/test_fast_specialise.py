"""Compiled searches are specialised for each kernel in a generated module that numba
caches on disk, so a second process loads them instead of compiling them again."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import boardlab

pytest.importorskip("numba")

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


def child(game_id: str, folder: Path) -> tuple[int, int, int]:
    env = {**os.environ, "BOARDLAB_COMPILED": str(folder)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD.format(game=game_id)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0 and "Warning" not in done.stderr, done.stderr
    count, hits, misses = done.stdout.split()
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
