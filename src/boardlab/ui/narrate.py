"""What just happened, in words: each action explained as it is played, so that a
newcomer learns the rules by playing. The game narrates (``Game.narrate``) as notes;
this turns them into sentences."""

from __future__ import annotations

from typing import Any

from boardlab.core.game import Position


def explain(before: Position[Any], action: int, after: Position[Any] | None = None) -> list[str]:
    """Sentences that explain ``action`` played in ``before``."""
    return [str(note) for note in before.game.narrate(before.state, action)]
