"""Shared test helpers: option sets to sweep, random games, Hypothesis strategies."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

import boardlab
from boardlab.core.game import Game, Position
from boardlab.core.options import Option

#: Small values for integer options, so that random games stay short and varied.
INT_CHOICES: dict[tuple[str, str], tuple[int, ...]] = {
    ("jinli", "target"): (1, 3, 10, 15),
    ("jinli", "stones"): (0, 1, 2, 6, 10, 22),
    ("jinli", "max_turns"): (1, 2, 7, 40, 300),
    ("linja", "max_turns"): (1, 2, 9, 60, 1000),
    ("galatjang", "pits"): (1, 2, 3, 4, 6, 7),
    ("galatjang", "seeds"): (1, 2, 3, 4, 6),
    ("galatjang", "max_turns"): (1, 2, 5, 30, 500),
    ("galatjang", "rounds"): (1, 2, 3, 5),
}


def option_values(game_id: str, option: Option) -> tuple[Any, ...]:
    if option.kind == "bool":
        return (False, True)
    if option.kind == "choice":
        return option.choices
    return INT_CHOICES.get((game_id, option.name), (option.default,))


def random_options(game_id: str, rng: random.Random) -> dict[str, Any]:
    """An option set drawn uniformly from each option's values above."""
    schema = boardlab.game_class(game_id).schema
    return {o.name: rng.choice(option_values(game_id, o)) for o in schema}


def options_strategy(game_id: str) -> st.SearchStrategy[dict[str, Any]]:
    schema = boardlab.game_class(game_id).schema
    return st.fixed_dictionaries(
        {o.name: st.sampled_from(option_values(game_id, o)) for o in schema}
    )


def games_strategy() -> st.SearchStrategy[Game[Any]]:
    """Any registered game under any option set the value lists can reach."""
    return st.sampled_from(boardlab.game_ids()).flatmap(
        lambda gid: options_strategy(gid).map(lambda options: boardlab.new_game(gid, options))
    )


def random_game(game: Game[Any], rng: random.Random) -> list[Position[Any]]:
    """The positions of one uniformly random game, start to end."""
    positions = [game.initial()]
    while not positions[-1].is_over():
        positions.append(positions[-1].play(rng.choice(positions[-1].legal_actions())))
    return positions


PERFT_DATA = Path(__file__).parent / "data" / "perft"


def perft_cases(game_id: str) -> list[tuple[str, dict[str, str], str, dict[int, int]]]:
    """The perft table of a game: (case name, options as text, position, depth -> count)."""
    cases = []
    for block in (PERFT_DATA / f"{game_id}.perft").read_text().split("\n\n"):
        fields: dict[str, str] = {}
        counts: dict[int, int] = {}
        for line in block.splitlines():
            if not line or line.startswith("#"):
                continue
            key, _, value = line.partition(" ")
            if key == "perft":
                depth, count = value.split()
                counts[int(depth)] = int(count)
            else:
                fields[key] = value
        if counts:
            options = dict(o.split("=", 1) for o in fields["options"].split())
            cases.append((fields["case"], options, fields["position"], counts))
    return cases


class TooBig(Exception):
    """The position's game tree is larger than the exact search may visit."""


def minimax(
    game: Game[Any], state: Any, cap: int = 100_000, memo: dict[Any, int] | None = None
) -> tuple[int, dict[int, int]]:
    """The exact value of ``state`` for its player to act (1 win, 0 draw, -1 loss) and
    the exact value of each legal action for that player, by plain minimax over the
    engine's own actions. A child with the same player to act (a turn of several
    actions) keeps the point of view; otherwise the value is negated. Memoised on the
    state; TooBig when more than ``cap`` states (or lines over 200 actions) would be
    visited. ``memo`` may be shared between calls on positions of one game."""
    memo = {} if memo is None else memo

    def value(s: Any, ply: int) -> int:
        if s in memo:
            return memo[s]
        if len(memo) >= cap or ply > 200:
            raise TooBig
        me = game.to_act(s)
        outcome = game.outcome_of(s)
        if outcome is not None:
            result = 0 if outcome.winner is None else 1 if outcome.winner == me else -1
        else:
            result = -1
            for action in game.legal_actions(s):
                result = max(result, child_value(s, me, action, ply))
                if result == 1:
                    break  # nothing is better than a win
        memo[s] = result
        return result

    def child_value(s: Any, me: int, action: int, ply: int) -> int:
        child = game.apply(s, action)
        v = value(child, ply + 1)
        return v if game.to_act(child) == me else -v

    me = game.to_act(state)
    per_action = {a: child_value(state, me, a, 0) for a in game.legal_actions(state)}
    return value(state, 0), per_action


def exact_points(
    game: Game[Any], state: Any, memo: dict[Any, int], key: Callable[[Any], Any] | None = None
) -> int:
    """The final points difference (player to act minus opponent) when both sides
    maximise their own difference, by plain minimax over the engine's own actions: the
    oracle of the exact solvers. Memoised on ``key(state)`` (default the state)."""
    mark = state if key is None else key(state)
    if mark in memo:
        return memo[mark]
    outcome = game.outcome_of(state)
    if outcome is not None:
        me = game.to_act(state)
        value = outcome.points[me] - outcome.points[1 - me]
    else:
        actions = game.legal_actions(state)
        value = max(exact_points_after(game, state, a, memo, key) for a in actions)
    memo[mark] = value
    return value


def exact_points_after(
    game: Game[Any],
    state: Any,
    action: int,
    memo: dict[Any, int],
    key: Callable[[Any], Any] | None = None,
) -> int:
    """``exact_points`` of ``action`` for the player to act at ``state``: a child with
    the same player to act (a turn of several actions) keeps the sign."""
    child = game.apply(state, action)
    value = exact_points(game, child, memo, key)
    return value if game.to_act(child) == game.to_act(state) else -value


def game_helpers(game_id: str) -> tuple[Any, Any, Any]:
    """``game(**options)``, ``at(position string, **options)`` and
    ``after(position string, actions, **options)`` for one game's rule tests."""

    def game(**options: object) -> Game[Any]:
        return boardlab.new_game(game_id, **options)

    def at(text: str, **options: object) -> Position[Any]:
        return game(**options).from_position_string(text)

    def after(text: str, actions: list[str], **options: object) -> Position[Any]:
        return at(text, **options).play_all(actions)

    return game, at, after


def legal(position: Position[Any]) -> set[str]:
    return set(position.legal_action_strings())


def ended(position: Position[Any]) -> tuple[str, tuple[int, int], str]:
    """The finished game's winner name, points and reason (and that it is really over)."""
    outcome = position.outcome()
    assert outcome is not None
    assert position.is_over()
    assert position.legal_action_strings() == []
    return outcome.winner_name, outcome.points, outcome.reason


def same_without_jit(code: str) -> str:
    """What ``code`` prints, run once as plain Python (``NUMBA_DISABLE_JIT=1``) and once
    compiled; the two must be equal."""
    runs = []
    for disable in ("1", "0"):
        env = {**os.environ, "NUMBA_DISABLE_JIT": disable}
        run = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
        )
        assert run.returncode == 0, run.stderr
        runs.append(run.stdout)
    assert runs[0] == runs[1]
    return runs[0]
