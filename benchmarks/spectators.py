"""One game watched by many: how long a change takes to reach every spectator.

``boardlab serve`` runs as a child process (SQLite, one process). One browser makes a
game on one screen (it holds both seats) and plays it over its socket, an action every
``--every`` seconds; ``--spectators`` pages watch it, each on its own WebSocket. For each
action and each spectator the latency is the time from just before the action is sent
until that spectator's socket has the state with it; reported: p50, p99 and max over all
of them, the actions a second, the server's CPU time per action (which includes telling
every spectator) and its memory. A game that ends is replaced by a new one, and every
spectator moves to it.

The spectators are read by this one asyncio process at a raised priority (``--nice``,
as root); a message is recognised by its first bytes (``"v":N``), not parsed, so that
the generator's own work stays small. Its event loop's lag is reported as a check.

    .venv/bin/python benchmarks/spectators.py [--spectators 1000] [--every 1.0]
        [--window 30] [--out benchmarks/results/spectators.md]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from online import (
    Pool,
    Watched,
    favour_generator,
    percentile,
    run_generator,
    steady_collector,
)
from websockets.asyncio.client import ClientConnection, connect

from web_support import LiveServer

RESULTS = Path(__file__).resolve().parent / "results"
VERSION = re.compile(rb'^\{"type":"state","v":(\d+),')
#: Spectators connecting at once while they gather.
CONNECTING = 50


class Watchers:
    """The spectators' sockets on the current game, and when each saw each version."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.sockets: list[ClientConnection] = []
        self.readers: list[asyncio.Task[None]] = []
        #: version -> the moment it was sent and when each spectator saw it
        self.sent: dict[int, float] = {}
        self.seen: dict[int, list[float]] = {}
        self.latencies: list[float] = []
        self.missing = 0

    async def open(self, game_id: str, count: int) -> None:
        slots = asyncio.Semaphore(CONNECTING)

        async def one() -> None:
            async with slots:
                socket = await connect(
                    f"ws://127.0.0.1:{self.port}/ws/games/{game_id}",
                    max_size=1 << 22,
                    ping_interval=None,
                    compression=None,
                    open_timeout=60,
                )
                self.sockets.append(socket)
                self.readers.append(asyncio.create_task(self.read(socket)))

        await asyncio.gather(*(one() for _ in range(count)))

    async def read(self, socket: ClientConnection) -> None:
        async for message in socket:
            found = VERSION.match(message if isinstance(message, bytes) else message.encode())
            if found is not None:
                version = int(found.group(1))
                if version in self.sent:
                    self.seen.setdefault(version, []).append(time.perf_counter())

    async def close(self) -> None:
        for task in self.readers:
            task.cancel()
        await asyncio.gather(*(s.close() for s in self.sockets), return_exceptions=True)
        self.sockets.clear()
        self.readers.clear()

    def settle(self, version: int) -> None:
        """Count version's latencies (every spectator should have it by now)."""
        sent = self.sent.pop(version)
        seen = self.seen.pop(version, [])
        self.latencies.extend(moment - sent for moment in seen)
        self.missing += len(self.sockets) - len(seen)


async def make_game(port: int) -> tuple[str, ClientConnection]:
    """A game on one screen (both seats this browser's) and its player's socket."""
    pool = Pool("127.0.0.1", port, "127.0.0.1", 2)
    form = urlencode({"opponent": "human", "seat": "0"}).encode()
    made = await pool.request(
        "POST", "/new/jinli", {"Content-Type": "application/x-www-form-urlencoded"}, form
    )
    pool.close()
    assert made.status == 303, made.error()
    game_id = made.header("location").rsplit("/", 1)[1]
    cookie = "; ".join(f"{k}={v}" for k, v in made.cookies().items())
    player = await connect(
        f"ws://127.0.0.1:{port}/ws/games/{game_id}",
        additional_headers={"Cookie": cookie},
        max_size=1 << 22,
        ping_interval=None,
        compression=None,
    )
    return game_id, player


async def next_state(player: ClientConnection) -> dict[str, Any]:
    while True:
        message = json.loads(await player.recv())
        if message["type"] == "state":
            state: dict[str, Any] = message["state"]
            return state


async def run(args: Any, folder: Path) -> dict[str, Any]:
    lifted = [f"--limit={name}=1000000" for name in ("games", "sockets", "connections", "requests")]
    server = LiveServer(folder / "games.sqlite3", folder, extra=lifted)
    server.start()
    assert server.process is not None
    watched = Watched(server.process.pid)
    favour_generator(args.nice)
    watchers = Watchers(server.port)
    lags: list[float] = []

    async def lag() -> None:
        while True:
            before = time.perf_counter()
            await asyncio.sleep(0.1)
            lags.append(time.perf_counter() - before - 0.1)

    lagging = asyncio.create_task(lag())
    actions = 0
    try:
        game_id, player = await make_game(server.port)
        state = await next_state(player)
        await watchers.open(game_id, args.spectators)
        steady_collector()
        await asyncio.sleep(2.0)
        idle = watched.snapshot()
        began = time.perf_counter()
        while time.perf_counter() - began < args.window:
            if state["outcome"] is not None:  # a new game, every spectator on it
                await player.close()
                await watchers.close()
                game_id, player = await make_game(server.port)
                state = await next_state(player)
                await watchers.open(game_id, args.spectators)
                steady_collector()
                await asyncio.sleep(1.0)
            action = state["legal"][actions % len(state["legal"])]["action"]
            version = state["revision"] + 1
            watchers.sent[version] = time.perf_counter()
            await player.send(
                json.dumps({"type": "play", "id": actions, "ply": state["ply"], "action": action})
            )
            state = await next_state(player)
            assert state["revision"] == version, state["revision"]
            actions += 1
            await asyncio.sleep(args.every)
            watchers.settle(version)
        after = watched.snapshot()
        span = after["time"] - idle["time"]
        ordered = sorted(watchers.latencies)
        return {
            "spectators": args.spectators,
            "actions": actions,
            "actions_per_s": actions / span,
            "deliveries": len(ordered),
            "missing": watchers.missing,
            "p50_ms": 1000 * percentile(ordered, 0.5),
            "p99_ms": 1000 * percentile(ordered, 0.99),
            "max_ms": 1000 * (ordered[-1] if ordered else float("nan")),
            "server_cpu_ms_per_action": 1000
            * (after["server_cpu"] - idle["server_cpu"])
            / max(1, actions),
            "server_rss_mib": after["server_rss"] / 2**20,
            "generator_cpu_pct": 100 * (after["generator_cpu"] - idle["generator_cpu"]) / span,
            "generator_lag_p99_ms": 1000 * percentile(sorted(lags), 0.99),
        }
    finally:
        lagging.cancel()
        await watchers.close()
        server.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spectators", type=int, default=1000)
    parser.add_argument("--every", type=float, default=1.0, help="seconds between actions")
    parser.add_argument("--window", type=float, default=30.0, help="seconds measured")
    parser.add_argument("--nice", type=int, default=-10)
    parser.add_argument("--out", default=str(RESULTS / "spectators.md"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="boardlab-spectators-") as folder:
        result = run_generator(run(args, Path(folder)))
    print(json.dumps(result), flush=True)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    command = "python benchmarks/spectators.py " + " ".join(sys.argv[1:])
    lines = [
        "# One game, many spectators",
        "",
        f"`{command.strip()}` on {platform.node() or 'this machine'}, "
        f"{time.strftime('%Y-%m-%d %H:%M')}, SQLite, one server process. One player acts "
        f"every {args.every:g} s over its socket; latency: the action sent until a "
        "spectator's socket has the state with it, over every (action, spectator).",
        "",
        "| spectators | actions | deliveries | missing | p50 ms | p99 ms | max ms "
        "| server CPU ms/action | server RSS MiB | generator CPU % / lag p99 ms |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        f"| {result['spectators']} | {result['actions']} | {result['deliveries']} "
        f"| {result['missing']} | {result['p50_ms']:.1f} | {result['p99_ms']:.1f} "
        f"| {result['max_ms']:.1f} | {result['server_cpu_ms_per_action']:.1f} "
        f"| {result['server_rss_mib']:.0f} | {result['generator_cpu_pct']:.0f} / "
        f"{result['generator_lag_p99_ms']:.1f} |",
        "",
    ]
    out.write_text("\n".join(lines))
    out.with_suffix(".json").write_text(json.dumps(result, indent=1) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
