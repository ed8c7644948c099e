"""The web app's speed as a player feels it, in Debian's Chromium driven by Playwright:

* page load: opening a game page until its board is clickable;
* click to answer: a click on a Galatjang pit until the server's answer has arrived (the
  request, the engine's check, the database commit);
* click to move shown: the same click until the page shows the new position, the sowing
  animated seed by seed (140 ms a seed);
* the AI's answer at each level: from the start of a game in which the AI moves first
  until its action is stored (the worker process, the search, the commit).

    python benchmarks/web.py [--samples 20] [--out benchmarks/results/web.md]

With ``--first-moves``, what a fresh install does (no browser needed): a server started
on a cold cache (numba's and the compiled searches' in empty folders, as after a fresh
clone), how long its AI workers take to prepare every level (the server's log), a page
and a Galatjang expert move asked while they do, then the first move of every level of
every game once they are ready, each game played by the AI from the start and left
when a person is to act. ``--rounds`` starts that many cold servers; the section on
first moves in ``--out`` is written, the rest of the file kept.

    python benchmarks/web.py --first-moves [--rounds 3]

Needs the web and test extras and Chromium (``make browser``)."""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import boardlab
from boardlab.ai import levels
from web_support import LiveServer

#: The heading of the section ``--first-moves`` writes.
FIRST_MOVES = "## First moves on a fresh install"
#: A server's AI processes: LiveServer's ``--ai-workers 1`` and one for reviews.
AI_PROCESSES = 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--out", default="benchmarks/results/web.md")
    parser.add_argument(
        "--first-moves", action="store_true", help="first moves of a server on a cold cache"
    )
    parser.add_argument("--rounds", type=int, default=1, help="cold servers, with --first-moves")
    args = parser.parse_args()
    if args.first_moves:
        section = first_moves(args.rounds)
        write_section(Path(args.out), FIRST_MOVES, section)
        print(section)
        return
    from playwright.sync_api import sync_playwright

    folder = Path(tempfile.mkdtemp())
    server = LiveServer(folder / "bench.sqlite3")
    server.start()
    rows: list[str] = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=shutil.which("chromium"),
                args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
            )
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            game_id = create(page, server, "galatjang", "human", "0")
            loads = []
            for _ in range(args.samples):
                start = time.perf_counter()
                page.goto(f"{server.url}/play/{game_id}")
                page.wait_for_selector('#play[data-ready="true"]')
                loads.append(time.perf_counter() - start)
            rows.append(row("page load (game page until clickable)", loads))
            answers, clicks = [], []
            for _ in range(args.samples):
                game_id = create(page, server, "galatjang", "human", "0")
                page.wait_for_selector('#play[data-ready="true"]')
                start = time.perf_counter()
                with page.expect_response(lambda r: r.url.endswith("/play")) as answer:
                    page.click('#board [data-place="s1"]')
                answer.value.finished()
                answers.append(time.perf_counter() - start)
                page.wait_for_selector('#play[data-ply="1"]')
                clicks.append(time.perf_counter() - start)
            rows.append(row("click to the server's answer (checked and committed)", answers))
            rows.append(row("click to move shown (Galatjang sowing, animation included)", clicks))
            for game in boardlab.game_ids():
                for level in levels(boardlab.new_game(game)):
                    if level == "perfect":
                        continue
                    times = []
                    for _ in range(max(3, args.samples // 5)):
                        start = time.perf_counter()
                        game_id = create(page, server, game, level, "1", open_page=False)
                        while True:
                            state = page.request.get(f"{server.url}/api/games/{game_id}").json()
                            if state["ply"] > 0:
                                break
                            time.sleep(0.02)
                        times.append(time.perf_counter() - start)
                    rows.append(row(f"AI answer, {game} {level} (first action)", times))
            browser.close()
    finally:
        server.stop()
    table = "\n".join(
        [
            "| measure | samples | median s | 90th percentile s |",
            "|---|---:|---:|---:|",
            *rows,
        ]
    )
    text = (
        f"# Web app timings\n\n`python benchmarks/web.py --samples {args.samples}` on "
        f"{platform.machine()}, {platform.python_version()}, "
        f"{time.strftime('%Y-%m-%d')}; one uvicorn process, one AI worker, SQLite.\n\n"
        f"{table}\n"
    )
    out = Path(args.out)
    kept = section_of(out.read_text(), FIRST_MOVES) if out.exists() else ""
    out.write_text(text + (f"\n{kept}" if kept else ""))
    print(text)


def first_moves(rounds: int) -> str:
    """The section on first moves: ``rounds`` times two servers, each on a cold cache:
    one started as ``make serve`` starts it (``boardlab prepare`` first), one started
    alone (its AI workers prepare while it serves)."""
    measures: dict[str, list[float]] = {}
    for _round in range(rounds):
        for prepare in (True, False):
            for name, seconds in cold_server(prepare).items():
                flow = "make serve" if prepare else "boardlab serve alone"
                measures.setdefault(f"{flow}: {name}", []).append(seconds)
    rows = [
        f"| {name} | {len(times)} | {statistics.median(times):.2f} | {max(times):.2f} |"
        for name, times in measures.items()
    ]
    slowest = max((max(times), name) for name, times in measures.items() if ": first move" in name)
    asked = [
        f"{name}: {max(times):.2f} s" for name, times in measures.items() if "asked at once" in name
    ]
    return "\n".join(
        [
            FIRST_MOVES,
            "",
            f"`python benchmarks/web.py --first-moves --rounds {rounds}` on "
            f"{platform.machine()}, {platform.python_version()}, {time.strftime('%Y-%m-%d')}, "
            f"{os.cpu_count()} cores shared with other work; one uvicorn process, "
            f"{AI_PROCESSES} AI processes, SQLite. Each round starts two servers on a cold "
            "cache (numba's cache and the compiled searches in empty folders: a fresh "
            "clone): the first as `make serve` does, after `boardlab prepare`, the second "
            "alone. For each it asks for a page and a Galatjang expert move at once, waits "
            "until the server's "
            "log says that every AI process has prepared every level, then starts a game "
            "at each level in which the AI moves first, one after another, and times it "
            "until its first action is stored (the AI's whole turn is let finish before "
            "the next game). A level the server cannot play (the perfect player without "
            "its table) is left out.",
            "",
            "| measure | rounds | median s | slowest s |",
            "|---|---:|---:|---:|",
            *rows,
            "",
            f"The slowest first move once the workers were ready: {slowest[1]}, "
            f"{slowest[0]:.2f} s. The move asked at once, the slowest of the rounds: "
            + "; ".join(asked)
            + ".",
            "",
        ]
    )


def cold_server(prepare: bool) -> dict[str, float]:
    """One server on a cold cache, after ``boardlab prepare`` if ``prepare``: its
    measures by name, in seconds."""
    folder = Path(tempfile.mkdtemp(prefix="boardlab-first-"))
    chosen = {
        "NUMBA_CACHE_DIR": str(folder / "numba"),
        "BOARDLAB_COMPILED": str(folder / "compiled"),
        "LANGUAGE": "en",  # the server's log in English, as ``prepared`` reads it
    }
    saved = {name: os.environ.get(name) for name in chosen}
    os.environ.update(chosen)
    server = LiveServer(folder / "bench.sqlite3", folder)
    measures: dict[str, float] = {}
    try:
        if prepare:
            began = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "boardlab", "prepare"],
                check=True,
                stdout=subprocess.DEVNULL,
            )
            measures["boardlab prepare"] = time.perf_counter() - began
        began = time.perf_counter()
        server.start()
        measures["server listening"] = time.perf_counter() - began
        http = Client(server.url)
        start = time.perf_counter()
        assert http.call("GET", "/")[0] == 200
        measures["home page while the AI prepares"] = time.perf_counter() - start
        start = time.perf_counter()
        early = first_move(http, "galatjang", "expert")
        assert early is not None
        measures["galatjang expert move asked at once"] = time.perf_counter() - start
        ready = prepared(server.log, AI_PROCESSES)
        measures["every AI process ready (from the server's start)"] = max(ready) - began
        settle(http, early)
        for game in boardlab.game_ids():
            for level in levels(boardlab.new_game(game)):
                start = time.perf_counter()
                game_id = first_move(http, game, level)
                if game_id is None:
                    continue  # a level that cannot play here (the form leaves it out)
                measures[f"first move, {game} {level}"] = time.perf_counter() - start
                settle(http, game_id)
    finally:
        server.stop()
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        shutil.rmtree(folder, ignore_errors=True)
    return measures


class Client:
    """Requests to a live server, each on a connection of its own (the server closes
    one left idle), with the standard library: this mode needs no HTTP package."""

    def __init__(self, base: str) -> None:
        where = urlsplit(base)
        self.host, self.port = where.hostname or "127.0.0.1", where.port

    def call(self, method: str, path: str, form: dict[str, str] | None = None) -> Any:
        """(status, headers, body text) of one request; ``form`` is sent as a form."""
        connection = http.client.HTTPConnection(self.host, self.port, timeout=120)
        try:
            headers = {"Content-Type": "application/x-www-form-urlencoded"} if form else {}
            connection.request(method, path, urlencode(form) if form else None, headers)
            answer = connection.getresponse()
            return answer.status, dict(answer.getheaders()), answer.read().decode()
        finally:
            connection.close()

    def state(self, game_id: str) -> dict[str, Any]:
        found: dict[str, Any] = json.loads(self.call("GET", f"/api/games/{game_id}")[2])
        return found


def first_move(http: Client, game: str, level: str) -> str | None:
    """The id of a game at ``level`` in which the AI moves first, once its first action
    is stored; None if the server refuses the level."""
    status, headers, _text = http.call("POST", f"/new/{game}", {"opponent": level, "seat": "1"})
    if status != 303:
        return None
    game_id = str(headers["location"]).rsplit("/", 1)[1]
    while http.state(game_id)["ply"] == 0:
        time.sleep(0.02)
    return game_id


def settle(http: Client, game_id: str) -> None:
    """Wait until the AI's turn in a game is over (a person to act, or the end)."""
    while True:
        state = http.state(game_id)
        if state["outcome"] is not None or state["human_to_act"]:
            return
        time.sleep(0.05)


def prepared(log: Path, processes: int, limit: float = 900) -> list[float]:
    """When each of ``processes`` AI processes said in ``log`` that every level is
    ready (``time.perf_counter`` seconds, as this process first read it)."""
    seen: dict[str, float] = {}
    deadline = time.monotonic() + limit
    while len(seen) < processes:
        assert time.monotonic() < deadline, f"the AI did not prepare in {limit} s"
        for worker in re.findall(r"AI worker (\d+): every level ready", log.read_text()):
            seen.setdefault(worker, time.perf_counter())
        time.sleep(0.1)
    return list(seen.values())


def section_of(text: str, heading: str) -> str:
    """The section under ``heading`` in markdown ``text`` (to the next heading of its
    level or the end), or an empty text."""
    found = re.search(rf"^{re.escape(heading)}\n.*?(?=^## |\Z)", text, re.S | re.M)
    return found.group(0).rstrip() + "\n" if found else ""


def write_section(path: Path, heading: str, section: str) -> None:
    """``section`` (which starts with ``heading``) in the file at ``path``, in place of
    the one there, or at its end."""
    text = path.read_text() if path.exists() else ""
    old = section_of(text, heading)
    if old:
        text = text.replace(old, section)
    else:
        text = text.rstrip() + "\n\n" + section if text else section
    path.write_text(text)


def create(
    page: object, server: LiveServer, game: str, opponent: str, seat: str, open_page: bool = True
) -> str:
    """A new game through the form (the AI starts at once when it moves first)."""
    answer = page.request.post(  # type: ignore[attr-defined]
        f"{server.url}/new/{game}",
        form={"opponent": opponent, "seat": seat},
        max_redirects=0,
    )
    game_id = answer.headers["location"].rsplit("/", 1)[1]
    if open_page:
        page.goto(f"{server.url}/play/{game_id}")  # type: ignore[attr-defined]
    return str(game_id)


def row(name: str, times: list[float]) -> str:
    ordered = sorted(times)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return f"| {name} | {len(times)} | {statistics.median(times):.3f} | {p90:.3f} |"


if __name__ == "__main__":
    main()
