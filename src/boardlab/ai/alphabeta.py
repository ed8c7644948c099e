"""Alpha-beta: iterative-deepening negamax with a transposition table, move ordering
(the table's best action first, then the history heuristic) and the game's evaluation.

Depth counts actions. Turns of several actions are handled by the sign rule: a child
whose player to act is the same as the parent's keeps the parent's point of view (no
negation, same window); otherwise the value and the window are negated.

With ``engine=compiled`` the same search runs in numba over the game's compiled kernel
(``boardlab.fast.alphabeta``): the same values and choices (while its fixed-size
transposition table keeps everything), some 25 to 100 times as many nodes a second.
"""

from __future__ import annotations

import random
import threading
from typing import Any, ClassVar

from boardlab.ai.base import (
    WIN,
    Agent,
    Choice,
    Clock,
    Limit,
    SearchTimeout,
    collector_paused,
    require_playable,
    with_time,
)
from boardlab.ai.evaluation import evaluation_for
from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game, Position
from boardlab.core.i18n import _
from boardlab.extras import require

EXACT, LOWER, UPPER = 0, 1, 2
INFINITY = 10.0
MAX_DEPTH = 64
DEFAULT_DEPTH = 4


class AlphaBetaAgent(Agent):
    """Iterative deepening alpha-beta search. Parameter: ``engine`` (``python``, or
    ``compiled``: the search in numba over the game's compiled kernel, compiled once per
    process at the first search). Limits: depth (default 4 without a time or node
    limit), time, nodes."""

    kind = "alphabeta"
    params: ClassVar[dict[str, type]] = {"engine": str}

    def __init__(self, seed: int | None = None, **settings: Any) -> None:
        super().__init__(seed, **settings)
        self.engine = str(settings.get("engine", "python"))
        if self.engine not in ("python", "compiled"):
            raise BoardlabError(
                _("bad engine {engine!r} for agent 'alphabeta': expected python|compiled").format(
                    engine=self.engine
                )
            )
        if self.engine == "compiled":
            require("fast", _("agent 'alphabeta' with engine=compiled"))
        self._compiled_search: Any = None
        self._compiled_lock = threading.Lock()  # warm() may run in another thread

    def warm(self, position: Position[Any]) -> None:
        if self.engine == "compiled" and not position.is_over():
            self._search_compiled(position, Limit(depth=1), random.Random(0), False)

    def choose(
        self, position: Position[Any], limit: Limit | None = None, rng: random.Random | None = None
    ) -> Choice:
        require_playable(position)
        return self._search(position, self.limit_for(limit), rng or self.rng, every_action=False)

    def analyze(self, position: Position[Any], limit: Limit | None = None) -> Choice:
        """Like ``choose``, but with an exact value for every legal action."""
        require_playable(position)
        return self._search(position, self.limit_for(limit), self.rng, every_action=True)

    def _search(
        self, position: Position[Any], limit: Limit, rng: random.Random, every_action: bool
    ) -> Choice:
        if self.engine == "compiled":
            return self._search_compiled(position, limit, rng, every_action)
        game = position.game
        search = _Search(game, limit, rng)
        max_depth = limit.depth or (MAX_DEPTH if limit.time or limit.nodes else DEFAULT_DEPTH)
        actions = list(position.legal_actions())
        rng.shuffle(actions)  # ties among equal actions are broken by the seed
        best: Choice | None = None
        with collector_paused():
            for depth in range(1, max_depth + 1):
                try:
                    values = search.root(position.state, actions, depth, every_action)
                except SearchTimeout:
                    break
                actions.sort(key=lambda a: -values.get(a, -INFINITY))
                action = actions[0]
                best = Choice(
                    action=action,
                    value=max(-WIN, min(WIN, values[action])),
                    pv=search.principal_variation(position.state, action),
                    nodes=search.nodes,
                    depth=depth,
                    action_values=tuple((a, values[a], 0) for a in actions if a in values),
                )
                if search.exhausted:
                    break  # every line reached the end: nothing deeper to see
                if abs(values[action]) >= WIN - 0.01 and not every_action:
                    break  # a proven result is enough to choose
                if limit.time and search.clock.elapsed() > limit.time * 0.5:
                    break  # the next depth would not finish in time
        if best is None:  # not even depth 1 finished: take the ordering's first choice
            best = Choice(action=actions[0], nodes=search.nodes)
        return with_time(best, search.clock)

    def _search_compiled(
        self, position: Position[Any], limit: Limit, rng: random.Random, every_action: bool
    ) -> Choice:
        game = position.game
        with self._compiled_lock:
            if self._compiled_search is None or self._compiled_search.game != game:
                try:
                    from boardlab.fast.alphabeta import CompiledAlphaBeta

                    self._compiled_search = CompiledAlphaBeta(game)
                except ImportError as error:
                    raise BoardlabError(
                        _(
                            "agent 'alphabeta' with engine=compiled needs numba and a compiled "
                            "kernel for {game} ({error})"
                        ).format(game=game.name, error=error)
                    ) from None
            found = self._compiled_search.search(
                position.state,
                depth=limit.depth,
                seconds=limit.time,
                nodes=limit.nodes,
                every_action=every_action,
                seed=rng,
            )
        return Choice(
            action=found.action,
            value=found.value,
            pv=found.pv,
            nodes=found.nodes,
            depth=found.depth,
            seconds=found.seconds,
            action_values=tuple((a, v, 0) for a, v in found.values),
        )


class _Search:
    """One search: counters, the clock, the transposition table and the history table."""

    def __init__(self, game: Game[Any], limit: Limit, rng: random.Random) -> None:
        self.game = game
        self.evaluate = evaluation_for(game)
        self.limit = limit
        self.clock = Clock(limit.time, stride=256)
        self.nodes = 0
        self.table: dict[Any, tuple[int, float, int, int]] = {}
        self.history: dict[int, int] = {}
        self.exhausted = True  # stays True while no leaf was cut off by the depth

    def root(
        self, state: Any, actions: list[int], depth: int, every_action: bool
    ) -> dict[int, float]:
        """Values of the root's actions for the player to act (all exact if
        ``every_action``; otherwise only the best is exact, the others upper bounds)."""
        self.exhausted = True
        game, me = self.game, self.game.to_act(state)
        alpha, values = -INFINITY, {}
        for action in actions:
            child = game.apply(state, action)
            low = -INFINITY if every_action else alpha
            if game.to_act(child) == me:
                value = self.negamax(child, depth - 1, low, INFINITY, 1)
            else:
                value = -self.negamax(child, depth - 1, -INFINITY, -low, 1)
            values[action] = value
            alpha = max(alpha, value)
        best = max(values, key=lambda a: values[a])
        self.table[state] = (depth, values[best], EXACT, best)
        return values

    def negamax(self, state: Any, depth: int, alpha: float, beta: float, ply: int) -> float:
        """The value of ``state`` for its player to act, within (alpha, beta)."""
        self.nodes += 1
        if self.clock.expired() or (self.limit.nodes and self.nodes > self.limit.nodes):
            raise SearchTimeout
        game = self.game
        me = game.to_act(state)
        outcome = game.outcome_of(state)
        if outcome is not None:
            if outcome.winner is None:
                return 0.0
            # Sooner wins are worth a little more, later losses a little less.
            return (WIN if outcome.winner == me else -WIN) * (1.0 - 0.001 * min(ply, 100))
        if depth <= 0:
            self.exhausted = False
            return self.evaluate(game, state, me)
        entry = self.table.get(state)
        tt_action = -1
        if entry is not None:
            stored_depth, value, flag, tt_action = entry
            if stored_depth >= depth:
                if flag == EXACT:
                    return value
                if flag == LOWER and value >= beta:
                    return value
                if flag == UPPER and value <= alpha:
                    return value
        actions = game.legal_actions(state)
        history = self.history
        actions.sort(key=lambda a: (a != tt_action, -history.get(a, 0)))
        original_alpha, best_value, best_action = alpha, -INFINITY, actions[0]
        for action in actions:
            child = game.apply(state, action)
            if game.to_act(child) == me:
                value = self.negamax(child, depth - 1, alpha, beta, ply + 1)
            else:
                value = -self.negamax(child, depth - 1, -beta, -alpha, ply + 1)
            if value > best_value:
                best_value, best_action = value, action
                alpha = max(alpha, value)
                if alpha >= beta:
                    history[action] = history.get(action, 0) + depth * depth
                    break
        flag = UPPER if best_value <= original_alpha else LOWER if best_value >= beta else EXACT
        self.table[state] = (depth, best_value, flag, best_action)
        return best_value

    def principal_variation(self, state: Any, first: int, length: int = 12) -> tuple[int, ...]:
        """The first action, then the table's best actions as far as they go."""
        line = [first]
        state = self.game.apply(state, first)
        seen = {state}
        while len(line) < length and self.game.legal_actions(state):
            entry = self.table.get(state)
            if entry is None or entry[3] not in self.game.legal_actions(state):
                break
            line.append(entry[3])
            state = self.game.apply(state, entry[3])
            if state in seen:
                break
            seen.add(state)
        return tuple(line)
