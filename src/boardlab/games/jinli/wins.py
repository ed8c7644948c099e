"""Jin Li's forced wins, found by search (the game is not solved): can a player force a
win within H of his own turns, whatever the opponent does? The puzzles
(``boardlab.puzzles``) are proven by it, as the other games' are by their solvers.

A player *forces a win within h turns* when every line ends with him winning before he
would begin his (h+1)-th turn, counting the turn he is in when he is to act. The
opponent's win (reaching the target first) ends a line lost. Any end counts (the target,
two passes, the turn cap, a player stuck under ``no_move=lose``), as the rules judge it.

The search is an AND-OR search over the compiled kernel (``kernel.py``, the ``fast``
extra), with two shortcuts where the rules leave only one way to win: on the last turn
allowed, with the turn cap and ``no_move=lose`` out of play, a player wins only by a
landing that reaches the target (so no drop is tried); and the opponent's drop just
before that turn can take away only the one square it falls on, so two winning landing
squares are a win whatever he drops. ``reference_turns`` is the same search, plainly,
over the engine: the tests compare the two.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np
from numba import njit

from boardlab.core.game import Game
from boardlab.core.i18n import N_, _
from boardlab.games.jinli import kernel
from boardlab.games.jinli.kernel import (
    ADJ,
    DROP_DUE_,
    KOI_R,
    MAX_LEGAL,
    P_LOSE,
    P_MAX_TURNS,
    P_RECYCLE,
    P_TARGET,
    PASSES,
    PHASE,
    SCORE_R,
    SIDE,
    STONES,
    TURNS,
    _ctz,
    _jumps,
    _popcount,
    moves,
    result,
)
from boardlab.games.jinli.rules import ALL, DROP, MOVE

#: The own turns within which the puzzles' forced wins are looked for.
HORIZON = 2


@njit(cache=True)
def _winning_squares(s: np.ndarray, p: np.ndarray, me: int) -> int:
    """The squares (bitboard) on which a koi of ``me`` lands, by a swim or a jump from
    here, with points enough to reach the target; -1 if ``me`` has no swim or jump."""
    stones = s[STONES]
    all_koi = s[KOI_R] | s[KOI_R + 1]
    empty = ALL & ~(all_koi | stones)
    need = p[P_TARGET] - s[SCORE_R + me]
    koi = s[KOI_R + me]
    found = 0
    any_move = False
    while koi:
        low = koi & -koi
        square = _ctz(low)
        targets = (ADJ[square] & empty) | _jumps(square, low, empty, stones)
        if targets:
            any_move = True
        others = all_koi & ~low
        while targets:
            to = targets & -targets
            if _popcount(ADJ[_ctz(to)] & others) >= need:
                found |= to
            targets ^= to
        koi ^= low
    return found if any_move else -1


@njit(cache=True)
def _plain_last(s: np.ndarray, p: np.ndarray, ahead: int) -> bool:
    """Whether, ``ahead`` turn ends from now, the turn cap is still out of reach and
    ``no_move=lose`` is off: then only a landing reaching the target wins."""
    return bool(p[P_LOSE] == 0 and s[TURNS] + ahead < p[P_MAX_TURNS])


@njit(cache=True)
def forced(s: np.ndarray, p: np.ndarray, me: int, h: int) -> bool:
    """Whether ``me`` forces a win from ``s`` within ``h`` more of his turns (the one he
    is in, when he is to act, counting as the first)."""
    over = result(s, p)
    if over != -1:
        return bool(over == me)
    side = s[SIDE]
    phase = s[PHASE]
    if side == me:
        if h <= 0:
            return False
        if h == 1 and _plain_last(s, p, 2):
            if phase == MOVE:
                squares = _winning_squares(s, p, me)
                if squares >= 0:
                    return squares != 0
            elif phase == DROP_DUE_:
                return False  # the drop ends the turn; nothing ends the game after it
    elif h == 0:
        if s[PASSES] == 0 and s[TURNS] + 1 < p[P_MAX_TURNS]:
            return False  # the opponent's turn ends nothing in my favour
    elif (
        h == 1
        and phase == DROP_DUE_
        and p[P_RECYCLE] == 0
        and _plain_last(s, p, 3)
        and _popcount(max(_winning_squares(s, p, me), 0)) >= 2
    ):
        return True  # one stone blocks one landing square; it only adds jumps
    out = np.empty(MAX_LEGAL, dtype=np.int64)
    count = moves(s, p, out)
    if side != me and phase == DROP_DUE_ and h == 1:
        _first_to_block(s, p, me, out, count)
    child = np.empty_like(s)
    for i in range(count):
        child[:] = s
        kernel.apply(child, p, out[i])
        left = h - 1 if side == me and child[SIDE] != me else h
        won = forced(child, p, me, left)
        if side == me and won:
            return True
        if side != me and not won:
            return False
    return bool(side != me)


@njit(cache=True)
def _first_to_block(s: np.ndarray, p: np.ndarray, me: int, out: np.ndarray, count: int) -> None:
    """Put the opponent's drop on ``me``'s one winning square first: his likeliest
    defence (the order changes no answer)."""
    squares = _winning_squares(s, p, me)
    if squares <= 0:
        return
    block = DROP + _ctz(squares)
    for i in range(count):
        if out[i] == block:
            out[i] = out[0]
            out[0] = block
            return


@njit(cache=True)
def least_turns(
    s: np.ndarray, p: np.ndarray, me: int, horizon: int, actions: np.ndarray, turns: np.ndarray
) -> int:
    """For each legal action (written to ``actions``), the least number of ``me``'s
    turns, at most ``horizon``, within which ``me`` forces a win after it (0: none);
    how many actions."""
    count = kernel.legal(s, p, actions)
    child = np.empty_like(s)
    for i in range(count):
        child[:] = s
        kernel.apply(child, p, actions[i])
        ends_mine = s[SIDE] == me and child[SIDE] != me
        turns[i] = 0
        for n in range(1, horizon + 1):
            if forced(child, p, me, n - 1 if ends_mine else n):
                turns[i] = n
                break
    return count


class JinLiWins:
    """The win search the puzzles read (``Game.wins``)."""

    #: The own turns within which a puzzle's forced win is looked for.
    horizon: ClassVar[int] = HORIZON

    def __init__(self, game: Game[Any]) -> None:
        self.game = game
        self.params = kernel.params(game)

    def turns(self, state: Any, player: int, horizon: int) -> dict[int, int | None]:
        """For each legal action in ``state``, the least number of ``player``'s own
        turns (at most ``horizon``; when he is to act, this one counts as the first)
        within which he forces a win after it; None where he does not."""
        s = kernel.encode(self.game, state)
        actions = np.empty(kernel.MAX_LEGAL, dtype=np.int64)
        found = np.empty(kernel.MAX_LEGAL, dtype=np.int64)
        count = least_turns(s, self.params, player, horizon, actions, found)
        return {int(actions[i]): int(found[i]) or None for i in range(count)}

    def goal(self) -> str:
        """What the winner does, to end "after this, Yellow can stop you ...", in words
        (the puzzles' why of a wrong answer)."""
        return _(GOAL).format(target=self.game.options["target"])


#: The winner's aim, in the sentence "after this, {player} can stop you {goal}".
GOAL = N_("reaching {target} points")


def reference_turns(
    game: Game[Any], state: Any, player: int, horizon: int
) -> dict[int, int | None]:
    """``JinLiWins.turns`` by plain recursion over the engine, for the tests."""

    def wins(here: Any, left: int) -> bool:
        outcome = game.outcome_of(here)
        if outcome is not None:
            return outcome.winner == player
        mine = game.to_act(here) == player
        if mine and left <= 0:
            return False
        results = (
            wins(after, left - 1 if mine and game.to_act(after) != player else left)
            for after in (game.apply(here, a) for a in game.legal_actions(here))
        )
        return any(results) if mine else all(results)

    found: dict[int, int | None] = {}
    for action in game.legal_actions(state):
        after = game.apply(state, action)
        ends_mine = game.to_act(state) == player and game.to_act(after) != player
        found[action] = next(
            (n for n in range(1, horizon + 1) if wins(after, n - 1 if ends_mine else n)), None
        )
    return found
