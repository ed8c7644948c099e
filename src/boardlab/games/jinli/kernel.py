"""Compiled Jin Li kernel (see ``boardlab.fast``): the rules of ``rules.py`` over a flat
``int64`` array, for fast random playouts.

State ``s`` (11 ints): ``[red koi, yellow koi, stones, side, phase, red supply,
yellow supply, red score, yellow score, passes, turns]`` (bitboards of squares
``rank * 7 + file`` as in ``rules.py``). Options ``p`` (4 ints): ``[target, recycle (0/1),
no_move=lose (0/1), max_turns]``. Actions are the engine's ints (``rules.py``).

``evaluate(s, p, player)`` is ``JinLi.evaluate``, number for number.

The playout keeps the position and the generator in local variables, seen from the side
to act ("mine" and "theirs", swapped at each turn end), and draws the k-th action of the
ascending legal list without writing the list: the lower koi's swims, its jumps, then the
higher koi's swims and jumps (the target squares ascend with the direction code), or a
drop's or a give's square. A pass still draws ``below(g, 1)``, like the list would.

``moves`` lists a koi's actions from one set of action codes (``_codes``: bit c for
code c): its empty neighbours and landing squares carried onto their codes by pdep, as
codes ascend with the squares they lead to. Listing them by tzcnt then needs no table
a move and mispredicts less: the batched environment's step went from 75 to 65 ns a
game.

Jumps, codes and "the k-th set bit" use pext/pdep (BMI2) when numba compiles for a CPU
where they are fast, else portable shifts and a byte table (also under
NUMBA_DISABLE_JIT).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from llvmlite import ir  # type: ignore[import-untyped]
from numba import njit, types
from numba.core import config
from numba.extending import intrinsic

from boardlab.fast.rng import below, below_held
from boardlab.games.jinli.rules import (
    ADJACENT,
    ALL,
    DIRECTIONS,
    DROP,
    GIVE,
    JUMPS,
    MOVE,
    PASS,
    SIZE,
    SQUARES,
    JinLiState,
)

#: An upper bound on the number of legal actions: 45 empty squares (drop) or stones (give)
#: at most, 2 koi x (8 swims + 8 jumps) = 32 moves.
MAX_LEGAL = 64

DROP_DUE_ = 1
GIVE_DUE_ = 2

STEPS = [dr * SIZE + df for df, dr in DIRECTIONS]
#: ADJ[s]: the squares around s (bitboard).
ADJ = np.array(ADJACENT, dtype=np.int64)


def _near(square: int) -> int:
    near = 0
    for n in range(SQUARES):
        if ADJACENT[square] >> n & 1:
            near |= ADJACENT[n]
    return near


#: NEAR[s]: the squares at most two steps (king moves) from s, s included (bitboard).
NEAR = np.array([_near(s) for s in range(SQUARES)], dtype=np.int64)
#: DELTA[code]: to - from for an action code (direction d: swim, 8 + d: jump).
DELTA = np.array(STEPS + [2 * step for step in STEPS], dtype=np.int64)
#: CODE[to - from + 16]: the action code of a move from ``from`` to ``to``.
CODE = np.full(33, -1, dtype=np.int64)
CODE[DELTA + 16] = np.arange(16)
#: MIDS[s], LANDS[s]: the squares jumped over and landed on, for the directions in which s
#: has a landing square (the k-th bit of one goes with the k-th bit of the other).
MIDS = np.array([sum(1 << over for _, over, _ in JUMPS[s]) for s in range(SQUARES)], np.int64)
LANDS = np.array([sum(1 << land for _, _, land in JUMPS[s]) for s in range(SQUARES)], np.int64)


def _code_sets(targets: Any) -> np.ndarray:
    """For each square, the action codes (bit c for code c) of the moves from it to the
    squares of ``targets[square]`` (a bitboard). The codes ascend with the squares they
    lead to, so ``pdep`` carries the k-th square of a target set onto the k-th code."""
    sets = np.zeros(SQUARES, np.int64)
    for square in range(SQUARES):
        found = [t for t in range(SQUARES) if int(targets[square]) >> t & 1]
        codes = [int(CODE[t - square + 16]) for t in found]
        assert codes == sorted(codes), "codes ascend with their squares"
        sets[square] = sum(1 << code for code in codes)
    return sets


#: SWIM_CODES[s], JUMP_CODES[s]: the codes of the swims and jumps s has room for.
SWIM_CODES, JUMP_CODES = _code_sets(ADJACENT), _code_sets(LANDS)

#: Squares on files a-e (a koi there can jump two files right) and on files c-g (left).
FILES_AE = sum(1 << s for s in range(SQUARES) if s % SIZE <= SIZE - 3)
FILES_CG = sum(1 << s for s in range(SQUARES) if s % SIZE >= 2)
#: SEL8[byte * 8 + k]: the index of the k-th (0-based) set bit of ``byte``.
SEL8 = np.array(
    [
        ([b for b in range(8) if byte >> b & 1] + [0] * 8)[k]
        for byte in range(256)
        for k in range(8)
    ],
    dtype=np.int64,
)

S_SIZE = 11
KOI_R, KOI_Y, STONES, SIDE, PHASE, SUPPLY_R, SUPPLY_Y, SCORE_R, SCORE_Y, PASSES, TURNS = range(11)
P_TARGET, P_RECYCLE, P_LOSE, P_MAX_TURNS, P_STONES = range(5)
#: The length of ``observe``'s vector (``JinLi.observation_layout``).
OBSERVATION_SIZE = 3 * SQUARES + 11


# ---------------------------------------------------------------------- plain Python
def params(game: Any) -> np.ndarray:
    r = game.rules
    stones = int(game.options["stones"])
    return np.array(
        [r.target, int(r.recycle), int(r.lose_when_stuck), r.max_turns, stones], dtype=np.int64
    )


def encode(game: Any, state: JinLiState) -> np.ndarray:
    return np.array(
        [
            state.koi[0],
            state.koi[1],
            state.stones,
            state.side,
            state.phase,
            state.supply[0],
            state.supply[1],
            state.score[0],
            state.score[1],
            state.passes,
            state.turns,
        ],
        dtype=np.int64,
    )


def decode(game: Any, s: np.ndarray) -> JinLiState:
    v = [int(x) for x in s[:S_SIZE]]
    return JinLiState(
        koi=(v[KOI_R], v[KOI_Y]),
        stones=v[STONES],
        side=v[SIDE],
        phase=v[PHASE],
        supply=(v[SUPPLY_R], v[SUPPLY_Y]),
        score=(v[SCORE_R], v[SCORE_Y]),
        passes=v[PASSES],
        turns=v[TURNS],
    )


# ---------------------------------------------------------------------- bit helpers
@njit(cache=True)
def _popcount(x: int) -> int:
    # LLVM turns this loop into one popcnt instruction.
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@njit(cache=True)
def _ctz(x: int) -> int:
    """The index of the lowest set bit of x (x != 0)."""
    return _popcount((x & -x) - 1)


@njit(cache=True)
def _select_portable(x: int, k: int) -> int:
    """The index of the k-th (0-based) set bit of x (x < 2**49, k < popcount(x))."""
    base = 0
    c = _popcount(x & 0xFFFFFFFF)
    if k >= c:
        k -= c
        x >>= 32
        base = 32
    c = _popcount(x & 0xFFFF)
    if k >= c:
        k -= c
        x >>= 16
        base += 16
    c = _popcount(x & 0xFF)
    if k >= c:
        k -= c
        x >>= 8
        base += 8
    return int(base + SEL8[(x & 0xFF) * 8 + k])


@njit(cache=True)
def _jumps_portable(square: int, koi: int, empty: int, stones: int) -> int:
    """The landing squares (bitboard) of the koi on ``square`` (``koi`` = 1 << square):
    per direction, two steps from the koi, one step from a stone (no wrap across files)."""
    east = koi & FILES_AE
    west = koi & FILES_CG
    return (
        ((west >> 16) & (stones >> 8))
        | ((koi >> 14) & (stones >> 7))
        | ((east >> 12) & (stones >> 6))
        | ((west >> 2) & (stones >> 1))
        | ((east << 2) & (stones << 1))
        | ((west << 12) & (stones << 6))
        | ((koi << 14) & (stones << 7))
        | ((east << 16) & (stones << 8))
    ) & empty


@njit(cache=True)
def _codes_portable(square: int, empty: int, stones: int) -> int:
    """The action codes (bit c for code c) of the koi on ``square``: its swims and jumps."""
    targets = (ADJ[square] & empty) | _jumps_portable(square, 1 << square, empty, stones)
    codes = 0
    while targets:
        low = targets & -targets
        codes |= 1 << CODE[_ctz(low) - square + 16]
        targets ^= low
    return codes


@njit(cache=True)
def _can_move(koi: int, empty: int, stones: int) -> bool:
    while koi:
        low = koi & -koi
        square = _ctz(low)
        if ADJ[square] & empty or _jumps(square, low, empty, stones):
            return True
        koi ^= low
    return False


# ---------------------------------------------------------------------- BMI2
def _bmi2_op(name: str) -> Any:
    """An njit-callable int64 (src, mask) -> int64 LLVM x86 intrinsic (pext or pdep)."""

    @intrinsic
    def op(typingctx: Any, src: Any, mask: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            i64 = ir.IntType(64)
            module = builder.module
            fn = module.globals.get(name) or ir.Function(
                module, ir.FunctionType(i64, [i64, i64]), name
            )
            return builder.call(fn, args)

        return types.int64(types.int64, types.int64), codegen

    return op


_pext = _bmi2_op("llvm.x86.bmi.pext.64")
_pdep = _bmi2_op("llvm.x86.bmi.pdep.64")


@njit(cache=True)
def _select_bmi2(x: int, k: int) -> int:
    return int(_ctz(_pdep(1 << k, x)))


@njit(cache=True)
def _codes_bmi2(square: int, empty: int, stones: int) -> int:
    swims = _pdep(_pext(empty, ADJ[square]), SWIM_CODES[square])
    jumps = _pext(stones, MIDS[square]) & _pext(empty, LANDS[square])
    return int(swims | _pdep(jumps, JUMP_CODES[square]))


@njit(cache=True)
def _jumps_bmi2(square: int, koi: int, empty: int, stones: int) -> int:
    lands = LANDS[square]
    return int(_pdep(_pext(stones, MIDS[square]) & _pext(empty, lands), lands))


#: AMD CPUs before Zen 3 have BMI2 but microcoded, very slow pext/pdep.
SLOW_PDEP = ("bdver4", "znver1", "znver2")


def _fast_bmi2() -> bool:
    """Whether numba compiles for this machine's CPU (not a chosen one, not switched off)
    and it has fast pext/pdep. The choice is part of numba's cache key (CPU name and
    features), so a cached kernel never runs on a CPU it was not chosen for."""
    if any(getattr(config, key, None) for key in ("DISABLE_JIT", "CPU_NAME", "CPU_FEATURES")):
        return False
    try:
        from llvmlite import binding

        name = binding.get_host_cpu_name()
        has = binding.get_host_cpu_features().get("bmi2", False)
    except Exception:  # pragma: no cover - an llvmlite without the host queries
        return False
    return bool(has) and name not in SLOW_PDEP


#: The implementations the kernel uses: BMI2 where fast, else the portable ones (also
#: what runs under NUMBA_DISABLE_JIT). Tests compare the two.
USE_BMI2 = _fast_bmi2()
_select = _select_bmi2 if USE_BMI2 else _select_portable
_jumps = _jumps_bmi2 if USE_BMI2 else _jumps_portable
_codes = _codes_bmi2 if USE_BMI2 else _codes_portable


# ---------------------------------------------------------------------- random choice
# ---------------------------------------------------------------------- interface
@njit(cache=True)
def _winner_by_score(red: int, yellow: int) -> int:
    return 0 if red > yellow else 1 if yellow > red else 2


@njit(cache=True)
def result(s: np.ndarray, p: np.ndarray) -> int:
    red, yellow = s[SCORE_R], s[SCORE_Y]
    if red >= p[P_TARGET] or yellow >= p[P_TARGET]:
        return _winner_by_score(red, yellow)
    if s[PHASE] != MOVE:
        return -1
    if s[PASSES] >= 2 or s[TURNS] >= p[P_MAX_TURNS]:
        return _winner_by_score(red, yellow)
    if p[P_LOSE]:
        side = s[SIDE]
        empty = ALL & ~(s[KOI_R] | s[KOI_Y] | s[STONES])
        if not _can_move(s[KOI_R + side], empty, s[STONES]):
            return int(1 - side)
    return -1


@njit(cache=True, error_model="numpy")  # no ZeroDivisionError paths: p is valid
def observe(s: np.ndarray, p: np.ndarray, me: int, out: np.ndarray) -> None:
    """``JinLi.observation`` of the position for player ``me``, number for number,
    written to ``out``."""
    mine, theirs, placed = s[KOI_R + me], s[KOI_R + 1 - me], s[STONES]
    for square in range(SQUARES):  # selects without branches: LLVM vectorises them
        bit = 1 << square
        out[square] = 1.0 if mine & bit else 0.0
        out[SQUARES + square] = 1.0 if theirs & bit else 0.0
        out[2 * SQUARES + square] = 1.0 if placed & bit else 0.0
    at = 3 * SQUARES
    stones = max(1, p[P_STONES])
    out[at] = s[SUPPLY_R + me] / stones
    out[at + 1] = s[SUPPLY_R + 1 - me] / stones
    out[at + 2] = min(1.0, s[SCORE_R + me] / p[P_TARGET])
    out[at + 3] = min(1.0, s[SCORE_R + 1 - me] / p[P_TARGET])
    for phase in range(3):
        out[at + 4 + phase] = 1.0 if s[PHASE] == phase else 0.0
    out[at + 7] = s[PASSES] / 2
    out[at + 8] = s[TURNS] / p[P_MAX_TURNS]
    out[at + 9] = me
    out[at + 10] = 1.0 if me == s[SIDE] else 0.0


@njit(cache=True)
def to_act(s: np.ndarray, p: np.ndarray) -> int:
    """The player to act (0 red, 1 yellow); during a give, the giver."""
    return int(s[SIDE])


@njit(cache=True)
def legal(s: np.ndarray, p: np.ndarray, out: np.ndarray) -> int:
    return 0 if result(s, p) != -1 else moves(s, p, out)


@njit(cache=True)
def moves(s: np.ndarray, p: np.ndarray, out: np.ndarray) -> int:
    """``legal`` of a position known to go on (``result`` -1), without asking again."""
    stones = s[STONES]
    empty = ALL & ~(s[KOI_R] | s[KOI_Y] | stones)
    phase = s[PHASE]
    n = 0
    if phase == MOVE:
        koi = s[KOI_R + s[SIDE]]
        while koi:
            low = koi & -koi
            square = _ctz(low)
            codes = _codes(square, empty, stones)  # ascending codes: ascending actions
            while codes:
                out[n] = square * 16 + _ctz(codes)
                n += 1
                codes &= codes - 1
            koi ^= low
        if n == 0:
            out[0] = PASS
            n = 1
        return n
    board = empty if phase == DROP_DUE_ else stones
    offset = DROP if phase == DROP_DUE_ else GIVE
    while board:
        low = board & -board
        out[n] = offset + _ctz(low)
        n += 1
        board ^= low
    return n


@njit(cache=True)
def _end_turn(s: np.ndarray, p: np.ndarray, passed: bool) -> None:
    side = s[SIDE]
    turns = s[TURNS] + 1
    give = (
        p[P_RECYCLE] != 0
        and s[PHASE] == DROP_DUE_
        and s[SUPPLY_R + side] == 0
        and turns < p[P_MAX_TURNS]
    )
    s[SIDE] = 1 - side
    s[PHASE] = GIVE_DUE_ if give else MOVE
    if passed:
        s[PASSES] += 1
    s[TURNS] = turns


@njit(cache=True)
def apply(s: np.ndarray, p: np.ndarray, action: int) -> None:
    side = s[SIDE]
    if action == PASS:
        _end_turn(s, p, True)
    elif action >= GIVE:
        s[STONES] &= ~(1 << (action - GIVE))
        s[SUPPLY_R + 1 - side] += 1
        s[PHASE] = MOVE
    elif action >= DROP:
        s[STONES] |= 1 << (action - DROP)
        s[SUPPLY_R + side] -= 1
        _end_turn(s, p, False)
    else:
        origin = action >> 4
        kind = action & 15
        to = origin + DELTA[kind]
        koi = s[KOI_R + side] ^ (1 << origin) ^ (1 << to)
        s[KOI_R + side] = koi
        score = s[SCORE_R + side] + _popcount(ADJ[to] & (s[KOI_R] | s[KOI_Y]))
        s[SCORE_R + side] = score
        s[PASSES] = 0
        if score < p[P_TARGET] and kind < 8 and s[SUPPLY_R + side] > 0:
            s[PHASE] = DROP_DUE_
        else:
            _end_turn(s, p, False)


@njit(cache=True)
def _playout_generic(s: np.ndarray, p: np.ndarray, g: np.ndarray) -> tuple[int, int]:
    out = np.empty(MAX_LEGAL, dtype=np.int64)
    n = 0
    while True:
        count = legal(s, p, out)
        if count == 0:
            return result(s, p), n
        apply(s, p, out[np.int64(below(g, count))])
        n += 1


@njit(cache=True)
def playout(s: np.ndarray, p: np.ndarray, g: np.ndarray) -> tuple[int, int]:
    if _popcount(s[KOI_R]) != 2 or _popcount(s[KOI_Y]) != 2:
        return _playout_generic(s, p, g)
    target = p[P_TARGET]
    recycle = p[P_RECYCLE] != 0
    lose = p[P_LOSE] != 0
    max_turns = p[P_MAX_TURNS]
    side = s[SIDE]
    phase = s[PHASE]
    stones = s[STONES]
    passes = s[PASSES]
    turns = s[TURNS]
    mine, theirs = s[KOI_R + side], s[KOI_Y - side]
    my_supply, their_supply = s[SUPPLY_R + side], s[SUPPLY_Y - side]
    my_score, their_score = s[SCORE_R + side], s[SCORE_Y - side]
    g0, g1, g2, g3 = g[0], g[1], g[2], g[3]
    n = 0
    over = my_score >= target or their_score >= target
    while not over:
        empty = ALL & ~(mine | theirs | stones)
        if phase == MOVE:
            if passes >= 2 or turns >= max_turns:
                break
            low = mine & -mine
            a = _ctz(low)
            b = _ctz(mine ^ low)
            swims_a = ADJ[a] & empty
            jumps_a = _jumps(a, low, empty, stones)
            swims_b = ADJ[b] & empty
            jumps_b = _jumps(b, mine ^ low, empty, stones)
            c1 = _popcount(swims_a)
            c2 = c1 + _popcount(jumps_a)
            c3 = c2 + _popcount(swims_b)
            total = c3 + _popcount(jumps_b)
            if total == 0:
                if lose:
                    break
                # pass, the only action: it still draws (below(g, 1)), as the list would
                _, g0, g1, g2, g3 = below_held(g0, g1, g2, g3, 1)
                passes += 1
                turns += 1
                n += 1
                side ^= 1
                mine, theirs = theirs, mine
                my_supply, their_supply = their_supply, my_supply
                my_score, their_score = their_score, my_score
                continue
            k, g0, g1, g2, g3 = below_held(g0, g1, g2, g3, total)
            if k < c1:
                origin, to, jump = a, _select(swims_a, k), False
            elif k < c2:
                origin, to, jump = a, _select(jumps_a, k - c1), True
            elif k < c3:
                origin, to, jump = b, _select(swims_b, k - c2), False
            else:
                origin, to, jump = b, _select(jumps_b, k - c3), True
            mine ^= (1 << origin) | (1 << to)
            my_score += _popcount(ADJ[to] & (mine | theirs))
            passes = 0
            n += 1
            if my_score >= target:
                over = True
            elif not jump and my_supply > 0:
                phase = DROP_DUE_
                continue
            turns += 1
            side ^= 1
            mine, theirs = theirs, mine
            my_supply, their_supply = their_supply, my_supply
            my_score, their_score = their_score, my_score
        elif phase == DROP_DUE_:
            k, g0, g1, g2, g3 = below_held(g0, g1, g2, g3, _popcount(empty))
            stones |= 1 << _select(empty, k)
            my_supply -= 1
            n += 1
            turns += 1
            phase = GIVE_DUE_ if recycle and my_supply == 0 and turns < max_turns else MOVE
            side ^= 1
            mine, theirs = theirs, mine
            my_supply, their_supply = their_supply, my_supply
            my_score, their_score = their_score, my_score
        else:
            k, g0, g1, g2, g3 = below_held(g0, g1, g2, g3, _popcount(stones))
            stones ^= 1 << _select(stones, k)
            their_supply += 1
            phase = MOVE
            n += 1
    g[0], g[1], g[2], g[3] = g0, g1, g2, g3
    s[SIDE] = side
    s[PHASE] = phase
    s[STONES] = stones
    s[PASSES] = passes
    s[TURNS] = turns
    s[KOI_R + side], s[KOI_Y - side] = mine, theirs
    s[SUPPLY_R + side], s[SUPPLY_Y - side] = my_supply, their_supply
    s[SCORE_R + side], s[SCORE_Y - side] = my_score, their_score
    return result(s, p), n


# ---------------------------------------------------------------------- evaluation
@njit(cache=True)
def _chances(koi: int, all_koi: int) -> int:
    """For each koi of ``koi``, the other koi within two steps (``JinLi.evaluate``)."""
    total = 0
    while koi:
        low = koi & -koi
        total += _popcount(NEAR[_ctz(low)] & all_koi & ~low)
        koi ^= low
    return total


@njit(cache=True)
def evaluate(s: np.ndarray, p: np.ndarray, player: int) -> float:
    """``JinLi.evaluate`` over the compact state: the same number."""
    other = 1 - player
    all_koi = s[KOI_R] | s[KOI_Y]
    score = (s[SCORE_R + player] - s[SCORE_R + other]) / max(p[P_TARGET], 1) * 3.0
    score += 0.08 * (_chances(s[KOI_R + player], all_koi) - _chances(s[KOI_R + other], all_koi))
    score += 0.01 * (s[SUPPLY_R + player] - s[SUPPLY_R + other])
    return 0.9 * math.tanh(score)
