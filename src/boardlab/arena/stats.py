"""Match statistics: the score with a 95% confidence interval and the Elo difference.

The score is the mean result per game (win 1, draw 0.5, loss 0). Its interval is the
Wilson score interval, which stays sensible at the extremes (20 wins in 20 games gives
0.84 to 1, not a zero-width interval) and is a little conservative when there are draws;
the Elo difference is the logistic transform of the score, and its bounds are the
transforms of the score's bounds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Z95 = 1.959964


@dataclass(frozen=True)
class Score:
    """Wins, draws and losses of one side, and what follows from them."""

    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def mean(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games if self.games else 0.5

    def interval(self) -> tuple[float, float]:
        return score_interval(self.wins, self.draws, self.losses)

    def elo(self) -> tuple[float, float, float]:
        """The Elo difference and its 95% bounds (infinite at a score of 0 or 1)."""
        low, high = self.interval()
        return elo_difference(self.mean), elo_difference(low), elo_difference(high)


def score_interval(wins: int, draws: int, losses: int) -> tuple[float, float]:
    """The 95% Wilson interval of the mean score."""
    n = wins + draws + losses
    if n == 0:
        return 0.0, 1.0
    p = (wins + 0.5 * draws) / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def elo_difference(score: float) -> float:
    """The Elo difference that gives an expected ``score``."""
    if score <= 1e-9:
        return -math.inf
    if score >= 1.0 - 1e-9:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)
