"""Hypothesis property tests: invariants of every game under every option combination
the strategies reach (conservation, round trips, undo, termination within the caps)."""

from __future__ import annotations

import itertools
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

import boardlab
from boardlab.core.game import Game, Position
from boardlab.core.record import GameRecord
from boardlab.games.galatjang.rules import BLOCKED
from boardlab.games.jinli.rules import bits
from support import games_strategy, options_strategy, random_game


def jinli_conserved(position: Position[Any]) -> None:
    state, stones = position.state, int(position.game.options["stones"])
    assert len(bits(state.koi[0])) == 2 and len(bits(state.koi[1])) == 2
    assert not state.koi[0] & state.koi[1] and not (state.koi[0] | state.koi[1]) & state.stones
    assert len(bits(state.stones)) + sum(state.supply) == 2 * stones
    assert min(state.supply) >= 0


def linja_conserved(position: Position[Any]) -> None:
    black, red = position.state.counts
    assert sum(black) == 12 and sum(red) == 12
    assert min(black) >= 0 and min(red) >= 0
    assert all(black[r] + red[r] <= 6 for r in range(1, 7))


def galatjang_conserved(position: Position[Any]) -> None:
    options = position.game.options
    ring = position.state.ring
    assert sum(n for n in ring if n != BLOCKED) == 2 * int(options["pits"]) * int(options["seeds"])
    assert all(n >= 0 or n == BLOCKED for n in ring)


CONSERVED = {"jinli": jinli_conserved, "linja": linja_conserved, "galatjang": galatjang_conserved}


@given(game=games_strategy(), rng=st.randoms(use_true_random=False))
def test_every_game_conserves_its_material(game: Game[Any], rng: random.Random) -> None:
    for position in random_game(game, rng):
        CONSERVED[game.id](position)


@given(game=games_strategy(), rng=st.randoms(use_true_random=False))
def test_every_game_ends_within_its_caps(game: Game[Any], rng: random.Random) -> None:
    positions = random_game(game, rng)
    assert len(positions) - 1 <= game.max_actions
    assert all(p.turns <= int(game.options["max_turns"]) for p in positions)
    outcome = positions[-1].outcome()
    assert outcome is not None and outcome.points == positions[-1].points


@given(game=games_strategy(), rng=st.randoms(use_true_random=False))
def test_action_and_position_strings_round_trip(game: Game[Any], rng: random.Random) -> None:
    for position in random_game(game, rng):
        text = position.position_string()
        assert game.from_position_string(text).position_string() == text
        for action in position.legal_actions():
            assert position.parse_action(position.action_string(action)) == action


@given(game=games_strategy(), rng=st.randoms(use_true_random=False), cut=st.floats(0, 1))
def test_records_round_trip_in_both_formats(
    game: Game[Any], rng: random.Random, cut: float
) -> None:
    positions = random_game(game, rng)
    record = GameRecord(game, headers={"Date": "2026.11.21", "Event": 'a "test" game'})
    for before, after in itertools.pairwise(positions):
        record.play(next(a for a in before.legal_actions() if before.play(a) == after))
        if rng.random() < 0.1:
            record.comments[len(record)] = f"note {len(record)}"
    record.undo_to(int(cut * len(record)))
    for copy in (GameRecord.from_text(record.to_text()), GameRecord.from_json(record.to_json())):
        assert copy.game == record.game
        assert copy.actions == record.actions and copy.positions == record.positions
        assert copy.comments == record.comments
        assert copy.full_headers() == record.full_headers()
        assert copy.to_text() == record.to_text()


class UndoMachine(RuleBasedStateMachine):
    """Play and undo at random; the record must always equal a replay of its actions."""

    @initialize(game_id=st.sampled_from(boardlab.game_ids()), data=st.data())
    def start(self, game_id: str, data: st.DataObject) -> None:
        self.game = boardlab.new_game(game_id, data.draw(options_strategy(game_id)))
        self.record = GameRecord(self.game)
        self.history: list[Position[Any]] = [self.game.initial()]

    @precondition(lambda self: not self.record.position.is_over())
    @rule(data=st.data())
    def play(self, data: st.DataObject) -> None:
        action = data.draw(st.sampled_from(self.record.position.legal_actions()))
        self.history.append(self.record.play(action))

    @precondition(lambda self: len(self.record) > 0)
    @rule(data=st.data())
    def undo(self, data: st.DataObject) -> None:
        count = data.draw(st.integers(1, len(self.record)))
        self.record.undo(count)
        del self.history[len(self.history) - count :]

    @invariant()
    def record_is_its_replay(self) -> None:
        if not hasattr(self, "record"):
            return
        assert self.record.positions == self.history
        assert self.record.position == self.game.initial().play_all(self.record.actions)


UndoMachine.TestCase.settings = settings(max_examples=60, stateful_step_count=40, deadline=None)
test_undo_restores_the_exact_earlier_state = UndoMachine.TestCase
