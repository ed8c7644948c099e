"""The compiled kernel of the fourth game (tests/fourth_game.py), written as a game author
would from the interface in ``boardlab.fast``: the state is the nine cells (-1 empty, 0
x, 1 o), the side to act and the turns played; the options are the turn limit.
``boardlab.testing.check_kernel`` proves it equal to the engine."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

from boardlab.fast.rng import below
from fourth_game import LINES, TicTacToeState

MAX_LEGAL = 9
SIDE, TURNS = 9, 10
STATE_SIZE = 11
LINE_CELLS = np.array(LINES, dtype=np.int64)


def params(game: Any) -> np.ndarray:
    return np.array([int(game.options["max_turns"])], dtype=np.int64)


def encode(game: Any, state: TicTacToeState) -> np.ndarray:
    return np.array([*state.cells, state.side, state.turns], dtype=np.int64)


def decode(game: Any, s: np.ndarray) -> TicTacToeState:
    return TicTacToeState(tuple(int(c) for c in s[:9]), int(s[SIDE]), int(s[TURNS]))


@njit(cache=True)
def _winner(s: np.ndarray) -> int:
    for k in range(LINE_CELLS.shape[0]):
        a, b, c = LINE_CELLS[k, 0], LINE_CELLS[k, 1], LINE_CELLS[k, 2]
        if s[a] >= 0 and s[a] == s[b] and s[b] == s[c]:
            return int(s[a])
    return -1


@njit(cache=True)
def result(s: np.ndarray, p: np.ndarray) -> int:
    won = _winner(s)
    if won >= 0:
        return won
    if s[TURNS] >= p[0]:
        return 2
    for cell in range(9):
        if s[cell] < 0:
            return -1
    return 2


@njit(cache=True)
def moves(s: np.ndarray, p: np.ndarray, out: np.ndarray) -> int:
    count = 0
    for cell in range(9):
        if s[cell] < 0:
            out[count] = cell
            count += 1
    return count


@njit(cache=True)
def legal(s: np.ndarray, p: np.ndarray, out: np.ndarray) -> int:
    if result(s, p) >= 0:
        return 0
    return moves(s, p, out)


@njit(cache=True)
def apply(s: np.ndarray, p: np.ndarray, action: int) -> None:
    s[action] = s[SIDE]
    s[SIDE] = 1 - s[SIDE]
    s[TURNS] += 1


@njit(cache=True)
def to_act(s: np.ndarray, p: np.ndarray) -> int:
    return int(s[SIDE])


@njit(cache=True)
def playout(s: np.ndarray, p: np.ndarray, g: np.ndarray) -> tuple[int, int]:
    out = np.empty(MAX_LEGAL, dtype=np.int64)
    actions = 0
    while True:
        count = legal(s, p, out)
        if count == 0:
            return result(s, p), actions
        apply(s, p, out[below(g, count)])
        actions += 1


@njit(cache=True)
def observe(s: np.ndarray, p: np.ndarray, me: int, out: np.ndarray) -> None:
    """``Game.observation``'s default: every field of the state, whoever looks."""
    for k in range(STATE_SIZE):
        out[k] = s[k]


@njit(cache=True)
def evaluate(s: np.ndarray, p: np.ndarray, player: int) -> float:
    """``Game.evaluate``'s default: 0.9 tanh(point difference / 10), a line a point."""
    won = _winner(s)
    if won < 0:
        return 0.0
    return 0.9 * math.tanh((1.0 if won == player else -1.0) / 10.0)
