"""Alpha-beta, compiled: the iterative-deepening negamax of ``boardlab.ai.alphabeta``
(transposition table, the table's action first and then the history heuristic, the
same-player sign rule, ply-discounted wins) run inside numba over a game's kernel.

The recursion is kept on an explicit stack of per-ply arrays (the state, the ordered
actions, the window, the best value so far), so a depth can be searched in slices of a
node budget: between slices Python reads the clock and abandons a depth that would
overrun the time limit (the last completed depth's answer stands). The kernel functions
are passed in as first-class arguments, as in ``boardlab.fast.mcts``: one search loop
serves every game (numba specialises it per kernel, once per process).

The transposition table is flat arrays of ``2**table_bits`` entries (64-bit key from a
hash of the state array, depth, value, bound flag, best action), always replaced; the
history table is indexed by action. Both start empty at every search, as in Python.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
from numba import njit, uint64

from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game
from boardlab.core.i18n import _
from boardlab.fast.batch import kernel_for
from boardlab.fast.specialise import specialised

EXACT, LOWER, UPPER = 0, 1, 2
INFINITY = 10.0
WIN = 1.0
#: The deepest search (in actions): the stack holds this many plies below the root.
MAX_DEPTH = 64
DEFAULT_DEPTH = 4
TABLE_BITS = 20
#: Nodes a slice may enter when a time limit is set (a few milliseconds of search).
SLICE = 8192
UNLIMITED_NODES = 1 << 62
MASK = (1 << 64) - 1

# What a call of ``_run`` ends with.
DONE, SUSPENDED, ABORTED = 0, 1, 2
# Where the stack machine stands: enter the node on top, advance to its next child (or
# finish it), return the value ``ret`` of the node on top to its parent.
ENTER, ADVANCE, RETURN = 0, 1, 2
# The saved machine (int64 ``ctx``).
C_SP, C_MODE, C_NODES, C_EXHAUSTED = range(4)
CTX_FIELDS = 4
# Per-ply integer fields: actions, the next to try, remaining depth, player to act, best
# action, whether the child now searched keeps this node's point of view.
I_COUNT, I_NEXT, I_DEPTH, I_ME, I_BEST, I_SAME = range(6)
INT_FIELDS = 6
# Per-ply float fields: the window, alpha on entry, the best value so far.
F_ALPHA, F_BETA, F_ALPHA0, F_BEST = range(4)
FLOAT_FIELDS = 4


@dataclass(frozen=True)
class AlphaBetaResult:
    """A compiled search: the chosen action and what the last completed depth found."""

    action: int
    value: float | None  # for the player to act; None when not even depth 1 finished
    values: tuple[tuple[int, float], ...]  # (action, value), best first
    depth: int
    nodes: int
    seconds: float
    pv: tuple[int, ...]


@njit(cache=True)
def _state_key_compiled(s: np.ndarray) -> np.uint64:
    h: Any = uint64(0x9E3779B97F4A7C15)
    h ^= uint64(s.shape[0])
    for i in range(s.shape[0]):
        h ^= uint64(s[i])
        h *= uint64(0xBF58476D1CE4E5B9)
        h ^= h >> uint64(29)
    h ^= h >> uint64(32)
    h *= uint64(0x94D049BB133111EB)
    h ^= h >> uint64(29)
    return np.uint64(h)


def _state_key_python(s: np.ndarray) -> np.uint64:
    """The same hash in Python integers (numpy's uint64 would warn at the wrap-around)."""
    h = 0x9E3779B97F4A7C15 ^ int(s.shape[0])
    for x in s.tolist():
        h ^= x & MASK
        h = (h * 0xBF58476D1CE4E5B9) & MASK
        h ^= h >> 29
    h ^= h >> 32
    h = (h * 0x94D049BB133111EB) & MASK
    h ^= h >> 29
    return np.uint64(h)


_PLAIN = bool(getattr(numba.config, "DISABLE_JIT", False))
#: A 64-bit hash of a state array (the transposition table's key); compiled, or plain
#: Python under NUMBA_DISABLE_JIT.
state_key: Any = _state_key_python if _PLAIN else _state_key_compiled


@njit(cache=True)
def _terminal(winner: int, me: int, ply: int) -> float:
    """A finished game for the player to act: sooner wins count a little more."""
    if winner == 2:
        return 0.0
    value = 1.0 - 0.001 * min(ply, 100)
    return value if winner == me else -value


@njit(cache=True)
def _order(row: np.ndarray, n: int, first: int, history: np.ndarray) -> None:
    """``first`` (the table's action) to the front, then the rest by history, highest
    first; a stable sort, like ``sorted`` in the Python search."""
    start = 0
    if first >= 0:
        for i in range(n):
            if row[i] == first:
                for j in range(i, 0, -1):
                    row[j] = row[j - 1]
                row[0] = first
                start = 1
                break
    for i in range(start + 1, n):
        a = row[i]
        h = history[a]
        j = i
        while j > start and history[row[j - 1]] < h:
            row[j] = row[j - 1]
            j -= 1
        row[j] = a


#: The kernel's functions the search calls (the first parameters of ``_run``).
KERNEL_FUNCTIONS = ("legal", "apply", "result", "to_act", "evaluate")


@njit(cache=False)
def _run(
    legal: Any,
    apply: Any,
    result: Any,
    to_act: Any,
    evaluate: Any,
    p: np.ndarray,
    states: np.ndarray,
    moves: np.ndarray,
    ints: np.ndarray,
    floats: np.ndarray,
    keys: np.ndarray,
    ctx: np.ndarray,
    root_values: np.ndarray,
    tt_key: np.ndarray,
    tt_value: np.ndarray,
    tt_depth: np.ndarray,
    tt_flag: np.ndarray,
    tt_action: np.ndarray,
    history: np.ndarray,
    every_action: bool,
    node_limit: int,
    budget: int,
) -> int:
    """Go on with the search of one depth saved in the arrays, entering at most
    ``budget`` nodes: DONE (``root_values`` filled), SUSPENDED (call again) or ABORTED
    (more than ``node_limit`` nodes, when that is above 0).

    Ply 0 is the root: ``moves[0]`` its actions in the order to search, each searched
    with the root's own window rule (every one with a full window if ``every_action``)."""
    mask = uint64(tt_key.shape[0] - 1)
    sp = ctx[C_SP]
    mode = ctx[C_MODE]
    nodes = ctx[C_NODES]
    ret = 0.0
    entered = 0
    while True:
        if mode == ENTER:
            if entered >= budget:
                ctx[C_SP], ctx[C_MODE], ctx[C_NODES] = sp, mode, nodes
                return SUSPENDED
            entered += 1
            nodes += 1
            if node_limit > 0 and nodes > node_limit:
                ctx[C_SP], ctx[C_MODE], ctx[C_NODES] = sp, mode, nodes
                return ABORTED
            s = states[sp]
            depth = ints[sp, I_DEPTH]
            mode = RETURN
            if depth <= 0:
                winner = result(s, p)
                if winner == -1:
                    ctx[C_EXHAUSTED] = 0
                    ret = evaluate(s, p, to_act(s, p))
                else:
                    ret = _terminal(winner, to_act(s, p), sp)
                continue
            n = legal(s, p, moves[sp])
            if n == 0:
                ret = _terminal(result(s, p), to_act(s, p), sp)
                continue
            alpha = floats[sp, F_ALPHA]
            beta = floats[sp, F_BETA]
            key = state_key(s)
            slot = np.int64(key & mask)
            first = -1
            if tt_depth[slot] >= 0 and tt_key[slot] == key:
                first = int(tt_action[slot])
                if tt_depth[slot] >= depth:
                    value = tt_value[slot]
                    flag = tt_flag[slot]
                    if (
                        flag == EXACT
                        or (flag == LOWER and value >= beta)
                        or (flag == UPPER and value <= alpha)
                    ):
                        ret = value
                        continue
            _order(moves[sp], n, first, history)
            keys[sp] = key
            ints[sp, I_COUNT] = n
            ints[sp, I_NEXT] = 0
            ints[sp, I_ME] = to_act(s, p)
            ints[sp, I_BEST] = moves[sp, 0]
            floats[sp, F_ALPHA0] = alpha
            floats[sp, F_BEST] = -INFINITY
            mode = ADVANCE
        elif mode == ADVANCE:
            i = ints[sp, I_NEXT]
            if i == ints[sp, I_COUNT]:
                if sp == 0:  # the root is done: store it as the Python search does
                    best = 0
                    for k in range(1, ints[0, I_COUNT]):
                        if root_values[k] > root_values[best]:
                            best = k
                    key = state_key(states[0])
                    slot = np.int64(key & mask)
                    tt_key[slot] = key
                    tt_depth[slot] = ints[0, I_DEPTH]
                    tt_value[slot] = root_values[best]
                    tt_flag[slot] = EXACT
                    tt_action[slot] = moves[0, best]
                    ctx[C_SP], ctx[C_MODE], ctx[C_NODES] = sp, mode, nodes
                    return DONE
                best_value = floats[sp, F_BEST]
                if best_value <= floats[sp, F_ALPHA0]:
                    flag = UPPER
                elif best_value >= floats[sp, F_BETA]:
                    flag = LOWER
                else:
                    flag = EXACT
                slot = np.int64(keys[sp] & mask)
                tt_key[slot] = keys[sp]
                tt_depth[slot] = ints[sp, I_DEPTH]
                tt_value[slot] = best_value
                tt_flag[slot] = flag
                tt_action[slot] = ints[sp, I_BEST]
                ret = best_value
                mode = RETURN
                continue
            ints[sp, I_NEXT] = i + 1
            child = states[sp + 1]
            child[:] = states[sp]
            apply(child, p, moves[sp, i])
            same = to_act(child, p) == ints[sp, I_ME]
            ints[sp, I_SAME] = 1 if same else 0
            ints[sp + 1, I_DEPTH] = ints[sp, I_DEPTH] - 1
            alpha = floats[sp, F_ALPHA]
            beta = floats[sp, F_BETA]
            if sp == 0 and every_action:
                alpha = -INFINITY
            if same:
                floats[sp + 1, F_ALPHA] = alpha
                floats[sp + 1, F_BETA] = beta
            else:
                floats[sp + 1, F_ALPHA] = -beta
                floats[sp + 1, F_BETA] = -alpha
            sp += 1
            mode = ENTER
        else:  # RETURN: ``ret`` is the value of the node on top for its player to act
            sp -= 1
            value = ret if ints[sp, I_SAME] else -ret
            i = ints[sp, I_NEXT] - 1
            mode = ADVANCE
            if sp == 0:
                root_values[i] = value
                if value > floats[0, F_ALPHA]:
                    floats[0, F_ALPHA] = value
            elif value > floats[sp, F_BEST]:
                action = moves[sp, i]
                floats[sp, F_BEST] = value
                ints[sp, I_BEST] = action
                if value > floats[sp, F_ALPHA]:
                    floats[sp, F_ALPHA] = value
                if floats[sp, F_ALPHA] >= floats[sp, F_BETA]:
                    depth = ints[sp, I_DEPTH]
                    history[action] += depth * depth
                    ints[sp, I_NEXT] = ints[sp, I_COUNT]  # cut off: finish the node
    return DONE  # not reached


class CompiledAlphaBeta:
    """Iterative-deepening alpha-beta over one game's compiled kernel. The search loop
    is compiled once per process and kernel, at the first search (off the clock)."""

    def __init__(self, game: Game[Any], table_bits: int = TABLE_BITS) -> None:
        self.game = game
        self.kernel = kernel_for(game)
        self.params = self.kernel.params(game)
        size = len(self.kernel.encode(game, game.initial_state()))
        width = int(self.kernel.MAX_LEGAL)
        plies = MAX_DEPTH + 1
        self.states = np.zeros((plies + 1, size), dtype=np.int64)
        self.moves = np.zeros((plies, width), dtype=np.int64)
        self.ints = np.zeros((plies, INT_FIELDS), dtype=np.int64)
        self.floats = np.zeros((plies, FLOAT_FIELDS), dtype=np.float64)
        self.keys = np.zeros(plies, dtype=np.uint64)
        self.ctx = np.zeros(CTX_FIELDS, dtype=np.int64)
        self.root_values = np.zeros(width, dtype=np.float64)
        entries = 1 << table_bits
        self.tt_key = np.zeros(entries, dtype=np.uint64)
        self.tt_value = np.zeros(entries, dtype=np.float64)
        self.tt_depth = np.full(entries, -1, dtype=np.int16)
        self.tt_flag = np.zeros(entries, dtype=np.int8)
        self.tt_action = np.zeros(entries, dtype=np.int32)
        self.history = np.zeros(max(int(game.num_actions), 1), dtype=np.int64)
        self.buffer = np.zeros(width, dtype=np.int64)
        self._compiled = False

    def search(
        self,
        state: Any,
        depth: int | None = None,
        seconds: float | None = None,
        nodes: int | None = None,
        every_action: bool = False,
        seed: int | random.Random = 0,
    ) -> AlphaBetaResult:
        """Search ``state`` one depth after another (1, 2, ...) up to ``depth`` (by
        default 64 with a time or node limit, else 4; at most 64), as
        ``AlphaBetaAgent._search`` does: stop when no leaf was cut off by the depth,
        when a win is proven (unless ``every_action``), when half the time is spent;
        a depth that runs out of time or nodes is dropped. ``every_action`` gives every
        root action an exact (full-window) value. Root actions are shuffled by ``seed``
        (an int, or a ``random.Random`` used as is) so that ties break reproducibly."""
        kernel, game, p = self.kernel, self.game, self.params
        rng = seed if isinstance(seed, random.Random) else random.Random(seed)
        root = kernel.encode(game, state)
        count = int(kernel.legal(root, p, self.buffer))
        if count == 0:
            raise BoardlabError(_("no action to search: the game is over"))
        actions = [int(a) for a in self.buffer[:count]]
        rng.shuffle(actions)  # ties among equal actions are broken by the seed
        self._compile()
        began = time.perf_counter()
        deadline = None if seconds is None else began + seconds
        self.tt_depth[:] = -1
        self.history[:] = 0
        self.ctx[C_NODES] = 0
        max_depth = min(depth or (MAX_DEPTH if seconds or nodes else DEFAULT_DEPTH), MAX_DEPTH)
        best: AlphaBetaResult | None = None
        for d in range(1, max_depth + 1):
            if not self._search_depth(root, actions, d, every_action, nodes or 0, deadline):
                break
            values = dict(zip(actions, self.root_values[:count].tolist(), strict=True))
            actions.sort(key=lambda a: -values[a])
            action = actions[0]
            best = AlphaBetaResult(
                action=action,
                value=max(-WIN, min(WIN, values[action])),
                values=tuple((a, values[a]) for a in actions),
                depth=d,
                nodes=int(self.ctx[C_NODES]),
                seconds=0.0,
                pv=self.principal_variation(root, action),
            )
            if self.ctx[C_EXHAUSTED]:
                break  # every line reached the end: nothing deeper to see
            if abs(values[action]) >= WIN - 0.01 and not every_action:
                break  # a proven result is enough to choose
            if seconds and time.perf_counter() - began > seconds * 0.5:
                break  # the next depth would not finish in time
        elapsed = time.perf_counter() - began
        if best is None:  # not even depth 1 finished: the ordering's first choice
            return AlphaBetaResult(actions[0], None, (), 0, int(self.ctx[C_NODES]), elapsed, ())
        return AlphaBetaResult(
            best.action, best.value, best.values, best.depth, best.nodes, elapsed, best.pv
        )

    def _search_depth(
        self,
        root: np.ndarray,
        actions: list[int],
        depth: int,
        every_action: bool,
        node_limit: int,
        deadline: float | None,
    ) -> bool:
        """Search the root to ``depth``; False if the nodes or the time ran out."""
        self.states[0] = root
        self.moves[0, : len(actions)] = actions
        self.ints[0, I_COUNT] = len(actions)
        self.ints[0, I_NEXT] = 0
        self.ints[0, I_DEPTH] = depth
        self.ints[0, I_ME] = self.kernel.to_act(root, self.params)
        self.floats[0, F_ALPHA] = -INFINITY
        self.floats[0, F_BETA] = INFINITY
        self.ctx[C_SP] = 0
        self.ctx[C_MODE] = ADVANCE
        self.ctx[C_EXHAUSTED] = 1
        budget = UNLIMITED_NODES if deadline is None else SLICE
        while True:
            status = self._call(every_action, node_limit, budget)
            if status == DONE:
                return True
            if status == ABORTED:
                return False
            if deadline is not None and time.perf_counter() >= deadline:
                return False

    def _call(self, every_action: bool, node_limit: int, budget: int) -> int:
        search = specialised(_run, self.kernel.__name__, KERNEL_FUNCTIONS)
        return int(
            search(
                self.params,
                self.states,
                self.moves,
                self.ints,
                self.floats,
                self.keys,
                self.ctx,
                self.root_values,
                self.tt_key,
                self.tt_value,
                self.tt_depth,
                self.tt_flag,
                self.tt_action,
                self.history,
                every_action,
                node_limit,
                budget,
            )
        )

    def _compile(self) -> None:
        """Compile the search loop for this kernel (a call that enters no node)."""
        if not self._compiled:
            self.ctx[C_SP], self.ctx[C_MODE] = 1, ENTER
            self._call(False, 0, 0)
            self._compiled = True

    def principal_variation(
        self, root: np.ndarray, first: int, length: int = 12
    ) -> tuple[int, ...]:
        """The first action, then the table's best actions as far as they go."""
        kernel, p, out = self.kernel, self.params, self.buffer
        mask = self.tt_key.shape[0] - 1
        line = [first]
        s = root.copy()
        kernel.apply(s, p, first)
        seen = {int(state_key(s))}
        while len(line) < length:
            count = int(kernel.legal(s, p, out))
            if count == 0:
                break
            key = int(state_key(s))
            slot = key & mask
            if self.tt_depth[slot] < 0 or int(self.tt_key[slot]) != key:
                break
            action = int(self.tt_action[slot])
            if action not in out[:count].tolist():
                break
            line.append(action)
            kernel.apply(s, p, action)
            key = int(state_key(s))
            if key in seen:
                break
            seen.add(key)
        return tuple(line)
