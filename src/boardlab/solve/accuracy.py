"""Lichess-style accuracy from exact values: each move's accuracy from the winning chances
it gives away, and a game's from its moves'. Shared by ``boardlab accuracy`` and the review.

Lichess turns an engine's centipawns into winning chances (a logistic curve), and a move's
fall in winning chances ``drop`` (in percent) into its accuracy,
``103.1668 * exp(-0.04354 * drop) - 3.1669`` (+1 for the engine's uncertainty, at most 100).
An exact value knows the winning chances: 100 for a won position, 50 for a draw, 0 for a
lost one. So a move that keeps the result scores 100, one that turns a win into a draw (or
a draw into a loss) about 9.5, and one that turns a win into a loss 0; points given away
within the same result are the value lost, which the accuracy does not see.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def win_percent(value: float) -> float:
    """The mover's winning chances in percent for an exact value: a won position is won."""
    return 50.0 + 50.0 * ((value > 0) - (value < 0))


def move_accuracy(best_value: float, played_value: float) -> float:
    """Lichess's move accuracy for a move from a position worth ``best_value`` to one
    worth ``played_value`` (exact values, for the mover)."""
    drop = win_percent(best_value) - win_percent(played_value)
    if drop <= 0:
        return 100.0
    raw = 103.1668100711649 * math.exp(-0.04354415386753951 * drop) - 3.166924740191411
    return max(0.0, min(100.0, raw + 1.0))  # lichess's +1 for the engine's uncertainty


def game_accuracy(accuracies: Sequence[float]) -> float | None:
    """A game's (or a level's) accuracy from its moves', as lichess counts it: the mean of
    the arithmetic and the harmonic mean (each move at least 1, as a harmonic mean needs),
    without lichess's weighting by how volatile the position was. None without moves."""
    if not accuracies:
        return None
    mean = sum(accuracies) / len(accuracies)
    harmonic = len(accuracies) / sum(1.0 / max(1.0, a) for a in accuracies)
    return round((mean + harmonic) / 2, 9)  # perfect play 100 exactly, not 99.999...
