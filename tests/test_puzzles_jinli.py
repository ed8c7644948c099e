"""Jin Li's forced wins found by search (``boardlab.games.jinli.wins``), and the puzzles
they prove (docs/puzzles.md)."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

import boardlab
from optional import need

need("numba")

from boardlab.core.i18n import use_language  # noqa: E402
from boardlab.games.jinli.wins import HORIZON, JinLiWins, reference_turns  # noqa: E402
from boardlab.puzzles.check import PuzzleError, check_puzzle, check_puzzles  # noqa: E402
from boardlab.puzzles.make import make_puzzles  # noqa: E402
from boardlab.puzzles.pick import explain, node_after, solver_values  # noqa: E402
from boardlab.puzzles.puzzle import Puzzle, Step, read_puzzles, shipped_path  # noqa: E402

GAME = boardlab.new_game("jinli")
#: The card's example: d3-d4 lands next to three koi, 7 + 3 = 10 points, the target.
WIN_IN_ONE = "7/7/2Y1Y2/7/3RR2/7/7 r m 4/4 7/6 0 30"


def late_positions(game: Any, count: int, seed: int, last: int) -> list[Any]:
    """Positions of the last ``last`` plies of seeded random games."""
    rng = random.Random(seed)
    found: list[Any] = []
    while len(found) < count:
        position = game.initial()
        states = []
        while not position.is_over():
            states.append(position.state)
            position = position.play(rng.choice(position.legal_actions()))
        found.extend(states[-last:])
    return found[:count]


def named(game: Any, state: Any, turns: dict[int, int | None]) -> dict[str, int | None]:
    return {game.format_action(state, a): n for a, n in turns.items()}


def test_a_landing_that_reaches_the_target_wins_in_one_turn() -> None:
    state = GAME.parse_state(WIN_IN_ONE)
    turns = named(GAME, state, JinLiWins(GAME).turns(state, 0, 1))
    assert turns["d3-d4"] == 1 and turns["d3-c3"] is None
    assert turns == named(GAME, state, reference_turns(GAME, state, 0, 1))
    assert named(GAME, state, JinLiWins(GAME).turns(state, 0, 2))["d3-d4"] == 1
    # Yellow, not to act, cannot win before Red's landing ends the game
    assert set(JinLiWins(GAME).turns(state, 1, 2).values()) == {None}


@pytest.mark.parametrize(
    ("options", "seed"),
    [({}, 1), ({}, 2), ({"max_turns": 24, "stones": 3}, 3), ({"no_move": "lose", "stones": 12}, 4)],
)
def test_the_search_agrees_with_a_plain_search_over_the_engine(
    options: dict[str, Any], seed: int
) -> None:
    """Every legal action's least turns to a forced win, for both players, within one
    and (where few stones are left to drop: the plain search is slow) two turns; the
    options put the turn cap and a stuck player's loss, which the search's shortcuts
    leave out, in play."""
    game = boardlab.new_game("jinli", **options)
    search = JinLiWins(game)
    compared = forced = twice = 0
    for state in late_positions(game, 24, seed, 8):
        horizons = (1, 2) if sum(state.supply) == 0 else (1,)
        for player in (0, 1):
            for horizon in horizons:
                found = search.turns(state, player, horizon)
                assert found == reference_turns(game, state, player, horizon), (
                    game.format_state(state),
                    player,
                    horizon,
                )
                compared += 1
                twice += horizon == 2
                forced += any(found.values())
    assert compared >= 48 and twice and forced  # some forced wins among them


@pytest.fixture(scope="module")
def made() -> list[Puzzle]:
    puzzles, tally = make_puzzles(GAME, 4, seed=1, max_games=13)
    assert tally.puzzles == len(puzzles) == 4 and tally.unreached == 0
    return puzzles


def solver_steps(puzzle: Puzzle) -> list[tuple[Any, Step, int]]:
    """Every step where the solver answers: its state, the step and his turns left."""
    state = GAME.parse_state(puzzle.position)
    found, pending = [], [(state, puzzle.tree, puzzle.value)]
    while pending:
        here, step, left = pending.pop()
        if step.reply is not None:
            assert step.then is not None
            pending.append((GAME.apply(here, GAME.parse_action(here, step.reply)), step.then, left))
            continue
        found.append((here, step, left))
        for text, then in step.answers:
            after = GAME.apply(here, GAME.parse_action(here, text))
            if then is not None:
                ends = GAME.to_act(after) != puzzle.player
                pending.append((after, then, left - 1 if ends else left))
    return found


def test_a_puzzle_has_one_action_that_forces_the_win(made: list[Puzzle]) -> None:
    """At the root, the search proves one action forces a win within its horizon and
    every other does not; the puzzle's value is the least number of turns it takes."""
    search = JinLiWins(GAME)
    assert check_puzzles(made)[0] == len(made)
    for puzzle in made:
        state = GAME.parse_state(puzzle.position)
        turns = search.turns(state, puzzle.player, HORIZON)
        forcing = {GAME.format_action(state, a): n for a, n in turns.items() if n}
        assert list(forcing) == [text for text, _then in puzzle.tree.answers]
        assert list(forcing.values()) == [puzzle.value]
        assert len(turns) >= 2


def test_every_answer_keeps_the_forced_win_and_the_lines_end_at_it(made: list[Puzzle]) -> None:
    search = JinLiWins(GAME)
    several = 0
    for puzzle in made:
        for state, step, left in solver_steps(puzzle):
            turns = search.turns(state, puzzle.player, left)
            keep = {GAME.format_action(state, a) for a, n in turns.items() if n}
            assert {text for text, _then in step.answers} == keep
            several += len(step.answers) > 1  # equally good answers, all accepted
            for text, then in step.answers:
                after = GAME.apply(state, GAME.parse_action(state, text))
                last = then is None and turns[GAME.parse_action(state, text)] == 1
                if last and GAME.to_act(after) != puzzle.player:  # the turn is over: won
                    outcome = GAME.outcome_of(after)
                    assert outcome is not None and outcome.winner == puzzle.player
    assert several


def test_check_refuses_an_answer_that_lets_the_win_slip(made: list[Puzzle]) -> None:
    puzzle = made[0]
    state = GAME.parse_state(puzzle.position)
    right = [text for text, _then in puzzle.tree.answers]
    wrong = next(
        a
        for a in GAME.from_position_string(puzzle.position).legal_action_strings()
        if a not in right
    )
    bad = dataclasses.replace(puzzle, tree=Step(answers=((wrong, None),)))
    with pytest.raises(PuzzleError, match=rf"the answer {wrong} is worth \+0"):
        check_puzzle(bad)
    both = dataclasses.replace(puzzle, tree=Step(answers=(*puzzle.tree.answers, (wrong, None))))
    with pytest.raises(PuzzleError, match=rf"the answer {wrong} is worth"):
        check_puzzle(both)
    longer = dataclasses.replace(puzzle, value=puzzle.value + 1)
    with pytest.raises(PuzzleError, match="the value is"):
        check_puzzle(longer)
    assert GAME.to_act(state) == puzzle.player


def test_why_says_the_win_slips_in_words(made: list[Puzzle]) -> None:
    puzzle = made[0]
    position = GAME.from_position_string(puzzle.position)
    right = [text for text, _then in puzzle.tree.answers]
    wrong = next(a for a in position.legal_action_strings() if a not in right)
    found = solver_values(position, position.parse_action(wrong))
    assert found["value"] == 0 and found["best"] == right
    assert found["best_value"] == puzzle.value
    said = explain(puzzle, [], found)
    opponent = GAME.player_name(1 - puzzle.player)
    turns = f"within {puzzle.value} turn" + ("s" if puzzle.value > 1 else "")
    assert said["sentence"] == (
        f"{wrong} lets the win slip: after it, {opponent} can stop you reaching 10 points; "
        f"the best, {right[0]}, forces the win {turns}."
    )
    good = explain(puzzle, [], solver_values(position, position.parse_action(right[0])))
    assert good["sentence"].startswith(f"{right[0]} is as good as the best: it forces the win")
    with use_language("de"):
        german = explain(puzzle, [], found)["sentence"]
    assert german.startswith(f"{wrong} verspielt den Sieg: danach kann ")
    assert "10 Punkte erreichst" in german and "erzwingt den Sieg" in german


def test_a_shipped_puzzle_accepts_an_equally_good_answer_later() -> None:
    """A shipped puzzle whose later step has several answers: each goes on from where
    it is played (``node_after``) and forces the win within the turns left."""
    path = shipped_path(GAME)
    if not path.exists():
        pytest.skip("Jin Li's puzzles are not made here")
    search = JinLiWins(GAME)
    for puzzle in read_puzzles(path):
        root = GAME.parse_state(puzzle.position)
        later = [s for s in solver_steps(puzzle) if s[0] != root and len(s[1].answers) > 1]
        if later:
            break
    else:
        pytest.fail("no shipped puzzle has equally good answers after its first")
    state, step, left = later[0]
    turns = search.turns(state, puzzle.player, left)
    for text, then in step.answers:
        assert turns[GAME.parse_action(state, text)] is not None
        line = [*line_to(puzzle, state), text]
        assert node_after(puzzle, line) == then
    check_puzzle(puzzle)


def line_to(puzzle: Puzzle, target: Any) -> list[str]:
    """The actions of the puzzle's tree from its position to ``target``."""
    pending = [(GAME.parse_state(puzzle.position), puzzle.tree, [])]
    while pending:
        here, step, line = pending.pop()
        if here == target:
            return line
        if step.reply is not None:
            assert step.then is not None
            after = GAME.apply(here, GAME.parse_action(here, step.reply))
            pending.append((after, step.then, [*line, step.reply]))
            continue
        for text, then in step.answers:
            if then is not None:
                after = GAME.apply(here, GAME.parse_action(here, text))
                pending.append((after, then, [*line, text]))
    raise AssertionError("not in the tree")
