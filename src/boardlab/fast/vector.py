"""Many games stepped together in compiled code: the batched environment.

``Batch(game, n)`` holds ``n`` games of one game under one option set as rows of an
``int64`` array in the game's kernel encoding, and one ``step(actions)`` call plays an
action in every game in a single compiled loop over the kernel's ``apply``, ``result``,
``moves`` and ``observe``. It keeps, for every game, the observation of the player to
act (``Game.observation``), the legal action mask over the game's flat action space, the
player to act, and after each step the rewards of both players (1, -1 or 0 at the end, 0
before) and whether the game just ended. A game that ends is started again in the same
call (its row holds the new start; ``final_observation`` the last view of the game that
ended, from the side of the player who made its last action).

The step is one template specialised per kernel (``fast.specialise``), so every game
gets it and numba caches it on disk; with ``threads`` > 1 the rows are split over that
many threads, each given at least ``ROWS_A_THREAD`` rows (fewer cost more in starting
the threads than they gain). ``random_actions`` draws a uniform legal action for every
game from one generator stream per game, for benchmarks and random opponents;
``play_random(k)`` plays ``k`` such steps in one compiled call, each thread going on
with its own rows without waiting for the other (random rollouts at full speed, and the
measure that matches pgx's ``lax.scan`` of steps).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange, uint64

from boardlab.core.errors import IllegalActionError
from boardlab.core.game import Game
from boardlab.core.i18n import _
from boardlab.fast import rng
from boardlab.fast.batch import kernel_for
from boardlab.fast.borrow import row, whole
from boardlab.fast.specialise import specialised

KERNEL_FUNCTIONS = ("moves", "apply", "result", "observe", "to_act")
#: The fewest rows a thread is given (measured on 2 cores: at 64 games two threads are
#: slower than one, at 128 about even, at 256 a third faster).
ROWS_A_THREAD = 64


@njit(cache=False)
def _play_rows(
    moves: Any,
    apply: Any,
    result: Any,
    observe: Any,
    to_act: Any,
    rows: tuple[np.ndarray, ...],
    actions: np.ndarray,
    low: int,
    high: int,
) -> None:
    """Play ``actions[i]`` in games ``low`` to ``high - 1`` (a negative action starts
    the game again), then refresh their legal actions, masks, players to act and
    observations. ``rows`` holds the batch's arrays (``Batch._rows``)."""
    states, start, p, legal_n, legal_a, masks, obs, acting, rewards, ended, final_obs = rows
    options = whole(p)  # borrowed views: no reference counting in the kernel's calls
    for i in range(low, high):
        s = row(states, i)
        rewards[i, 0] = 0.0
        rewards[i, 1] = 0.0
        ended[i] = False
        if actions[i] < 0:
            s[:] = start
        else:
            mover = acting[i]
            apply(s, options, actions[i])
            outcome = result(s, options)
            if outcome >= 0:
                ended[i] = True
                if outcome < 2:
                    rewards[i, outcome] = 1.0
                    rewards[i, 1 - outcome] = -1.0
                observe(s, options, mover, row(final_obs, i))
                s[:] = start
        # The whole row: a straight loop the compiler vectorises, 4 to 8 ns a game
        # faster than clearing the last legal actions one by one (6 to 883 actions).
        for action in range(masks.shape[1]):
            masks[i, action] = 0
        legal = row(legal_a, i)
        count = moves(s, options, legal)  # the game goes on: ``result`` said so
        legal_n[i] = count
        mask = row(masks, i)
        for k in range(count):
            mask[uint64(legal[k])] = 1  # unsigned: no wraparound test
        player = to_act(s, options)
        acting[i] = player
        observe(s, options, player, row(obs, i))


@njit(cache=True)
def _draw(
    legal_n: np.ndarray,
    legal_a: np.ndarray,
    generators: np.ndarray,
    out: np.ndarray,
    low: int,
    high: int,
) -> None:
    """A uniform legal action for games ``low`` to ``high - 1``, each from its own stream."""
    for i in range(low, high):
        out[i] = legal_a[i, rng.below(generators[i], legal_n[i])]


@njit(cache=True, parallel=True)
def _draw_in_chunks(
    legal_n: np.ndarray, legal_a: np.ndarray, generators: np.ndarray, out: np.ndarray, chunks: int
) -> None:
    """``_draw`` for every game, each chunk of rows on the thread that steps it."""
    n = legal_n.shape[0]
    for chunk in prange(chunks):
        _draw(legal_n, legal_a, generators, out, chunk * n // chunks, (chunk + 1) * n // chunks)


@njit(cache=False)
def _step_rows(
    moves: Any,
    apply: Any,
    result: Any,
    observe: Any,
    to_act: Any,
    rows: tuple[np.ndarray, ...],
    generators: np.ndarray,
    actions: np.ndarray,
    illegal: np.ndarray,
    check: bool,
    steps: int,
) -> int:
    """``_play_rows`` for every game. With ``check``, every action is checked first and
    nothing is played if one is not legal: the number returned (``illegal[c]``: how
    many of chunk ``c`` are not, and the first). With ``steps`` > 0, ``actions`` is
    scratch and ``steps`` steps are played instead, each game's action drawn from its
    stream of ``generators``. The rows are split in ``len(illegal)`` chunks, run in
    parallel where compiled so: each thread checks, plays and draws for the same rows,
    so no row's memory goes from one core to another, and random steps go on with no
    thread waiting for another (the games are independent)."""
    n, chunks = actions.shape[0], illegal.shape[0]
    legal_n, legal_a, masks = rows[3], rows[4], rows[5]  # in Batch._rows's order
    if steps > 0:
        for chunk in prange(chunks):
            low, high = chunk * n // chunks, (chunk + 1) * n // chunks
            for _step in range(steps):
                _draw(legal_n, legal_a, generators, actions, low, high)
                _play_rows(moves, apply, result, observe, to_act, rows, actions, low, high)
        return 0
    if check:
        for chunk in prange(chunks):
            count, first = 0, -1
            for i in range(chunk * n // chunks, (chunk + 1) * n // chunks):
                a = actions[i]
                if a < 0 or a >= masks.shape[1] or masks[i, a] == 0:
                    first = i if count == 0 else first
                    count += 1
            illegal[chunk, 0] = count
            illegal[chunk, 1] = first
        refused = illegal[:, 0].sum()
        if refused > 0:
            return int(refused)
    for chunk in prange(chunks):
        _play_rows(
            moves,
            apply,
            result,
            observe,
            to_act,
            rows,
            actions,
            chunk * n // chunks,
            (chunk + 1) * n // chunks,
        )
    return 0


class Batch:
    """``n`` games of ``game`` stepped together (see the module's text). The arrays are
    the batch's own and change in place at every step: copy what must be kept."""

    def __init__(self, game: Game[Any], n: int, seed: int = 0, threads: int = 1) -> None:
        if n < 1:
            raise ValueError(_("a batch needs at least 1 game, got {n}").format(n=n))
        kernel = kernel_for(game)
        self.game, self.n = game, n
        self.threads = max(1, min(threads, n // ROWS_A_THREAD))
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
        self._illegal = np.zeros((self.threads, 2), np.int64)
        #: The arrays the compiled step reads and writes, in the order it takes them.
        self._rows = (
            self.states,
            self.start,
            self.p,
            self.legal_n,
            self.legal_a,
            self.masks,
            self.observations,
            self.to_act,
            self.rewards,
            self.ended,
            self.final_observations,
        )
        self._step = specialised(
            _step_rows,
            kernel.__name__,
            KERNEL_FUNCTIONS,
            parallel=self.threads > 1,
            inline=True,
            helpers=(_play_rows,),
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
        if actions.shape != (self.n,) or actions.dtype.kind not in "iu":
            raise IllegalActionError(
                _(
                    "expected {n} integer actions, one a game, got an array of shape {shape} "
                    "and type {dtype}"
                ).format(n=self.n, shape=actions.shape, dtype=actions.dtype)
            )
        actions = actions.astype(np.int64, copy=False)
        count = self._run(actions, check=True)
        if count:
            bad = int(self._illegal[self._illegal[:, 0] > 0][0, 1])
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

    def _run(self, actions: np.ndarray, check: bool = False, steps: int = 0) -> int:
        return int(self._step(self._rows, self.generators, actions, self._illegal, check, steps))

    def play_random(self, steps: int) -> None:
        """``steps`` steps, each a uniformly drawn legal action in every game, in one
        compiled call: as ``steps`` times ``step(random_actions())``, without coming
        back to Python or waiting between threads."""
        if not isinstance(steps, int | np.integer) or steps < 0:
            raise ValueError(
                _("play_random takes a whole number of steps, 0 or more, got {steps!r}").format(
                    steps=steps
                )
            )
        if steps:
            self._run(np.empty(self.n, np.int64), steps=int(steps))

    def random_actions(self) -> np.ndarray:
        """A uniformly drawn legal action for every game (each game its own stream)."""
        out = np.empty(self.n, np.int64)
        if self.threads > 1:
            _draw_in_chunks(self.legal_n, self.legal_a, self.generators, out, self.threads)
        else:
            _draw(self.legal_n, self.legal_a, self.generators, out, 0, self.n)
        return out
