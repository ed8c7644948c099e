"""``boardlab accuracy``: each level's moves measured against perfect play, in a game
with a solver, over positions from real games."""

from __future__ import annotations

import argparse
from pathlib import Path

from boardlab.cli.common import (
    SEED,
    Commands,
    agent_help,
    command,
    game_of,
    option_flag,
    progress_bar,
    within,
)
from boardlab.core.errors import BoardlabError
from boardlab.core.i18n import _, pgettext


def add(commands: Commands) -> argparse.ArgumentParser:
    accuracy = command(
        commands,
        "accuracy",
        _(
            "each level's value lost against perfect play, its share of optimal moves and "
            "its accuracy, over positions from real games of a game with a solver"
        ),
    )
    accuracy.add_argument("levels", nargs="+", metavar="LEVEL", help=agent_help())
    option_flag(accuracy)
    accuracy.add_argument(
        "--positions",
        type=within(int, 1, 100_000),
        default=200,
        metavar="N",
        help=_("positions drawn from the games (default 200)"),
    )
    accuracy.add_argument("--seed", type=SEED, default=0, metavar="S")
    accuracy.add_argument(
        "--played-by",
        default="beginner,easy,medium",
        metavar="LEVELS",
        help=_(
            "the levels whose games (every pair, each against itself too) the positions "
            "come from, separated by commas (default beginner,easy,medium)"
        ),
    )
    accuracy.add_argument(
        "--results",
        metavar="FILE",
        help=_(
            "write the positions and every move judged to FILE (JSON) as each level ends; "
            "the same command and file resume a stopped run"
        ),
    )
    accuracy.add_argument(
        "--plot", metavar="FILE", help=_("draw the value lost by stage to FILE (.svg, .png, .pdf)")
    )
    return accuracy


def run(args: argparse.Namespace) -> int:
    from boardlab.arena.accuracy import PLOT_FORMATS, STAGES, measure, plot, summarize

    game = game_of(args)
    levels = list(dict.fromkeys(args.levels))
    played_by = [name.strip() for name in args.played_by.split(",") if name.strip()]
    if not played_by:
        raise BoardlabError(
            _("bad --played-by {text!r}: expected levels separated by commas").format(
                text=args.played_by
            )
        )
    results = Path(args.results) if args.results else None
    if args.plot and Path(args.plot).suffix.lower() not in PLOT_FORMATS:
        raise BoardlabError(
            _("bad --plot {path!r}: expected a file ending in {formats}").format(
                path=args.plot, formats=", ".join(PLOT_FORMATS)
            )
        )
    label = _("{game} against perfect play").format(game=game.name)
    with progress_bar(label, pgettext("unit", "positions")) as update:
        study = measure(game, levels, args.positions, args.seed, played_by, results, update)
    stages = [sum(s.stage == k for s in study.samples) for k in range(len(STAGES))]
    print(
        _(
            "{game}: {positions} positions ({stages} early/middle/late) from {games} games "
            "of {played_by}, seed {seed}"
        ).format(
            game=game.name,
            positions=len(study.samples),
            stages="/".join(map(str, stages)),
            games=len({s.game for s in study.samples}),
            played_by=", ".join(played_by),
            seed=args.seed,
        )
    )
    heads = (
        pgettext("column", "level"),
        pgettext("column", "mean loss"),
        pgettext("column", "optimal"),
        pgettext("column", "accuracy"),
    )
    width = max(len(heads[0]), *(len(level) for level in levels))
    loss_w, optimal_w, accuracy_w = (max(8, len(head)) for head in heads[1:])
    print(
        f"{heads[0]:<{width}}  {heads[1]:>{loss_w}}  {'95%':>13}  {heads[2]:>{optimal_w}}  "
        f"{'95%':>13}  {heads[3]:>{accuracy_w}}"
    )
    for level in levels:
        row = summarize(level, study.judged[level])
        print(
            f"{level:<{width}}  {row.mean_loss:>{loss_w}.3f}  "
            f"{f'{row.loss_low:.3f}–{row.loss_high:.3f}':>13}  {row.optimal:>{optimal_w}.1%}  "
            f"{f'{row.optimal_low:.1%}–{row.optimal_high:.1%}':>13}  "
            f"{f'{row.accuracy:.1f}%':>{accuracy_w}}"
        )
    if results is not None:
        print(_("results: {path}").format(path=results))
    if args.plot:
        print(_("plot: {path}").format(path=plot(study, levels, Path(args.plot))))
    return 0
