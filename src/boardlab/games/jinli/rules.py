"""Jin Li rules (docs/games/jinli.md) as plain functions over a compact state.

Squares are numbered ``rank * 7 + file`` (a1 = 0, g1 = 6, a7 = 42, g7 = 48); koi and
stones are 49-bit bitboards. Actions are ints:

* ``square * 16 + d``     swim from ``square`` in direction ``d`` (0..7)
* ``square * 16 + 8 + d`` jump from ``square`` in direction ``d``
* ``DROP + square``       drop a stone, ``GIVE + square`` give the stone on ``square`` back
* ``PASS``
"""

from __future__ import annotations

from typing import NamedTuple

RED, YELLOW = 0, 1
MOVE, DROP_DUE, GIVE_DUE = 0, 1, 2

SIZE = 7
SQUARES = SIZE * SIZE
DROP = SQUARES * 16
GIVE = DROP + SQUARES
PASS = GIVE + SQUARES
NUM_ACTIONS = PASS + 1

#: (file step, rank step) of the 8 directions, in the order of the action codes.
DIRECTIONS = ((-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1))


def _on_board(file: int, rank: int) -> bool:
    return 0 <= file < SIZE and 0 <= rank < SIZE


def step(square: int, d: int, times: int) -> int:
    """The square ``times`` steps from ``square`` in direction ``d``, or -1 off the board."""
    file, rank = square % SIZE + DIRECTIONS[d][0] * times, square // SIZE + DIRECTIONS[d][1] * times
    return rank * SIZE + file if _on_board(file, rank) else -1


#: NEIGHBOURS[s]: (direction, square) of each neighbour; JUMPS[s]: (direction, over, landing).
NEIGHBOURS = tuple(
    tuple((d, step(s, d, 1)) for d in range(8) if step(s, d, 1) >= 0) for s in range(SQUARES)
)
JUMPS = tuple(
    tuple((d, step(s, d, 1), step(s, d, 2)) for d in range(8) if step(s, d, 2) >= 0)
    for s in range(SQUARES)
)
#: ADJACENT[s]: bitboard of the (up to) 8 squares around s.
ADJACENT = tuple(sum(1 << t for _, t in NEIGHBOURS[s]) for s in range(SQUARES))
ALL = (1 << SQUARES) - 1


class JinLiState(NamedTuple):
    """A Jin Li position; per-player fields are ``(red, yellow)`` pairs."""

    koi: tuple[int, int]  # bitboards
    stones: int  # bitboard of the stones on the board
    side: int  # RED or YELLOW, the player to act
    phase: int  # MOVE, DROP_DUE or GIVE_DUE
    supply: tuple[int, int]
    score: tuple[int, int]
    passes: int  # consecutive passes
    turns: int  # completed turns


class Rules(NamedTuple):
    """The options that decide play, read once from the game's option mapping."""

    target: int
    recycle: bool
    lose_when_stuck: bool
    max_turns: int


def bits(board: int) -> list[int]:
    """The squares set in a bitboard, ascending."""
    squares = []
    while board:
        low = board & -board
        squares.append(low.bit_length() - 1)
        board ^= low
    return squares


def empty_squares(state: JinLiState) -> int:
    return ALL & ~(state.koi[0] | state.koi[1] | state.stones)


def koi_moves(state: JinLiState) -> list[int]:
    """Every swim and jump of the side to act."""
    empty = empty_squares(state)
    moves = []
    for square in bits(state.koi[state.side]):
        base = square * 16
        for d, to in NEIGHBOURS[square]:
            if empty >> to & 1:
                moves.append(base + d)
        for d, over, land in JUMPS[square]:
            if state.stones >> over & 1 and empty >> land & 1:
                moves.append(base + 8 + d)
    return moves


def end_reason(state: JinLiState, rules: Rules) -> str | None:
    """Why the game is over in ``state``, or None. The target ends it at once; the other
    ends are judged between turns (phase m), in this order: two passes, the turn cap, a
    player to move who is stuck (with no_move=lose)."""
    if max(state.score) >= rules.target:
        return "target"
    if state.phase != MOVE:
        return None  # a started turn is always finished (and a due give is given)
    if state.passes >= 2:
        return "passes"
    if state.turns >= rules.max_turns:
        return "turn_cap"
    if rules.lose_when_stuck and not koi_moves(state):
        return "no_moves"
    return None


def legal_actions(state: JinLiState, rules: Rules) -> list[int]:
    if end_reason(state, rules) is not None:
        return []
    if state.phase == DROP_DUE:
        return [DROP + s for s in bits(empty_squares(state))]
    if state.phase == GIVE_DUE:
        return [GIVE + s for s in bits(state.stones)]
    return sorted(koi_moves(state)) or [PASS]


def _with(pair: tuple[int, int], side: int, value: int) -> tuple[int, int]:
    return (value, pair[1]) if side == RED else (pair[0], value)


def _end_turn(state: JinLiState, rules: Rules, passed: bool = False) -> JinLiState:
    """Close the mover's turn: the opponent acts next (first giving a stone back if the
    mover just dropped his last one under ``recycle`` and the turn cap is not reached)."""
    turns = state.turns + 1
    give = (
        rules.recycle
        and state.phase == DROP_DUE
        and state.supply[state.side] == 0
        and turns < rules.max_turns
    )
    return state._replace(
        side=1 - state.side,
        phase=GIVE_DUE if give else MOVE,
        passes=state.passes + 1 if passed else state.passes,
        turns=turns,
    )


def apply(state: JinLiState, action: int, rules: Rules) -> JinLiState:
    """The state after a legal ``action``."""
    side = state.side
    if action == PASS:
        return _end_turn(state, rules, passed=True)
    if action >= GIVE:
        square = action - GIVE
        other = 1 - side
        return state._replace(
            stones=state.stones & ~(1 << square),
            supply=_with(state.supply, other, state.supply[other] + 1),
            phase=MOVE,
        )
    if action >= DROP:
        # The drop ends the turn; _end_turn sees phase DROP_DUE and the new supply.
        dropped = state._replace(
            stones=state.stones | 1 << (action - DROP),
            supply=_with(state.supply, side, state.supply[side] - 1),
        )
        return _end_turn(dropped, rules)
    origin, kind = divmod(action, 16)
    d = kind & 7
    to = step(origin, d, 2 if kind >= 8 else 1)
    koi = state.koi[side] ^ (1 << origin) ^ (1 << to)
    koi_pair = _with(state.koi, side, koi)
    gained = (ADJACENT[to] & (koi_pair[0] | koi_pair[1])).bit_count()
    score = state.score[side] + gained
    moved = state._replace(koi=koi_pair, score=_with(state.score, side, score), passes=0)
    if score < rules.target and kind < 8 and state.supply[side] > 0:
        return moved._replace(phase=DROP_DUE)
    return _end_turn(moved, rules)
