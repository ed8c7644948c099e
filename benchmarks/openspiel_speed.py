"""OpenSpiel beside boardlab, measured in one run:

(a) OpenSpiel's C++ games: uniform-random playouts per second from the start of
    ``oware(num_seeds_per_house=6)`` and ``mancala``, by three paths: a Python loop over
    the C++ state, ``pyspiel.evaluate_bots`` with two uniform random bots (the game loop
    in C++), and ``pyspiel.RandomRolloutEvaluator`` run by a one-simulation
    ``MCTSBot.mcts_search`` (N rollouts from the start in one C++ call: the loop OpenSpiel's
    MCTS uses). The fastest is reported as the C++ rate.
(b) OpenSpiel's C++ ``pyspiel.MCTSBot`` (random rollouts, ``RandomRolloutEvaluator(1, seed)``)
    iterations per second on each boardlab game through the adapter
    (``boardlab.rl.openspiel``), from the start position; OpenSpiel's Python ``MCTSBot``
    beside it.
(c) boardlab's own MCTS (``mcts:time=S,reuse=0``: uniform random rollouts, on the
    compiled kernels when available; and with ``compiled=0``, pure Python) on the same games.

Writes benchmarks/results/openspiel.json and openspiel.md.

    python benchmarks/openspiel_speed.py [--seconds 5] [--games jinli,linja,galatjang]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts as python_mcts

import boardlab
from boardlab.ai import make_agent
from boardlab.rl import openspiel

RESULTS = Path(__file__).resolve().parent / "results"
CPP_GAMES = ("oware(num_seeds_per_house=6)", "mancala")
UCT_C = 1.4  # boardlab's default exploration constant, used on both sides


# ---------------------------------------------------------------------- (a) C++ playouts
def python_loop(game: Any, seconds: float) -> dict[str, float]:
    """Uniform-random playouts by a Python loop over the C++ state."""
    rng = random.Random(1)
    playouts = actions = 0
    began = time.perf_counter()
    while time.perf_counter() - began < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
            actions += 1
        playouts += 1
    elapsed = time.perf_counter() - began
    return {
        "playouts_per_s": playouts / elapsed,
        "actions_per_s": actions / elapsed,
        "mean_actions": actions / playouts,
    }


def evaluate_bots_loop(game: Any, seconds: float) -> dict[str, float]:
    """Uniform-random playouts by ``pyspiel.evaluate_bots``: the game loop runs in C++
    (one Python call a playout)."""
    bots = [pyspiel.make_uniform_random_bot(p, 10 + p) for p in range(2)]
    playouts = 0
    began = time.perf_counter()
    while time.perf_counter() - began < seconds:
        pyspiel.evaluate_bots(game.new_initial_state(), bots, playouts)
        playouts += 1
    return {"playouts_per_s": playouts / (time.perf_counter() - began)}


def rollout_evaluator_loop(game: Any, seconds: float, batch: int = 1000) -> dict[str, float]:
    """Uniform-random playouts by ``RandomRolloutEvaluator(batch, seed)``: a one-simulation
    MCTS search evaluates its unexpanded root, the start position, with ``batch`` random
    rollouts in one C++ call."""
    playouts, calls = 0, 0
    began = time.perf_counter()
    while time.perf_counter() - began < seconds:
        evaluator = pyspiel.RandomRolloutEvaluator(batch, calls)
        bot = pyspiel.MCTSBot(game, evaluator, UCT_C, 1, 100, False, calls, False)
        root = bot.mcts_search(game.new_initial_state())
        assert root.explore_count == 1
        playouts += batch
        calls += 1
    return {"playouts_per_s": playouts / (time.perf_counter() - began)}


def cpp_playouts(name: str, seconds: float) -> dict[str, Any]:
    game = pyspiel.load_game(name)
    paths = {
        "python_loop": python_loop(game, seconds),
        "evaluate_bots": evaluate_bots_loop(game, seconds),
        "rollout_evaluator": rollout_evaluator_loop(game, seconds),
    }
    mean = paths["python_loop"]["mean_actions"]
    for figures in paths.values():  # the same random play: the same mean length
        figures.setdefault("actions_per_s", figures["playouts_per_s"] * mean)
    fastest = max(paths, key=lambda path: paths[path]["playouts_per_s"])
    return {
        "game": str(game),
        "paths": paths,
        "mean_actions": mean,
        "fastest_path": fastest,
        "playouts_per_s": paths[fastest]["playouts_per_s"],
        "actions_per_s": paths[fastest]["actions_per_s"],
    }


# ---------------------------------------------------------------------- (b) OpenSpiel MCTS
def openspiel_cpp_mcts(game_id: str, seconds: float) -> dict[str, float]:
    """C++ ``MCTSBot`` on the adapter game. Its ``step`` releases the GIL, which crashes on
    any Python game in pyspiel 2.0.2, so the search runs through ``mcts_search`` (what
    ``step`` calls), with a wall-clock limit."""
    game = openspiel.load(game_id)
    evaluator = pyspiel.RandomRolloutEvaluator(1, 1)
    bot = pyspiel.MCTSBot(
        game, evaluator, UCT_C, 10**9, 4000, True, 1, False, max_wall_clock_time=seconds
    )
    began = time.perf_counter()
    root = bot.mcts_search(game.new_initial_state())
    elapsed = time.perf_counter() - began
    return {"iterations": root.explore_count, "seconds": elapsed}


def openspiel_python_mcts(game_id: str, seconds: float) -> dict[str, float]:
    """OpenSpiel's Python ``MCTSBot`` on the adapter game: a short run sizes a run of
    about ``seconds`` (it has no time limit)."""
    game = openspiel.load(game_id)

    def run(simulations: int) -> tuple[int, float]:
        rs = np.random.RandomState(1)
        evaluator = python_mcts.RandomRolloutEvaluator(1, rs)
        bot = python_mcts.MCTSBot(game, UCT_C, simulations, evaluator, solve=True, random_state=rs)
        began = time.perf_counter()
        root = bot.mcts_search(game.new_initial_state())
        return root.explore_count, time.perf_counter() - began

    count, elapsed = run(50)
    count, elapsed = run(max(50, int(count / elapsed * seconds)))
    return {"iterations": count, "seconds": elapsed}


# ---------------------------------------------------------------------- (c) boardlab MCTS
def boardlab_mcts(
    game_id: str, seconds: float, compiled: bool, tree: str = "python"
) -> dict[str, float]:
    game = boardlab.new_game(game_id)
    spec = f"mcts:time={{}},reuse=0,compiled={int(compiled)},tree={tree}"
    make_agent(spec.format(0.2), seed=2).choose(game.initial())  # load the kernels first
    choice = make_agent(spec.format(seconds), seed=1).choose(game.initial())
    return {"iterations": choice.iterations, "seconds": choice.seconds}


def rate(figures: dict[str, float]) -> float:
    return figures["iterations"] / figures["seconds"]


# ---------------------------------------------------------------------- the report
def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--games", default=",".join(boardlab.game_ids()))
    args = parser.parse_args()
    load_before = os.getloadavg()
    openspiel.register()

    cpp: dict[str, Any] = {}
    for name in CPP_GAMES:
        cpp[name] = cpp_playouts(name, args.seconds)
        print(name, json.dumps(cpp[name], default=float), flush=True)

    games: dict[str, Any] = {}
    for game_id in args.games.split(","):
        row: dict[str, Any] = {
            "openspiel_cpp_mcts": openspiel_cpp_mcts(game_id, args.seconds),
            "openspiel_python_mcts": openspiel_python_mcts(game_id, args.seconds),
            "boardlab_mcts_compiled_tree": boardlab_mcts(
                game_id, args.seconds, compiled=True, tree="compiled"
            ),
            "boardlab_mcts": boardlab_mcts(game_id, args.seconds, compiled=True),
            "boardlab_mcts_pure_python": boardlab_mcts(game_id, args.seconds, compiled=False),
        }
        for key in list(row):
            row[key]["iterations_per_s"] = rate(row[key])
        cpp_rate = row["openspiel_cpp_mcts"]["iterations_per_s"]
        row["boardlab_compiled_over_openspiel_cpp"] = (
            row["boardlab_mcts_compiled_tree"]["iterations_per_s"] / cpp_rate
        )
        row["boardlab_over_openspiel_cpp"] = row["boardlab_mcts"]["iterations_per_s"] / cpp_rate
        row["boardlab_pure_python_over_openspiel_cpp"] = (
            row["boardlab_mcts_pure_python"]["iterations_per_s"] / cpp_rate
        )
        games[game_id] = row
        print(game_id, json.dumps(row, default=float), flush=True)

    report = {
        "machine": {
            "cpu_count": os.cpu_count(),
            "platform": platform.platform(),
            "python": platform.python_version(),
            "load_average_before": load_before,
            "load_average_after": os.getloadavg(),
        },
        "open_spiel": _version("open_spiel"),
        "seconds": args.seconds,
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "cpp_playouts": cpp,
        "mcts": games,
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "openspiel.json").write_text(json.dumps(report, indent=2) + "\n")
    (RESULTS / "openspiel.md").write_text(table(report))
    print(table(report))


def _version(package: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(package.replace("_", "-"))
    except PackageNotFoundError:
        return "unknown"


def table(report: dict[str, Any]) -> str:
    def fmt(value: float, digits: int = 0) -> str:
        return f"{value:,.{digits}f}"

    machine = report["machine"]
    load = " ".join(f"{x:.2f}" for x in machine["load_average_before"])
    lines = [
        f"# OpenSpiel beside boardlab ({report['date']}, open-spiel {report['open_spiel']}, "
        f"{machine['cpu_count']} cores, load average {load} at the start, "
        f"{report['seconds']:g} s a figure)",
        "",
        "## OpenSpiel C++ games: uniform-random playouts per second from the start",
        "",
        "| game | Python loop over C++ state | `evaluate_bots` (C++ loop) | "
        "`RandomRolloutEvaluator` (C++ loop) | mean actions | C++ rate (fastest path) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for name, row in report["cpp_playouts"].items():
        paths = row["paths"]
        lines.append(
            f"| {name} | {fmt(paths['python_loop']['playouts_per_s'])} | "
            f"{fmt(paths['evaluate_bots']['playouts_per_s'])} | "
            f"{fmt(paths['rollout_evaluator']['playouts_per_s'])} | "
            f"{fmt(row['mean_actions'], 1)} | {fmt(row['playouts_per_s'])} "
            f"({row['fastest_path']}) |"
        )
    lines += [
        "",
        "## MCTS iterations per second from the start (uniform random rollouts, default options)",
        "",
        "| game | OpenSpiel C++ MCTSBot (adapter) | OpenSpiel Python MCTSBot (adapter) | "
        "boardlab MCTS, compiled tree | boardlab MCTS, Python tree | "
        "boardlab MCTS, pure Python | compiled tree / OpenSpiel C++ | "
        "Python tree / OpenSpiel C++ | pure Python / OpenSpiel C++ |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for game_id, row in report["mcts"].items():
        lines.append(
            f"| {game_id} | {fmt(row['openspiel_cpp_mcts']['iterations_per_s'])} | "
            f"{fmt(row['openspiel_python_mcts']['iterations_per_s'])} | "
            f"{fmt(row['boardlab_mcts_compiled_tree']['iterations_per_s'])} | "
            f"{fmt(row['boardlab_mcts']['iterations_per_s'])} | "
            f"{fmt(row['boardlab_mcts_pure_python']['iterations_per_s'])} | "
            f"{fmt(row['boardlab_compiled_over_openspiel_cpp'], 1)} | "
            f"{fmt(row['boardlab_over_openspiel_cpp'], 1)} | "
            f"{fmt(row['boardlab_pure_python_over_openspiel_cpp'], 2)} |"
        )
    lines += [
        "",
        "The C++ rate is the fastest honest C++ path: `RandomRolloutEvaluator` rollouts run "
        "entirely in C++ (one call plays many games), `evaluate_bots` runs the game loop in "
        "C++ with one Python call a game; the actions-per-second figures of the C++ paths "
        "use the mean length measured by the Python loop (the same uniform random play).",
        "OpenSpiel's C++ MCTSBot on a boardlab game runs the search in C++ but every state "
        "call (legal actions, apply, clone, returns) goes back into Python through the "
        "adapter, so its rate is bound by boardlab's pure-Python rules. It is driven by "
        "`mcts_search`: `MCTSBot.step` releases the GIL and crashes on any Python game in "
        "pyspiel 2.0.2 (OpenSpiel's own `python_tic_tac_toe` too). boardlab's compiled "
        "tree (`mcts:tree=compiled`) runs the whole search in numba over flat arrays; its "
        "Python tree plays its random rollouts on the compiled kernels (numba) when they "
        "are installed; the pure-Python column turns them off (`compiled=0`). Both "
        "searches use UCT with c = 1.4, one random rollout an iteration and proving of "
        "terminal nodes.",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
