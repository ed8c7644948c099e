"""The Linja table in blocks against the flat one it was converted from: same answers, size,
conversion time, lookup time and the time of a perfect move.

    python benchmarks/compact_linja.py [--flat FILE] --out DIR [--sample 1000000]

``--flat`` is a complete table of format 1 (default: the default rules' table at its
default path, which is only read). It is converted to ``DIR/linja-bonus-signed.table``
with ``solution.compact`` (the conversion itself checks the SHA-256 of every value
against the flat file's header), then both are opened as the perfect player opens them
and compared:

* every value of the compact file decoded and hashed again (``verify``);
* a random sample of ``--sample`` valid (mover, opponent) pairs, each read through both
  readers (``values[i]``), in index order;
* every position, mid-turn ones included, of the principal lines: each optimal first
  turn from the start (as ``boardlab solve linja`` prints them) followed to the end of
  the game by the first optimal turn each time; at each one ``value`` and
  ``action_values`` of both;
* a perfect move (``action_values`` at a turn start: the whole turn searched, the table
  read at every turn end) timed with each file, with the number of table lookups it
  takes, and single lookups in random order.

Results go to ``benchmarks/results/linja_compact.json`` and ``linja_compact.md``.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np

import boardlab
from boardlab.games.linja import solution as linja
from boardlab.games.linja.rules import CAPACITY, OPENING, ROWS, LinjaState
from boardlab.solve.tables import BlockValues, open_table

RESULTS = Path(__file__).parent / "results"
JSON = RESULTS / "linja_compact.json"
MARKDOWN = RESULTS / "linja_compact.md"


class Counted:
    """A table's values that count their lookups."""

    def __init__(self, values: Any) -> None:
        self.values = values
        self.lookups = 0

    def __getitem__(self, index: int) -> int:
        self.lookups += 1
        return int(self.values[index])


def valid_sample(count: int, seed: int) -> np.ndarray:
    """``count`` random indexes of (mover, opponent) pairs that respect the field rows'
    capacity (the others are never read), sorted."""
    rng = np.random.default_rng(seed)
    rows = (linja.UNRANK[:, None] >> (8 * np.arange(ROWS))) & 0xFF
    found: list[np.ndarray] = []
    total = 0
    while total < count:
        m = rng.integers(0, linja.COMPOSITIONS, 4 * count)
        o = rng.integers(0, linja.COMPOSITIONS, 4 * count)
        # the opponent's row r (own coordinates) is the mover's row 7 - r
        fits = ((rows[m, 1 : ROWS - 1] + rows[o, ROWS - 2 : 0 : -1]) <= CAPACITY).all(axis=1)
        chosen = m[fits] * linja.COMPOSITIONS + o[fits]
        found.append(chosen)
        total += chosen.size
    return np.sort(np.concatenate(found)[:count])


def principal_lines(flat: linja.LinjaSolution) -> list[list[LinjaState]]:
    """Every position of each principal line: an optimal first turn, then the first
    optimal turn each time, to the end."""
    game = flat.game
    start = game.initial_state()
    lines = []
    for first in flat.best_turns(start):
        states = [start]
        state = start
        turn: tuple[int, ...] = first
        while True:
            for action in turn:
                state = game.apply(state, action)
                states.append(state)
            if game.outcome_of(state) is not None:
                break
            turn = next(flat.best_turns(state))
        lines.append(states)
    return lines


def timed_moves(
    solution: linja.LinjaSolution, states: list[LinjaState], cold: bool
) -> dict[str, float]:
    """The time of ``action_values`` at each turn start (a perfect move), and its lookups;
    ``cold``: the decoded rows are forgotten before each move."""
    counted = Counted(solution.values)
    timed = linja.LinjaSolution(solution.game, counted, solution.lowest)  # type: ignore[arg-type]
    seconds = []
    lookups = []
    for state in states:
        if cold and isinstance(solution.values, BlockValues):
            solution.values.block.cache_clear()
        before = counted.lookups
        begin = time.perf_counter()
        timed.action_values(state)
        seconds.append(time.perf_counter() - begin)
        lookups.append(counted.lookups - before)
    return {
        "moves": len(states),
        "mean_ms": 1000 * statistics.fmean(seconds),
        "max_ms": 1000 * max(seconds),
        "mean_lookups": statistics.fmean(lookups),
        "max_lookups": max(lookups),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flat", type=Path, help="a complete table of format 1")
    parser.add_argument("--out", type=Path, required=True, help="where the compact table goes")
    parser.add_argument("--sample", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    game = boardlab.new_game("linja")
    source = args.flat or linja.default_path(game)  # type: ignore[arg-type]
    target = args.out / source.name
    result: dict[str, Any] = {"date": time.strftime("%Y-%m-%d %H:%M"), "flat": str(source)}

    begin = time.perf_counter()
    linja.compact(game, source, target)  # type: ignore[arg-type]
    result["convert_seconds"] = round(time.perf_counter() - begin, 1)
    result["flat_bytes"] = source.stat().st_size
    result["compact_bytes"] = target.stat().st_size
    print(
        f"converted in {result['convert_seconds']} s: {result['compact_bytes']:,} bytes", flush=True
    )

    table = open_table(target)
    assert isinstance(table.values, BlockValues)
    begin = time.perf_counter()
    table.verify()
    result["verify_seconds"] = round(time.perf_counter() - begin, 1)
    sizes = [table.values.stored_size(k) for k in range(linja.COMPOSITIONS)]
    result["empty_rows"] = sum(1 for s in sizes if s == 0)
    result["largest_row_bytes"] = max(sizes)
    print(f"verified in {result['verify_seconds']} s", flush=True)

    flat = linja.LinjaSolution.load(game, source)  # type: ignore[arg-type]
    compact = linja.LinjaSolution.load(game, target)  # type: ignore[arg-type]
    assert isinstance(compact.values, BlockValues) and isinstance(flat.values, np.ndarray)

    begin = time.perf_counter()
    sample = valid_sample(args.sample, args.seed)
    differ = sum(int(flat.values[i]) != compact.values[int(i)] for i in sample)
    result["sample"] = {
        "pairs": int(sample.size),
        "distinct_rows": int(np.unique(sample // linja.COMPOSITIONS).size),
        "differ": differ,
        "seconds": round(time.perf_counter() - begin, 1),
    }
    print(f"sample: {result['sample']}", flush=True)

    lines = principal_lines(flat)
    positions = differ_lines = 0
    for states in lines:
        for state in states:
            if game.outcome_of(state) is not None:
                continue
            positions += 1
            if flat.value(state) != compact.value(state) or flat.action_values(
                state
            ) != compact.action_values(state):
                differ_lines += 1
    result["principal_lines"] = {
        "lines": len(lines),
        "positions": positions,
        "differ": differ_lines,
        "start_value": compact.value(game.initial_state()),
    }
    print(f"principal lines: {result['principal_lines']}", flush=True)

    starts = [s for states in lines for s in states if s.phase == OPENING and not s.extra]
    starts = [s for s in starts if game.outcome_of(s) is None]
    result["move_flat"] = timed_moves(flat, starts, cold=False)
    result["move_compact"] = timed_moves(compact, starts, cold=False)
    result["move_compact_cold"] = timed_moves(compact, starts, cold=True)
    rng = random.Random(args.seed)
    picks = [int(sample[rng.randrange(sample.size)]) for _ in range(10_000)]
    for name, values in (("flat", flat.values), ("compact", compact.values)):
        if isinstance(values, BlockValues):
            values.block.cache_clear()
        begin = time.perf_counter()
        for i in picks:
            int(values[i])
        result[f"random_lookup_us_{name}"] = round(1e6 * (time.perf_counter() - begin) / 10_000, 1)
    print(json.dumps(result, indent=1), flush=True)
    JSON.write_text(json.dumps(result, indent=1, sort_keys=True) + "\n")
    write_markdown(result)


def write_markdown(r: dict[str, Any]) -> None:
    gib = 2**30
    s = r["sample"]
    p = r["principal_lines"]
    moves = [("flat (format 1)", r["move_flat"]), ("compact, rows cached", r["move_compact"])]
    moves.append(("compact, no row cached", r["move_compact_cold"]))
    lines = [
        "# The Linja table in blocks (format 2) against the flat table (format 1)",
        "",
        "Command: `python benchmarks/compact_linja.py --out DIR` (2 cores shared with other "
        f"work; {r['date']}): the default rules' complete table converted and both files "
        "read as the perfect player reads them.",
        "",
        "| | |",
        "|---|---:|",
        f"| flat file | {r['flat_bytes']:,} bytes ({r['flat_bytes'] / gib:.2f} GiB) |",
        f"| compact file | {r['compact_bytes']:,} bytes ({r['compact_bytes'] / gib:.2f} GiB, "
        f"{r['compact_bytes'] / r['flat_bytes']:.1%} of the flat one) |",
        "| conversion (`solution.compact`, SHA-256 of every value checked) "
        f"| {r['convert_seconds']} s |",
        f"| compact file decoded and hashed again (`verify`) | {r['verify_seconds']} s |",
        f"| rows stored empty (all zeros) / largest row | {r['empty_rows']:,} / "
        f"{r['largest_row_bytes']:,} bytes |",
        f"| random valid pairs compared / differing | {s['pairs']:,} ({s['distinct_rows']:,} rows)"
        f" / {s['differ']} |",
        f"| principal lines / their positions compared (value and every action's value) "
        f"/ differing | {p['lines']} / {p['positions']:,} / {p['differ']} |",
        f"| start value (compact) | {p['start_value']:+d} |",
        f"| one lookup in random order: flat / compact | {r['random_lookup_us_flat']} µs / "
        f"{r['random_lookup_us_compact']} µs |",
        "",
        "A perfect move: `action_values` at each turn start of the principal lines (the whole "
        "turn searched, the table read at every turn end).",
        "",
        "| table | moves | lookups a move (mean / most) | time a move (mean / most) |",
        "|---|---:|---:|---:|",
    ]
    for name, m in moves:
        lines.append(
            f"| {name} | {m['moves']} | {m['mean_lookups']:.0f} / {m['max_lookups']} "
            f"| {m['mean_ms']:.1f} ms / {m['max_ms']:.1f} ms |"
        )
    MARKDOWN.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
