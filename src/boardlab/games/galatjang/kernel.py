"""Galatjang compiled kernel (numba): the rules of ``rules.py`` over a flat int64 array.

State ``s`` (length ``2P + 5`` for ``P`` pits a row): the sowing ring as in ``rules.py``
(``s[0:P]`` South's pits, ``s[P]`` South's store, ``s[P+1:2P+1]`` North's pits,
``s[2P+1]`` North's store; ``BLOCKED`` = -1 for a blocked pit), then the side to act,
the round (from 1) and the turns completed in this round. ``P`` follows from ``len(s)``.

Options ``p``: seeds, sow_opponent_store (0/1), skip_origin (0/1), lone_seed store (1) or
stay (0), max_turns, rounds, refill far_end (0/1), round_starter (0 winner, 1 loser,
2 alternate).

Actions are the mover's pit index 0..P-1, ascending, as in the engine.

``apply`` is the general path (any options, blocked pits, relays seed by seed). ``playout``
takes a fast path when nothing is ever skipped: no blocked pit, both stores sown, the
origin not skipped, the last round (so no refill), at most 6 pits and at most 255 seeds.
There each side's pits and store are the low bytes of one int64 word (``P + 1`` bytes),
held from the mover's point of view (a turn end swaps the two words), and a sowing of
``h`` seeds from a ring position adds two precomputed words, as in the C baseline.

``evaluate(s, p, player)`` is ``boardlab.ai.evaluation.galatjang``, number for number.
"""

from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np
from numba import njit, uint64

from boardlab.fast.rng import below
from boardlab.games.galatjang.game import MAX_PITS
from boardlab.games.galatjang.rules import (
    BLOCKED,
    MAX_RELAYS,
    NORTH,
    SOUTH,
    GalatjangState,
)

MAX_LEGAL = MAX_PITS

# option indices in p
SEEDS, SOW_OPPONENT_STORE, SKIP_ORIGIN, LONE_STORE, MAX_TURNS, ROUNDS, FAR_END, STARTER = range(8)
STARTERS = ("winner", "loser", "alternate")

# ------------------------------------------------------------------ fast-path tables
#: The packed fast path inlines the generator's uint64 arithmetic: only when compiled.
FAST_PATH = not bool(getattr(numba.config, "DISABLE_JIT", False))
FAST_PITS = 6  # the fast path holds P + 1 <= 7 bytes a word (the sign byte stays 0)
FAST_SEEDS = 255  # every cell fits a byte
_RING_MAX = 2 * FAST_PITS + 2


def _sow_tables() -> tuple[np.ndarray, np.ndarray]:
    """Row ``((P - 1) * 14 + pos) * 14 + h`` (entries ``4 * row`` to ``4 * row + 2`` of the
    flat ``SOW``), for ``h < 2P + 2`` seeds sown after the mover-relative ring position
    ``pos`` (0..P-1 his pits, P his store, then the other side's): what it adds to the
    mover's word, to the other word, and where the last seed falls. ``ONES[P]``: one seed
    in every cell of a word (a full lap adds it to both words)."""
    table = np.zeros((FAST_PITS * _RING_MAX * _RING_MAX, 4), dtype=np.int64)
    ones = np.zeros(FAST_PITS + 1, dtype=np.int64)
    for pits in range(1, FAST_PITS + 1):
        size = 2 * pits + 2
        ones[pits] = sum(1 << (8 * b) for b in range(pits + 1))
        for pos in range(size):
            for h in range(size):
                words = [0, 0]
                for j in range(1, h + 1):
                    q = (pos + j) % size
                    word, byte = (0, q) if q <= pits else (1, q - pits - 1)
                    words[word] += 1 << (8 * byte)
                row = ((pits - 1) * _RING_MAX + pos) * _RING_MAX + h
                table[row] = (words[0], words[1], (pos + h) % size, 0)
    return table.reshape(-1), ones


def _mask_tables() -> tuple[np.ndarray, np.ndarray]:
    """For a 6-bit set of playable pits ``m``: ``POP[m]`` its size, ``SEL[8 * m + k]``
    its k-th member in ascending order."""
    pop = np.zeros(64, dtype=np.int64)
    sel = np.zeros(64 * 8, dtype=np.int64)
    for m in range(64):
        members = [b for b in range(6) if m >> b & 1]
        pop[m] = len(members)
        for k, b in enumerate(members):
            sel[8 * m + k] = b
    return pop, sel


SOW, ONES = _sow_tables()
POP, SEL = _mask_tables()


@njit(cache=True)
def _rotl(x: np.uint64, k: int) -> np.uint64:
    return (x << uint64(k)) | (x >> uint64(64 - k))


# ------------------------------------------------------------------ plain Python
def params(game: Any) -> np.ndarray:
    r = game.rules
    return np.array(
        [
            r.seeds,
            int(r.sow_opponent_store),
            int(r.skip_origin),
            int(r.capture_lone_seed),
            r.max_turns,
            r.rounds,
            int(r.refill_far_end),
            STARTERS.index(r.round_starter),
        ],
        dtype=np.int64,
    )


def encode(game: Any, state: GalatjangState) -> np.ndarray:
    return np.array([*state.ring, state.side, state.round, state.turns], dtype=np.int64)


def decode(game: Any, s: np.ndarray) -> GalatjangState:
    size = len(s) - 3
    return GalatjangState(
        ring=tuple(int(x) for x in s[:size]),
        side=int(s[size]),
        round=int(s[size + 1]),
        turns=int(s[size + 2]),
    )


# ------------------------------------------------------------------ general path
@njit(cache=True)
def _has_seeds(s: np.ndarray, pits: int, side: int) -> bool:
    first = 0 if side == SOUTH else pits + 1
    for k in range(first, first + pits):  # noqa: SIM110 (no generators in numba)
        if s[k] > 0:
            return True
    return False


@njit(cache=True)
def _round_over(s: np.ndarray, p: np.ndarray, pits: int) -> bool:
    size = 2 * pits + 2
    return s[size + 2] >= p[MAX_TURNS] or not _has_seeds(s, pits, s[size])


@njit(cache=True)
def _swept_stores(s: np.ndarray, pits: int) -> tuple[int, int]:
    """South's and North's stores after the sweep (pits into their owner's store)."""
    south = s[pits]
    north = s[2 * pits + 1]
    for k in range(pits):
        if s[k] > 0:
            south += s[k]
        if s[pits + 1 + k] > 0:
            north += s[pits + 1 + k]
    return south, north


@njit(cache=True)
def legal(s: np.ndarray, p: np.ndarray, out: np.ndarray) -> int:
    pits = (len(s) - 5) // 2
    if _round_over(s, p, pits):
        return 0
    first = 0 if s[2 * pits + 2] == SOUTH else pits + 1
    count = 0
    for a in range(pits):
        if s[first + a] > 0:
            out[count] = a
            count += 1
    return count


@njit(cache=True)
def result(s: np.ndarray, p: np.ndarray) -> int:
    pits = (len(s) - 5) // 2
    if not _round_over(s, p, pits):
        return -1
    south, north = _swept_stores(s, pits)
    if s[2 * pits + 3] < p[ROUNDS]:
        seeds = p[SEEDS]
        if south >= seeds and north >= seeds:
            return -1  # the next round follows (not a settled position)
        if south < seeds and north >= seeds:
            return NORTH
        if north < seeds and south >= seeds:
            return SOUTH
        return 2
    return SOUTH if south > north else NORTH if north > south else 2


@njit(cache=True)
def sow(s: np.ndarray, p: np.ndarray, pits: int, side: int, origin: int) -> bool:
    """Sow ring position ``origin`` for ``side``, relays included (rules.sow)."""
    size = 2 * pits + 2
    mine = pits if side == SOUTH else size - 1
    theirs = size - 1 if side == SOUTH else pits
    first = 0 if side == SOUTH else pits + 1
    skip_theirs = p[SOW_OPPONENT_STORE] == 0
    skip_origin = p[SKIP_ORIGIN] != 0
    hand = s[origin]
    s[origin] = 0
    position = origin
    for _ in range(MAX_RELAYS):
        while hand > 0:
            position += 1
            if position == size:
                position = 0
            if (
                s[position] == BLOCKED
                or (skip_theirs and position == theirs)
                or (skip_origin and position == origin)
            ):
                continue
            s[position] += 1
            hand -= 1
        if position == mine:
            return True
        if position == theirs:
            return False
        if s[position] > 1:  # the pit held seeds before: relay from it
            hand = s[position]
            s[position] = 0
            origin = position
            continue
        if position < first or position >= first + pits:  # an opponent's empty pit
            return False
        opposite = 2 * pits - position
        captured = max(s[opposite], 0)  # a blocked pit counts as empty
        if captured > 0 or p[LONE_STORE] != 0:
            s[mine] += 1 + captured
            s[position] = 0
            if captured > 0:
                s[opposite] = 0
        return False
    raise RuntimeError("galatjang: a sowing did not end")


@njit(cache=True)
def _refill(s: np.ndarray, p: np.ndarray, pits: int, side: int) -> None:
    """rules.refill, for a side whose store is known to hold at least one pit's seeds."""
    seeds = p[SEEDS]
    store = pits if side == SOUTH else 2 * pits + 1
    first = 0 if side == SOUTH else pits + 1
    for i in range(pits):
        k = first + i if p[FAR_END] != 0 else first + pits - 1 - i
        if s[store] >= seeds:
            s[k] = seeds
            s[store] -= seeds
        else:
            s[k] = BLOCKED


@njit(cache=True)
def _end_turn(s: np.ndarray, p: np.ndarray, pits: int) -> None:
    """The turn end and what follows it: the round end, its sweep, the next round."""
    size = 2 * pits + 2
    s[size] = 1 - s[size]
    s[size + 2] += 1
    if not _round_over(s, p, pits):
        return
    side = s[size]
    turns = s[size + 2]
    south, north = _swept_stores(s, pits)
    for k in range(pits):
        if s[k] > 0:
            s[k] = 0
        if s[pits + 1 + k] > 0:
            s[pits + 1 + k] = 0
    s[pits] = south
    s[size - 1] = north
    seeds = p[SEEDS]
    if s[size + 1] >= p[ROUNDS] or south < seeds or north < seeds:
        return  # the match ends on the swept board
    started = side if turns % 2 == 0 else 1 - side
    rule = p[STARTER]
    if south == north or rule == 2:
        starter = 1 - started
    else:
        winner = SOUTH if south > north else NORTH
        starter = winner if rule == 0 else 1 - winner
    _refill(s, p, pits, SOUTH)
    _refill(s, p, pits, NORTH)
    s[size] = starter
    s[size + 1] += 1
    s[size + 2] = 0


@njit(cache=True)
def apply(s: np.ndarray, p: np.ndarray, action: int) -> None:
    pits = (len(s) - 5) // 2
    side = s[2 * pits + 2]
    origin = action if side == SOUTH else pits + 1 + action
    if sow(s, p, pits, side, origin) and _has_seeds(s, pits, side):
        return  # the same player sows again, same turn
    _end_turn(s, p, pits)


@njit(cache=True)
def _playout_general(s: np.ndarray, p: np.ndarray, g: np.ndarray) -> tuple[int, int]:
    """Uniform-random playout over the general ``apply`` (any options and position)."""
    pits = (len(s) - 5) // 2
    side_at = 2 * pits + 2
    actions = 0
    while not _round_over(s, p, pits):
        first = 0 if s[side_at] == SOUTH else pits + 1
        count = 0
        for a in range(pits):
            if s[first + a] > 0:
                count += 1
        k = below(g, count)
        action = 0
        for a in range(pits):
            if s[first + a] > 0:
                if k == 0:
                    action = a
                    break
                k -= 1
        apply(s, p, action)
        actions += 1
    return result(s, p), actions


@njit(inline="always")
def _fast_core(s: np.ndarray, p: np.ndarray, g: np.ndarray, pits: int) -> tuple[int, int]:
    """The fast path (see the module docstring): plays to the end, writes the final
    position to ``s``, returns (result, actions); or (-2, 0) with nothing changed when the
    position does not suit it (a blocked pit, too many seeds, the game already over).
    Inlined by numba, so that a literal ``pits`` folds into constants."""
    size = 2 * pits + 2
    first_side = s[size]
    first_turns = s[size + 2]
    turns = first_turns
    max_turns = p[MAX_TURNS]
    lone = p[LONE_STORE] != 0
    south = 0
    north = 0
    total = 0
    negative = 0
    for b in range(pits + 1):
        south |= s[b] << (8 * b)
        north |= s[pits + 1 + b] << (8 * b)
        total += s[b] + s[pits + 1 + b]
        negative |= s[b] | s[pits + 1 + b]
    pit_mask = (1 << (8 * pits)) - 1
    if first_side == SOUTH:
        mine, theirs = south, north
    else:
        mine, theirs = north, south
    if negative < 0 or total > FAST_SEEDS or turns >= max_turns or (mine & pit_mask) == 0:
        return -2, 0
    low7 = 0x7F7F7F7F7F7F & pit_mask
    high = 0x808080808080 & pit_mask
    store_shift = 8 * pits
    lap = ONES[pits]
    table = (pits - 1) * _RING_MAX * _RING_MAX
    g0 = g[0]
    g1 = g[1]
    g2 = g[2]
    g3 = g[3]
    actions = 0
    while True:
        # the playable pits: the non-zero pit bytes of the mover's word, as 6 bits
        x = mine & pit_mask
        m = ((((x & low7) + low7) | x) & high) >> 7
        m |= m >> 7
        m |= m >> 14
        m |= m >> 28
        m &= 63
        # below(g, POP[m]) of boardlab.fast.rng, on the generator held in registers
        bound = uint64(POP[uint64(m)])
        while True:
            r = _rotl(g1 * uint64(5), 7) * uint64(9)
            t = g1 << uint64(17)
            g2 ^= g0
            g3 ^= g1
            g1 ^= g2
            g0 ^= g3
            g2 ^= t
            g3 = _rotl(g3, 45)
            wide = (r >> uint64(32)) * bound
            low = wide & uint64(0xFFFFFFFF)
            if low >= bound or low >= (uint64(0x100000000) - bound) % bound:
                break
        action = SEL[uint64(8 * m) + (wide >> uint64(32))]
        actions += 1
        shift = 8 * action
        hand = (mine >> shift) & 255
        mine &= ~(255 << shift)
        pos = action
        again = False
        relays = 0
        while True:
            if hand < size:
                row = uint64(4 * (table + pos * _RING_MAX + hand))
                mine += SOW[row]
                theirs += SOW[row + uint64(1)]
                pos = SOW[row + uint64(2)]
            else:
                laps = hand // size
                row = uint64(4 * (table + pos * _RING_MAX + hand - laps * size))
                mine += SOW[row] + laps * lap
                theirs += SOW[row + uint64(1)] + laps * lap
                pos = SOW[row + uint64(2)]
            if pos < pits:  # an own pit
                shift = 8 * pos
                hand = (mine >> shift) & 255
                if hand > 1:  # relay
                    mine &= ~(255 << shift)
                    relays += 1
                    if relays >= MAX_RELAYS:
                        raise RuntimeError("galatjang: a sowing did not end")
                    continue
                opposite = 8 * (pits - 1 - pos)
                captured = (theirs >> opposite) & 255
                if captured > 0 or lone:
                    theirs &= ~(255 << opposite)
                    mine = (mine & ~(255 << shift)) + ((1 + captured) << store_shift)
                break
            if pos == pits:  # own store: sow again
                again = True
                break
            if pos == size - 1:  # the opponent's store
                break
            shift = 8 * (pos - pits - 1)
            hand = (theirs >> shift) & 255
            if hand > 1:  # relay
                theirs &= ~(255 << shift)
                relays += 1
                if relays >= MAX_RELAYS:
                    raise RuntimeError("galatjang: a sowing did not end")
                continue
            break  # an opponent's empty pit
        if again and (mine & pit_mask) != 0:
            continue
        mine, theirs = theirs, mine
        turns += 1
        if turns >= max_turns or (mine & pit_mask) == 0:
            break
    g[0] = g0
    g[1] = g1
    g[2] = g2
    g[3] = g3
    side = first_side ^ ((turns - first_turns) & 1)
    if side == SOUTH:
        south, north = mine, theirs
    else:
        south, north = theirs, mine
    south_total = 0
    north_total = 0
    for b in range(pits + 1):
        south_total += (south >> (8 * b)) & 255
        north_total += (north >> (8 * b)) & 255
    for k in range(size):
        s[k] = 0
    s[pits] = south_total
    s[size - 1] = north_total
    s[size] = side
    s[size + 2] = turns
    if south_total > north_total:
        return SOUTH, actions
    return (NORTH if north_total > south_total else 2), actions


@njit(cache=True)
def playout(s: np.ndarray, p: np.ndarray, g: np.ndarray) -> tuple[int, int]:
    pits = (len(s) - 5) // 2
    if (
        FAST_PATH
        and pits <= FAST_PITS
        and p[SOW_OPPONENT_STORE] != 0
        and p[SKIP_ORIGIN] == 0
        and s[2 * pits + 3] >= p[ROUNDS]  # the last round: no refill, no blocked pit
    ):
        if pits == 6:
            outcome, actions = _fast_core(s, p, g, 6)
        else:
            outcome, actions = _fast_core(s, p, g, pits)
        if outcome != -2:
            return outcome, actions
    return _playout_general(s, p, g)


@njit(cache=True)
def to_act(s: np.ndarray, p: np.ndarray) -> int:
    """The player to act (0 south, 1 north): the cell after the ring."""
    return int(s[s.shape[0] - 3])


@njit(cache=True)
def evaluate(s: np.ndarray, p: np.ndarray, player: int) -> float:
    """``boardlab.ai.evaluation.galatjang`` over the compact state: the same number."""
    pits = (len(s) - 5) // 2
    total = 0
    for k in range(2 * pits + 2):
        if s[k] != BLOCKED:
            total += s[k]
    if total == 0:
        total = 1
    south = s[pits]
    north = s[2 * pits + 1]
    for k in range(pits):
        south += max(s[k], 0)
        north += max(s[pits + 1 + k], 0)
    diff = south - north if player == SOUTH else north - south
    return 0.9 * math.tanh(4.0 * diff / total)
