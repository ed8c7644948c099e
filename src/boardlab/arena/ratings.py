"""Ratings from a tournament's games: a Bradley-Terry model with a first-move advantage and
a draw term, fitted by maximum likelihood, as BayesElo does.

For a game of ``i`` (first to act) against ``j``, with ``d = r_i - r_j + advantage`` and
``f(x) = 1 / (1 + 10^(-x / 400))``::

    P(i wins) = f(d - draw_elo)      P(j wins) = f(-d - draw_elo)      P(draw) = the rest

so ``advantage`` is the Elo worth of moving first and ``draw_elo`` how drawish the game
is. Like BayesElo, every pair of agents that met gets two virtual draws (one each way) as
a prior, so that a perfect score gives a large finite rating, not an infinite one. The
ratings are centred on their mean; their 95% intervals come from the curvature of the
log-likelihood at its maximum (the Laplace approximation). Pure Python: the games are
counted by (first, second, result) first, so the fit costs no more for more games.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass

Z95 = 1.959964
PRIOR_DRAWS = 1.0  # virtual draws each way between agents that met


@dataclass(frozen=True)
class Fit:
    """The fitted ratings (mean 0) with their 95% half-widths, the first-move advantage
    and the draw term, in Elo."""

    ratings: dict[str, float]
    margins: dict[str, float]
    advantage: float
    advantage_margin: float
    draw_elo: float


def _f(x: float) -> float:
    return float(1.0 / (1.0 + 10.0 ** (-x / 400.0)))


def fit(agents: Sequence[str], games: Sequence[tuple[str, str, float]]) -> Fit:
    """Fit ``games`` given as (first agent, second agent, the first agent's score: 1, 0.5
    or 0) among ``agents``."""
    index = {name: k for k, name in enumerate(agents)}
    counts: defaultdict[tuple[int, int, float], float] = defaultdict(float)
    for first, second, score in games:
        counts[index[first], index[second], score] += 1.0
    met = {(i, j) for i, j, _ in counts} | {(j, i) for i, j, _ in counts}
    for i, j in met:
        counts[i, j, 0.5] += PRIOR_DRAWS
    n = len(agents)

    def unpack(theta: list[float]) -> tuple[list[float], float, float]:
        ratings = [*theta[: n - 1], -sum(theta[: n - 1])]
        return ratings, theta[n - 1], theta[n]

    def loglik(theta: list[float]) -> float:
        ratings, advantage, draw = unpack(theta)
        if draw <= 0:
            return -math.inf
        total = 0.0
        for (i, j, score), weight in counts.items():
            d = ratings[i] - ratings[j] + advantage
            win, loss = _f(d - draw), _f(-d - draw)
            p = win if score == 1.0 else loss if score == 0.0 else 1.0 - win - loss
            total += weight * math.log(max(p, 1e-300))
        return total

    theta = [0.0] * (n - 1) + [0.0, 100.0]
    step = 1.0
    for _ in range(200):
        gradient, hessian = _derivatives(loglik, theta, step)
        move = _solve([[-h for h in row] for row in hessian], gradient)
        if move is None:
            break
        scale = 1.0
        here = loglik(theta)
        while scale > 1e-6:  # a damped Newton step that improves the likelihood
            trial = [t + scale * m for t, m in zip(theta, move, strict=True)]
            if loglik(trial) >= here:
                break
            scale /= 2
        theta = trial
        if max(abs(scale * m) for m in move) < 1e-4:
            break
    ratings, advantage, draw = unpack(theta)
    _, hessian = _derivatives(loglik, theta, step)
    covariance = _inverse([[-h for h in row] for row in hessian])
    margins: dict[str, float] = {}
    for k, name in enumerate(agents):
        if covariance is None:
            margins[name] = math.inf
        elif k < n - 1:
            margins[name] = Z95 * math.sqrt(max(covariance[k][k], 0.0))
        else:  # r_last = -(r_0 + ... + r_{n-2}): the variance of that sum
            total = sum(covariance[a][b] for a in range(n - 1) for b in range(n - 1))
            margins[name] = Z95 * math.sqrt(max(total, 0.0))
    advantage_margin = (
        math.inf if covariance is None else Z95 * math.sqrt(max(covariance[n - 1][n - 1], 0.0))
    )
    return Fit(
        {name: ratings[k] for k, name in enumerate(agents)},
        margins,
        advantage,
        advantage_margin,
        draw,
    )


def _derivatives(
    function: Callable[[list[float]], float], theta: list[float], h: float
) -> tuple[list[float], list[list[float]]]:
    """The gradient and Hessian of ``function`` at ``theta`` by central differences."""
    size = len(theta)

    def at(*changes: tuple[int, float]) -> float:
        point = list(theta)
        for k, delta in changes:
            point[k] += delta
        return function(point)

    centre = at()
    gradient = [(at((k, h)) - at((k, -h))) / (2 * h) for k in range(size)]
    hessian = [[0.0] * size for _ in range(size)]
    for a in range(size):
        hessian[a][a] = (at((a, h)) - 2 * centre + at((a, -h))) / (h * h)
        for b in range(a + 1, size):
            value = (
                at((a, h), (b, h))
                - at((a, h), (b, -h))
                - at((a, -h), (b, h))
                + at((a, -h), (b, -h))
            ) / (4 * h * h)
            hessian[a][b] = hessian[b][a] = value
    return gradient, hessian


def _inverse(matrix: list[list[float]]) -> list[list[float]] | None:
    """The inverse by Gauss-Jordan elimination, or None if it is singular."""
    size = len(matrix)
    work = [row[:] + [1.0 if i == j else 0.0 for j in range(size)] for i, row in enumerate(matrix)]
    for column in range(size):
        pivot = max(range(column, size), key=lambda r: abs(work[r][column]))
        if abs(work[pivot][column]) < 1e-12:
            return None
        work[column], work[pivot] = work[pivot], work[column]
        scale = work[column][column]
        work[column] = [x / scale for x in work[column]]
        for row in range(size):
            if row != column and work[row][column]:
                factor = work[row][column]
                work[row] = [x - factor * y for x, y in zip(work[row], work[column], strict=True)]
    return [row[size:] for row in work]


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float] | None:
    inverse = _inverse(matrix)
    if inverse is None:
        return None
    return [sum(a * b for a, b in zip(row, vector, strict=True)) for row in inverse]
