"""The web app's speed as a player feels it, in Debian's Chromium driven by Playwright:

* page load: opening a game page until its board is clickable;
* click to answer: a click on a Galatjang pit until the server's answer has arrived (the
  request, the engine's check, the database commit);
* click to move shown: the same click until the page shows the new position, the sowing
  animated seed by seed (140 ms a seed);
* the AI's answer at each level: from the start of a game in which the AI moves first
  until its action is stored (the worker process, the search, the commit).

    python benchmarks/web.py [--samples 20] [--out benchmarks/results/web.md]

Needs the web and test extras and Chromium (``make browser``)."""

from __future__ import annotations

import argparse
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from playwright.sync_api import sync_playwright

import boardlab
from boardlab.ai import levels
from web_support import LiveServer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=20)
    parser.add_argument("--out", default="benchmarks/results/web.md")
    args = parser.parse_args()
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
    Path(args.out).write_text(text)
    print(text)


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
