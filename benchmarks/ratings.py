"""One rating list per game, and each level's time per action on this machine (issue #35).

    python benchmarks/ratings.py [--games jinli,linja,galatjang] [--pairs N] [--openings 4]
        [--jobs J] [--times-only | --ratings-only] [--positions 60] [--load K]

*Ratings*: for each game a round robin (``boardlab.arena.tournament``) of every level as
that game plays it (``boardlab.ai.levels``), ``perfect`` where the game's solver answers
on this machine, the learned agent where ``examples/weights/<game>-az.npz`` exists, and
OpenSpiel's C++ ``MCTSBot`` (``openspiel:iterations=1000``) as an outside anchor: pairs of
games with the seats swapped, both from the same opening of random actions, a fixed seed.
Each game is added to ``benchmarks/results/ratings-<game>.jsonl`` as it ends, so the same
command resumes a stopped run. The Bradley-Terry ratings are shifted so that the anchor is
0: they are relative to that outside program, not absolute.

*Times*: every level with a ``time=`` in its spec (its promise: it never thinks longer),
timed on positions drawn from games between ``medium`` players at every stage, alone and
then beside K busy processes (default 2 x cores) that the script starts and stops.

Everything measured is kept in ``benchmarks/results/ratings.json``; ``ratings.md`` and the
level table in docs/ai.md (between its marker comments) are written from it.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import shlex
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from statistics import median
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from machine import machine_busy

from boardlab.ai import LEVEL_NAMES, level_spec, make_agent, parse_spec
from boardlab.arena.tournament import Entry, Plan, random_openings, run, standings
from boardlab.core.errors import BoardlabError
from boardlab.core.files import write_atomic
from boardlab.core.registry import new_game
from boardlab.extras import has

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
DOCS = ROOT / "docs" / "ai.md"
GAMES = ("jinli", "linja", "galatjang")
#: The searching and simple levels every game plays; ``perfect`` joins where it can.
RATED_LEVELS = tuple(name for name in LEVEL_NAMES if name != "perfect")
ANCHOR = "openspiel:iterations=1000"
SEED = 35
BEGIN = "<!-- level ratings table: copied from benchmarks/results/ratings.md -->"
END = "<!-- end of level ratings table -->"


def weights_spec(game_id: str) -> str:
    return f"az:weights=examples/weights/{game_id}-az.npz,iterations=200"


def entrants(game_id: str, only: list[str] | None) -> tuple[dict[str, str], list[str]]:
    """The agents of ``game_id``'s list, as {spec: name} (a level by its name, the learned
    agent as ``az``, the anchor as ``MCTSBot``, any other agent by its spec), and why any
    was left out. ``only``: these agents instead."""
    game = new_game(game_id)
    short = {weights_spec(game_id): "az", ANCHOR: "MCTSBot"}
    wanted = only or [*RATED_LEVELS, "perfect", *short]
    chosen: dict[str, str] = {}
    skipped = []
    for name in wanted:
        spec = level_spec(name, game_id)
        if spec.startswith("az:") and not (ROOT / parse_spec(spec)[1]["weights"]).exists():
            skipped.append(f"`{name}`: no trained weights at {parse_spec(spec)[1]['weights']}")
            continue
        if spec.startswith("openspiel:") and not has("openspiel"):
            skipped.append(
                f"`{name}`: pyspiel is not installed (`pip install 'boardlab[openspiel]'`)"
            )
            continue
        try:
            make_agent(spec, game=game_id).check(game)
        except BoardlabError as error:
            skipped.append(f"`{name}`: {error}")
            continue
        chosen[spec] = short.get(name, name)
    return chosen, skipped


def rate(game_id: str, args: argparse.Namespace) -> dict[str, Any]:
    """Play (or resume) ``game_id``'s round robin; its fitted list."""
    chosen, skipped = entrants(game_id, args.agents)
    for reason in skipped:
        print(f"{game_id}: left out {reason}", flush=True)
    specs = tuple(chosen)
    if len(specs) < 2:
        raise SystemExit(f"{game_id}: fewer than two agents to rate")
    openings = random_openings(game_id, {}, args.pairs * len(specs), args.openings, SEED)
    plan = Plan(game_id, {}, specs, False, args.pairs, tuple(openings), SEED)
    path = args.results / f"ratings-{game_id}.jsonl"
    total = len(plan.games())
    print(f"{game_id}: {len(specs)} agents, {total} games, results in {path}", flush=True)

    def show(entries: list[Entry]) -> None:
        if len(entries) % 10 == 0 or len(entries) == total:
            print(f"{game_id}: {len(entries)}/{total} games", flush=True)

    try:
        entries = run(plan, path, jobs=args.jobs, progress=show)
    except BoardlabError as error:
        raise SystemExit(
            f"{error}\n(a results file of other settings or agents: move it away to start afresh)"
        ) from None
    rows, fitted = standings(specs, entries)
    assert fitted is not None
    anchor = ANCHOR if ANCHOR in chosen else None
    shift = fitted.ratings[anchor] if anchor else 0.0
    return {
        "command": "python benchmarks/ratings.py " + shlex.join(args.argv),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cores": os.cpu_count(),
        "pairs": args.pairs,
        "openings": args.openings,
        "seed": SEED,
        "anchor": anchor,
        "skipped": skipped,
        "rows": [
            {
                "name": chosen[row.agent],
                "spec": row.agent,
                "elo": round(row.rating - shift, 1),
                "margin": round(row.margin, 1),
                "score": round(row.results.mean, 4),
                "wdl": [row.results.wins, row.results.draws, row.results.losses],
            }
            for row in rows
        ],
        "advantage": round(fitted.advantage, 1),
        "advantage_margin": round(fitted.advantage_margin, 1),
        "draw": round(fitted.draw_elo, 1),
    }


def positions(game_id: str, count: int, seed: int) -> list[Any]:
    """``count`` positions of games between ``medium`` players, evenly spread over the
    stages of the games (the share of its actions already played)."""
    game = new_game(game_id)
    rng = random.Random(seed)
    staged: list[tuple[float, int, Any]] = []
    number = 0
    while len(staged) < 3 * count:
        players = [make_agent("medium", rng.getrandbits(31), game_id) for _ in range(2)]
        position, seen = game.initial(), []
        while not position.is_over():
            seen.append(position)
            position = position.play(players[position.to_act].choose(position).action)
        staged += [(k / len(seen), number, p) for k, p in enumerate(seen)]
        number += 1
    staged.sort(key=lambda item: item[:2])
    step = (len(staged) - 1) / max(1, count - 1)
    return [staged[round(k * step)][2] for k in range(count)]


def _busy() -> None:
    while True:
        pass


@contextmanager
def busy(processes: int) -> Iterator[None]:
    """``processes`` busy Python loops beside this one, stopped on leaving."""
    started = [multiprocessing.Process(target=_busy, daemon=True) for _ in range(processes)]
    for process in started:
        process.start()
    try:
        time.sleep(0.5)  # let them take the cores
        yield
    finally:
        for process in started:
            process.terminate()
        for process in started:
            process.join()


def cores_busy(seconds: float = 1.0) -> float | None:
    """How many cores' worth of work the machine did over the next ``seconds`` (None
    where /proc/stat is missing): whether the idle timing is alone. Unlike the load
    average, it does not carry the last loaded timing's processes over."""
    try:
        before, start = machine_busy(), time.monotonic()
        time.sleep(seconds)
        busy = (machine_busy() - before) / (time.monotonic() - start)
    except OSError:
        return None
    # /proc/stat counts whole ticks per core: a machine busy on every core can read a
    # tick or two more than the cores could have done.
    return min(busy, float(os.cpu_count() or 1))


def seconds_per_action(spec: str, game_id: str, chosen: list[Any]) -> list[float]:
    """The time ``spec`` takes for each position (its search compiled first)."""
    agent = make_agent(spec, 1, game_id)
    agent.warm(chosen[0])
    agent.choose(chosen[0])
    taken = []
    for position in chosen:
        agent.reset()
        began = time.perf_counter()
        agent.choose(position)
        taken.append(time.perf_counter() - began)
    return taken


def time_levels(game_id: str, args: argparse.Namespace) -> dict[str, Any]:
    """Each searching level's time per action in ``game_id``, alone and under load."""
    searching = {}
    for name in LEVEL_NAMES:
        spec = level_spec(name, game_id)
        promise = parse_spec(spec)[1].get("time")
        if promise is not None:
            searching[name] = (spec, float(promise))
    chosen = positions(game_id, args.positions, SEED)
    rows = []
    for name, (spec, promise) in searching.items():
        print(f"{game_id}: timing {name} ({spec}) on {len(chosen)} positions", flush=True)
        busy_before = cores_busy()
        idle = seconds_per_action(spec, game_id, chosen)
        with busy(args.load):
            loaded = seconds_per_action(spec, game_id, chosen)
        rows.append(
            {
                "name": name,
                "spec": spec,
                "promise": promise,
                "busy_before": None if busy_before is None else round(busy_before, 2),
                "idle_median": round(median(idle), 4),
                "idle_max": round(max(idle), 4),
                "loaded_median": round(median(loaded), 4),
                "loaded_max": round(max(loaded), 4),
            }
        )
    return {
        "command": "python benchmarks/ratings.py " + shlex.join(args.argv),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "cores": os.cpu_count(),
        "positions": len(chosen),
        "busy": args.load,
        "rows": rows,
    }


def level_table(saved: dict[str, Any]) -> list[str]:
    """The table docs/ai.md copies: each game's list, the levels first with their time
    and then the other entrants (the learned agent, the anchor)."""
    ratings, times = saved.get("ratings", {}), saved.get("times", {})
    games = [g for g in GAMES if g in ratings or g in times]
    if not games:
        return ["Not measured yet: run `python benchmarks/ratings.py`."]
    lines = [
        "| game | player | agent | Elo (95%) | s/action idle (median) "
        "| s/action loaded (most) | promised | within |",
        "|---|---|---|---:|---:|---:|---:|---|",
    ]
    for game in games:
        rated = {row["name"]: row for row in ratings.get(game, {}).get("rows", [])}
        timed = {row["name"]: row for row in times.get(game, {}).get("rows", [])}
        others = [name for name in rated if name not in LEVEL_NAMES]  # in rank order
        for name in [*LEVEL_NAMES, *others]:
            if name not in rated and name not in timed:
                continue
            spec = (rated.get(name) or timed[name])["spec"]
            elo = (
                f"{round(rated[name]['elo']):+d} ± {rated[name]['margin']:.0f}"
                if name in rated
                else ""
            )
            cells = ["", "", "", ""]
            if name in timed:
                row = timed[name]
                within = "yes" if row["loaded_max"] <= row["promise"] else "**no**"
                cells = [
                    f"{row['idle_median']:.3f}",
                    f"{row['loaded_max']:.3f}",
                    f"{row['promise']:g}",
                    within,
                ]
            lines.append(f"| {game} | `{name}` | `{spec}` | {elo} | " + " | ".join(cells) + " |")
    return lines


def write_markdown(saved: dict[str, Any], path: Path) -> None:
    lines = [
        "# Rating lists and the levels' time per action",
        "",
        "Written by `benchmarks/ratings.py` from `ratings.json`. The ratings are relative: "
        "a Bradley-Terry fit with a first-seat advantage and a draw term, shifted so that "
        f"`{ANCHOR}` (OpenSpiel's C++ MCTSBot, an outside program) is 0 in each list it "
        "played in (else centred on the mean). Each interval is the 95% half-width of the "
        "rating in the fit centred on the mean.",
        "",
        "## Levels",
        "",
        *level_table(saved),
    ]
    for game, result in saved.get("ratings", {}).items():
        lines += [
            *section_head(game, "ratings", result),
            f"pairs a meeting {result['pairs']}, from openings of {result['openings']} random "
            f"actions, seed {result['seed']}; "
            + (
                f"anchored at `{result['anchor']}` = 0."
                if result["anchor"]
                else "no anchor played: the ratings are centred on their mean."
            ),
            "",
            "| rank | agent | spec | Elo (95%) | score | W-D-L | games |",
            "|---:|---|---|---:|---:|---|---:|",
        ]
        for rank, row in enumerate(result["rows"], 1):
            wins, draws, losses = row["wdl"]
            lines.append(
                f"| {rank} | `{row['name']}` | `{row['spec']}` | {round(row['elo']):+d} ± "
                f"{row['margin']:.0f} | {row['score']:.1%} | {wins}-{draws}-{losses} "
                f"| {wins + draws + losses} |"
            )
        lines += [
            "",
            f"First seat worth {round(result['advantage']):+d} Elo (95% ± "
            f"{result['advantage_margin']:.0f}); draw term {result['draw']:.0f} Elo.",
        ]
        if result["skipped"]:
            lines += ["", "Left out: " + "; ".join(result["skipped"]) + "."]
    for game, result in saved.get("times", {}).items():
        lines += [
            *section_head(game, "time per action", result),
            f"{result['positions']} positions of games between `medium` players, evenly over "
            f"the games' stages; *idle*: the level alone (*busy before*: the cores' worth of "
            f"work the machine did in the second before it); *loaded*: beside "
            f"{result['busy']} busy processes. "
            "*within*: the most time under load stayed within the promised `time=`.",
            "",
            "| level | agent | busy before | idle median | idle max | loaded median "
            "| loaded max | promised | within |",
            "|---|---|---:|---:|---:|---:|---:|---:|---|",
        ]
        for row in result["rows"]:
            within = "yes" if row["loaded_max"] <= row["promise"] else "**no**"
            before = row.get("busy_before")
            lines.append(
                f"| `{row['name']}` | `{row['spec']}` | "
                f"{'–' if before is None else f'{before:.2f}'} "
                f"| {row['idle_median']:.3f} | {row['idle_max']:.3f} "
                f"| {row['loaded_median']:.3f} | {row['loaded_max']:.3f} "
                f"| {row['promise']:g} | {within} |"
            )
    write_atomic(path, "\n".join(lines) + "\n")


def section_head(game: str, title: str, result: dict[str, Any]) -> list[str]:
    """A game's section of ratings.md: its heading, then the start of the line naming the
    command that measured it (the caller's text follows on the same line)."""
    return [
        "",
        f"## {game}: {title}",
        "",
        f"Command: `{result['command']}` ({result['date']}, {result['cores']} cores):",
    ]


def copy_to_docs(saved: dict[str, Any], docs: Path) -> None:
    """Replace the lines between the markers in ``docs`` with the level table."""
    text = docs.read_text(encoding="utf-8")
    head, begin, rest = text.partition(BEGIN + "\n")
    _table, end, tail = rest.partition(END)
    if not begin or not end:
        raise SystemExit(f"{docs}: the markers {BEGIN!r} and {END!r} are missing")
    write_atomic(docs, head + begin + "\n".join(level_table(saved)) + "\n" + end + tail)


def names(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def main() -> None:
    cores = os.cpu_count() or 1
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=names, default=list(GAMES), help="comma-separated")
    parser.add_argument("--pairs", type=int, default=10, help="game pairs per meeting")
    parser.add_argument("--openings", type=int, default=4, help="random actions per opening")
    parser.add_argument("--jobs", type=int, default=cores)
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--times-only", action="store_true")
    only.add_argument("--ratings-only", action="store_true")
    parser.add_argument("--positions", type=int, default=60, help="positions timed per level")
    parser.add_argument(
        "--load", type=int, default=2 * cores, help="busy processes beside the timing"
    )
    parser.add_argument(
        "--agents",
        type=names,
        help="rate these agents instead of the list (a quick test, with --results and --docs)",
    )
    parser.add_argument("--results", type=Path, default=RESULTS, help="where results go")
    parser.add_argument("--docs", type=Path, default=DOCS, help="the file the table goes into")
    args = parser.parse_args()
    args.argv = sys.argv[1:]
    unknown = [g for g in args.games if g not in GAMES]
    if unknown or args.pairs < 1 or args.positions < 1 or args.load < 0:
        parser.error(
            f"expected games among {', '.join(GAMES)}, --pairs and --positions of 1 or more, "
            f"--load of 0 or more; got games {args.games}, --pairs {args.pairs}, "
            f"--positions {args.positions}, --load {args.load}"
        )
    args.results, args.docs = args.results.resolve(), args.docs.resolve()  # before chdir
    if args.agents and (args.results == RESULTS or args.docs == DOCS):
        parser.error("--agents is for a quick test: give --results DIR and --docs FILE elsewhere")
    os.chdir(ROOT)  # the weights' paths in the agent specs are the repository's
    args.results.mkdir(parents=True, exist_ok=True)
    store = args.results / "ratings.json"
    saved: dict[str, Any] = json.loads(store.read_text()) if store.exists() else {}
    for game_id in args.games:
        if not args.times_only:
            saved.setdefault("ratings", {})[game_id] = rate(game_id, args)
            write_atomic(store, json.dumps(saved, indent=1) + "\n")
        if not args.ratings_only:
            saved.setdefault("times", {})[game_id] = time_levels(game_id, args)
            write_atomic(store, json.dumps(saved, indent=1) + "\n")
        write_markdown(saved, args.results / "ratings.md")
    copy_to_docs(saved, args.docs)
    print(f"written {args.results / 'ratings.md'} and the table in {args.docs}")


if __name__ == "__main__":
    main()
