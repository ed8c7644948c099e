"""The ``openspiel`` agent: OpenSpiel's C++ MCTSBot playing boardlab games through the
adapter, legally, reproducibly, exactly where the game is small enough to prove."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from optional import need

need("pyspiel")

import boardlab  # noqa: E402
from boardlab.ai import Limit, make_agent  # noqa: E402
from boardlab.cli import main  # noqa: E402
from boardlab.core.errors import BoardlabError  # noqa: E402
from boardlab.extras import MissingExtraError  # noqa: E402
from fourth_game import TicTacToe  # noqa: E402
from support import minimax  # noqa: E402

GAMES = boardlab.game_ids()


@pytest.mark.parametrize("game_id", GAMES)
def test_plays_legal_games(game_id: str) -> None:
    """A whole game, both sides the agent on a short budget: every action legal, the
    reported figures within their ranges."""
    agents = [make_agent("openspiel:iterations=16", seed=seed) for seed in (1, 2)]
    position = boardlab.new_game(game_id).initial()
    for agent in agents:
        agent.check(position.game)
    while not position.is_over():
        choice = agents[position.to_act].choose(position)
        assert choice.action in position.legal_actions()
        assert choice.value is not None and -1 <= choice.value <= 1
        assert 1 <= choice.iterations <= 16
        position = position.play(choice.action)


def test_same_seed_same_choices() -> None:
    def choices(seed: int) -> list[Any]:
        agent = make_agent("openspiel:iterations=40,c=1.4,rollouts=2", seed=seed)
        position = boardlab.new_game(GAMES[0]).initial()
        made = []
        for _ in range(6):
            choice = agent.choose(position)
            made.append((choice.action, choice.value, choice.iterations, choice.action_values))
            position = position.play(choice.action)
        return made

    assert choices(3) == choices(3)


#: Small positions minimax solves (as tests/test_fast_mcts.py's SMALL), each with an
#: action that is not optimal, so that a wrong choice shows.
SMALL = [
    ("galatjang", {"pits": 3, "seeds": 2}, "2,2,2/2,2,2 0/0 s 1 0"),
    ("galatjang", {"pits": 2, "seeds": 3}, "3,3/3,3 0/0 n 1 0"),
    ("linja", {}, "0,0,0,1,0,0,1,10/11,0,0,0,1,0,0,0 b o 0 10"),
]


@pytest.mark.parametrize(("game_id", "options", "text"), SMALL)
@pytest.mark.parametrize("seed", [1, 2])
def test_small_positions_exactly(
    game_id: str, options: dict[str, Any], text: str, seed: int
) -> None:
    game = boardlab.new_game(game_id, options)
    position = game.from_position_string(text)
    value, per_action = minimax(game, position.state)
    assert len(set(per_action.values())) > 1  # some action is worse: a wrong choice shows
    choice = make_agent("openspiel:iterations=5000", seed=seed).choose(position)
    assert per_action[choice.action] == value
    assert choice.value == value  # proven by MCTS-Solver, for the player to act


def test_time_and_a_given_limit() -> None:
    position = boardlab.new_game(GAMES[0]).initial()
    choice = make_agent("openspiel:time=0.05", seed=1).choose(position)
    assert choice.iterations >= 1 and choice.action in position.legal_actions()
    given = make_agent("openspiel", seed=1).choose(position, Limit(iterations=3))
    assert given.iterations == 3


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("openspiel:rollouts=0", r"^bad rollouts 0 for agent 'openspiel': expected 1 or more$"),
        ("openspiel:iterations=0", r"^bad limit iterations=0: expected a number above 0$"),
        ("openspiel:time=0", r"^bad limit time=0.0: expected a number above 0$"),
        ("openspiel:c=two", r"^bad value 'two' for 'c' in agent 'openspiel:c=two': expected a"),
        ("openspiel:seeds=3", r"^bad agent parameter 'seeds=3' in 'openspiel:seeds=3': expected"),
    ],
)
def test_bad_parameters(spec: str, message: str) -> None:
    with pytest.raises(BoardlabError, match=message) as raised:
        make_agent(spec)
    assert "\n" not in str(raised.value)


def test_refuses_a_game_the_adapter_cannot_load() -> None:
    game = TicTacToe()  # not registered: the adapter cannot name it
    with pytest.raises(BoardlabError, match=r"^agent 'openspiel' cannot play Tic-tac-toe: ") as e:
        make_agent("openspiel").check(game)
    assert "\n" not in str(e.value)


def test_without_openspiel_one_line_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # as if not installed
    agent = make_agent("openspiel")  # the spec is read; playing needs the extra
    line = r"^agent 'openspiel' needs OpenSpiel: pip install 'boardlab\[openspiel\]'$"
    with pytest.raises(MissingExtraError, match=line):
        agent.check(boardlab.new_game(GAMES[0]))
    with pytest.raises(MissingExtraError, match=line):
        agent.choose(boardlab.new_game(GAMES[0]).initial())
    assert main(["match", GAMES[0], "openspiel", "random", "--games", "2"]) == 2
    shown = capsys.readouterr()
    assert shown.err.strip().splitlines() == [
        "boardlab: agent 'openspiel' needs OpenSpiel: pip install 'boardlab[openspiel]'"
    ]
