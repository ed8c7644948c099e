"""The perfect player: exact values from the solver a game declares (``Game.solver``).

Where the solver reaches (everywhere for a game solved whole, the endgames for one
solved in its endgames) the agent plays an optimal action, choosing among equally good
ones with its seed; elsewhere it searches like ``fallback`` (default the level expert).
A game solved whole needs its table: without it the agent refuses to start and names the
command that builds it.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from boardlab.ai.base import Agent, Choice, Clock, Limit, require_playable, with_time
from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game, Position
from boardlab.core.i18n import _
from boardlab.solve import exact_values as solver_values
from boardlab.solve import open_solver, solver_class


def exact_values(position: Position[Any]) -> dict[int, int] | None:
    """Every legal action's exact value (final point difference for the player to act)
    when a solver covers ``position``, else None."""
    return solver_values(position.game, position.state)


class PerfectAgent(Agent):
    """Plays from the exact tables. Parameters: ``fallback`` (the agent spec used where no
    table reaches, default ``expert``)."""

    kind = "perfect"
    params: ClassVar[dict[str, type]] = {"fallback": str}

    def __init__(self, seed: int | None = None, **settings: Any) -> None:
        super().__init__(seed, **settings)
        from boardlab.ai import parse_spec

        self.fallback_spec = str(settings.get("fallback", "expert"))
        parse_spec(self.fallback_spec)  # a bad spec is refused now, not mid-game
        self._fallbacks: dict[Game[Any], Agent] = {}

    def fallback(self, game: Game[Any]) -> Agent:
        """The agent for positions no solver reaches, as ``game`` plays that level."""
        if game not in self._fallbacks:
            from boardlab.ai import make_agent

            self._fallbacks[game] = make_agent(self.fallback_spec, self.seed, game)
        return self._fallbacks[game]

    def check(self, game: Game[Any]) -> None:
        solver = solver_class(game)  # a BoardlabError names the extra when it is missing
        if solver is None:
            raise BoardlabError(
                _(
                    "no perfect player for {game}: it has no solver; choose a level such as expert"
                ).format(game=game.name)
            )
        if solver.needs_table:
            open_solver(game)  # raises TableError with the command that builds the table

    def warm(self, position: Position[Any]) -> None:
        """The fallback's search compiled, the solver opened (its table, its book) and
        asked about ``position``, and its own search (where it has one) compiled: asked
        about the last positions of a random game from ``position``, the cheapest it
        answers."""
        game = position.game
        self.fallback(game).warm(position)
        solver = solver_class(game)
        if solver is None or (solver.needs_table and not solver.table_exists(game)):
            return
        exact_values(position)
        rng = random.Random(0)
        state, seen = position.state, []
        for _turn in range(game.max_actions):
            if game.outcome_of(state) is not None:
                break
            seen.append(state)
            state = game.apply(state, rng.choice(game.legal_actions(state)))
        for state in reversed(seen[-8:]):
            if solver_values(game, state) is not None:
                return

    def reset(self) -> None:
        for agent in self._fallbacks.values():
            agent.reset()

    def choose(
        self,
        position: Position[Any],
        limit: Limit | None = None,
        rng: random.Random | None = None,
    ) -> Choice:
        clock = Clock(None)
        require_playable(position)
        values = exact_values(position)
        if values is None:
            solver = solver_class(position.game)
            if solver is not None and solver.needs_table:
                self.check(position.game)  # says why there is no table
                raise BoardlabError(
                    _("no exact value for {position}: {why}").format(
                        position=position.position_string(),
                        why=open_solver(position.game).unreached(position.state),
                    )
                )
            return self.fallback(position.game).choose(position, limit, rng)
        best = max(values.values())
        chosen = (rng or self.rng).choice([a for a, v in values.items() if v == best])
        return with_time(
            Choice(
                chosen,
                value=_outcome(best),
                pv=(chosen,),
                nodes=len(values),
                action_values=tuple((a, _outcome(v), 0) for a, v in values.items()),
            ),
            clock,
        )


def _outcome(points: int) -> float:
    """An exact point difference as the agents' value: 1 win, 0 draw, -1 loss."""
    return float((points > 0) - (points < 0))
