"""``boardlab match --openings N`` and ``--openings-file FILE``: each pair of games starts
from one opening with the seats swapped (read back from the records), the openings come
again from the same seed and are the ones a tournament draws, a file's are played in
order, the SPRT over such pairs decides, and every bad input is one line and exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardlab.arena import play_match
from boardlab.arena.openings import Openings, random_openings
from boardlab.cli import main
from boardlab.core.record import GameRecord, split_records

PITS3 = ["-o", "pits=3"]
#: Two openings of Galatjang with three pits a row, with a comment and a blank line.
FILE = "# two openings\n1,2,3/3,2,1 0/0 s 1 2\n\n0,4,4/4,4,0 0/0 n 1 1  # north to act\n"


def records(path: Path) -> list[GameRecord]:
    return [GameRecord.from_text(text) for text in split_records(path.read_text())]


def pairs_of(games: list[GameRecord]) -> list[tuple[GameRecord, GameRecord]]:
    """Games 2k and 2k + 1: the pairs."""
    return list(zip(games[::2], games[1::2], strict=True))


def test_each_pair_starts_from_one_opening_with_the_seats_swapped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "games.txt"
    argv = ["match", "galatjang", "random", "greedy", *PITS3, "--games", "6", "--openings", "3"]
    assert main([*argv, "-j", "1", "--records", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1] == "from 3 openings of 3 random actions, each played with both seats"
    games = records(path)
    assert len(games) == 6
    starts = [game.start.position_string() for game in games]
    drawn = random_openings("galatjang", {"pits": 3}, 3, 3, seed=0)  # as a tournament's
    assert starts == [opening for opening in drawn for _game in (0, 1)]
    for first, second in pairs_of(games):
        assert first.start == second.start != first.game.initial()
        assert (first.headers["South"], first.headers["North"]) == ("random", "greedy")
        assert (second.headers["South"], second.headers["North"]) == ("greedy", "random")
        assert first.is_over() and second.is_over()


def test_the_openings_come_again_from_the_same_seed() -> None:
    def starts(seed: int) -> list[str]:
        openings = Openings.random("linja", {}, 4, seed)
        match = play_match("linja", "greedy", "random", 8, jobs=1, seed=1, openings=openings)
        return [GameRecord.from_text(g.record).start.position_string() for g in match.games]

    first = starts(7)
    assert first == starts(7)
    assert first[::2] == first[1::2] and len(set(first)) == 4  # four openings, each twice
    assert set(starts(8)).isdisjoint(first)


def test_a_file_s_openings_are_played_in_order_and_round_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    openings, path = tmp_path / "openings.txt", tmp_path / "games.txt"
    openings.write_text(FILE)
    written = ["1,2,3/3,2,1 0/0 s 1 2", "0,4,4/4,4,0 0/0 n 1 1"]
    argv = ["match", "galatjang", "greedy", "random", *PITS3, "--openings-file", str(openings)]
    assert main([*argv, "-j", "1", "--records", str(path)]) == 0  # two games an opening
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith(", 4 games, seats alternating, seed 0")
    assert out[1] == f"from 2 openings of {openings} in order, each played with both seats"
    starts = [game.start.position_string() for game in records(path)]
    assert starts == [written[0], written[0], written[1], written[1]]
    assert main([*argv, "-j", "1", "--records", str(path), "--games", "6"]) == 0
    assert "(3 pairs: the openings again from the first)" in capsys.readouterr().out
    assert [game.start.position_string() for game in records(path)][4:] == [written[0]] * 2


def test_the_sprt_over_openings_decides_for_the_stronger_agent(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["match", "galatjang", "greedy", "random", "--openings", "4", "-j", "1", "--sprt"]
    assert main([*argv, "elo0=0,elo1=100"]) == 0
    out = capsys.readouterr().out
    assert "SPRT: H1 accepted (elo1=100)" in out
    games = int(out.split(", ")[1].split()[0])
    assert f"from {games // 2} openings of 4 random actions" in out
    argv[2:4] = ["random", "greedy"]  # the weaker agent as A: H0
    assert main([*argv, "elo0=0,elo1=100"]) == 0
    assert "SPRT: H0 accepted (elo0=0)" in capsys.readouterr().out


def test_the_output_is_german_too(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--lang", "de", "match", "galatjang", "greedy", "random", *PITS3, "-n", "2"]
    assert main([*argv, "--openings", "1", "-j", "1"]) == 0
    assert "von 1 Eröffnung aus 1 zufälligen Zug, jede mit beiden Seiten gespielt" in (
        capsys.readouterr().out
    )


@pytest.mark.parametrize(
    ("arguments", "file", "message"),
    [
        (
            ["--openings", "-1"],
            None,
            "--openings: bad value '-1': expected an integer from 0 to 200",
        ),
        (["--openings", "four"], None, "bad value 'four': expected an integer from 0 to 200"),
        (["--openings", "200"], None, "no opening of 200 random actions: 1000 tries in a row"),
        (["--openings-file", "{tmp}/missing.txt"], None, "cannot read the openings file"),
        (["--openings-file", "{tmp}"], None, "cannot read the openings file"),
        (["--openings-file", "{file}"], b"\xff\xfe not text", "not UTF-8 text"),
        (["--openings-file", "{file}"], b"# nothing\n\n", "holds no position string"),
        (
            ["--openings-file", "{file}"],
            b"1,2,3/3,2,1 0/0 s 1 2\n1,2,3/3,2 0/0 s 1 2\n",
            "openings.txt, line 2: malformed SOUTH/NORTH '1,2,3/3,2' in position string "
            "'1,2,3/3,2 0/0 s 1 2': expected the pits",
        ),
        (
            ["--openings-file", "{file}"],
            b"# over\n0,0,0/0,0,0 9/9 s 1 2\n",
            "openings.txt, line 2: the game is over in '0,0,0/0,0,0 9/9 s 1 2'",
        ),
        (
            ["--openings-file", "{file}", "-o", "pits=4"],
            b"1,2,3/3,2,1 0/0 s 1 2\n",
            "openings.txt, line 1: '1,2,3/3,2,1 0/0 s 1 2' is a position of another board than "
            "galatjang (pits=4)'s: expected one like its start '6,6,6,6/6,6,6,6 0/0 s 1 0', or "
            "the options it was written for, given with -o",
        ),
        (
            ["--openings-file", "{file}", "--openings", "2"],
            FILE.encode(),
            "--openings 2 and --openings-file '{file}' disagree: give random openings or a file",
        ),
        (["--openings", "2", "--games", "5"], None, "--games 5 with openings: each opening is"),
    ],
)
def test_bad_openings_are_one_line_and_exit_2(
    arguments: list[str],
    file: bytes | None,
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "openings.txt"
    if file is not None:
        path.write_bytes(file)
    filled = [a.format(tmp=tmp_path, file=path) for a in arguments]
    pits = [] if "pits=4" in arguments else PITS3
    assert main(["match", "galatjang", "random", "greedy", *pits, *filled, "-j", "1"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert message.format(file=path) in captured.err


def test_the_tournament_reads_openings_the_same_way(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "openings.txt"
    path.write_text(FILE)
    argv = ["tournament", "galatjang", "random", "greedy", "--openings-file", str(path)]
    assert main(argv) == 2
    assert "line 2: '1,2,3/3,2,1 0/0 s 1 2' is a position of another board" in (
        capsys.readouterr().err
    )
    results = tmp_path / "results.jsonl"
    assert main([*argv, *PITS3, "--pairs", "3", "-j", "1", "--results", str(results)]) == 0
    out = capsys.readouterr().out
    assert f"from 2 openings of {path} in order, each played with both seats (3 pairs" in out
