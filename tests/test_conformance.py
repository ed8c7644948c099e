"""One conformance suite, run over every registered game: a fourth game is checked the
same way. Each test pins a promise of the core API that every game must keep."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

import boardlab
from boardlab.core.game import Game
from boardlab.testing import ConformanceError, check_game
from support import option_values, random_game, random_options

GAMES = boardlab.game_ids()


def sample_games(game_id: str, count: int, seed: int) -> list[Game[Any]]:
    rng = random.Random(seed)
    return [boardlab.new_game(game_id)] + [
        boardlab.new_game(game_id, random_options(game_id, rng)) for _ in range(count - 1)
    ]


def test_every_game_is_registered() -> None:
    assert GAMES == ["jinli", "linja", "galatjang"]


@pytest.mark.parametrize("game_id", GAMES)
def test_game_declares_its_static_facts(game_id: str) -> None:
    cls = boardlab.game_class(game_id)
    assert cls.id == game_id
    assert len(cls.players) == 2 and len(set(cls.players)) == 2
    assert cls.name and cls.summary and cls.brief.strip()
    names = [o.name for o in cls.schema]
    assert len(names) == len(set(names)) and "max_turns" in names
    for option in cls.schema:
        assert option.description
        assert option.check(option.default) == option.default
        for value in option_values(game_id, option):
            assert option.parse(option.format(value)) == value
    game = cls()
    assert game.num_actions > 0 and game.max_actions > 0


@pytest.mark.parametrize("game_id", GAMES)
def test_creating_a_game_validates_options(game_id: str) -> None:
    with pytest.raises(boardlab.OptionError, match="unknown option 'colour'"):
        boardlab.new_game(game_id, colour="blue")
    with pytest.raises(boardlab.OptionError, match="max_turns"):
        boardlab.new_game(game_id, max_turns=0)
    with pytest.raises(boardlab.OptionError, match="max_turns"):
        boardlab.new_game(game_id, max_turns="many")
    assert boardlab.new_game(game_id, max_turns="7").options["max_turns"] == 7


@pytest.mark.parametrize("game_id", GAMES)
def test_games_with_equal_options_are_equal(game_id: str) -> None:
    a, b = boardlab.new_game(game_id), boardlab.new_game(game_id, max_turns=50)
    assert a == boardlab.new_game(game_id) and hash(a) == hash(boardlab.new_game(game_id))
    assert a != b
    assert a.initial() == boardlab.new_game(game_id).initial()


@pytest.mark.parametrize("game_id", GAMES)
def test_random_games_keep_every_api_promise(game_id: str) -> None:
    for index, game in enumerate(sample_games(game_id, 40, seed=7)):
        positions = random_game(game, random.Random(index))
        assert len(positions) - 1 <= game.max_actions
        for position in positions:
            text = position.position_string()
            assert game.from_position_string(text) == position
            assert game.from_position_string(text).position_string() == text
            assert hash(game.from_position_string(text)) == hash(position)
            assert isinstance(position.board(), str) and position.board()
            actions = position.legal_actions()
            assert list(actions) == sorted(set(actions))
            assert all(0 <= a < game.num_actions for a in actions)
            assert position.is_over() == (position.outcome() is not None)
            assert position.to_act in (0, 1)
            strings = position.legal_action_strings()
            assert len(set(strings)) == len(strings)
            for action, string in zip(actions, strings, strict=True):
                assert position.parse_action(string) == action
                assert position.parse_action(string.upper()) == action
        outcome = positions[-1].outcome()
        assert outcome is not None
        assert outcome.winner in (0, 1, None)
        assert outcome.winner_name in (*game.players, "draw")


@pytest.mark.parametrize("game_id", GAMES)
def test_play_refuses_every_illegal_action(game_id: str) -> None:
    game = boardlab.new_game(game_id)
    positions = random_game(game, random.Random(3))
    for position in positions[:-1:5]:
        legal = set(position.legal_actions())
        for action in range(game.num_actions):
            if action not in legal:
                with pytest.raises(boardlab.IllegalActionError, match="illegal action"):
                    position.play(action)
    with pytest.raises(boardlab.IllegalActionError, match="the game is over"):
        positions[-1].play(0)


@pytest.mark.parametrize("game_id", GAMES)
def test_play_unchecked_agrees_with_play(game_id: str) -> None:
    position = boardlab.new_game(game_id).initial()
    for action in position.legal_actions():
        assert position.play_unchecked(action) == position.play(action)


@pytest.mark.parametrize("game_id", GAMES)
def test_positions_are_immutable_values(game_id: str) -> None:
    position = boardlab.new_game(game_id).initial()
    after = position.play(position.legal_actions()[0])
    assert position == boardlab.new_game(game_id).initial()
    assert after != position
    assert len({position, after, boardlab.new_game(game_id).initial()}) == 2
    with pytest.raises(AttributeError):
        position.state = after.state  # type: ignore[misc]
    assert repr(position).startswith(f"<Position {game_id} ")


@pytest.mark.parametrize("game_id", GAMES)
def test_every_game_passes_the_shipped_conformance_suite(game_id: str) -> None:
    assert check_game(game_id, option_sets=16, games=3, seed=11) > 100


def test_the_suite_catches_a_broken_promise() -> None:
    """A game whose board model forgets who is to act fails, naming what broke."""
    cls = boardlab.game_class(GAMES[0])
    broken = type("Broken", (cls,), {"board_model": lambda self, state: replace(
        cls.board_model(self, state), to_act=None)})  # fmt: skip
    with pytest.raises(ConformanceError, match="not registered under its id"):
        check_game(broken, option_sets=1, games=1)
    boardlab.register(broken)  # in place of the real game, for this check only
    try:
        with pytest.raises(ConformanceError, match=rf"^{cls.id} at '.+': board's to_act$"):
            check_game(broken, option_sets=1, games=1)
    finally:
        boardlab.register(cls)
    assert boardlab.game_class(cls.id) is cls
