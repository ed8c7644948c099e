"""boardlab's games as single-agent Gymnasium environments, against any boardlab agent::

    import gymnasium
    import boardlab.rl.gymnasium  # registers boardlab/<Name>-v0 for every game
    env = gymnasium.make("boardlab/<Name>-v0", opponent="medium", seat=0, option=value)
    observation, info = env.reset(seed=1)
    action = env.action_space.sample(info["action_mask"])
    observation, reward, terminated, truncated, info = env.step(action)

The learner plays one seat (``seat``: 0 for the game's first player, 1, or ``"random"``
at each reset); the ``opponent`` (an agent spec or level, as on the command line) plays
the other, inside ``step``, until the learner is to act again, so one step is one action
of the learner: a turn of several actions is several steps. The observation is the
game's (``Game.observation`` from the learner's side, documented in the game card); the
legal actions are ``info["action_mask"]`` and ``env.action_masks()`` (the name
sb3-contrib's maskable agents call). The reward is 1, -1 or 0 when the game ends (a
win, loss or draw of the learner) and 0 before; every end is a termination, as the turn
cap is a rule of the game. An illegal action ends the episode as a loss
(``info["illegal_action"]``), or raises ``IllegalActionError`` with ``illegal="raise"``.
``reset(options={"position": "<position string>"})`` starts from any position.

``gymnasium.make_vec("boardlab/<Name>-v0", num_envs=1024, vectorization_mode=
"vector_entry_point", threads=2)`` is ``BoardlabVectorEnv``: that many games of
self-play stepped together by the compiled batch (``boardlab.fast.vector``).

Gymnasium and numpy are the ``rl`` extra; without them importing this module raises
``MissingExtraError`` naming it.
"""

from __future__ import annotations

import sys
from typing import Any, ClassVar

from boardlab.ai import make_agent
from boardlab.core.errors import BoardlabError, IllegalActionError
from boardlab.core.game import Position
from boardlab.core.i18n import _
from boardlab.core.registry import game_class, game_ids, new_game
from boardlab.extras import import_extra
from boardlab.rl.rendering import RENDER_MODES, check_render_mode, render

np = import_extra("numpy", "boardlab.rl.gymnasium")
gymnasium = import_extra("gymnasium", "boardlab.rl.gymnasium")

SEATS = (0, 1, "random")
ILLEGAL = ("lose", "raise")


def env_id(game_id: str) -> str:
    """The Gymnasium id of a game: ``boardlab/`` and its class name, version 0."""
    return f"boardlab/{game_class(game_id).__name__}-v0"


def register() -> list[str]:
    """Register every boardlab game with Gymnasium (done when this module is imported,
    again for games registered since); their ids."""
    for game_id in game_ids():
        if env_id(game_id) not in gymnasium.registry:
            gymnasium.register(
                id=env_id(game_id),
                entry_point="boardlab.rl.gymnasium:BoardlabEnv",
                vector_entry_point="boardlab.rl.gymnasium:BoardlabVectorEnv",
                kwargs={"game": game_id},
            )
    return [env_id(game_id) for game_id in game_ids()]


class BoardlabEnv(gymnasium.Env):  # type: ignore[misc,name-defined]
    """One seat of a boardlab game against an agent (see the module's text)."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": list(RENDER_MODES), "render_fps": 2}

    def __init__(
        self,
        game: str,
        opponent: str = "medium",
        seat: int | str = 0,
        illegal: str = "lose",
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        self.game = new_game(game, options)
        if seat not in SEATS:
            raise ValueError(_("seat {seat!r}: expected 0, 1 or 'random'").format(seat=seat))
        if illegal not in ILLEGAL:
            raise ValueError(
                _("illegal={illegal!r}: expected 'lose' or 'raise'").format(illegal=illegal)
            )
        check_render_mode(render_mode)
        make_agent(opponent, game=self.game).check(self.game)  # a bad spec fails here
        self.opponent_spec, self.seat_choice, self.illegal = opponent, seat, illegal
        self.render_mode = render_mode
        size = len(self.game.observation(self.game.initial_state()))
        self.observation_space = gymnasium.spaces.Box(0.0, 1.0, (size,), np.float32)
        self.action_space = gymnasium.spaces.Discrete(self.game.num_actions)
        self.position: Position[Any] = self.game.initial()
        self.seat = 0
        self.opponent = make_agent(opponent, seed=0, game=self.game)
        self.over = True

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        start = (options or {}).get("position")
        game = self.game
        self.position = game.initial() if start is None else game.from_position_string(start)
        draw = int(self.np_random.integers(2))
        self.seat = draw if self.seat_choice == "random" else int(self.seat_choice)
        seed_of_opponent = int(self.np_random.integers(2**31))
        self.opponent = make_agent(self.opponent_spec, seed=seed_of_opponent, game=game)
        self._opponent_plays()
        if self.position.is_over():
            if start:
                raise ValueError(
                    _("the game is over before the learner acts (from {start!r})").format(
                        start=start
                    )
                )
            raise ValueError(_("the game is over before the learner acts (from 'the start')"))
        self.over = False
        if self.render_mode == "human":
            self.render()
        return self._observe(), self._info()

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self.over:
            raise BoardlabError(_("the game is over: call reset() to play another"))
        legal = self.position.legal_actions()
        if int(action) not in legal:
            if self.illegal == "raise":
                shown = ", ".join(self.position.legal_action_strings())
                raise IllegalActionError(
                    _("illegal action {action!r}: the legal actions are {legal} ({shown})").format(
                        action=action, legal=", ".join(map(str, legal)), shown=shown
                    )
                )
            self.over = True
            info = {**self._info(), "illegal_action": True}
            return self._observe(), -1.0, True, False, info
        self.position = self.position.play(int(action))
        self._opponent_plays()
        outcome = self.position.outcome()
        reward, self.over = 0.0, outcome is not None
        info = self._info()
        if outcome is not None:
            reward = 2.0 * outcome.score(self.seat) - 1.0
            info["reason"] = outcome.reason
        if self.render_mode == "human":
            self.render()
        return self._observe(), reward, self.over, False, info

    def action_masks(self) -> Any:
        """The legal actions as booleans over the action space (none once the game is over)."""
        mask = np.zeros(self.game.num_actions, np.bool_)
        if not self.position.is_over():
            mask[list(self.position.legal_actions())] = True
        return mask

    def render(self) -> str | None:
        return render(self.position, self.render_mode)

    def _opponent_plays(self) -> None:
        while not self.position.is_over() and self.position.to_act != self.seat:
            self.position = self.position.play(self.opponent.choose(self.position).action)

    def _observe(self) -> Any:
        return np.asarray(self.game.observation(self.position.state, self.seat), np.float32)

    def _info(self) -> dict[str, Any]:
        mask = self.action_masks().astype(np.int8)
        return {"action_mask": mask, "position": self.position.position_string()}


def _count_held_by_a_list_only() -> int:
    """What ``sys.getrefcount`` says of an object that only a list holds (asked the
    way ``Copies`` asks it)."""
    made = [object()]
    return sys.getrefcount(made[0])


_HELD_BY_A_LIST_ONLY = _count_held_by_a_list_only()


class Copies:
    """Fresh copies at every step, made in the memory of earlier copies that nothing
    refers to any more. A new array of some hundred kilobytes is mapped afresh by the
    C library and faulted in page by page, which can cost more than the step itself
    (docs/research.md)."""

    #: The earlier copies of each array kept for reuse: a caller holds the last step's
    #: while asking for the next; one who holds more gets new memory, as without this.
    KEPT = 3

    def __init__(self) -> None:
        self.made: dict[str, list[Any]] = {}

    def of(self, name: str, source: Any, rows: Any = None) -> Any:
        """A copy of ``source``; with ``rows`` (a mask), of those rows, zeros elsewhere."""
        made = self.made.setdefault(name, [])
        free = [k for k in range(len(made)) if sys.getrefcount(made[k]) == _HELD_BY_A_LIST_ONLY]
        if free:
            out = made[free[0]]
        else:
            out = np.empty_like(source)
            made.append(out)
            del made[: -self.KEPT]
        if rows is None:
            np.copyto(out, source)
        else:
            out.fill(0)
            out[rows] = source[rows]
        return out


class BoardlabVectorEnv(gymnasium.vector.VectorEnv):  # type: ignore[misc,name-defined]
    """``num_envs`` games of self-play, one action each per step, in compiled code.

    Every game's observation is that of its player to act, and ``infos["to_act"]`` says
    who that is; ``infos["action_mask"]`` holds the legal actions. The reward of game
    ``i`` is that of the player who made its action (1, -1 or 0 when the game ends, else
    0; both players' in ``infos["rewards"]``). A game that ends is started again in the
    same step (Gymnasium's same-step autoreset): its observation is then the new start's,
    and ``infos["final_obs"]`` (marked by ``infos["_final_obs"]``) holds its last view.
    The arrays returned are copies (``final_obs`` zeros in the rows of games that did
    not end), made in reused memory (``Copies``). With ``copy=False`` (as Gymnasium's
    ``SyncVectorEnv``) they are the batch's own, overwritten by the next step: faster,
    for a loop that reads them at once.
    """

    metadata: ClassVar[dict[str, Any]] = {
        "autoreset_mode": gymnasium.vector.AutoresetMode.SAME_STEP,
        "render_modes": [],
    }

    def __init__(
        self, game: str, num_envs: int = 1, threads: int = 1, copy: bool = True, **options: Any
    ) -> None:
        vector = import_extra("boardlab.fast.vector", "the batched environment")
        self.batch = vector.Batch(new_game(game, options), num_envs, threads=threads)
        self.num_envs = num_envs
        self._copies = Copies() if copy else None
        size = self.batch.observations.shape[1]
        spaces = gymnasium.spaces
        self.single_observation_space = spaces.Box(0.0, 1.0, (size,), np.float32)
        self.single_action_space = spaces.Discrete(self.batch.game.num_actions)
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, num_envs
        )
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, num_envs)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        self.batch.reset(seed)
        return self._give("observations"), self._infos()

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        movers = self.batch.to_act.copy()
        self.batch.step(actions)
        rewards = self.batch.rewards[np.arange(self.num_envs), movers]
        ended = self.batch.ended.copy()
        infos = self._infos()
        infos["final_obs"] = self._give("final_observations", ended)
        infos["_final_obs"] = ended
        truncated = np.zeros(self.num_envs, np.bool_)
        return self._give("observations"), rewards, ended, truncated, infos

    def random_actions(self) -> Any:
        """A uniformly drawn legal action for every game (compiled, seeded by ``reset``)."""
        return self.batch.random_actions()

    def _give(self, name: str, rows: Any = None) -> Any:
        """The batch's array ``name``: a copy (of ``rows``, zeros elsewhere, as
        ``SyncVectorEnv`` gives ``final_obs``), or with ``copy=False`` the array itself."""
        array = getattr(self.batch, name)
        return array if self._copies is None else self._copies.of(name, array, rows)

    def _infos(self) -> dict[str, Any]:
        batch = self.batch
        return {
            "action_mask": self._give("masks"),
            "to_act": batch.to_act.copy(),
            "rewards": batch.rewards.copy(),
        }


register()
