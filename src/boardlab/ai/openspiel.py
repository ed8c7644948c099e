"""OpenSpiel's own MCTS as an agent: ``openspiel:iterations=1000`` plays any boardlab
game with ``pyspiel.MCTSBot`` (C++ UCT with random rollouts and MCTS-Solver) over the
game as the OpenSpiel adapter (``boardlab.rl.openspiel``) exposes it. It is there as an
outside anchor for the rating lists: a search written by others, which boardlab's own
levels and learned agents can be measured against.

Parameters: ``iterations`` (simulations a move, default 1000), ``time`` (seconds: the
search stops at the first simulation that ends past it, or at ``iterations`` if that
comes first; with ``time`` alone the iterations are unlimited), ``c`` (the UCT
constant, default 2 as in OpenSpiel's examples), ``rollouts`` (random rollouts a leaf,
default 1). ``nodes`` counts as iterations (one node is added a simulation); a depth
does not apply. Both of OpenSpiel's generators (the bot's and the rollouts') are seeded
from the agent's, so the same seed and iterations give the same choices.

The search runs through ``MCTSBot.mcts_search``: ``MCTSBot.step`` releases the GIL and
crashes on OpenSpiel's Python games in pyspiel 2.0.2. The adapter sits in a layer above
the agents, so it is imported by name when first needed, as pyspiel is, through
``boardlab.extras``: without the ``openspiel`` extra the agent says so in one line.
"""

from __future__ import annotations

import random
import time
from typing import Any, ClassVar

from boardlab.ai.base import Agent, AgentFault, Choice, Limit, require_playable
from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game, Position
from boardlab.core.i18n import _
from boardlab.extras import MissingExtraError, import_extra

DEFAULT_ITERATIONS = 1000
DEFAULT_C = 2.0
#: The tree's memory bound in MB (OpenSpiel's examples' default); a move's tree of
#: a few thousand simulations takes well under one.
MEMORY_MB = 1000
#: The iterations of a search bounded by time alone (BUDGET_MAX of a spec).
UNBOUNDED = 10**9


def _needed_by() -> str:
    return _("agent 'openspiel'")


class OpenSpielAgent(Agent):
    """OpenSpiel's C++ ``MCTSBot`` over the adapter (see the module's text)."""

    kind = "openspiel"
    params: ClassVar[dict[str, type]] = {"c": float, "rollouts": int}

    def __init__(self, seed: int | None = None, **settings: Any) -> None:
        super().__init__(seed, **settings)
        self.c = float(settings.get("c", DEFAULT_C))
        self.rollouts = int(settings.get("rollouts", 1))
        if self.rollouts < 1:
            raise BoardlabError(
                _("bad rollouts {value!r} for agent 'openspiel': expected 1 or more").format(
                    value=settings["rollouts"]
                )
            )
        #: The OpenSpiel game of each boardlab game (its id and options) played so far.
        self._games: dict[tuple[str, tuple[tuple[str, Any], ...]], Any] = {}

    def check(self, game: Game[Any]) -> None:
        self._openspiel_game(game)

    def choose(
        self, position: Position[Any], limit: Limit | None = None, rng: random.Random | None = None
    ) -> Choice:
        legal = require_playable(position)
        game = self._openspiel_game(position.game)
        pyspiel = import_extra("pyspiel", _needed_by())
        budget = self.limit_for(limit)
        iterations = budget.iterations or budget.nodes
        if iterations is None:
            iterations = UNBOUNDED if budget.time is not None else DEFAULT_ITERATIONS
        generator = rng or self.rng
        bot_seed, rollout_seed = generator.getrandbits(31), generator.getrandbits(31)
        state = game.new_initial_state(position.position_string())
        bot = pyspiel.MCTSBot(
            game,
            pyspiel.RandomRolloutEvaluator(self.rollouts, rollout_seed),
            self.c,
            iterations,
            MEMORY_MB,
            True,  # solve: proven wins, losses and draws
            bot_seed,
            False,
            max_wall_clock_time=budget.time if budget.time is not None else -1.0,
        )
        began = time.perf_counter()
        root = bot.mcts_search(state)
        seconds = time.perf_counter() - began
        player = state.current_player()
        best = root.best_child()
        if best.action not in legal:  # the adapter keeps boardlab's actions: never expected
            raise AgentFault(
                _("agent 'openspiel' chose {action}, not a legal action of {position}").format(
                    action=best.action, position=position.position_string()
                )
            )
        pv = [best.action]
        node = best
        while node.children and len(pv) < 64:
            node = node.best_child()
            if node.explore_count == 0:
                break
            pv.append(node.action)
        return Choice(
            action=int(best.action),
            value=_mean(best, player),
            pv=tuple(int(a) for a in pv),
            nodes=int(root.explore_count),
            iterations=int(root.explore_count),
            depth=len(pv),
            seconds=seconds,
            action_values=tuple(
                sorted(
                    (int(child.action), _mean(child, player), int(child.explore_count))
                    for child in root.children
                )
            ),
        )

    def _openspiel_game(self, game: Game[Any]) -> Any:
        """The OpenSpiel game of ``game`` through the adapter, loaded once; a game the
        adapter cannot load is refused in one line saying why."""
        import_extra("pyspiel", _needed_by())  # the missing extra named for this agent
        key = (game.id, tuple(sorted(game.options.items())))
        if key not in self._games:
            adapter = import_extra("boardlab.rl.openspiel", _needed_by())
            try:
                loaded = adapter.load(game.id, **game.options)
            except MissingExtraError:
                raise
            except Exception as error:  # pyspiel raises its own types: any is a refusal
                raise BoardlabError(
                    _(
                        "agent 'openspiel' cannot play {game}: the OpenSpiel adapter fails: {error}"
                    ).format(game=game.name, error=error)
                ) from None
            if loaded.num_players() != len(game.players):
                raise BoardlabError(
                    _(
                        "agent 'openspiel' cannot play {game}: the OpenSpiel adapter plays "
                        "{count} players, the game has {players}"
                    ).format(game=game.name, count=loaded.num_players(), players=len(game.players))
                )
            self._games[key] = loaded
        return self._games[key]


def _mean(child: Any, player: int) -> float:
    """A child's value for ``player`` (who acts at the root), -1..1: its proven outcome,
    else the mean of its simulations' returns."""
    if len(child.outcome):
        return float(child.outcome[player])
    if not child.explore_count:
        return 0.0
    return max(-1.0, min(1.0, float(child.total_reward) / int(child.explore_count)))
