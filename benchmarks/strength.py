"""The strength of the levels and agents: every match issue #4 asks for, on each game
with default options.

    python benchmarks/strength.py [--only TEXT ...] [--jobs J] [--part K/N] [--list] [--table]

Each match is two agents over a fixed number of games with the seats alternating and a
fixed seed (game i replays exactly: ``boardlab match GAME A B --games N --seed S`` plays
the same games). Every finished game is saved at once in
``benchmarks/results/strength.json``, keyed by the agents' full specs (a level is
resolved to its agent, so changing a level's budget starts its matches afresh), so an
interrupted run resumes where it stopped, and several runs can share the file (say,
the matches with iteration budgets beside those with a time budget, one process each, or
the parts of one match with ``--part``). ``strength.md`` is written from the saved
games: wins, draws and losses, the score with its 95% interval, the Elo difference, the
first player's score and the thinking time per action.

Matches whose agents have an iteration budget give the same games on any machine and
under any load. Those with a time budget (``mcts:time=1``) depend on the machine: give
every game a core of its own (``--only time=``, with nothing else running beyond one
process per core).
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import time
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from statistics import median
from typing import Any

import boardlab
from boardlab.ai import LEVELS, level_spec, levels
from boardlab.arena import GameResult, Score, play_game
from boardlab.core.files import write_atomic

RESULTS = Path(__file__).parent / "results"
JSON = RESULTS / "strength.json"
MARKDOWN = RESULTS / "strength.md"
GAMES = ("jinli", "linja", "galatjang")


@dataclass(frozen=True)
class Match:
    game: str
    a: str  # the side expected to be stronger
    b: str
    games: int
    seed: int

    @property
    def key(self) -> str:
        """Names the match by what is played, so a changed level is a new match."""
        a, b = level_spec(self.a, self.game), level_spec(self.b, self.game)
        return f"{self.game} {a} vs {b} seed {self.seed}"

    @property
    def label(self) -> str:
        return f"{self.game}: {self.a} vs {self.b}"


#: ``expert``'s thinking time per action in each game, measured in its games against
#: ``hard`` with a core per game (over all actions 0.68 s, 0.68 s, 0.32 s; the median
#: game 0.68 s, 0.68 s, 0.34 s), rounded up: the time per action of the mcts it meets.
EXPERT_SECONDS = {"jinli": 0.7, "linja": 0.7, "galatjang": 0.35}


def matches() -> list[Match]:
    """The ladder (each level against the one below), mcts at 1 s a move against random
    and greedy, and expert against mcts given the same time."""
    ladder = ["beginner", "easy", "medium", "hard", "expert"]
    found = []
    for game in GAMES:
        for weaker, stronger in pairwise(ladder):
            found.append(Match(game, stronger, weaker, 200, 7))
    for game in GAMES:
        found.append(Match(game, "mcts:time=1", "random", 100, 3))
        found.append(Match(game, "mcts:time=1", "greedy", 100, 2))
        found.append(Match(game, "expert", f"mcts:time={EXPERT_SECONDS[game]}", 100, 5))
    return found


def load() -> dict[str, Any]:
    return json.loads(JSON.read_text()) if JSON.exists() else {}


@contextmanager
def locked() -> Iterator[None]:
    """Hold the results directory's lock: other runs wait to read and write the file."""
    handle = os.open(RESULTS, os.O_RDONLY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)


def record(match: Match, result: GameResult) -> int:
    """Add one finished game to the saved file, keeping what other runs added meanwhile;
    return how many games of ``match`` are saved."""
    with locked():
        saved = load()
        entry = saved.setdefault(match.key, {"label": match.label, "games": {}})
        entry["label"] = match.label
        entry["games"][str(result.index)] = to_json(result)
        write_atomic(JSON, json.dumps(saved, indent=1, sort_keys=True) + "\n")
        write_markdown(saved)
    return len(entry["games"])


def to_json(result: GameResult) -> dict[str, Any]:
    return {
        "a_first": result.a_first,
        "a_score": result.a_score,
        "reason": result.reason,
        "actions": result.actions,
        "seconds": [round(s, 3) for s in result.seconds],
        "points": list(result.points),
        "choices": list(result.choices),
    }


def run(todo: list[Match], jobs: int, part: tuple[int, int] = (1, 1)) -> None:
    """Play every missing game of ``todo`` (of ``part`` K of N: the games whose index is
    K - 1 modulo N, so N runs share the work), saving each as it finishes."""
    k, n = part
    saved = load()
    pending = []
    for match in todo:
        played = saved.get(match.key, {}).get("games", {})
        pending += [(match, i) for i in range(k - 1, match.games, n) if str(i) not in played]
    pending.sort(key=lambda item: item[1])  # round robin: every match advances together
    print(f"{len(pending)} games to play", flush=True)
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        running: dict[Future[GameResult], Match] = {}
        queue = iter(pending)
        while True:
            while len(running) < 2 * jobs and (item := next(queue, None)):
                match, index = item
                future = pool.submit(play_game, match.game, {}, match.a, match.b, index, match.seed)
                running[future] = match
            if not running:
                break
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                match = running.pop(future)
                played = record(match, future.result())
                print(f"{match.label}: {played}/{match.games}", flush=True)


def summary(match: Match, games: dict[str, dict[str, Any]]) -> str:
    """One table row: what the stronger side scored, and at what cost."""
    results = list(games.values())
    wins = sum(g["a_score"] == 1 for g in results)
    draws = sum(g["a_score"] == 0.5 for g in results)
    score = Score(wins, draws, len(results) - wins - draws)
    low, high = score.interval()
    elo, elo_low, elo_high = score.elo()
    first = sum(g["a_score"] if g["a_first"] else 1 - g["a_score"] for g in results)
    per_move = [
        median(g["seconds"][side] / g["choices"][side] for g in results if g["choices"][side])
        for side in (0, 1)
    ]
    length = sum(g["actions"] for g in results) / len(results)
    pairs = pair_score(games)
    played = f"{score.games}" + ("" if score.games == match.games else f" of {match.games}")
    return (
        f"| {match.game} | `{match.a}` vs `{match.b}` | {played} "
        f"| {score.wins}-{score.draws}-{score.losses} "
        f"| {score.mean:.3f} ({low:.3f} to {high:.3f}) "
        f"| {elo:+.0f} ({elo_low:+.0f} to {elo_high:+.0f}) "
        f"| {first / len(results):.3f} "
        f"| {pairs.wins}-{pairs.draws}-{pairs.losses} ({pairs.mean:.3f}) | {length:.0f} "
        f"| {per_move[0]:.3f} / {per_move[1]:.3f} |"
    )


def pair_score(games: dict[str, dict[str, Any]]) -> Score:
    """Games 2k and 2k+1 as one pair, each side first once, won by the more points over
    both: where the seat decides most games, the margin still shows the stronger side."""
    wins = draws = losses = 0
    for k in range(0, 1 + max(map(int, games)), 2):
        pair = [games.get(str(k)), games.get(str(k + 1))]
        if None in pair:
            continue
        margin = sum(g["points"][0] - g["points"][1] for g in pair if g)
        wins, draws, losses = wins + (margin > 0), draws + (margin == 0), losses + (margin < 0)
    return Score(wins, draws, losses)


def write_markdown(saved: dict[str, Any]) -> None:
    shown = ", ".join(f"`{name}` = `{spec}`" for name, spec in LEVELS.items())
    for game in boardlab.game_ids():
        chosen = {n: s for n, s in levels(boardlab.game_class(game)).items() if LEVELS[n] != s}
        if chosen:
            shown += "; in " + game + ": " + ", ".join(f"`{n}` = `{s}`" for n, s in chosen.items())
    lines = [
        "# Strength of the levels and agents",
        "",
        f"Command: `python benchmarks/strength.py` ({os.cpu_count()} cores; "
        f"written {time.strftime('%Y-%m-%d %H:%M')}). Default options; seats alternate; "
        "a draw counts half. *score*: the first-named agent's mean result, with the 95% "
        "Wilson interval; *Elo*: the difference that score implies; *first player*: the "
        "mean result of whoever sat first (the seat's advantage); *pairs*: games 2k and "
        "2k+1 (each side first once) as one pair, won by the more points over both, "
        "W-D-L and score; *length*: actions per game; *s/action*: each side's thinking "
        "time per action it chose, the median over the games (a game from a busy machine "
        "does not move it; two games at once on two cores).",
        "",
        f"Levels: {shown}.",
        "",
        "| game | match | games | W-D-L | score (95% interval) | Elo (95% interval) "
        "| first player | pairs | length | s/action |",
        "|---|---|---:|---|---|---|---:|---|---:|---:|",
    ]
    for match in matches():
        games = saved.get(match.key, {}).get("games", {})
        if games:
            lines.append(summary(match, games))
    missing = [m.label for m in matches() if not saved.get(m.key, {}).get("games")]
    if missing:
        lines += ["", f"Not played yet: {'; '.join(missing)}."]
    write_atomic(MARKDOWN, "\n".join(lines) + "\n")


def part(text: str) -> tuple[int, int]:
    """``K/N`` with 1 <= K <= N."""
    k, _, n = text.partition("/")
    if not (k.isdigit() and n.isdigit() and 1 <= int(k) <= int(n)):
        raise argparse.ArgumentTypeError(f"expected K/N with 1 <= K <= N, like 1/2, not {text!r}")
    return int(k), int(n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only", nargs="*", default=[], help="play the matches whose label contains any TEXT"
    )
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--part", type=part, default=(1, 1), help="K/N: play only the games i with i %% N == K-1"
    )
    parser.add_argument("--list", action="store_true", help="list the matches and stop")
    parser.add_argument(
        "--table", action="store_true", help="write strength.md from the saved games and stop"
    )
    args = parser.parse_args()
    if args.table:
        with locked():
            write_markdown(load())
        return
    todo = [m for m in matches() if not args.only or any(t in m.label for t in args.only)]
    if args.list:
        saved = load()
        for m in todo:
            print(f"{m.label}: {len(saved.get(m.key, {}).get('games', {}))}/{m.games}")
        return
    run(todo, args.jobs, args.part)
    with locked():
        write_markdown(load())


if __name__ == "__main__":
    main()
