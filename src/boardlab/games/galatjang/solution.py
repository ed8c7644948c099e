"""Galatjang solved from the start: exact values by alpha-beta above the endgame table.

**What is searched.** A one-round Galatjang (``lone_seed=store``) is a game of the pits
alone: stores only grow, so a position's value is its store difference plus the best
future gain difference from the seeds still in the pits, a function of the pits seen from
the player to act (the configuration of ``endgames``). Every sowing puts a seed into a
store, so each line reaches the endgame table (every configuration of at most K seeds,
``boardlab solve galatjang``) after a few sowings; there the search stops and reads the
exact value. Above it the search is a negamax alpha-beta: a sowing that keeps the turn
adds its gain to the same player's value, one that passes the turn subtracts the
opponent's value (as ``endgames._search`` does, which plays every line and serves as its
check on small boards).

**How.** MTD(f): a series of null-window alpha-beta searches that close in on the exact
value, sharing a transposition table of bounds (a lower and an upper bound for each
configuration met, with the full configuration as its key, so a collision can never
lend a wrong bound; a full bucket overwrites an entry, which costs time, never
exactness). Children are tried in the order most likely to cut: the best action found
before, then sowings that keep the turn, then the largest immediate gain.

**Checkpoints.** Each first sowing is solved on its own (its value, the nodes, the time)
and written to a progress file as soon as it is exact, with a snapshot of the
transposition table every ``snapshot_seconds``; a stopped run started again with the
same files reloads both and goes on with the next first sowing, on this machine or
another.

**The turn cap.** From ``n`` seeds in the pits at most ``n`` turns start (``endgames``),
so the cap cannot bind when ``max_turns`` is at least the seeds in the pits; other rules
are refused.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

from boardlab.core.errors import BoardlabError
from boardlab.core.files import write_atomic
from boardlab.core.game import Game
from boardlab.core.i18n import _
from boardlab.games.galatjang import kernel
from boardlab.games.galatjang.certificate import Certificate
from boardlab.games.galatjang.endgames import (
    GalatjangEndgame,
    configuration_of,
    memo_holds,
    sow_child,
    table_index,
)
from boardlab.games.galatjang.kernel import LONE_STORE
from boardlab.games.galatjang.rules import GalatjangState

INF = 10_000  # beyond every value: a value lies within the seeds in play
ABORT = -(1 << 30)  # the search ran out of its node budget
NONE = -32768  # an empty bound in the table
PROBES = 8  # slots tried for a configuration before an entry is overwritten


# ------------------------------------------------------------------ compiled core
@njit(cache=True)
def _hash(c: np.ndarray) -> int:
    h = np.int64(1469598103934665603 & ((1 << 62) - 1))
    for k in range(c.shape[0]):
        h = ((h ^ (c[k] + 3)) * 1099511628211) & ((1 << 62) - 1)
    return int(h ^ (h >> 29))


@njit(cache=True)
def _find(c: np.ndarray, keys: np.ndarray, lows: np.ndarray) -> tuple[int, bool]:
    """The slot of ``c`` and whether it holds ``c``; else the slot to write it in (an
    empty one, or the last of its bucket, overwritten)."""
    mask = lows.shape[0] - 1
    i = _hash(c) & mask
    for _probe in range(PROBES):
        if lows[i] == NONE:
            return i, False
        if memo_holds(keys, i, c):
            return i, True
        i = (i + 1) & mask
    return (i - 1) & mask, False


@njit(cache=True)
def _alphabeta(
    c: np.ndarray,
    alpha: int,
    beta: int,
    pits: int,
    p: np.ndarray,
    values: np.ndarray,
    table_seeds: int,
    binom: np.ndarray,
    keys: np.ndarray,
    lows: np.ndarray,
    highs: np.ndarray,
    moves: np.ndarray,
    stats: np.ndarray,
) -> int:
    """The future gain difference of ``c`` for the player to act, fail-soft within
    (``alpha``, ``beta``); ABORT once ``stats[0]`` nodes pass ``stats[1]``. ``stats[2]``
    counts table reads, ``stats[3]`` table entries written."""
    m = 2 * pits
    total = 0
    mine = 0
    for k in range(m):
        total += c[k]
        if k < pits:
            mine += c[k]
    if mine == 0:
        return 2 * mine - total  # the round is over: the opponent sweeps his pits
    if total <= table_seeds:
        stats[2] += 1
        return int(values[table_index(c, binom)])
    stats[0] += 1
    if stats[0] > stats[1]:
        return ABORT
    slot, found = _find(c, keys, lows)
    best_move = -1
    if found:
        low = int(lows[slot])
        high = int(highs[slot])
        if low >= beta:
            return low
        if high <= alpha:
            return high
        if low == high:
            return low
        alpha = max(alpha, low)
        beta = min(beta, high)
        best_move = int(moves[slot])
    # the children, ordered: the best found before, those that keep the turn, the gain
    kids = np.empty((pits, m), np.int64)
    gains = np.empty(pits, np.int64)
    passing = np.empty(pits, np.bool_)
    acts = np.empty(pits, np.int64)
    order = np.empty(pits, np.int64)
    ring = np.empty(m + 2, np.int64)
    n = 0
    for a in range(pits):
        if c[a] > 0:
            gain, loss, passes = sow_child(c, pits, p, a, ring, kids[n])
            gains[n] = gain - loss
            passing[n] = passes
            acts[n] = a
            score = (gain - loss) * 4 + (0 if passes else 1000)
            if a == best_move:
                score = 1 << 40
            order[n] = -score
            n += 1
    ranked = np.argsort(order[:n], kind="mergesort")
    best = -INF
    chosen = -1
    low_alpha = alpha
    for r in range(n):
        i = ranked[r]
        d = gains[i]
        sign = -1 if passing[i] else 1  # the opponent's value counts against the mover
        low, high = (d - beta, d - alpha) if passing[i] else (alpha - d, beta - d)
        later = _alphabeta(
            kids[i], low, high, pits, p, values, table_seeds, binom, keys, lows, highs,
            moves, stats,
        )  # fmt: skip
        if later == ABORT:
            return ABORT
        v = d + sign * later
        if v > best:
            best = v
            chosen = acts[i]
        if best > alpha:
            alpha = best
        if alpha >= beta:
            break
    slot, found = _find(c, keys, lows)  # the children may have moved the table
    if not found:
        for k in range(m):
            keys[slot, k] = c[k]
        lows[slot] = -INF
        highs[slot] = INF
        stats[3] += 1
    if best <= low_alpha:
        highs[slot] = min(int(highs[slot]), best)
    elif best >= beta:
        lows[slot] = max(int(lows[slot]), best)
    else:
        lows[slot] = best
        highs[slot] = best
    moves[slot] = chosen
    return best


# ------------------------------------------------------------------ Python layer
@dataclass
class Progress:
    """What a run has established, kept in its progress file: each first sowing's exact
    value (the mover's final store difference from the start) and what it cost."""

    rules: dict[str, Any]
    table_seeds: int
    start: str
    values: dict[int, int] = field(default_factory=dict)
    nodes: dict[int, int] = field(default_factory=dict)
    seconds: dict[int, float] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps(self.__dict__, indent=1, sort_keys=True) + "\n"

    @classmethod
    def read(cls, path: Path) -> Progress:
        data = json.loads(path.read_text(encoding="utf-8"))
        found = cls(data["rules"], int(data["table_seeds"]), str(data["start"]))
        for name in ("values", "nodes", "seconds"):
            setattr(found, name, {int(k): v for k, v in data[name].items()})
        return found


class StartSolver:
    """Exact values of every first action of a one-round Galatjang position, searched
    down to the endgame table; ``table_bits`` sizes the transposition table (2^bits
    entries of ``2 * pits + 5`` bytes)."""

    def __init__(
        self,
        game: Game[GalatjangState],
        endgame: GalatjangEndgame,
        table_bits: int = 24,
        node_budget: int = 1 << 62,
    ) -> None:
        if game.options["lone_seed"] != "store":
            raise BoardlabError(
                _(
                    "positions above the endgame table are solved with lone_seed=store (the "
                    "table's rules)"
                )
            )
        self.game = game
        self.endgame = endgame
        self.pits = int(game.options["pits"])
        self.p = kernel.params(game)
        assert self.p[LONE_STORE] != 0
        binom, values, seeds = endgame.table_view(self.pits)
        self.binom, self.values, self.table_seeds = binom, values, seeds
        size = 1 << table_bits
        m = 2 * self.pits
        self.keys = np.zeros((size, m), dtype=np.int8)
        self.lows = np.full(size, NONE, dtype=np.int16)
        self.highs = np.full(size, NONE, dtype=np.int16)
        self.moves = np.full(size, -1, dtype=np.int8)
        self.stats = np.zeros(4, dtype=np.int64)
        self.stats[1] = node_budget

    def _check(self, state: GalatjangState) -> np.ndarray:
        if state.round != int(self.game.options["rounds"]):
            raise BoardlabError(_("only positions of the last round are solved here"))
        c = configuration_of(state)
        seeds = int(c[c > 0].sum())
        if int(self.game.options["max_turns"]) - state.turns < seeds:
            raise BoardlabError(
                _(
                    "the turn cap ({cap}) could end the round before its {seeds} seeds are "
                    "played out: not solved here"
                ).format(cap=self.game.options["max_turns"], seeds=seeds)
            )
        if (c < 0).any():
            raise BoardlabError(_("a position with blocked pits is not solved here"))
        return c

    def future(self, c: np.ndarray, guess: int = 0) -> int:
        """The exact future gain difference of the configuration ``c`` by MTD(f)."""
        low, high, g = -INF, INF, guess
        while low < high:
            beta = g + 1 if g == low else g
            g = _alphabeta(
                c, beta - 1, beta, self.pits, self.p, self.values, self.table_seeds,
                self.binom, self.keys, self.lows, self.highs, self.moves, self.stats,
            )  # fmt: skip
            if g == ABORT:
                raise BoardlabError(
                    _("the search passed its budget of {nodes} nodes").format(nodes=self.stats[1])
                )
            if g < beta:
                high = g
            else:
                low = g
        return g

    def action_values(
        self,
        state: GalatjangState,
        progress: Progress | None = None,
        done: Callable[[int, int], None] | None = None,
    ) -> dict[int, int]:
        """Every legal action's exact value (the final store difference for the player
        to act); actions already in ``progress`` are taken from it, each new one is
        added to it and reported to ``done(action, value)`` as soon as it is exact."""
        c = self._check(state)
        stores = self.endgame.store_lead(state)
        ring = np.empty(2 * self.pits + 2, dtype=np.int64)
        values: dict[int, int] = {}
        for action in self.game.legal_actions(state):
            if progress is not None and action in progress.values:
                values[action] = progress.values[action]
                continue
            child = np.empty(2 * self.pits, dtype=np.int64)
            gain, loss, passes = sow_child(c, self.pits, self.p, action, ring, child)
            began, nodes = time.perf_counter(), int(self.stats[0])
            later = self.future(child)
            value = stores + gain - loss + (-later if passes else later)
            values[action] = value
            if progress is not None:
                progress.values[action] = value
                progress.nodes[action] = int(self.stats[0]) - nodes
                progress.seconds[action] = round(time.perf_counter() - began, 1)
            if done is not None:
                done(action, value)
        return values

    def values_within(self, state: GalatjangState, nodes: int) -> dict[int, int] | None:
        """``action_values`` if it takes at most ``nodes`` more positions, else None; also
        None where this solver does not apply (see ``_check``)."""
        try:
            self._check(state)
        except BoardlabError:
            return None
        self.stats[1] = self.stats[0] + nodes
        try:
            return self.action_values(state)
        except BoardlabError:
            return None
        finally:
            self.stats[1] = 1 << 62

    # ---------------------------------------------------------------- proofs
    def holds(self, c: np.ndarray, kind: str, t: int) -> bool:
        """Whether the future value of ``c`` is at least (``L``) or at most (``U``) ``t``:
        one null-window search, mostly answered by the transposition table."""
        if kind == "L":
            return self._window(c, t - 1, t) >= t
        return self._window(c, t, t + 1) <= t

    def _window(self, c: np.ndarray, alpha: int, beta: int) -> int:
        found = _alphabeta(
            c, alpha, beta, self.pits, self.p, self.values, self.table_seeds, self.binom,
            self.keys, self.lows, self.highs, self.moves, self.stats,
        )  # fmt: skip
        if found == ABORT:
            raise BoardlabError(
                _("the search passed its budget of {nodes} nodes").format(nodes=self.stats[1])
            )
        return found

    def proof(self, c: np.ndarray, value: int, table_leaves: bool) -> dict[tuple[Any, ...], int]:
        """The choices that prove the future value of ``c`` is exactly ``value``: for
        every claim "at least t" met on the way, the action that keeps it (claims "at
        most t" need every action, so they need no choice). Leaves are the ends of the
        round and, with ``table_leaves``, the configurations in the endgame table.
        Keys: the configuration as a tuple, then the threshold."""
        pits, m = self.pits, 2 * self.pits
        seen: set[tuple[Any, ...]] = set()
        choices: dict[tuple[Any, ...], int] = {}
        ring = np.empty(m + 2, dtype=np.int64)
        stack: list[tuple[np.ndarray, str, int]] = [(c, "L", value), (c, "U", value)]
        while stack:
            config, kind, t = stack.pop()
            key = (*config.tolist(), kind, t)
            if key in seen:
                continue
            seen.add(key)
            total, mine = int(config.sum()), int(config[:pits].sum())
            if mine == 0 or (table_leaves and total <= self.table_seeds):
                continue
            claims = []
            for action in range(pits):
                if config[action] <= 0:
                    continue
                child = np.empty(m, dtype=np.int64)
                gain, loss, passes = sow_child(config, pits, self.p, action, ring, child)
                d = gain - loss
                # the child's claim that gives this one through ``action``
                if kind == "L":
                    claims.append((action, child, *(("U", d - t) if passes else ("L", t - d))))
                else:
                    claims.append((action, child, *(("L", d - t) if passes else ("U", t - d))))
            if kind == "U":
                stack.extend((child, k, u) for _, child, k, u in claims)
                continue
            best = int(self.moves[_find(config, self.keys, self.lows)[0]])
            claims.sort(key=lambda claim: claim[0] != best)
            for action, child, k, u in claims:
                if self.holds(child, k, u):
                    choices[(*config.tolist(), t)] = action
                    stack.append((child, k, u))
                    break
            else:
                raise AssertionError(f"no action keeps {config.tolist()} at least {t}")
        return choices

    # ---------------------------------------------------------------- checkpoints
    def save_table(self, path: Path) -> None:
        """The transposition table, written whole before it replaces an older one."""
        temporary = path.with_name(path.name + ".part")
        with temporary.open("wb") as out:
            np.savez(out, keys=self.keys, lows=self.lows, highs=self.highs, moves=self.moves)
            out.flush()
            os.fsync(out.fileno())
        temporary.replace(path)

    def load_table(self, path: Path) -> None:
        with np.load(path) as saved:
            if saved["keys"].shape != self.keys.shape:
                raise BoardlabError(
                    _("{path} holds a table of another size or board").format(path=path)
                )
            self.keys[:] = saved["keys"]
            self.lows[:] = saved["lows"]
            self.highs[:] = saved["highs"]
            self.moves[:] = saved["moves"]


def solve_start(
    game: Game[GalatjangState],
    endgame: GalatjangEndgame,
    folder: Path,
    table_bits: int = 26,
    snapshot_seconds: float = 600.0,
    report: Callable[[str], None] = print,
) -> tuple[StartSolver, Progress]:
    """Every first action's exact value at the start of ``game``, with checkpoints in
    ``folder`` (``progress.json`` and ``table.npz``): resumed from them when there."""
    solver = StartSolver(game, endgame, table_bits)
    start = game.initial_state()
    folder.mkdir(parents=True, exist_ok=True)
    progress_path, table_path = folder / "progress.json", folder / "table.npz"
    rules = dict(game.options)
    seeds = -1 if endgame.max_seeds is None else endgame.max_seeds
    if progress_path.exists():
        progress = Progress.read(progress_path)
        if progress.rules != rules or progress.table_seeds != seeds:
            raise BoardlabError(
                _("{path} belongs to other rules or another table").format(path=progress_path)
            )
        if table_path.exists():
            solver.load_table(table_path)
        report(
            _("resumed from {folder}: {known} first actions known").format(
                folder=folder, known=len(progress.values)
            )
        )
    else:
        progress = Progress(rules, seeds, game.format_state(start))
    last = time.perf_counter()

    def done(action: int, value: int) -> None:
        nonlocal last
        write_atomic(progress_path, progress.to_json())
        name = game.format_action(start, action)
        report(
            _("{action}: {value:+d} ({nodes:,} nodes, {seconds} s)").format(
                action=name,
                value=value,
                nodes=progress.nodes[action],
                seconds=progress.seconds[action],
            )
        )
        if time.perf_counter() - last > snapshot_seconds:
            solver.save_table(table_path)
            last = time.perf_counter()

    solver.action_values(start, progress, done)
    return solver, progress


def certify(solver: StartSolver, state: GalatjangState, value: int) -> Certificate:
    """The certificate of ``value`` (the exact final store difference for the player to
    act at ``state``), its leaves in the solver's endgame table where it has one."""
    c = configuration_of(state)
    stores = solver.endgame.store_lead(state)
    leaves = solver.table_seeds >= 0
    choices = solver.proof(c, value - stores, leaves)
    return Certificate(
        dict(solver.game.options),
        solver.game.format_state(state),
        value,
        solver.table_seeds if leaves else -1,
        {key: action for key, action in choices.items()},
    )


# ------------------------------------------------------------------ the opening book
BOOK = Path(__file__).with_name("book.json")


def build_book(solver: StartSolver, actions: int) -> dict[str, Any]:
    """Every legal action's exact value at every position within ``actions`` actions of
    the start (the book the perfect player opens with, where no table is built)."""
    game = solver.game
    positions: dict[str, dict[str, int]] = {}
    frontier = [game.initial_state()]
    for depth in range(actions + 1):
        following = []
        for state in frontier:
            key = game.format_state(state)
            if key in positions or game.outcome_of(state) is not None:
                continue
            values = solver.action_values(state)
            positions[key] = {game.format_action(state, a): v for a, v in values.items()}
            if depth < actions:
                following += [game.apply(state, a) for a in values]
        frontier = following
    return {"options": dict(game.options), "actions": actions, "positions": positions}


def read_book(game: Game[GalatjangState], path: Path = BOOK) -> dict[str, dict[int, int]]:
    """The book's exact action values by position string, for ``game``'s rules (empty
    if the book is for other rules or missing)."""
    if not path.exists():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    if data["options"] != dict(game.options):
        return {}
    book = {}
    for key, values in data["positions"].items():
        state = game.parse_state(key)
        book[key] = {game.parse_action(state, a): int(v) for a, v in values.items()}
    return book
