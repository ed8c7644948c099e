"""A match's results file: each game on disk as it ends, and a stopped match (an SPRT of
many hours) resumed by the same command, playing only the games missing."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from boardlab.arena import GameResult, play_match
from boardlab.arena.openings import Openings
from boardlab.arena.sprt import Sprt, pair_counts
from boardlab.cli import main
from boardlab.core.errors import BoardlabError

GAME = ("galatjang", "greedy", "random")
OPTIONS = {"pits": 3}


def match(games: int, path: Path, **settings: Any) -> Any:
    """A match from openings of 2 random actions (drawn afresh: they are drawn as asked)."""
    openings = Openings.random(GAME[0], OPTIONS, 2, seed=3)
    return play_match(
        *GAME, games, OPTIONS, jobs=1, seed=3, openings=openings, results=path, **settings
    )


def untimed(games: tuple[GameResult, ...]) -> list[GameResult]:
    """The games but for their thinking times, which no two runs share."""
    return [replace(game, seconds=(0.0, 0.0)) for game in games]


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines()


def test_each_game_is_on_disk_as_it_ends(tmp_path: Path) -> None:
    path = tmp_path / "m.jsonl"
    on_disk: list[int] = []
    result = match(4, path, progress=lambda r: on_disk.append(len(lines(path))))
    assert on_disk == [1, 2, 3, 4]
    assert [json.loads(line)["index"] for line in lines(path)] == [0, 1, 2, 3]
    assert result.resumed == 0


def test_a_stopped_match_resumes_with_the_games_missing(tmp_path: Path) -> None:
    full = match(6, tmp_path / "full.jsonl")
    written = lines(tmp_path / "full.jsonl")
    path = tmp_path / "stopped.jsonl"
    # games 0, 2 and 3 ended (with two processes 1 may end after 3), 4 cut short while written
    path.write_text("\n".join([written[0], written[2], written[3], written[4][:50]]))
    played: list[int] = []
    resumed = match(6, path, progress=lambda r: played.append(r.index))
    assert played == [1, 4, 5]  # the open pair completed first
    assert [resumed.games[i] for i in (0, 2, 3)] == [full.games[i] for i in (0, 2, 3)]
    assert untimed(resumed.games) == untimed(full.games)  # the same games: only times differ
    assert resumed.score == full.score and resumed.resumed == 3
    assert resumed.first_player_score() == full.first_player_score()
    assert len(lines(path)) == 6
    again = match(6, path, progress=lambda r: played.append(r.index))
    assert played == [1, 4, 5] and again.games == resumed.games  # all read back, as written


def test_a_whole_last_line_without_its_newline_is_played_again(tmp_path: Path) -> None:
    """A stop between a game's text and its newline leaves a line that reads well: it is
    not counted, since resuming cuts it off the file (counted, it would be on no disk)."""
    full = match(4, tmp_path / "full.jsonl")
    path = tmp_path / "stopped.jsonl"
    path.write_text("\n".join(lines(tmp_path / "full.jsonl")[:3]))  # game 2 without "\n"
    played: list[int] = []
    resumed = match(4, path, progress=lambda r: played.append(r.index))
    assert resumed.resumed == 2 and played == [2, 3]
    assert [json.loads(line)["index"] for line in lines(path)] == [0, 1, 2, 3]
    assert untimed(resumed.games) == untimed(full.games)


def test_an_sprt_resumed_decides_as_one_uninterrupted_run(tmp_path: Path) -> None:
    test = Sprt.parse("elo0=0,elo1=150")

    def decided(results: list[GameResult]) -> bool:
        return test.verdict(pair_counts(results)) is not None

    full = match(400, tmp_path / "full.jsonl", stop=decided)
    assert test.verdict(pair_counts(full.games)) == "H1" and len(full.games) > 7
    path = tmp_path / "stopped.jsonl"
    path.write_text("\n".join(lines(tmp_path / "full.jsonl")[:7]) + "\n")  # pair 3 open
    resumed = match(400, path, stop=decided)
    assert untimed(resumed.games) == untimed(full.games) and resumed.resumed == 7
    asked: list[int] = []
    decided_before = match(400, path, stop=lambda r: asked.append(len(r)) or decided(r))
    assert asked == [len(full.games)] and decided_before.games == resumed.games


COMMAND = ["match", *GAME, "-o", "pits=3", "--games", "6", "-j", "1"]


def test_the_command_resumes_and_an_sprt_decided_plays_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "m.jsonl"
    sprt = [*COMMAND[:6], "--openings", "2", "-j", "1", "--sprt", "elo0=0,elo1=150"]
    assert main([*sprt, "--results", str(path)]) == 0
    first = capsys.readouterr().out
    assert "SPRT: H1 accepted" in first
    written = path.read_text()
    assert main([*sprt, "--results", str(path)]) == 0
    again = capsys.readouterr().out.splitlines()
    assert path.read_text() == written
    games = len(written.splitlines())
    assert again.pop(0) == f"{path}: {games} games of this match were played before"
    again.remove(f"the test had decided on the games in {path}: none played")
    assert again == first.splitlines()  # the openings, the times, the verdict: all read back


def test_a_second_run_of_a_file_being_written_is_refused(tmp_path: Path) -> None:
    """Two runs of one file would play its missing games twice: while one writes it (here:
    after its first game) another is refused, and the file is the first run's alone."""
    path = tmp_path / "m.jsonl"
    refused: list[str] = []

    def meanwhile(result: GameResult) -> None:
        if result.index == 0:
            with pytest.raises(BoardlabError) as error:
                match(4, path)
            refused.append(str(error.value))

    first = match(4, path, progress=meanwhile)
    assert refused == [
        f"{path} is being written by another run: wait until it ends, or name another "
        "--results file"
    ]
    assert [json.loads(line)["index"] for line in lines(path)] == [0, 1, 2, 3]
    assert untimed(match(4, path).games) == untimed(first.games)  # free again: all read back


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The six lines of a small match, to be tampered with."""
    path = tmp_path_factory.mktemp("results") / "m.jsonl"
    match(6, path)
    return lines(path)


def changed(line: str, **fields: object) -> str:
    return json.dumps({**json.loads(line), **fields})


@pytest.mark.parametrize(
    ("tamper", "message"),
    [
        (lambda ls: [ls[0], changed(ls[1], a_score=7.5)], "line 2: a_score 7.5 is not valid"),
        (lambda ls: [changed(ls[0], a_first=False)], "a_first false is not valid: expected tr"),
        (lambda ls: [changed(ls[0], seconds=[1])], "seconds [1] is not valid: expected A's"),
        (lambda ls: [changed(ls[0], choices=[1, -1])], "line 1: choices [1, -1] is not valid"),
        (lambda ls: [changed(ls[0], index=6)], "game number 6 is not one of this match's"),
        (lambda ls: [changed(ls[0], record=None)], "line 1: record null is not text"),
        (lambda ls: [ls[0], ls[1], ls[0]], "line 3: game 0 again (it is on line 1 too)"),
        (lambda ls: [ls[0][:30], ls[1]], "line 1: not a match result"),
        (lambda ls: [changed(ls[0], match="0" * 16)], "another match's games"),
    ],
)
def test_a_tampered_file_is_refused_at_its_line(
    tmp_path: Path, written: list[str], tamper: Any, message: str
) -> None:
    path = tmp_path / "tampered.jsonl"
    path.write_text("\n".join(tamper(written)) + "\n")
    with pytest.raises(BoardlabError, match=re.escape(message)):
        match(6, path)
    assert lines(path) == tamper(written)  # left as it was


@pytest.mark.parametrize("other", [["--seed", "4"], ["--time", "0.01"], ["--games", "8"]])
def test_the_file_of_another_match_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], other: list[str]
) -> None:
    path = tmp_path / "m.jsonl"
    assert main([*COMMAND, "--games", "2", "--results", str(path)]) == 0
    capsys.readouterr()
    assert main([*COMMAND, "--games", "2", *other, "--results", str(path)]) == 2
    error = capsys.readouterr().err
    assert error == (
        f"boardlab: {path} holds another match's games (other agents or settings): "
        "name another --results file\n"
    )
    assert len(lines(path)) == 2


def test_a_level_is_keyed_by_the_agent_it_stands_for() -> None:
    """A results file names a level's spec, not its name: a level retuned between two
    runs of a long test starts another file rather than mixing games of two players."""
    from boardlab.ai import level_spec
    from boardlab.arena.match import match_key
    from boardlab.arena.openings import Openings

    def key(a: str, b: str) -> str:
        return match_key("jinli", {}, a, b, 35, Openings(), 0.7, 100)

    specs = (level_spec("master", "jinli"), level_spec("expert", "jinli"))
    assert key("master", "expert") == key(*specs)
    assert key("master", "expert") != key("hard", "expert")
