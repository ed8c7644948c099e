"""Puzzles proven by the solvers: the criterion, the solution tree, the file, the
re-proof and the command (docs/puzzles.md)."""

from __future__ import annotations

import dataclasses
import gzip
from pathlib import Path
from typing import Any

import pytest

import boardlab
from boardlab.cli import main
from boardlab.puzzles.check import PuzzleError, check_puzzle, check_puzzles
from boardlab.puzzles.make import (
    MIN_MARGIN,
    Prover,
    best_defence,
    judge,
    make_one,
    make_puzzles,
    margin,
    why_not,
)
from boardlab.puzzles.puzzle import Puzzle, Step, read_puzzles, shipped_path, write_puzzles
from boardlab.solve import exact_values
from optional import need

need("numba")

GAME = boardlab.new_game("galatjang")
#: Hand-checked endgames, with their exact values as the solver gives them.
ONE_BEST = "3,0,1,2,0,0/0,3,0,2,0,13 20/28 s 1 6"  # s1 -4, s3 -10, s4 -12
TWO_BEST = "0,0,0,0,0,1/0,1,0,4,1,13 23/29 n 1 9"  # n2 8, n4 6, n5 4, n6 8
WITH_REPLY = "0,0,2,1,3,0/0,1,0,3,0,0 30/32 s 1 4"  # s3, then n1 (0; n3 and n5 -2), s6
TIED_REPLIES = "2,1,0,0,1,8/0,1,0,0,1,0 39/19 s 1 10"  # s1, then n2 or n5 (both -30)


#: The game the generation tests play: 5 pits of 5 seeds find as many puzzles as the
#: default board in a quarter of its time (6 s against 25).
SMALL = boardlab.new_game("galatjang", pits=5, seeds=5)


@pytest.fixture(scope="module")
def made() -> list[Puzzle]:
    puzzles, tally = make_puzzles(SMALL, 6, seed=3, max_games=4)
    assert tally.puzzles == len(puzzles) > 0
    assert tally.candidates >= tally.puzzles
    return puzzles


def named(state: Any, values: dict[int, int]) -> dict[str, int]:
    return {GAME.format_action(state, a): v for a, v in values.items()}


def test_the_margin_is_a_twelfth_of_the_pieces_in_play() -> None:
    assert margin(GAME) == 72 // 12
    assert margin(boardlab.new_game("galatjang", pits=1, seeds=1)) == MIN_MARGIN


def test_one_best_action_makes_a_puzzle() -> None:
    state = GAME.parse_state(ONE_BEST)
    values = exact_values(GAME, state)
    assert values is not None
    assert named(state, values) == {"s1": -4, "s3": -10, "s4": -12}
    verdict = judge(values, margin(GAME))
    assert verdict.is_puzzle()  # -10 is exactly the margin below: wrong, not near
    found = Prover(GAME).tree(state)
    assert found is not None
    tree, value, _themes = found
    assert value == -4
    assert [a for a, _after in tree.answers] == ["s1"]


def test_two_equally_best_actions_at_the_root_make_none() -> None:
    state = GAME.parse_state(TWO_BEST)
    values = exact_values(GAME, state)
    assert values is not None
    assert named(state, values) == {"n2": 8, "n4": 6, "n5": 4, "n6": 8}
    assert not judge(values, margin(GAME)).is_puzzle()
    assert Prover(GAME).tree(state) is None


def test_the_criterion_by_class_and_margin() -> None:
    assert judge({0: 1, 1: 0, 2: -1}, 6).is_puzzle()  # a win against a draw: any margin
    assert not judge({0: 5, 1: 3, 2: -9}, 6).is_puzzle()  # 3 wins almost as much
    assert judge({0: 12, 1: 6, 2: -9}, 6).is_puzzle()  # 6 below: clearly less
    assert not judge({0: 4, 1: 4, 2: -2}, 6).is_puzzle()  # two right answers
    assert judge({0: 4, 1: 4, 2: -2}, 6).is_step()  # both accepted later in a puzzle
    assert not judge({0: -2, 1: -3}, 6).is_step()  # a loss either way, by about as much
    assert best_defence({3: 5, 1: 7, 2: 7}) == 1


def walk(state: Any, step: Step, player: int, lines: list[list[str]], line: list[str]) -> None:
    """Every right answer has the best value; every reply is legal and the best defence."""
    values = exact_values(GAME, state)
    assert values is not None
    best = max(values.values())
    if step.reply is None:
        assert GAME.to_act(state) == player
        answers = {GAME.parse_action(state, text): after for text, after in step.answers}
        assert {a for a, v in values.items() if v == best} == set(answers)
        for action, after in answers.items():
            text = GAME.format_action(state, action)
            if after is None:
                lines.append([*line, text])
            else:
                walk(GAME.apply(state, action), after, player, lines, [*line, text])
        return
    assert GAME.to_act(state) != player
    reply = GAME.parse_action(state, step.reply)  # raises if illegal
    assert values[reply] == best
    assert step.then is not None
    walk(GAME.apply(state, reply), step.then, player, lines, [*line, step.reply])


def test_generated_puzzles_are_proven(made: list[Puzzle]) -> None:
    assert check_puzzles(made)[0] == len(made)
    for puzzle in made:
        state = GAME.parse_state(puzzle.position)
        assert GAME.to_act(state) == puzzle.player
        lines: list[list[str]] = []
        walk(state, puzzle.tree, puzzle.player, lines, [])
        assert lines and all(lines)
        assert 600 <= puzzle.rating <= 2100 and puzzle.rating == 600 + 300 * len(puzzle.failed)


def test_the_file_round_trips(made: list[Puzzle], tmp_path: Path) -> None:
    packed = tmp_path / "p.jsonl.gz"
    plain = tmp_path / "p.jsonl"
    assert write_puzzles(packed, made) == len(made)
    write_puzzles(plain, made)
    assert read_puzzles(packed) == made == read_puzzles(plain)
    first = packed.read_bytes()
    write_puzzles(packed, made)
    assert packed.read_bytes() == first  # no time stamp in the gzip header
    assert gzip.decompress(first).decode() == plain.read_text()


def test_a_bad_line_is_named(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text('\n{"id": "x"}\n')
    with pytest.raises(boardlab.BoardlabError, match=r"bad.jsonl, line 2: not a puzzle"):
        read_puzzles(path)


def with_tree(puzzle: Puzzle, tree: Step) -> Puzzle:
    return dataclasses.replace(puzzle, tree=tree)


def test_check_catches_a_non_best_answer(made: list[Puzzle]) -> None:
    puzzle = made[0]
    state = SMALL.parse_state(puzzle.position)
    values = exact_values(SMALL, state)
    assert values is not None
    worse = min(values, key=lambda a: values[a])
    text = SMALL.format_action(state, worse)
    bad = with_tree(puzzle, Step(answers=((text, None),)))
    with pytest.raises(PuzzleError, match=rf"puzzle {puzzle.id}, at its position: the answer "):
        check_puzzle(bad)
    right = puzzle.tree.answers[0]
    both = with_tree(puzzle, Step(answers=(right, (text, None))))
    with pytest.raises(PuzzleError, match=rf"the answer {text} is worth"):
        check_puzzle(both)


def test_check_catches_a_wrong_reply() -> None:
    state = GAME.parse_state(WITH_REPLY)
    puzzle = make_one(Prover(GAME), state, "test", 0)
    assert puzzle is not None
    assert puzzle.tree.main_line() == ["s3", "n1", "s6"]
    check_puzzle(puzzle)
    reply = puzzle.tree.answers[0][1]
    assert reply is not None and reply.reply == "n1"
    after = GAME.from_position_string(WITH_REPLY).play("s3").state
    values = exact_values(GAME, after)
    assert values is not None
    assert named(after, values) == {"n1": 0, "n3": -2, "n5": -2}
    for other in ("n3", "n5", "n4"):  # worse for North, worse, illegal
        bad = with_tree(puzzle, Step(answers=(("s3", dataclasses.replace(reply, reply=other)),)))
        with pytest.raises(PuzzleError, match=rf"puzzle {puzzle.id}, after s3: "):
            check_puzzle(bad)


def test_equal_replies_are_broken_by_the_lowest_action() -> None:
    state = GAME.parse_state(TIED_REPLIES)
    found = Prover(GAME).tree(state)
    assert found is not None
    assert found[0].main_line()[:2] == ["s1", "n2"]
    after = GAME.from_position_string(TIED_REPLIES).play("s1").state
    values = exact_values(GAME, after)
    assert values is not None and named(after, values) == {"n2": -30, "n5": -30}


def test_check_catches_wrong_themes(made: list[Puzzle]) -> None:
    bad = dataclasses.replace(made[0], themes=("nonsense",))
    with pytest.raises(PuzzleError, match="the themes narrated are"):
        check_puzzle(bad)


def test_games_without_exact_values_say_why() -> None:
    assert why_not(GAME) is None
    assert why_not(boardlab.new_game("jinli")) is None  # its win search proves them
    from boardlab.solve import solver_class

    linja = boardlab.new_game("linja")
    solver = solver_class(linja)
    if solver is not None and not solver.table_exists(linja):
        reason = why_not(linja)
        assert reason is not None and "boardlab solve linja" in reason


def test_linja_without_its_table_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Where Linja's table is not built (CI), making or checking its puzzles says how to
    build it; simulated here with an empty table folder."""
    monkeypatch.setenv("BOARDLAB_TABLES", str(tmp_path))
    linja = boardlab.new_game("linja")
    reason = why_not(linja)
    assert reason is not None and "boardlab solve linja" in reason
    assert exact_values(linja, linja.initial_state()) is None
    assert main(["puzzles", "make", "linja", "--out", str(tmp_path / "l.jsonl.gz")]) == 2
    assert "boardlab solve linja" in capsys.readouterr().err
    assert main(["puzzles", "check", "linja", "--sample", "3"]) == 2
    assert "boardlab solve linja" in capsys.readouterr().err
    # every game: those proven here are, and the others say why not (CI: no table)
    assert main(["puzzles", "check", "--sample", "3"]) == 0
    said = capsys.readouterr().out
    assert "not proven here" in said and "boardlab solve linja" in said
    assert "3 puzzles proven again" in said


def test_the_command_makes_and_checks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "g.jsonl.gz"
    args = ["puzzles", "make", "galatjang", "--count", "2", "--seed", "3", "--out", str(out)]
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "candidate positions" in printed and "themes:" in printed
    assert len(read_puzzles(out)) == 2
    assert not list(tmp_path.glob("*.partial"))  # the checkpoint is gone when done
    assert main(["puzzles", "check", "--file", str(out)]) == 0
    assert "2 puzzles proven again" in capsys.readouterr().out
    assert main(["puzzles", "make"]) == 2
    assert "name the game" in capsys.readouterr().err


class Stop(Exception):
    pass


def test_a_run_resumes_from_its_checkpoint(made: list[Puzzle], tmp_path: Path) -> None:
    """A run cut short resumes from its checkpoint and makes what an unbroken run makes
    (the fixture's run, with the same seed): generation is reproducible."""
    out = tmp_path / "r.jsonl.gz"

    def stop(_line: str) -> None:
        raise Stop  # cut short after the first game that found puzzles

    with pytest.raises(Stop):
        make_puzzles(SMALL, 6, seed=3, out=out, report=stop, max_games=4)
    partial = out.with_name(out.name + ".partial")
    assert partial.exists() and not out.exists()
    assert 0 < len(read_puzzles(partial)) < len(made)
    resumed, tally = make_puzzles(SMALL, 6, seed=3, out=out, max_games=4)
    assert resumed == made == read_puzzles(out)
    assert tally.puzzles == len(made) and tally.games <= 4
    assert not partial.exists()


#: The games that ship puzzles in their package.
SHIPPING = [g for g in boardlab.game_ids() if shipped_path(boardlab.new_game(g)).exists()]


@pytest.mark.parametrize("game_id", SHIPPING)
def test_the_shipped_puzzles_play_through_the_engine(game_id: str) -> None:
    """Without the solver too (Linja's table is not built everywhere): every puzzle is
    of its game, its position parses with its player to act, and every action of its
    tree is legal where it is played, the game going on where the tree does."""
    puzzles = read_puzzles(shipped_path(boardlab.new_game(game_id)))
    assert len(puzzles) >= 100
    assert len({p.id for p in puzzles}) == len(puzzles)
    for puzzle in puzzles:
        assert puzzle.game == game_id
        game = puzzle.new_game()
        state = game.parse_state(puzzle.position)
        assert game.to_act(state) == puzzle.player
        assert 600 <= puzzle.rating <= 2100 and puzzle.rating == 600 + 300 * len(puzzle.failed)
        pending: list[tuple[Any, Step]] = [(state, puzzle.tree)]
        while pending:
            here, step = pending.pop()
            assert game.outcome_of(here) is None, puzzle.id
            if step.reply is not None:
                assert game.to_act(here) != puzzle.player, puzzle.id
                after = game.apply(here, game.parse_action(here, step.reply))
                assert step.then is not None, puzzle.id
                pending.append((after, step.then))
                continue
            assert game.to_act(here) == puzzle.player and step.answers, puzzle.id
            for text, then in step.answers:
                action = game.parse_action(here, text)
                assert action in game.legal_actions(here), (puzzle.id, text)
                if then is not None:
                    pending.append((game.apply(here, action), then))


@pytest.mark.parametrize("game_id", SHIPPING)
def test_the_shipped_puzzles_are_proven(game_id: str) -> None:
    """A sample proven again by the solver, where its values reach here: Linja's need
    its table (`boardlab solve linja`), not built in CI."""
    game = boardlab.new_game(game_id)
    reason = why_not(game)
    if reason is not None:
        pytest.skip(f"{game.name}'s puzzles are not proven here: {reason}")
    puzzles = read_puzzles(shipped_path(game))
    assert check_puzzles(puzzles, sample=25, seed=1)[0] == 25


def test_games_stored_by_the_server_are_looked_at_first(tmp_path: Path) -> None:
    need("sqlalchemy")
    from boardlab.web.data import NewGame
    from boardlab.web.puzzles import stored_positions
    from boardlab.web.store import Store

    url = f"sqlite:///{tmp_path / 'games.sqlite3'}"
    store = Store(url)
    try:
        line = GAME.from_position_string(WITH_REPLY)
        store.create(NewGame("galatjang", {}, ["human", "human"], "me", start=WITH_REPLY))
        store.create(NewGame("galatjang", {}, ["human", "easy"], "me", actions=["s2", "n5"]))
        store.create(NewGame("linja", {}, ["human", "human"], "me"))
    finally:
        store.close()
    made, tally = make_puzzles(GAME, 1, seed=3, max_games=1, stored=stored_positions(GAME, url))
    assert tally.games == 0  # found before any self-play
    assert [p.position for p in made] == [line.position_string()]
    assert made[0].source.startswith("stored game ") and made[0].source.endswith(" ply=0")
