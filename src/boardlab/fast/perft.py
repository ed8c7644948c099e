"""perft over a compiled kernel: an explicit stack of states (no recursion), counting the
legal actions of the last ply in bulk. For deep counts that the Python perft would need
minutes for; compiled once per process (a second or two)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from boardlab.core.game import Game
from boardlab.fast.batch import kernel_for
from boardlab.fast.specialise import specialised


@njit(cache=False)
def _perft(
    legal: Any, apply: Any, root: np.ndarray, p: np.ndarray, depth: int, max_legal: int
) -> int:
    states = np.empty((depth + 1, root.shape[0]), dtype=np.int64)
    actions = np.empty((depth + 1, max_legal), dtype=np.int64)
    counts = np.zeros(depth + 1, dtype=np.int64)
    index = np.zeros(depth + 1, dtype=np.int64)
    states[0, :] = root
    counts[0] = legal(states[0], p, actions[0])
    if depth == 1:
        return int(counts[0])
    total = 0
    ply = 0
    while ply >= 0:
        if index[ply] >= counts[ply]:
            ply -= 1
            continue
        action = actions[ply, index[ply]]
        index[ply] += 1
        states[ply + 1, :] = states[ply]
        apply(states[ply + 1], p, action)
        n = legal(states[ply + 1], p, actions[ply + 1])
        if ply + 2 == depth:
            total += n  # the last ply, counted in bulk
        else:
            ply += 1
            counts[ply] = n
            index[ply] = 0
    return total


def compiled_perft(game: Game[Any], state: Any, depth: int) -> int:
    """perft(state, depth) by the game's compiled kernel."""
    if depth == 0:
        return 1
    kernel = kernel_for(game)
    root, p = kernel.encode(game, state), kernel.params(game)
    count = specialised(_perft, kernel.__name__, ("legal", "apply"))
    return int(count(root, p, depth, kernel.MAX_LEGAL))
