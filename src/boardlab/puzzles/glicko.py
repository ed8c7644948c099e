"""Glicko-2 ratings, as lichess rates puzzles: after each attempt both the player and the
puzzle are updated, the player winning when the puzzle is solved.

The algorithm is Mark Glickman's, "Example of the Glicko-2 system" (2013), steps 1-8 with
the Illinois algorithm for the volatility. Everything here is a pure function of plain
values, because ratings are kept as JSON by a browser (later by an account): a stored
rating is read back with ``Rating.from_dict``, which refuses what no update could produce.

>>> player, puzzle = attempt(Rating(), Rating(1500, 100), solved=True)
>>> round(player.rating), round(puzzle.rating)
(1675, 1481)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from boardlab.core.errors import BoardlabError, clipped
from boardlab.core.i18n import _

#: The factor between the Glicko scale (1500, RD 350) and Glicko-2's (mu 0, phi 2.01).
SCALE = 173.7178
#: The system constant: how much the volatility may change in one period (0.3 to 1.2 are
#: reasonable, says Glickman; 0.5 is his example's).
TAU = 0.5
#: When the Illinois algorithm stops: the width of its bracket on ln(volatility²).
EPSILON = 1e-6
#: The deviation of a player nothing is known about, and so the most there can be: as
#: uncertain as a newcomer, never more (lichess caps it too, at its own starting RD).
MAX_DEVIATION = 350.0
#: The least deviation an attempt leaves (lichess's ``Glicko.minDeviation``): without it a
#: puzzle played by thousands would stop moving, and a player's rating would freeze.
MIN_DEVIATION = 45.0
#: The most volatility an attempt leaves (lichess's ``maxVolatility``): past it a rating
#: may never settle again.
MAX_VOLATILITY = 0.1
#: The ratings a stored rating may have and an attempt leaves (lichess's bounds): far
#: beyond any real player, and near enough that the expected scores stay representable.
MIN_RATING = 400.0
MAX_RATING = 4000.0


class RatingError(BoardlabError):
    """A stored rating that is not one: not numbers, or outside what a rating may be."""


@dataclass(frozen=True)
class Rating:
    """A rating on the public Glicko scale: the estimate, its deviation (two of them
    either side is a 95% interval) and the volatility (how erratic the results are)."""

    rating: float = 1500.0
    deviation: float = MAX_DEVIATION
    volatility: float = 0.06

    def to_dict(self) -> dict[str, float]:
        """The rating as JSON keeps it."""
        return {"rating": self.rating, "deviation": self.deviation, "volatility": self.volatility}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Rating:
        """A rating read back from JSON, which a browser may have altered: every value a
        finite number within bounds, else a ``RatingError`` quoting it. Other keys are
        ignored, so that a later version may store more."""
        if not isinstance(data, Mapping):
            raise RatingError(
                _(
                    "a rating must be an object with rating, deviation and volatility, not {value}"
                ).format(value=clipped(repr(data)))
            )
        values = {key: _number(data, key) for key in ("rating", "deviation", "volatility")}
        rating, deviation, volatility = values["rating"], values["deviation"], values["volatility"]
        if not MIN_RATING <= rating <= MAX_RATING:
            raise RatingError(
                _("the rating must be between {low:g} and {high:g}, not {value}").format(
                    low=MIN_RATING, high=MAX_RATING, value=clipped(repr(data["rating"]))
                )
            )
        if not 0 < deviation <= MAX_DEVIATION:
            raise RatingError(
                _(
                    "the deviation of a rating must be above 0 and at most {high:g}, not {value}"
                ).format(high=MAX_DEVIATION, value=clipped(repr(data["deviation"])))
            )
        if not 0 < volatility < 1:
            raise RatingError(
                _("the volatility of a rating must be above 0 and below 1, not {value}").format(
                    value=clipped(repr(data["volatility"]))
                )
            )
        return cls(rating, deviation, volatility)


def _number(data: Mapping[str, Any], key: str) -> float:
    """``data[key]`` as a finite float: a JSON number, not a string, a boolean or NaN."""
    if key not in data:
        raise RatingError(
            _("a rating lacks its {key}: {value}").format(key=key, value=clipped(repr(data)))
        )
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise RatingError(
            _("the {key} of a rating must be a number, not {value}").format(
                key=key, value=clipped(repr(value))
            )
        )
    if not math.isfinite(value):
        raise RatingError(
            _("the {key} of a rating must be a finite number, not {value}").format(
                key=key, value=clipped(repr(value))
            )
        )
    return float(value)


def _g(phi: float) -> float:
    """How much an opponent's uncertainty dampens what a result against them says."""
    return 1 / math.sqrt(1 + 3 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, g_j: float) -> float:
    """The expected score against an opponent, as a logistic that never overflows."""
    x = g_j * (mu - mu_j)
    if x >= 0:
        return 1 / (1 + math.exp(-x))
    e = math.exp(x)
    return e / (1 + e)


def _volatility(sigma: float, phi: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility, the root of Glickman's f by the Illinois algorithm
    (regula falsi that halves the stale end, so it cannot stall on one side)."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        d = phi * phi + v + ex
        return ex * (delta * delta - phi * phi - v - ex) / (2 * d * d) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2)


def update(player: Rating, results: Sequence[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """The player's rating after one rating period: ``results`` are (opponent's rating at
    the start of the period, score 1, 0.5 or 0). With no results only the deviation grows
    (step 6), as time without games makes a rating less certain. The deviation is capped
    at ``MAX_DEVIATION`` and nothing else is bounded, so Glickman's example comes out as
    printed; ``bounded`` applies the floors an attempt needs."""
    mu = (player.rating - 1500) / SCALE  # step 2
    phi = player.deviation / SCALE
    sigma = player.volatility
    if not results:
        phi_new = math.sqrt(phi * phi + sigma * sigma)  # step 6 alone
        return replace(player, deviation=min(phi_new * SCALE, MAX_DEVIATION))
    information = 0.0  # step 3: 1/v, the information the games carry
    improvement = 0.0  # step 4: delta / v, the results beyond what was expected
    for opponent, score in results:
        g_j = _g(opponent.deviation / SCALE)
        e_j = _expected(mu, (opponent.rating - 1500) / SCALE, g_j)
        information += g_j * g_j * e_j * (1 - e_j)
        improvement += g_j * (score - e_j)
    v = 1 / information
    sigma_new = _volatility(sigma, phi, v, v * improvement, tau)  # step 5
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)  # step 6
    phi_new = 1 / math.sqrt(1 / (phi_star * phi_star) + information)  # step 7
    mu_new = mu + phi_new * phi_new * improvement
    return Rating(  # step 8
        rating=mu_new * SCALE + 1500,
        deviation=min(phi_new * SCALE, MAX_DEVIATION),
        volatility=sigma_new,
    )


def bounded(rating: Rating) -> Rating:
    """``rating`` within the bounds an attempt keeps, as lichess caps its ratings: the
    deviation at least ``MIN_DEVIATION`` (so ratings keep moving), the volatility at most
    ``MAX_VOLATILITY`` and the rating within ``MIN_RATING``..``MAX_RATING``, so that
    ``Rating.from_dict`` accepts whatever an attempt stored."""
    return Rating(
        rating=min(max(rating.rating, MIN_RATING), MAX_RATING),
        deviation=min(max(rating.deviation, MIN_DEVIATION), MAX_DEVIATION),
        volatility=min(rating.volatility, MAX_VOLATILITY),
    )


def attempt(
    player: Rating, puzzle: Rating, solved: bool, tau: float = TAU
) -> tuple[Rating, Rating]:
    """The player's and the puzzle's ratings after one attempt: each a rating period of one
    game against the other's rating before the attempt (so the order does not matter), the
    player winning if ``solved`` and the puzzle otherwise, both then ``bounded``."""
    score = 1.0 if solved else 0.0
    return (
        bounded(update(player, [(puzzle, score)], tau)),
        bounded(update(puzzle, [(player, 1.0 - score)], tau)),
    )
