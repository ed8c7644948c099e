"""Exact Galatjang endgames: a table built ahead and a memoised search.

**The value.** For a position of the last round (no refill follows) the value is the
exact final difference of stores, the player to act's minus the opponent's, when both
sides play to maximise their own difference. Stores only grow within a round, so the
value is the current store difference plus the best future gain difference from the
seeds still in the pits; that future part depends only on the pits, seen from the player
to act (his pits first, then the opponent's, each in sowing order), which is what the
table stores: one configuration serves both sides.

**Why one pass fills the table.** Under ``lone_seed=store`` every sowing (one action)
puts at least one seed into a store, so the seeds in the pits strictly drop. Where the
last seed of the sowing lands (relays only carry the sowing on):

- the sower's store, or the opponent's store: that seed is in a store;
- an opponent's pit that was empty: the seeds travel forward from one of the sower's own
  pits, and between his pits and the opponent's lies his own store, which is never
  skipped, so it got a seed on the way;
- one of his own pits that was empty: that seed goes to his store (with what the pit
  opposite holds), whether or not the opposite pit is empty.

So the value of every configuration with ``n`` seeds in the pits follows from values of
configurations with fewer seeds, and one pass from 0 seeds up to ``K`` fills a dense
table, no retrograde iteration needed. This holds for either ``sow_opponent_store`` and
either ``skip_origin`` (they only change where seeds go), and with blocked pits too. With
``lone_seed=stay`` a lone seed that stays keeps the count, so there is no table for it:
such positions, positions with blocked pits and positions where the turn cap may still
bind go to the memoised search.

**The table.** For ``P`` pits a row, every configuration of the ``2P`` pits with at most
``K`` seeds in all is ranked in a dense order: first by its total ``n``, then within the
total by the colexicographic rank of its stars-and-bars bar positions (the combinatorial
number system), so there are ``C(K + 2P, 2P)`` entries, one signed byte each (the future
part lies in ``[-n, n]``, hence ``K <= 127``). Each table holds for one choice of
``pits``, ``sow_opponent_store`` and ``skip_origin`` (``lone_seed=store``); the header
names them and a table is refused under other rules. The options ``seeds``, ``first``,
``rounds``, ``refill`` and ``round_starter`` do not change a last-round value.

**The turn cap.** ``max_turns`` ends the round after that many turns; the table ignores
it. A turn has at least one sowing and every sowing takes a seed out of the pits, and a
turn only starts when the player to act has a seed, so from a position with ``n`` seeds
in the pits at most ``n`` turns start (the current one included). The cap ends the round
early only if it falls before the last of them, so it cannot bind when ``max_turns -
TURNS >= n``; otherwise the search runs with the remaining turns in its key. Under
``lone_seed=stay`` a turn either drops the count or is a single sowing that only moves
seeds forward inside the sower's own row (it passed no store), which raises the sum over
all pits of seeds times their place in their row (0 to ``P - 1``); that sum stays in
``[0, (P - 1) n]``, so at most ``n + (n + 1)(P - 1) n`` turns start; the search uses that
bound the same way.

**The generator.** ``sow_child`` makes one sowing with the engine's compiled sower
(``kernel.sow``, the rules' one compiled form) on the ring seen from the player to act,
and decides whether the same player sows again (his last seed in his store and he still
has seeds) or the turn passes; the search and ``successors`` use it. The table build uses
the kernel's packed sower (``kernel.sow_packed``, the same sowing on two words of bytes
that moves a whole hand in one step, up to 6 pits; its layout is written down beside it);
the tests compare both with the engine on every position of many random games, and whole
tables built with either.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from math import comb
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit, prange

from boardlab.core.errors import OptionError
from boardlab.core.game import Game
from boardlab.core.i18n import _
from boardlab.games.galatjang import kernel
from boardlab.games.galatjang.kernel import (
    LONE_STORE,
    PACKED_HAND,
    PACKED_PITS,
    SKIP_ORIGIN,
    SOW_OPPONENT_STORE,
    sow,
    sow_packed,
    sowing_table,
)
from boardlab.games.galatjang.rules import (
    SOUTH,
    GalatjangState,
    pit_count,
    pit_index,
    store_index,
)
from boardlab.solve.tables import Table, TableError, read_table, table_dir, write_table

FORMAT = 1  # the ranking of configurations; a new ranking needs a new number
KIND = "galatjang-endgame"
DEFAULT_MAX_SEEDS = 24  # the default K: 1.25e9 entries for 6 pits, 1.17 GiB, minutes to build
MAX_TABLE_SEEDS = 127  # the future part lies in [-n, n] and is stored as one signed byte
MAX_ENTRIES = 3 << 30  # 3 GiB: the build holds the whole table in memory
DEFAULT_BUDGET = 400_000  # search nodes a query may add before it gives up
DEFAULT_SEARCH_SEEDS = 40  # the search is not tried with more seeds in the pits
MAX_SEARCH_SEEDS = 120  # the memo keeps a pit in one signed byte
SLICE = 1 << 23  # table entries a compiled call fills between two progress reports
CHUNK = 1 << 11  # entries a thread fills at a time (its scratch stays in cache)
ABORT = -(1 << 40)  # the search ran out of budget
#: Searches a query may take, each of at most the budget's new nodes and each going on
#: from what the last stored: the memo is emptied when a query might not fit, and a
#: position answered before can then need a second search (the perfect player fell back
#: to its search in 2 of 300 positions with one).
SEARCH_ATTEMPTS = 3
EMPTY = -1  # an empty memo slot
HASH_BITS = (1 << 40) - 1


# ------------------------------------------------------------------ compiled core
@njit(cache=True)
def sow_child(
    c: np.ndarray, pits: int, p: np.ndarray, action: int, ring: np.ndarray, child: np.ndarray
) -> tuple[int, int, bool]:
    """Sow pit ``action`` of the configuration ``c`` (the mover's ``P`` pits, then the
    opponent's, BLOCKED allowed) with the engine's compiled sower. Writes the child
    configuration, seen from the player then to act, into ``child`` and returns the
    mover's store gain, the opponent's store gain, and whether the turn passed. The
    search above the table (``solution``) makes its children with it too."""
    size = 2 * pits + 2
    for k in range(pits):
        ring[k] = c[k]
        ring[pits + 1 + k] = c[pits + k]
    ring[pits] = 0
    ring[size - 1] = 0
    again = sow(ring, p, pits, SOUTH, action)
    keeps = False
    if again:
        for k in range(pits):
            if ring[k] > 0:
                keeps = True
                break
    for k in range(pits):
        if keeps:
            child[k] = ring[k]
            child[pits + k] = ring[pits + 1 + k]
        else:
            child[k] = ring[pits + 1 + k]
            child[pits + k] = ring[k]
    return ring[pits], ring[size - 1], not keeps


@njit(cache=True)
def table_index(c: np.ndarray, binom: np.ndarray) -> int:
    """The table entry of the configuration ``c`` (no blocked pit): the configurations
    with fewer seeds come first, then the colexicographic rank of the bar positions
    ``c[0] + ... + c[j] + j`` within its total. The search above the table reads the
    table by it."""
    m = c.shape[0]
    total = 0
    rank = 0
    for j in range(m - 1):
        total += c[j]
        rank += binom[total + j, j + 1]
    total += c[m - 1]
    return int(binom[total + m - 1, m] + rank)


@njit(cache=True)
def _unrank(rank: int, n: int, binom: np.ndarray, bars: np.ndarray) -> None:
    """The bar positions of the configuration of rank ``rank`` among those with ``n``
    seeds; ``bars[m - 1]`` is the sentinel ``n + m - 1``."""
    m = bars.shape[0]
    bars[m - 1] = n + m - 1
    for j in range(m - 2, -1, -1):
        b = bars[j + 1] - 1
        while binom[b, j + 1] > rank:
            b -= 1
        bars[j] = b
        rank -= binom[b, j + 1]


@njit(cache=True)
def _next_bars(bars: np.ndarray) -> None:
    """The bar positions of the next configuration in colexicographic order."""
    m = bars.shape[0]
    j = 0
    while j < m - 1 and bars[j] + 1 == bars[j + 1]:
        j += 1
    if j < m - 1:
        bars[j] += 1
        for i in range(j):
            bars[i] = i


@njit(cache=True)
def _pack(c: np.ndarray, pits: int) -> tuple[int, int]:
    """The mover's and the opponent's words of configuration ``c`` (stores 0)."""
    mine = 0
    theirs = 0
    for k in range(pits):
        mine |= c[k] << (8 * k)
        theirs |= c[pits + k] << (8 * k)
    return mine, theirs


@njit(cache=True)
def _child_packed(
    c: np.ndarray, pits: int, table: np.ndarray, action: int, child: np.ndarray
) -> tuple[int, int, bool]:
    """``sow_child`` by ``sow_packed`` (where it applies)."""
    mine, theirs = _pack(c, pits)
    mine, theirs, again = sow_packed(mine, theirs, pits, table, action, True)
    keeps = again and (mine & ((1 << (8 * pits)) - 1)) != 0
    for k in range(pits):
        if keeps:
            child[k] = (mine >> (8 * k)) & 255
            child[pits + k] = (theirs >> (8 * k)) & 255
        else:
            child[k] = (theirs >> (8 * k)) & 255
            child[pits + k] = (mine >> (8 * k)) & 255
    return (mine >> (8 * pits)) & 255, (theirs >> (8 * pits)) & 255, not keeps


@njit(cache=True)
def _index_packed(first: int, second: int, pits: int, binom: np.ndarray) -> int:
    """``table_index`` of the configuration whose pits are the bytes of ``first`` (the
    player to act's) and ``second``."""
    m = 2 * pits
    total = 0
    rank = 0
    for j in range(pits):
        total += (first >> (8 * j)) & 255
        rank += binom[total + j, j + 1]
    for j in range(pits - 1):
        total += (second >> (8 * j)) & 255
        rank += binom[total + pits + j, pits + j + 1]
    total += (second >> (8 * (pits - 1))) & 255
    return int(binom[total + m - 1, m] + rank)


@njit(cache=True, parallel=True)
def _fill(
    values: np.ndarray,
    n: int,
    start: int,
    stop: int,
    pits: int,
    p: np.ndarray,
    binom: np.ndarray,
    table: np.ndarray,
    packed: bool,
) -> None:
    """Fill the entries of ranks ``start`` to ``stop`` among the configurations with
    ``n`` seeds (no blocked pit) from the entries with fewer seeds, which must be
    filled. Each thread takes CHUNK configurations at a time: first every child's entry
    (by ``sow_packed`` if ``packed``, else by ``sow_child``), then all their values, so
    that the scattered reads overlap instead of waiting one by one."""
    m = 2 * pits
    base = binom[n + m - 1, m]
    pit_bytes = (1 << (8 * pits)) - 1
    chunks = (stop - start + CHUNK - 1) // CHUNK
    for chunk in prange(chunks):
        low = start + chunk * CHUNK
        high = min(low + CHUNK, stop)
        bars = np.empty(m, np.int64)
        c = np.empty(m, np.int64)
        ring = np.empty(m + 2, np.int64)
        child = np.empty(m, np.int64)
        where = np.empty(CHUNK * pits, np.int64)
        gains = np.empty(CHUNK * pits, np.int64)
        signs = np.empty(CHUNK * pits, np.int64)
        counts = np.empty(CHUNK, np.int64)
        _unrank(low, n, binom, bars)
        k = 0
        for i in range(high - low):
            c[0] = bars[0]
            for j in range(1, m):
                c[j] = bars[j] - bars[j - 1] - 1
            count = 0
            mine, theirs = _pack(c, pits) if packed else (0, 0)
            for a in range(pits):
                if c[a] > 0:
                    if packed:
                        after, other, again = sow_packed(mine, theirs, pits, table, a, True)
                        gains[k] = (after >> (8 * pits)) - (other >> (8 * pits))
                        if again and (after & pit_bytes) != 0:
                            where[k] = _index_packed(after, other, pits, binom)
                            signs[k] = 1
                        else:
                            where[k] = _index_packed(other, after, pits, binom)
                            signs[k] = -1
                    else:
                        gain, loss, passes = sow_child(c, pits, p, a, ring, child)
                        where[k] = table_index(child, binom)
                        gains[k] = gain - loss
                        signs[k] = -1 if passes else 1
                    k += 1
                    count += 1
            counts[i] = count
            _next_bars(bars)
        k = 0
        for i in range(high - low):
            if counts[i] == 0:
                values[base + low + i] = -n  # the round is over: the opponent sweeps
                continue
            best = -n - 1
            for _choice in range(counts[i]):
                v = gains[k] + signs[k] * values[where[k]]
                if v > best:
                    best = v
                k += 1
            values[base + low + i] = best


@njit(cache=True)
def _recheck(
    values: np.ndarray,
    entries: np.ndarray,
    pits: int,
    p: np.ndarray,
    binom: np.ndarray,
) -> int:
    """How many of the table entries ``entries`` differ from the best of their
    children's values, found again with the engine's sower (``sow_child``) and the ranking
    of plain cells (``table_index``), not the build's packed sower and ranking."""
    m = 2 * pits
    bars = np.empty(m, np.int64)
    c = np.empty(m, np.int64)
    ring = np.empty(m + 2, np.int64)
    child = np.empty(m, np.int64)
    wrong = 0
    for e in range(entries.shape[0]):
        entry = entries[e]
        n = 0
        while binom[n + m, m] <= entry:  # the entries with at most n seeds come first
            n += 1
        _unrank(entry - binom[n + m - 1, m], n, binom, bars)
        c[0] = bars[0]
        for j in range(1, m):
            c[j] = bars[j] - bars[j - 1] - 1
        if table_index(c, binom) != entry:
            wrong += 1
            continue
        best = -n  # the mover has no seeds: the opponent sweeps
        mine = 0
        for k in range(pits):
            mine += c[k]
        if mine > 0:
            best = -n - 1
            for a in range(pits):
                if c[a] > 0:
                    gain, loss, passes = sow_child(c, pits, p, a, ring, child)
                    later = int(values[table_index(child, binom)])
                    v = gain - loss - later if passes else gain - loss + later
                    if v > best:
                        best = v
        if best != values[entry]:
            wrong += 1
    return wrong


@njit(cache=True)
def _hash(c: np.ndarray, left: int) -> int:
    h = left + 7
    for k in range(c.shape[0]):
        h = ((h * 1000003) ^ (c[k] + 2)) & HASH_BITS
    return h ^ (h >> 17)


@njit(cache=True)
def memo_holds(keys: np.ndarray, i: int, c: np.ndarray) -> bool:
    """Whether memo slot ``i`` holds the configuration ``c`` (the memo of the search
    above the table is laid out alike)."""
    for k in range(c.shape[0]):  # noqa: SIM110 (a loop, as numba compiles it)
        if keys[i, k] != c[k]:
            return False
    return True


@njit(cache=True)
def _probe(c: np.ndarray, left: int, keys: np.ndarray, lefts: np.ndarray) -> int:
    """The memo slot of (``c``, ``left``), or the empty slot where it would go."""
    mask = lefts.shape[0] - 1
    i = _hash(c, left) & mask
    while lefts[i] != EMPTY:
        if lefts[i] == left and memo_holds(keys, i, c):
            return int(i)
        i = (i + 1) & mask
    return int(i)


@njit(cache=True)
def _search(
    c: np.ndarray,
    left: int,
    pits: int,
    p: np.ndarray,
    values: np.ndarray,
    table_seeds: int,
    binom: np.ndarray,
    keys: np.ndarray,
    lefts: np.ndarray,
    memo: np.ndarray,
    stats: np.ndarray,
) -> int:
    """The future gain difference of ``c`` for the player to act with ``left`` turns
    before the cap (the current one included), or ABORT when the query's budget
    (``stats[1]`` new nodes, ``stats[0]`` used) runs out. Table entries serve wherever
    the table holds (``table_seeds`` >= 0: its K, for these rules). ``stats[2]`` counts
    the memo's entries."""
    m = 2 * pits
    total = 0
    mine = 0
    blocked = False
    for k in range(m):
        x = c[k]
        if x < 0:
            blocked = True
        else:
            total += x
            if k < pits:
                mine += x
    if left <= 0 or mine == 0:
        return 2 * mine - total  # the round is over: both sweep their pits
    # the turns that can still start (module docstring): the cap binds only below them
    bound = total if p[LONE_STORE] != 0 else total + (total + 1) * total * (pits - 1)
    if left > bound:
        left = bound  # the cap cannot bind: every larger count gives the same value
    if not blocked and total <= table_seeds and left >= total:
        return int(values[table_index(c, binom)])
    slot = _probe(c, left, keys, lefts)
    if lefts[slot] != EMPTY:
        return int(memo[slot])
    if stats[0] >= stats[1] or 2 * (stats[2] + 1) > lefts.shape[0]:
        return ABORT
    ring = np.empty(m + 2, np.int64)
    child = np.empty(m, np.int64)
    best = ABORT
    for a in range(pits):
        if c[a] > 0:
            gain, loss, passes = sow_child(c, pits, p, a, ring, child)
            if passes:
                later = _search(
                    child, left - 1, pits, p, values, table_seeds, binom, keys, lefts, memo, stats
                )
            else:
                later = _search(
                    child, left, pits, p, values, table_seeds, binom, keys, lefts, memo, stats
                )
            if later == ABORT:
                return ABORT
            v = gain - loss - later if passes else gain - loss + later
            if v > best:
                best = v
    slot = _probe(c, left, keys, lefts)  # the children may have filled the slot found above
    for k in range(m):
        keys[slot, k] = c[k]
    lefts[slot] = left
    memo[slot] = best
    stats[0] += 1
    stats[2] += 1
    return best


# ------------------------------------------------------------------ Python layer
def _require_galatjang(game: Any) -> None:
    if getattr(game, "id", None) != "galatjang":
        raise OptionError(f"the Galatjang endgame solver needs a galatjang game, not {game!r}")


def table_rules(game: Game[GalatjangState]) -> dict[str, Any]:
    """The header entries a table for ``game``'s rules must carry (the options that
    change a value); OptionError when these rules have no table."""
    _require_galatjang(game)
    o = game.options
    if o["lone_seed"] != "store":
        raise OptionError(
            _(
                "no Galatjang endgame table for lone_seed={lone_seed}: a lone seed that "
                "stays keeps the seeds in the pits, so the one-pass build does not hold; such "
                "positions are solved by the search alone (lone_seed=store has tables)"
            ).format(lone_seed=o["lone_seed"])
        )
    return {
        "game": "galatjang",
        "kind": KIND,
        "format": FORMAT,
        "pits": int(o["pits"]),
        "sow_opponent_store": bool(o["sow_opponent_store"]),
        "skip_origin": bool(o["skip_origin"]),
        "lone_seed": "store",
    }


def default_table_path(game: Game[GalatjangState]) -> Path:
    """Where the table for ``game``'s rules lives by default: in ``table_dir()``, the
    file name naming the options it holds for."""
    rules = table_rules(game)
    name = "-".join(
        [
            "galatjang-endgame",
            f"pits={rules['pits']}",
            f"sow_opponent_store={str(rules['sow_opponent_store']).lower()}",
            f"skip_origin={str(rules['skip_origin']).lower()}",
            "lone_seed=store",
        ]
    )
    return table_dir() / f"{name}.table"


def table_entries(pits: int, max_seeds: int) -> int:
    """Entries of a table for ``pits`` pits a row and at most ``max_seeds`` seeds."""
    return comb(max_seeds + 2 * pits, 2 * pits)


def _binomials(top: int, m: int) -> np.ndarray:
    """``C(a, k)`` for ``a <= top``, ``k <= m`` (0 where ``k > a``), as int64."""
    binom = np.zeros((top + 1, m + 1), dtype=np.int64)
    for a in range(top + 1):
        for k in range(min(a, m) + 1):
            binom[a, k] = comb(a, k)
    return binom


def configuration_of(state: GalatjangState) -> np.ndarray:
    """The pits of ``state`` from the player to act's point of view: the form the table,
    this search and the search above the table (``solution``) read."""
    pits = pit_count(state)
    mine = [state.ring[pit_index(pits, state.side, k)] for k in range(pits)]
    theirs = [state.ring[pit_index(pits, 1 - state.side, k)] for k in range(pits)]
    return np.array(mine + theirs, dtype=np.int64)


def _seeds_in_pits(c: np.ndarray) -> int:
    return int(c[c > 0].sum())


def build_values(
    game: Game[GalatjangState],
    max_seeds: int,
    progress: Callable[[int, int], None] | None = None,
    packed: bool | None = None,
    work: Path | None = None,
) -> np.ndarray:
    """The table's values (int8, one per configuration with at most ``max_seeds``
    seeds) for ``game``'s rules, filled from 0 seeds up. ``packed`` chooses the sower
    (default: the packed one where it applies, at most PACKED_PITS pits; False: the
    engine's compiled sower, for comparing the two). With ``work``, a folder where the
    build keeps the seed counts done now and then, and goes on from them when started
    again (``boardlab.solve.resume``)."""
    rules = table_rules(game)
    pits = int(rules["pits"])
    if isinstance(max_seeds, bool) or not isinstance(max_seeds, int):
        raise OptionError(
            _("bad max_seeds {value!r}: expected a whole number").format(value=max_seeds)
        )
    if not 0 <= max_seeds <= MAX_TABLE_SEEDS:
        raise OptionError(
            _("bad max_seeds {value!r}: expected 0-{most} (a value is one signed byte)").format(
                value=max_seeds, most=MAX_TABLE_SEEDS
            )
        )
    entries = table_entries(pits, max_seeds)
    if entries > MAX_ENTRIES:
        raise OptionError(
            _(
                "max_seeds={seeds} with pits={pits} needs {entries:,} entries "
                "({size:.1f} GiB), more than the {most:.0f} GiB a "
                "build may hold: choose a smaller max_seeds"
            ).format(
                seeds=max_seeds,
                pits=pits,
                entries=entries,
                size=entries / 2**30,
                most=MAX_ENTRIES / 2**30,
            )
        )
    if packed is None:
        packed = pits <= PACKED_PITS
    elif packed and pits > PACKED_PITS:
        raise OptionError(f"the packed sower holds at most {PACKED_PITS} pits, not {pits}")
    m = 2 * pits
    binom = _binomials(max_seeds + m, m)
    p = kernel.params(game)
    table = sowing_table(pits, rules["sow_opponent_store"], rules["skip_origin"])
    values = np.empty(entries, dtype=np.int8)
    saved, first = None, 0
    if work is not None:
        saved = _checkpoint(work, rules, max_seeds)
        first = saved.restore(values)  # the seed counts below it are done
    done = table_entries(pits, first - 1) if first else 0
    for n in range(first, max_seeds + 1):
        count = comb(n + m - 1, m - 1)
        for start in range(0, count, SLICE):
            stop = min(start + SLICE, count)
            _fill(values, n, start, stop, pits, p, binom, table, packed)
            done += stop - start
            if progress is not None:
                progress(done, entries)
        if saved is not None:
            saved.keep(values, n + 1)
    return values


def _checkpoint(work: Path, rules: dict[str, Any], max_seeds: int) -> Any:
    """Where a build of the table of ``rules`` up to ``max_seeds`` keeps what it did."""
    from boardlab.solve.resume import Checkpoint

    return Checkpoint(work, {"kind": KIND, "format": FORMAT, **rules, "max_seeds": max_seeds})


class GalatjangEndgame:
    """Exact values of last-round Galatjang positions under ``game``'s rules: from a
    table (``build``/``load``) where it holds, else by a memoised search that adds at
    most ``budget`` nodes a search (``SEARCH_ATTEMPTS`` searches a query) and is not
    tried with more than ``search_seeds`` seeds
    in the pits. The search's memo lives as long as the solver (its entries are exact,
    so they serve every later query); a solver is not meant to be shared by threads."""

    def __init__(
        self,
        game: Game[GalatjangState],
        table: Table | None = None,
        *,
        budget: int = DEFAULT_BUDGET,
        search_seeds: int = DEFAULT_SEARCH_SEEDS,
    ) -> None:
        _require_galatjang(game)
        if budget < 1 or not 0 <= search_seeds <= MAX_SEARCH_SEEDS:
            raise OptionError(
                f"bad search limits budget={budget}, search_seeds={search_seeds}: "
                f"expected budget >= 1 and search_seeds 0-{MAX_SEARCH_SEEDS}"
            )
        self.game = game
        self.table = table
        self.budget = budget
        self.search_seeds = search_seeds
        self._p = kernel.params(game)
        self._max_turns = int(game.options["max_turns"])
        self._rounds = int(game.options["rounds"])
        self._table_pits = -1
        self._table_seeds = -1
        self._values = np.zeros(1, dtype=np.int8)
        if table is not None:
            table.require(table_rules(game))
            self._table_pits = int(table.header["pits"])
            self._table_seeds = int(table.header["max_seeds"])
            self._values = np.asarray(table.values)
        self._memos: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}
        self._binoms: dict[int, np.ndarray] = {}

    # ---------------------------------------------------------------- tables
    @staticmethod
    def build(
        game: Game[GalatjangState],
        max_seeds: int,
        path: str | Path | None = None,
        progress: Callable[[int, int], None] | None = None,
        work: Path | None = None,
    ) -> Path:
        """Build the table of every configuration with at most ``max_seeds`` seeds in
        the pits for ``game``'s rules and write it to ``path`` (default:
        ``default_table_path``). ``progress(done, total)`` is called as entries are
        filled; nothing is printed. With ``work``, what is done is kept there and a
        build started again goes on from it (``build_values``). Returns the path
        written."""
        rules = table_rules(game)
        target = Path(path) if path is not None else default_table_path(game)
        began = time.perf_counter()
        values = build_values(game, max_seeds, progress, work=work)
        seconds = time.perf_counter() - began
        header = {**rules, "max_seeds": max_seeds, "build_seconds": round(seconds, 1)}
        written = write_table(target, header, values)
        if work is not None:
            _checkpoint(work, rules, max_seeds).clear()
        return written

    @classmethod
    def load(
        cls,
        game: Game[GalatjangState],
        path: str | Path | None = None,
        *,
        missing_ok: bool = False,
        budget: int = DEFAULT_BUDGET,
        search_seeds: int = DEFAULT_SEARCH_SEEDS,
    ) -> GalatjangEndgame:
        """The solver with the table at ``path`` (default: ``default_table_path``) mapped
        in. TableError when it is missing, damaged or built for other rules; with
        ``missing_ok``, a missing default table (or rules that have none) gives a solver
        that only searches. ``budget`` and ``search_seeds`` as for the constructor."""
        if path is None:
            try:
                target = default_table_path(game)
            except OptionError:
                if missing_ok:
                    return cls(game, budget=budget, search_seeds=search_seeds)
                raise
            if missing_ok and not target.exists():
                return cls(game, budget=budget, search_seeds=search_seeds)
        else:
            target = Path(path)
        expect = table_rules(game)
        table = read_table(target, expect=expect)
        seeds = table.header.get("max_seeds")
        pits = expect["pits"]
        if not isinstance(seeds, int) or table.header.get("entries") != table_entries(pits, seeds):
            raise TableError(
                _(
                    "table {path} is damaged: max_seeds={seeds!r} does not match its "
                    "{entries!r} entries; build it again"
                ).format(path=target, seeds=seeds, entries=table.header.get("entries"))
            )
        return cls(game, table, budget=budget, search_seeds=search_seeds)

    @property
    def max_seeds(self) -> int | None:
        """The table's K (None without a table)."""
        return self._table_seeds if self.table is not None else None

    def recheck(self, samples: int, seed: int = 0) -> int:
        """Find ``samples`` table entries (drawn at random with ``seed``; all of them if
        there are no more) again from their children's entries with the engine's sower
        and return how many differ (0 for a sound table). With every entry's children
        checked and the empty board right, every value is exact."""
        if self.table is None:
            raise TableError("no table to recheck: load one first")
        pits, values = self._table_pits, self._values
        if samples >= values.size:
            entries = np.arange(values.size, dtype=np.int64)
        else:
            entries = np.random.default_rng(seed).integers(0, values.size, samples)
        binom = self.table_view(pits)[0]
        return int(_recheck(values, entries, pits, self._p, binom))

    # ---------------------------------------------------------------- queries
    def in_table(self, state: GalatjangState) -> bool:
        """``state`` is a last-round position the table answers directly: its pits, no
        blocked pit, at most K seeds in the pits, and the turn cap cannot bind."""
        if self.table is None or state.round < self._rounds:
            return False
        c = configuration_of(state)
        n = _seeds_in_pits(c)
        return (
            pit_count(state) == self._table_pits
            and not (c < 0).any()
            and n <= self._table_seeds
            and self._max_turns - state.turns >= n
        )

    def reach(self, state: GalatjangState) -> bool:
        """An exact value is available for ``state`` (this may run the search; its
        result is memoised, so ``value`` then answers at once)."""
        return self.value(state) is not None

    def value(self, state: GalatjangState) -> int | None:
        """The exact final store difference for the player to act under perfect play,
        or None when ``state`` is out of reach (an earlier round, too many seeds, or the
        search's budget ran out)."""
        if self.game.outcome_of(state) is not None:
            pits = pit_count(state)
            c = configuration_of(state)
            mine = int(c[:pits][c[:pits] > 0].sum())
            return self.store_lead(state) + 2 * mine - _seeds_in_pits(c)
        values = self.action_values(state)
        return None if values is None else max(values.values())

    def action_values(self, state: GalatjangState) -> dict[int, int] | None:
        """Every legal action's exact value (the final store difference for the player
        to act if he plays it and both sides then play perfectly), or None when out of
        reach; {} when the game is over."""
        if self.game.outcome_of(state) is not None:
            return {}
        if state.round < self._rounds:
            return None
        pits = pit_count(state)
        c = configuration_of(state)
        n = _seeds_in_pits(c)
        if not self.in_table(state) and n > self.search_seeds:
            return None
        for _attempt in range(SEARCH_ATTEMPTS):
            found = self._search_values(state, pits, c)
            if found is not None:
                return found
        return None

    def _search_values(
        self, state: GalatjangState, pits: int, c: np.ndarray
    ) -> dict[int, int] | None:
        """``action_values`` by one search of at most ``budget`` new nodes, or None when
        it runs out (what it found stays in the memo for the next)."""
        left = self._max_turns - state.turns
        keys, lefts, memo, stats = self._memo(pits)
        stats[0] = 0
        stats[1] = self.budget
        binom, values, table_seeds = self.table_view(pits)
        ring = np.empty(2 * pits + 2, dtype=np.int64)
        child = np.empty(2 * pits, dtype=np.int64)
        stores = self.store_lead(state)
        result: dict[int, int] = {}
        for action in self.game.legal_actions(state):
            gain, loss, passes = sow_child(c, pits, self._p, action, ring, child)
            later = _search(
                child,
                left - 1 if passes else left,
                pits,
                self._p,
                values,
                table_seeds,
                binom,
                keys,
                lefts,
                memo,
                stats,
            )
            if later == ABORT:
                return None
            result[action] = stores + int(gain - loss) + int(-later if passes else later)
        return result

    def successors(self, state: GalatjangState, packed: bool = False) -> dict[int, GalatjangState]:
        """The state after each legal action as the solver's generator sees it (turn
        passing, the turn cap and the sweep at the round's end included): ``sow_child``, or
        with ``packed`` the table build's ``sow_packed`` (no blocked pit,
        ``lone_seed=store``, at most PACKED_PITS pits). Equal to the engine's in the last
        round; for the tests."""
        pits = pit_count(state)
        c = configuration_of(state)
        if packed and (
            pits > PACKED_PITS
            or (c < 0).any()
            or _seeds_in_pits(c) >= PACKED_HAND
            or self._p[LONE_STORE] == 0
        ):
            raise OptionError(
                f"the packed sower does not apply to {self.game.format_state(state)!r} "
                f"under lone_seed={self.game.options['lone_seed']}"
            )
        ring = np.empty(2 * pits + 2, dtype=np.int64)
        child = np.empty(2 * pits, dtype=np.int64)
        table = (
            sowing_table(pits, bool(self._p[SOW_OPPONENT_STORE]), bool(self._p[SKIP_ORIGIN]))
            if packed
            else None
        )
        result: dict[int, GalatjangState] = {}
        for action in self.game.legal_actions(state):
            if table is not None:
                gain, loss, passes = _child_packed(c, pits, table, action, child)
            else:
                gain, loss, passes = sow_child(c, pits, self._p, action, ring, child)
            side = 1 - state.side if passes else state.side
            cells = [int(x) for x in child]
            board = [0] * (2 * pits + 2)
            for k in range(pits):
                board[pit_index(pits, side, k)] = cells[k]
                board[pit_index(pits, 1 - side, k)] = cells[pits + k]
            mover, other = store_index(pits, state.side), store_index(pits, 1 - state.side)
            board[mover] = state.ring[mover] + int(gain)
            board[other] = state.ring[other] + int(loss)
            turns = state.turns + 1 if passes else state.turns
            if passes and (turns >= self._max_turns or max(cells[:pits]) <= 0):
                for owner in (side, 1 - side):  # the round is over: the sweep
                    for k in range(pits):
                        where = pit_index(pits, owner, k)
                        if board[where] > 0:
                            board[store_index(pits, owner)] += board[where]
                            board[where] = 0
            result[action] = GalatjangState(tuple(board), side, state.round, turns)
        return result

    # ---------------------------------------------------------------- helpers
    def store_lead(self, state: GalatjangState) -> int:
        """The player to act's store less the opponent's: a value from the table or the
        search counts the seeds still in play, so the stores are added to it (the
        search above the table, ``solution``, starts from it too)."""
        pits = pit_count(state)
        side = state.side
        return state.ring[store_index(pits, side)] - state.ring[store_index(pits, 1 - side)]

    def table_view(self, pits: int) -> tuple[np.ndarray, np.ndarray, int]:
        """Binomials, table values and K for ``pits`` (K -1: no table for them): what a
        search that reads the table (``solution``) needs of it."""
        if pits == self._table_pits:
            top = self._table_seeds + 2 * pits
            table_seeds = self._table_seeds
            values = self._values
        else:
            top, table_seeds, values = 2 * pits, -1, np.zeros(1, dtype=np.int8)
        if pits not in self._binoms:
            self._binoms[pits] = _binomials(top, 2 * pits)
        return self._binoms[pits], values, table_seeds

    def _memo(self, pits: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The search memo for ``pits``, emptied when a full query might not fit."""
        size = 1 << max(10, (4 * self.budget).bit_length())
        memo = self._memos.get(pits)
        if memo is None or 2 * (int(memo[3][2]) + self.budget) > size:
            memo = (
                np.zeros((size, 2 * pits), dtype=np.int8),
                np.full(size, EMPTY, dtype=np.int32),
                np.zeros(size, dtype=np.int16),
                np.zeros(3, dtype=np.int64),
            )
            self._memos[pits] = memo
        return memo
