"""Crashes under load: is an acknowledged action ever lost?

``boardlab serve`` runs as a child process; ``--games`` games on one screen are played
over their sockets at human speed (each browser holds both seats and acts after 2.5-7.5
s), every action's ack noted. After ``--run`` seconds the server is killed with
``kill -9`` (its whole process group: the server and its AI workers), started again on
the same database, and every game is read back: each action acknowledged must be there,
at its ply, the same action. Then every game goes on (its page reconnects and plays its
next action) and the next round begins. ``--rounds`` rounds a database; with
``--workers 2`` (PostgreSQL) one server process is killed instead, and its games go on
in the other.

    .venv/bin/python benchmarks/faults.py [--db sqlite|postgresql|both] [--games 500]
        [--rounds 5] [--run 20] [--out benchmarks/results/faults.md]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import websockets
from online import Pool, processes, start_postgres, tree
from websockets.asyncio.client import connect

from web_support import LiveServer

RESULTS = Path(__file__).resolve().parent / "results"
KINDS = ("jinli", "linja", "galatjang")


@dataclass
class Played:
    """One game: its id, its seat cookie, and the actions acknowledged, by ply."""

    id: str
    cookie: str
    acked: dict[int, str] = field(default_factory=dict)
    over: bool = False


async def make(pool: Pool, kind: str) -> Played:
    form = urlencode({"opponent": "human", "seat": "0"}).encode()
    made = await pool.request(
        "POST", f"/new/{kind}", {"Content-Type": "application/x-www-form-urlencoded"}, form
    )
    assert made.status == 303, made.error()
    game_id = made.header("location").rsplit("/", 1)[1]
    cookie = "; ".join(f"{k}={v}" for k, v in made.cookies().items())
    return Played(game_id, cookie)


async def play(port: int, game: Played, rng: random.Random, until: float) -> int:
    """Play the game over its socket until ``until`` (or the server goes): the actions
    acknowledged."""
    count = 0
    try:
        async with connect(
            f"ws://127.0.0.1:{port}/ws/games/{game.id}",
            additional_headers={"Cookie": game.cookie},
            max_size=1 << 22,
            ping_interval=None,
            compression=None,
            open_timeout=30,
        ) as socket:
            sent: dict[int, str] = {}
            waiting = False  # an action sent and not yet answered
            state: dict[str, Any] | None = None
            while True:  # an action sent is waited for, even after ``until``
                message = json.loads(await asyncio.wait_for(socket.recv(), 30))
                if message["type"] == "state":
                    state = message["state"]
                elif message["type"] in ("ack", "error") and "id" in message:
                    waiting = False
                    if message["type"] == "ack":
                        game.acked[message["id"]] = sent[message["id"]]
                        count += 1
                if waiting or state is None or state["ply"] in sent:
                    continue
                if state["outcome"] is not None or time.monotonic() >= until:
                    return count
                await asyncio.sleep(2.5 + 5 * rng.random())
                action = rng.choice(state["legal"])["action"]
                sent[state["ply"]] = action
                waiting = True
                message = {"type": "play", "id": state["ply"], "ply": state["ply"]}
                await socket.send(json.dumps({**message, "action": action}))
    except (websockets.ConnectionClosed, OSError, TimeoutError):
        pass  # the server was killed: what was acknowledged is counted
    return count


def kill_one_worker(server: LiveServer) -> int:
    """Kill -9 one of the server's processes (a uvicorn worker): its pid."""
    assert server.process is not None
    table = processes()
    workers = [p for p in tree(server.process.pid, table) if table[p][0] == server.process.pid]
    victim = workers[0]
    os.kill(victim, signal.SIGKILL)
    return victim


async def check(pool: Pool, games: list[Played]) -> tuple[int, int, list[str]]:
    """Every game read back: (actions acknowledged, of them found, what is missing)."""
    acked = found = 0
    missing = []
    for game in games:
        answer = await pool.request("GET", f"/api/games/{game.id}", {"Accept": "application/json"})
        assert answer.status == 200, answer.error()
        state = json.loads(answer.body)
        game.over = state["outcome"] is not None
        stored = [action for turn in state["moves"] for action in turn["actions"]]
        for ply, action in game.acked.items():
            acked += 1
            if ply < len(stored) and stored[ply] == action:
                found += 1
            else:
                missing.append(f"{game.id} ply {ply} {action}")
    return acked, found, missing


async def rounds(url: Path | str, folder: Path, args: Any, workers: int) -> list[dict[str, Any]]:
    lifted = [f"--limit={n}=1000000" for n in ("games", "sockets", "connections", "requests")]
    server = LiveServer(url, folder, workers=workers, extra=lifted)
    server.start()
    rng = random.Random(args.seed)
    pool = Pool("127.0.0.1", server.port, "127.0.0.1", 64)
    games = [await make(pool, KINDS[k % 3]) for k in range(args.games)]
    results = []
    try:
        for number in range(1, args.rounds + 1):
            until = time.monotonic() + args.run + 60
            playing = [asyncio.create_task(play(server.port, g, rng, until)) for g in games]
            await asyncio.sleep(args.run)
            if workers > 1:
                kill_one_worker(server)
                await asyncio.sleep(1.0)
            else:
                server.kill()
            for task in playing:
                task.cancel()
            await asyncio.gather(*playing, return_exceptions=True)
            if workers == 1:
                server.start()
            pool.close()
            pool = Pool("127.0.0.1", server.port, "127.0.0.1", 64)
            acked, found, missing = await check(pool, games)
            # every game goes on: another action acknowledged (or it is over)
            before = {g.id: len(g.acked) for g in games}
            soon = time.monotonic() + 20
            await asyncio.gather(*(play(server.port, g, rng, soon) for g in games))
            went_on = sum(1 for g in games if g.over or len(g.acked) > before[g.id])
            row = {
                "round": number,
                "acked": acked,
                "found": found,
                "missing": len(missing),
                "examples": missing[:5],
                "went_on": went_on,
                "games": len(games),
            }
            print(json.dumps(row), flush=True)
            results.append(row)
    finally:
        pool.close()
        server.stop()
    return results


async def main_async(args: Any) -> dict[str, list[dict[str, Any]]]:
    found = {}
    with tempfile.TemporaryDirectory(prefix="boardlab-faults-") as name:
        folder = Path(name)
        folder.chmod(0o755)  # PostgreSQL's user reaches its folder inside
        if args.db in ("sqlite", "both"):
            found["sqlite"] = await rounds(folder / "games.sqlite3", folder, args, 1)
        if args.db in ("postgresql", "both"):
            pg = start_postgres(folder / "pg")
            try:
                found["postgresql"] = await rounds(pg.fresh(), folder, args, 1)
                found["postgresql, one of 2 workers"] = await rounds(pg.fresh(), folder, args, 2)
            finally:
                pg.stop()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", choices=["sqlite", "postgresql", "both"], default="both")
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--run", type=float, default=20.0, help="seconds of play a round")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=str(RESULTS / "faults.md"))
    args = parser.parse_args()
    found = asyncio.run(main_async(args))
    command = "python benchmarks/faults.py " + " ".join(sys.argv[1:])
    lines = [
        "# Crashes under load",
        "",
        f"`{command.strip()}`, {time.strftime('%Y-%m-%d %H:%M')}: {args.games} games played "
        f"over their sockets; after {args.run:g} s of play the server is killed (kill -9), "
        "started again, and every game is read back and played on.",
        "",
        "| database | round | actions acknowledged | found after restart | missing "
        "| games that went on |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for database, rows in found.items():
        for row in rows:
            lines.append(
                f"| {database} | {row['round']} | {row['acked']} | {row['found']} "
                f"| {row['missing']} | {row['went_on']} of {row['games']} |"
            )
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    out.with_suffix(".json").write_text(json.dumps(found, indent=1) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
