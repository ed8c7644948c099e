"""Matches and analysis: the match runner, its statistics, and the two commands."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

import boardlab
from boardlab.arena import Score, elo_difference, play_match, score_interval
from boardlab.cli import main
from boardlab.core.record import GameRecord, split_records


def test_elo_difference_of_known_scores() -> None:
    assert elo_difference(0.5) == 0.0
    assert elo_difference(0.75) == pytest.approx(190.85, abs=0.01)
    assert elo_difference(0.25) == pytest.approx(-190.85, abs=0.01)
    assert elo_difference(1.0) == math.inf and elo_difference(0.0) == -math.inf


def test_wilson_interval_holds_the_mean_and_stays_open_at_the_extremes() -> None:
    low, high = score_interval(20, 0, 0)
    assert 0.8 < low < 0.85 and high == 1.0
    low, high = score_interval(50, 20, 30)
    assert low < 0.6 < high and high - low < 0.2
    wide, narrow = score_interval(5, 0, 5), score_interval(500, 0, 500)
    assert wide[1] - wide[0] > narrow[1] - narrow[0]
    assert Score(3, 2, 5).mean == pytest.approx(0.4)


def test_match_alternates_seats_and_replays_exactly_with_its_seed() -> None:
    first = play_match("galatjang", "greedy", "random", 6, {"pits": 4, "seeds": 3}, jobs=1, seed=5)
    again = play_match("galatjang", "greedy", "random", 6, {"pits": 4, "seeds": 3}, jobs=2, seed=5)
    assert [g.a_first for g in first.games] == [True, False] * 3
    assert [g.record for g in first.games] == [g.record for g in again.games]
    assert first.score.games == 6
    for result in first.games:
        record = GameRecord.from_text(result.record)
        outcome = record.outcome()
        assert outcome is not None and outcome.reason == result.reason
        seat = 0 if result.a_first else 1
        assert outcome.score(seat) == result.a_score
        assert sum(result.choices) == result.actions == len(record)
        assert min(result.choices) > 0 and min(result.seconds) > 0
    assert all(t > 0 for t in first.seconds_per_choice())


def test_match_time_replaces_both_agents_budgets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--time`` gives every choice of both agents that time, whatever their specs'
    budgets, and says so in each record."""
    from boardlab.ai import AlphaBetaAgent, Limit, MctsAgent

    asked: list[tuple[str, Limit | None]] = []
    for cls in (MctsAgent, AlphaBetaAgent):
        original = cls.choose

        def spy(self: Any, position: Any, limit: Any = None, rng: Any = None, _o: Any = original):
            asked.append((self.kind, limit))
            return _o(self, position, limit, rng)

        monkeypatch.setattr(cls, "choose", spy)
    path = tmp_path / "games.txt"
    args = ["match", "galatjang", "mcts:iterations=5", "alphabeta:depth=1", "-o", "pits=3"]
    timed = [*args, "--games", "2", "--jobs", "1", "--time", "0.01"]
    assert main([*timed, "--records", str(path)]) == 0
    assert {kind for kind, _ in asked} == {"mcts", "alphabeta"}
    assert {limit for _, limit in asked} == {Limit(time=0.01)}
    records = [GameRecord.from_text(text) for text in split_records(path.read_text())]
    assert [r.headers["Movetime"] for r in records] == ["0.01", "0.01"]
    capsys.readouterr()
    assert main([*args, "--time", "0"]) == 2
    assert "bad value '0': expected a number from 0.001 to 86,400" in capsys.readouterr().err


def test_match_refuses_bad_agents_and_options_before_playing() -> None:
    with pytest.raises(boardlab.BoardlabError, match="unknown agent 'chess'"):
        play_match("jinli", "chess", "random", 2)
    with pytest.raises(boardlab.OptionError, match="stones"):
        play_match("jinli", "random", "random", 2, {"stones": 99})


def test_match_command_reports_and_writes_records(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "games.txt"
    args = ["match", "linja", "greedy", "random", "--games", "4", "--jobs", "1"]
    assert main([*args, "--records", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "linja: greedy vs random, 4 games, seats alternating, seed 0"
    assert out[1] == "from the start position"
    wins, draws, losses = (int(w) for w in out[2].split()[1:6:2])
    assert wins + draws + losses == 4
    assert out[3].startswith("score ") and "95% CI" in out[3]
    assert out[4].startswith("Elo difference ")
    assert out[6].startswith("time per action: greedy ")
    assert len(split_records(path.read_text())) == 4
    assert main(["replay", "linja", str(path)]) == 0
    replayed = capsys.readouterr().out.splitlines()
    assert len(replayed) == 8 and all(line.startswith("winner=") for line in replayed[1::2])


def test_analyze_command_values_every_legal_action(capsys: pytest.CaptureFixture[str]) -> None:
    position = "2,2,2/2,2,2 0/0 s 1 0"
    args = ["analyze", "galatjang", "-o", "pits=3", "-p", position, "--agent", "alphabeta:depth=30"]
    assert main(args) == 0
    out = capsys.readouterr().out.splitlines()
    rows = [line.split() for line in out[3:-1]]
    assert sorted(row[0] for row in rows) == ["s1", "s2", "s3"]
    assert out[-1].startswith("best: ")
    assert rows[0][0] == out[-1].split()[1].rstrip(",")


def test_analyze_reports_the_search_counts(capsys: pytest.CaptureFixture[str]) -> None:
    """MCTS names its iterations beside the nodes; alpha-beta, which has none, only nodes.
    (Jin Li has no solver, so the agents answer.)"""
    assert main(["analyze", "jinli", "--agent", "mcts:iterations=300"]) == 0
    header = capsys.readouterr().out.splitlines()[1]
    assert ", 300 iterations, 300 nodes, " in header
    assert main(["analyze", "jinli", "--agent", "alphabeta:depth=2"]) == 0
    header = capsys.readouterr().out.splitlines()[1]
    assert header.startswith("alphabeta:depth=2: depth 2, ") and "iterations" not in header
