"""Galatjang solved from the start: the value of the start under several boards, each
proved by a certificate that the engine-only checker accepts, and the opening book.

For every board (pits x seeds, the other options at their defaults, one round) the
endgame table of its pits is built (K = 24, once per pits) unless it exists, then
``boardlab.games.galatjang.solution`` solves every first sowing above it (MTD(f)), writes
the certificate and checks it with ``boardlab.games.galatjang.certificate.check``.
``--book N`` also writes the opening book of the default rules (every position within N
actions of the start) into the package.

Writes benchmarks/results/solve_galatjang_start.json and .md, and the default rules'
certificate beside them.

    python benchmarks/solve_galatjang_start.py [--tables DIR] [--book 3]
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path
from typing import Any

import boardlab
from boardlab.games.galatjang.certificate import check
from boardlab.games.galatjang.endgames import GalatjangEndgame, default_table_path
from boardlab.games.galatjang.solution import BOOK, build_book, certify, solve_start

RESULTS = Path(__file__).resolve().parent / "results"
BOARDS = (
    [(4, s) for s in range(2, 7)] + [(5, s) for s in range(2, 7)] + [(6, s) for s in range(2, 9)]
)
K = 24


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=Path, help="where the endgame tables are (or go)")
    parser.add_argument("--book", type=int, default=0, metavar="N")
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    built: dict[int, float] = {}
    for pits, seeds in BOARDS:
        game = boardlab.new_game("galatjang", pits=pits, seeds=seeds)
        table = (args.tables or default_table_path(game).parent) / default_table_path(game).name
        if pits not in built:
            began = time.perf_counter()
            if not table.exists():
                GalatjangEndgame.build(game, K, table)
            built[pits] = round(time.perf_counter() - began, 1)
        endgame = GalatjangEndgame.load(game, table)
        name = "-".join(game.option_assignments()) or "default"
        folder = table.parent / f"galatjang-start-{name}"
        solver, progress = solve_start(game, endgame, folder, report=lambda _: None)
        value = max(progress.values.values())
        start = game.initial_state()
        began = time.perf_counter()
        certificate = certify(solver, start, value)
        path = certificate.save(folder / "certificate.json")
        certified = time.perf_counter() - began
        began = time.perf_counter()
        checked = check(certificate, endgame.table)
        row = {
            "pits": pits,
            "seeds": seeds,
            "value": value,
            "first_sowings": {game.format_action(start, a): v for a, v in progress.values.items()},
            "nodes": sum(progress.nodes.values()),
            "solve_seconds": round(sum(progress.seconds.values()), 1),
            "certify_seconds": round(certified, 1),
            "table_seeds": K,
            "table_build_seconds": built[pits],
            "certificate_choices": len(certificate.choices),
            "certificate_bytes": path.stat().st_size,
            "check_seconds": round(time.perf_counter() - began, 1),
            "checked_claims": checked.claims,
        }
        rows.append(row)
        print(json.dumps(row), flush=True)
        if (pits, seeds) == (6, 6):
            shutil.copy(path, RESULTS / "galatjang-start-default.certificate.json")
            if args.book:
                began = time.perf_counter()
                book = build_book(solver, args.book)
                BOOK.write_text(json.dumps(book, indent=0, sort_keys=True) + "\n")
                print(
                    f"book: {len(book['positions'])} positions, {time.perf_counter() - began:.0f} s"
                )
    stamp = time.strftime("%Y-%m-%d %H:%M")
    (RESULTS / "solve_galatjang_start.json").write_text(
        json.dumps({"date": stamp, "rows": rows}, indent=1) + "\n"
    )
    lines = [
        "# Galatjang solved from the start",
        "",
        f"`python benchmarks/solve_galatjang_start.py` ({stamp}, 2 cores). One round, every "
        "other option at its default. *value*: the final store difference for South (the "
        "first player) under perfect play; *first sowings*: each one's exact value, the "
        "best in bold; *nodes* and *solve*: the search above the endgame table (K = 24) "
        "and its time (the sum over the first sowings, as the checkpoints recorded them); "
        "*table*: building that table (once per pits; near 0 when it was built before); "
        "*certificate*: its choices and size, and the time to extract it; *check*: the "
        "engine-only checker.",
        "",
        "| pits | seeds | value | first sowings | nodes | solve | table | certificate | check |",
        "|---:|---:|---:|---|---:|---:|---:|---|---:|",
    ]
    for row in rows:
        best = row["value"]
        sowings = ", ".join(
            f"**{a} {v:+d}**" if v == best else f"{a} {v:+d}"
            for a, v in row["first_sowings"].items()
        )
        lines.append(
            f"| {row['pits']} | {row['seeds']} | {row['value']:+d} | {sowings} | "
            f"{row['nodes']:,} | {row['solve_seconds']} s | {row['table_build_seconds']} s | "
            f"{row['certificate_choices']:,} choices, {row['certificate_bytes'] / 1e3:.0f} kB, "
            f"{row['certify_seconds']} s | "
            f"{row['check_seconds']} s |"
        )
    (RESULTS / "solve_galatjang_start.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
