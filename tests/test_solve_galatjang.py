"""The exact Galatjang endgame solver (``boardlab.games.galatjang.endgames``) against the engine.

Every expected value comes from ``exact`` below: a plain minimax over the engine's own
actions (``legal_actions``/``apply`` until ``outcome_of`` says the game is over, then the
final store difference), which knows nothing of tables, configurations or turn bounds.
The tables built here are tiny (a few pits, a few seeds) so the file runs in seconds.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, cast

import numpy as np
import pytest

import boardlab
from boardlab.core.errors import OptionError
from boardlab.games.galatjang.endgames import (
    GalatjangEndgame,
    build_values,
    default_table_path,
    table_entries,
)
from boardlab.games.galatjang.game import Galatjang
from boardlab.games.galatjang.rules import GalatjangState
from boardlab.solve.tables import HEADER_SIZE, TableError, read_table, write_table
from support import (
    exact_points,
    exact_points_after,
    random_game,
    random_options,
    same_without_jit,
)


def new_game(**options: Any) -> Galatjang:
    return cast(Galatjang, boardlab.new_game("galatjang", options))


def exact_actions(
    game: Galatjang, state: GalatjangState, memo: dict[GalatjangState, int]
) -> dict[int, int]:
    return {a: exact_points_after(game, state, a, memo) for a in game.legal_actions(state)}


def pits_text(cells: list[int]) -> str:
    half = len(cells) // 2
    row = [("x" if x < 0 else str(x)) for x in cells]
    return ",".join(row[:half]) + "/" + ",".join(row[half:])


def random_position(
    game: Galatjang,
    rng: random.Random,
    seeds: int,
    turns: int = 0,
    round_: int = 1,
    blocked: int = 0,
) -> GalatjangState:
    """A position with ``seeds`` seeds scattered over the pits (``blocked`` pits of
    random sides blocked), random stores (no more seeds than the game has) and side to
    act, that is not over."""
    pits = game.pits
    while True:
        cells = [0] * (2 * pits)
        for k in rng.sample(range(2 * pits), blocked):
            cells[k] = -1
        open_pits = [k for k in range(2 * pits) if cells[k] == 0]
        for _ in range(seeds):
            cells[rng.choice(open_pits)] += 1
        room = 2 * pits * game.rules.seeds - seeds  # the stores hold what the pits do not
        south = rng.randint(0, min(30, room))
        north = rng.randint(0, min(30, room - south))
        text = f"{pits_text(cells)} {south}/{north} {rng.choice('sn')} {round_} {turns}"
        state = game.from_position_string(text).state
        if game.outcome_of(state) is None:
            return state


def every_configuration(pits: int, seeds: int) -> list[list[int]]:
    """Every way to put exactly ``seeds`` seeds into ``2 * pits`` pits."""

    def split(cells: int, left: int) -> list[list[int]]:
        if cells == 1:
            return [[left]]
        return [[x, *rest] for x in range(left + 1) for rest in split(cells - 1, left - x)]

    return split(2 * pits, seeds)


@pytest.fixture(autouse=True)
def _tables_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BOARDLAB_TABLES", str(tmp_path / "tables"))


def built(game: Galatjang, max_seeds: int, tmp_path: Path) -> GalatjangEndgame:
    path = GalatjangEndgame.build(game, max_seeds, tmp_path / "t.table")
    return GalatjangEndgame.load(game, path)


# --------------------------------------------------------------------------- (a) values


@pytest.mark.parametrize(("pits", "max_seeds"), [(1, 9), (2, 8), (3, 6)])
def test_every_table_entry_is_the_engine_minimax(pits: int, max_seeds: int, tmp_path: Path):
    game = new_game(pits=pits, seeds=10)  # room for 9 seeds in the pits and 9 in the stores
    solver = built(game, max_seeds, tmp_path)
    memo: dict[GalatjangState, int] = {}
    checked = 0
    for seeds in range(max_seeds + 1):
        for cells in every_configuration(pits, seeds):
            for side, stores in (("s", "3/5"), ("n", "7/2")):
                state = game.from_position_string(f"{pits_text(cells)} {stores} {side} 1 0").state
                assert solver.in_table(state)
                assert solver.value(state) == exact_points(game, state, memo), state
                checked += 1
    assert checked == 2 * table_entries(pits, max_seeds)


@pytest.mark.parametrize(
    "options",
    [
        {"pits": 4},
        {"pits": 3, "sow_opponent_store": False},
        {"pits": 3, "skip_origin": True},
        {"pits": 4, "sow_opponent_store": False, "skip_origin": True},
        {"pits": 6, "first": "north", "seeds": 2},
    ],
    ids=str,
)
def test_table_values_of_every_action_are_the_engine_minimax(
    options: dict[str, Any], tmp_path: Path
):
    game = new_game(**options)
    max_seeds = 7 if game.pits < 6 else 5
    solver = built(game, max_seeds, tmp_path)
    rng = random.Random(11)
    memo: dict[GalatjangState, int] = {}
    for _ in range(60):
        state = random_position(game, rng, rng.randint(1, max_seeds), turns=rng.randint(0, 9))
        assert solver.in_table(state)
        assert solver.action_values(state) == exact_actions(game, state, memo), state


@pytest.mark.parametrize(
    "options",
    [
        {"pits": 3},
        {"pits": 3, "lone_seed": "stay"},
        {"pits": 4, "lone_seed": "stay", "skip_origin": True},
        {"pits": 3, "lone_seed": "stay", "sow_opponent_store": False},
        {"pits": 5, "sow_opponent_store": False},
    ],
    ids=str,
)
def test_search_alone_is_the_engine_minimax(options: dict[str, Any]):
    game = new_game(**options)
    solver = GalatjangEndgame(game)
    rng = random.Random(12)
    memo: dict[GalatjangState, int] = {}
    for _ in range(40):
        state = random_position(game, rng, rng.randint(1, 9), turns=rng.randint(0, 9))
        assert not solver.in_table(state)
        assert solver.action_values(state) == exact_actions(game, state, memo), state


def test_search_finishes_in_the_table_with_the_same_values(tmp_path: Path):
    game = new_game(pits=3)
    with_table = built(game, 5, tmp_path)
    alone = GalatjangEndgame(game)
    rng = random.Random(13)
    memo: dict[GalatjangState, int] = {}
    for _ in range(40):
        state = random_position(game, rng, rng.randint(6, 10))
        assert not with_table.in_table(state)
        expected = exact_actions(game, state, memo)
        assert with_table.action_values(state) == expected, state
        assert alone.action_values(state) == expected, state


def test_a_position_answered_once_is_answered_again_when_the_memo_was_emptied():
    """The search's memo is emptied when a query might not fit; a position it answered
    before then needed more than one search's budget, and the perfect player fell back
    to its own search there (2 of 300 positions, docs/ai.md). Each query now goes on
    from what its last search stored."""
    game = boardlab.new_game("galatjang")
    solver = GalatjangEndgame(game)  # an empty memo, no table
    answers = []
    for text in ("0,0,4,0,5,1/3,1,0,6,1,1 37/13 n 1 9", "1,1,2,2,2,6/1,2,1,3,2,1 30/18 s 1 4"):
        state = game.from_position_string(text).state
        answers += [(text, solver.action_values(state)) for _ in range(3)]
    assert all(values for _text, values in answers), answers
    assert answers[3][1] == {0: 12, 1: 10, 2: 12, 3: 6, 4: 20, 5: 8}


def test_finished_positions_are_worth_the_final_store_difference():
    game = new_game(rounds=2)
    solver = GalatjangEndgame(game)
    over = game.from_position_string("0,0,0,0,0,0/0,0,0,0,0,0 42/30 n 2 61").state
    assert solver.value(over) == -12
    assert solver.action_values(over) == {}
    # a round over on the board (North cannot sow), not yet swept: South sweeps his 3
    unswept = game.from_position_string("1,0,2,0,0,0/0,0,0,0,0,0 30/39 n 2 20").state
    assert solver.value(unswept) == 39 - (30 + 3)
    # a player who cannot fill a pit loses at once (round 1 of 2): the final stores count
    short = game.from_position_string("0,0,0,0,0,0/0,0,0,0,0,0 69/3 n 1 61").state
    assert solver.value(short) == 3 - 69


# --------------------------------------------------------------------------- (b) generator


def last_round_positions(game: Galatjang, rng: random.Random) -> list[GalatjangState]:
    """The positions of one random game that lie in its last round and are not over."""
    return [
        p.state
        for p in random_game(game, rng)
        if p.state.round == game.rules.rounds and not p.is_over()
    ]


def test_generator_agrees_with_the_engine_on_random_games():
    rng = random.Random(21)
    games = [new_game() for _ in range(30)]
    games += [new_game(**random_options("galatjang", rng)) for _ in range(150)]
    games += [new_game(rounds=2, seeds=s) for s in (2, 3, 4, 6) * 8]  # round 2: blocked pits
    compared = packed = blocked = 0
    for game in games:
        solver = GalatjangEndgame(game)
        for state in last_round_positions(game, rng):
            expected = {a: game.apply(state, a) for a in game.legal_actions(state)}
            assert solver.successors(state) == expected, game.format_state(state)
            compared += 1
            blocked += -1 in state.ring
            seeds = sum(x for x in state.ring if x > 0) - sum(game.points(state))
            if (
                game.pits <= 6
                and game.options["lone_seed"] == "store"
                and -1 not in state.ring
                and seeds < 128
            ):
                assert solver.successors(state, packed=True) == expected
                packed += 1
    assert compared > 2000 and packed > 800 and blocked > 200, (compared, packed, blocked)


@pytest.mark.parametrize(
    "options",
    [
        {"pits": 6},
        {"pits": 6, "sow_opponent_store": False, "skip_origin": True},
        {"pits": 5, "skip_origin": True},
        {"pits": 4, "sow_opponent_store": False},
        {"pits": 2},
        {"pits": 1},
    ],
    ids=str,
)
def test_packed_build_equals_the_engine_sower_build(options: dict[str, Any]):
    game = new_game(**options)
    max_seeds = {6: 8, 5: 8, 4: 10}.get(game.pits, 14)
    assert np.array_equal(
        build_values(game, max_seeds, packed=True), build_values(game, max_seeds, packed=False)
    )


def test_packed_sower_is_refused_where_it_does_not_apply():
    game = new_game(lone_seed="stay")
    with pytest.raises(OptionError, match="packed sower"):
        GalatjangEndgame(game).successors(game.initial_state(), packed=True)
    with pytest.raises(OptionError, match="at most 6 pits"):
        build_values(new_game(pits=7), 3, packed=True)


# --------------------------------------------------------------------------- (c) table files


def test_table_file_round_trips_and_verify_catches_a_flipped_byte(tmp_path: Path):
    game = new_game(pits=3, skip_origin=True)
    reports: list[tuple[int, int]] = []
    path = GalatjangEndgame.build(
        game, 6, tmp_path / "t.table", progress=lambda d, t: reports.append((d, t))
    )
    assert reports[-1] == (table_entries(3, 6), table_entries(3, 6))
    assert [d for d, _ in reports] == sorted(d for d, _ in reports)
    solver = GalatjangEndgame.load(game, path)
    assert solver.max_seeds == 6
    header = solver.table.header
    assert header["skip_origin"] is True and header["sow_opponent_store"] is True
    assert header["pits"] == 3 and header["lone_seed"] == "store"
    assert np.array_equal(np.asarray(solver.table.values), build_values(game, 6))
    solver.table.verify()
    with path.open("r+b") as handle:
        handle.seek(HEADER_SIZE + 100)
        byte = handle.read(1)[0]
        handle.seek(HEADER_SIZE + 100)
        handle.write(bytes([byte ^ 1]))
    with pytest.raises(TableError, match="damaged"):
        read_table(path).verify()


def test_recheck_finds_a_wrong_value_with_a_sound_checksum(tmp_path: Path):
    game = new_game(pits=3, sow_opponent_store=False)
    solver = built(game, 7, tmp_path)
    entries = table_entries(3, 7)
    assert solver.recheck(entries) == 0
    assert solver.recheck(500, seed=3) == 0
    values = build_values(game, 7)
    values[1234] += 2  # a wrong value, written with a matching checksum
    keep = {k: v for k, v in solver.table.header.items() if k not in ("entries", "sha256")}
    path = write_table(tmp_path / "wrong.table", keep, values)
    wrong = GalatjangEndgame.load(game, path)
    wrong.table.verify()
    assert wrong.recheck(entries) >= 1  # the entry itself, and any entry that relies on it
    with pytest.raises(TableError, match="no table to recheck"):
        GalatjangEndgame(game).recheck(10)


def test_a_header_that_does_not_fit_is_refused(tmp_path: Path):
    with pytest.raises(TableError, match="table header too long"):
        write_table(tmp_path / "t.table", {"note": "x" * HEADER_SIZE}, np.zeros(4, np.int8))
    assert not (tmp_path / "t.table").exists()


def test_table_for_other_rules_is_refused_with_the_option_named(tmp_path: Path):
    path = GalatjangEndgame.build(new_game(pits=3), 4, tmp_path / "t.table")
    with pytest.raises(TableError, match=r"built for skip_origin=false, not true"):
        GalatjangEndgame.load(new_game(pits=3, skip_origin=True), path)
    with pytest.raises(TableError, match=r"built for sow_opponent_store=true, not false"):
        GalatjangEndgame.load(new_game(pits=3, sow_opponent_store=False), path)
    with pytest.raises(TableError, match=r"built for pits=3, not 4"):
        GalatjangEndgame.load(new_game(pits=4), path)
    with pytest.raises(OptionError, match="no Galatjang endgame table for lone_seed=stay"):
        GalatjangEndgame.load(new_game(pits=3, lone_seed="stay"), path)
    with pytest.raises(TableError, match=r"built for skip_origin=false, not true"):
        GalatjangEndgame(new_game(pits=3, skip_origin=True), read_table(path))
    # options that do not change a last-round value share the table
    shared = new_game(pits=3, seeds=2, first="north", max_turns=40, rounds=3)
    assert GalatjangEndgame.load(shared, path).max_seeds == 4


def test_default_path_names_the_options_and_a_missing_table_is_explained(tmp_path: Path):
    game = new_game(sow_opponent_store=False)
    path = default_table_path(game)
    assert path.parent == tmp_path / "tables"
    assert "pits=6" in path.name and "sow_opponent_store=false" in path.name
    assert "skip_origin=false" in path.name and "lone_seed=store" in path.name
    with pytest.raises(TableError, match="no table at"):
        GalatjangEndgame.load(game)
    searching = GalatjangEndgame.load(game, missing_ok=True)
    assert searching.table is None and searching.max_seeds is None
    assert GalatjangEndgame.load(new_game(lone_seed="stay"), missing_ok=True).table is None
    small = new_game(pits=2, sow_opponent_store=False)
    assert GalatjangEndgame.build(small, 3) == default_table_path(small)
    assert GalatjangEndgame.load(small).max_seeds == 3


def test_header_that_disagrees_with_its_size_is_refused(tmp_path: Path):
    game = new_game(pits=2)
    path = GalatjangEndgame.build(game, 3, tmp_path / "t.table")
    header = read_table(path).header
    values = build_values(game, 3)
    keep = {k: v for k, v in header.items() if k not in ("entries", "sha256")}
    write_table(path, {**keep, "max_seeds": 4}, values)
    with pytest.raises(TableError, match="max_seeds=4 does not match"):
        GalatjangEndgame.load(game, path)


@pytest.mark.parametrize(
    ("options", "max_seeds", "message"),
    [
        ({}, -1, "bad max_seeds -1: expected 0-127"),
        ({}, 128, "bad max_seeds 128"),
        ({}, True, "bad max_seeds True: expected a whole number"),
        ({"pits": 16}, 40, "needs .* entries"),
        ({"lone_seed": "stay"}, 4, "no Galatjang endgame table for lone_seed=stay"),
    ],
)
def test_bad_build_requests_are_refused_clearly(
    options: dict[str, Any], max_seeds: Any, message: str, tmp_path: Path
):
    with pytest.raises(OptionError, match=message):
        GalatjangEndgame.build(new_game(**options), max_seeds, tmp_path / "t.table")
    assert not (tmp_path / "t.table").exists()


def test_solver_refuses_another_game_and_bad_limits():
    with pytest.raises(OptionError, match="needs a galatjang game"):
        GalatjangEndgame(boardlab.new_game("linja"))
    with pytest.raises(OptionError, match="bad search limits"):
        GalatjangEndgame(new_game(), budget=0)


# --------------------------------------------------------------------------- (d) fallbacks


def test_turn_cap_that_may_bind_falls_back_to_the_search(tmp_path: Path):
    game = new_game(pits=3, max_turns=30)
    solver = built(game, 8, tmp_path)  # max_turns is not a table option
    rng = random.Random(31)
    memo: dict[GalatjangState, int] = {}
    changed = 0
    for _ in range(150):
        seeds = rng.randint(2, 8)
        left = rng.randint(1, seeds)  # turns still allowed; the table holds from left >= seeds
        state = random_position(game, rng, seeds, turns=30 - left)
        assert solver.in_table(state) == (left >= seeds)
        expected = exact_actions(game, state, memo)
        assert solver.action_values(state) == expected, game.format_state(state)
        uncapped = solver.value(state._replace(turns=0))
        changed += uncapped != max(expected.values())
    assert changed >= 5  # the cap matters in some of these positions: the table would err


def test_turn_cap_under_lone_seed_stay():
    game = new_game(pits=3, lone_seed="stay", max_turns=20)
    solver = GalatjangEndgame(game)
    rng = random.Random(32)
    memo: dict[GalatjangState, int] = {}
    for _ in range(60):
        state = random_position(game, rng, rng.randint(1, 7), turns=rng.randint(8, 19))
        assert solver.action_values(state) == exact_actions(game, state, memo)


def test_blocked_pits_fall_back_to_the_search(tmp_path: Path):
    game = new_game(pits=4, rounds=2)
    solver = built(game, 6, tmp_path)
    rng = random.Random(33)
    memo: dict[GalatjangState, int] = {}
    for _ in range(60):
        state = random_position(game, rng, rng.randint(1, 6), round_=2, blocked=rng.randint(1, 3))
        assert not solver.in_table(state)
        assert solver.action_values(state) == exact_actions(game, state, memo)
    # the same configuration without the blocked pits is in the table, with another value
    blocked = game.from_position_string("2,0,0,1/1,x,0,0 0/0 s 2 0").state
    free = game.from_position_string("2,0,0,1/1,0,0,0 0/0 s 2 0").state
    assert solver.in_table(free) and not solver.in_table(blocked)
    assert solver.value(blocked) == exact_points(game, blocked, memo)
    assert solver.value(free) == exact_points(game, free, memo)
    assert solver.value(blocked) != solver.value(free)


def test_out_of_reach_is_none_not_an_error(tmp_path: Path):
    game = new_game(pits=3, rounds=2)
    solver = built(game, 4, tmp_path)
    first_round = game.from_position_string("1,0,1/0,1,0 10/10 s 1 3").state
    assert solver.value(first_round) is None and not solver.reach(first_round)
    assert solver.action_values(first_round) is None
    rich = new_game(pits=3, rounds=2, seeds=9)
    many = rich.from_position_string("9,9,9/9,9,9 0/0 s 2 0").state
    assert GalatjangEndgame(rich, search_seeds=20).value(many) is None
    tight = GalatjangEndgame(game, budget=3)
    mid = game.from_position_string("2,1,3/1,2,1 0/0 s 2 0").state
    assert tight.value(mid) is None and not tight.reach(mid)
    assert GalatjangEndgame(game).reach(mid)
    in_table = game.from_position_string("1,0,1/0,1,1 10/10 n 2 3").state
    assert solver.reach(in_table) and solver.value(in_table) == exact_points(game, in_table, {})


# --------------------------------------------------------------------------- plain Python

PLAIN = """
import boardlab
from boardlab.games.galatjang.endgames import GalatjangEndgame, build_values
for options in ({"pits": 2}, {"pits": 3, "skip_origin": True}):
    game = boardlab.new_game("galatjang", options)
    for packed in (True, False):
        print("values", packed, build_values(game, 4, packed=packed).tobytes().hex())
game = boardlab.new_game("galatjang", pits=3, lone_seed="stay", max_turns=9)
solver = GalatjangEndgame(game)
for text in ("2,1,0/0,1,2 0/0 s 1 3", "1,1,1/1,1,1 4/2 n 1 6", "0,3,1/2,0,1 1/0 s 1 0"):
    state = game.from_position_string(text).state
    print("search", text, sorted(solver.action_values(state).items()))
"""


def test_solver_runs_as_plain_python():
    printed = same_without_jit(PLAIN)
    assert printed.count("values") == 4 and printed.count("search") == 3


def test_solve_command_builds_verifies_and_analyze_reads_the_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from boardlab.cli import main

    monkeypatch.setenv("BOARDLAB_TABLES", str(tmp_path))
    small = ["-o", "pits=3", "-o", "seeds=2"]
    assert main(["solve", "galatjang", *small, "--max-seeds", "6"]) == 0
    out = capsys.readouterr().out
    assert "building" in out and "at most 6 seeds in the pits" in out
    assert main(["solve", "galatjang", *small, "--max-seeds", "6", "--verify"]) == 0
    out = capsys.readouterr().out
    assert "building" not in out and "checksum verified" in out
    position = "1,0,2/0,1,1 3/4 s 1 10"
    assert main(["analyze", "galatjang", *small, "--position", position]) == 0
    out = capsys.readouterr().out
    game = new_game(pits=3, seeds=2)
    state = game.parse_state(position)
    best = max(exact_actions(game, state, {}).values())
    assert f"(value {best:+d})" in out


def test_what_the_table_covers_says_the_default_seed_count() -> None:
    """The admin page names what a default build covers: the seed count in the words is
    the builder's own."""
    from boardlab.games.galatjang.endgames import DEFAULT_MAX_SEEDS
    from boardlab.games.galatjang.solver import GalatjangSolver

    assert f"at most {DEFAULT_MAX_SEEDS} seeds" in GalatjangSolver.covers
