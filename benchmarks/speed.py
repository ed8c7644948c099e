"""Speed, measured side by side in one run: per game with default options, the
pure-Python engine and the compiled kernels (actions and uniform-random playouts per
second from the start position), the tuned C baseline built and run beside them, and
MCTS iterations per second. Writes benchmarks/results/speed.md and speed.json.

    python benchmarks/speed.py [--seconds 5] [--games jinli,linja,galatjang]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import boardlab
from boardlab.ai import make_agent

ROOT = Path(__file__).resolve().parent.parent
SKIPPED = "C baseline skipped: set BOARDLAB_C_BASELINE or pass --c-baseline DIR"
RESULTS = Path(__file__).resolve().parent / "results"


def python_playouts(game_id: str, seconds: float) -> dict[str, float]:
    """Random playouts with the readable engine (raw states, the unchecked fast path)."""
    game = boardlab.new_game(game_id)
    start, rng = game.initial_state(), random.Random(1)
    playouts = actions = 0
    began = time.perf_counter()
    while time.perf_counter() - began < seconds:
        state = start
        while True:
            legal = game.legal_actions(state)
            if not legal:
                break
            state = game.apply(state, legal[rng.randrange(len(legal))])
            actions += 1
        playouts += 1
    elapsed = time.perf_counter() - began
    return {"playouts_per_s": playouts / elapsed, "actions_per_s": actions / elapsed}


def compiled_playouts(game_id: str, seconds: float, threads: int = 1) -> dict[str, float] | None:
    """Random playouts in compiled batches (one call plays many games), after a warm-up
    call that compiles the batch loop; ``threads`` > 1 uses every core."""
    try:
        from boardlab.fast.batch import playouts
    except ImportError:
        return None
    game = boardlab.new_game(game_id)
    state = game.initial_state()
    playouts(game, state, 10, seed=0, threads=threads)  # compile (kernel from the cache)
    count, actions, batch = 0, 0, 20_000
    began = time.perf_counter()
    while time.perf_counter() - began < seconds:
        stats = playouts(game, state, batch, seed=count, threads=threads)
        count += stats.playouts
        actions += stats.actions
    elapsed = time.perf_counter() - began
    return {
        "playouts_per_s": count / elapsed,
        "actions_per_s": actions / elapsed,
        "mean_actions": actions / count,
    }


def first_call_seconds(game_id: str, fresh_cache: bool) -> float | None:
    """Seconds for importing a kernel and its first playout in a new process: with an
    empty numba cache (the first compile) or with the cache (every later start)."""
    code = (
        "import time; t = time.perf_counter(); import boardlab, importlib; "
        "from boardlab.fast import rng; "
        f"k = importlib.import_module('boardlab.games.{game_id}.kernel'); "
        f"g = boardlab.new_game('{game_id}'); "
        "k.playout(k.encode(g, g.initial_state()), k.params(g), rng.seeded(1)); "
        "print(time.perf_counter() - t)"
    )
    env = dict(os.environ)
    with tempfile.TemporaryDirectory() as cache:
        if fresh_cache:
            env["NUMBA_CACHE_DIR"] = cache
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
        )
    return float(done.stdout.strip()) if done.returncode == 0 else None


def c_baseline(
    source: Path | None, games: list[str], seconds: float
) -> dict[str, dict[str, float]]:
    """Build the C baseline (a tuned C program, not part of boardlab, found in ``source``)
    in a temporary folder and run ``./limit GAME SECONDS``; nothing, said, without it."""
    if source is None or not source.exists() or shutil.which("make") is None:
        print(SKIPPED)
        return {}
    figures: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as work:
        build = Path(work) / "c"
        shutil.copytree(source, build)
        made = subprocess.run(["make"], cwd=build, capture_output=True, text=True, check=False)
        if made.returncode != 0:
            return {}
        for game_id in games:
            out = subprocess.run(
                [str(build / "limit"), game_id, str(seconds)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            pairs = dict(re.findall(r"(\w+)=([\d.]+)", out))
            figures[game_id] = {k: float(v) for k, v in pairs.items()}
    return figures


def mcts_rate(game_id: str, seconds: float, settings: str) -> float:
    """MCTS iterations per second (uniform random rollouts) from the start position."""
    game = boardlab.new_game(game_id)
    make_agent(f"mcts:iterations=50,{settings}", seed=2).choose(game.initial())  # compile
    choice = make_agent(f"mcts:time={seconds},reuse=0,{settings}", seed=1).choose(game.initial())
    return choice.iterations / choice.seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--games", default="jinli,linja,galatjang")
    parser.add_argument(
        "--c-baseline",
        metavar="DIR",
        type=Path,
        default=os.environ.get("BOARDLAB_C_BASELINE"),
        help="the C baseline's folder (default: $BOARDLAB_C_BASELINE; skipped without it)",
    )
    args = parser.parse_args()
    games = args.games.split(",")
    c = c_baseline(Path(args.c_baseline) if args.c_baseline else None, games, args.seconds)
    rows: dict[str, Any] = {}
    for game_id in games:
        python = python_playouts(game_id, args.seconds)
        compiled = compiled_playouts(game_id, args.seconds)
        row: dict[str, Any] = {
            "python": python,
            "compiled": compiled,
            "c": c.get(game_id),
            "compiled_all_cores": compiled_playouts(
                game_id, args.seconds, threads=os.cpu_count() or 1
            ),
            "mcts_python_iterations_per_s": mcts_rate(game_id, args.seconds, "compiled=0"),
            "mcts_compiled_iterations_per_s": mcts_rate(game_id, args.seconds, "tree=compiled"),
        }
        if compiled:
            row["compile_first_s"] = first_call_seconds(game_id, fresh_cache=True)
            row["compile_cached_s"] = first_call_seconds(game_id, fresh_cache=False)
            row["compiled_vs_python"] = compiled["playouts_per_s"] / python["playouts_per_s"]
            if row["c"]:
                row["compiled_vs_c"] = compiled["playouts_per_s"] / row["c"]["playouts_per_s"]
        rows[game_id] = row
        print(game_id, json.dumps(row, default=float), flush=True)
    report = {
        "machine": {
            "cpu_count": os.cpu_count(),
            "platform": platform.platform(),
            "python": platform.python_version(),
        },
        "seconds": args.seconds,
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "games": rows,
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "speed.json").write_text(json.dumps(report, indent=2) + "\n")
    (RESULTS / "speed.md").write_text(table(report))
    print(table(report))


def table(report: dict[str, Any]) -> str:
    lines = [
        f"# Speed ({report['date']}, {report['machine']['cpu_count']} cores, "
        f"{report['seconds']:.0f} s a figure, default options)",
        "",
        "| game | python playouts/s | compiled playouts/s | C playouts/s | compiled/C | "
        "compiled/python | compiled, all cores | first compile s | cached start s | "
        "python MCTS it/s | compiled MCTS it/s | compiled/python MCTS |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for game_id, row in report["games"].items():
        compiled, c = row["compiled"] or {}, row["c"] or {}

        def fmt(value: float | None, digits: int = 0) -> str:
            return "-" if value is None else f"{value:,.{digits}f}"

        lines.append(
            f"| {game_id} | {fmt(row['python']['playouts_per_s'])} | "
            f"{fmt(compiled.get('playouts_per_s'))} | {fmt(c.get('playouts_per_s'))} | "
            f"{fmt(row.get('compiled_vs_c'), 2)} | {fmt(row.get('compiled_vs_python'), 1)} | "
            f"{fmt((row['compiled_all_cores'] or {}).get('playouts_per_s'))} | "
            f"{fmt(row.get('compile_first_s'), 1)} | {fmt(row.get('compile_cached_s'), 2)} | "
            f"{fmt(row['mcts_python_iterations_per_s'])} | "
            f"{fmt(row['mcts_compiled_iterations_per_s'])} | "
            f"{fmt(row['mcts_compiled_iterations_per_s'] / row['mcts_python_iterations_per_s'])} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
