"""Batched playouts: many uniform-random games in one compiled call, optionally on every
core. The game's kernel ``playout`` is passed in as a compiled function, so one batch
loop serves every game (numba specialises it for each kernel on first use, per process).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np
from numba import njit, prange

from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game
from boardlab.core.i18n import _
from boardlab.fast import rng
from boardlab.fast.specialise import specialised

FIRST_WINS, SECOND_WINS, DRAWS, ACTIONS, ACTIONS_SQUARED = range(5)


def kernel_for(game: Game[Any]) -> ModuleType:
    """The compiled kernel module a game declares (``Game.kernel``)."""
    if game.kernel is None:
        raise BoardlabError(
            _("{game} has no compiled kernel: use the Python agents").format(game=game.name)
        )
    return importlib.import_module(game.kernel)


@njit(cache=False)
def _run(
    playout: Any, start: np.ndarray, p: np.ndarray, g: np.ndarray, count: int, stats: np.ndarray
) -> None:
    s = start.copy()
    for _game in range(count):
        s[:] = start
        result, actions = playout(s, p, g)
        stats[result] += 1
        stats[ACTIONS] += actions
        stats[ACTIONS_SQUARED] += actions * actions


@njit(cache=False, parallel=True)
def _run_parallel(
    playout: Any,
    start: np.ndarray,
    p: np.ndarray,
    generators: np.ndarray,
    count: int,
    stats: np.ndarray,
) -> None:
    chunks = generators.shape[0]
    for chunk in prange(chunks):
        share = count // chunks + (1 if chunk < count % chunks else 0)
        s = start.copy()
        for _game in range(share):
            s[:] = start
            result, actions = playout(s, p, generators[chunk])
            stats[chunk, result] += 1
            stats[chunk, ACTIONS] += actions
            stats[chunk, ACTIONS_SQUARED] += actions * actions


def rollout_function(game: Game[Any], seed: int) -> Callable[[Any], float]:
    """A compiled uniform-random rollout from an engine state: the result for the first
    player (1 win, 0 draw, -1 loss), with its own generator stream from ``seed``."""
    kernel = kernel_for(game)
    p, g = kernel.params(game), rng.seeded(seed)
    encode, playout = kernel.encode, kernel.playout
    values = (1.0, -1.0, 0.0)

    def rollout(state: Any) -> float:
        result, _ = playout(encode(game, state), p, g)
        return values[result]

    return rollout


@dataclass(frozen=True)
class PlayoutStats:
    """What a batch of uniform-random playouts found, from one position."""

    playouts: int
    first_wins: int
    second_wins: int
    draws: int
    actions: int
    actions_squared: int

    @property
    def mean_actions(self) -> float:
        return self.actions / self.playouts if self.playouts else 0.0

    def value(self, player: int) -> float:
        """Mean result for ``player`` in [-1, 1] (win 1, draw 0, loss -1)."""
        wins = self.first_wins if player == 0 else self.second_wins
        losses = self.second_wins if player == 0 else self.first_wins
        return (wins - losses) / self.playouts if self.playouts else 0.0


def playouts(
    game: Game[Any], state: Any, count: int, seed: int = 0, threads: int = 1
) -> PlayoutStats:
    """``count`` uniform-random playouts from ``state``, compiled; with ``threads`` > 1
    split over that many independent generator streams run in parallel."""
    kernel = kernel_for(game)
    start, p = kernel.encode(game, state), kernel.params(game)
    if threads <= 1:
        totals = np.zeros(5, dtype=np.int64)
        run = specialised(_run, kernel.__name__, ("playout",))
        run(start, p, rng.seeded(seed), count, totals)
    else:
        generators = np.stack([rng.seeded(seed * 1_000_003 + i) for i in range(threads)])
        stats = np.zeros((threads, 5), dtype=np.int64)
        run = specialised(_run_parallel, kernel.__name__, ("playout",), parallel=True)
        run(start, p, generators, count, stats)
        totals = stats.sum(axis=0)
    return PlayoutStats(count, *(int(x) for x in totals))
