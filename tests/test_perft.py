"""Perft tables (tests/data/perft/*.perft) for each game under default and other options.

Every case was cross-checked with the reference implementation to the depth its file
notes; the deeper counts pin the engine's move generation from there on."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

import boardlab
from boardlab.cli import main
from boardlab.core.perft import divide, perft
from support import perft_cases

SLOW_COUNT = 1_000_000


@dataclass(frozen=True)
class Case:
    name: str
    game: str
    options: tuple[str, ...]
    position: str
    counts: tuple[tuple[int, int], ...]


def read_cases() -> list[Case]:
    return [
        Case(
            name,
            game_id,
            tuple(f"{k}={v}" for k, v in options.items()),
            position,
            tuple(sorted(counts.items())),
        )
        for game_id in ("galatjang", "jinli", "linja")
        for name, options, position, counts in perft_cases(game_id)
    ]


CASES = read_cases()
PARAMS = [
    pytest.param(
        case,
        depth,
        count,
        id=f"{case.name}-{depth}",
        marks=[pytest.mark.slow] if count > SLOW_COUNT else [],
    )
    for case in CASES
    for depth, count in case.counts
]


def position_of(case: Case) -> boardlab.Position:  # type: ignore[type-arg]
    cls = boardlab.game_class(case.game)
    game = boardlab.new_game(case.game, cls.schema.parse_assignments(case.options))
    return game.from_position_string(case.position)


def test_tables_cover_every_game_with_five_option_sets_to_depth_four() -> None:
    for game_id in boardlab.game_ids():
        cases = [c for c in CASES if c.game == game_id]
        assert len({c.options for c in cases}) >= 5
        assert all(max(d for d, _ in c.counts) >= 4 for c in cases)


@pytest.mark.parametrize(("case", "depth", "count"), PARAMS)
def test_perft_matches_table(case: Case, depth: int, count: int) -> None:
    assert perft(position_of(case), depth) == count


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_divide_sums_to_perft(case: Case) -> None:
    depth, count = next((d, n) for d, n in case.counts if d == 3)
    rows = divide(position_of(case), depth)
    assert len(rows) == len(position_of(case).legal_actions())
    assert sum(n for _, n in rows) == count


def test_perft_of_depth_zero_is_one_even_at_the_end() -> None:
    game = boardlab.new_game("jinli", stones=0, no_move="lose", max_turns=5)
    over = game.initial().play_all(["a1-a2", "a7-a6", "a2-a3", "a6-a5", "a3-a4"])
    assert over.is_over()
    assert perft(over, 0) == 1 and perft(over, 1) == 0 and perft(over, 3) == 0


def test_perft_command_prints_the_count_last(capsys: pytest.CaptureFixture[str]) -> None:
    case = next(c for c in CASES if c.name == "linja-extra-turn")
    args = ["perft", "linja", "--depth", "4", "--divide"]
    args += [f"--option={o}" for o in case.options]
    assert main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "1849"
    assert len(lines) == 8 and lines[0] == "0-1: " + lines[0].split(": ")[1]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_compiled_perft_matches_table(case: Case) -> None:
    from boardlab.fast.perft import compiled_perft

    position = position_of(case)
    for depth, count in case.counts:
        assert compiled_perft(position.game, position.state, depth) == count


def test_perft_command_counts_deep_with_the_compiled_kernel(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["perft", "galatjang", "--depth", "9"]) == 0  # auto: compiled from depth 9
    assert capsys.readouterr().out.splitlines()[-1] == "2453054"
    assert main(["perft", "linja", "--depth", "3", "--engine", "compiled", "--divide"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "321" and len(lines) == 8
