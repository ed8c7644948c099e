"""The exact Galatjang endgame table: build the default one (6 pits, default options) into
a directory and report its build time, size and peak memory, the speed of a query, and
the exact values and best sowings of a few endgame positions, each also checked against
the memoised search without the table where that is small enough. Writes
benchmarks/results/solve_galatjang.md.

    python benchmarks/solve_galatjang.py --out DIR [--max-seeds 24]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import resource
import time
from pathlib import Path
from typing import Any

import numpy as np

import boardlab
from boardlab.games.galatjang.endgames import (
    DEFAULT_MAX_SEEDS,
    GalatjangEndgame,
    default_table_path,
    table_entries,
)
from boardlab.games.galatjang.rules import NORTH, SOUTH, GalatjangState, pit_count, store_index

RESULTS = Path(__file__).resolve().parent / "results"
CHECK_SEEDS = 16  # positions with at most this many seeds are also solved without the table
RECHECK = 10_000_000  # table entries found again from their children with the engine's sower

#: Hand-made endgames (default options, South or North to act).
POSITIONS = [
    "1,2,3,4,5,6/0,0,0,0,0,0 30/21 s 1 60",
    "0,0,0,0,0,0/1,2,3,4,5,6 21/30 n 1 61",
    "2,2,2,2,2,2/2,2,2,2,2,2 24/24 s 1 50",
    "0,0,0,0,0,1/1,0,0,0,0,0 35/35 s 1 90",
    "4,0,4,0,4,0/0,4,0,4,0,4 24/24 s 1 70",
    "6,0,0,0,0,6/6,0,0,0,0,6 24/24 n 1 70",
]


def pit_seeds(state: GalatjangState) -> int:
    pits = pit_count(state)
    stores = state.ring[store_index(pits, SOUTH)] + state.ring[store_index(pits, NORTH)]
    return sum(x for x in state.ring if x > 0) - stores


def random_endgames(game: Any, count: int, seeds: int, rng: random.Random) -> list[str]:
    """Positions of random games (uniform random sowings from the start) at the first
    moment the pits hold at most ``seeds`` seeds."""
    found = []
    while len(found) < count:
        position = game.initial()
        while not position.is_over():
            if pit_seeds(position.state) <= seeds:
                found.append(position.position_string())
                break
            position = position.play(rng.choice(position.legal_actions()))
    return found


def describe(game: Any, solver: GalatjangEndgame, text: str) -> dict[str, Any]:
    state: GalatjangState = game.from_position_string(text).state
    values = solver.action_values(state)
    assert values is not None, text
    best = max(values.values())
    seeds = pit_seeds(state)
    checked = ""
    if seeds <= CHECK_SEEDS:
        alone = GalatjangEndgame(game, budget=2_000_000)
        checked = "yes" if alone.action_values(state) == values else "NO"
    return {
        "position": text,
        "seeds": seeds,
        "value": best,
        "best": " ".join(game.format_action(state, a) for a, v in values.items() if v == best),
        "all": " ".join(f"{game.format_action(state, a)}:{v:+d}" for a, v in values.items()),
        "checked": checked,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, type=Path, help="directory for the table")
    parser.add_argument("--max-seeds", type=int, default=DEFAULT_MAX_SEEDS, metavar="K")
    args = parser.parse_args()
    game = boardlab.new_game("galatjang")
    path = args.out / default_table_path(game).name
    load = os.getloadavg()
    began = time.perf_counter()
    GalatjangEndgame.build(game, args.max_seeds, path)
    seconds = time.perf_counter() - began
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB on Linux
    solver = GalatjangEndgame.load(game, path)
    table = solver.table
    assert table is not None
    began = time.perf_counter()
    table.verify()
    verify_seconds = time.perf_counter() - began

    began = time.perf_counter()
    wrong = solver.recheck(RECHECK, seed=1)
    recheck_seconds = time.perf_counter() - began

    rng = random.Random(2026)
    texts = POSITIONS + random_endgames(game, 8, args.max_seeds, rng)
    rows = [describe(game, solver, text) for text in texts]

    # query speed: action values of positions from random endgames, table only
    states = [game.from_position_string(t).state for t in random_endgames(game, 200, 20, rng)]
    began = time.perf_counter()
    queries = 0
    while time.perf_counter() - began < 3:
        for state in states:
            solver.action_values(state)
        queries += len(states)
    rate = queries / (time.perf_counter() - began)

    values = np.asarray(table.values)
    top = table_entries(6, args.max_seeds - 1) if args.max_seeds else 0
    level = values[top:]  # int8: a wider copy of 417 million entries would not fit the budget
    mean = float(level.sum(dtype=np.int64)) / level.size
    shares = [np.count_nonzero(level > 0), np.count_nonzero(level == 0)]
    shares = [x / level.size for x in (*shares, level.size - sum(shares))]
    lines = [
        f"# Exact Galatjang endgames ({time.strftime('%Y-%m-%d %H:%M')}, "
        f"{os.cpu_count()} cores, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} "
        "at the start)",
        "",
        "Command: `python benchmarks/solve_galatjang.py --out DIR"
        + (f" --max-seeds {args.max_seeds}`" if args.max_seeds != DEFAULT_MAX_SEEDS else "`")
        + f" (Python {platform.python_version()}, numba threads: "
        f"{os.environ.get('NUMBA_NUM_THREADS', 'default')}).",
        "",
        "| table | K | entries | file size | build time | peak memory | verify (SHA-256) |",
        "|---|---:|---:|---:|---:|---:|---:|",
        f"| `{path.name}` | {args.max_seeds} | {values.size:,} | "
        f"{path.stat().st_size / 2**30:.2f} GiB | {seconds:.0f} s | {peak:.2f} GiB | "
        f"{verify_seconds:.1f} s |",
        "",
        "`recheck`: "
        + (f"all {values.size:,}" if values.size <= RECHECK else f"{RECHECK:,} random")
        + " entries were found again from their children's entries with the engine's own "
        "sower and the plain ranking "
        f"(not the build's packed ones): {wrong} differ ({recheck_seconds:.0f} s).",
        "",
        f"The build time includes hashing and writing the file. A query (`action_values`"
        f" of a position in the table, every sowing's exact value) takes "
        f"{1e6 / rate:.0f} µs ({rate:,.0f} a second, positions with at most 20 seeds).",
        "",
        f"Configurations with exactly {args.max_seeds} seeds in the pits: "
        f"{level.size:,}; the player to act gains on average {mean:+.2f} seeds "
        f"over his opponent from the pits; {shares[0]:.1%} favour him, "
        f"{shares[1]:.1%} are even, {shares[2]:.1%} favour the opponent.",
        "",
        "## Exact values of some endgames (default options)",
        "",
        "*value*: the final store difference for the player to act under perfect play. "
        f"*search*: the memoised search without the table agrees (positions with at most "
        f"{CHECK_SEEDS} seeds). The first rows are made by hand, the rest are the first "
        f"positions of random games (seed 2026) with at most {args.max_seeds} seeds in the "
        "pits.",
        "",
        "| position | seeds | value | best | every sowing | search |",
        "|---|---:|---:|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| `{row['position']}` | {row['seeds']} | {row['value']:+d} | {row['best']} | "
            f"{row['all']} | {row['checked']} |"
        )
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "solve_galatjang.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print((RESULTS / "solve_galatjang.md").read_text(encoding="utf-8"))


if __name__ == "__main__":
    main()
