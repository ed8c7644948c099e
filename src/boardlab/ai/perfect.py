"""The perfect player: exact values from the solvers' tables.

Linja is solved outright (``boardlab solve linja``): the agent plays an optimal action
everywhere, choosing among equally good ones with its seed. Galatjang is solved in its
endgames (``boardlab solve galatjang``): there the agent plays exactly, elsewhere it
searches like ``fallback`` (default the level expert). Jin Li has no solver.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from boardlab.ai.base import Agent, Choice, Clock, Limit, require_playable, with_time
from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game, Position
from boardlab.extras import MissingExtraError, has

#: The solvers are compiled (numba, numpy): without them there are no exact values.
SOLVERS_INSTALLED = has("fast")


def exact_values(position: Position[Any]) -> dict[int, int] | None:
    """Every legal action's exact value (final point or seed difference for the player to
    act) when a solver covers ``position``, else None."""
    game = position.game
    if not SOLVERS_INSTALLED:
        return None
    if game.id == "linja":
        if not _linja_table_exists(game):
            return None
        solution = _solver(game)
        return solution.action_values(position.state) if solution.in_reach(position.state) else None
    if game.id == "galatjang":
        values: dict[int, int] | None = _solver(game).action_values(position.state)
        return values
    return None


def _linja_table_exists(game: Game[Any]) -> bool:
    from boardlab.solve.linja import LinjaSolution

    return LinjaSolution.available(game)  # type: ignore[arg-type]


_SOLVERS: dict[tuple[Any, ...], Any] = {}


def _solver(game: Game[Any]) -> Any:
    """The solver for ``game``'s rules, loaded once per process: the Linja table (a
    TableError names the command that builds a missing one), or the Galatjang endgames
    (the table if built, else the memoised search alone)."""
    from boardlab.solve.tables import table_dir

    key = (game.id, str(table_dir()), *sorted(game.options.items()))
    if key not in _SOLVERS:
        if game.id == "linja":
            from boardlab.solve.linja import LinjaSolution

            _SOLVERS[key] = LinjaSolution.load(game)  # type: ignore[arg-type]
        else:
            from boardlab.solve.galatjang import GalatjangEndgame

            _SOLVERS[key] = GalatjangEndgame.load(game, missing_ok=True)
    return _SOLVERS[key]


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
        self._fallbacks: dict[str, Agent] = {}

    def fallback(self, game: Game[Any]) -> Agent:
        """The agent for positions no solver reaches, as ``game`` plays that level."""
        if game.id not in self._fallbacks:
            from boardlab.ai import make_agent

            self._fallbacks[game.id] = make_agent(self.fallback_spec, self.seed, game.id)
        return self._fallbacks[game.id]

    def check(self, game: Game[Any]) -> None:
        if game.id not in ("linja", "galatjang"):
            raise BoardlabError(
                f"no perfect player for {game.name}: only Linja is solved (and Galatjang "
                "endgames); choose a level such as expert"
            )
        if not SOLVERS_INSTALLED:
            raise MissingExtraError("the perfect player", "fast", "the solvers")
        if game.id == "linja":
            _solver(game)  # raises TableError with the command that builds the table

    def warm(self, position: Position[Any]) -> None:
        self.fallback(position.game).warm(position)

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
            if position.game.id == "linja":
                self.check(position.game)  # says why there is no table
                raise BoardlabError(
                    f"the Linja table does not reach {position.position_string()}: the turn "
                    "cap could end the game before it ends by itself"
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
