"""The learning curve of a network trained by examples/alphazero.py: its strength against
one opponent at every kept iteration, over the minutes of training (issue #35).

    python benchmarks/learning_curve.py --game galatjang --weights DIR/NAME.npz
        [-o NAME=VALUE] [--opponent easy] [--pairs 50] [--openings 4] [--iterations 200]
        [--jobs J] [--seed 0] [--out benchmarks/results/learning-<game>.json]

``--weights`` is the trainer's ``--out``. The points of the curve:

* iteration 0, at 0 minutes: the untrained network, weights of all zeros. They give every
  action the same prior and every position the value 0, so the point is the search alone
  with no knowledge, the same for any seed; a network of random weights (what the
  training starts from) would add a draw's arbitrary preferences to the baseline. With
  zeros every layout plays the same, so the file (``<out>/untrained.npz``) has one
  hidden unit.
* every ``NAME-NNNN.npz`` the trainer's ``--keep`` left beside the weights;
* ``NAME.npz`` itself, the end of the curve, unless its iteration is a kept one. A run
  trained without ``--keep`` has only this and the untrained point: said so, and both are
  measured, which is still the gain the training gave.

The minutes of a point are the training's own (``minutes`` in ``NAME.log``, self-play and
learning, without the time spent writing files). Each point is a match,
``az:weights=FILE,iterations=S`` against ``--opponent``, ``--pairs`` openings of
``--openings`` random actions drawn from ``--seed`` (the same for every point), each
played with both seats, by ``boardlab.arena.match.play_match``; its score, interval and
Elo are ``boardlab.arena.stats``'s. Each game goes to ``<out>/<file>-<digest>.jsonl``
(``<out>``: a folder named as ``--out`` without ``.json``) as it ends, so the same
command resumes a stopped run; the digest is the weights' arrays', so weights written
again (a training started afresh) are measured afresh, never mixed with old games. The
final weights are rewritten while a training runs: if they change during their match,
that point is left out (the kept ones stand). Other settings with the same ``--out``
are refused by the results files: give another ``--out``.

Written: ``--out`` (JSON; an Elo of null is infinite, at a score of 0 or 1), the same
with ``.md`` (a table, the command at its top) and ``.png`` (Elo over training minutes,
95% error bars; matplotlib, the ``study`` extra).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import shlex
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardlab.ai import level_spec, make_agent
from boardlab.ai.az import Network, kept_weights, save_weights
from boardlab.arena.match import GameResult, play_match
from boardlab.arena.openings import Openings, described
from boardlab.core.errors import BoardlabError
from boardlab.core.files import write_atomic
from boardlab.core.game import Game
from boardlab.core.registry import new_game
from boardlab.extras import import_extra

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"


@dataclass(frozen=True)
class Point:
    """Weights to measure: the iteration and training minutes they were written at."""

    label: str
    iteration: int
    minutes: float
    path: Path


def read_log(path: Path) -> dict[int, float]:
    """The training minutes at each iteration of the trainer's log. The last line of an
    iteration wins: a training started afresh over the same ``--out`` appends from
    iteration 1 again, and rewrites the kept weights."""
    minutes = {}
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    if lines and not text.endswith("\n"):
        lines.pop()  # being written by a training that runs
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
            minutes[int(entry["iteration"])] = float(entry["minutes"])
        except (ValueError, TypeError, KeyError):
            raise SystemExit(
                f"{path}, line {number}: not a line of examples/alphazero.py's log "
                f"(expected JSON with iteration and minutes): {line[:60]!r}"
            ) from None
    return minutes


def points_of(weights: Path, untrained: Path) -> tuple[list[Point], list[str]]:
    """The points of the curve and notes on what was found (see the module's text)."""
    log = weights.with_suffix(".log")
    if not log.exists():
        raise SystemExit(
            f"no training log {log} beside {weights}: the minutes of training come from it"
        )
    minutes = read_log(log)
    if not minutes:
        raise SystemExit(f"{log} holds no iteration")
    points, notes = [Point("untrained", 0, 0.0, untrained)], []
    kept = kept_weights(weights)
    for iteration, path in kept.items():
        if iteration in minutes:
            points.append(Point(path.name, iteration, minutes[iteration], path))
        else:
            notes.append(f"{path.name} left out: iteration {iteration} is not in {log.name}")
    last = max(minutes)
    if last not in kept:
        points.append(Point(f"{weights.name} (final)", last, minutes[last], weights))
    if not kept:
        notes.append(
            f"no kept weights beside {weights.name} ({weights.stem}-NNNN{weights.suffix}: "
            "train with --keep N for a curve): measured the final weights and the untrained "
            "network only"
        )
    return points, notes


def check_weights(path: Path, game: Game[Any]) -> None:
    """Refuse weights of another game, or of the game under other options."""
    network = Network(path)
    trained = network.meta.get("options", [])
    if network.meta.get("game") == game.id and trained != game.option_assignments():
        wanted = " ".join(f"-o {option}" for option in trained) or "no -o"
        raise BoardlabError(
            f"{path} holds weights for {game.id} ({' '.join(trained) or 'its default options'}),"
            f" not for {described(game)}: "
            f"give the options it was trained with ({wanted})"
        )
    network.check(game)


def untrained_weights(game: Game[Any], path: Path) -> None:
    """All-zero weights for ``game`` at ``path`` (written only if they differ, so a
    committed file stays as it is)."""
    np = import_extra("numpy", "the learning curve")
    size = len(game.observation(game.initial_state()))
    actions = game.num_actions

    def zeros(*shape: int) -> Any:
        return np.zeros(shape, np.float32)

    if path.exists():
        try:
            network = Network(path)
            network.check(game)
            arrays = [
                *(a for pair in network.layers for a in pair),
                *network.policy,
                *network.value,
            ]
            same = network.meta.get("options") == game.option_assignments()
            if same and not any(np.any(array) for array in arrays):
                return
        except BoardlabError:
            pass
    path.parent.mkdir(parents=True, exist_ok=True)
    hidden = (zeros(size, 1), zeros(1))
    save_weights(path, game, [hidden], (zeros(1, actions), zeros(actions)), (zeros(1, 1), zeros(1)))


def digest(path: Path) -> str:
    """A short hash of a weights file's arrays (not its bytes: the zip holds the time it
    was written)."""
    np = import_extra("numpy", "the learning curve")
    hashed = hashlib.sha256()
    with open(path, "rb") as stream, np.load(stream, allow_pickle=False) as data:
        for name in sorted(data.files):
            array = data[name]
            hashed.update(f"{name} {array.dtype} {array.shape}\n".encode())
            hashed.update(array.tobytes())
    return hashed.hexdigest()[:12]


def shown_path(path: Path) -> str:
    """A path as the agent spec names it: from the repository's top when inside it (the
    script runs there), so that a results file resumes from any directory."""
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


def measure(
    point: Point, game: Game[Any], args: argparse.Namespace, folder: Path
) -> dict[str, Any] | None:
    """Play (or resume) the point's match; its row, or None if its weights changed."""
    before = digest(point.path)
    spec = f"az:weights={shown_path(point.path)},iterations={args.iterations}"
    stem = "untrained" if point.iteration == 0 else point.path.stem
    results = folder / f"{stem}-{before}.jsonl"
    total = 2 * args.pairs
    openings = (
        Openings.random(game.id, dict(game.options), args.openings, args.seed)
        if args.openings
        else Openings()
    )

    played = 0

    def show(_result: GameResult) -> None:
        nonlocal played
        played += 1
        if played % 20 == 0:
            print(f"  {point.label}: {played} games played", flush=True)

    try:
        result = play_match(
            game.id,
            spec,
            args.opponent,
            total,
            dict(game.options),
            jobs=args.jobs,
            seed=args.seed,
            progress=show,
            openings=openings,
            results=results,
        )
    except BoardlabError as error:
        raise SystemExit(
            f"{error}\n({results} holds this point's games: to measure with other settings, "
            "give another --out)"
        ) from None
    if digest(point.path) != before:
        results.unlink(missing_ok=True)
        print(
            f"{point.label}: left out, the file changed during its match (is the training "
            "still running?): measure it again when it has stopped",
            flush=True,
        )
        return None
    score = result.score
    low, high = score.interval()
    elo, elo_low, elo_high = score.elo()
    seconds = result.seconds_per_choice()[0]
    print(
        f"{point.label}: iteration {point.iteration}, {point.minutes:g} minutes: "
        f"{score.wins}-{score.draws}-{score.losses}, score {score.mean:.3f} "
        f"({low:.3f} to {high:.3f}), Elo {signed(elo)} ({signed(elo_low)} to {signed(elo_high)}); "
        f"{result.resumed} games resumed from {results}, {len(result.games) - result.resumed} "
        "played",
        flush=True,
    )
    return {
        "label": point.label,
        "iteration": point.iteration,
        "minutes": point.minutes,
        "weights": shown_path(point.path),
        "digest": before,
        "games": score.games,
        "wdl": [score.wins, score.draws, score.losses],
        "score": round(score.mean, 4),
        "score_ci": [round(low, 4), round(high, 4)],
        "elo": finite(elo),
        "elo_ci": [finite(elo_low), finite(elo_high)],
        "seconds_per_action": round(seconds, 4),
        "results": shown_path(results),
    }


def finite(elo: float) -> float | None:
    """An Elo for JSON: rounded, or null where infinite."""
    return round(elo, 1) + 0.0 if math.isfinite(elo) else None  # no -0.0


def signed(elo: float | None, score: float = 0.5) -> str:
    """An Elo as the tables show it; an infinite one (None, from JSON) by its score."""
    if elo is None:
        elo = math.inf if score > 0.5 else -math.inf
    if math.isinf(elo):
        return "+∞" if elo > 0 else "-∞"
    return f"{round(elo):+d}"


def write_markdown(saved: dict[str, Any], path: Path) -> None:
    opponent = f"`{saved['opponent']}`"
    if saved["opponent_spec"] != saved["opponent"]:
        opponent += f" (`{saved['opponent_spec']}`)"
    lines = [
        f"# Learning curve: {saved['game']}",
        "",
        f"Command: `{saved['command']}` ({saved['date']}, {saved['cores']} cores).",
        "",
        f"Written by `benchmarks/learning_curve.py`. Each row is a match of "
        f"`{saved['agent']}` (the row's weights) against {opponent}: "
        f"{saved['openings_described']}, seed {saved['seed']}; the same openings for every "
        "row. Minutes: the training's own, from its log. Intervals: 95%.",
    ]
    if saved["notes"]:
        lines += ["", *(f"Note: {note}." for note in saved["notes"])]
    lines += [
        "",
        "| iteration | training minutes | weights | games | W-D-L | score (95%) "
        "| Elo (95%) | az s/action |",
        "|---:|---:|---|---:|---|---|---|---:|",
    ]
    for row in saved["points"]:
        wins, draws, losses = row["wdl"]
        low, high = row["score_ci"]
        elo_low, elo_high = row["elo_ci"]
        lines.append(
            f"| {row['iteration']} | {row['minutes']:g} | `{row['weights']}` | {row['games']} "
            f"| {wins}-{draws}-{losses} | {row['score']:.3f} ({low:.3f} to {high:.3f}) "
            f"| {signed(row['elo'], row['score'])} ({signed(elo_low, low)} to "
            f"{signed(elo_high, high)}) | {row['seconds_per_action']:.4f} |"
        )
    write_atomic(path, "\n".join(lines) + "\n")


def plot(saved: dict[str, Any], path: Path) -> None:
    """Elo against the opponent over training minutes, with 95% error bars; an infinite
    Elo or bound (a score of 0 or 1) is drawn at the edge, the point as a triangle."""
    figure_module = import_extra("matplotlib.figure", "the learning curve's plot", "matplotlib")
    figure = figure_module.Figure(figsize=(7.5, 4.2), layout="constrained")
    axes = figure.add_subplot()
    rows = saved["points"]
    known = [abs(v) for r in rows for v in (r["elo"], *r["elo_ci"]) if v is not None]
    edge = max([400.0, *map(float, known)]) + 100.0

    def at(value: float | None, score: float) -> float:
        if value is not None:
            return float(value)
        return edge if score > 0.5 else -edge

    xs = [r["minutes"] for r in rows]
    ys = [at(r["elo"], r["score"]) for r in rows]
    lows = [at(r["elo_ci"][0], r["score_ci"][0]) for r in rows]
    highs = [at(r["elo_ci"][1], r["score_ci"][1]) for r in rows]
    below = [y - low for y, low in zip(ys, lows, strict=True)]
    above = [high - y for y, high in zip(ys, highs, strict=True)]
    axes.errorbar(
        xs, ys, yerr=[below, above], fmt="o-", color="#1f5fa8", capsize=3, label="95% interval"
    )
    unbounded = [(x, y) for x, y, r in zip(xs, ys, rows, strict=True) if r["elo"] is None]
    for marker, side, said in (("^", 1, "score 1: Elo +∞"), ("v", -1, "score 0: Elo -∞")):
        beyond = [(x, y) for x, y in unbounded if y * side > 0]
        if beyond:
            axes.scatter(
                [x for x, _y in beyond],
                [y for _x, y in beyond],
                marker=marker,
                s=60,
                color="#d55e00",
                zorder=3,
                label=f"{said}, drawn at the edge",
            )
    if unbounded:
        axes.set_ylim(-edge - 50, edge + 50)
    for x, y, row in zip(xs, ys, rows, strict=True):
        axes.annotate(
            str(row["iteration"]), (x, y), textcoords="offset points", xytext=(4, 4), fontsize=7
        )
    axes.axhline(0, color="#888", linestyle="--", linewidth=1)
    axes.set_xlabel("training minutes (labels: iterations)")
    axes.set_ylabel(f"Elo against {saved['opponent']}")
    games = max((r["games"] for r in rows), default=0)
    axes.set_title(
        f"{saved['game']}: {saved['agent']} against {saved['opponent']}, {games} games a point",
        fontsize=9,
    )
    axes.grid(alpha=0.3)
    axes.legend(fontsize=8, loc="lower right")
    figure.savefig(path, dpi=120)


def options_of(items: list[str], error: Callable[[str], Any]) -> dict[str, str]:
    """``-o NAME=VALUE`` flags as the trainer reads them."""
    bad = [item for item in items if "=" not in item]
    if bad:
        error(f"-o {bad[0]!r}: expected NAME=VALUE, like -o pits=3")
    return dict(item.split("=", 1) for item in items)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", required=True)
    parser.add_argument("-o", "--option", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument(
        "--weights", type=Path, required=True, help="the trainer's --out (NAME.npz)"
    )
    parser.add_argument("--opponent", default="easy", help="an agent spec or a level")
    parser.add_argument("--pairs", type=int, default=50, help="openings, each with both seats")
    parser.add_argument("--openings", type=int, default=4, help="random actions per opening")
    parser.add_argument(
        "--iterations", type=int, default=200, help="the az agent's simulations an action"
    )
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, help="default: benchmarks/results/learning-GAME.json")
    args = parser.parse_args()
    if args.pairs < 1 or args.openings < 0 or args.iterations < 1 or args.jobs < 1:
        parser.error(
            f"expected --pairs, --iterations and --jobs of 1 or more and --openings of 0 or "
            f"more; got {args.pairs}, {args.iterations}, {args.jobs} and {args.openings}"
        )
    command = "python benchmarks/learning_curve.py " + shlex.join(sys.argv[1:])
    out = (args.out or RESULTS / f"learning-{args.game}.json").resolve()
    weights = args.weights.resolve()
    folder = out.with_suffix("")
    try:
        game = new_game(args.game, options_of(args.option, parser.error))
        if not weights.exists():
            raise BoardlabError(f"no weights file {args.weights}")
        check_weights(weights, game)
        opponent = level_spec(args.opponent, game)
        make_agent(opponent, game=game.id).check(game)
        points, notes = points_of(weights, folder / "untrained.npz")
        untrained_weights(game, points[0].path)
        os.chdir(ROOT)  # the weights' paths in the specs are the repository's
        for note in notes:
            print(f"{weights.name}: {note}", flush=True)
        saved: dict[str, Any] = {
            "command": command,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "cores": os.cpu_count(),
            "game": described(game),
            "weights": shown_path(weights),
            "agent": f"az:weights=FILE,iterations={args.iterations}",
            "opponent": args.opponent,
            "opponent_spec": opponent,
            "pairs": args.pairs,
            "openings": args.openings,
            "openings_described": openings_words(args),
            "seed": args.seed,
            "notes": notes,
            "points": [],
        }
        for point in points:
            row = measure(point, game, args, folder)
            if row is not None:
                saved["points"].append(row)
            write_atomic(out, json.dumps(saved, indent=1, ensure_ascii=False) + "\n")
            write_markdown(saved, out.with_suffix(".md"))
        plot(saved, out.with_suffix(".png"))
    except BoardlabError as error:
        raise SystemExit(str(error)) from None
    print(f"written: {out}, {out.with_suffix('.md')}, {out.with_suffix('.png')}")


def openings_words(args: argparse.Namespace) -> str:
    """How each point's games start, in words."""
    if not args.openings:
        return f"{2 * args.pairs} games from the start, seats alternating"
    return (
        f"{2 * args.pairs} games from {args.pairs} openings of {args.openings} random actions, "
        "each played with both seats"
    )


if __name__ == "__main__":
    main()
