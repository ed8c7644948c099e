"""The SPRT of a match: parsing, the generalised log-likelihood ratio against its normal
approximation, error rates on simulated matches of known strength, and a match that
stops when the test decides."""

from __future__ import annotations

import math
import random

import pytest

from boardlab.arena import play_match
from boardlab.arena.sprt import OUTCOMES, Sprt, expected_score, most_likely, pair_counts
from boardlab.cli import main
from boardlab.core.errors import BoardlabError


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("elo0=0", "elo0 and elo1 are needed"),
        ("elo0=0,elo1=10,gamma=1", "bad SPRT parameter 'gamma=1'"),
        ("elo0=0,elo1=ten", "bad SPRT value 'ten' for elo1"),
        ("elo0=0,elo1=nan", "not finite"),
        ("elo0=5,elo1=5", "expected elo0 < elo1"),
        ("elo0=0,elo1=10,alpha=0.7", "alpha must lie between 0 and 0.5"),
        ("elo0=0,elo0=1,elo1=10", "each once"),
    ],
)
def test_bad_tests_are_named(text: str, message: str) -> None:
    with pytest.raises(BoardlabError, match=message):
        Sprt.parse(text)


def test_the_bounds_are_wald_s() -> None:
    low, high = Sprt.parse("elo0=0,elo1=5,alpha=0.05,beta=0.1").bounds()
    assert low == pytest.approx(math.log(0.1 / 0.95))
    assert high == pytest.approx(math.log(0.9 / 0.05))


def test_the_most_likely_distribution_has_the_mean_asked_for() -> None:
    observed = [0.05, 0.2, 0.4, 0.25, 0.1]
    for mean in (0.3, 0.5, 0.52, 0.7):
        p = most_likely(observed, mean)
        assert sum(p) == pytest.approx(1.0)
        assert sum(x * q for x, q in zip(OUTCOMES, p, strict=True)) == pytest.approx(mean)
        assert all(q > 0 for q in p)


@pytest.mark.parametrize(
    "counts", [[100, 200, 400, 260, 140], [30, 300, 900, 310, 20], [400, 300, 300, 250, 350]]
)
def test_the_llr_agrees_with_the_normal_approximation(counts: list[int]) -> None:
    # For many pairs the GSPRT's LLR is close to N (s1 - s0)(2 mu - s0 - s1) / (2 var).
    test = Sprt.parse("elo0=0,elo1=10")
    n = sum(counts)
    mu = sum(c * x for c, x in zip(counts, OUTCOMES, strict=True)) / n
    var = sum(c * (x - mu) ** 2 for c, x in zip(counts, OUTCOMES, strict=True)) / n
    s0, s1 = expected_score(0), expected_score(10)
    approximation = n * (s1 - s0) * (2 * mu - s0 - s1) / (2 * var)
    assert test.llr(counts) == pytest.approx(approximation, rel=0.03, abs=0.05)


def simulated_pair(rng: random.Random, elo: float, draws: float = 0.2) -> float:
    """A's points in a pair of games against an opponent ``elo`` weaker."""
    score = expected_score(elo)
    win, loss = score - draws / 2, 1 - score - draws / 2
    points = 0.0
    for _ in range(2):
        r = rng.random()
        points += 1.0 if r < win else 0.0 if r < win + loss else 0.5
    return points


@pytest.mark.parametrize(("truth", "expected"), [(0.0, "H0"), (40.0, "H1")])
def test_the_test_accepts_the_truth_as_often_as_promised(truth: float, expected: str) -> None:
    test = Sprt.parse("elo0=0,elo1=40,alpha=0.05,beta=0.05")
    rng = random.Random(11)
    right = 0
    for _ in range(100):
        counts = [0] * 5
        verdict = None
        while verdict is None:
            for _ in range(4):
                counts[round(2 * simulated_pair(rng, truth))] += 1
            verdict = test.verdict(counts)
        right += verdict == expected
    assert right >= 88  # 95 expected; below 88 has a chance under 1 in 100 at the promise


class Result:
    def __init__(self, index: int, a_score: float) -> None:
        self.index, self.a_score = index, a_score


def test_pairs_are_the_seat_swapped_games_2k_and_2k_plus_1() -> None:
    results = [Result(0, 1.0), Result(1, 0.5), Result(3, 0.0), Result(2, 0.0), Result(4, 1.0)]
    assert pair_counts(results) == [1, 0, 0, 1, 0]  # pair 0: 1.5, pair 1: 0; game 4 alone


def test_a_match_stops_when_the_test_decides() -> None:
    test = Sprt.parse("elo0=0,elo1=100")
    result = play_match(
        "galatjang",
        "easy",
        "random",
        400,
        jobs=1,
        stop=lambda r: test.verdict(pair_counts(r)) is not None,
    )
    assert len(result.games) < 400
    assert test.verdict(pair_counts(result.games)) == "H1"
    assert test.verdict(pair_counts(result.games[:-2])) is None  # it did not go on after


def test_match_with_sprt_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["match", "galatjang", "easy", "random", "--sprt", "elo0=0,elo1=100", "-j", "2"]) == 0
    )
    out = capsys.readouterr().out
    assert "SPRT: H1 accepted (elo1=100), LLR +" in out and "(-2.94, +2.94)" in out
    assert main(["match", "galatjang", "easy", "random", "--sprt", "elo0=0"]) == 2
    assert "elo0 and elo1 are needed" in capsys.readouterr().err
