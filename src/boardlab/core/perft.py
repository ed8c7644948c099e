"""perft: the number of action sequences of a given length (docs/engine.md).

perft(p, 0) = 1; perft(p, d) = 0 if p is over; else the sum over the legal actions.
Works on raw states through the game's unchecked fast path. Counts at depth 1 are the
number of legal actions, and subtrees are cached by (state, depth): perft depends on
nothing else, so transpositions are counted once and multiplied.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from boardlab.core.game import Game, Position


def perft(position: Position[Any], depth: int) -> int:
    """perft of ``position`` to ``depth`` actions."""
    if depth < 0:
        raise ValueError(f"perft depth must be 0 or more, got {depth}")
    return _perft(position.game, position.state, depth, {})


Counter = Callable[[Position[Any], int], int]


def divide(
    position: Position[Any], depth: int, count: Counter | None = None
) -> list[tuple[str, int]]:
    """perft(child, depth - 1) for each legal action, as (action string, count); by the
    Python rules with one cache for all children, or by ``count`` (a compiled perft)."""
    if depth < 1:
        raise ValueError(f"perft divide needs a depth of 1 or more, got {depth}")
    game = position.game
    cache: dict[tuple[Hashable, int], int] = {}
    return [
        (
            position.action_string(a),
            count(position.play_unchecked(a), depth - 1)
            if count is not None
            else _perft(game, game.apply(position.state, a), depth - 1, cache),
        )
        for a in position.legal_actions()
    ]


def _perft(game: Game[Any], state: Any, depth: int, cache: dict[tuple[Hashable, int], int]) -> int:
    if depth == 0:
        return 1
    actions = game.legal_actions(state)
    if depth == 1:
        return len(actions)
    key = (state, depth)
    if key in cache:
        return cache[key]
    count = sum(_perft(game, game.apply(state, a), depth - 1, cache) for a in actions)
    cache[key] = count
    return count
