"""Hand-made evaluations, one per game: an estimate of how the game stands for a player,
in (-0.9, 0.9), so that a proven win (1) or loss (-1) always counts for more.

Each is documented in the game's card (docs/games/<game>.md, section "AI evaluation").
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from boardlab.core.game import Game
from boardlab.games.galatjang.rules import BLOCKED, GalatjangState, own_pits, pit_count
from boardlab.games.jinli.rules import ADJACENT, JinLiState, bits
from boardlab.games.linja.rules import BLACK, ROWS, LinjaState

Evaluation = Callable[[Game[Any], Any, int], float]


def squash(x: float) -> float:
    """Map a score difference onto (-0.9, 0.9)."""
    return 0.9 * math.tanh(x)


def jinli(game: Game[Any], state: JinLiState, player: int) -> float:
    """Points count most, weighed against the target; then chances to score next: for
    each own koi, the other koi two squares away or closer (a swim lands next to them),
    minus the same for the opponent; and a little for stones still in supply."""
    target = int(game.options["target"])
    all_koi = state.koi[0] | state.koi[1]

    def chances(side: int) -> int:
        total = 0
        for square in bits(state.koi[side]):
            near = 0
            for n in bits(ADJACENT[square]):
                near |= ADJACENT[n]
            total += (near & all_koi & ~(1 << square)).bit_count()
        return total

    other = 1 - player
    score = (state.score[player] - state.score[other]) / max(target, 1) * 3.0
    score += 0.08 * (chances(player) - chances(other))
    score += 0.01 * (state.supply[player] - state.supply[other])
    return squash(score)


def linja(game: Game[Any], state: LinjaState, player: int) -> float:
    """The points each side would have if the game ended now, plus progress: rows still
    to go cost a little, since they are moves the opponent may not have to make."""
    black, red = game.points(state)
    advance_black = sum(n * r for r, n in enumerate(state.counts[BLACK]))
    advance_red = sum(n * (ROWS - 1 - r) for r, n in enumerate(state.counts[1 - BLACK]))
    diff = (black - red) + 0.25 * (advance_black - advance_red)
    return squash((diff if player == BLACK else -diff) / 12.0)


def galatjang(game: Game[Any], state: GalatjangState, player: int) -> float:
    """Seeds a player would end with if the round ended now (store plus own pits), as a
    share of all seeds, and a little for the seeds in play on his side."""
    pits = pit_count(state)
    total = sum(n for n in state.ring if n != BLOCKED) or 1
    store = game.points(state)
    on_side = [sum(max(state.ring[k], 0) for k in own_pits(pits, s)) for s in (0, 1)]
    mine = store[player] + on_side[player]
    theirs = store[1 - player] + on_side[1 - player]
    return squash(4.0 * (mine - theirs) / total)


def points_only(game: Game[Any], state: Any, player: int) -> float:
    """For a game without its own evaluation: the point difference."""
    points = game.points(state)
    return squash((points[player] - points[1 - player]) / 10.0)


EVALUATIONS: dict[str, Evaluation] = {"jinli": jinli, "linja": linja, "galatjang": galatjang}


def evaluation_for(game: Game[Any]) -> Evaluation:
    return EVALUATIONS.get(game.id, points_only)


def terminal_value(game: Game[Any], state: Any, player: int) -> float:
    """1, 0 or -1 for ``player`` in a finished game."""
    outcome = game.outcome_of(state)
    assert outcome is not None
    if outcome.winner is None:
        return 0.0
    return 1.0 if outcome.winner == player else -1.0
