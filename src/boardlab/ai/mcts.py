"""Monte Carlo tree search: UCT with random or heuristic rollouts, MCTS-Solver for
proven wins, losses and draws, and reuse of the tree between moves.

Every node keeps its statistics from the point of view of the player who moved into it
(the parent's player to act), so turns of several actions need no special case.
"""

from __future__ import annotations

import math
import random
import threading
from typing import Any, ClassVar

from boardlab.ai.base import (
    Agent,
    Choice,
    Clock,
    Limit,
    collector_paused,
    require_playable,
    with_time,
)
from boardlab.ai.evaluation import evaluation_for, terminal_value
from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game, Position
from boardlab.core.i18n import _
from boardlab.extras import has, require

DEFAULT_ITERATIONS = 1000
REUSE_DEPTH = 6  # how deep the old tree is searched for the new root


class Node:
    __slots__ = (
        "children",
        "mover",
        "proven",
        "state",
        "to_act",
        "total",
        "untried",
        "visits",
    )

    def __init__(self, game: Game[Any], state: Any, mover: int) -> None:
        self.state = state
        self.mover = mover
        self.to_act = game.to_act(state)
        self.children: dict[int, Node] = {}
        self.untried: list[int] = list(game.legal_actions(state))
        self.visits = 0
        self.total = 0.0
        #: the exact value for ``mover`` once proven (1, 0 or -1), else None
        self.proven: float | None = terminal_value(game, state, mover) if not self.untried else None

    def mean(self) -> float:
        if self.proven is not None:
            return self.proven
        return self.total / self.visits if self.visits else 0.0


class MctsAgent(Agent):
    """UCT search. Parameters: ``c`` (exploration, default 1.4), ``rollout`` (``random``
    or ``heuristic``: a short random rollout ended by the game's evaluation),
    ``horizon`` (actions of a heuristic rollout, default 20), ``reuse`` (keep the tree
    between moves of the same game, default 1), ``compiled`` (random rollouts by the
    game's compiled kernel when numba is installed, default 1), ``tree`` (``python``, or
    ``compiled``: the whole search in numba over flat arrays, with random rollouts and
    no reuse, about 400 times as many iterations; compiled once per process),
    ``minimax`` (with ``tree=compiled``: the weight of implicit minimax backups of the
    game's evaluation beside the playouts' mean, 0 to 1, default 0; see
    ``boardlab.fast.mcts``).
    Limits: iterations (default 1000),
    time, nodes (the same as iterations: one node is added per iteration); a depth
    limit does not apply to MCTS."""

    kind = "mcts"
    params: ClassVar[dict[str, type]] = {
        "c": float,
        "rollout": str,
        "horizon": int,
        "reuse": int,
        "compiled": int,
        "tree": str,
        "minimax": float,
    }

    def __init__(self, seed: int | None = None, **settings: Any) -> None:
        super().__init__(seed, **settings)
        self.c = float(settings.get("c", 1.4))
        self.rollout_kind = str(settings.get("rollout", "random"))
        if self.rollout_kind not in ("random", "heuristic"):
            raise BoardlabError(
                _("bad rollout {rollout!r} for agent 'mcts': expected random|heuristic").format(
                    rollout=self.rollout_kind
                )
            )
        self.horizon = int(settings.get("horizon", 20))
        self.reuse = bool(int(settings.get("reuse", 1)))
        self.compiled = bool(int(settings.get("compiled", 1)))
        self.tree = str(settings.get("tree", "python"))
        if self.tree not in ("python", "compiled"):
            raise BoardlabError(
                _("bad tree {tree!r} for agent 'mcts': expected python|compiled").format(
                    tree=self.tree
                )
            )
        if self.tree == "compiled" and self.rollout_kind != "random":
            raise BoardlabError(_("agent 'mcts' with tree=compiled plays random rollouts only"))
        self.minimax = float(settings.get("minimax", 0.0))
        if not 0 <= self.minimax <= 1:
            raise BoardlabError(
                _("bad minimax {value!r} for agent 'mcts': expected 0 to 1").format(
                    value=settings["minimax"]
                )
            )
        if self.minimax and self.tree != "compiled":
            raise BoardlabError(_("agent 'mcts' plays minimax with tree=compiled only"))
        if self.tree == "compiled":
            require("fast", _("agent 'mcts' with tree=compiled"))
        self._compiled_search: Any = None
        self._compiled_lock = threading.Lock()  # warm() may run in another thread
        self.root: Node | None = None
        self.root_game: Game[Any] | None = None

    def reset(self) -> None:
        self.root = None

    def check(self, game: Game[Any]) -> None:
        if self.tree == "compiled":
            from boardlab.fast.mcts import searched_kernel

            searched_kernel(game, self.minimax)

    def warm(self, position: Position[Any]) -> None:
        if self.tree == "compiled" and not position.is_over():
            self._search_compiled(position, Limit(iterations=1), random.Random(0))

    def choose(
        self, position: Position[Any], limit: Limit | None = None, rng: random.Random | None = None
    ) -> Choice:
        require_playable(position)
        if rng is not None:
            self.root = None  # a given generator asks for a reproducible, fresh search
        return self.search(position, self.limit_for(limit), rng or self.rng)

    def analyze(self, position: Position[Any], limit: Limit | None = None) -> Choice:
        require_playable(position)
        return self.search(position, self.limit_for(limit), self.rng)

    # ------------------------------------------------------------------ the search
    def search(self, position: Position[Any], limit: Limit, rng: random.Random) -> Choice:
        if self.tree == "compiled":
            return self._search_compiled(position, limit, rng)
        game = position.game
        clock = Clock(limit.time, stride=8)
        root = self._root_for(game, position.state)
        iterations = 0
        budget = limit.iterations
        if budget is None and limit.time is None and limit.nodes is None:
            budget = DEFAULT_ITERATIONS
        nodes_limit = limit.nodes
        evaluate = evaluation_for(game)
        fast = self._compiled_rollout(game, rng)
        with collector_paused():
            while root.proven is None:
                if budget is not None and iterations >= budget:
                    break
                if nodes_limit is not None and iterations >= nodes_limit:
                    break
                if clock.expired():
                    break
                self._iterate(game, root, rng, evaluate, fast)
                iterations += 1
        self.root = root if self.reuse else None
        self.root_game = game
        action, child = self._best(root)
        return with_time(
            Choice(
                action=action,
                value=child.mean(),
                pv=self._principal_variation(root),
                nodes=iterations,
                iterations=iterations,
                depth=len(self._principal_variation(root)),
                action_values=tuple(
                    (a, c.mean(), c.visits) for a, c in sorted(root.children.items())
                ),
            ),
            clock,
        )

    def _search_compiled(self, position: Position[Any], limit: Limit, rng: random.Random) -> Choice:
        from boardlab.fast.mcts import CompiledSearch

        game = position.game
        budget = limit.iterations or limit.nodes
        if budget is None and limit.time is None:
            budget = DEFAULT_ITERATIONS
        seed = rng.getrandbits(63)
        with self._compiled_lock:
            if self._compiled_search is None or self._compiled_search.game != game:
                self._compiled_search = CompiledSearch(game, c=self.c, minimax=self.minimax)
            found = self._compiled_search.search(
                position.state, seed, iterations=budget, seconds=limit.time
            )
        return Choice(
            action=found.action,
            value=found.value,
            pv=found.pv,
            nodes=found.nodes,
            iterations=found.iterations,
            depth=len(found.pv),
            seconds=found.seconds,
            action_values=found.children,
        )

    def _root_for(self, game: Game[Any], state: Any) -> Node:
        """The node of ``state`` in the kept tree (made the root), or a new root."""
        old = self.root
        if old is not None and self.reuse and self.root_game == game:
            frontier = [old]
            for _ in range(REUSE_DEPTH + 1):
                for node in frontier:
                    if node.state == state:
                        return node
                frontier = [c for node in frontier for c in node.children.values()]
                if not frontier:
                    break
        return Node(game, state, 1 - game.to_act(state))

    def _compiled_rollout(self, game: Game[Any], rng: random.Random) -> Any:
        """The game's compiled random rollout, if wanted and available, else None."""
        if (
            self.rollout_kind != "random"
            or not self.compiled
            or game.kernel is None
            or not has("fast")
        ):
            return None
        try:
            from boardlab.fast.batch import rollout_function

            return rollout_function(game, rng.getrandbits(63))
        except ImportError:
            return None

    def _iterate(
        self, game: Game[Any], root: Node, rng: random.Random, evaluate: Any, fast: Any
    ) -> None:
        # The path walked down is kept here: a node holds no link to its parent, so a
        # tree has no cycles and is freed as soon as it is dropped (with parent links
        # the cyclic collector freed it later, in the middle of another search, taking
        # up to half a second over a move's time).
        node = root
        path = [node]
        # Selection: descend while fully expanded and unproven.
        while not node.untried and node.proven is None:
            node = self._select(node)
            path.append(node)
        # Expansion.
        if node.untried and node.proven is None:
            action = node.untried.pop(rng.randrange(len(node.untried)))
            child = Node(game, game.apply(node.state, action), node.to_act)
            node.children[action] = child
            node = child
            path.append(node)
        # Simulation: a value for player 0.
        if node.proven is not None:
            value0 = node.proven if node.mover == 0 else -node.proven
        elif fast is not None:
            value0 = fast(node.state)
        else:
            value0 = self._rollout(game, node.state, rng, evaluate)
        # Backpropagation, proving parents where the children allow.
        for depth in range(len(path) - 1, -1, -1):
            node = path[depth]
            node.visits += 1
            node.total += value0 if node.mover == 0 else -value0
            if depth and path[depth - 1].proven is None:
                self._try_prove(path[depth - 1])

    def _select(self, node: Node) -> Node:
        log_n = math.log(node.visits)
        best, best_score = None, -math.inf
        for child in node.children.values():
            if child.proven is not None:
                if child.proven == 1.0:
                    return child  # a proven win for the player to act
                if child.proven == -1.0:
                    continue  # never walk into a proven loss while something else is open
            score = child.mean() + self.c * math.sqrt(log_n / (child.visits or 1))
            if score > best_score:
                best, best_score = child, score
        if best is None:  # every child a proven loss
            best = next(iter(node.children.values()))
        return best

    @staticmethod
    def _try_prove(node: Node) -> None:
        """Exact value of ``node`` for its player to act from proven children, if known."""
        values = [c.proven for c in node.children.values()]
        if 1.0 in values:
            best = 1.0
        elif node.untried or None in values:
            return
        else:
            best = max(v for v in values if v is not None)
        node.proven = best if node.mover == node.to_act else -best

    def _rollout(self, game: Game[Any], state: Any, rng: random.Random, evaluate: Any) -> float:
        """Random actions to the end (value 1, 0, -1 for player 0), or, for heuristic
        rollouts, at most ``horizon`` of them and then the evaluation."""
        steps = self.horizon if self.rollout_kind == "heuristic" else -1
        while steps != 0:
            actions = game.legal_actions(state)
            if not actions:
                return terminal_value(game, state, 0)
            state = game.apply(state, actions[rng.randrange(len(actions))])
            steps -= 1
        if game.outcome_of(state) is not None:
            return terminal_value(game, state, 0)
        return float(evaluate(game, state, 0))

    @staticmethod
    def _best(root: Node) -> tuple[int, Node]:
        """A proven win if there is one, else the most visited child that is not a proven
        loss (ties broken by the mean value)."""
        children = list(root.children.items())
        wins = [(a, c) for a, c in children if c.proven == 1.0]
        if wins:
            return wins[0]
        open_children = [(a, c) for a, c in children if c.proven != -1.0] or children
        return max(open_children, key=lambda item: (item[1].visits, item[1].mean()))

    @staticmethod
    def _principal_variation(root: Node, length: int = 12) -> tuple[int, ...]:
        line: list[int] = []
        node = root
        while node.children and len(line) < length:
            action, node = MctsAgent._best(node)
            line.append(action)
        return tuple(line)
