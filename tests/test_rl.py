"""The PettingZoo and Gymnasium environments: their own checkers under several option sets,
and every step of random games against the engine (observations from both sides, masks,
whose turn, rewards)."""

from __future__ import annotations

import random
import sys
import weakref
from typing import Any

import pytest

from optional import need

need("pettingzoo")
gymnasium = need("gymnasium")

import numpy as np  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test, render_test, seed_test  # noqa: E402

import boardlab  # noqa: E402
from boardlab.core.errors import BoardlabError, IllegalActionError  # noqa: E402
from boardlab.extras import MissingExtraError  # noqa: E402
from boardlab.rl import gymnasium as boardlab_gym  # noqa: E402
from boardlab.rl import pettingzoo  # noqa: E402

GAMES = boardlab.game_ids()
#: Option sets per game that change how a game plays (several actions a turn, rounds).
OPTIONS: dict[str, list[dict[str, Any]]] = {
    "jinli": [{}, {"recycle": True, "stones": 3, "no_move": "lose"}, {"first": "yellow"}],
    "linja": [{}, {"ruleset": "extra-turn"}, {"nasty": True, "bonus_after_opening": True}],
    "galatjang": [{}, {"pits": 4, "seeds": 3, "rounds": 3}, {"first": "north", "pits": 3}],
}
CASES = [(game_id, options) for game_id in GAMES for options in OPTIONS[game_id]]
IDS = [f"{game_id}-{options}" for game_id, options in CASES]
#: What the checkers warn of any environment with PettingZoo's own board-game observation
#: (a dict of the observation and the action mask), which they name only for their own.
CHECKER_NOISE = [
    "ignore:Observation space for each agent probably should be:UserWarning",
    "ignore:Observation is not a NumPy array:UserWarning",
    "ignore::DeprecationWarning",
]


@pytest.mark.parametrize(("game_id", "options"), CASES, ids=IDS)
@pytest.mark.filterwarnings(*CHECKER_NOISE)
def test_pettingzoo_checkers_pass(game_id: str, options: dict[str, Any]) -> None:
    api_test(pettingzoo.env(game_id, **options), num_cycles=300)
    seed_test(lambda **kw: pettingzoo.env(game_id, **options, **kw), num_cycles=100)
    render_test(lambda render_mode=None: pettingzoo.env(game_id, render_mode, **options))


@pytest.mark.parametrize(("game_id", "options"), CASES, ids=IDS)
def test_pettingzoo_steps_are_the_engine_s(game_id: str, options: dict[str, Any]) -> None:
    game = boardlab.new_game(game_id, options)
    env = pettingzoo.env(game_id, **options)
    rng = random.Random(f"{game_id}{options}")
    for episode in range(6):
        env.reset(seed=episode)
        position = game.initial()
        for agent in env.agent_iter():
            observation, reward, termination, truncation, _ = env.last()
            player = env.possible_agents.index(agent)
            assert observation["observation"].tolist() == pytest.approx(
                game.observation(position.state, player)
            )
            other = env.possible_agents[1 - player]
            assert env.observe(other)["observation"].tolist() == pytest.approx(
                game.observation(position.state, 1 - player)
            )
            assert not truncation
            if termination:
                outcome = position.outcome()
                assert outcome is not None
                assert reward == 2 * outcome.score(player) - 1
                env.step(None)
                continue
            assert player == position.to_act and reward == 0
            legal = list(position.legal_actions())
            assert np.flatnonzero(observation["action_mask"]).tolist() == legal
            assert not env.observe(other)["action_mask"].any()
            action = rng.choice(legal)
            env.step(action)
            position = position.play(action)
        assert position.is_over() and env.agents == []


def test_pettingzoo_starts_anywhere_and_names_illegal_actions() -> None:
    env = pettingzoo.env("linja")
    env.reset(options={"position": "6,1,1,1,1,1,0,1/0,1,1,1,1,1,1,6 r o 0 3"})
    assert env.agent_selection == "player_1"
    with pytest.raises(IllegalActionError, match=r"illegal action 0 for player_1: .*7-6"):
        env.step(0)
    with pytest.raises(boardlab.InvalidNotationError, match="nonsense"):
        env.reset(options={"position": "nonsense"})
    with pytest.raises(ValueError, match="render_mode 'rgb_array'"):
        pettingzoo.env("linja", render_mode="rgb_array")
    with pytest.raises(boardlab.OptionError, match="pits"):
        pettingzoo.env("galatjang", pits=99)


# --------------------------------------------------------------------------- Gymnasium


@pytest.mark.parametrize(("game_id", "options"), CASES, ids=IDS)
def test_gymnasium_checker_passes(game_id: str, options: dict[str, Any]) -> None:
    env = gymnasium.make(boardlab_gym.env_id(game_id), opponent="easy", seat="random", **options)
    check_env(env.unwrapped, skip_render_check=True)


@pytest.mark.parametrize(("game_id", "options"), CASES, ids=IDS)
def test_gymnasium_steps_are_the_engine_s(game_id: str, options: dict[str, Any]) -> None:
    game = boardlab.new_game(game_id, options)
    rng = random.Random(f"gym{game_id}{options}")
    for seat in (0, 1):
        env = gymnasium.make(boardlab_gym.env_id(game_id), opponent="random", seat=seat, **options)
        observation, info = env.reset(seed=seat)
        position = game.from_position_string(info["position"])
        while True:
            assert position.to_act == seat
            assert observation.tolist() == pytest.approx(game.observation(position.state, seat))
            legal = list(position.legal_actions())
            assert np.flatnonzero(info["action_mask"]).tolist() == legal
            assert (
                env.unwrapped.action_masks().tolist() == info["action_mask"].astype(bool).tolist()
            )
            action = rng.choice(legal)
            observation, reward, terminated, truncated, info = env.step(action)
            after = position.play(action)
            reached = game.from_position_string(info["position"])
            # the opponent's actions lead from the learner's action to the next position
            assert any(p.state == reached.state for p in replies(after, seat))
            position = reached
            assert not truncated
            if terminated:
                outcome = position.outcome()
                assert outcome is not None and reward == 2 * outcome.score(seat) - 1
                assert info["reason"] == outcome.reason
                break
            assert reward == 0


def replies(position: Any, seat: int) -> list[Any]:
    """Every position the opponent can reach from ``position`` before ``seat`` acts again."""
    if position.is_over() or position.to_act == seat:
        return [position]
    return [p for a in position.legal_actions() for p in replies(position.play(a), seat)]


def test_gymnasium_is_deterministic_with_a_seed() -> None:
    runs = []
    for _ in range(2):
        env = gymnasium.make("boardlab/Galatjang-v0", opponent="medium", seat="random")
        _, info = env.reset(seed=7)
        env.action_space.seed(7)
        trail = [info["position"]]
        terminated = False
        while not terminated:
            action = env.action_space.sample(info["action_mask"])
            _, _, terminated, _, info = env.step(action)
            trail.append(info["position"])
        runs.append(trail)
    assert runs[0] == runs[1] and len(runs[0]) > 3


def test_gymnasium_illegal_actions_lose_or_raise() -> None:
    env = gymnasium.make("boardlab/Linja-v0", opponent="random")
    env.reset(seed=1)
    _, reward, terminated, _, info = env.step(127)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    with pytest.raises(BoardlabError, match="call reset"):
        env.unwrapped.step(0)
    strict = gymnasium.make("boardlab/Linja-v0", opponent="random", illegal="raise")
    strict.reset(seed=1)
    with pytest.raises(IllegalActionError, match="illegal action 127"):
        strict.step(127)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"opponent": "grandmaster"}, "grandmaster"),
        ({"seat": 2}, "seat 2: expected 0, 1 or 'random'"),
        ({"illegal": "ignore"}, "illegal='ignore'"),
        ({"stones": 99}, "stones"),
    ],
)
def test_gymnasium_bad_settings_are_named(settings: dict[str, Any], message: str) -> None:
    with pytest.raises((BoardlabError, ValueError), match=message):
        gymnasium.make("boardlab/JinLi-v0", **settings)


def test_a_clear_error_without_the_rl_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    for module in ("pettingzoo", "boardlab.rl.pettingzoo"):
        monkeypatch.delitem(sys.modules, module, raising=False)
    monkeypatch.setitem(sys.modules, "pettingzoo", None)
    with pytest.raises(MissingExtraError, match=r"pip install 'boardlab\[rl\]'"):
        import boardlab.rl.pettingzoo  # noqa: F401


@pytest.mark.parametrize("copy", [True, False])
@pytest.mark.parametrize("game_id", GAMES)
def test_the_vector_env_is_the_batch_with_the_mover_s_reward(game_id: str, copy: bool) -> None:
    from boardlab.fast.vector import Batch

    env = gymnasium.make_vec(
        boardlab_gym.env_id(game_id),
        num_envs=6,
        vectorization_mode="vector_entry_point",
        copy=copy,
    )
    own = env.unwrapped.batch.observations
    batch = Batch(boardlab.new_game(game_id), 6)
    observations, infos = env.reset(seed=2)
    ended = 0
    for _ in range(300):
        assert env.observation_space.contains(observations)
        assert (observations == batch.observations).all()
        assert (infos["action_mask"] == batch.masks).all()
        assert (infos["to_act"] == batch.to_act).all()
        actions = batch.random_actions()
        movers = batch.to_act.copy()
        batch.step(actions)
        observations, rewards, terminated, truncated, infos = env.step(actions)
        assert (observations is own) is not copy  # without copy: the batch's own array
        assert (rewards == batch.rewards[np.arange(6), movers]).all()
        assert (terminated == batch.ended).all() and not truncated.any()
        assert (infos["final_obs"][terminated] == batch.final_observations[terminated]).all()
        ended += int(terminated.sum())
    assert ended > 0


def test_vector_env_copies_stay_while_held_and_their_memory_serves_again() -> None:
    env = gymnasium.make_vec(
        boardlab_gym.env_id("jinli"), num_envs=8, vectorization_mode="vector_entry_point"
    )
    first, _ = env.reset(seed=3)
    kept = first.copy()
    handed = [weakref.ref(first)]  # every distinct array handed out as observations
    ended = 0
    for _ in range(200):
        observations, _, terminated, _, infos = env.step(env.unwrapped.random_actions())
        if not any(made() is observations for made in handed):
            handed.append(weakref.ref(observations))
        final = infos["final_obs"]
        assert not final[~terminated].any()  # zeros where no game ended, as SyncVectorEnv
        assert (final[terminated] == env.unwrapped.batch.final_observations[terminated]).all()
        ended += int(terminated.sum())
        del observations, final
    assert ended > 0
    assert (first == kept).all()  # held all along: never written again
    assert (env.unwrapped.batch.observations != kept).any()  # while the games moved on
    assert len(handed) <= boardlab_gym.Copies.KEPT  # released copies served later steps
