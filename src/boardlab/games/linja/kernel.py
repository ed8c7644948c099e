"""Compiled Linja kernel (numba): the rules of ``rules.py`` over a flat ``int64`` array.

State ``s`` (int64, length 22)::

    s[0:8]   black pieces in rows 0..7
    s[8:16]  red pieces in rows 0..7
    s[16]    side to act (0 black, 1 red)
    s[17]    phase (0 opening, 1 follow-up, 2 bonus)
    s[18]    steps of the follow-up due (0 outside the follow-up)
    s[19]    extra (1 inside the extra turn of ruleset extra-turn)
    s[20]    consecutive pass turns
    s[21]    completed turns

Options ``p`` (int64): extra-turn ruleset, bonus_after_opening, goal_step_back, nasty,
max_turns, positive scoring (0/1 flags but max_turns).

Inside the functions each side's 8 counts are the 8 bytes of one int64 word (byte r =
row r, absolute rows). A count is at most 12 and a row total at most 24, so adding a
constant to every byte never carries into the next one: ``w + 0x3F..`` has bit 6 of byte
r set exactly when row r holds a piece, ``t + 0x3A..`` (t = both words added) exactly
when it holds 6 pieces or more. Folding those flags gives 8-bit row masks, and the legal
moves of a phase are masks of source rows: one action per source row, so the k-th legal
action is the k-th set bit of a mask (byte lookup tables). In the bonus phase a move is
bit ``2 * from + (to > from)`` of a 16-bit mask, which orders the actions as the engine
does (``from * 8 + to`` ascending).

``evaluate(s, p, player)`` is ``Linja.evaluate``, number for number.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numba import njit

from boardlab.fast.rng import below
from boardlab.games.linja.rules import LinjaState

ROWS = 8
NASTY = 64
PASS = 128
OPENING, FOLLOW_UP, BONUS = 0, 1, 2
#: own moves (forward from 7 rows, back from 7) + opponent moves (7 + 6) + pass
MAX_LEGAL = 33
STATE_SIZE = 22
SIDE, PHASE, STEPS, EXTRA, PASSES, TURNS = 16, 17, 18, 19, 20, 21
# options
P_EXTRA_TURN, P_BONUS_AFTER_OPENING, P_GOAL_STEP_BACK, P_NASTY, P_MAX_TURNS, P_POSITIVE = range(6)

ONES = 0x0101010101010101
OCCUPIED = 0x3F3F3F3F3F3F3F3F  # + a count: bit 6 set when the count is 1..64
FULL = 0x3A3A3A3A3A3A3A3A  # + a row total: bit 6 set when the total is 6..69
FIELD = 0x7E  # rows 1..6, the only rows that can be full


def _tables() -> tuple[np.ndarray, ...]:
    popc = np.zeros(256, dtype=np.int64)
    select = np.zeros(256 * 8, dtype=np.int64)
    low = np.full(256, 8, dtype=np.int64)
    high = np.full(256, -1, dtype=np.int64)
    spread = np.zeros(256, dtype=np.int64)
    for m in range(256):
        bits = [i for i in range(8) if m >> i & 1]
        popc[m] = len(bits)
        for k, i in enumerate(bits):
            select[m * 8 + k] = i
            spread[m] |= 1 << (2 * i)
        if bits:
            low[m], high[m] = bits[0], bits[-1]
    return popc, select, low, high, spread


#: set bits of a byte; index of its k-th set bit at [m * 8 + k]; lowest and highest set
#: bit (8 and -1 for 0); bit i moved to bit 2i
POPC, SELECT, LOW, HIGH, SPREAD = _tables()
SIGNED = np.array([-5, -3, -2, -1, 1, 2, 3, 5], dtype=np.int64)
POSITIVE = np.array([0, 0, 0, 0, 1, 2, 3, 5], dtype=np.int64)


# ---------------------------------------------------------------------- plain Python side
def params(game: Any) -> np.ndarray:
    r = game.rules
    return np.array(
        [
            int(r.extra_turn),
            int(r.bonus_after_opening),
            int(r.goal_step_back),
            int(r.nasty),
            int(r.max_turns),
            int(game.positive),
        ],
        dtype=np.int64,
    )


def encode(game: Any, state: LinjaState) -> np.ndarray:
    s = np.zeros(STATE_SIZE, dtype=np.int64)
    s[0:8] = state.counts[0]
    s[8:16] = state.counts[1]
    s[SIDE] = state.side
    s[PHASE] = state.phase
    s[STEPS] = state.steps
    s[EXTRA] = int(state.extra)
    s[PASSES] = state.passes
    s[TURNS] = state.turns
    return s


def decode(game: Any, s: np.ndarray) -> LinjaState:
    return LinjaState(
        counts=(tuple(int(n) for n in s[0:8]), tuple(int(n) for n in s[8:16])),
        side=int(s[SIDE]),
        phase=int(s[PHASE]),
        steps=int(s[STEPS]),
        extra=bool(s[EXTRA]),
        passes=int(s[PASSES]),
        turns=int(s[TURNS]),
    )


# ---------------------------------------------------------------------- word helpers
@njit(cache=True)
def _gather(w: int) -> int:
    """Bit 6 of each byte of ``w`` as an 8-bit mask (bit r = byte r)."""
    x = (w >> 6) & ONES
    x |= x >> 7
    x |= x >> 14
    x |= x >> 28
    return x & 0xFF


@njit(cache=True)
def _occupied(w: int) -> int:
    return _gather(w + OCCUPIED)


@njit(cache=True)
def full_rows(t: int) -> int:
    """The rows 1..6 (bit r) holding six pieces, from ``t``, the two sides' words summed."""
    return _gather(t + FULL) & FIELD


@njit(cache=True)
def _pack(s: np.ndarray, base: int) -> int:
    w = 0
    for r in range(ROWS):
        w |= int(s[base + r]) << (8 * r)
    return w


@njit(cache=True)
def _unpack(s: np.ndarray, base: int, w: int) -> None:
    for r in range(ROWS):
        s[base + r] = (w >> (8 * r)) & 0xFF


@njit(cache=True)
def forward_sources(own: int, side: int, full: int, steps: int) -> int:
    """Source rows of ``side``'s forward moves of ``steps`` rows (ending in the goal when
    they would go beyond), never from the goal, never into a full row."""
    sh = steps if steps < ROWS else ROWS
    if side == 0:
        return _occupied(own) & 0x7F & ~(full >> sh)
    return _occupied(own) & 0xFE & ~(full << sh)


@njit(cache=True)
def _backward(own: int, side: int, full: int, out_of_goal: int) -> int:
    """Source rows of ``side``'s moves one row back, never from the start zone, from the
    goal only when ``out_of_goal``, never into a full row."""
    if side == 0:
        return _occupied(own) & (0xFE if out_of_goal else 0x7E) & ~(full << 1)
    return _occupied(own) & (0x7F if out_of_goal else 0x7E) & ~(full >> 1)


@njit(cache=True)
def bonus_masks(b: int, r: int, side: int, gsb: int, nasty: int) -> tuple[int, int]:
    """The bonus moves as 16-bit masks, bit ``2 * from + (to > from)``: own, opponent."""
    full = full_rows(b + r)
    own, opp = (b, r) if side == 0 else (r, b)
    fwd = SPREAD[forward_sources(own, side, full, 1)]
    back = SPREAD[_backward(own, side, full, gsb)]
    mine = (fwd << 1 | back) if side == 0 else (fwd | back << 1)
    theirs = 0
    if nasty:
        fwd = SPREAD[forward_sources(opp, 1 - side, full, 1)]
        back = SPREAD[_backward(opp, 1 - side, full, 0)]
        theirs = (fwd | back << 1) if side == 0 else (fwd << 1 | back)
    return mine, theirs


@njit(cache=True)
def _select16(m: int, k: int) -> int:
    lo = m & 0xFF
    c = POPC[lo]
    if k < c:
        return int(SELECT[lo * 8 + k])
    return 8 + int(SELECT[(m >> 8) * 8 + k - c])


@njit(cache=True)
def _bonus_action(m: int, k: int) -> int:
    """The action of the k-th set bit of a 16-bit bonus mask (a move of one row)."""
    bit = _select16(m, k)
    origin = bit >> 1
    return origin * ROWS + origin - 1 + 2 * (bit & 1)


@njit(cache=True)
def sides_passed(b: int, r: int) -> bool:
    """Every black piece stands in a higher row than every red one (rules.has_passed)."""
    return bool(LOW[_occupied(b)] > HIGH[_occupied(r)])


@njit(cache=True)
def _over(b: int, r: int, phase: int, extra: int, passes: int, turns: int, max_turns: int) -> bool:
    if phase != OPENING or extra:
        return False
    return sides_passed(b, r) or passes >= 2 or turns >= max_turns


@njit(cache=True)
def _winner(b: int, r: int, positive: int) -> int:
    black = 0
    red = 0
    for row in range(ROWS):
        nb = (b >> (8 * row)) & 0xFF
        nr = (r >> (8 * row)) & 0xFF
        if positive:
            black += nb * POSITIVE[row]
            red += nr * POSITIVE[ROWS - 1 - row]
        else:
            black += nb * SIGNED[row]
            red += nr * SIGNED[ROWS - 1 - row]
    return 0 if black > red else 1 if red > black else 2


#: What follows an opening or a follow-up, as ``follow_up_count`` and
#: ``after_follow_up`` tell it: the two places the turn's shape is decided, shared by
#: ``_step`` and the solver's turn generator (``boardlab.games.linja.solution``).
BONUS_INSTEAD = -1
ENDS, EARNS_BONUS, EARNS_EXTRA = 0, 1, 2


@njit(cache=True, inline="always")
def follow_up_count(before: int, to_goal: bool, extra_turn: int, bonus_after_opening: int) -> int:
    """The follow-up an opening earns, into a row that held ``before`` pieces (``to_goal``:
    the goal): its length N, 0 for none, or ``BONUS_INSTEAD`` (a bonus move, under
    ``bonus_after_opening``)."""
    if not to_goal:
        return before
    if extra_turn:
        return 1
    return BONUS_INSTEAD if bonus_after_opening else 0


@njit(cache=True, inline="always")
def after_follow_up(exact_goal: bool, into_empty_field: bool, extra: int, extra_turn: int) -> int:
    """What a follow-up earns: ``EARNS_EXTRA`` (extra-turn ruleset, ending in a field row
    that was empty, not already in the extra turn), ``EARNS_BONUS`` (bonus ruleset,
    entering the goal with exactly N steps) or ``ENDS``."""
    if extra_turn:
        return EARNS_EXTRA if into_empty_field and not extra else ENDS
    return EARNS_BONUS if exact_goal else ENDS


@njit(cache=True)
def _step(
    b: int,
    r: int,
    side: int,
    phase: int,
    steps: int,
    extra: int,
    passes: int,
    turns: int,
    extra_turn: int,
    bonus_after_opening: int,
    action: int,
) -> tuple[int, int, int, int, int, int, int, int]:
    """The engine's ``apply`` over words: the state after a legal ``action``."""
    end = False
    pass_turn = 0
    if action == PASS:
        end = True
        pass_turn = 1 if phase == OPENING and not extra else 0
    elif action >= NASTY:
        a = action - NASTY
        delta = (1 << (8 * (a & 7))) - (1 << (8 * (a >> 3)))
        if side == 0:
            r += delta
        else:
            b += delta
        end = True
    else:
        origin = action >> 3
        to = action & 7
        goal = 7 if side == 0 else 0
        before = ((b + r) >> (8 * to)) & 0xFF  # pieces in the row before the move
        delta = (1 << (8 * to)) - (1 << (8 * origin))
        if side == 0:
            b += delta
        else:
            r += delta
        if phase == BONUS:
            end = True
        elif phase == OPENING:
            passes = 0
            n = follow_up_count(before, to == goal, extra_turn, bonus_after_opening)
            if n == BONUS_INSTEAD:
                phase = BONUS
            elif n == 0:
                end = True
            elif forward_sources(b if side == 0 else r, side, full_rows(b + r), n):
                phase = FOLLOW_UP
                steps = n
            else:
                end = True  # the follow-up is forfeited
        else:  # the follow-up
            exact = origin + (steps if side == 0 else -steps) == goal
            earned = after_follow_up(exact, before == 0 and to != goal, extra, extra_turn)
            if earned == EARNS_EXTRA:
                phase = OPENING
                steps = 0
                extra = 1
            elif earned == EARNS_BONUS:
                phase = BONUS
                steps = 0
            else:
                end = True
    if end:
        side = 1 - side
        phase = OPENING
        steps = 0
        extra = 0
        passes += pass_turn
        turns += 1
    return b, r, side, phase, steps, extra, passes, turns


# ---------------------------------------------------------------------- the interface
@njit(cache=True)
def legal(s: np.ndarray, p: np.ndarray, out: np.ndarray) -> int:
    b = _pack(s, 0)
    r = _pack(s, 8)
    if _over(
        b, r, int(s[PHASE]), int(s[EXTRA]), int(s[PASSES]), int(s[TURNS]), int(p[P_MAX_TURNS])
    ):
        return 0
    return moves(s, p, out)


@njit(cache=True)
def moves(s: np.ndarray, p: np.ndarray, out: np.ndarray) -> int:
    """``legal`` of a position known to go on (``result`` -1), without asking again."""
    b = _pack(s, 0)
    r = _pack(s, 8)
    side = int(s[SIDE])
    phase = int(s[PHASE])
    count = 0
    if phase == BONUS:
        mine, theirs = bonus_masks(b, r, side, int(p[P_GOAL_STEP_BACK]), int(p[P_NASTY]))
        for k in range(POPC[mine & 0xFF] + POPC[mine >> 8]):
            out[count] = _bonus_action(mine, k)
            count += 1
        for k in range(POPC[theirs & 0xFF] + POPC[theirs >> 8]):
            out[count] = NASTY + _bonus_action(theirs, k)
            count += 1
        out[count] = PASS
        return count + 1
    steps = int(s[STEPS]) if phase == FOLLOW_UP else 1
    own = b if side == 0 else r
    src = forward_sources(own, side, full_rows(b + r), steps)
    for k in range(POPC[src]):
        origin = SELECT[src * 8 + k]
        to = min(origin + steps, 7) if side == 0 else max(origin - steps, 0)
        out[count] = origin * ROWS + to
        count += 1
    if count == 0 and phase == OPENING:
        out[0] = PASS
        count = 1
    return count


@njit(cache=True)
def apply(s: np.ndarray, p: np.ndarray, action: int) -> None:
    b, r, side, phase, steps, extra, passes, turns = _step(
        _pack(s, 0),
        _pack(s, 8),
        int(s[SIDE]),
        int(s[PHASE]),
        int(s[STEPS]),
        int(s[EXTRA]),
        int(s[PASSES]),
        int(s[TURNS]),
        int(p[P_EXTRA_TURN]),
        int(p[P_BONUS_AFTER_OPENING]),
        action,
    )
    _unpack(s, 0, b)
    _unpack(s, 8, r)
    s[SIDE] = side
    s[PHASE] = phase
    s[STEPS] = steps
    s[EXTRA] = extra
    s[PASSES] = passes
    s[TURNS] = turns


@njit(cache=True)
def result(s: np.ndarray, p: np.ndarray) -> int:
    b = _pack(s, 0)
    r = _pack(s, 8)
    if not _over(
        b, r, int(s[PHASE]), int(s[EXTRA]), int(s[PASSES]), int(s[TURNS]), int(p[P_MAX_TURNS])
    ):
        return -1
    return _winner(b, r, int(p[P_POSITIVE]))


@njit(cache=True)
def playout(s: np.ndarray, p: np.ndarray, g: np.ndarray) -> tuple[int, int]:
    """Uniform-random actions from ``s`` (in place) to the end: (result, actions). The
    k-th action is the k-th of the ascending legal list, k = ``below(g, count)``.

    A turn's opening and follow-up are played in one pass of the loop, and the row masks
    (occupied rows of each side, full rows) are updated move by move: a field row never
    holds more than 6 pieces, so a piece leaving a row always leaves it not full."""
    b = _pack(s, 0)
    r = _pack(s, 8)
    side = int(s[SIDE])
    phase = int(s[PHASE])
    steps = int(s[STEPS])
    extra = int(s[EXTRA])
    passes = int(s[PASSES])
    turns = int(s[TURNS])
    extra_turn = int(p[P_EXTRA_TURN])
    bonus_after_opening = int(p[P_BONUS_AFTER_OPENING])
    gsb = int(p[P_GOAL_STEP_BACK])
    nasty = int(p[P_NASTY])
    max_turns = int(p[P_MAX_TURNS])
    ob = _occupied(b)
    orr = _occupied(r)
    full = full_rows(b + r)
    actions = 0
    n = steps
    fsrc = 0
    if phase == FOLLOW_UP:
        fsrc = forward_sources(b if side == 0 else r, side, full, n)
    while True:
        end = False
        pass_turn = 0
        if phase == OPENING:
            if not extra and (LOW[ob] > HIGH[orr] or passes >= 2 or turns >= max_turns):
                break
            src = (ob & 0x7F & ~(full >> 1)) if side == 0 else (orr & 0xFE & ~(full << 1))
            count = POPC[src]
            actions += 1
            if count == 0:
                below(g, 1)
                end = True
                pass_turn = 1 - extra
            else:
                origin = SELECT[src * 8 + below(g, count)]
                passes = 0
                n = 0
                if side == 0:
                    to = origin + 1
                    before = ((b + r) >> (8 * to)) & 0xFF
                    b += (1 << (8 * to)) - (1 << (8 * origin))
                    ob = (ob | 1 << to) & ~((((b >> (8 * origin)) & 0xFF) == 0) << origin)
                    goal = to == 7
                else:
                    to = origin - 1
                    before = ((b + r) >> (8 * to)) & 0xFF
                    r += (1 << (8 * to)) - (1 << (8 * origin))
                    orr = (orr | 1 << to) & ~((((r >> (8 * origin)) & 0xFF) == 0) << origin)
                    goal = to == 0
                full = (full & ~(1 << origin)) | ((before == 5) << to & FIELD)
                if goal:
                    if extra_turn:
                        n = 1
                    elif bonus_after_opening:
                        phase = BONUS
                    else:
                        end = True
                elif before:
                    n = before
                else:
                    end = True
                if n:  # 1..5: a field row holds at most 6 pieces
                    fsrc = (ob & 0x7F & ~(full >> n)) if side == 0 else (orr & 0xFE & ~(full << n))
                    if fsrc:
                        phase = FOLLOW_UP
                    else:
                        end = True
        if phase == FOLLOW_UP:
            origin = SELECT[fsrc * 8 + below(g, POPC[fsrc])]
            actions += 1
            if side == 0:
                to = min(origin + n, 7)
                before = ((b + r) >> (8 * to)) & 0xFF
                b += (1 << (8 * to)) - (1 << (8 * origin))
                ob = (ob | 1 << to) & ~((((b >> (8 * origin)) & 0xFF) == 0) << origin)
                exact = origin + n == 7
                goal = to == 7
            else:
                to = max(origin - n, 0)
                before = ((b + r) >> (8 * to)) & 0xFF
                r += (1 << (8 * to)) - (1 << (8 * origin))
                orr = (orr | 1 << to) & ~((((r >> (8 * origin)) & 0xFF) == 0) << origin)
                exact = origin - n == 0
                goal = to == 0
            full = (full & ~(1 << origin)) | ((before == 5) << to & FIELD)
            if extra_turn:
                if before == 0 and not goal and not extra:
                    phase = OPENING
                    extra = 1
                else:
                    end = True
            elif exact:
                phase = BONUS
            else:
                end = True
        elif phase == BONUS:
            mine, theirs = bonus_masks(b, r, side, gsb, nasty)
            nm = POPC[mine & 0xFF] + POPC[mine >> 8]
            nt = POPC[theirs & 0xFF] + POPC[theirs >> 8]
            k = below(g, nm + nt + 1)
            actions += 1
            if k < nm:
                a = _bonus_action(mine, k)
                delta = (1 << (8 * (a & 7))) - (1 << (8 * (a >> 3)))
                if side == 0:
                    b += delta
                else:
                    r += delta
            elif k < nm + nt:
                a = _bonus_action(theirs, k - nm)
                delta = (1 << (8 * (a & 7))) - (1 << (8 * (a >> 3)))
                if side == 0:
                    r += delta
                else:
                    b += delta
            ob = _occupied(b)
            orr = _occupied(r)
            full = full_rows(b + r)
            end = True
        if end:
            side = 1 - side
            phase = OPENING
            extra = 0
            passes += pass_turn
            turns += 1
    _unpack(s, 0, b)
    _unpack(s, 8, r)
    s[SIDE] = side
    s[PHASE] = OPENING
    s[STEPS] = 0
    s[EXTRA] = 0
    s[PASSES] = passes
    s[TURNS] = turns
    return _winner(b, r, int(p[P_POSITIVE])), actions


#: The length of ``observe``'s vector (``Linja.observation_layout``).
OBSERVATION_SIZE = 2 * ROWS + 9


#: TWELFTHS[n]: n / 12, a side's share of its 12 pieces in a row, as the engine divides.
TWELFTHS = np.array([n / 12 for n in range(13)])


@njit(cache=True, error_model="numpy")  # no ZeroDivisionError paths: p is valid
def observe(s: np.ndarray, p: np.ndarray, me: int, out: np.ndarray) -> None:
    """``Linja.observation`` of the position for player ``me``, number for number,
    written to ``out``."""
    for row in range(ROWS):  # a table, not a division a row
        out[row] = TWELFTHS[s[me * ROWS + row]]
        out[ROWS + row] = TWELFTHS[s[(1 - me) * ROWS + row]]
    at = 2 * ROWS
    for phase in range(3):
        out[at + phase] = 1.0 if s[PHASE] == phase else 0.0
    out[at + 3] = s[STEPS] / (ROWS - 1)
    out[at + 4] = s[EXTRA]
    out[at + 5] = s[PASSES] / 2
    out[at + 6] = s[TURNS] / p[P_MAX_TURNS]
    out[at + 7] = me
    out[at + 8] = 1.0 if me == s[SIDE] else 0.0


@njit(cache=True)
def to_act(s: np.ndarray, p: np.ndarray) -> int:
    """The player to act (0 black, 1 red)."""
    return int(s[SIDE])


@njit(cache=True)
def evaluate(s: np.ndarray, p: np.ndarray, player: int) -> float:
    """``Linja.evaluate`` over the compact state: the same number."""
    table = POSITIVE if p[P_POSITIVE] else SIGNED
    black = 0
    red = 0
    advance_black = 0
    advance_red = 0
    for row in range(ROWS):
        nb = s[row]
        nr = s[ROWS + row]
        black += nb * table[row]
        red += nr * table[ROWS - 1 - row]
        advance_black += nb * row
        advance_red += nr * (ROWS - 1 - row)
    diff = (black - red) + 0.25 * (advance_black - advance_red)
    return 0.9 * math.tanh((diff if player == 0 else -diff) / 12.0)
