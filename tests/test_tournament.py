"""Tournaments: the rating model fitted to synthetic results of known strength, the plan
(pairings, seat-swapped pairs from the same opening), results on disk and resuming, and
the command."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from boardlab.arena.ratings import fit
from boardlab.arena.tournament import Plan, load, random_openings, read_openings, run, standings
from boardlab.cli import main
from boardlab.core.errors import BoardlabError
from boardlab.core.record import GameRecord


def expected(x: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-x / 400.0))


def synthetic(
    true: dict[str, float], advantage: float, draw: float, games: int, seed: int
) -> list[tuple[str, str, float]]:
    rng, names, out = random.Random(seed), list(true), []
    for _ in range(games):
        i, j = rng.sample(names, 2)
        d = true[i] - true[j] + advantage
        win, loss = expected(d - draw), expected(-d - draw)
        r = rng.random()
        out.append((i, j, 1.0 if r < win else 0.0 if r < win + loss else 0.5))
    return out


@pytest.mark.parametrize(
    ("true", "advantage", "draw"),
    [
        ({"a": 0, "b": 100, "c": 250, "d": -350}, 60, 120),
        ({"x": 0, "y": -50, "z": 50}, -40, 30),
        ({"p": 200, "q": 0, "r": 0, "s": -100, "t": 300}, 0, 200),
    ],
)
def test_the_fit_recovers_known_strengths(
    true: dict[str, float], advantage: float, draw: float
) -> None:
    found = fit(list(true), synthetic(true, advantage, draw, 4000, seed=len(true)))
    mean = sum(true.values()) / len(true)
    for name, rating in true.items():
        # within the 95% interval, widened a little for the prior's pull to the middle
        assert abs(found.ratings[name] - (rating - mean)) <= 1.3 * found.margins[name], name
        assert 5 < found.margins[name] < 60
    assert abs(found.advantage - advantage) <= 1.3 * found.advantage_margin
    assert abs(found.draw_elo - draw) < 40
    assert sum(found.ratings.values()) == pytest.approx(0.0, abs=1e-6)


def test_a_perfect_score_gives_a_finite_rating() -> None:
    games = [("a", "b", 1.0), ("b", "a", 0.0)] * 20
    found = fit(["a", "b"], games)
    assert 200 < found.ratings["a"] < 2000 and found.ratings["b"] == -found.ratings["a"]


def plan(**changes: object) -> Plan:
    settings: dict[str, object] = dict(
        game="galatjang", options={"pits": 3}, agents=("random", "easy", "beginner"),
        gauntlet=False, pairs=2, openings=(None,), seed=5,
    )  # fmt: skip
    settings.update(changes)
    return Plan(**settings)  # type: ignore[arg-type]


def test_the_plan_pairs_every_meeting_with_swapped_seats() -> None:
    openings = tuple(random_openings("galatjang", {"pits": 3}, 6, 3, seed=1))
    games = plan(openings=openings).games()
    assert len(games) == 3 * 2 * 2  # 3 meetings, 2 pairs, 2 games
    for first, second in zip(games[::2], games[1::2], strict=True):
        assert second[0] == first[0] + 1 and first[0] % 2 == 0  # A first, then B first
        assert first[1:] == second[1:]  # the same agents and the same opening
    assert {g[3] for g in games} == set(openings)
    gauntlet = plan(gauntlet=True, agents=("easy", "random", "beginner", "greedy:noise=0.9"))
    assert [(g[1], g[2]) for g in gauntlet.games()[::4]] == [
        ("easy", "random"), ("easy", "beginner"), ("easy", "greedy:noise=0.9")
    ]  # fmt: skip


def test_results_go_to_disk_and_a_stopped_tournament_resumes(tmp_path: Path) -> None:
    full = run(plan(), tmp_path / "full.jsonl")
    assert len(full) == 12
    path = tmp_path / "stopped.jsonl"
    lines = (tmp_path / "full.jsonl").read_text().splitlines()
    path.write_text("\n".join(lines[:7]) + "\n" + lines[7][:30])  # a stop while writing
    played: list[int] = []
    resumed = run(plan(), path, progress=lambda entries: played.append(len(entries)))
    assert played == [8, 9, 10, 11, 12]  # the five missing games only (the cut one again)
    assert resumed == full  # the same games: the plan seeds every one
    assert sorted(load(path, plan()).values(), key=lambda e: e.number) == full
    for entry in resumed:
        record = GameRecord.from_text(entry.record)
        assert record.is_over()


def test_another_tournament_s_results_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    run(plan(pairs=1), path)
    with pytest.raises(BoardlabError, match="another tournament's games"):
        load(path, plan(pairs=2))
    path.write_text("not json\n{}\n")  # a bad line that is not the last one
    with pytest.raises(BoardlabError, match="line 1: not a tournament result"):
        load(path, plan())
    path.write_bytes(b"\xd0\x00\xff binary")
    with pytest.raises(BoardlabError, match="not a tournament results file"):
        load(path, plan())


def test_standings_rank_by_rating() -> None:
    rows, fitted = standings(("a", "b"), [])
    assert fitted is None and [r.results.games for r in rows] == [0, 0]


def test_openings_files_are_checked(tmp_path: Path) -> None:
    good = tmp_path / "good.txt"
    good.write_text("# two openings\n1,2,3/3,2,1 0/0 s 1 2\n\n0,4,4/4,4,0 0/0 n 1 1\n")
    assert len(read_openings("galatjang", {"pits": 3}, str(good))) == 2
    bad = tmp_path / "bad.txt"
    bad.write_text("1,2,3/3,2,1 0/0 s 1 2\n9,9/9 0/0 s 1 0\n")
    with pytest.raises(BoardlabError, match=r"bad\.txt, line 2: malformed"):
        read_openings("galatjang", {"pits": 3}, str(bad))


def test_the_command_prints_ratings_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "t.jsonl"
    args = ["tournament", "galatjang", "random", "easy", "-o", "pits=3", "--pairs", "2",
            "--openings", "2", "--results", str(results), "-j", "1"]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "rank  agent" in out and "first seat (south) worth" in out
    assert len(results.read_text().splitlines()) == 4
    assert main(args) == 0  # nothing left to play: the same table
    assert capsys.readouterr().out.split("results:")[1] == out.split("results:")[1]
    assert json.loads(results.read_text().splitlines()[0])["first"] == "random"
    assert main(["tournament", "galatjang", "easy", "easy"]) == 2
    assert "two or more different agents" in capsys.readouterr().err


@pytest.fixture(scope="module")
def results_lines(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """The four lines of a small tournament, to be tampered with."""
    path = tmp_path_factory.mktemp("results") / "t.jsonl"
    assert main([*TOURNAMENT, "--results", str(path)]) == 0
    return path.read_text().splitlines()


TOURNAMENT = ["tournament", "galatjang", "random", "easy", "-o", "pits=3", "--pairs", "2",
              "-j", "1"]  # fmt: skip


def changed(line: str, **fields: object) -> str:
    return json.dumps({**json.loads(line), **fields})


@pytest.mark.parametrize(
    ("tamper", "message"),
    [
        (lambda ls: [ls[0], changed(ls[1], score=7.5)], "line 2: score 7.5 is not the result"),
        (lambda ls: [changed(ls[0], score="1")], 'score "1" is not the result of a game'),
        (lambda ls: [changed(ls[0], score=True)], "score true is not the result of a game"),
        (lambda ls: [changed(ls[0], number=99)], "game number 99 is not one of this"),
        (lambda ls: [changed(ls[0], number=-1)], "expected a whole number from 0 to 3"),
        (lambda ls: [changed(ls[0], number=1.0)], "game number 1.0 is not one of"),
        (lambda ls: [changed(ls[0], first="perfect")], 'not "perfect" against "easy"'),
        (lambda ls: [changed(ls[1], first="random", second="easy")], "game 1 is easy (first"),
        (lambda ls: [*ls, ls[0]], "line 5: game 0 again (it is on line 1 too)"),
        (lambda ls: [changed(ls[0], record=5)], "line 1: record 5 is not text"),
        (lambda ls: [json.dumps([1, 2])], "line 1: not a tournament result"),
        (lambda ls: [ls[0][:30], ls[1]], "line 1: not a tournament result"),
        (lambda ls: [ls[0][:30] + "\n"], "line 1: not a tournament result"),
    ],
)
def test_a_tampered_results_file_is_refused_by_the_command(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    results_lines: list[str],
    tamper: Any,
    message: str,
) -> None:
    path = tmp_path / "tampered.jsonl"
    path.write_text("\n".join(tamper(results_lines)) + "\n")
    assert main([*TOURNAMENT, "--results", str(path)]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and str(path) in error and message in error, error


def test_a_last_line_cut_short_is_played_again_by_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], results_lines: list[str]
) -> None:
    path = tmp_path / "stopped.jsonl"
    path.write_text("\n".join(results_lines[:3]) + "\n" + results_lines[3][:30])
    assert main([*TOURNAMENT, "--results", str(path)]) == 0
    assert path.read_text().splitlines() == results_lines
