"""The batched environment beside pgx on the CPU, measured in one run.

boardlab: ``boardlab.fast.vector.Batch`` of each game at batch 1, 64, 1024 and 4096, on
1 and 2 threads (2 where each gets ``ROWS_A_THREAD`` rows): one step plays a uniformly
drawn legal action in every game (drawn in compiled code from the batch's own streams)
and computes every game's observation and legal-action mask; a game that ends starts
again in the same step, so every move counted is a live move. Measured called a step at
a time from Python (``step(random_actions())``, as an agent plays) and 100 steps a call
(``play_random(100)``). The Gymnasium vector-env face (``gymnasium.make_vec``, which
copies the arrays it returns unless ``copy=False``) is measured at batch 1024 too, on 2
threads.

pgx 2.6 (JAX on the CPU): ``connect_four`` and ``othello``, ``jax.vmap`` of ``env.step``
under pgx's same-step ``auto_reset``, random legal actions from ``jax.random.categorical``
over the mask, in a ``jax.lax.scan`` of 1 or 100 steps a jitted call; every move counted
is live, and pgx computes the observation in each step too. pgx and JAX are installed
only here, into their own virtual environment (``--pgx-python`` to use another).

Every row is measured in each of ``--rounds`` passes over all the rows, for
``seconds / rounds`` each time, in ``WINDOWS`` windows; its rate is the best window of
all, on both sides. So a slow spell of the VM, which can last tens of seconds, does not
decide a row.

Writes benchmarks/results/vector.json and vector.md.

    python benchmarks/vector.py [--seconds 3] [--rounds 2] [--batches 1,64,1024,4096]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import boardlab
from boardlab.fast.vector import ROWS_A_THREAD, Batch

RESULTS = Path(__file__).resolve().parent / "results"
PGX_GAMES = ("connect_four", "othello")
#: Windows a pass measures a row in: this VM's two cores are at times far apart, for
#: seconds, which slows every process that shares memory across them (pgx too).
WINDOWS = 10
PGX = """
import json, sys, time
import jax, jax.numpy as jnp, pgx
from pgx.experimental import auto_reset

game, (batch, WINDOWS, SCAN), seconds = sys.argv[1], map(int, sys.argv[2:5]), float(sys.argv[5])
env = pgx.make(game)
init = jax.jit(jax.vmap(env.init))
step = jax.vmap(auto_reset(env.step, env.init))

@jax.jit
def run(state, key):
    def body(carry, _):
        state, key = carry
        key, pick, advance = jax.random.split(key, 3)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf)
        action = jax.random.categorical(pick, logits, axis=-1)
        state = step(state, action, jax.random.split(advance, batch))
        return (state, key), state.observation.sum()
    (state, key), seen = jax.lax.scan(body, (state, key), None, length=SCAN)
    return state, key, seen.sum()

key = jax.random.PRNGKey(0)
state = init(jax.random.split(key, batch))
state, key, seen = run(state, key)  # compile
seen.block_until_ready()
rates = []
for window in range(WINDOWS):
    calls, began = 0, time.perf_counter()
    while time.perf_counter() - began < seconds / WINDOWS:
        state, key, seen = run(state, key)
        seen.block_until_ready()
        calls += 1
    rates.append(calls * SCAN * batch / (time.perf_counter() - began))
print(json.dumps({"moves_per_s": max(rates), "jax": jax.__version__, "pgx": pgx.__version__}))
"""
#: Steps a call, for both sides: one (a step from Python, as an agent over the batch's
#: observations plays) or many (a compiled loop of random steps: pgx's ``lax.scan``,
#: boardlab's ``Batch.play_random``).
CALLS = {"a step a call": 1, "100 steps a call": 100}


def best_rate(step: Any, batch: int, seconds: float) -> float:
    """Moves a second of ``step`` (one move in each of ``batch`` games): the best of
    ``WINDOWS`` windows, as for pgx, so that a moment the VM gives to something else
    does not count against either side."""
    rates = []
    for _ in range(WINDOWS):
        steps, began = 0, time.perf_counter()
        while time.perf_counter() - began < seconds / WINDOWS:
            step()
            steps += 1
        rates.append(steps * batch / (time.perf_counter() - began))
    return max(rates)


def boardlab_rate(game_id: str, batch: int, threads: int, steps: int, seconds: float) -> float:
    games = Batch(boardlab.new_game(game_id), batch, seed=1, threads=threads)
    if steps == 1:
        games.step(games.random_actions())  # compile (or load from the cache)
        return best_rate(lambda: games.step(games.random_actions()), batch, seconds)
    games.play_random(1)
    return best_rate(lambda: games.play_random(steps), steps * batch, seconds)


def vector_env_rate(game_id: str, batch: int, seconds: float, copy: bool) -> float:
    import gymnasium

    from boardlab.rl import gymnasium as boardlab_gym

    env = gymnasium.make_vec(
        boardlab_gym.env_id(game_id),
        num_envs=batch,
        vectorization_mode="vector_entry_point",
        threads=2,
        copy=copy,
    )
    env.reset(seed=1)
    return best_rate(lambda: env.step(env.random_actions()), batch, seconds)


def pgx_python(given: str | None) -> str:
    """A Python with pgx and JAX: ``given``, or a virtual environment made for this."""
    if given:
        return given
    from platformdirs import user_cache_path

    venv = user_cache_path("boardlab") / "pgx-venv"
    python = venv / "bin" / "python"
    if not python.exists():
        print(f"installing pgx 2.6 and JAX into {venv} (about 630 MB) ...", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(python), "-m", "pip", "install", "--quiet"]
        subprocess.run([*pip, "pgx==2.6.*", "jax[cpu]"], check=True)
    return str(python)


def pgx_rate(python: str, game: str, batch: int, steps: int, seconds: float) -> dict[str, Any]:
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    run = subprocess.run(
        [python, "-c", PGX, game, str(batch), str(WINDOWS), str(steps), str(seconds)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    result: dict[str, Any] = json.loads(run.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--batches", default="1,64,1024,4096", help="batch sizes, comma-separated")
    parser.add_argument("--rounds", type=int, default=2, help="passes over every row")
    parser.add_argument("--pgx-python", help="a Python with pgx and JAX installed")
    args = parser.parse_args()
    if args.seconds <= 0:
        parser.error(f"--seconds {args.seconds:g}: give a positive number of seconds")
    if args.rounds < 1:
        parser.error(f"--rounds {args.rounds}: give 1 or more rounds")
    try:
        batches = [int(b) for b in args.batches.split(",")]
    except ValueError:
        batches = []
    if not batches or min(batches) < 1:
        parser.error(f"--batches {args.batches!r}: give batch sizes like 1,64,1024")
    python = pgx_python(args.pgx_python)
    versions: dict[str, str] = {}

    def pgx(game: str, batch: int, steps: int, seconds: float) -> float:
        found = pgx_rate(python, game, batch, steps, seconds)
        versions.update(jax=found["jax"], pgx=found["pgx"])
        return float(found["moves_per_s"])

    plan: list[tuple[dict[str, Any], Callable[[float], float]]] = []
    for calls, steps in CALLS.items():
        for game_id in boardlab.game_ids():
            for batch in batches:
                for threads in (1, 2) if batch >= 2 * ROWS_A_THREAD else (1,):
                    row = {"engine": "boardlab", "game": game_id, "calls": calls}
                    row.update(batch=batch, threads=threads)
                    plan.append((row, partial(boardlab_rate, game_id, batch, threads, steps)))
            for copy in (True, False) if 1024 in batches and steps == 1 else ():
                face = "boardlab gymnasium.make_vec" + ("" if copy else " copy=False")
                row = {"engine": face, "game": game_id, "calls": calls, "batch": 1024}
                row.update(threads=2)
                plan.append((row, partial(vector_env_rate, game_id, 1024, copy=copy)))
        for game in PGX_GAMES:
            for batch in batches:
                row = {"engine": "pgx", "game": game, "calls": calls, "batch": batch}
                row.update(threads=os.cpu_count())
                plan.append((row, partial(pgx, game, batch, steps)))
    best = [0.0] * len(plan)
    for round_ in range(args.rounds):
        for k, (row, rate_of) in enumerate(plan):
            rate = rate_of(args.seconds / args.rounds)
            best[k] = max(best[k], rate)
            label = " ".join(str(row[key]) for key in ("engine", "game", "calls", "batch"))
            print(f"round {round_ + 1}: {label:66} {rate:12,.0f}", flush=True)
    rows = [{**row, "moves_per_s": rate} for (row, _), rate in zip(plan, best, strict=True)]
    write(rows, versions, args)


def ratio(rate: float, pgx: float) -> str:
    return f"{rate / pgx:.1f}x" if pgx else ""


def write(rows: list[dict[str, Any]], versions: dict[str, str], args: Any) -> None:
    RESULTS.mkdir(exist_ok=True)
    machine = f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores"
    (RESULTS / "vector.json").write_text(
        json.dumps({"machine": machine, "versions": versions, "rows": rows}, indent=1) + "\n"
    )
    at_1024 = [r for r in rows if r["engine"] == "pgx" and r["batch"] == 1024]
    pgx_1024 = {
        calls: max((r["moves_per_s"] for r in at_1024 if r["calls"] == calls), default=0.0)
        for calls in CALLS
    }
    pgx_best = max(pgx_1024.values(), default=0.0)
    lines = [
        "# The batched environment beside pgx",
        "",
        f"`python benchmarks/vector.py --seconds {args.seconds:g} --rounds {args.rounds} "
        f"--batches {args.batches}` on {machine}; pgx {versions.get('pgx', '?')} with JAX "
        f"{versions.get('jax', '?')} on the CPU. Live moves a second, observations and "
        f"masks included; each rate the best of {args.rounds * WINDOWS} windows of equal "
        f"length in {args.rounds} passes over all the rows, on both sides. A step a call: "
        "`Batch.step(Batch.random_actions())` and one jitted pgx step a call; 100 steps a "
        "call: `Batch.play_random(100)` and pgx's `lax.scan` of 100 steps. The ratios are "
        "to pgx's faster game at batch 1024 (`connect_four`), called the same way and "
        "called its fastest way.",
        "",
        "| engine | game | calls | batch | threads | moves/s | vs pgx, same calls "
        "| vs pgx's best |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        same = pgx_1024[r["calls"]] if r["batch"] == 1024 else 0.0
        best = pgx_best if r["batch"] == 1024 else 0.0
        lines.append(
            f"| {r['engine']} | {r['game']} | {r['calls']} | {r['batch']} | {r['threads']} "
            f"| {r['moves_per_s']:,.0f} | {ratio(r['moves_per_s'], same)} "
            f"| {ratio(r['moves_per_s'], best)} |"
        )
    (RESULTS / "vector.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
