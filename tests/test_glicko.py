"""Glicko-2 (boardlab.puzzles.glicko): Glickman's worked example to the paper's printed
precision, a period without games, puzzle attempts and their symmetries, random attempts
that stay within bounds, and stored ratings read back or refused.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from boardlab.core.errors import BoardlabError
from boardlab.puzzles.glicko import (
    MAX_DEVIATION,
    MAX_RATING,
    MAX_VOLATILITY,
    MIN_DEVIATION,
    MIN_RATING,
    SCALE,
    Rating,
    RatingError,
    attempt,
    bounded,
    update,
)

# --------------------------------------------------------------------------- the paper


def test_glickmans_worked_example():
    """Glickman, "Example of the Glicko-2 system" (2013), steps 1-8. The paper rounds as
    it goes (mu' = -0.2069 gives r' = 1464.06; unrounded it is 1464.0507), so each value
    is checked to within one unit of its last printed digit, and mu', phi' as printed."""
    player = Rating(1500, 200, 0.06)
    results = [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)]
    new = update(player, results, tau=0.5)
    assert round((new.rating - 1500) / SCALE, 4) == -0.2069
    assert round(new.deviation / SCALE, 4) == 0.8722
    assert abs(new.rating - 1464.06) < 0.01
    assert abs(new.deviation - 151.52) < 0.01
    assert abs(new.volatility - 0.05999) < 0.00001


def test_no_games_only_the_deviation_grows_by_step_6():
    player = Rating(1623.5, 120.0, 0.07)
    new = update(player, [])
    assert new.rating == player.rating
    assert new.volatility == player.volatility
    phi = player.deviation / SCALE
    assert new.deviation == pytest.approx(SCALE * math.sqrt(phi**2 + player.volatility**2))
    assert new.deviation > player.deviation


def test_no_games_never_above_the_cap():
    rating = Rating(1500, 300, 0.5)
    for _ in range(100):
        rating = update(rating, [])
        assert rating.deviation <= MAX_DEVIATION
    assert rating.deviation == MAX_DEVIATION
    assert update(Rating(), []).deviation == MAX_DEVIATION


def test_a_draw_between_equals_moves_no_rating():
    new = update(Rating(1700, 80), [(Rating(1700, 80), 0.5)])
    assert new.rating == pytest.approx(1700)
    assert new.deviation < 80


# --------------------------------------------------------------------------- attempts


def test_solving_raises_the_player_and_lowers_the_puzzle():
    player, puzzle = Rating(1500, 150), Rating(1600, 90)
    after_player, after_puzzle = attempt(player, puzzle, solved=True)
    assert after_player.rating > player.rating
    assert after_puzzle.rating < puzzle.rating
    assert after_player.deviation < player.deviation
    assert after_puzzle.deviation < puzzle.deviation


def test_failing_lowers_the_player_and_raises_the_puzzle():
    player, puzzle = Rating(1500, 150), Rating(1600, 90)
    after_player, after_puzzle = attempt(player, puzzle, solved=False)
    assert after_player.rating < player.rating
    assert after_puzzle.rating > puzzle.rating


def test_equals_gain_and_lose_alike():
    """Two equal ratings: what the winner gains the loser loses, and a failure is the
    mirror of a success, as a draw between them would change nothing."""
    same = Rating(1500, 200, 0.06)
    won, lost = attempt(same, same, solved=True)
    assert won.rating - 1500 == pytest.approx(1500 - lost.rating)
    assert won.deviation == pytest.approx(lost.deviation)
    assert won.volatility == pytest.approx(lost.volatility)
    failed, kept = attempt(same, same, solved=False)
    assert failed == lost and kept == won


def test_a_success_mirrored_around_1500_is_a_failure():
    player, puzzle = Rating(1620, 110, 0.06), Rating(1420, 70, 0.05)
    solved_player, solved_puzzle = attempt(player, puzzle, solved=True)
    mirror = [Rating(3000 - r.rating, r.deviation, r.volatility) for r in (player, puzzle)]
    failed_player, failed_puzzle = attempt(mirror[0], mirror[1], solved=False)
    assert solved_player.rating - player.rating == pytest.approx(
        mirror[0].rating - failed_player.rating
    )
    assert solved_puzzle.rating - puzzle.rating == pytest.approx(
        mirror[1].rating - failed_puzzle.rating
    )
    assert solved_player.deviation == pytest.approx(failed_player.deviation)


def test_the_roles_are_interchangeable():
    """Each side is updated against the other's rating before the attempt, so a player
    failing a puzzle is the puzzle solving the player."""
    a, b = Rating(1550, 180, 0.06), Rating(1480, 60, 0.065)
    after_a, after_b = attempt(a, b, solved=False)
    assert attempt(b, a, solved=True) == (after_b, after_a)


def test_an_attempt_keeps_the_floor():
    """Steady players meeting again and again would grow ever surer; an attempt stops
    them at MIN_DEVIATION, which update alone does not."""
    player, puzzle = Rating(1500, 60, 0.01), Rating(1500, 60, 0.01)
    for solved in [True, False] * 40:
        player, puzzle = attempt(player, puzzle, solved)
        assert player.deviation >= MIN_DEVIATION and puzzle.deviation >= MIN_DEVIATION
    assert player.deviation == puzzle.deviation == MIN_DEVIATION
    assert update(player, [(puzzle, 1.0)]).deviation < MIN_DEVIATION


def test_bounded_clamps_every_value():
    assert bounded(Rating(-50, 10, 0.5)) == Rating(MIN_RATING, MIN_DEVIATION, MAX_VOLATILITY)
    assert bounded(Rating(9000, 900, 0.01)) == Rating(MAX_RATING, MAX_DEVIATION, 0.01)


ratings = st.builds(
    Rating,
    st.floats(MIN_RATING, MAX_RATING),
    st.floats(MIN_DEVIATION, MAX_DEVIATION),
    st.floats(0.01, MAX_VOLATILITY),
)


@settings(max_examples=60, deadline=None)
@given(ratings, st.lists(st.tuples(ratings, st.booleans()), min_size=1, max_size=40))
def test_random_attempts_stay_finite_and_within_bounds(player: Rating, attempts):
    for puzzle, solved in attempts:
        before = player
        player, after_puzzle = attempt(player, puzzle, solved)
        for rating in (player, after_puzzle):
            assert all(map(math.isfinite, rating.to_dict().values()))
            assert MIN_DEVIATION <= rating.deviation <= MAX_DEVIATION
            assert 0 < rating.volatility <= MAX_VOLATILITY
            assert Rating.from_dict(json.loads(json.dumps(rating.to_dict()))) == rating
        if solved:
            assert player.rating >= before.rating and after_puzzle.rating <= puzzle.rating
        else:
            assert player.rating <= before.rating and after_puzzle.rating >= puzzle.rating


# --------------------------------------------------------------------------- stored ratings


def test_to_dict_round_trips_through_json():
    rating = Rating(1712.25, 87.5, 0.0612)
    text = json.dumps(rating.to_dict())
    assert json.loads(text) == {"rating": 1712.25, "deviation": 87.5, "volatility": 0.0612}
    assert Rating.from_dict(json.loads(text)) == rating
    assert Rating.from_dict({"rating": 1500, "deviation": 350, "volatility": 0.06}) == Rating()
    assert Rating.from_dict({**rating.to_dict(), "games": 12}) == rating


GOOD = {"rating": 1500.0, "deviation": 200.0, "volatility": 0.06}


@pytest.mark.parametrize(
    ("data", "quoted"),
    [
        ({**GOOD, "rating": "1500"}, "'1500'"),
        ({**GOOD, "deviation": "lots"}, "'lots'"),
        ({**GOOD, "volatility": None}, "None"),
        ({**GOOD, "rating": True}, "True"),
        ({**GOOD, "rating": [1500]}, "[1500]"),
        ({**GOOD, "rating": math.nan}, "nan"),
        ({**GOOD, "deviation": math.inf}, "inf"),
        ({**GOOD, "volatility": -math.inf}, "-inf"),
        ({**GOOD, "deviation": -30.0}, "-30.0"),
        ({**GOOD, "deviation": 0}, "0"),
        ({**GOOD, "deviation": 350.5}, "350.5"),
        ({**GOOD, "volatility": 0.0}, "0.0"),
        ({**GOOD, "volatility": 1}, "1"),
        ({**GOOD, "rating": 1e300}, "1e+300"),
        ({**GOOD, "rating": -5.0}, "-5.0"),
        ({"deviation": 200.0, "volatility": 0.06}, "'deviation': 200.0"),
        ([1500, 200, 0.06], "[1500, 200, 0.06]"),
        ("1500", "'1500'"),
    ],
)
def test_from_dict_refuses_bad_data_and_quotes_it(data, quoted):
    with pytest.raises(RatingError) as excinfo:
        Rating.from_dict(data)
    assert isinstance(excinfo.value, BoardlabError)
    assert quoted in str(excinfo.value)


def test_missing_key_is_named():
    with pytest.raises(RatingError, match="volatility"):
        Rating.from_dict({"rating": 1500, "deviation": 200})


def test_a_huge_value_is_quoted_clipped():
    with pytest.raises(RatingError) as excinfo:
        Rating.from_dict({**GOOD, "rating": "9" * 10_000})
    assert len(str(excinfo.value)) < 200


def test_refusals_speak_german():
    from boardlab.core.i18n import use_language

    with use_language("de"), pytest.raises(RatingError) as excinfo:
        Rating.from_dict({**GOOD, "deviation": -30.0})
    assert str(excinfo.value) == (
        "die Abweichung einer Wertung muss über 0 und höchstens 350 sein, nicht -30.0"
    )
