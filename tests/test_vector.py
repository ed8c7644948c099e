"""The batched environment (``boardlab.fast.vector``) against the engine: every game of a
batch, at every step of many random games under random options, has the engine's state,
observation, mask, player to act, rewards and restarts."""

from __future__ import annotations

import importlib
import random
from typing import Any

import numpy as np
import pytest

import boardlab
from boardlab.core.errors import IllegalActionError
from boardlab.fast.vector import Batch
from support import random_options, same_without_jit


def follow(game: Any, batch: Batch, steps: int) -> int:
    """Step ``batch`` with its own random actions, mirroring every game with the engine;
    the number of games that ended."""
    kernel: Any = importlib.import_module(str(game.kernel))
    positions = [game.initial() for _ in range(batch.n)]
    ended = 0
    for _ in range(steps):
        for i, position in enumerate(positions):
            assert kernel.decode(game, batch.states[i]) == position.state
            assert batch.to_act[i] == position.to_act
            legal = list(position.legal_actions())
            assert np.flatnonzero(batch.masks[i]).tolist() == legal
            expected = game.observation(position.state)
            assert batch.observations[i].tolist() == pytest.approx(expected, abs=1e-7)
        actions = batch.random_actions()
        batch.step(actions)
        for i, action in enumerate(actions.tolist()):
            mover = positions[i].to_act
            after = positions[i].play(action)
            outcome = after.outcome()
            assert batch.ended[i] == (outcome is not None)
            if outcome is None:
                assert batch.rewards[i].tolist() == [0.0, 0.0]
                positions[i] = after
                continue
            ended += 1
            assert batch.rewards[i].tolist() == [2 * outcome.score(k) - 1 for k in (0, 1)]
            final = game.observation(after.state, mover)
            assert batch.final_observations[i].tolist() == pytest.approx(final, abs=1e-7)
            positions[i] = game.initial()
    return ended


@pytest.mark.parametrize("game_id", boardlab.game_ids())
def test_every_step_of_a_batch_is_the_engine_s(game_id: str) -> None:
    rng = random.Random(8)
    ended = 0
    for n in range(4):
        options = {} if n == 0 else random_options(game_id, rng)
        game = boardlab.new_game(game_id, options)
        ended += follow(game, Batch(game, 8, seed=n), 150)
    assert ended > 4  # games ended and started again inside the batch


@pytest.mark.parametrize("game_id", boardlab.game_ids())
def test_threads_change_nothing_but_speed(game_id: str) -> None:
    game = boardlab.new_game(game_id)
    one, two = Batch(game, 129, seed=3), Batch(game, 129, seed=3, threads=2)
    assert two.threads == 2
    for _ in range(200):
        actions = one.random_actions()
        assert (two.random_actions() == actions).all()
        one.step(actions)
        two.step(actions)
        for name in ("states", "observations", "masks", "to_act", "rewards", "ended"):
            assert (getattr(one, name) == getattr(two, name)).all(), name


@pytest.mark.parametrize("game_id", boardlab.game_ids())
@pytest.mark.parametrize("threads", [1, 2])
def test_random_steps_in_one_call_are_the_steps_one_by_one(game_id: str, threads: int) -> None:
    game = boardlab.new_game(game_id)
    calls, steps = Batch(game, 129, seed=5, threads=threads), Batch(game, 129, seed=5)
    ended = 0
    for k in (1, 7, 60):
        calls.play_random(k)
        for _ in range(k):
            steps.step(steps.random_actions())
            ended += int(steps.ended.sum())
        for name in ("states", "observations", "masks", "to_act", "rewards", "ended", "generators"):
            assert (getattr(calls, name) == getattr(steps, name)).all(), name
    assert ended > 0
    before = calls.states.copy()
    calls.play_random(0)
    for bad in (-1, 2.5, "3"):
        with pytest.raises(ValueError, match=f"whole number of steps, 0 or more, got {bad!r}"):
            calls.play_random(bad)  # type: ignore[arg-type]
    assert (calls.states == before).all()


def test_reset_starts_every_game_again() -> None:
    game = boardlab.new_game("galatjang")
    batch = Batch(game, 5, seed=1)
    fresh = batch.observations.copy()
    for _ in range(3):
        batch.step(batch.random_actions())
    assert (batch.observations != fresh).any()
    batch.reset()
    assert (batch.observations == fresh).all()
    assert (batch.states == batch.start).all()


@pytest.mark.parametrize("threads", [1, 2])
def test_an_illegal_action_changes_no_game(threads: int) -> None:
    game = boardlab.new_game("linja")
    batch = Batch(game, 128, seed=2, threads=threads)
    assert batch.threads == threads
    before = batch.states.copy()
    actions = batch.random_actions()
    actions[70] = 128  # pass, not legal at the start
    with pytest.raises(IllegalActionError, match=r"action 128 in game 70 of the batch \(1 illegal"):
        batch.step(actions)
    actions[1] = actions[127] = 129  # beyond the action space, in both halves
    with pytest.raises(IllegalActionError, match=r"action 129 in game 1 of the batch \(3 illegal"):
        batch.step(actions)
    for bad, why in (
        ([0, 1], "expected 128 integer actions"),
        (np.full(128, 1.5), "expected 128 integer actions"),
        (np.full(128, -1), "action -1 in game 0"),
        (np.full(128, 999), "action 999 in game 0"),
    ):
        with pytest.raises(IllegalActionError, match=why):
            batch.step(bad)
    assert (batch.states == before).all()
    with pytest.raises(ValueError, match="at least 1 game"):
        Batch(game, 0)


PLAIN = """
import boardlab
from boardlab.fast.vector import Batch
for game_id in boardlab.game_ids():
    batch = Batch(boardlab.new_game(game_id), 3, seed=4)
    for _ in range(60):
        batch.step(batch.random_actions())
    print(game_id, batch.states.tolist(), batch.observations.round(6).tolist())
"""


def test_the_batch_runs_as_plain_python() -> None:
    assert same_without_jit(PLAIN).count("\n") == len(boardlab.game_ids())
