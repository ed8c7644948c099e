"""The boardlab command: each subcommand's output, and bad input as one line on standard
error with a non-zero exit, never a traceback."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

import boardlab
from boardlab.cli import main
from boardlab.core.record import GameRecord

JINLI_GAME = "a1-b2 @d4 g7-f6 @c3"


def run(
    args: list[str], capsys: pytest.CaptureFixture[str], stdin: str = ""
) -> tuple[int, str, str]:
    sys.stdin = io.StringIO(stdin)
    try:
        status = main(args)
    finally:
        sys.stdin = sys.__stdin__
    out, err = capsys.readouterr()
    return status, out, err


def test_games_lists_every_game(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["games"], capsys)
    assert status == 0
    assert [line.split()[0] for line in out.splitlines()] == ["jinli", "linja", "galatjang"]


@pytest.mark.parametrize("game_id", ["jinli", "linja", "galatjang"])
def test_rules_lists_every_option_with_its_default(
    game_id: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import boardlab

    status, out, _ = run(["rules", game_id], capsys)
    assert status == 0
    for option in boardlab.game_class(game_id).schema:
        assert f"{option.name}" in out
        assert f"default {option.format(option.default)}" in out


def test_show_draws_the_board_and_the_position_string(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["show", "galatjang", "--option", "pits=3", "-o", "seeds=2"], capsys)
    assert status == 0
    assert out.splitlines()[-2:] == ["2,2,2/2,2,2 0/0 s 1 0", "legal: s1 s2 s3"]


def test_replay_prints_final_position_and_outcome(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["replay", "jinli"], capsys, stdin=JINLI_GAME)
    assert status == 0
    assert out.splitlines() == [
        "Y6/5Y1/7/3o3/2o4/1R5/6R r m 9/9 0/0 0 2",
        "winner=none points=0/0 reason=none",
    ]


def test_replay_of_a_finished_game_names_the_winner(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["replay", "jinli", "-o", "stones=0", "-o", "no_move=lose", "-o", "max_turns=3"]
    status, out, _ = run(args, capsys, stdin="a1-b2 g7-f6 b2-c3")
    assert status == 0
    assert out.splitlines()[1] == "winner=draw points=0/0 reason=turn_cap"


def test_replay_reads_a_record_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "game.txt"
    path.write_text('[Game "linja"]\n[Options "ruleset=extra-turn"]\n\n1. 0-1 1-3 *\n')
    status, out, _ = run(["replay", "linja", str(path)], capsys)
    assert status == 0
    assert out.splitlines()[0] == "5,1,1,2,1,1,1,0/0,1,1,1,1,1,1,6 r o 0 1"


def test_replay_reads_the_game_from_the_records_when_game_is_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "games.txt"
    path.write_text('[Game "linja"]\n\n1. 0-1 1-3 *\n\n[Game "galatjang"]\n\n1. s1 s2 *\n')
    status, out, _ = run(["replay", str(path)], capsys)
    assert status == 0
    assert out.splitlines()[::2] == [
        "5,1,1,2,1,1,1,0/0,1,1,1,1,1,1,6 r o 0 1",
        "1,0,8,8,8,8/7,0,7,7,0,7 10/1 n 1 1",
    ]


@pytest.mark.parametrize(
    ("text", "extra", "message"),
    [
        ("0-1 1-3", [], "the record has no Game tag: name the game"),
        ('[Game "linja"] 0-1', ["-o", "ruleset=extra-turn"], "--option and --position need"),
    ],
)
def test_replay_without_game_needs_a_game_tag_and_no_options(
    text: str, extra: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.txt"
    path.write_text(text)
    status, out, err = run(["replay", str(path), *extra], capsys)
    assert status == 2 and out == ""
    assert len(err.splitlines()) == 1 and message in err, err


def test_replay_from_a_position(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["replay", "galatjang", "--position", "0,0,1/1,0,0 8/8 s 1 3"]
    # s3 ends in South's store, but South has no seed left: North's turn. n1's seed lands
    # in the empty n2 facing an empty s2: the lone seed goes to North's store; South has
    # no seeds, the round (and the game) is over.
    status, out, _ = run(args, capsys, stdin="s3 n1")
    assert status == 0
    assert out.splitlines() == ["0,0,0/0,0,0 9/9 s 1 5", "winner=draw points=9/9 reason=no_seeds"]


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        ("a1-b2 @d4 a1-a2", "action 3 'a1-a2': illegal action"),
        ("a1-b2 @d9", "action 2 '@d9': invalid jinli action"),
        ("a1-b2 @d4 a7-d5", "action 3 'a7-d5': illegal jinli action"),
    ],
)
def test_replay_stops_at_a_bad_action_with_status_1(
    stdin: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(["replay", "jinli"], capsys, stdin=stdin)
    assert status == 1 and out == ""
    assert len(err.splitlines()) == 1 and message in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["show", "chess"], "unknown game 'chess': the games are jinli, linja, galatjang"),
        (["show", "jinli", "-o", "stones=99"], "bad value '99' for option 'stones'"),
        (["show", "jinli", "-o", "colour=red"], "unknown option 'colour' of jinli"),
        (["show", "jinli", "-o", "stones"], "malformed option 'stones': expected key=value"),
        (["show", "linja", "-p", "6,1/0,1 b o 0 0"], "malformed BLACK/RED"),
        (
            ["perft", "linja", "--depth", "x"],
            "--depth/-d: bad value 'x': expected an integer from 0 to 40",
        ),
        (["perft", "linja"], "the following arguments are required: --depth"),
        (
            ["perft", "linja", "--depth", "-1"],
            "--depth/-d: bad value '-1': expected an integer from 0 to 40",
        ),
        (["replay", "linja", "/no/such/file"], "No such file or directory: /no/such/file"),
        (
            ["match", "linja", "easy", "easy", "--games", "2", "--results", "/"],
            "boardlab: / is a folder, not a file: name a file",
        ),
        (["replay", "linja", "/"], "boardlab: / is a folder, not a file"),
        (["dance"], "invalid choice: 'dance'"),
    ],
)
def test_bad_input_gives_one_line_and_a_nonzero_exit(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(args, capsys)
    assert status == 2 and out == ""
    assert len(err.splitlines()) == 1 and message in err, err


@pytest.mark.parametrize(
    "args",
    [["--lang", "xx", "games"], ["games", "--lang", "xx"], ["--lang=xx", "show", "jinli"]],
)
def test_an_unknown_language_gives_one_line_naming_the_languages(
    args: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(args, capsys)
    assert status == 2 and out == ""
    assert err == "boardlab: unknown language 'xx': expected one of en, de\n"


def test_installed_command_never_shows_a_traceback() -> None:
    command = [sys.executable, "-m", "boardlab", "show", "galatjang", "-p", "1,2/3 0/0 s 1 0"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("boardlab: malformed SOUTH/NORTH '1,2/3'")


@pytest.mark.parametrize(
    "args",
    [["show", "jinli"], ["rules", "linja"], ["replay", "galatjang"], ["perft", "linja", "-d", "4"]],
)
def test_interactive_commands_never_load_the_compiler(args: list[str]) -> None:
    """show, rules, replay and shallow perft start without numba (nothing to compile)."""
    code = (
        "import sys; from boardlab.cli import main; sys.stdin = __import__('io').StringIO('s1'); "
        f"main({args!r}); print('numba' in sys.modules, 'rich' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "False False"


def test_without_the_solvers_analyze_searches_and_perfect_says_what_to_install() -> None:
    """A light install (no numba): no exact values, no traceback."""
    code = (
        "import sys; sys.modules['numba'] = None; from boardlab.cli import main; "
        "print(main(['analyze', 'galatjang', '--agent', 'alphabeta:depth=2'])); "
        "print(main(['play', 'linja', '--red', 'perfect']))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert "exact" not in done.stdout and "alphabeta:depth=2: depth 2" in done.stdout
    assert done.stdout.splitlines()[-1] == "2"
    assert "needs the solvers: pip install 'boardlab[fast]'" in done.stderr


@pytest.mark.parametrize(
    "order",
    [
        ["replay", "galatjang", "-o", "pits=4", "FILE"],
        ["replay", "galatjang", "FILE", "-o", "pits=4"],
        ["replay", "-o", "pits=4", "galatjang", "FILE"],
        ["replay", "--option=pits=4", "galatjang", "FILE"],
    ],
)
def test_options_may_stand_anywhere_around_the_game_and_the_file(
    order: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "g.txt").write_text("s1\n")
    args = [str(tmp_path / "g.txt") if word == "FILE" else word for word in order]
    assert main(args) == 0
    assert capsys.readouterr().out.splitlines()[0] == "1,2,11,1/1,3,10,10 5/4 n 1 1"


def test_the_rules_in_brief_follow_the_options_in_force(capsys: pytest.CaptureFixture[str]) -> None:
    import boardlab

    small = boardlab.new_game("galatjang", pits=4, seeds=3).rules_in_brief()
    assert small.startswith("Two rows of 4 pits with 3 seeds each") and "s1-s4" in small
    assert "6 pits" not in small
    assert "supply of 6 stones" in boardlab.new_game("jinli", stones=6).rules_in_brief()
    status, out, _ = run(["rules", "galatjang"], capsys)
    assert status == 0 and "Two rows of 6 pits with 6 seeds each" in out


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ["perft", "jinli", "-d", "100000"],
            "--depth/-d: bad value '100000': expected an integer from 0 to 40",
        ),
        (
            ["match", "jinli", "random", "random", "-n", "0"],
            "expected an integer from 1 to 10,000,000",
        ),
        (["match", "jinli", "random", "random", "--jobs", "9999"], "from 1 to 256"),
        (["play", "jinli", "--red", "random", "--delay", "-5"], "expected a number from 0 to 60"),
        (["analyze", "jinli", "--seed", "-1"], "--seed: bad value '-1'"),
        (
            ["analyze", "jinli", "--agent", "mcts:iterations=10000000000"],
            "expected 0 to 1,000,000,000",
        ),
        (["analyze", "jinli", "--agent", "mcts:time=nan"], "'time' in agent 'mcts:time=nan'"),
    ],
)
def test_numbers_on_the_command_line_have_ranges(
    args: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(args, capsys)
    assert status == 2 and out == ""
    assert len(err.splitlines()) == 1 and said in err


def test_rules_follow_the_options_given(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["rules", "galatjang", "-o", "pits=4", "-o", "seeds=3"], capsys)
    assert status == 0 and "Two rows of 4 pits with 3 seeds each" in out
    status, _, err = run(["rules", "galatjang", "-o", "pits=99"], capsys)
    assert status == 2 and "bad value '99' for option 'pits'" in err


# ---------------------------------------------------------------------- a byte-order mark
BOM = b"\xef\xbb\xbf"


def record_bytes(kind: str) -> bytes:
    """A short Jin Li game as a record file of ``kind`` (text or json)."""
    from boardlab.core.record import GameRecord

    record = GameRecord.read(JINLI_GAME, game="jinli")
    return (record.to_json() if kind == "json" else record.to_text()).encode()


def run_bytes(args: list[str], capsys: pytest.CaptureFixture[str], data: bytes) -> tuple[int, str]:
    """``main(args)`` with ``data`` on a binary standard input, as a pipe gives it."""
    sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    try:
        status = main(args)
    finally:
        sys.stdin = sys.__stdin__
    out, err = capsys.readouterr()
    assert err == "" or status == 0, err
    return status, out


@pytest.mark.parametrize("kind", ["text", "json"])
@pytest.mark.parametrize(
    "command",
    [
        ["replay", "jinli", "FILE"],
        ["replay", "FILE"],
        ["replay", "jinli"],  # standard input
        ["review", "FILE", "--agent", "greedy", "--json"],
        ["review", "-", "--agent", "greedy", "--json"],
    ],
)
def test_a_record_with_a_byte_order_mark_reads_as_without(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, command: list[str]
) -> None:
    outputs = []
    for name, data in (("plain", record_bytes(kind)), ("bom", BOM + record_bytes(kind))):
        path = tmp_path / f"{name}.txt"
        path.write_bytes(data)
        args = [str(path) if word == "FILE" else word for word in command]
        outputs.append(run_bytes(args, capsys, data))
    assert outputs[0][0] == 0 and outputs[1] == outputs[0]


@pytest.mark.parametrize("kind", ["text", "json"])
def test_play_loads_a_record_with_a_byte_order_mark(tmp_path: Path, kind: str) -> None:
    outputs = []
    for name, data in (("plain", record_bytes(kind)), ("bom", BOM + record_bytes(kind))):
        (tmp_path / name).mkdir()
        (tmp_path / name / "g.txt").write_bytes(data)
        done = subprocess.run(
            [sys.executable, "-m", "boardlab", "play", "jinli", "--load", "g.txt"],
            input="board\nquit\n",
            capture_output=True,
            text=True,
            cwd=tmp_path / name,
            timeout=120,
        )
        outputs.append((done.returncode, done.stdout, done.stderr))
    assert outputs[0][0] == 0 and outputs[1] == outputs[0], outputs


def test_play_loads_an_aborted_game_and_says_it_has_no_result(tmp_path: Path) -> None:
    """A record of a game aborted online (no winner, no draw) opens in the terminal as
    over, its sentence said, as a finished game's is."""
    record = GameRecord(boardlab.new_game("linja"))
    record.play(record.position.legal_actions()[0])
    record.abort(1)
    (tmp_path / "aborted.txt").write_text(record.to_text())
    done = subprocess.run(
        [sys.executable, "-m", "boardlab", "play", "linja", "--load", "aborted.txt"],
        input="quit\n",
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "LANGUAGE": "en"},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "The game was aborted by Red." in done.stdout
    assert "Traceback" not in done.stderr
