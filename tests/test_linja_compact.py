"""The Linja table in blocks (format 2) answers like the flat table (format 1) it replaces:
on every position of a partial table, through both readers, after ``boardlab solve
linja`` converted the flat file; a damaged block is caught. The full-size check is
``benchmarks/compact_linja.py`` (results in ``benchmarks/results/linja_compact.md``).
"""

from __future__ import annotations

import io
import os
import random
import shutil
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import boardlab
from boardlab.cli import main
from boardlab.games.linja import solution as solver
from boardlab.games.linja.game import Linja
from boardlab.games.linja.rules import ROWS, LinjaState
from boardlab.games.linja.solution import COMPOSITIONS, LinjaSolution
from boardlab.solve.tables import BlockValues, TableError, open_table, read_header, write_table

LOWEST = 146  # the partial table: every position with this much progress or more


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A partial table written flat as today's files are, and the same file converted
    by ``boardlab solve linja`` (on a second link to it, so the flat one stays)."""
    game = boardlab.new_game("linja")
    assert isinstance(game, Linja)
    folder = tmp_path_factory.mktemp("compact")
    values = solver.solve_values(solver.params(game), LOWEST)
    header = {
        "kind": solver.KIND,
        "format": solver.FLAT_FORMAT,
        "game": "linja",
        "rules": solver.variant(game),
        "compositions": COMPOSITIONS,
        "lowest_level": LOWEST,
        "build_seconds": 0.0,
    }
    flat = write_table(folder / "flat.table", header, values)
    converted = folder / "converted.table"
    os.link(flat, converted)
    said = io.StringIO()
    with redirect_stdout(said):
        assert main(["solve", "linja", "--out", str(converted)]) == 0
    return {"game": game, "values": values, "flat": flat, "converted": converted, "said": said}


def test_the_conversion_is_in_place_smaller_and_keeps_the_checksum(tables: dict[str, Any]) -> None:
    said = tables["said"].getvalue()
    assert "compacting" in said and "building" not in said
    flat, converted = read_header(tables["flat"]), read_header(tables["converted"])
    assert (flat["format"], converted["format"]) == (1, solver.FORMAT)
    assert converted["sha256"] == flat["sha256"]
    assert converted["lowest_level"] == LOWEST and converted["rules"] == flat["rules"]
    assert not os.path.samefile(tables["flat"], tables["converted"])
    assert tables["converted"].stat().st_size < tables["flat"].stat().st_size // 100


def solved_indexes() -> np.ndarray:
    """Every (mover, opponent) index the partial table holds: both sides' progress
    together at least ``LOWEST``, in index order."""
    counts = (solver.UNRANK[:, None] >> (8 * np.arange(ROWS))) & 0xFF
    progress = (counts * np.arange(ROWS)).sum(axis=1)
    movers = np.flatnonzero(progress >= LOWEST - solver.MAX_PROGRESS)
    found = [m * COMPOSITIONS + np.flatnonzero(progress >= LOWEST - progress[m]) for m in movers]
    return np.concatenate(found)


def test_the_compact_table_answers_like_the_flat_one_everywhere(tables: dict[str, Any]) -> None:
    game = tables["game"]
    flat = LinjaSolution.load(game, tables["flat"])
    compact = LinjaSolution.load(game, tables["converted"])
    assert isinstance(flat.values, np.ndarray) and isinstance(compact.values, BlockValues)
    expected = tables["values"]
    indexes = solved_indexes()
    assert indexes.size > 100_000
    assert (flat.values[indexes] == expected[indexes]).all()
    assert np.count_nonzero(expected[indexes]) > 50_000  # not a table of zeros
    rows, columns = np.divmod(indexes, COMPOSITIONS)
    held = {row: columns[rows == row] for row in np.unique(rows).tolist()}
    for row in range(COMPOSITIONS):  # every position, a row (a block) at a time
        if compact.values.stored_size(row) == 0:
            continue  # stored as nothing: zeros
        assert row in held  # nothing written beyond the partial table's positions
        decoded = compact.values.block(row)
        inside = held[row]
        assert (decoded[inside] == expected[row * COMPOSITIONS + inside]).all()
        assert np.count_nonzero(decoded) == np.count_nonzero(decoded[inside])
    for i in np.random.default_rng(2).choice(indexes, 20_000).tolist():  # one at a time
        assert compact.values[i] == expected[i]


def state_of(game: Linja, index: int) -> LinjaState:
    """The position of a table index, Black to move at the start of its turn."""
    m, o = divmod(index, COMPOSITIONS)
    black = [int(solver.UNRANK[m] >> (8 * r)) & 0xFF for r in range(ROWS)]
    red = [int(solver.UNRANK[o] >> (8 * r)) & 0xFF for r in range(ROWS)][::-1]
    return game.parse_state(f"{','.join(map(str, black))}/{','.join(map(str, red))} b o 0 0")


def test_the_player_reads_either_format_alike(tables: dict[str, Any]) -> None:
    """Values and every action's value, searched through the turn, from both files."""
    game = tables["game"]
    flat = LinjaSolution.load(game, tables["flat"])
    compact = LinjaSolution.load(game, tables["converted"])
    values = tables["values"]
    rng = random.Random(5)
    held = solved_indexes()
    nonzero = held[values[held] != 0]
    checked = 0
    for index in (int(nonzero[rng.randrange(nonzero.size)]) for _ in range(10)):
        state = state_of(game, index)
        if game.outcome_of(state) is not None or not compact.in_reach(state):
            continue
        assert compact.value(state) == flat.value(state) == values[index]
        assert compact.action_values(state) == flat.action_values(state)
        checked += 1
    assert checked > 5


def test_a_damaged_block_is_caught(tables: dict[str, Any], tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.table"
    shutil.copyfile(tables["converted"], damaged)
    table = open_table(damaged)
    assert isinstance(table.values, BlockValues)
    row = next(k for k in range(COMPOSITIONS) if table.values.stored_size(k) > 100)
    header_and_index = 4096 + 8 * (COMPOSITIONS + 1)
    offset = header_and_index + int(table.values._offsets[row]) + 50
    with damaged.open("r+b") as out:
        out.seek(offset)
        byte = out.read(1)
        out.seek(offset)
        out.write(bytes([byte[0] ^ 0xFF]))
    reread = open_table(damaged)
    assert isinstance(reread.values, BlockValues)
    with pytest.raises(TableError, match=f"damaged: block {row} does not decode"):
        reread.values[row * COMPOSITIONS]
    with pytest.raises(TableError, match="damaged"):
        reread.verify()
