"""boardlab's games as PettingZoo AEC environments, one agent a player::

    from boardlab.rl import pettingzoo
    env = pettingzoo.env("<id>", render_mode="ansi", option=value)
    env.reset(seed=1)
    for agent in env.agent_iter():
        observation, reward, termination, truncation, info = env.last()
        mask = observation["action_mask"]
        action = None if termination or truncation else env.action_space(agent).sample(mask)
        env.step(action)

The agents are ``player_0`` and ``player_1``, as in PettingZoo's board games: the game's
players in the order of ``Game.players`` (``player_0`` is ``players[0]``). Each
observation is a dict: ``observation``, the game's observation from that agent's side
(``Game.observation``, documented in the game card), and ``action_mask`` over the game's
flat action space, all zeros for an agent that is not to act. A turn of several actions
is several steps of the same agent, as PettingZoo expects: ``agent_selection`` is simply
the player to act. Every end of a game is a termination (a turn cap is a rule of the
game, with its own result); the rewards are 1 and -1 for a win and a loss, 0 for a draw.
``reset(options={"position": "<position string>"})`` starts from any position. An
illegal action raises ``IllegalActionError`` naming the legal ones.

PettingZoo, Gymnasium and numpy are the ``rl`` extra; without them importing this module
raises ``MissingExtraError`` naming it.
"""

from __future__ import annotations

from typing import Any

from boardlab.core.errors import IllegalActionError
from boardlab.core.game import Game, Position
from boardlab.core.i18n import _
from boardlab.core.registry import new_game
from boardlab.extras import import_extra
from boardlab.rl.rendering import RENDER_MODES, check_render_mode, render

np = import_extra("numpy", "boardlab.rl.pettingzoo")
gymnasium = import_extra("gymnasium", "boardlab.rl.pettingzoo")
_pettingzoo = import_extra("pettingzoo", "boardlab.rl.pettingzoo")
_wrappers = import_extra("pettingzoo.utils.wrappers", "boardlab.rl.pettingzoo")


def env(game_id: str, render_mode: str | None = None, **options: Any) -> Any:
    """The AEC environment of a game under ``options``, wrapped as PettingZoo's own
    environments are (an action before ``reset`` is an error)."""
    return _wrappers.OrderEnforcingWrapper(raw_env(game_id, render_mode, **options))


def raw_env(game_id: str, render_mode: str | None = None, **options: Any) -> BoardlabAEC:
    """The environment without PettingZoo's wrappers."""
    return BoardlabAEC(new_game(game_id, options), render_mode)


class BoardlabAEC(_pettingzoo.AECEnv):  # type: ignore[misc,name-defined]
    """One game of a boardlab game, stepped action by action (see the module's text)."""

    def __init__(self, game: Game[Any], render_mode: str | None = None) -> None:
        super().__init__()
        check_render_mode(render_mode)
        self.game = game
        self.render_mode = render_mode
        self.metadata = {
            "name": f"boardlab_{game.id}_v0",
            "render_modes": list(RENDER_MODES),
            "is_parallelizable": False,
            "render_fps": 2,
        }
        self.possible_agents = [f"player_{k}" for k in range(len(game.players))]
        self.agents = list(self.possible_agents)
        size = len(game.observation(game.initial_state()))
        spaces = gymnasium.spaces
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, (size,), np.float32),
                    "action_mask": spaces.Box(0, 1, (game.num_actions,), np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {
            agent: spaces.Discrete(game.num_actions) for agent in self.possible_agents
        }
        self.position: Position[Any] = game.initial()
        self._start(self.position)

    def observation_space(self, agent: str) -> Any:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> Any:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        start = (options or {}).get("position")
        position = self.game.initial() if start is None else self.game.from_position_string(start)
        if position.is_over():
            raise ValueError(
                _("the game is already over in the position {start!r}").format(start=start)
            )
        if seed is not None:
            for k, agent in enumerate(self.possible_agents):
                self.action_spaces[agent].seed(seed + k)
        self._start(position)

    def _start(self, position: Position[Any]) -> None:
        self.position = position
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[position.to_act]

    def observe(self, agent: str) -> dict[str, Any]:
        player = self.possible_agents.index(agent)
        mask = np.zeros(self.game.num_actions, np.int8)
        if agent == self.agent_selection and not self.position.is_over():
            mask[list(self.position.legal_actions())] = 1
        return {
            "observation": np.asarray(
                self.game.observation(self.position.state, player), np.float32
            ),
            "action_mask": mask,
        }

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        legal = self.position.legal_actions()
        if action is None or int(action) not in legal:
            raise IllegalActionError(
                _(
                    "illegal action {action!r} for {agent}: the legal actions are {legal} ({shown})"
                ).format(
                    action=action,
                    agent=agent,
                    legal=", ".join(str(a) for a in legal),
                    shown=", ".join(self.position.legal_action_strings()),
                )
            )
        self.position = self.position.play(int(action))
        self.rewards = dict.fromkeys(self.agents, 0.0)
        outcome = self.position.outcome()
        if outcome is None:
            self.agent_selection = self.possible_agents[self.position.to_act]
        else:
            for player, name in enumerate(self.possible_agents):
                self.rewards[name] = 2.0 * outcome.score(player) - 1.0
                self.infos[name] = {"reason": outcome.reason}
            self.terminations = dict.fromkeys(self.agents, True)
            others = self.possible_agents
            self.agent_selection = others[(others.index(agent) + 1) % len(others)]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        return render(self.position, self.render_mode)

    def close(self) -> None:
        pass
