"""Accuracy against perfect play (``boardlab.arena.accuracy``, ``boardlab accuracy``) and
the review's accuracy: perfect play scores 100% and loses nothing, the worst action loses
exactly the gap, intervals hold their means, and the command answers and refuses in one
line. Small Galatjang rules (3 pits, 2 seeds) are solved by search in an instant."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

import boardlab
from boardlab.ai import make_agent
from boardlab.ai.base import Agent, Choice, Limit
from boardlab.arena.accuracy import (
    judge,
    mean_interval,
    sample_positions,
    summarize,
    t_quantile,
)
from boardlab.cli import main
from boardlab.core.game import Position
from boardlab.core.record import GameRecord
from boardlab.review import review
from boardlab.solve import exact_values
from boardlab.solve.accuracy import game_accuracy, move_accuracy

SMALL = {"pits": 3, "seeds": 2}
SMALL_FLAGS = ["-o", "pits=3", "-o", "seeds=2"]


def small_game() -> Any:
    return boardlab.new_game("galatjang", **SMALL)


class WorstAgent(Agent):
    """Plays the action worth least by the exact values."""

    kind = "worst"

    def choose(
        self,
        position: Position[Any],
        limit: Limit | None = None,
        rng: random.Random | None = None,
    ) -> Choice:
        values = exact_values(position.game, position.state)
        assert values
        return Choice(min(values, key=lambda a: values[a]))


@pytest.fixture(scope="module")
def samples() -> list[Any]:
    return sample_positions(small_game(), 24, seed=1)


def test_samples_are_reproducible_and_from_every_stage(samples: list[Any]) -> None:
    assert sample_positions(small_game(), 24, seed=1) == samples
    assert sample_positions(small_game(), 24, seed=2) != samples
    assert {s.stage for s in samples} == {0, 1, 2}
    game = small_game()
    for sample in samples:
        state = game.from_position_string(sample.position).state
        assert sample.values == exact_values(game, state)
        assert len(sample.values) >= 2


def test_perfect_play_scores_full_marks(samples: list[Any]) -> None:
    game = small_game()
    judged = judge(game, make_agent("perfect", 0, game), samples)
    row = summarize("perfect", judged)
    assert row.moves == len(samples)
    assert (row.mean_loss, row.loss_low, row.loss_high) == (0.0, 0.0, 0.0)
    assert row.optimal == 1.0 and row.optimal_high == 1.0 and row.optimal_low < 1.0
    assert row.accuracy == 100.0 and row.game_accuracy == 100.0


def test_the_worst_action_loses_exactly_the_gap(samples: list[Any]) -> None:
    judged = judge(small_game(), WorstAgent(), samples)
    for sample, move in zip(samples, judged, strict=True):
        gap = max(sample.values.values()) - min(sample.values.values())
        assert move.loss == gap
        assert move.optimal == (gap == 0)
        assert move.accuracy == move_accuracy(
            max(sample.values.values()), min(sample.values.values())
        )
    row = summarize("worst", judged)
    assert row.optimal == sum(m.optimal for m in judged) / len(judged) < 0.5
    assert row.mean_loss > 0


def test_intervals_hold_their_means(samples: list[Any]) -> None:
    game = small_game()
    row = summarize("beginner", judge(game, make_agent("beginner", 0, game), samples))
    assert row.loss_low <= row.mean_loss <= row.loss_high
    assert row.optimal_low <= row.optimal <= row.optimal_high
    assert row.mean_loss > 0 and row.loss_low < row.loss_high
    for _moves, mean, low, high, _share in row.stages:
        assert low <= mean <= high
    assert sum(stage[0] for stage in row.stages) == row.moves
    assert mean_interval([10.0, 11.0, 12.0]) == pytest.approx(
        (11.0, 11 - 4.303 / 3**0.5, 11 + 4.303 / 3**0.5)
    )
    assert mean_interval([0.0, 2.0, 4.0])[1] == 0.0  # a loss is never below 0


def test_student_quantiles() -> None:
    assert t_quantile(10) == 2.228
    assert t_quantile(11) == pytest.approx(2.201, abs=0.002)
    assert t_quantile(30) == pytest.approx(2.042, abs=0.002)
    assert t_quantile(10**6) == pytest.approx(1.960, abs=0.001)


def test_move_and_game_accuracy() -> None:
    assert move_accuracy(5, 5) == move_accuracy(5, 1) == move_accuracy(-2, -9) == 100.0
    assert move_accuracy(3, 0) == move_accuracy(0, -3) == pytest.approx(9.53, abs=0.01)
    assert move_accuracy(3, -3) == 0.0
    assert game_accuracy([]) is None
    assert game_accuracy([100.0] * 7) == 100.0
    assert game_accuracy([100.0, 0.0]) == pytest.approx((50 + 2 / (1 / 100 + 1)) / 2)


def test_command_prints_the_table_writes_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    results = tmp_path / "accuracy.json"
    args = ["accuracy", "galatjang", "easy", "perfect", *SMALL_FLAGS, "--positions", "12"]
    assert main([*args, "--seed", "3", "--results", str(results)]) == 0
    out = capsys.readouterr().out
    assert "12 positions" in out
    perfect = next(line for line in out.splitlines() if line.startswith("perfect"))
    assert perfect.split()[1:3] == ["0.000", "0.000–0.000"] and perfect.endswith("100.0%")
    data = json.loads(results.read_text())
    assert [s["level"] for s in data["summaries"]] == ["easy", "perfect"]
    assert len(data["samples"]) == 12
    # the same settings and file resume: what is there is kept, a new level added
    for move in data["judged"]["easy"]:
        move["loss"] = 99
    results.write_text(json.dumps(data))
    assert main([*args, "beginner", "--seed", "3", "--results", str(results)]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[2].startswith("easy") and rows[2].split()[1] == "99.000"
    assert rows[3].split() == perfect.split() and rows[4].startswith("beginner")
    assert json.loads(results.read_text())["samples"] == data["samples"]
    assert main([*args, "--seed", "3", "--lang", "de"]) == 0
    german = capsys.readouterr().out
    assert "Stufe" in german and "12 Stellungen" in german
    assert german.splitlines()[3].split() == perfect.split()


def test_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    target = tmp_path / "accuracy.svg"
    args = ["accuracy", "galatjang", "easy", *SMALL_FLAGS, "--positions", "6"]
    assert main([*args, "--plot", str(target)]) == 0
    assert target.read_text().startswith("<?xml")


def test_command_refusals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["accuracy", "jinli", "easy"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Jin Li has no solver" in err and "linja, galatjang" in err
    monkeypatch.setenv("BOARDLAB_TABLES", str(tmp_path))
    assert main(["accuracy", "linja", "easy", "--positions", "5"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "boardlab solve linja" in err
    assert main(["accuracy", "galatjang", "nonsense", *SMALL_FLAGS]) == 2
    assert "'nonsense'" in capsys.readouterr().err
    assert main(["accuracy", "galatjang", "easy", "--positions", "0"]) == 2
    assert "'0'" in capsys.readouterr().err
    small = ["accuracy", "galatjang", "easy", *SMALL_FLAGS, "--positions", "3"]
    assert main([*small, "--plot", "out.txt"]) == 2
    assert "bad --plot 'out.txt'" in capsys.readouterr().err
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    assert main([*small, "--results", str(broken)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot resume from" in err
    other = tmp_path / "other.json"
    assert main([*small, "--results", str(other), "--seed", "4"]) == 0
    kept = other.read_text()
    assert main([*small, "--results", str(other)]) == 2  # seed 0, not 4: refused, kept
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds a run with other settings" in err
    assert "--seed 4" in err and "--seed 0" in err
    assert other.read_text() == kept


def test_review_accuracy_of_perfect_play_is_100(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    game = small_game()
    record = GameRecord(game)
    players = [make_agent("perfect", 1, game), make_agent("perfect", 2, game)]
    while not record.is_over():
        record.play(players[record.position.to_act].choose(record.position).action)
    result = review(record, "greedy")
    assert all(item.exact for item in result.items)
    for k in range(2):
        moves = sum(item.player == k for item in result.items)
        assert result.accuracy(k) == (100.0, moves)
        assert result.to_dict()["players"][k]["accuracy"] == 100.0
        assert result.to_dict()["players"][k]["exact_moves"] == moves
    path = tmp_path / "game.txt"
    record.save(str(path))
    assert main(["review", str(path), "--agent", "greedy"]) == 0
    out = capsys.readouterr().out
    for k in range(2):
        moves = sum(item.player == k for item in result.items)
        assert f"accuracy 100.0% over {moves} action" in out


def test_review_accuracy_sees_a_thrown_result() -> None:
    game = small_game()
    rng = random.Random(5)
    for _ in range(40):
        record = GameRecord(game)
        while not record.is_over():
            record.play(rng.choice(record.position.legal_actions()))
        result = review(record, "greedy")
        thrown = [i for i in result.items if i.mark in ("mistake", "blunder")]
        if thrown:
            player = thrown[0].player
            accuracy, moves = result.accuracy(player)
            assert accuracy is not None and accuracy < 100 and moves > 0
            return
    pytest.fail("random play threw no result away in 40 games")
