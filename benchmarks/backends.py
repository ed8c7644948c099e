"""Games a second on the local process pool and on Ray, on this machine, in one run.

Each workload is a match of N games (``boardlab.arena.play_match``, the code behind
``boardlab match``, ``tournament`` and ``study``) played three ways: in this process alone
(``--jobs 1``), on the local pool of every core, and on a Ray started here with every
core. Two figures each: *games/s* over the whole match, the start of the workers
included (the pool's processes, Ray's start, the compiling of each worker's searches),
and *steady games/s*, the rate between the first tenth of the games and the last (what
a long tournament sees). The games are the same on every backend (seeded by their
numbers); the script checks their records agree.

Writes benchmarks/results/backends.json and backends.md.

    python benchmarks/backends.py [--games 200]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path
from typing import Any

from boardlab.arena import play_match
from boardlab.arena.backends import Backend, LocalBackend, RayBackend

RESULTS = Path(__file__).resolve().parent / "results"
#: (game, options, agent A, agent B): a light workload and a searching one.
WORKLOADS = [
    ("galatjang", {}, "easy", "beginner"),
    ("linja", {}, "medium", "easy"),
]


def measure(backend: Backend, workload: tuple[Any, ...], games: int) -> dict[str, Any]:
    game, options, a, b = workload
    finished: list[float] = []
    began = time.perf_counter()
    result = play_match(
        game, a, b, games, options, backend=backend,
        progress=lambda _: finished.append(time.perf_counter()),
    )  # fmt: skip
    total = time.perf_counter() - began
    first, last = finished[len(finished) // 10], finished[-1]
    steady = (len(finished) - 1 - len(finished) // 10) / (last - first)
    return {
        "games": len(result.games),
        "seconds": round(total, 2),
        "games_per_second": round(len(result.games) / total, 2),
        "steady_games_per_second": round(steady, 2),
        "records": [g.record for g in result.games],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    rows = []
    for workload in WORKLOADS:
        found = {}
        for name, make in [
            ("one process", lambda: LocalBackend(1)),
            (f"local pool ({cores} processes)", lambda: LocalBackend(cores)),
            (f"Ray ({cores} CPUs, started here)", lambda: RayBackend(jobs=cores)),
        ]:
            began = time.perf_counter()
            with make() as backend:
                start = time.perf_counter() - began
                found[name] = measure(backend, workload, args.games)
            found[name]["backend_start_seconds"] = round(start, 2)
            print(workload[:1], name, {k: v for k, v in found[name].items() if k != "records"})
        records = {name: row.pop("records") for name, row in found.items()}
        same = len({tuple(r) for r in records.values()}) == 1
        for name, row in found.items():
            rows.append({"workload": list(workload), "backend": name, "same_games": same, **row})
    stamp = time.strftime("%Y-%m-%d %H:%M")
    info = {"date": stamp, "machine": f"{platform.machine()}, {cores} cores", "games": args.games}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "backends.json").write_text(json.dumps({**info, "rows": rows}, indent=2) + "\n")
    lines = [
        "# Games a second: the local pool and Ray",
        "",
        f"`python benchmarks/backends.py --games {args.games}` on {info['machine']}, {stamp}. "
        "*games/s*: the whole match, the workers' start included; *steady*: between the "
        "first tenth of the games and the last; *start*: the backend's own start (Ray's "
        "processes); *same games*: every backend played the same records.",
        "",
        "| workload | backend | games | seconds | games/s | steady games/s | start (s) | "
        "same games |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    for row in rows:
        game, _, a, b = row["workload"]
        lines.append(
            f"| {game} `{a}` vs `{b}` | {row['backend']} | {row['games']} | {row['seconds']} | "
            f"{row['games_per_second']} | {row['steady_games_per_second']} | "
            f"{row['backend_start_seconds']} | {'yes' if row['same_games'] else 'NO'} |"
        )
    (RESULTS / "backends.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
