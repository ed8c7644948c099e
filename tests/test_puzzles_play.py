"""End-to-end tests of ``boardlab puzzles play``, puzzles in the terminal.

The program runs as a user runs it: ``python -m boardlab puzzles play ...`` in a
subprocess with piped input, its rating file in a temporary data directory
(``XDG_DATA_HOME``, which platformdirs honours). A puzzle is pointed at with ``--file``
(a file of one shipped puzzle), so that what to type is known from its tree.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from boardlab.core.registry import game_class
from boardlab.puzzles import glicko
from boardlab.puzzles.pick import puzzle_rating
from boardlab.puzzles.puzzle import Puzzle, Step, read_puzzles, shipped_path, write_puzzles
from optional import need

SRC = Path(__file__).resolve().parent.parent / "src"
TRACEBACK = "Traceback (most recent call last)"
TRY_MOVES = "Type `moves` for the legal actions or `help`."
SHIPPED = {p.id: p for p in read_puzzles(shipped_path(game_class("galatjang")))}
#: A puzzle where the opponent replies twice before the last move, which has two answers.
ALTERNATIVE = "galatjang-dba77d5df7"


def run(data: Path, *args: str, typed: str = "", **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k not in {"LANGUAGE", "LC_ALL", "LANG"}}
    environment.update(PYTHONPATH=str(SRC), XDG_DATA_HOME=str(data), COLUMNS="80", LANGUAGE="en")
    environment.update(env)
    return subprocess.run(
        [sys.executable, "-m", "boardlab", "puzzles", "play", *args],
        input=typed,
        capture_output=True,
        text=True,
        env=environment,
        timeout=300,
        check=False,
    )


def one_puzzle(tmp_path: Path, puzzle_id: str) -> Path:
    path = tmp_path / f"{puzzle_id}.jsonl"
    write_puzzles(path, [SHIPPED[puzzle_id]])
    return path


def answers_to_type(tree: Step, pick_last: bool = False) -> tuple[list[str], list[str]]:
    """The solver's moves to type along the main line (the last of the answers where
    ``pick_last``) and the replies that come between them."""
    typed: list[str] = []
    replies: list[str] = []
    step: Step | None = tree
    while step is not None:
        if step.reply is not None:
            replies.append(step.reply)
            step = step.then
            continue
        action, after = step.answers[-1 if pick_last else 0]
        typed.append(action)
        step = after
    return typed, replies


def kept(data: Path) -> dict[str, object]:
    result: dict[str, object] = json.loads((data / "boardlab" / "puzzles.json").read_text())
    return result


def with_a_reply() -> Puzzle:
    return next(p for p in SHIPPED.values() if answers_to_type(p.tree)[1])


def test_a_shipped_puzzle_solved_by_its_first_answers(tmp_path: Path) -> None:
    puzzle = with_a_reply()
    typed, replies = answers_to_type(puzzle.tree)
    done = run(
        tmp_path,
        "--file",
        str(one_puzzle(tmp_path, puzzle.id)),
        typed="\n".join(typed) + "\nquit\n",
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert TRACEBACK not in out + done.stderr
    assert f"puzzle {puzzle.id}: rating {puzzle.rating}" in out
    assert "Find the best move for" in out
    for reply in replies:
        assert f"replies {reply}" in out
    assert "Solved! Every move was the best." in out
    after, _puzzle = glicko.attempt(glicko.Rating(), puzzle_rating(puzzle), True)
    change = round(after.rating) - 1500
    assert f"Your rating: {round(after.rating)} ({change:+d}); streak 1 (best 1)." in out
    saved = kept(tmp_path)
    assert saved["streak"] == 1
    assert saved["recent"] == [puzzle.id]
    assert saved["rating"] == after.to_dict()


def test_an_equally_good_alternative_is_right(tmp_path: Path) -> None:
    puzzle = SHIPPED[ALTERNATIVE]
    first, _replies = answers_to_type(puzzle.tree)
    other, replies = answers_to_type(puzzle.tree, pick_last=True)
    assert first != other  # the tree has two answers at its last step
    file = one_puzzle(tmp_path, puzzle.id)
    done = run(tmp_path, "--file", str(file), typed="\n".join(other) + "\n")
    assert done.returncode == 0, done.stderr
    assert "Not the best" not in done.stdout
    assert "Solved! Every move was the best." in done.stdout
    for reply in replies:
        assert f"replies {reply}" in done.stdout


def test_a_wrong_answer_is_explained_and_costs_rating(tmp_path: Path) -> None:
    puzzle = with_a_reply()
    position = puzzle.new_game().from_position_string(puzzle.position)
    right = {a for a, _after in puzzle.tree.answers}
    wrong = next(s for s in position.legal_action_strings() if s not in right)
    typed = [wrong, "hint", *answers_to_type(puzzle.tree)[0]]
    done = run(tmp_path, "--file", str(one_puzzle(tmp_path, puzzle.id)), typed="\n".join(typed))
    out = done.stdout
    assert done.returncode == 0, done.stderr
    assert f"Not the best: {wrong} " in out
    first = puzzle.tree.answers[0][0]
    assert f"The solution: {' '.join(puzzle.tree.main_line())}" in out
    assert f"The right answer here: {first}" in out
    after, _puzzle = glicko.attempt(glicko.Rating(), puzzle_rating(puzzle), False)
    assert after.rating < 1500
    assert f"Your rating: {round(after.rating)} ({round(after.rating) - 1500:+d})" in out
    assert "Solved (not rated again)." in out  # played on to the end, rated once
    assert kept(tmp_path)["rating"] == after.to_dict()


def test_the_rating_is_kept_across_runs(tmp_path: Path) -> None:
    puzzle = with_a_reply()
    file = str(one_puzzle(tmp_path, puzzle.id))
    typed = "\n".join(answers_to_type(puzzle.tree)[0]) + "\nnext\n"
    run(tmp_path, "--file", file, typed=typed + "quit\n")
    first = glicko.Rating.from_dict(kept(tmp_path)["rating"])  # type: ignore[arg-type]
    done = run(tmp_path, "--file", file, typed=typed)
    second, _puzzle = glicko.attempt(first, puzzle_rating(puzzle), True)
    change = round(second.rating) - round(first.rating)
    assert f"Your rating: {round(second.rating)} ({change:+d}); streak 2 (best 2)." in done.stdout
    assert kept(tmp_path)["streak"] == 2
    # a run that plays nothing says the kept rating and leaves it
    done = run(tmp_path, "--file", file, typed="quit\n")
    assert f"Your rating: {round(second.rating)}; streak 2 (best 2)." in done.stdout


@pytest.mark.parametrize(
    "content",
    ["{not json", json.dumps({"rating": {"rating": 99999, "deviation": 50, "volatility": 0.06}})],
)
def test_a_corrupt_rating_file_is_set_aside_with_a_notice(tmp_path: Path, content: str) -> None:
    path = tmp_path / "boardlab" / "puzzles.json"
    path.parent.mkdir()
    path.write_text(content)
    puzzle = with_a_reply()
    done = run(tmp_path, "--file", str(one_puzzle(tmp_path, puzzle.id)), typed="quit\n")
    assert done.returncode == 0
    assert TRACEBACK not in done.stdout + done.stderr
    notices = [line for line in done.stdout.splitlines() if "is not a puzzle rating" in line]
    assert len(notices) == 1 and "starting from 1500" in notices[0]
    assert (path.parent / "puzzles.json.bad").read_text() == content
    assert kept(tmp_path)["rating"] == glicko.Rating().to_dict()


def test_bad_input_gets_one_line_and_the_prompt_again(tmp_path: Path) -> None:
    puzzle = with_a_reply()
    position = puzzle.new_game().from_position_string(puzzle.position)
    illegal = next(
        f"{side}{pit}"
        for side in "sn"
        for pit in range(1, 7)
        if f"{side}{pit}" not in position.legal_action_strings()
    )
    typed = ["gibberish!", illegal, "99", "moves", "quit"]
    done = run(tmp_path, "--file", str(one_puzzle(tmp_path, puzzle.id)), typed="\n".join(typed))
    out = done.stdout
    assert done.returncode == 0
    assert TRACEBACK not in out + done.stderr
    assert out.count(TRY_MOVES) == 3
    assert "invalid galatjang action 'gibberish!'" in out
    assert f"illegal action '{illegal}'" in out
    assert "Legal: " in out
    assert "Not the best" not in out  # nothing was rated
    assert not kept(tmp_path)["streak"]


@pytest.mark.parametrize("typed", ["quit\n", "", "moves\n"])
def test_quit_and_a_closed_input_leave_cleanly(tmp_path: Path, typed: str) -> None:
    done = run(tmp_path, "galatjang", "--seed", "3", typed=typed)
    assert done.returncode == 0
    assert done.stderr == ""
    assert "Your rating: 1500; streak 0 (best 0)." in done.stdout


def test_in_german(tmp_path: Path) -> None:
    puzzle = with_a_reply()
    file = str(one_puzzle(tmp_path, puzzle.id))
    typed = "\n".join([*answers_to_type(puzzle.tree)[0], "gibberish", "help"])
    for done in (
        run(tmp_path, "--file", file, "--lang", "de", typed=typed),
        run(tmp_path / "env", "--file", file, typed=typed, LANGUAGE="de"),
    ):
        out = done.stdout
        assert done.returncode == 0, done.stderr
        assert "Finde den besten Zug für" in out
        assert "Find the best" not in out and "Solved" not in out and "Your rating" not in out
        assert "Commands:" not in out


def test_no_puzzles_says_why(tmp_path: Path) -> None:
    empty = tmp_path / "none.jsonl"
    empty.write_text("")
    done = run(tmp_path, "--file", str(empty))
    assert done.returncode == 2
    assert done.stderr == "boardlab: there are no puzzles yet\n"
    done = run(tmp_path, "galatjang", "--theme", "nothing-like-it")
    assert done.returncode == 2
    assert "no puzzle has the theme 'nothing-like-it'" in done.stderr
    assert done.stderr.count("\n") == 1


def test_the_solution_played_fails_the_puzzle_and_next_moves_on(tmp_path: Path) -> None:
    puzzle = with_a_reply()
    done = run(
        tmp_path, "--file", str(one_puzzle(tmp_path, puzzle.id)), typed="solution\ns1\nnext\nquit\n"
    )
    out = done.stdout
    assert done.returncode == 0, done.stderr
    after, _puzzle = glicko.attempt(glicko.Rating(), puzzle_rating(puzzle), False)
    assert f"Your rating: {round(after.rating)} ({round(after.rating) - 1500:+d})" in out
    assert f"The solution: {' '.join(puzzle.tree.main_line())}" in out
    for reply in answers_to_type(puzzle.tree)[1]:
        assert f"replies {reply}" in out
    assert "This puzzle is over: type next for another, or quit." in out
    assert out.count(f"puzzle {puzzle.id}: rating") == 2  # the only one, again


def test_a_hint_before_any_try_leaves_the_puzzle_unrated(tmp_path: Path) -> None:
    puzzle = with_a_reply()
    typed = ["hint", *answers_to_type(puzzle.tree)[0], "solution", "quit"]
    done = run(tmp_path, "--file", str(one_puzzle(tmp_path, puzzle.id)), typed="\n".join(typed))
    assert "(A hint: this puzzle is no longer rated.)" in done.stdout
    assert "Hint: the best move is played at " in done.stdout
    assert "Solved (not rated again)." in done.stdout
    assert kept(tmp_path)["rating"] == glicko.Rating().to_dict()


def test_ctrl_c_leaves_without_a_traceback(tmp_path: Path) -> None:
    pexpect = need("pexpect")
    puzzle = with_a_reply()
    env = {k: v for k, v in os.environ.items() if k not in {"LANGUAGE", "LC_ALL", "LANG"}}
    env.update(PYTHONPATH=str(SRC), XDG_DATA_HOME=str(tmp_path), LANGUAGE="en", COLUMNS="80")
    child = pexpect.spawn(
        sys.executable,
        ["-m", "boardlab", "puzzles", "play", "--file", str(one_puzzle(tmp_path, puzzle.id))],
        env=env,
        encoding="utf-8",
        timeout=120,
        # A test run started in the background (`make test &`) ignores SIGINT, and the
        # child would inherit that: give it the default, as a terminal would.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    child.expect("sow a pit> ")
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert "Interrupted." in child.before
    assert TRACEBACK not in child.before
