"""Fair queueing through a live server: how long a beginner's first move and a short
review wait while one other client has 25 expert games thinking.

``boardlab serve --ai-workers 2`` runs as a child process on a fresh SQLite database for
each repetition, serving a commit exported with git archive (by default HEAD, so work
in progress in the work tree is left out). One load generator plays two clients: the
server is told to believe ``X-Forwarded-For`` from 127.0.0.1 (``--proxy``), so client A
sends ``X-Forwarded-For: 10.0.0.1`` and client B ``10.0.0.2``.

A repetition: the server is warmed first by a third client (two expert games and a
beginner game, the AI moving first, until the AI's turn is over in each, then a short
review: every worker process started and its compiled search loaded, the old server's
review process too). Then A posts 25 new Jin Li games
against ``expert`` with the AI moving first, all at once, so 25 expert searches are
queued (a Jin Li turn is a swim and a drop: each game's second search joins the queue
when its first ends). One second later B either

* posts a Jin Li game against ``beginner`` with the AI moving first, and its time is
  from that POST until ``GET /api/games/ID`` shows the first action (polled every
  20 ms); or
* uploads a record of 6 random legal actions (default Jin Li) and asks for its review,
  and its time is from the upload until ``GET /api/games/ID/review`` says ``ready``
  (polled every 20 ms).

At that moment A's 25 games are read, and those with their first action counted. The
server is then stopped, so the next repetition starts with nothing queued.

With ``--before COMMIT`` the same is measured on an older commit's server (default
d14415b, before the fair queue). That server has neither ``--proxy`` nor ``--limit``:
both clients are then one address (127.0.0.1), its moves go first come first served
through one pool of 2 processes, and its reviews through a pool of their own.

    .venv/bin/python benchmarks/web_fairness.py [--repeats 3] [--commit HEAD]
        [--before d14415b | --before none] [--out benchmarks/results/web_fairness.md]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2 as httpx

import boardlab
from boardlab.core.record import GameRecord

ROOT = Path(__file__).resolve().parent.parent
GAME = "jinli"
EXPERTS = 25
AI_WORKERS = 2
POLL = 0.02
#: Seconds any one wait may take before the repetition is given up.
LIMIT = 300.0
A, B, WARM = "10.0.0.1", "10.0.0.2", "10.0.0.3"


def git(*command: str) -> str:
    done = subprocess.run(["git", *command], cwd=ROOT, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def export(commit: str, folder: Path) -> Path:
    """The ``src`` folder of ``commit``, exported with git archive under ``folder``."""
    archive = subprocess.run(
        ["git", "archive", commit, "src"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    folder.mkdir(parents=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder / "src"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class Code:
    """The server's code: a commit, exported to ``src``."""

    name: str
    commit: str
    src: Path

    @property
    def fair(self) -> bool:
        """Whether its server names clients by a proxy's X-Forwarded-For (``--proxy``)."""
        cli = self.src / "boardlab" / "cli"  # cli.py before it became a package
        serve = cli / "serve.py" if cli.is_dir() else cli.with_suffix(".py")
        return '"--proxy"' in serve.read_text()


class Server:
    """``boardlab serve`` of ``code`` in a child process (its own process group, so that
    stopping it stops its AI workers too), on a database in ``folder``."""

    def __init__(self, code: Code, folder: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        command = [sys.executable, "-m", "boardlab", "serve", "--port", str(self.port)]
        command += ["--db", f"sqlite:///{folder / 'games.sqlite3'}"]
        command += ["--ai-workers", str(AI_WORKERS)]
        if code.fair:
            command += ["--proxy", "127.0.0.1", "--limit", "games=1000"]
        if "requests: int" in (code.src / "boardlab" / "web" / "guard.py").read_text():
            command += ["--limit", "requests=1000000"]  # polled every 20 ms
        env = {**os.environ, "PYTHONPATH": str(code.src)}
        self.log = folder / "server.log"
        with self.log.open("w") as log:
            self.process = subprocess.Popen(
                command, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True
            )

    async def started(self) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise SystemExit(f"the server stopped:\n{self.log.read_text()}")
            try:
                _reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
                writer.close()
                return
            except OSError:
                await asyncio.sleep(0.1)
        raise SystemExit("the server did not start in 60 s")

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(15)


def browser(server: Server, address: str) -> httpx.AsyncClient:
    """A client at ``address`` (as the proxy says), with the Origin the server's pages send."""
    headers = {"Origin": server.url, "X-Forwarded-For": address}
    return httpx.AsyncClient(base_url=server.url, headers=headers, timeout=LIMIT)


async def new_game(http: httpx.AsyncClient, opponent: str) -> str:
    """A new default Jin Li game against ``opponent``, the AI moving first; its id."""
    answer = await http.post(
        f"/new/{GAME}", data={"opponent": opponent, "seat": "1"}, follow_redirects=False
    )
    if answer.status_code != 303:
        raise SystemExit(f"new game refused ({answer.status_code}): {answer.text[:300]}")
    return str(answer.headers["location"]).rsplit("/", 1)[1]


async def state(http: httpx.AsyncClient, game_id: str) -> dict[str, Any]:
    answer = await http.get(f"/api/games/{game_id}")
    answer.raise_for_status()
    found: dict[str, Any] = answer.json()
    if found.get("trouble"):
        raise SystemExit(f"game {game_id}: {found['trouble']}")
    return found


async def ply(http: httpx.AsyncClient, game_id: str) -> int:
    return int((await state(http, game_id))["ply"])


async def first_action(http: httpx.AsyncClient, game_id: str) -> None:
    deadline = time.monotonic() + LIMIT
    while await ply(http, game_id) < 1:
        if time.monotonic() > deadline:
            raise SystemExit(f"game {game_id} had no action in {LIMIT} s")
        await asyncio.sleep(POLL)


async def settled(http: httpx.AsyncClient, game_id: str) -> None:
    """Wait until the person is to act: a Jin Li turn is a swim and a drop, two actions,
    so the AI that moves first searches twice."""
    deadline = time.monotonic() + LIMIT
    while not (await state(http, game_id))["human_to_act"]:
        if time.monotonic() > deadline:
            raise SystemExit(f"the AI of game {game_id} did not finish its turn in {LIMIT} s")
        await asyncio.sleep(POLL)


def short_record(seed: int, actions: int = 6) -> str:
    """A record of ``actions`` random legal actions of default Jin Li."""
    rng = random.Random(seed)
    record = GameRecord(boardlab.new_game(GAME))
    for _ in range(actions):
        record.play(rng.choice(record.position.legal_actions()))
    return record.to_text()


async def review(http: httpx.AsyncClient, seed: int) -> None:
    """Upload a short record and wait for its review."""
    answer = await http.post(
        "/upload",
        files={"record": ("game.txt", short_record(seed).encode())},
        follow_redirects=False,
    )
    if answer.status_code != 303:
        raise SystemExit(f"upload refused ({answer.status_code}): {answer.text[:300]}")
    game_id = str(answer.headers["location"]).rsplit("/", 1)[1]
    deadline = time.monotonic() + LIMIT
    while True:
        reply = await http.get(f"/api/games/{game_id}/review")
        reply.raise_for_status()
        if reply.json()["status"] == "ready":
            return
        if time.monotonic() > deadline:
            raise SystemExit(f"the review of {game_id} was not ready in {LIMIT} s")
        await asyncio.sleep(POLL)


async def once(code: Code, what: str, seed: int) -> dict[str, float]:
    """One repetition on a fresh server: B's ``what`` (``move`` or ``review``) beside A's
    25 expert games; B's time in seconds and how many of A's games had an action."""
    with tempfile.TemporaryDirectory(prefix="web-fairness-") as tmp:
        server = Server(code, Path(tmp))
        try:
            await server.started()
            warm, a, b = (browser(server, address) for address in (WARM, A, B))
            async with warm, a, b:
                warmers = [await new_game(warm, level) for level in ("expert", "expert")]
                warmers.append(await new_game(warm, "beginner"))
                await asyncio.gather(*(settled(warm, g) for g in warmers))
                await review(warm, seed + 1000)  # the old server's review process too
                heavy = await asyncio.gather(*(new_game(a, "expert") for _ in range(EXPERTS)))
                await asyncio.sleep(1.0)
                asked = time.monotonic()
                if what == "move":
                    await first_action(b, await new_game(b, "beginner"))
                else:
                    await review(b, seed)
                took = time.monotonic() - asked
                plies = await asyncio.gather(*(ply(a, g) for g in heavy))
        finally:
            server.stop()
    return {"time": took, "done": sum(p >= 1 for p in plies)}


def row(code: Code, what: str, results: list[dict[str, float]]) -> str:
    times = [r["time"] for r in results]
    done = [r["done"] for r in results]
    clients = "A 10.0.0.1, B 10.0.0.2" if code.fair else "one address (no --proxy)"
    label = "beginner's first move" if what == "move" else "short review (6 actions)"
    return (
        f"| {code.name} | {clients} | {label} | {len(results)} | {statistics.median(times):.2f} "
        f"| {max(times):.2f} | {statistics.median(done):.0f} ({min(done)}-{max(done)}) |"
    )


async def measure(codes: list[Code], repeats: int) -> list[str]:
    rows = []
    for code in codes:
        for what in ("move", "review"):
            results = []
            for k in range(repeats):
                result = await once(code, what, k)
                print(code.name, what, k, {n: round(v, 3) for n, v in result.items()}, flush=True)
                results.append(result)
            rows.append(row(code, what, results))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--commit", default="HEAD", help="the fair server's commit")
    parser.add_argument("--before", default="d14415b", help="the commit to compare with, or none")
    parser.add_argument("--out", default=str(ROOT / "benchmarks/results/web_fairness.md"))
    args = parser.parse_args()
    load_before = Path("/proc/loadavg").read_text().split()[:3]
    started = time.strftime("%Y-%m-%d %H:%M")
    with tempfile.TemporaryDirectory(prefix="web-fairness-code-") as tmp:
        codes = []
        for name, commit in (("fair queue", args.commit), ("before", args.before)):
            if commit.lower() == "none":
                continue
            full = git("rev-parse", "--verify", f"{commit}^{{commit}}")
            codes.append(Code(f"{name} ({full[:7]})", full, export(full, Path(tmp) / full)))
        rows = asyncio.run(measure(codes, args.repeats))
    load_after = Path("/proc/loadavg").read_text().split()[:3]
    command = " ".join([".venv/bin/python benchmarks/web_fairness.py", *sys.argv[1:]])
    cores = os.cpu_count()
    text = "\n".join(
        [
            "# Fair queueing through the server: a beginner's move and a short review beside "
            f"one client's {EXPERTS} expert games",
            "",
            f"`{command}` on {platform.machine()}, {cores} cores, Python "
            f"{platform.python_version()}, {started}; the server (`boardlab serve "
            f"--ai-workers {AI_WORKERS}`, SQLite) runs each commit exported with git archive; "
            f"load average before {' '.join(load_before)}, after {' '.join(load_after)}.",
            "",
            "Each repetition on a fresh server, warmed (two expert games, a beginner game and a "
            "short review: every worker process has searched). "
            f"Client A posts {EXPERTS} new Jin Li games against `expert`, the AI moving "
            "first, all at once; a second later client B posts a game against `beginner` "
            "(the AI first) and waits for its first action, or uploads a record of 6 random "
            "actions and waits for its review (`hard`) to be ready; both polled every 20 ms "
            "from B's request. Last column: A's games with their first action by then. The "
            "fair queue's server has `--ai-workers 2`: 3 processes, slow work (expert, "
            "reviews) on at most 2. Before it, `--ai-workers 2` was 2 processes for moves, "
            "first come first served, and 1 more for reviews; that server has no `--proxy`, "
            "so A and B are one address there.",
            "",
            "| server (commit) | clients | B asks for | repetitions | B's time median s "
            "| max s | A's games moved by then: median (range) |",
            "|---|---|---|---:|---:|---:|---:|",
            *rows,
            "",
        ]
    )
    Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
