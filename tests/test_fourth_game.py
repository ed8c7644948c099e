"""A fourth game, tic-tac-toe (tests/fourth_game.py), registered only here, goes through
the conformance suite, the kernel check (its kernel: tests/fourth_game_kernel.py) and
every tool: terminal play, match, analyze, perft, replay, records and the OpenSpiel
adapter. Nothing outside its module names it."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console

import boardlab
from boardlab import GameRecord
from boardlab.cli import main
from boardlab.core.registry import unregister
from boardlab.testing import check_game, check_kernel
from boardlab.ui.views import view
from fourth_game import TicTacToe
from optional import need

#: perft of tic-tac-toe from the empty grid, depths 1-9 (a won game has no children).
PERFT = [9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872]


@pytest.fixture(autouse=True)
def tictactoe() -> Iterator[type[TicTacToe]]:
    boardlab.register(TicTacToe)
    yield TicTacToe
    unregister(TicTacToe.id)


def run(args: list[str], capsys: pytest.CaptureFixture[str], stdin: str = "") -> tuple[int, str]:
    """The command in this process (where the game is registered): status and output."""
    import sys

    old = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        status = main(args)
    finally:
        sys.stdin = old
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    return status, captured.out + captured.err


def test_the_registry_lists_it_only_while_registered() -> None:
    assert boardlab.game_ids()[-1] == "tictactoe"
    assert boardlab.new_game("tictactoe", first="o").initial().player == "o"


def test_it_passes_the_shipped_conformance_suite() -> None:
    assert check_game("tictactoe", option_sets=12, games=4) > 0


def test_its_kernel_passes_the_shipped_kernel_check() -> None:
    need("numba")
    assert check_kernel("tictactoe", option_sets=12, games=4) > 12 * 4


def test_a_kernel_without_an_evaluation_plays_the_compiled_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``evaluate`` is optional in a kernel: the compiled MCTS plays one without it, and
    only the implicit minimax backups, which need it, are refused with a message."""
    need("numba")
    from boardlab.ai import make_agent

    (tmp_path / "bare_kernel.py").write_text(
        "from fourth_game_kernel import *  # noqa: F403\ndel evaluate  # noqa: F821\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("BOARDLAB_COMPILED", str(tmp_path / "compiled"))
    monkeypatch.setattr(TicTacToe, "kernel", "bare_kernel")
    game = boardlab.new_game("tictactoe")
    choice = make_agent("mcts:tree=compiled,iterations=3000", seed=1).choose(game.initial())
    assert choice.action in game.initial().legal_actions()
    backed = make_agent("mcts:tree=compiled,minimax=0.5", seed=1)
    with pytest.raises(boardlab.BoardlabError, match="needs an evaluation in the kernel of Tic"):
        backed.check(game)  # before a match starts its processes
    with pytest.raises(boardlab.BoardlabError, match="needs an evaluation in the kernel of Tic"):
        backed.choose(game.initial())


def test_perft_command_counts_every_depth(capsys: pytest.CaptureFixture[str]) -> None:
    for depth, count in enumerate(PERFT, 1):
        status, out = run(["perft", "tictactoe", "--depth", str(depth)], capsys)
        assert status == 0 and out.split() == [str(count)]
    status, out = run(["perft", "tictactoe", "-d", "2", "--divide"], capsys)
    assert out.splitlines()[0] == "a1: 8" and out.splitlines()[-1] == "72"
    # its kernel (tests/fourth_game_kernel.py) counts too, as the other games' do
    need("numba")
    status, out = run(["perft", "tictactoe", "-d", "9", "--engine", "compiled"], capsys)
    assert status == 0 and out.split() == [str(PERFT[-1])]


def test_terminal_play_with_piped_input(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    saved = tmp_path / "t.txt"
    typed = "moves\nhint\nb2\nundo\nb2\nsave " + str(saved) + "\nresign\nquit\n"
    status, out = run(["play", "tictactoe", "--o", "easy", "--seed", "1"], capsys, typed)
    assert status == 0
    assert "Tic-tac-toe. X: you, O: easy. Type help for help." in out
    assert "X, mark a square> " in out
    assert "Legal: a1  b1  c1  a2  b2  c2  a3  b3  c3" not in out  # letters are not numbers
    assert "Legal: 1. a1  2. b1  3. c1" in out
    assert "Hint: " in out and "X marks b2." in out and "Took back 2 actions." in out
    assert "O wins: resignation (X 0, O 0)." in out
    record = GameRecord.load(saved)
    assert record.game.id == "tictactoe" and record.action_strings()[0] == "b2"
    console = Console(width=80, no_color=True, record=True, file=io.StringIO())
    console.print(view(record.position, record.last_turn()))
    board = [line.rstrip() for line in console.export_text().strip("\n").splitlines()]
    assert "\n".join(board) in "\n".join(line.rstrip() for line in out.splitlines())
    assert any("X" in line for line in board[1:4])  # the mark on b2, drawn


def test_match_analyze_and_solve(capsys: pytest.CaptureFixture[str]) -> None:
    status, out = run(
        ["match", "tictactoe", "medium", "random", "--games", "6", "--jobs", "1"], capsys
    )
    assert status == 0 and "medium: " in out and "6 games" in out
    status, out = run(["analyze", "tictactoe", "--agent", "alphabeta:depth=9"], capsys)
    assert status == 0
    values = [line.split() for line in out.splitlines() if line.startswith("  ") and "." in line]
    assert values and all(float(row[1]) == 0.0 for row in values)  # every first mark draws
    status, out = run(
        ["analyze", "tictactoe", "-p", "xx./oo./... x 4", "--agent", "alphabeta"], capsys
    )
    assert status == 0 and "best: c3" in out
    status, out = run(["solve", "tictactoe"], capsys)
    assert status == 2 and "Tic-tac-toe has no solver" in out
    status, out = run(["match", "tictactoe", "perfect", "random", "-n", "2", "--jobs", "1"], capsys)
    assert status == 2 and "no perfect player for Tic-tac-toe" in out


def test_replay_and_records(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, out = run(["replay", "tictactoe"], capsys, "b2 a1 c3 a3 a2\n")
    assert status == 0
    assert out.splitlines() == ["o.x/xx./o.. o 5", "winner=none points=0/0 reason=none"]
    record = GameRecord(boardlab.new_game("tictactoe"), headers={"X": "ann", "O": "bo"})
    record.play_all(["a1", "a2", "b1", "b2", "c1"])
    outcome = record.outcome()
    assert outcome is not None and (outcome.winner, outcome.reason) == (0, "line")
    text, data = record.to_text(), record.to_json()
    assert GameRecord.from_text(text).position == record.position
    assert GameRecord.from_json(data).action_strings() == record.action_strings()
    assert json.loads(data)["game"] == "tictactoe"
    (tmp_path / "g.txt").write_text(text)
    status, out = run(["replay", str(tmp_path / "g.txt")], capsys)
    assert status == 0 and out.splitlines()[-1] == "winner=x points=1/0 reason=line"
    status, out = run(["replay", "tictactoe"], capsys, "b2 b2\n")
    assert status == 1 and "illegal action 'b2' in tictactoe position" in out


def test_openspiel_loads_and_simulates_it() -> None:
    pyspiel = need("pyspiel")
    from boardlab.rl import openspiel

    assert "boardlab_tictactoe" in openspiel.register()
    game = openspiel.load("tictactoe")
    pyspiel.random_sim_test(game, num_sims=10, serialize=True, verbose=False)
    state = game.new_initial_state("xx./oo./... x 4")
    assert state.legal_actions() == [0, 1, 2, 5, 8] and str(state) == "xx./oo./... x 4"
