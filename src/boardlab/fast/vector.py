"""Many games stepped together in compiled code: the batched environment.

``Batch(game, n)`` holds ``n`` games of one game under one option set as rows of an
``int64`` array in the game's kernel encoding, and one ``step(actions)`` call plays an
action in every game in a single compiled loop over the kernel's ``apply``, ``result``,
``legal`` and ``observe``. It keeps, for every game, the observation of the player to
act (``Game.observation``), the legal action mask over the game's flat action space, the
player to act, and after each step the rewards of both players (1, -1 or 0 at the end, 0
before) and whether the game just ended. A game that ends is started again in the same
call (its row holds the new start; ``final_observation`` the last view of the game that
ended, from the side of the player who made its last action).

The step is one template specialised per kernel (``fast.specialise``), so every game
gets it and numba caches it on disk; with ``threads`` > 1 the rows are split over that
many threads. ``random_actions`` draws a uniform legal action for every game from one
generator stream per game, for benchmarks and random opponents.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

from boardlab.core.errors import IllegalActionError
from boardlab.core.game import Game
from boardlab.core.i18n import _
from boardlab.fast import rng
from boardlab.fast.batch import kernel_for
from boardlab.fast.specialise import specialised

KERNEL_FUNCTIONS = ("legal", "apply", "result", "observe", "to_act")


@njit(cache=False)
def _step_rows(
    legal: Any,
    apply: Any,
    result: Any,
    observe: Any,
    to_act: Any,
    states: np.ndarray,
    start: np.ndarray,
    p: np.ndarray,
    actions: np.ndarray,
    legal_n: np.ndarray,
    legal_a: np.ndarray,
    masks: np.ndarray,
    obs: np.ndarray,
    acting: np.ndarray,
    rewards: np.ndarray,
    ended: np.ndarray,
    final_obs: np.ndarray,
    chunks: int,
) -> None:
    """Play ``actions[i]`` in game ``i`` (a negative action starts it again), then
    refresh its legal actions, mask, player to act and observation; the rows are split
    in ``chunks`` (run in parallel where compiled so)."""
    n = states.shape[0]
    for chunk in prange(chunks):
        for i in range(chunk * n // chunks, (chunk + 1) * n // chunks):
            s = states[i]
            rewards[i, 0] = 0.0
            rewards[i, 1] = 0.0
            ended[i] = False
            if actions[i] < 0:
                s[:] = start
            else:
                mover = acting[i]
                apply(s, p, actions[i])
                outcome = result(s, p)
                if outcome >= 0:
                    ended[i] = True
                    if outcome < 2:
                        rewards[i, outcome] = 1.0
                        rewards[i, 1 - outcome] = -1.0
                    observe(s, p, mover, final_obs[i])
                    s[:] = start
            for k in range(legal_n[i]):
                masks[i, legal_a[i, k]] = 0
            count = legal(s, p, legal_a[i])
            legal_n[i] = count
            for k in range(count):
                masks[i, legal_a[i, k]] = 1
            player = to_act(s, p)
            acting[i] = player
            observe(s, p, player, obs[i])


@njit(cache=True)
def _illegal(masks: np.ndarray, actions: np.ndarray) -> tuple[int, int]:
    """The first game whose action is not legal (-1 if none) and how many are not."""
    first, count = -1, 0
    for i in range(actions.shape[0]):
        a = actions[i]
        if a < 0 or a >= masks.shape[1] or masks[i, a] == 0:
            count += 1
            if first < 0:
                first = i
    return first, count


@njit(cache=True)
def _random_actions(
    legal_n: np.ndarray, legal_a: np.ndarray, generators: np.ndarray, out: np.ndarray
) -> None:
    for i in range(legal_n.shape[0]):
        out[i] = legal_a[i, rng.below(generators[i], legal_n[i])]


class Batch:
    """``n`` games of ``game`` stepped together (see the module's text). The arrays are
    the batch's own and change in place at every step: copy what must be kept."""

    def __init__(self, game: Game[Any], n: int, seed: int = 0, threads: int = 1) -> None:
        if n < 1:
            raise ValueError(_("a batch needs at least 1 game, got {n}").format(n=n))
        kernel = kernel_for(game)
        self.game, self.n, self.threads = game, n, max(1, min(threads, n))
        self.p = kernel.params(game)
        self.start = kernel.encode(game, game.initial_state())
        size = len(game.observation(game.initial_state()))
        self.states = np.tile(self.start, (n, 1))
        self.legal_n = np.zeros(n, np.int64)
        self.legal_a = np.zeros((n, kernel.MAX_LEGAL), np.int64)
        self.masks = np.zeros((n, game.num_actions), np.int8)
        self.observations = np.zeros((n, size), np.float32)
        self.final_observations = np.zeros((n, size), np.float32)
        self.to_act = np.zeros(n, np.int64)
        self.rewards = np.zeros((n, 2), np.float32)
        self.ended = np.zeros(n, np.bool_)
        self.generators = np.stack([rng.seeded(seed * 1_000_003 + i) for i in range(n)])
        self._step = specialised(
            _step_rows, kernel.__name__, KERNEL_FUNCTIONS, parallel=self.threads > 1
        )
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        """Every game back to the start (and, with ``seed``, new generator streams)."""
        if seed is not None:
            self.generators = np.stack([rng.seeded(seed * 1_000_003 + i) for i in range(self.n)])
        self._run(np.full(self.n, -1, np.int64))

    def step(self, actions: Any) -> None:
        """Play ``actions[i]`` in game ``i``, for every game. Every action is checked
        first: an illegal one raises ``IllegalActionError`` and no game changes."""
        actions = np.asarray(actions)
        if actions.shape != (self.n,) or not np.issubdtype(actions.dtype, np.integer):
            raise IllegalActionError(
                _(
                    "expected {n} integer actions, one a game, got an array of shape {shape} "
                    "and type {dtype}"
                ).format(n=self.n, shape=actions.shape, dtype=actions.dtype)
            )
        actions = actions.astype(np.int64, copy=False)
        bad, count = _illegal(self.masks, actions)
        if bad >= 0:
            raise IllegalActionError(
                _(
                    "illegal action {action} in game {index} of the batch ({count} illegal in "
                    "all); its legal actions are {legal}"
                ).format(
                    action=int(actions[bad]),
                    index=bad,
                    count=count,
                    legal=", ".join(map(str, self.legal_a[bad, : self.legal_n[bad]])),
                )
            )
        self._run(actions)

    def _run(self, actions: np.ndarray) -> None:
        self._step(
            self.states,
            self.start,
            self.p,
            actions,
            self.legal_n,
            self.legal_a,
            self.masks,
            self.observations,
            self.to_act,
            self.rewards,
            self.ended,
            self.final_observations,
            self.threads,
        )

    def random_actions(self) -> np.ndarray:
        """A uniformly drawn legal action for every game (each game its own stream)."""
        out = np.empty(self.n, np.int64)
        _random_actions(self.legal_n, self.legal_a, self.generators, out)
        return out
