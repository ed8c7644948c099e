"""The baseline agents: uniformly random, and greedy (the best evaluation one turn ahead)."""

from __future__ import annotations

import random
from typing import Any, ClassVar

from boardlab.ai.base import Agent, Choice, Clock, Limit, require_playable, with_time
from boardlab.ai.evaluation import evaluation_for, terminal_value
from boardlab.core.game import Position


class RandomAgent(Agent):
    """Picks a legal action uniformly at random."""

    kind = "random"

    def choose(
        self, position: Position[Any], limit: Limit | None = None, rng: random.Random | None = None
    ) -> Choice:
        actions = require_playable(position)
        return Choice(action=(rng or self.rng).choice(actions))


class GreedyAgent(Agent):
    """Looks one whole turn ahead: every sequence of actions until the other player is to
    act (or the game ends), judged by the game's evaluation; plays the first action of
    the best sequence, ties broken at random. With ``noise`` > 0 it instead plays a
    random action with that probability (the beginner level)."""

    kind = "greedy"
    params: ClassVar[dict[str, type]] = {"noise": float}
    MAX_NODES = 50_000  # a turn with more sequences is cut short by the evaluation

    def choose(
        self, position: Position[Any], limit: Limit | None = None, rng: random.Random | None = None
    ) -> Choice:
        actions = require_playable(position)
        rng = rng or self.rng
        limit = self.limit_for(limit)
        clock = Clock(limit.time)
        max_nodes = min(limit.nodes or self.MAX_NODES, self.MAX_NODES)
        noise = float(self.settings.get("noise", 0.0))
        if noise and rng.random() < noise:
            return Choice(action=rng.choice(actions))
        game, player = position.game, position.to_act
        evaluate = evaluation_for(game)
        nodes = 0

        def turn_value(state: Any, budget: int) -> float:
            """Best value for ``player`` over the rest of his turn from ``state``."""
            nonlocal nodes
            nodes += 1
            if game.outcome_of(state) is not None:
                return terminal_value(game, state, player)
            if game.to_act(state) != player or budget <= 0 or clock.expired():
                return evaluate(game, state, player)
            moves = game.legal_actions(state)
            share = budget // len(moves)
            return max(turn_value(game.apply(state, a), share) for a in moves)

        per_action = max_nodes // len(actions)
        scored = [(turn_value(game.apply(position.state, a), per_action), a) for a in actions]
        best = max(value for value, _ in scored)
        action = rng.choice([a for value, a in scored if value == best])
        return with_time(
            Choice(
                action=action,
                value=best,
                pv=(action,),
                nodes=nodes,
                depth=1,
                action_values=tuple((a, v, 0) for v, a in scored),
            ),
            clock,
        )
