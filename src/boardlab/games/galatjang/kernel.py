"""Galatjang compiled kernel (numba): the rules of ``rules.py`` over a flat int64 array.

State ``s`` (length ``2P + 5`` for ``P`` pits a row): the sowing ring as in ``rules.py``
(``s[0:P]`` South's pits, ``s[P]`` South's store, ``s[P+1:2P+1]`` North's pits,
``s[2P+1]`` North's store; ``BLOCKED`` = -1 for a blocked pit), then the side to act,
the round (from 1) and the turns completed in this round. ``P`` follows from ``len(s)``.

Options ``p``: seeds, sow_opponent_store (0/1), skip_origin (0/1), lone_seed store (1) or
stay (0), max_turns, rounds, refill far_end (0/1), round_starter (0 winner, 1 loser,
2 alternate).

Actions are the mover's pit index 0..P-1, ascending, as in the engine.

``sow`` moves seed by seed under any options, blocked pits included. Where nothing is
ever skipped (no blocked pit, both stores sown, the origin not skipped, at most 6 pits
and at most 255 seeds) it takes the packed sower instead: each side's pits
and store are the low bytes of one int64 word (``P + 1`` bytes), and a sowing of ``h``
seeds from a ring position adds two precomputed words, as in the C baseline. ``playout``
keeps the two words from turn to turn, from the mover's point of view (a turn end swaps
them), in the last round (so no refill).

``apply``, ``result``, ``moves``, ``observe`` and ``playout`` take the default board's
number of pits (``DEFAULT_PITS``) as a constant where the row has that many: their
bodies are inlined with it (``_apply``...), so their loops unroll and their offsets fold.
In the batched environment that took a step from 87 to 70 ns a game; it costs code,
and seconds in the first compile of what inlines them.

``evaluate(s, p, player)`` is ``Galatjang.evaluate``, number for number.
"""

from __future__ import annotations

import math
from typing import Any

import numba
import numpy as np
from numba import njit, uint64

from boardlab.fast.rng import below, below_held
from boardlab.games.galatjang.rules import (
    BLOCKED,
    DEFAULT_PITS,
    MAX_PITS,
    MAX_RELAYS,
    NORTH,
    SOUTH,
    GalatjangState,
)

MAX_LEGAL = MAX_PITS

# option indices in p
SEEDS, SOW_OPPONENT_STORE, SKIP_ORIGIN, LONE_STORE, MAX_TURNS, ROUNDS, FAR_END, STARTER = range(8)
STARTERS = ("winner", "loser", "alternate")

# ------------------------------------------------------------------ the packed sower
#: The packed sower, shared with the endgame solver (``boardlab.games.galatjang.endgames``), which
#: builds its tables with it. Its layout, in this one place: a side's pits and store are
#: the bytes of one int64 word (pit ``k`` of the side in byte ``k``, the store in byte
#: ``P``; at most ``PACKED_PITS`` pits, so the sign byte stays 0), the mover's word and
#: the other side's; ring positions are seen from the mover (0..P-1 his pits, P his store,
#: P+1..2P the other pits, 2P+1 the other store). No cell may exceed 255 seeds and no
#: hand may reach ``PACKED_HAND``.
PACKED_PITS = 6
PACKED_HAND = 256
#: The packed fast path inlines the generator's uint64 arithmetic: only when compiled.
FAST_PATH = not bool(getattr(numba.config, "DISABLE_JIT", False))
FAST_SEEDS = 255  # every cell fits a byte


def sowing_table(pits: int, sow_opponent_store: bool, skip_origin: bool) -> np.ndarray:
    """``[origin, h]``: what sowing ``h`` seeds taken from mover-relative ring position
    ``origin`` adds to the mover's word and to the other word, and the position of the
    last seed, under these rules (no blocked pit), so a hand moves in one step."""
    size = 2 * pits + 2
    table = np.zeros((size, PACKED_HAND, 3), dtype=np.int64)
    for origin in range(size):
        words = [0, 0]
        position, hand = origin, 0
        table[origin, 0] = (0, 0, origin)
        while hand < PACKED_HAND - 1:
            position = (position + 1) % size
            if (position == size - 1 and not sow_opponent_store) or (
                skip_origin and position == origin
            ):
                continue
            word, byte = (0, position) if position <= pits else (1, position - pits - 1)
            words[word] += 1 << (8 * byte)
            hand += 1
            table[origin, hand] = (words[0], words[1], position)
    return table


@njit(cache=True)
def sow_packed(
    mine: int, theirs: int, pits: int, table: np.ndarray, action: int, lone: bool
) -> tuple[int, int, bool]:
    """One sowing of the mover's pit ``action`` on the packed words (relays included),
    by ``table`` (``sowing_table`` of the rules); ``lone``: a last seed in an own empty
    pit facing an empty pit goes to the store. Both words after it, and whether the last
    seed fell into the mover's store. Tested equal to the engine."""
    size = 2 * pits + 2
    shift = 8 * action
    hand = (mine >> shift) & 255
    mine &= ~(255 << shift)
    origin = action
    for _ in range(MAX_RELAYS):
        mine += table[origin, hand, 0]
        theirs += table[origin, hand, 1]
        last = table[origin, hand, 2]
        # Where the last seed fell, found by selects: one branch a hand (relay or
        # not), however the ring goes on.
        own = last <= pits
        shift = 8 * last if own else 8 * (last - pits - 1)
        hand = ((mine if own else theirs) >> shift) & 255
        if (hand > 1) & (last != pits) & (last != size - 1):  # a pit that held seeds
            byte = 255 << shift
            mine &= ~(byte if own else 0)
            theirs &= ~(0 if own else byte)
            origin = last
            continue
        if last == pits:  # the own store: sow again
            return mine, theirs, True
        if last < pits:  # an own pit, empty before
            opposite = 8 * (pits - 1 - last)
            captured = (theirs >> opposite) & 255
            if captured > 0 or lone:  # it and the opposite pit go to the store
                theirs &= ~(255 << opposite)
                mine = (mine & ~(255 << shift)) + ((1 + captured) << (8 * pits))
        return mine, theirs, False  # else the opponent's store or an empty pit of his
    raise RuntimeError("galatjang: a sowing did not end")


#: The same sower inlined into the playout's loop (the solver calls it inside parallel
#: loops, where an inlined ``raise`` would keep them from running in parallel).
_sow_packed_inline = njit(cache=True, inline="always")(getattr(sow_packed, "py_func", sow_packed))

#: The fast path's tables: the default sowing rules, for 1..PACKED_PITS pits.
FAST_TABLES = np.zeros((PACKED_PITS + 1, 2 * PACKED_PITS + 2, PACKED_HAND, 3), dtype=np.int64)
for _pits in range(1, PACKED_PITS + 1):
    FAST_TABLES[_pits, : 2 * _pits + 2] = sowing_table(_pits, True, False)


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


POP, SEL = _mask_tables()


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
@njit(cache=True, inline="always")
def _has_seeds(s: np.ndarray, pits: int, side: int) -> bool:
    first = 0 if side == SOUTH else pits + 1
    seeds = 0
    for k in range(first, first + pits):  # every pit: no branch to mispredict
        seeds |= s[k] > 0
    return seeds != 0


@njit(cache=True, inline="always")
def _round_over(s: np.ndarray, p: np.ndarray, pits: int) -> bool:
    size = 2 * pits + 2
    return s[size + 2] >= p[MAX_TURNS] or not _has_seeds(s, pits, s[size])


@njit(cache=True, inline="always")
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
    return 0 if _round_over(s, p, (len(s) - 5) // 2) else moves(s, p, out)


@njit(cache=True)
def moves(s: np.ndarray, p: np.ndarray, out: np.ndarray) -> int:
    """``legal`` of a position known to go on (``result`` -1), without asking again."""
    pits = (len(s) - 5) // 2
    return _moves(s, out, DEFAULT_PITS) if pits == DEFAULT_PITS else _moves(s, out, pits)


@njit(inline="always")
def _moves(s: np.ndarray, out: np.ndarray, pits: int) -> int:
    first = 0 if s[2 * pits + 2] == SOUTH else pits + 1
    count = 0
    for a in range(pits):  # written always, counted if playable: no branch to mispredict
        out[count] = a
        count += s[first + a] > 0
    return count


@njit(cache=True)
def result(s: np.ndarray, p: np.ndarray) -> int:
    pits = (len(s) - 5) // 2
    return _result(s, p, DEFAULT_PITS) if pits == DEFAULT_PITS else _result(s, p, pits)


@njit(inline="always")
def _result(s: np.ndarray, p: np.ndarray, pits: int) -> int:
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


@njit(inline="always")
def _words(s: np.ndarray, pits: int, first: int) -> tuple[int, int, bool]:
    """The packed words of the side whose pits start at ``first`` and of the other side,
    and whether the packed sower may take them: no blocked pit, at most 255 seeds."""
    other = pits + 1 - first
    mine = 0
    theirs = 0
    total = 0
    negative = 0
    for b in range(pits + 1):
        mine |= s[first + b] << (8 * b)
        theirs |= s[other + b] << (8 * b)
        total += s[first + b] + s[other + b]
        negative |= s[first + b] | s[other + b]
    return mine, theirs, negative >= 0 and total <= FAST_SEEDS


# Inlined: as a call it cost a batch step and the compiled MCTS about 10 %; the price
# is 2.5 s more in their first compile.
@njit(cache=True, inline="always")
def sow(s: np.ndarray, p: np.ndarray, pits: int, side: int, origin: int) -> bool:
    """Sow ring position ``origin`` for ``side``, relays included (rules.sow): whether
    the last seed fell into the mover's store. By the packed sower where it applies."""
    if pits <= PACKED_PITS and p[SOW_OPPONENT_STORE] != 0 and p[SKIP_ORIGIN] == 0:
        own = 0 if side == SOUTH else pits + 1
        own_word, other_word, fits = _words(s, pits, own)
        if fits:
            own_word, other_word, again = _sow_packed_inline(
                own_word, other_word, pits, FAST_TABLES[pits], origin - own, p[LONE_STORE] != 0
            )
            for b in range(pits + 1):
                s[own + b] = (own_word >> (8 * b)) & 255
                s[pits + 1 - own + b] = (other_word >> (8 * b)) & 255
            return bool(again)
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


@njit(cache=True, inline="always")
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


@njit(inline="always")
def _apply(s: np.ndarray, p: np.ndarray, action: int, pits: int) -> None:
    side = s[2 * pits + 2]
    origin = action if side == SOUTH else pits + 1 + action
    if sow(s, p, pits, side, origin) and _has_seeds(s, pits, side):
        return  # the same player sows again, same turn
    _end_turn(s, p, pits)


@njit(cache=True)
def apply(s: np.ndarray, p: np.ndarray, action: int) -> None:
    pits = (len(s) - 5) // 2
    if pits == DEFAULT_PITS:
        _apply(s, p, action, DEFAULT_PITS)
    else:
        _apply(s, p, action, pits)


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
    mine, theirs, fits = _words(s, pits, 0 if first_side == SOUTH else pits + 1)
    pit_mask = (1 << (8 * pits)) - 1
    if not fits or turns >= max_turns or (mine & pit_mask) == 0:
        return -2, 0
    low7 = 0x7F7F7F7F7F7F & pit_mask
    high = 0x808080808080 & pit_mask
    table = FAST_TABLES[pits]
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
        choice, g0, g1, g2, g3 = below_held(g0, g1, g2, g3, POP[uint64(m)])
        action = SEL[uint64(8 * m) + uint64(choice)]
        actions += 1
        mine, theirs, again = _sow_packed_inline(mine, theirs, pits, table, action, lone)
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
        and pits <= PACKED_PITS
        and p[SOW_OPPONENT_STORE] != 0
        and p[SKIP_ORIGIN] == 0
        and s[2 * pits + 3] >= p[ROUNDS]  # the last round: no refill, no blocked pit
    ):
        if pits == DEFAULT_PITS:
            outcome, actions = _fast_core(s, p, g, DEFAULT_PITS)
        else:
            outcome, actions = _fast_core(s, p, g, pits)
        if outcome != -2:
            return outcome, actions
    return _playout_general(s, p, g)


def observation_size(pits: int) -> int:
    """The length of ``observe``'s vector (``Galatjang.observation_layout``)."""
    return 4 * pits + 6


@njit(cache=True, error_model="numpy")  # no ZeroDivisionError paths: p is valid
def observe(s: np.ndarray, p: np.ndarray, me: int, out: np.ndarray) -> None:
    """``Galatjang.observation`` of the position for player ``me``, number for number,
    written to ``out``."""
    pits = (s.shape[0] - 5) // 2
    if pits == DEFAULT_PITS:
        _observe(s, p, me, out, DEFAULT_PITS)
    else:
        _observe(s, p, me, out, pits)


@njit(inline="always", error_model="numpy")
def _observe(s: np.ndarray, p: np.ndarray, me: int, out: np.ndarray, pits: int) -> None:
    total = 2 * pits * p[SEEDS]
    mine = 0 if me == SOUTH else pits + 1
    theirs = pits + 1 - mine
    for pit in range(pits):
        out[pit] = max(s[mine + pit], 0) / total
        out[pits + pit] = max(s[theirs + pit], 0) / total
        out[2 * pits + 2 + pit] = 1.0 if s[mine + pit] == BLOCKED else 0.0
        out[3 * pits + 2 + pit] = 1.0 if s[theirs + pit] == BLOCKED else 0.0
    out[2 * pits] = s[mine + pits] / total
    out[2 * pits + 1] = s[theirs + pits] / total
    at = 4 * pits + 2
    out[at] = s[2 * pits + 3] / p[ROUNDS]
    out[at + 1] = s[2 * pits + 4] / p[MAX_TURNS]
    out[at + 2] = me
    out[at + 3] = 1.0 if me == s[2 * pits + 2] else 0.0


@njit(cache=True)
def to_act(s: np.ndarray, p: np.ndarray) -> int:
    """The player to act (0 south, 1 north): the cell after the ring."""
    return int(s[s.shape[0] - 3])


@njit(cache=True)
def evaluate(s: np.ndarray, p: np.ndarray, player: int) -> float:
    """``Galatjang.evaluate`` over the compact state: the same number."""
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
