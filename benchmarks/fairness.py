"""Fair queueing of the AI's work: how long a beginner's first move waits while one other
client has 25 expert searches queued.

One client starts 25 ``expert`` searches, each on its own Jin Li position (a few random
actions from the start, default options); a second later another client asks for one
``beginner`` move. Both go through ``thinking.choose`` in a real pool of 2 worker
processes (spawned, as the web app's), not through the web server. Measured from the
beginner's request: its wait (until a worker starts its search), its total (until the
answer is back) and how many expert searches had ended by then; over a few
repetitions, each begun with nothing running.

* fair: ``FairQueue(2)``, the expert searches in the slow lane and the beginner's in the
  quick lane, as ``lane_for`` puts them (``boardlab.web.queue``);
* FIFO: a plain ``ProcessPoolExecutor(2)``, first come first served (the web app before).

    python benchmarks/fairness.py [--repeats 5] [--fifo-repeats 3]
                                  [--out benchmarks/results/fairness.md]

Both pools are warmed first (each worker has made a compiled search), as a running
server's are."""

from __future__ import annotations

import argparse
import asyncio
import platform
import random
import statistics
import sys
import time
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import boardlab
from boardlab.web import thinking
from boardlab.web.queue import FairQueue, lane_for

GAME = "jinli"
EXPERTS = 25
WORKERS = 2


def timed_choose(*args: Any) -> tuple[float, float]:
    """``thinking.choose`` in a worker, with when it started and ended (wall clock, the
    same in every process of the machine)."""
    started = time.time()
    thinking.choose(*args)
    return started, time.time()


def positions(count: int, seed: int) -> list[list[str]]:
    """``count`` Jin Li positions as their actions: 2 to 12 random actions from the start."""
    rng = random.Random(seed)
    game = boardlab.new_game(GAME)
    found = []
    for _ in range(count):
        position = game.initial()
        actions = []
        for _ply in range(rng.randint(2, 12)):
            if position.is_over():
                break
            action = rng.choice(position.legal_actions())
            actions.append(position.action_string(action))
            position = position.play(action)
        found.append(actions)
    return found


def search(actions: list[str], spec: str, seed: int) -> tuple[Any, ...]:
    return (GAME, {}, None, actions, spec, seed)


class Fifo:
    """The web app before: one process pool, first come first served."""

    def __init__(self) -> None:
        self.pool = thinking.pool(WORKERS)
        self.futures: list[Future[Any]] = []

    async def run(self, client: str, lane: str, *job: Any) -> Any:
        future = self.pool.submit(*job)
        self.futures.append(future)
        return await asyncio.wrap_future(future)

    def idle(self) -> bool:
        return all(future.done() for future in self.futures)

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


class Fair:
    def __init__(self) -> None:
        self.queue = FairQueue(WORKERS, thinking.pool)

    async def run(self, client: str, lane: str, *job: Any) -> Any:
        return await self.queue.run(client, lane, *job)

    def idle(self) -> bool:
        return not any(self.queue.running().values())

    def close(self) -> None:
        self.queue.close()


async def warm(runner: Fair | Fifo) -> None:
    """Each worker's first compiled search (numba's compiling or loading its cache)."""
    warmers = [
        runner.run(f"warm{k}", "slow", timed_choose, *search([], "mcts:tree=compiled", k))
        for k in range(WORKERS)
    ]
    await asyncio.gather(*warmers)
    await runner.run("warm", "quick", timed_choose, *search([], "beginner", 0))


async def once(runner: Fair | Fifo, seed: int) -> dict[str, float]:
    """One repetition: the expert searches, a second later the beginner's move."""
    slow, quick = lane_for("expert", GAME), lane_for("beginner", GAME)
    expert_jobs = [
        asyncio.create_task(runner.run("heavy", slow, timed_choose, *search(a, "expert", seed)))
        for a in positions(EXPERTS, seed)
    ]
    await asyncio.sleep(1.0)
    asked = time.time()
    started, _ended = await runner.run(
        "light", quick, timed_choose, *search(positions(1, seed + 1000)[0], "beginner", seed)
    )
    answered = time.time()
    done = sum(task.done() for task in expert_jobs)
    for task in expert_jobs:
        task.cancel()
    await asyncio.gather(*expert_jobs, return_exceptions=True)
    if isinstance(runner, Fifo):
        for future in runner.futures:
            future.cancel()  # the ones not started yet
    while not runner.idle():  # the running searches end: the next repetition starts clean
        await asyncio.sleep(0.05)
    return {"wait": started - asked, "total": answered - asked, "experts done": done}


async def measure(kind: str, repeats: int) -> list[dict[str, float]]:
    runner: Fair | Fifo = Fair() if kind == "fair" else Fifo()
    try:
        await warm(runner)
        rows = []
        for k in range(repeats):
            row = await once(runner, k)
            print(kind, k, {key: round(value, 3) for key, value in row.items()}, flush=True)
            rows.append(row)
        return rows
    finally:
        runner.close()


def table(results: dict[str, list[dict[str, float]]]) -> list[str]:
    lines = [
        "| queue | repetitions | wait median s | wait max s | total median s | total max s "
        "| expert searches ended first (median) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for kind, rows in results.items():
        waits = [row["wait"] for row in rows]
        totals = [row["total"] for row in rows]
        done = [row["experts done"] for row in rows]
        lines.append(
            f"| {kind} | {len(rows)} | {statistics.median(waits):.3f} | {max(waits):.3f} "
            f"| {statistics.median(totals):.3f} | {max(totals):.3f} "
            f"| {statistics.median(done):.0f} |"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--fifo-repeats", type=int, default=3)
    parser.add_argument("--out", default="benchmarks/results/fairness.md")
    args = parser.parse_args()
    before = Path("/proc/loadavg").read_text().split()[:3]
    results = {
        "fair (FairQueue)": asyncio.run(measure("fair", args.repeats)),
        "FIFO (ProcessPoolExecutor)": asyncio.run(measure("fifo", args.fifo_repeats)),
    }
    after = Path("/proc/loadavg").read_text().split()[:3]
    command = " ".join(["python benchmarks/fairness.py", *sys.argv[1:]])
    text = "\n".join(
        [
            "# Fair queueing: a beginner's move beside one client's 25 expert searches",
            "",
            f"`{command}` on {platform.machine()}, Python {platform.python_version()}, "
            f"{time.strftime('%Y-%m-%d %H:%M')}; {WORKERS} worker processes (spawned), "
            f"load average before {' '.join(before)}, after {' '.join(after)}.",
            "",
            f"One client starts {EXPERTS} `expert` searches on Jin Li positions (default "
            "options, 2 to 12 random actions in); a second later another client asks for a "
            "`beginner` move. Wait: from the beginner's request until a worker starts its "
            "search; total: until its answer is back. Real agents through "
            "`thinking.choose`, no web server.",
            "",
            *table(results),
            "",
        ]
    )
    Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
