"""The OpenSpiel adapter: OpenSpiel's own consistency checks, step-by-step agreement with
boardlab, parameters, serialization, and OpenSpiel's MCTS bots playing the games."""

from __future__ import annotations

import pickle
import random
import subprocess
import sys
from typing import Any

import pytest

from optional import need

pyspiel = need("pyspiel")

import boardlab  # noqa: E402
from boardlab.extras import MissingExtraError  # noqa: E402
from boardlab.rl import openspiel  # noqa: E402

GAMES = boardlab.game_ids()

#: Option sets per game (beside the defaults) that change how the game plays.
OPTION_SETS: dict[str, list[dict[str, Any]]] = {
    "jinli": [
        {"stones": 6},
        {"recycle": True, "no_move": "lose", "stones": 3},
        {"start": "inset", "first": "yellow", "target": 15, "max_turns": 60},
        {"stones": 0, "max_turns": 20},
    ],
    "linja": [
        {"ruleset": "extra-turn"},
        {"nasty": True, "goal_step_back": True, "bonus_after_opening": True},
        {"scoring": "positive", "first": "red", "max_turns": 15},
    ],
    "galatjang": [
        {"pits": 4, "seeds": 3, "rounds": 3, "round_starter": "alternate"},
        {"skip_origin": True, "sow_opponent_store": False, "lone_seed": "stay", "first": "north"},
        {"rounds": 2, "refill": "far_end", "round_starter": "loser", "max_turns": 40},
    ],
}
CASES = [(g, {}) for g in GAMES] + [(g, o) for g in GAMES for o in OPTION_SETS.get(g, [])]
IDS = [f"{g}-{','.join(f'{k}={v}' for k, v in o.items()) or 'default'}" for g, o in CASES]
#: Short games for the search bots (the full-length defaults take too long in Python).
SHORT = {"jinli": {"max_turns": 30}, "linja": {"max_turns": 20}, "galatjang": {}}


@pytest.fixture(scope="module", autouse=True)
def registered() -> list[str]:
    return openspiel.register()


def test_register_names_every_game_and_is_idempotent(registered: list[str]) -> None:
    assert registered == [f"boardlab_{g}" for g in GAMES]
    assert openspiel.register() == registered
    names = pyspiel.registered_names()
    assert all(name in names for name in registered)


def test_pyspiel_is_imported_only_when_asked_for() -> None:
    # The process must also exit cleanly: pyspiel drops the game creators after Python
    # has shut down, which crashed it when a creator was a function.
    code = (
        "import sys, boardlab, boardlab.ai, boardlab.cli, boardlab.rl.openspiel as o; "
        "assert 'pyspiel' not in sys.modules; o.register(); assert 'pyspiel' in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_clear_error_without_openspiel(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyspiel", None)
    message = r"needs OpenSpiel: pip install 'boardlab\[openspiel\]'"
    with pytest.raises(MissingExtraError, match=message):
        openspiel.register()


@pytest.mark.parametrize("game_id", GAMES)
def test_game_type_and_info(game_id: str) -> None:
    game = pyspiel.load_game(f"boardlab_{game_id}")
    bl = boardlab.new_game(game_id)
    kind = game.get_type()
    assert kind.short_name == f"boardlab_{game_id}"
    assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC
    assert kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM
    assert kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert kind.provides_observation_string and kind.provides_information_state_string
    assert kind.provides_observation_tensor
    assert kind.parameter_specification == bl.schema.defaults()
    assert game.num_players() == 2
    assert game.num_distinct_actions() == bl.num_actions
    assert game.max_game_length() == bl.max_actions
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (-1.0, 1.0, 0.0)
    assert game.get_parameters() == dict(bl.options)


@pytest.mark.parametrize(("game_id", "options"), CASES, ids=IDS)
def test_openspiel_random_sim_test(game_id: str, options: dict[str, Any]) -> None:
    game = openspiel.load(game_id, **options)
    pyspiel.random_sim_test(game, num_sims=8, serialize=False, verbose=False)
    pyspiel.random_sim_test(game, num_sims=4, serialize=True, verbose=False)


@pytest.mark.parametrize(("game_id", "options"), CASES, ids=IDS)
def test_random_games_agree_with_boardlab(game_id: str, options: dict[str, Any]) -> None:
    game = pyspiel.load_game(f"boardlab_{game_id}", options)
    bl = boardlab.new_game(game_id, options)
    rng = random.Random(f"{game_id}{options}")
    size = len(game.new_initial_state().observation_tensor(0))
    for _ in range(4):
        state, position = game.new_initial_state(), bl.initial()
        while not position.is_over():
            assert not state.is_terminal()
            assert state.current_player() == position.to_act
            assert str(state) == position.position_string()
            assert state.observation_string(0) == state.information_state_string(1) == str(state)
            assert len(state.observation_tensor(1)) == size
            for seat in (0, 1):
                expected = bl.observation(position.state, seat)
                assert state.observation_tensor(seat) == pytest.approx(expected)
            assert state.rewards() == state.returns() == [0.0, 0.0]
            legal = state.legal_actions()
            assert legal == list(position.legal_actions())
            player = state.current_player()
            assert [state.action_to_string(player, a) for a in legal] == (
                position.legal_action_strings()
            )
            assert state.legal_actions(1 - player) == []
            action = rng.choice(legal)
            state.apply_action(action)
            position = position.play(action)
        assert state.is_terminal()
        assert state.current_player() == pyspiel.PlayerId.TERMINAL
        assert state.legal_actions() == []
        assert str(state) == position.position_string()
        outcome = position.outcome()
        assert outcome is not None
        expected = {None: [0.0, 0.0], 0: [1.0, -1.0], 1: [-1.0, 1.0]}[outcome.winner]
        assert state.returns() == expected
        assert state.rewards() == expected
        assert len(state.history()) <= game.max_game_length()
        assert openspiel.boardlab_position(state) == position


def test_parameters_reach_the_boardlab_game() -> None:
    six = pyspiel.load_game("boardlab_jinli", {"stones": 6})
    assert str(six.new_initial_state()) == "Y5Y/7/7/7/7/7/R5R r m 6/6 0/0 0 0"
    assert str(pyspiel.load_game("boardlab_jinli(stones=6)").new_initial_state()) == str(
        six.new_initial_state()
    )
    assert str(openspiel.load("jinli", stones="6").new_initial_state()) == str(
        six.new_initial_state()
    )
    linja = pyspiel.load_game("boardlab_linja", {"ruleset": "extra-turn", "first": "red"})
    assert linja.get_parameters()["ruleset"] == "extra-turn"
    assert linja.new_initial_state().current_player() == 1
    assert openspiel.load("boardlab_linja", max_turns=7).max_game_length() == 3 * 7
    galatjang = pyspiel.load_game("boardlab_galatjang", {"pits": 4, "seeds": 3})
    assert galatjang.num_distinct_actions() == 4
    assert str(galatjang.new_initial_state()) == "3,3,3,3/3,3,3,3 0/0 s 1 0"


def test_bad_parameters_raise_clear_errors() -> None:
    with pytest.raises(ValueError, match=r"boardlab_linja: bad value 'foo' for option 'ruleset'"):
        pyspiel.load_game("boardlab_linja", {"ruleset": "foo"})
    with pytest.raises(ValueError, match=r"expected an integer from 0 to 22"):
        pyspiel.load_game("boardlab_jinli", {"stones": 99})
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'stones'"):
        pyspiel.load_game("boardlab_linja", {"stones": 3})
    with pytest.raises(pyspiel.SpielError, match="Wrong type for parameter pits"):
        pyspiel.load_game("boardlab_galatjang", {"pits": "four"})
    with pytest.raises(boardlab.OptionError, match="unknown option 'stones' of linja"):
        openspiel.load("linja", stones=3)
    with pytest.raises(boardlab.UnknownGameError):
        openspiel.load("chess")


@pytest.mark.parametrize("game_id", GAMES)
def test_illegal_actions_are_refused(game_id: str) -> None:
    state, rng = pyspiel.load_game(f"boardlab_{game_id}").new_initial_state(), random.Random(3)
    while len(state.legal_actions()) == state.num_distinct_actions():  # Galatjang's start
        state.apply_action(rng.choice(state.legal_actions()))
    illegal = next(a for a in range(state.num_distinct_actions()) if a not in state.legal_actions())
    before = str(state)
    with pytest.raises(boardlab.IllegalActionError, match="legal actions are"):
        state.apply_action(illegal)
    assert str(state) == before


@pytest.mark.parametrize("game_id", GAMES)
def test_clone_serialize_pickle_and_positions(game_id: str) -> None:
    game = openspiel.load(game_id, **OPTION_SETS[game_id][0])
    state, rng = game.new_initial_state(), random.Random(7)
    for _ in range(12):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    clone = state.clone()
    assert str(clone) == str(state) and clone.history() == state.history()
    if not clone.is_terminal():
        clone.apply_action(clone.legal_actions()[0])
        assert str(clone) != str(state) or clone.history() != state.history()
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(game2) == str(game)
    assert str(state2) == str(state) and state2.history() == state.history()
    assert state2.legal_actions() == state.legal_actions()
    assert str(pickle.loads(pickle.dumps(state))) == str(state)
    assert str(pickle.loads(pickle.dumps(game))) == str(game)
    fresh = game.new_initial_state(str(state))
    assert str(fresh) == str(state) and fresh.legal_actions() == state.legal_actions()
    with pytest.raises(boardlab.InvalidNotationError):
        game.new_initial_state("not a position")


def test_jinli_observation_tensor_spreads_the_bitboards() -> None:
    state = pyspiel.load_game("boardlab_jinli").new_initial_state()
    tensor = state.observation_tensor(0)
    assert len(tensor) == 3 * 49 + 11
    red, yellow, stones = tensor[:49], tensor[49:98], tensor[98:147]  # Red to act: his first
    assert [i for i, bit in enumerate(red) if bit] == [0, 6]
    assert [i for i, bit in enumerate(yellow) if bit] == [42, 48]
    assert sum(stones) == 0
    # full supplies, no points, a swim due, no passes, no turns, Red observes and acts
    assert tensor[147:] == [1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1]
    yellow_view = state.observation_tensor(1)
    assert yellow_view[:49] == yellow and yellow_view[49:98] == red
    assert yellow_view[156:] == [1, 0]  # Yellow observes, Red acts


@pytest.mark.parametrize("game_id", GAMES)
def test_python_mcts_bot_plays_a_legal_game(game_id: str) -> None:
    np = need("numpy")
    from open_spiel.python.algorithms import mcts

    game = openspiel.load(game_id, **SHORT[game_id])
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(1))
    bot = mcts.MCTSBot(game, 1.4, 12, evaluator, random_state=np.random.RandomState(2), solve=True)
    state, position = game.new_initial_state(), boardlab.new_game(game_id, SHORT[game_id]).initial()
    while not state.is_terminal():
        action = bot.step(state)
        position = position.play(action)  # refuses an illegal action
        state.apply_action(action)
    assert position.is_over() and str(state) == position.position_string()
    assert sum(state.returns()) == 0


@pytest.mark.parametrize("game_id", GAMES)
def test_cpp_mcts_bot_plays_a_legal_game(game_id: str) -> None:
    """The C++ MCTSBot takes a Python game, but its ``step`` releases the GIL and crashes
    on every Python game (OpenSpiel's own python_tic_tac_toe too, pyspiel 2.0.2), so it is
    driven through ``mcts_search``, ``step_with_policy`` and ``evaluate_bots``."""
    game = openspiel.load(game_id, **SHORT[game_id])
    bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(1, 1), 1.4, 30, 50, True, 3, False)
    root = bot.mcts_search(game.new_initial_state())
    assert root.explore_count == 30
    assert root.best_child().action in game.new_initial_state().legal_actions()
    policy, action = bot.step_with_policy(game.new_initial_state())
    assert action in game.new_initial_state().legal_actions()
    assert sum(p for _, p in policy) == pytest.approx(1.0)
    state = game.new_initial_state()
    returns = pyspiel.evaluate_bots(state, [bot, pyspiel.make_uniform_random_bot(1, 5)], 11)
    assert state.is_terminal() and returns == state.returns() and sum(returns) == 0
    position = boardlab.new_game(game_id, SHORT[game_id]).initial()
    assert str(position.play_all(state.history())) == str(state)


@pytest.mark.parametrize("game_id", GAMES)
def test_openspiel_s_rl_environment_sees_our_observations(game_id: str) -> None:
    from open_spiel.python import rl_environment

    game = openspiel.load(game_id, **SHORT[game_id])
    env = rl_environment.Environment(
        game, observation_type=rl_environment.ObservationType.OBSERVATION
    )
    bl, rng = boardlab.new_game(game_id, SHORT[game_id]), random.Random(3)
    step, position = env.reset(), bl.initial()
    while not step.last():
        player = step.observations["current_player"]
        for seat in (0, 1):
            seen = step.observations["info_state"][seat]
            assert seen == pytest.approx(bl.observation(position.state, seat))
        action = rng.choice(step.observations["legal_actions"][player])
        step, position = env.step([action]), position.play(action)
    outcome = position.outcome()
    assert outcome is not None
    assert step.rewards == [2 * outcome.score(p) - 1 for p in (0, 1)]
