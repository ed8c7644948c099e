"""UCT with MCTS-Solver, compiled: the tree lives in flat arrays and every iteration
(selection, expansion, a uniform-random rollout, backpropagation, proofs) runs inside
numba over the game's kernel. States are not stored: an iteration replays the actions
from the root, which the kernels do in nanoseconds, so a node costs about 40 bytes (48
with the minimax backups below).

With ``minimax`` above 0 the search also keeps implicit minimax backups (Lanctot,
Winands, Pepels and Sturtevant, 2014): each new leaf gets the game's evaluation, every
node the minimax of its children's, and selection weighs a child by
``(1 - minimax) * mean + minimax * minimax value``. The playouts say who tends to win;
the backed-up evaluations see the material a few actions ahead that random play misses.

The search runs in slices of iterations; between slices Python checks the clock, so a
time limit is kept to within one slice.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game
from boardlab.core.i18n import _
from boardlab.fast import rng
from boardlab.fast.batch import kernel_for
from boardlab.fast.specialise import specialised

UNKNOWN = -2
#: The kernel's functions the search calls (the first parameters of ``_iterate``).
KERNEL_FUNCTIONS = ("legal", "apply", "result", "to_act", "playout", "evaluate")
# Tree fields, one int32/float64 array each.
PARENT, ACTION, FIRST, COUNT, VISITS, MOVER, TO_ACT, PROVEN = range(8)
INT_FIELDS = 8
#: Bytes per node: 8 int32 fields and the float64 value sum.
NODE_BYTES = 4 * INT_FIELDS + 8


@dataclass(frozen=True)
class SearchResult:
    """A compiled search: the chosen action, per-root-child statistics, the line."""

    action: int
    value: float
    iterations: int
    nodes: int
    seconds: float
    children: tuple[tuple[int, float, int], ...]  # (action, mean for the player to act, visits)
    pv: tuple[int, ...]


@njit(cache=False)
def _value_for(winner: int, player: int) -> float:
    if winner == 2:
        return 0.0
    return 1.0 if winner == player else -1.0


@njit(cache=True)
def no_evaluation(s: np.ndarray, p: np.ndarray, player: int) -> float:
    """The evaluation of a kernel without one (``minimax`` needs a real one)."""
    return 0.0


@njit(cache=False)
def _iterate(
    legal: Any,
    apply: Any,
    result: Any,
    to_act: Any,
    playout: Any,
    evaluate: Any,
    root: np.ndarray,
    p: np.ndarray,
    g: np.ndarray,
    tree: np.ndarray,
    total: np.ndarray,
    size: np.ndarray,
    iterations: int,
    c: float,
    buffer: np.ndarray,
    scratch: np.ndarray,
    alpha: float,
    backed: np.ndarray,
) -> int:
    """Run up to ``iterations`` iterations; returns how many ran (fewer if the root is
    proven). A full tree keeps being searched: its leaves are played out, not expanded.
    ``backed`` holds the implicit minimax values (for each node's mover) when ``alpha``
    is above 0."""
    capacity = tree.shape[0]
    done = 0
    for _step in range(iterations):
        if tree[0, PROVEN] != UNKNOWN:
            break
        scratch[:] = root
        node = 0
        # Selection.
        while tree[node, FIRST] >= 0 and tree[node, PROVEN] == UNKNOWN:
            first, count = tree[node, FIRST], tree[node, COUNT]
            log_n = math.log(max(tree[node, VISITS], 1))
            best, best_score = -1, -1e300
            for child in range(first, first + count):
                proven = tree[child, PROVEN]
                if proven == 1:
                    best = child
                    break
                if proven == -1:
                    continue
                visits = tree[child, VISITS]
                if visits == 0:
                    score = 1e100 - child  # unvisited children first, in order
                else:
                    if proven != UNKNOWN:
                        mean = float(proven)
                    elif alpha > 0.0:
                        mean = (1.0 - alpha) * total[child] / visits + alpha * backed[child]
                    else:
                        mean = total[child] / visits
                    score = mean + c * math.sqrt(log_n / visits)
                if score > best_score:
                    best, best_score = child, score
            if best < 0:
                best = first  # every child is a proven loss
            node = best
            apply(scratch, p, tree[node, ACTION])
        # Expansion, or the end of the game.
        if tree[node, PROVEN] == UNKNOWN:
            n = legal(scratch, p, buffer)
            if n == 0:
                tree[node, PROVEN] = int(_value_for(result(scratch, p), tree[node, MOVER]))
            elif size[0] + n <= capacity:
                player = to_act(scratch, p)
                tree[node, TO_ACT] = player
                first = size[0]
                for k in range(n):
                    child = first + k
                    tree[child, PARENT] = node
                    tree[child, ACTION] = buffer[k]
                    tree[child, FIRST] = -1
                    tree[child, COUNT] = 0
                    tree[child, VISITS] = 0
                    tree[child, MOVER] = player
                    tree[child, TO_ACT] = -1
                    tree[child, PROVEN] = UNKNOWN
                    total[child] = 0.0
                tree[node, FIRST] = first
                tree[node, COUNT] = n
                size[0] += n
                node = first + rng.below(g, n)
                apply(scratch, p, tree[node, ACTION])
                if legal(scratch, p, buffer) == 0:
                    winner = result(scratch, p)
                    tree[node, PROVEN] = int(_value_for(winner, tree[node, MOVER]))
            # else: the tree is full; the leaf is only played out, not expanded
        if alpha > 0.0 and tree[node, FIRST] < 0:  # a leaf: its evaluation starts its value
            known = tree[node, PROVEN]
            backed[node] = known if known != UNKNOWN else evaluate(scratch, p, tree[node, MOVER])
        # Simulation: the winner (0, 1) or 2 for a draw.
        proven = tree[node, PROVEN]
        if proven != UNKNOWN:
            mover = tree[node, MOVER]
            winner = 2 if proven == 0 else (mover if proven == 1 else 1 - mover)
        else:
            winner, _length = playout(scratch, p, g)
        # Backpropagation with proofs.
        while node >= 0:
            tree[node, VISITS] += 1
            total[node] += _value_for(winner, tree[node, MOVER])
            parent = tree[node, PARENT]
            if parent >= 0 and (tree[parent, PROVEN] == UNKNOWN or alpha > 0.0):
                best_proven, all_proven = -2, True
                best_backed = -1e300
                first, count = tree[parent, FIRST], tree[parent, COUNT]
                for child in range(first, first + count):
                    value = tree[child, PROVEN]
                    if value == UNKNOWN:
                        all_proven = False
                        if alpha > 0.0 and tree[child, VISITS] > 0:
                            best_backed = max(best_backed, backed[child])
                    else:
                        best_proven = max(best_proven, value)
                        best_backed = max(best_backed, float(value))
                same = tree[parent, MOVER] == tree[parent, TO_ACT]
                if tree[parent, PROVEN] == UNKNOWN and (best_proven == 1 or all_proven):
                    tree[parent, PROVEN] = best_proven if same else -best_proven
                if alpha > 0.0:
                    backed[parent] = best_backed if same else -best_backed
            node = parent
        done += 1
    return done


def searched_kernel(game: Game[Any], minimax: float = 0.0) -> Any:
    """The kernel a compiled search of ``game`` runs on: refused in one line if the game
    has none, or, for ``minimax``, if it has no evaluation."""
    kernel = kernel_for(game)
    if minimax > 0 and not hasattr(kernel, "evaluate"):
        raise BoardlabError(
            _("agent 'mcts' with minimax needs an evaluation in the kernel of {game}").format(
                game=game.name
            )
        )
    return kernel


class CompiledSearch:
    """A compiled MCTS over one game's kernel, with a node capacity fixed up front."""

    def __init__(
        self, game: Game[Any], capacity: int = 1_000_000, c: float = 1.4, minimax: float = 0.0
    ) -> None:
        self.game = game
        self.kernel = searched_kernel(game, minimax)
        self.params = self.kernel.params(game)
        self.capacity = capacity
        self.c = c
        self.minimax = minimax
        self.tree = np.empty((capacity, INT_FIELDS), dtype=np.int32)
        self.total = np.empty(capacity, dtype=np.float64)
        self.backed = np.empty(capacity if minimax > 0 else 1, dtype=np.float64)
        self.buffer = np.empty(self.kernel.MAX_LEGAL, dtype=np.int64)

    def search(
        self,
        state: Any,
        seed: int,
        iterations: int | None = None,
        seconds: float | None = None,
        slice_size: int = 256,
    ) -> SearchResult:
        """Search from ``state`` until ``iterations`` or ``seconds`` run out (or the root
        is proven, or the tree is full)."""
        kernel, game = self.kernel, self.game
        root = kernel.encode(game, state)
        tree, total = self.tree, self.total
        tree[0] = (-1, -1, -1, 0, 0, 1 - game.to_act(state), -1, UNKNOWN)
        total[0] = 0.0
        size = np.array([1], dtype=np.int64)
        g = rng.seeded(seed)
        scratch = root.copy()
        self._call(root, g, size, 0, scratch)  # compile (once per process) off the clock
        began = time.perf_counter()
        done = 0
        budget = iterations if iterations is not None else (None if seconds else 1000)
        while True:
            step = slice_size if budget is None else min(slice_size, budget - done)
            if step <= 0:
                break
            ran = self._call(root, g, size, step, scratch)
            done += ran
            if ran < step:
                break  # the root is proven
            if seconds is not None and time.perf_counter() - began >= seconds:
                break
        return self._answer(done, int(size[0]), time.perf_counter() - began)

    def _call(
        self, root: np.ndarray, g: np.ndarray, size: np.ndarray, step: int, scratch: np.ndarray
    ) -> int:
        iterate = specialised(
            _iterate,
            self.kernel.__name__,
            KERNEL_FUNCTIONS,
            defaults=(("evaluate", no_evaluation),),
        )
        return int(
            iterate(
                root,
                self.params,
                g,
                self.tree,
                self.total,
                size,
                step,
                self.c,
                self.buffer,
                scratch,
                self.minimax,
                self.backed,
            )
        )

    def _best_child(self, node: int) -> int:
        tree = self.tree
        first, count = int(tree[node, FIRST]), int(tree[node, COUNT])
        children = range(first, first + count)
        wins = [c for c in children if tree[c, PROVEN] == 1]
        if wins:
            return wins[0]
        open_ = [c for c in children if tree[c, PROVEN] != -1] or list(children)
        return max(open_, key=lambda c: (tree[c, VISITS], self._mean(c)))

    def _mean(self, node: int) -> float:
        proven = int(self.tree[node, PROVEN])
        if proven != UNKNOWN:
            return float(proven)
        visits = int(self.tree[node, VISITS])
        return float(self.total[node] / visits) if visits else 0.0

    def _answer(self, iterations: int, nodes: int, seconds: float) -> SearchResult:
        tree = self.tree
        if tree[0, FIRST] < 0:
            raise RuntimeError("the search expanded nothing: is the game over?")
        best = self._best_child(0)
        first, count = int(tree[0, FIRST]), int(tree[0, COUNT])
        children = tuple(
            (int(tree[c, ACTION]), self._mean(c), int(tree[c, VISITS]))
            for c in range(first, first + count)
        )
        line: list[int] = []
        node = 0
        while tree[node, FIRST] >= 0 and len(line) < 16:
            node = self._best_child(node)
            line.append(int(tree[node, ACTION]))
        return SearchResult(
            action=int(tree[best, ACTION]),
            value=self._mean(best),
            iterations=iterations,
            nodes=nodes,
            seconds=seconds,
            children=children,
            pv=tuple(line),
        )
