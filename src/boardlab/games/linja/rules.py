"""Linja rules (docs/games/linja.md) as plain functions over a compact state.

Rows are absolute, 0..7: row 0 is Black's start zone and Red's goal, row 7 Red's start
zone and Black's goal. Pieces in a row are interchangeable, so a side is 8 counts and a
move is named by its source and destination rows. Actions are ints:

* ``from * 8 + to``          move an own piece
* ``NASTY + from * 8 + to``  move an opponent piece (the nasty bonus)
* ``PASS``
"""

from __future__ import annotations

from typing import NamedTuple

BLACK, RED = 0, 1
OPENING, FOLLOW_UP, BONUS = 0, 1, 2
ROWS = 8
PIECES = 12  # a side
CAPACITY = 6  # pieces of both colours in a field row (1..6)
NASTY = ROWS * ROWS
PASS = 2 * NASTY
NUM_ACTIONS = PASS + 1

SIGNED = (-5, -3, -2, -1, 1, 2, 3, 5)
POSITIVE = (0, 0, 0, 0, 1, 2, 3, 5)


class LinjaState(NamedTuple):
    """A Linja position; ``counts[side][row]`` pieces per absolute row."""

    counts: tuple[tuple[int, ...], tuple[int, ...]]  # (black, red)
    side: int  # BLACK or RED, the player to act
    phase: int  # OPENING, FOLLOW_UP or BONUS
    steps: int  # rows the follow-up must go (FOLLOW_UP only)
    extra: bool  # inside the extra turn of the extra-turn ruleset (phases o+ and fN+)
    passes: int  # consecutive pass turns
    turns: int  # completed turns


class Rules(NamedTuple):
    extra_turn: bool  # ruleset extra-turn instead of bonus
    bonus_after_opening: bool
    goal_step_back: bool
    nasty: bool
    max_turns: int


def forward(side: int) -> int:
    return 1 if side == BLACK else -1


def goal(side: int) -> int:
    return ROWS - 1 if side == BLACK else 0


def start(side: int) -> int:
    return 0 if side == BLACK else ROWS - 1


def total(state: LinjaState, row: int) -> int:
    return state.counts[0][row] + state.counts[1][row]


def is_full(state: LinjaState, row: int) -> bool:
    """A field row at capacity; start zones and goals are never full."""
    return 0 < row < ROWS - 1 and total(state, row) >= CAPACITY


def has_passed(state: LinjaState) -> bool:
    """The sides have completely passed each other: every black piece stands in a higher
    row than every red piece (sharing a row, goals included, is not passing)."""
    black = [r for r in range(ROWS) if state.counts[BLACK][r]]
    red = [r for r in range(ROWS) if state.counts[RED][r]]
    return not black or not red or min(black) > max(red)


def end_reason(state: LinjaState, rules: Rules) -> str | None:
    """Why the game is over, or None; checked only when a new turn is due."""
    if state.phase != OPENING or state.extra:
        return None
    if has_passed(state):
        return "passed"
    if state.passes >= 2:
        return "passes"
    if state.turns >= rules.max_turns:
        return "turn_cap"
    return None


def forward_moves(state: LinjaState, side: int, steps: int) -> list[int]:
    """Moves of ``side`` pieces ``steps`` rows forward, overshooting into the goal; one per
    source row, never from the goal, never ending in a full row."""
    own, d, end = state.counts[side], forward(side), goal(side)
    moves = []
    for row in range(ROWS):
        if own[row] and row != end:
            to = row + d * steps
            to = end if (to - end) * d > 0 else to
            if not is_full(state, to):
                moves.append(row * ROWS + to)
    return moves


def backward_moves(state: LinjaState, side: int, out_of_goal: bool) -> list[int]:
    """One row back, at most into the start zone, never into a full row; from the goal
    only when ``out_of_goal``."""
    own, d = state.counts[side], forward(side)
    moves = []
    for row in range(ROWS):
        if own[row] and row != start(side) and (row != goal(side) or out_of_goal):
            to = row - d
            if not is_full(state, to):
                moves.append(row * ROWS + to)
    return moves


def legal_actions(state: LinjaState, rules: Rules) -> list[int]:
    if end_reason(state, rules) is not None:
        return []
    side = state.side
    if state.phase == OPENING:
        return forward_moves(state, side, 1) or [PASS]
    if state.phase == FOLLOW_UP:
        return forward_moves(state, side, state.steps)
    moves = forward_moves(state, side, 1) + backward_moves(state, side, rules.goal_step_back)
    if rules.nasty:
        other = 1 - side
        moves += [NASTY + m for m in forward_moves(state, other, 1)]
        moves += [NASTY + m for m in backward_moves(state, other, False)]
    return [*sorted(moves), PASS]


def _move(state: LinjaState, side: int, origin: int, to: int) -> LinjaState:
    row = list(state.counts[side])
    row[origin] -= 1
    row[to] += 1
    counts = (tuple(row), state.counts[1]) if side == BLACK else (state.counts[0], tuple(row))
    return state._replace(counts=counts)


def _end_turn(state: LinjaState, pass_turn: bool = False) -> LinjaState:
    return state._replace(
        side=1 - state.side,
        phase=OPENING,
        steps=0,
        extra=False,
        passes=state.passes + 1 if pass_turn else state.passes,
        turns=state.turns + 1,
    )


def _follow_up(state: LinjaState, steps: int) -> LinjaState:
    """A follow-up of ``steps`` rows is due; it is forfeited if no piece can make it."""
    due = state._replace(phase=FOLLOW_UP, steps=steps)
    return due if forward_moves(due, state.side, steps) else _end_turn(state)


def apply(state: LinjaState, action: int, rules: Rules) -> LinjaState:
    """The state after a legal ``action``."""
    side = state.side
    if action == PASS:
        # Only a pass at a turn's opening is a pass turn; declining a bonus or having no
        # opening in an extra turn is not.
        return _end_turn(state, pass_turn=state.phase == OPENING and not state.extra)
    if action >= NASTY:
        origin, to = divmod(action - NASTY, ROWS)
        return _end_turn(_move(state, 1 - side, origin, to))
    origin, to = divmod(action, ROWS)
    if state.phase == BONUS:
        return _end_turn(_move(state, side, origin, to))
    if state.phase == OPENING:
        moved = _move(state, side, origin, to)._replace(passes=0)
        if to == goal(side):
            if rules.extra_turn:
                return _follow_up(moved, 1)
            return moved._replace(phase=BONUS) if rules.bonus_after_opening else _end_turn(moved)
        steps = total(moved, to) - 1  # what stood in the row before the piece came
        return _follow_up(moved, steps) if steps else _end_turn(moved)
    # The follow-up.
    was_empty = total(state, to) == 0
    moved = _move(state, side, origin, to)
    if rules.extra_turn:
        if was_empty and to != goal(side) and not state.extra:
            return moved._replace(phase=OPENING, steps=0, extra=True)
        return _end_turn(moved)
    if origin + forward(side) * state.steps == goal(side):
        return moved._replace(phase=BONUS, steps=0)
    return _end_turn(moved)


def points(state: LinjaState, positive: bool) -> tuple[int, int]:
    """(black, red) points: each piece scores by its row counted from its own start."""
    table = POSITIVE if positive else SIGNED
    black = sum(n * table[r] for r, n in enumerate(state.counts[BLACK]))
    red = sum(n * table[ROWS - 1 - r] for r, n in enumerate(state.counts[RED]))
    return black, red
