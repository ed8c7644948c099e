"""Solve every Linja variant that provably ends; write the value of each start.

    python benchmarks/solve_linja.py --tables DIR [--only NAME ...] [--keep]
    python benchmarks/solve_linja.py --tables DIR --against-c [--baseline DIR]

Each variant is built by ``boardlab solve linja`` in its own process (so its peak memory
is its own), timed, and its start position read back: the value for the first player
and every optimal first turn. Results accumulate in
``benchmarks/results/solve_linja.json`` (a variant already there is skipped, so the work
can be spread over several runs) and the table in ``solve_linja.md`` is written from
them. Tables are deleted after reading unless ``--keep`` (the default rules' table is
always kept: the perfect player uses it).

``--against-c`` measures the speed against the C baseline instead, in one run: it builds
the C programme of ``--baseline`` (or ``$BOARDLAB_LINJA_BASELINE``; without it the C is
skipped with a note), runs it first (the whole table of the default rules), then
``boardlab solve linja`` for the default rules, ``nasty`` and the extra-turn rule set,
each in its own process, and writes their seconds, peak memory and the ratio (C seconds
over ours: above 1, ours is faster) to ``solve_linja_vs_c.json`` and the top of
``solve_linja.md``. The C solves the default rules only: the other two are set against
the same C time.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from itertools import product
from pathlib import Path
from typing import Any

import boardlab
from boardlab.games.linja import solution as linja
from boardlab.solve.tables import read_header

RESULTS = Path(__file__).parent / "results"
JSON = RESULTS / "solve_linja.json"
AGAINST_C = RESULTS / "solve_linja_vs_c.json"
MARKDOWN = RESULTS / "solve_linja.md"
KEPT = "bonus-signed"
#: The rule sets timed against the C baseline (the options that differ from the defaults).
AGAINST_C_RULES: list[dict[str, Any]] = [{}, {"nasty": True}, {"ruleset": "extra-turn"}]


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


def run_c_baseline(folder: Path) -> dict[str, Any]:
    """Build the C programme in ``folder`` and solve the whole table with it: its time
    (the process, and the dynamic programme as it reports it), peak memory and value."""
    work = Path(tempfile.mkdtemp(prefix="linja-dp-"))
    try:
        program = work / "linja_dp"
        compile_command = [
            "gcc", "-std=c11", "-O3", "-march=native", "-fopenmp", "-D_GNU_SOURCE",
            "-o", str(program), str(folder / "linja_dp.c"),
        ]  # fmt: skip
        subprocess.run(compile_command, check=True)
        load = os.getloadavg()[0]
        start = time.perf_counter()
        command = [str(program), "dp", "--log", str(work / "progress.log")]
        child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd=work)
        output = child.stdout.read() if child.stdout else ""
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if status:
        raise SystemExit(f"{' '.join(command)} failed:\n{output}")
    found = dict(re.findall(r"^(ROOT value|DP_SECONDS)=(\S+)$", output, re.MULTILINE))
    return {
        "command": " ".join([*compile_command[:-3], "-o", "linja_dp", "linja_dp.c"])
        + " && ./linja_dp dp",
        "value": int(found["ROOT value"]),
        "dp_seconds": float(found["DP_SECONDS"]),
        "total_seconds": round(seconds, 1),
        "peak_memory_bytes": usage.ru_maxrss * 1024,
        "load_before": round(load, 2),
    }


def against_c(tables: Path, baseline: Path | None, results: dict[str, dict[str, Any]]) -> None:
    """The C baseline first (when found), then our three rule sets, each in its own
    process; the figures to ``AGAINST_C`` and the top of the markdown."""
    run: dict[str, Any] = {"date": time.strftime("%Y-%m-%d %H:%M"), "ours": {}}
    if baseline is None or not (baseline / "linja_dp.c").exists():
        run["c"] = None
        print(
            f"no C baseline ({baseline or 'give --baseline or BOARDLAB_LINJA_BASELINE'}): skipped"
        )
    else:
        print("building and running the C baseline ...", flush=True)
        run["c"] = run_c_baseline(baseline)
        print(f"  value {run['c']['value']:+d}, {run['c']['dp_seconds']:.0f} s", flush=True)
    for options in AGAINST_C_RULES:
        name = name_of(options)
        print(f"solving {name} ...", flush=True)
        load = os.getloadavg()[0]
        found = solve_one(options, tables)
        found["load_before"] = round(load, 2)
        earlier = results.get(name)
        if earlier and earlier["sha256"] != found["sha256"]:
            raise SystemExit(f"{name}: the table differs from the one built before ({JSON.name})")
        run["ours"][name] = found
        results[name] = {k: v for k, v in found.items() if k != "load_before"}
        print(f"  value {found['value']:+d}, {found['build_seconds']:.0f} s", flush=True)
        if name != KEPT:
            (tables / f"linja-{name}.table").unlink()
    AGAINST_C.write_text(json.dumps(run, indent=1, sort_keys=True) + "\n")
    JSON.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")


def against_c_lines() -> list[str]:
    """The comparison with the C baseline, from ``AGAINST_C``: nothing before it is run."""
    if not AGAINST_C.exists():
        return []
    run = json.loads(AGAINST_C.read_text())
    c = run["c"]
    lines = [
        "# Linja solved against the C baseline",
        "",
        f"Command: `python benchmarks/solve_linja.py --tables DIR --against-c --baseline "
        f"DIR` ({run['date']}, 2 cores, both threads for each). The C baseline "
        "(`../shared/baselines/linja-dp/`, the measuring stick, not part of the product) "
        "solves the default rules only: nasty and extra turn are set against the same C "
        "time. *solve*: the dynamic programme alone (for the C, as it reports it); "
        "*process*: the whole command (ours: numba compile or cache load, write, hash); "
        "*ratio*: C seconds over ours (1 = as fast as the C, above 1 faster); *load*: the "
        "machine's load average (1 min) when the run started, other work included.",
        "",
        "| solver | rules | value | solve | process | peak memory | ratio (solve) "
        "| ratio (process) | load |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    if c is None:
        lines.insert(4, "The C baseline was not found: no ratio.")
    else:
        lines.append(
            f"| C (`{c['command']}`) | bonus-signed | {c['value']:+d} | {c['dp_seconds']:.0f} s "
            f"| {c['total_seconds']:.0f} s | {c['peak_memory_bytes'] / 2**30:.2f} GiB | 1.00 "
            f"| 1.00 | {c['load_before']:.1f} |"
        )
    for name, r in run["ours"].items():
        ratio = ratio_total = "-"
        if c is not None:
            ratio = f"{c['dp_seconds'] / r['build_seconds']:.2f}"
            ratio_total = f"{c['total_seconds'] / r['total_seconds']:.2f}"
        lines.append(
            f"| `boardlab solve linja` | {name} | {r['value']:+d} | {r['build_seconds']:.0f} s "
            f"| {r['total_seconds']:.0f} s | {r['peak_memory_bytes'] / 2**30:.2f} GiB "
            f"| {ratio} | {ratio_total} | {r['load_before']:.1f} |"
        )
    return [*lines, ""]


def write_markdown(results: dict[str, dict[str, Any]]) -> None:
    lines = [
        *against_c_lines(),
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
    parser.add_argument(
        "--against-c",
        action="store_true",
        help="time the default, nasty and extra-turn rules against the C baseline",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        default=os.environ.get("BOARDLAB_LINJA_BASELINE"),
        help="the C baseline's folder (linja_dp.c); default $BOARDLAB_LINJA_BASELINE",
    )
    args = parser.parse_args()
    results: dict[str, dict[str, Any]] = json.loads(JSON.read_text()) if JSON.exists() else {}
    if args.against_c:
        against_c(args.tables, args.baseline, results)
        write_markdown(results)
        return
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
