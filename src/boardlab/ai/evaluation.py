"""The evaluations the searching agents use: each game declares its own
(``Game.evaluate``, documented in the game's card, section "AI evaluation"), an estimate
in (-0.9, 0.9) so that a proven win (1) or loss (-1) always counts for more."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from boardlab.core.game import Game

Evaluation = Callable[[Game[Any], Any, int], float]


def evaluation_for(game: Game[Any]) -> Evaluation:
    """``evaluate(game, state, player)`` for ``game``."""
    return type(game).evaluate


def terminal_value(game: Game[Any], state: Any, player: int) -> float:
    """1, 0 or -1 for ``player`` in a finished game."""
    outcome = game.outcome_of(state)
    assert outcome is not None
    if outcome.winner is None:
        return 0.0
    return 1.0 if outcome.winner == player else -1.0
