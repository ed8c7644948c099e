"""Solve every Linja variant that provably ends; write the value of each start.

    python benchmarks/solve_linja.py --tables DIR [--only NAME ...] [--keep]

Each variant is built by ``boardlab solve linja`` in its own process (so its peak memory
is its own), timed, and its start position read back: the value for the first player
and every optimal first turn. Results accumulate in
``benchmarks/results/solve_linja.json`` (a variant already there is skipped, so the work
can be spread over several runs) and the table in ``solve_linja.md`` is written from
them. Tables are deleted after reading unless ``--keep`` (the default rules' table is
always kept: the perfect player uses it).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from itertools import product
from pathlib import Path
from typing import Any

import boardlab
from boardlab.games.linja import solution as linja
from boardlab.solve.tables import read_header

RESULTS = Path(__file__).parent / "results"
JSON = RESULTS / "solve_linja.json"
MARKDOWN = RESULTS / "solve_linja.md"
KEPT = "bonus-signed"


def variants() -> list[dict[str, Any]]:
    """Every option set that decides values and provably ends (only the options that
    differ from the defaults), the default first, then by how many options differ."""
    found: list[dict[str, Any]] = []
    for scoring in ("signed", "positive"):
        found.append({"ruleset": "extra-turn", "scoring": scoring})
        for nasty, after, back in product((False, True), repeat=3):
            if not (after and back):  # these two together can loop
                found.append(
                    {
                        "scoring": scoring,
                        "bonus_after_opening": after,
                        "goal_step_back": back,
                        "nasty": nasty,
                    }
                )
    defaults = boardlab.new_game("linja").options
    trimmed = [{k: v for k, v in o.items() if defaults[k] != v} for o in found]
    return sorted(trimmed, key=lambda o: (len(o), name_of(o)))


def name_of(options: dict[str, Any]) -> str:
    return linja.variant_name(boardlab.new_game("linja", options))  # type: ignore[arg-type]


def solve_one(options: dict[str, Any], tables: Path) -> dict[str, Any]:
    """Build in a child process; its time, peak memory and what the table says."""
    path = tables / f"linja-{name_of(options)}.table"
    path.unlink(missing_ok=True)
    command = [sys.executable, "-m", "boardlab", "solve", "linja", "--out", str(path)]
    for key, value in options.items():
        command += ["--option", f"{key}={str(value).lower()}"]
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    output = child.stdout.read() if child.stdout else ""
    if status:
        raise SystemExit(f"{' '.join(command)} failed:\n{output}")
    return describe(options, path, seconds, usage.ru_maxrss * 1024)


def describe(
    options: dict[str, Any], path: Path, seconds: float, peak_memory: int
) -> dict[str, Any]:
    """What a built table says about the start, with the cost of building it."""
    game = boardlab.new_game("linja", options)
    solution = linja.LinjaSolution.load(game, path)  # type: ignore[arg-type]
    position = game.initial()
    turns = []
    for turn in solution.best_turns(position.state):
        words: list[str] = []
        current = position
        for action in turn:
            words.append(current.action_string(action))
            current = current.play(action)
        turns.append(" ".join(words))
    header = read_header(path)
    return {
        "options": options,
        "value": solution.value(position.state),
        "optimal_first_turns": turns,
        "build_seconds": header["build_seconds"],
        "total_seconds": round(seconds, 1),
        "peak_memory_bytes": peak_memory,
        "file_bytes": path.stat().st_size,
        "sha256": header["sha256"],
        "date": time.strftime("%Y-%m-%d %H:%M"),
    }


def write_markdown(results: dict[str, dict[str, Any]]) -> None:
    lines = [
        "# Linja solved: the value of the start under every variant that ends",
        "",
        "Command: `python benchmarks/solve_linja.py --tables DIR` (2 cores, 24 GB; each "
        "variant built by `boardlab solve linja` in its own process). *value*: the final "
        "point difference for the first player under perfect play (both sides maximise "
        "their own difference); `first` does not change it (the start is symmetric). "
        "*build*: solving the table; *total*: the whole command (compile, write, hash).",
        "",
        "| variant | value | optimal first turns | build | total | peak memory | file |",
        "|---|---:|---|---:|---:|---:|---:|",
    ]
    for name in sorted(results, key=lambda n: (n != KEPT, n)):
        r = results[name]
        turns = ", ".join(f"`{t}`" for t in r["optimal_first_turns"])
        lines.append(
            f"| `{name}` | {r['value']:+d} | {turns} "
            f"| {r['build_seconds']:.0f} s | {r['total_seconds']:.0f} s "
            f"| {r['peak_memory_bytes'] / 2**30:.2f} GiB | {r['file_bytes'] / 2**30:.2f} GiB |"
        )
    missing = [name_of(o) for o in variants() if name_of(o) not in results]
    if missing:
        lines += ["", f"Not built yet: {', '.join(f'`{m}`' for m in missing)}."]
    MARKDOWN.write_text("\n".join(lines) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=Path, required=True, help="where tables are built")
    parser.add_argument("--only", nargs="*", help="variant names to build (default: all)")
    parser.add_argument("--keep", action="store_true", help="keep every table")
    args = parser.parse_args()
    results: dict[str, dict[str, Any]] = json.loads(JSON.read_text()) if JSON.exists() else {}
    for options in variants():
        name = name_of(options)
        if name in results or (args.only and name not in args.only):
            continue
        print(f"solving {name} ...", flush=True)
        results[name] = solve_one(options, args.tables)
        print(
            f"  value {results[name]['value']:+d}, {results[name]['build_seconds']:.0f} s",
            flush=True,
        )
        JSON.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
        write_markdown(results)
        if not args.keep and name != KEPT:
            (args.tables / f"linja-{name}.table").unlink()
    write_markdown(results)


if __name__ == "__main__":
    main()
