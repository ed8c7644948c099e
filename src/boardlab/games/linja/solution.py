"""Linja solved: the exact value of every position at the start of a turn.

**What is stored.** A side's position is its 8 row counts in its *own* coordinates (row 0
its start zone, row 7 its goal): one of ``C(19, 7) = 50,388`` compositions of 12 pieces.
The table holds one signed byte for each pair (mover, opponent), at index
``rank(mover) * 50,388 + rank(opponent)``: the final point difference, mover minus
opponent, when both sides maximise their own difference from the start of the mover's
turn (no pass before it). Red to move is Black to move with the board turned round, so
one table of ``50,388² = 2,538,950,544`` values serves both sides and both ``first``
options. About half the pairs break the capacity of a field row and are never read.

**The file (format 2).** The values are written a row at a time: the 50,388 values of one
mover composition (50 KB), compressed with zlib, behind an index of row offsets
(``tables.write_blocks``): 0.34 GB instead of 2.54 GB (2.36 GiB) for the default rules,
13.5 % (``benchmarks/results/linja_compact.md``). Rows, because the turn ends of a
position all lie in one row: the next mover is the opponent, who did not move (only a
nasty bonus moves its pieces), so a perfect move (42 lookups on average) decodes one row
(about 0.1 ms) and the reader's cache of the last rows serves the rest of its lookups.
zlib, because it is in the standard library and decodes a row fastest: lzma and bz2
shrink the rows by a fifth more but decode 3 and 8 times slower. Keeping only the valid
pairs would have halved the file at most; compression also takes the skew of the values
(most are 0 or ±8) and the invalid pairs, zeros, almost for free. A flat table of format
1 (one byte a pair, mapped as it is) is still read; ``compact`` converts one in place,
which ``boardlab solve linja`` does when it finds one (3 minutes rather than a new
build).

**Why one pass fills it.** Let the progress P be the rows both sides' pieces have gone
from their own start, and G the pieces in goals. An opening moves forward (P + 1) and a
follow-up moves forward; a bonus moves one row back at most once, and only after a
follow-up of at least one row (P + 1 at least over the turn) or, with
``bonus_after_opening``, after an opening into the goal (P unchanged, but G + 1: without
``goal_step_back`` no piece ever leaves a goal, and the nasty bonus never moves a piece out
of its goal). So every turn that is not a pass raises (P, G) in lexicographic order, and
the values of a level depend only on higher levels. A pass leaves the board as it is;
the opponent then moves (a higher level) or passes too, which ends the game. The build
therefore walks the levels from the highest down, once. With both
``bonus_after_opening`` and ``goal_step_back`` an opening into the goal and a bonus back
out of it give the same board again: that game can loop, so it is not solved.

**The turn cap.** A game has at most 168 + 24 turns that are not passes and never two
passes in a row, so at most ``MAX_GAME_TURNS`` turns: the cap (default 1000) cannot bind,
and positions whose remaining turns could reach it are out of the table's reach.

Turns are walked by a generator of their own (``_part``, ``_bonus``) that follows the
kernel's ``_step`` phase by phase: it takes every legal move from the kernel's own masks
(``forward_sources``, ``bonus_masks``) and what an opening and a follow-up earn from the
kernel's own ``follow_up_count`` and ``after_follow_up``; the tests check it against the
engine at every turn start of random games, under every variant.
"""

from __future__ import annotations

import math
import mmap
import time
from collections.abc import Callable, Iterator, Mapping
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numba
import numpy as np
from numba import njit, prange, types
from numba.extending import intrinsic, overload

from boardlab.core.errors import BoardlabError
from boardlab.core.i18n import _
from boardlab.games.linja.game import Linja
from boardlab.games.linja.kernel import (
    BONUS_INSTEAD,
    EARNS_BONUS,
    EARNS_EXTRA,
    OPENING,
    P_BONUS_AFTER_OPENING,
    P_EXTRA_TURN,
    P_GOAL_STEP_BACK,
    P_NASTY,
    P_POSITIVE,
    PASS,
    after_follow_up,
    bonus_masks,
    follow_up_count,
    forward_sources,
    full_rows,
    params,
    sides_passed,
)
from boardlab.games.linja.kernel import (
    LOW as LOWEST,
)
from boardlab.games.linja.rules import BLACK, CAPACITY, PIECES, POSITIVE, ROWS, SIGNED, LinjaState
from boardlab.solve.tables import (
    BlockValues,
    TableError,
    open_table,
    read_table,
    table_dir,
    write_blocks,
)

COMPOSITIONS = math.comb(PIECES + ROWS - 1, ROWS - 1)  # 50,388
ENTRIES = COMPOSITIONS * COMPOSITIONS
MAX_PROGRESS = PIECES * (ROWS - 1)  # a side's pieces all in the goal: 84
TOP_LEVEL = 2 * MAX_PROGRESS  # P of both sides
MAX_GOALS = 2 * PIECES
#: turns a game can still last from any position: every turn but a pass raises (P, G),
#: and a pass is followed by a move or the end
MAX_GAME_TURNS = 2 * (TOP_LEVEL + MAX_GOALS) + 1
KIND = "linja-values"
FORMAT = 2  # rows in zlib blocks (see "The file"); 1: flat, still read, converted by ``compact``
FLAT_FORMAT = 1

EARNED = 64  # extra turns one turn can earn: 7 openings x 8 follow-ups at most
MAX_LEAVES = 4096  # turn ends of one position: at most 7 * 8 * 7 * 8 under extra-turn
CHUNK = 16  # tasks (columns) a thread takes at a time
HALF = 13**4  # index of 4 counts 0..12, base 13
#: The options ``params`` gives, as an array or as a tuple of its numbers (the solver's
#: loop takes the tuple: constants it keeps in registers)
Rules = np.ndarray | tuple[int, ...]


# ---------------------------------------------------------------------- compositions
def _compositions() -> np.ndarray:
    """Every composition of 12 pieces over 8 rows as an int64 word (byte r = row r), in
    rank order (see ``_rank_tables``)."""
    words = []
    for low in range(PIECES + 1):
        for a in _parts(low):
            for b in _parts(PIECES - low):
                counts = a + b
                words.append(sum(n << (8 * r) for r, n in enumerate(counts)))
    return np.array(words, dtype=np.int64)


@cache
def _parts(total: int) -> list[tuple[int, ...]]:
    """The compositions of ``total`` over 4 rows, in a fixed order."""
    return [
        (a, b, c, total - a - b - c)
        for a in range(total + 1)
        for b in range(total - a + 1)
        for c in range(total - a - b + 1)
    ]


def _rank_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The rank of a composition is ``BASE[s] + LOW[lo] * SPAN[12 - s] + LOW[hi]``, where
    s is the pieces in rows 0-3, lo and hi index rows 0-3 and 4-7 in base 13, and LOW
    ranks 4 counts among those of their sum: a block per split s, inside it rows 0-3
    major. A few lookups instead of a binomial sum."""
    low = np.zeros(HALF, dtype=np.int64)
    base = np.zeros(PIECES + 2, dtype=np.int64)
    for total in range(PIECES + 1):
        for k, (a, b, c, d) in enumerate(_parts(total)):
            low[a + 13 * b + 169 * c + 2197 * d] = k
        base[total + 1] = base[total] + len(_parts(total)) * len(_parts(PIECES - total))
    span = np.array([len(_parts(t)) for t in range(PIECES + 1)], dtype=np.int64)
    return low, base, span


RANK_LOW, RANK_BASE, RANK_SPAN = _rank_tables()
UNRANK = _compositions()
SIGNED_POINTS = np.array(SIGNED, dtype=np.int64)
POSITIVE_POINTS = np.array(POSITIVE, dtype=np.int64)


@njit(cache=True)
def rank(w: int) -> int:
    """The index of a composition word (see ``_rank_tables``)."""
    lo = 0
    hi = 0
    for r in range(3, -1, -1):
        lo = lo * 13 + ((w >> (8 * r)) & 0xFF)
        hi = hi * 13 + ((w >> (8 * (r + 4))) & 0xFF)
    total = (w & 0xFF) + ((w >> 8) & 0xFF) + ((w >> 16) & 0xFF) + ((w >> 24) & 0xFF)
    return int(RANK_BASE[total] + RANK_LOW[lo] * RANK_SPAN[PIECES - total] + RANK_LOW[hi])


@njit(cache=True)
def turned(w: int) -> int:
    """A side's word in the other side's coordinates: the 8 bytes reversed (counts are at
    most 12, so no shift reaches the sign bit)."""
    w = ((w & 0x00FF00FF00FF00FF) << 8) | ((w >> 8) & 0x00FF00FF00FF00FF)
    w = ((w & 0x0000FFFF0000FFFF) << 16) | ((w >> 16) & 0x0000FFFF0000FFFF)
    return ((w & 0xFFFFFFFF) << 32) | ((w >> 32) & 0xFFFFFFFF)


#: Added to both sides' counts summed (at most 24 a row: no carry into the next byte),
#: bit 6 of a row's byte is set when the row holds more than its capacity; the field rows.
OVER_CAPACITY = (0x40 - CAPACITY - 1) * 0x0101010101010101
FIELD_BIT_6 = 0x0040404040404000


@njit(cache=True, inline="always")
def _valid(m: int, o: int) -> bool:
    """No field row holds more than its capacity (``o`` in the mover's coordinates)."""
    return (m + o + OVER_CAPACITY) & FIELD_BIT_6 == 0


@njit(cache=True, inline="always")
def _difference(m: int, x: int, rules: Rules) -> int:
    """Mover's points minus the opponent's (``x``: the opponent in the mover's rows)."""
    table = POSITIVE_POINTS if rules[P_POSITIVE] else SIGNED_POINTS
    total = 0
    for r in range(ROWS):
        total += (((m >> (8 * r)) & 0xFF) - ((x >> (8 * (ROWS - 1 - r))) & 0xFF)) * table[r]
    return total


@njit(cache=True, inline="always")
def _moved(w: int, origin: int, to: int) -> int:
    return w + (1 << (8 * to)) - (1 << (8 * origin))


# ---------------------------------------------------------------------- the turn generator
def _code_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A composition's *code*: the counts of rows 0-3 as base-13 digits in bits 0-15, those
    of rows 4-7 in bits 16-31. Moving a piece from row a to row b adds ``CODE_OF_ROW[b] -
    CODE_OF_ROW[a]``, and ``RANK_OF_LOW[code & 0xFFFF] + RANK_OF_HIGH[code >> 16]`` is
    ``rank``: the generator ranks a turn's end with one addition and two lookups (small
    tables that stay in cache) instead of reading its 8 counts."""
    of_row = np.array([13**r if r < 4 else 13 ** (r - 4) << 16 for r in range(ROWS)])
    digits = np.arange(HALF)[:, None] // 13 ** np.arange(4) % 13
    low_total = np.minimum(digits.sum(axis=1), PIECES)  # beyond 12: never a composition
    of_low = RANK_BASE[low_total] + RANK_LOW * RANK_SPAN[PIECES - low_total]
    counts = (UNRANK[:, None] >> (8 * np.arange(ROWS))) & 0xFF
    return of_row, of_low.astype(np.int32), RANK_LOW.astype(np.int32), counts @ of_row


CODE_OF_ROW, RANK_OF_LOW, RANK_OF_HIGH, CODES = _code_tables()
NO_TURN = 1000  # what a turn without an opening reports: above every value


@njit(cache=True, inline="always")
def _coded_rank(code: int) -> int:
    return int(RANK_OF_LOW[code & 0xFFFF]) + int(RANK_OF_HIGH[code >> 16])


@njit(cache=True, inline="always")
def _lowest_bit(mask: int) -> int:
    """The lowest set bit of a mask of at most 16 bits."""
    low = mask & 0xFF
    return int(LOWEST[low]) if low else 8 + int(LOWEST[mask >> 8])


def _end(out: np.ndarray, row: int, code: int, m: int, x: int) -> int:
    """A turn ends with mover ``m`` (``code``) and opponent ``x`` (in the mover's rows):
    its value for the opponent, who moves next (``out`` the table, ``row`` the offset of
    the opponent's row in it), or, recording (``out`` of int64 pairs), the end noted in
    ``out[1 + k]`` (``out[0, 0]``: the count so far) and NO_TURN, which no minimum takes.
    Compiled for each kind of ``out``: the solver's loop has no branch for recording. An
    end where the sides have passed each other is read from the table too: it holds
    their point difference there (``_value``), from the other side, as it is wanted."""
    raise NotImplementedError  # numba's overload below is what runs


@overload(_end, inline="always")
def _end_compiled(out: Any, row: Any, code: Any, m: Any, x: Any) -> Any:
    if out.ndim == 1:

        def read(out: Any, row: Any, code: Any, m: Any, x: Any) -> Any:
            return int(out[row + _coded_rank(code)])

        return read

    def record(out: Any, row: Any, code: Any, m: Any, x: Any) -> Any:
        count = out[0, 0] + 1
        out[count, 0] = m
        out[count, 1] = turned(x)
        out[0, 0] = count
        return NO_TURN

    return record


@njit(cache=True, inline="always")
def _bonus(
    out: np.ndarray, row: int, m: int, code: int, x: int, opponent: int, rules: Rules
) -> int:
    """Every bonus after mover ``m`` (``code``) against ``x`` (``opponent``: its code in its
    own rows): ``pass``, an own piece one row forward or back, an opponent piece (nasty),
    as the kernel's masks allow; the least value the opponent is left with."""
    low = _end(out, row, code, m, x)
    mine, theirs = bonus_masks(m, x, 0, rules[P_GOAL_STEP_BACK], rules[P_NASTY])
    while mine:
        bit = _lowest_bit(mine)
        mine &= mine - 1
        origin = bit >> 1
        to = origin - 1 + 2 * (bit & 1)
        moved = code + CODE_OF_ROW[to] - CODE_OF_ROW[origin]
        low = min(low, _end(out, row, moved, _moved(m, origin, to), x))
    while theirs:
        bit = _lowest_bit(theirs)
        theirs &= theirs - 1
        origin = bit >> 1
        to = origin - 1 + 2 * (bit & 1)
        # The opponent's row r is its own row 7 - r: its row in the table changes.
        pushed = opponent + CODE_OF_ROW[ROWS - 1 - to] - CODE_OF_ROW[ROWS - 1 - origin]
        low = min(
            low, _end(out, _coded_rank(pushed) * COMPOSITIONS, code, m, _moved(x, origin, to))
        )
    return low


@njit(cache=True, inline="always")
def _part(
    out: np.ndarray,
    row: int,
    m: int,
    code: int,
    x: int,
    opponent: int,
    rules: Rules,
    extra: int,
    earned: np.ndarray,
) -> tuple[int, int]:
    """Every way a turn (or its extra turn, ``extra``) goes on from its opening, as the
    kernel's ``_step`` plays it: the least value the opponent is left with, and the extra
    turns earned (left in ``earned``, word and code, not walked here), -1 when there is
    no opening."""
    both = m + x
    openings = forward_sources(m, 0, full_rows(both), 1)
    if not openings:
        return NO_TURN, -1
    low = NO_TURN
    extras = 0
    while openings:
        origin = int(LOWEST[openings])
        openings &= openings - 1
        to = origin + 1
        before = (both >> (8 * to)) & 0xFF  # what stood in the row
        m1 = _moved(m, origin, to)
        code1 = code + CODE_OF_ROW[to] - CODE_OF_ROW[origin]
        n = follow_up_count(
            before, to == ROWS - 1, rules[P_EXTRA_TURN], rules[P_BONUS_AFTER_OPENING]
        )
        # An opening earns one bonus at most (into the goal, or a follow-up of exactly N
        # steps into it from the one row N below): walked after its follow-ups.
        bonus, bonus_code = (m1, code1) if n == BONUS_INSTEAD else (-1, 0)
        both1 = m1 + x
        follow = forward_sources(m1, 0, full_rows(both1), n) if n > 0 else 0
        if not follow and n != BONUS_INSTEAD:  # no follow-up, or it is forfeited
            low = min(low, _end(out, row, code1, m1, x))
        while follow:
            source = int(LOWEST[follow])
            follow &= follow - 1
            dest = min(source + n, ROWS - 1)
            empty = ((both1 >> (8 * dest)) & 0xFF) == 0
            m2 = _moved(m1, source, dest)
            code2 = code1 + CODE_OF_ROW[dest] - CODE_OF_ROW[source]
            what = after_follow_up(
                source + n == ROWS - 1, empty and dest != ROWS - 1, extra, rules[P_EXTRA_TURN]
            )
            if what == EARNS_EXTRA:
                earned[extras, 0] = m2
                earned[extras, 1] = code2
                extras += 1
            elif what == EARNS_BONUS:
                bonus, bonus_code = m2, code2
            else:
                low = min(low, _end(out, row, code2, m2, x))
        if bonus >= 0:
            low = min(low, _bonus(out, row, bonus, bonus_code, x, opponent, rules))
    return low, extras


@njit(cache=True, inline="always")
def _turn(
    out: np.ndarray,
    row: int,
    m: int,
    code: int,
    x: int,
    opponent: int,
    rules: Rules,
    earned: np.ndarray,
) -> int:
    """Every way the turn goes, extra turns included: the least value it leaves the
    opponent, NO_TURN when there is no opening. ``earned``: scratch for ``EARNED``. The
    turn, then each extra turn it earned, in one loop: one copy of ``_part`` inlined."""
    low = NO_TURN
    extras = 0
    k = -1
    while k < extras:
        mover, mover_code = (m, code) if k < 0 else (earned[k, 0], earned[k, 1])
        after, more = _part(out, row, mover, mover_code, x, opponent, rules, int(k >= 0), earned)
        if more < 0:  # no opening
            if k < 0:
                return NO_TURN
            after = _end(out, row, mover_code, mover, x)  # the extra turn is passed
        else:
            extras += more  # the extra turns earn none
        low = min(low, after)
        k += 1
    return low


@njit(cache=True)
def turn_ends(m: int, o: int, rules: Rules, acc: np.ndarray) -> int:
    """Every way the turn of mover ``m`` against ``o`` (each in its own rows) can end:
    ``acc[2 + 2k], acc[3 + 2k]`` = (mover, opponent) after the k-th sequence of actions,
    one per sequence (two may end alike); the count, or -1 when the turn is a pass.
    ``acc`` needs ``2 + 2 * MAX_LEAVES`` entries."""
    ends = np.zeros((MAX_LEAVES + 1, 2), dtype=np.int64)
    earned = np.empty((EARNED, 2), dtype=np.int64)
    _turn(ends, 0, m, CODES[rank(m)], turned(o), CODES[rank(o)], rules, earned)
    count = ends[0, 0]
    acc[1] = count
    acc[2 : 2 + 2 * count] = ends[1 : 1 + count].ravel()
    return int(count) if count else -1


@njit(cache=True)
def _reply(
    values: np.ndarray,
    row: int,
    m: int,
    code: int,
    x: int,
    opponent: int,
    rules: Rules,
    earned: np.ndarray,
) -> int:
    """``_turn`` compiled on its own, for the turns after a pass: they are few, and
    ``_value`` stays small."""
    return _turn(values, row, m, code, x, opponent, rules, earned)


@njit(cache=True, inline="always")
def _value(
    values: np.ndarray, m: int, mover: int, o: int, opponent: int, rules: Rules, earned: np.ndarray
) -> int:
    """The value of mover ``m`` (rank ``mover``) against ``o`` (rank ``opponent``), each in
    its own rows, at the start of a turn with no pass before it, from the values of every
    higher level."""
    x = turned(o)
    if sides_passed(m, x):
        return _difference(m, x, rules)
    low = _turn(values, opponent * COMPOSITIONS, m, CODES[mover], x, CODES[opponent], rules, earned)
    if low < NO_TURN:
        return -low
    # The mover passes; the opponent moves on, or passes too and the game is over.
    reply = _turn(
        values, mover * COMPOSITIONS, o, CODES[opponent], turned(m), CODES[mover], rules, earned
    )
    return reply if reply < NO_TURN else _difference(m, x, rules)


def _fetch_and_add(typingctx: Any, counter: Any) -> tuple[Any, Any]:
    """``counter[0]``, then one more, in one atomic step: threads take the next chunk of a
    level as they become free, so a thread slowed by other work is not waited for."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        array = context.make_array(signature.args[0])(context, builder, args[0])
        one = context.get_constant(types.int64, 1)
        return builder.atomic_rmw("add", array.data, one, "monotonic")

    return types.int64(counter), codegen


_take: Any = intrinsic(_fetch_and_add)


@njit(cache=True, parallel=True)
def _solve_level(
    values: np.ndarray,
    level: int,
    goals: int,
    rules: Rules,
    progress: np.ndarray,
    in_goal: np.ndarray,
    order: np.ndarray,
    starts: np.ndarray,
    first: int,
    last: int,
    counter: np.ndarray,
    threads: int,
) -> None:
    """Every position of progress ``level`` (with ``goals`` pieces in goals, unless it is
    -1), a column of the table (one opponent o) per task: its positions read the row of
    o, which stays in cache. The movers of progress pm (and gm pieces in goals) are
    ``order[starts[b]:starts[b + 1]]``, b = pm (or pm * 13 + gm); the opponents,
    ``order[first:last]``, are taken in that order too, a chunk at a time by whichever
    thread is free: neighbouring tasks have the same movers, so a task writes to the
    cache lines the one before it wrote to (one per mover)."""
    chunks = (last - first + CHUNK - 1) // CHUNK
    counter[0] = 0
    for _worker in prange(threads):
        earned = np.empty((EARNED, 2), dtype=np.int64)
        chunk = _take(counter)
        while chunk < chunks:
            for task in range(first + chunk * CHUNK, min(first + (chunk + 1) * CHUNK, last)):
                o = order[task]
                pm = level - progress[o]
                bucket = pm
                if goals >= 0:
                    gm = goals - in_goal[o]
                    if gm < 0 or gm > PIECES:
                        continue
                    bucket = pm * (PIECES + 1) + gm
                ow = UNRANK[o]
                x = turned(ow)
                for k in range(starts[bucket], starts[bucket + 1]):
                    m = order[k]
                    mw = UNRANK[m]
                    if _valid(mw, x):
                        values[m * COMPOSITIONS + o] = _value(values, mw, m, ow, o, rules, earned)
            chunk = _take(counter)


def _levels(by_goals: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each composition's progress and pieces in the goal, and the compositions grouped
    by progress (and goals, ``by_goals``): ``order[starts[b]:starts[b + 1]]`` for bucket b."""
    counts = (UNRANK[:, None] >> (8 * np.arange(ROWS))) & 0xFF
    progress = (counts * np.arange(ROWS)).sum(axis=1)
    in_goal = counts[:, ROWS - 1]
    bucket = progress * (PIECES + 1) + in_goal if by_goals else progress
    order = np.argsort(bucket, kind="stable").astype(np.int64)
    size = (MAX_PROGRESS + 1) * (PIECES + 1 if by_goals else 1)
    starts = np.searchsorted(bucket[order], np.arange(size + 1))
    return progress.astype(np.int64), in_goal.astype(np.int64), order, starts.astype(np.int64)


def _blank_table(huge: bool) -> np.ndarray:
    """A zeroed table whose pages are committed only when written; on huge pages where
    the system allows when it will be filled (the build reads and writes all over
    2.5 GB: fewer TLB misses), on small ones for a partial table (fewer bytes held)."""
    area = mmap.mmap(-1, ENTRIES)
    if huge and hasattr(mmap, "MADV_HUGEPAGE"):
        area.madvise(mmap.MADV_HUGEPAGE)
    return np.frombuffer(area, dtype=np.int8)


def solve_values(
    p: np.ndarray,
    lowest: int = 0,
    values: np.ndarray | None = None,
    progress: Callable[[int, int], None] | None = None,
    top: int = TOP_LEVEL,
) -> np.ndarray:
    """Fill the table from the top level down to ``lowest`` (0: all of it). A table cut
    short is exact at every level it reached, which lets tests solve endings alone.
    ``top`` below ``TOP_LEVEL``: the levels above it are in ``values`` already (a build
    resumed); ``progress`` still counts the levels from the top.

    A level is one sweep, except under ``bonus_after_opening`` (an opening into the goal
    and a bonus back keep the progress): then one sweep per count of pieces in goals,
    from the most down."""
    if values is None:
        values = _blank_table(huge=lowest == 0)
    rules = tuple(int(option) for option in p)
    by_goals = bool(rules[P_BONUS_AFTER_OPENING]) and not rules[P_EXTRA_TURN]
    prog, in_goal, order, starts = _levels(by_goals)
    width = PIECES + 1 if by_goals else 1  # buckets a progress
    counter = np.zeros(1, dtype=np.int64)
    threads = numba.get_num_threads()
    for level in range(top, lowest - 1, -1):
        # the opponents whose progress leaves the mover 0 to 84
        first = starts[max(0, level - MAX_PROGRESS) * width]
        last = starts[(min(MAX_PROGRESS, level) + 1) * width]
        for goals in range(MAX_GOALS, -1, -1) if by_goals else (-1,):
            _solve_level(
                values,
                level,
                goals,
                rules,
                prog,
                in_goal,
                order,
                starts,
                first,
                last,
                counter,
                threads,
            )
        if progress:
            progress(TOP_LEVEL - level + 1, TOP_LEVEL - lowest + 1)
    return values


# ---------------------------------------------------------------------- variants
def variant(game: Linja) -> dict[str, Any]:
    """The options that decide the values (``first`` and ``max_turns`` do not), or a
    BoardlabError naming why these rules cannot be solved."""
    rules = game.rules
    if rules.max_turns <= MAX_GAME_TURNS:
        raise BoardlabError(
            _(
                "max_turns={max_turns} can end a game early, so values depend on the turn "
                "count: the solver needs max_turns > {most}, where the cap never binds"
            ).format(max_turns=rules.max_turns, most=MAX_GAME_TURNS)
        )
    chosen: dict[str, Any] = {
        "ruleset": "extra-turn" if rules.extra_turn else "bonus",
        "scoring": "positive" if game.positive else "signed",
    }
    if not rules.extra_turn:
        if rules.bonus_after_opening and rules.goal_step_back:
            raise BoardlabError(
                _(
                    "bonus_after_opening=true with goal_step_back=true can loop (an opening into "
                    "the goal, then a bonus back out of it, gives the same board again), so the "
                    "game has no value without the turn count: not solved"
                )
            )
        chosen.update(
            bonus_after_opening=rules.bonus_after_opening,
            goal_step_back=rules.goal_step_back,
            nasty=rules.nasty,
        )
    return chosen


def variant_name(game: Linja) -> str:
    """A short readable name, also the table's file name: ``bonus-signed``,
    ``bonus-signed-nasty``, ``extra-turn-positive``..."""
    chosen = variant(game)
    flags = [k for k in ("bonus_after_opening", "goal_step_back", "nasty") if chosen.get(k)]
    return "-".join([chosen["ruleset"], chosen["scoring"], *flags])


#: The value of the start for the first player under every variant that has one, each
#: proven by building its whole table (``python benchmarks/solve_linja.py``, 2026-11-22;
#: the builds are in benchmarks/results/solve_linja.md): known without the tables.
START_VALUES: Mapping[str, int] = MappingProxyType(
    {
        "bonus-positive": 1,
        "bonus-positive-bonus_after_opening": 2,
        "bonus-positive-bonus_after_opening-nasty": 1,
        "bonus-positive-goal_step_back": 1,
        "bonus-positive-goal_step_back-nasty": 0,
        "bonus-positive-nasty": 0,
        "bonus-signed": 1,
        "bonus-signed-bonus_after_opening": 2,
        "bonus-signed-bonus_after_opening-nasty": 1,
        "bonus-signed-goal_step_back": 1,
        "bonus-signed-goal_step_back-nasty": 0,
        "bonus-signed-nasty": 0,
        "extra-turn-positive": 0,
        "extra-turn-signed": 0,
    }
)


def default_path(game: Linja) -> Path:
    return table_dir() / f"linja-{variant_name(game)}.table"


def missing_table(game: Linja, path: Path) -> str:
    options = "".join(f" --option {a}" for a in game.option_assignments())
    return _(
        "no Linja table for these rules at {path}: build it with `boardlab solve "
        "linja{options}` (about 5 minutes on 2 cores with 2.5 GB of memory; a file of 0.34 GB)"
    ).format(path=path, options=options)


def build(
    game: Linja,
    path: str | Path | None = None,
    progress: Callable[[int, int], None] | None = None,
    lowest: int = 0,
    work: Path | None = None,
) -> Path:
    """Solve ``game``'s rules and write the table (to ``default_path`` unless given). With
    ``lowest`` > 0 only the levels from ``lowest`` up are solved: an endgame table, exact
    where it reaches (the tests use them; a complete table takes minutes). With
    ``work``, a folder where the build keeps what it has done now and then, and goes on
    from it when started again (``boardlab.solve.resume``)."""
    chosen = variant(game)
    target = Path(path) if path else default_path(game)
    start = time.perf_counter()
    if work is None:
        values = solve_values(params(game), lowest, progress=progress)
    else:
        values = _resumed(game, work, lowest, progress)
    seconds = time.perf_counter() - start
    header = {
        "kind": KIND,
        "format": FORMAT,
        "game": "linja",
        "rules": chosen,
        "compositions": COMPOSITIONS,
        "lowest_level": lowest,
        "build_seconds": round(seconds, 1),
    }
    written = write_blocks(target, header, values, COMPOSITIONS)
    if work is not None:
        _checkpoint(game, work, lowest).clear()
    return written


def _checkpoint(game: Linja, work: Path, lowest: int) -> Any:
    """Where a build of ``game``'s table from ``lowest`` up keeps what it has done."""
    from boardlab.solve.resume import Checkpoint

    what = {"kind": KIND, "rules": variant(game), "lowest": lowest}
    return Checkpoint(work, what)


def _resumed(
    game: Linja, work: Path, lowest: int, progress: Callable[[int, int], None] | None
) -> np.ndarray:
    """``solve_values`` from the levels a stopped build kept in ``work``, keeping them
    there as it goes on."""
    saved = _checkpoint(game, work, lowest)
    values = _blank_table(huge=lowest == 0)
    done = saved.restore(values)

    def step(levels: int, total: int) -> None:
        saved.keep(values, levels)
        if progress:
            progress(levels, total)

    if done and progress:
        progress(done, TOP_LEVEL - lowest + 1)
    return solve_values(params(game), lowest, values, step, top=TOP_LEVEL - done)


def compact(
    game: Linja,
    source: str | Path | None = None,
    target: str | Path | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Path:
    """Rewrite a flat table of format 1 (``source``, the default path unless given) as
    rows in blocks (to ``target``, in place unless given): the same values, checked by
    the checksum of the flat file, in minutes instead of a new build."""
    origin = Path(source) if source else default_path(game)
    expect = {"kind": KIND, "format": FLAT_FORMAT, "game": "linja", "rules": variant(game)}
    table = read_table(origin, expect)
    kept = {k: v for k, v in table.header.items() if k not in ("entries", "sha256")}
    return write_blocks(
        Path(target) if target else origin,
        {**kept, "format": FORMAT},
        table.values,
        COMPOSITIONS,
        progress,
        sha256=table.header["sha256"],
    )


# ---------------------------------------------------------------------- reading
class LinjaSolution:
    """A solved Linja table, and exact values of any position under its rules.

    ``value`` is the final point difference (player to act minus opponent) under perfect
    play, for every position, mid-turn included: inside a turn it searches the rest of
    the turn with the engine's own actions and reads the table where the turn ends."""

    def __init__(self, game: Linja, values: np.ndarray | BlockValues, lowest: int = 0) -> None:
        self.game = game
        self.values = values
        self.lowest = lowest  # the lowest level solved: 0 for a complete table

    @classmethod
    def load(cls, game: Linja, path: str | Path | None = None) -> LinjaSolution:
        """Map the table for ``game``'s rules, of either format; TableError says how to
        build a missing one."""
        target = Path(path) if path else default_path(game)
        expect = {"kind": KIND, "game": "linja", "rules": variant(game)}
        if not target.exists():
            raise TableError(missing_table(game, target))
        table = open_table(target, expect)
        if table.header.get("format") != FLAT_FORMAT:
            table.require({"format": FORMAT})
        return cls(game, table.values, int(table.header["lowest_level"]))

    @staticmethod
    def available(game: Linja, path: str | Path | None = None) -> bool:
        try:
            return (Path(path) if path else default_path(game)).exists()
        except BoardlabError:
            return False

    def in_reach(self, state: LinjaState) -> bool:
        """The table holds every position the rest of the game can reach (a partial
        table: a turn's end is at most one row of progress below its position) and the
        turn cap cannot end the game before it ends by itself."""
        inside_turn = state.phase != OPENING or state.extra
        return level(
            state
        ) - inside_turn >= self.lowest and self.game.rules.max_turns - state.turns >= turns_left(
            state
        )

    def value(self, state: LinjaState) -> int:
        """The exact final point difference for the player to act."""
        if not self.in_reach(state):
            raise BoardlabError(
                _(
                    "the table does not reach {position}: it needs "
                    "progress {lowest} or more (a complete table has 0; this position has "
                    "{level}) and {turns} turns left before the cap {cap}"
                ).format(
                    position=self.game.format_state(state),
                    lowest=self.lowest,
                    level=level(state),
                    turns=turns_left(state),
                    cap=self.game.rules.max_turns,
                )
            )
        return self._value(state)

    def _value(self, state: LinjaState) -> int:
        game = self.game
        mover = state.side
        outcome = game.outcome_of(state)
        if outcome is not None:
            points = outcome.points
            return points[mover] - points[1 - mover]
        if state.phase == OPENING and not state.extra:
            m, o = words(state)
            if state.passes and game.legal_actions(state) == [PASS]:
                # A second pass in a row ends the game as it stands.
                return int(_difference(m, turned(o), params(game)))
            return int(self.values[rank(m) * COMPOSITIONS + rank(o)])
        return max(self._after(state, action) for action in game.legal_actions(state))

    def _after(self, state: LinjaState, action: int) -> int:
        child = self.game.apply(state, action)
        v = self._value(child)
        return v if child.side == state.side else -v

    def action_values(self, state: LinjaState) -> dict[int, int]:
        """Every legal action's exact value for the player to act."""
        self.value(state)  # in reach?
        return {a: self._after(state, a) for a in self.game.legal_actions(state)}

    def best_turns(self, state: LinjaState) -> Iterator[tuple[int, ...]]:
        """Every optimal whole turn from ``state`` (the start of a turn): the sequences of
        actions to the turn's end that keep the value."""
        target = self.value(state)
        yield from self._optimal(state, state.side, target, ())

    def _optimal(
        self, state: LinjaState, mover: int, target: int, line: tuple[int, ...]
    ) -> Iterator[tuple[int, ...]]:
        for action, v in self.action_values(state).items():
            if v != target:
                continue
            child = self.game.apply(state, action)
            if child.side == mover and self.game.outcome_of(child) is None:
                yield from self._optimal(child, mover, target, (*line, action))
            else:
                yield (*line, action)


def words(state: LinjaState) -> tuple[int, int]:
    """The mover's and the opponent's counts as words, each in its own coordinates."""
    mover, opponent = state.side, 1 - state.side
    return own_word(state.counts[mover], mover), own_word(state.counts[opponent], opponent)


def level(state: LinjaState) -> int:
    """The progress P of both sides: rows gone from their own starts."""
    mover, opponent = words(state)
    return sum(((w >> (8 * r)) & 0xFF) * r for w in (mover, opponent) for r in range(ROWS))


def turns_left(state: LinjaState) -> int:
    """The most turns the game can still take, the current one included: every turn
    that is not a pass raises the progress P, or keeps it and raises the pieces in goals
    G (which then never fall), and two passes in a row end the game."""
    mover, opponent = words(state)
    goals = ((mover >> 56) & 0xFF) + ((opponent >> 56) & 0xFF)
    moves = (TOP_LEVEL - level(state)) + (MAX_GOALS - goals)
    return 2 * moves + 2


def own_word(counts: tuple[int, ...], side: int) -> int:
    """A side's absolute row counts as a word in its own coordinates (row 0 its start)."""
    rows = counts if side == BLACK else counts[::-1]
    return sum(n << (8 * r) for r, n in enumerate(rows))
