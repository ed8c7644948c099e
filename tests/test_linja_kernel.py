"""What only the Linja kernel is tested on, beside the shipped check every kernel passes
(tests/test_kernels.py: random games, option sets, perft positions, playouts, plain
Python): corners of the rules and random position strings (full rows, empty goals and
start zones, blocked moves), every position and playout from them against the engine."""

from __future__ import annotations

import random
from typing import Any

import pytest

from optional import need

need("numba")

import boardlab  # noqa: E402
from boardlab.core.errors import InvalidNotationError  # noqa: E402
from boardlab.testing import check_kernel_game, check_playout  # noqa: E402
from support import random_options  # noqa: E402


def game_of(options: dict[str, Any] | None = None) -> Any:
    return boardlab.new_game("linja", options or {})


def random_counts(r: random.Random) -> list[int]:
    """12 pieces over rows 0..7: spread out, or packed into a few rows (full rows,
    empty goals and start zones, blocked moves)."""
    rows = list(range(8)) if r.random() < 0.4 else r.sample(range(8), r.randint(1, 4))
    counts = [0] * 8
    for _ in range(12):
        counts[r.choice(rows)] += 1
    return counts


def random_state_string(r: random.Random, extra_turn: bool) -> str:
    """A random position string (not always a legal one: the parser judges)."""
    while True:
        black, red = random_counts(r), random_counts(r)
        if all(black[i] + red[i] <= 6 for i in range(1, 7)):
            break
    phase = r.choice(("o", "o", "b", f"f{r.randint(1, 5)}", f"f{r.randint(6, 70)}"))
    if extra_turn:
        phase = phase.replace("b", "o") + r.choice(("", "+"))
    return (
        f"{','.join(map(str, black))}/{','.join(map(str, red))} {r.choice('br')} {phase} "
        f"{r.choice((0, 0, 1, 2, 3))} {r.choice((0, 5, 8, 999))}"
    )


#: (options, position): corners of the rules
EDGE_CASES = [
    # an extra turn without an opening move: pass, not a pass turn
    ("ruleset=extra-turn", "6,0,0,0,0,0,0,6/6,6,0,0,0,0,0,0 b o+ 1 4"),
    ("ruleset=extra-turn", "0,0,0,0,0,0,6,6/6,0,0,0,0,0,0,6 r o+ 1 4"),
    # a follow-up into an empty goal earns no extra turn
    ("ruleset=extra-turn", "6,1,1,1,1,1,1,0/3,2,2,2,2,1,0,0 b f1 0 3"),
    ("ruleset=extra-turn", "0,0,1,2,2,2,2,3/0,1,1,1,1,1,1,6 r f1 0 3"),
    # a follow-up far beyond the goal while row 6 (row 1) is full
    ("", "6,1,1,1,1,1,1,0/0,1,1,1,1,0,5,3 b f7 0 3"),
    ("", "3,5,0,1,1,1,1,0/0,1,1,1,1,1,1,6 r f7 0 3"),
    ("nasty=true goal_step_back=true", "2,1,2,1,2,1,1,2/1,1,2,1,2,1,2,2 b b 0 20"),
    ("nasty=true goal_step_back=true", "2,1,2,1,2,1,1,2/1,1,2,1,2,1,2,2 r b 0 20"),
    ("bonus_after_opening=true", "0,0,0,0,0,0,6,6/6,0,0,0,0,0,0,6 b o 0 0"),
]


@pytest.mark.parametrize(("options", "position"), EDGE_CASES)
def test_edge_cases(options: str, position: str) -> None:
    game = game_of(dict(o.split("=") for o in options.split()))
    r = random.Random(position)
    for _ in range(20):
        assert check_kernel_game(game, r, game.parse_state(position)) >= 1


def test_random_positions() -> None:
    """Every position of a random game from each, with the playouts from its first, one
    random and its last position."""
    r = random.Random(11)
    positions = 0
    while positions < 1500:
        options = random_options("linja", r)
        game = game_of(options)
        try:
            state = game.parse_state(random_state_string(r, game.rules.extra_turn))
        except InvalidNotationError:
            continue
        positions += 1
        check_kernel_game(game, r, state)


def test_playouts_from_random_positions_match_the_engine() -> None:
    r = random.Random(13)
    done = 0
    while done < 200:
        game = game_of(random_options("linja", r))
        try:
            state = game.parse_state(random_state_string(r, game.rules.extra_turn))
        except InvalidNotationError:
            continue
        done += 1
        check_playout(game, state, done)
