"""``boardlab study``: a game's rule variants compared by self-play, with a report."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from boardlab.cli.common import (
    SEED,
    Commands,
    agent_help,
    backend_of,
    column,
    command,
    option_flag,
    parallel,
    progress_bar,
    within,
)
from boardlab.core.i18n import _, pgettext
from boardlab.core.registry import game_class
from boardlab.extras import MissingExtraError


def add(commands: Commands) -> argparse.ArgumentParser:
    agents = agent_help()
    study = command(commands, "study", _("compare the game's rule variants by self-play"))
    study.epilog = _(
        "With no --vary the study compares every combination of the options that change "
        "how the game plays and have few values (see `boardlab rules GAME`); numbers are "
        "named, like --vary pits=3..6. Games are cached in OUT/games.jsonl: the same "
        "command with more --games plays only the games missing."
    )
    study.add_argument(
        "--vary",
        action="append",
        default=[],
        metavar="NAME[=VALUES]",
        help=_("an option to vary (repeatable): NAME for every value, NAME=A,B or NAME=LOW..HIGH"),
    )
    option_flag(study)
    study.add_argument(
        "--agent",
        default="medium",
        metavar="SPEC",
        help=_("who plays: {agents}").format(agents=agents),
    )
    study.add_argument(
        "--games",
        "-n",
        type=within(int, 1, 10**6),
        default=100,
        metavar="N",
        help=_("self-play games per variant (default 100)"),
    )
    study.add_argument("--seed", type=SEED, default=0, metavar="S")
    study.add_argument(
        "--out",
        metavar="DIR",
        help=_("the folder for the report and the cache (default: study-GAME)"),
    )
    parallel(study)
    return study


def run(args: argparse.Namespace) -> int:
    from boardlab.arena.study import Study, default_vary, read_vary, variants
    from boardlab.arena.study_report import write_report, write_tables

    cls = game_class(args.game)
    fixed = cls.schema.parse_assignments(args.option, cls.id)
    varied = read_vary(cls.id, args.vary) if args.vary else default_vary(cls.id, fixed)
    games = variants(cls.id, fixed, varied)
    folder = Path(args.out or f"study-{cls.id}")
    study = Study(
        cls.id, games, args.agent, args.games, args.seed, folder / "games.jsonl", tuple(varied)
    )
    print(
        _("{game}: {variants} variants, {games} games each by {agent}").format(
            game=cls.name, variants=len(games), games=args.games, agent=args.agent
        )
    )
    label = _("{game} study").format(game=cls.name)
    with progress_bar(label, pgettext("unit", "games")) as update, backend_of(args) as backend:
        rows = study.run(backend, lambda done, total: update(done, total))
    _print_study(rows)
    fixed_words = [f"{k}={cls.schema.get(k).format(v)}" for k, v in fixed.items()]
    varied_words = [
        f"{k}={','.join(cls.schema.get(k).format(v) for v in values)}"
        for k, values in varied.items()
    ]
    command = ["boardlab study", cls.id, "--agent", args.agent, "--games", str(args.games)]
    command += ["--seed", str(args.seed), *(f"--vary {w}" for w in varied_words)]
    command += [*(f"-o {w}" for w in fixed_words), "--out", str(folder)]
    settings = {
        "game": cls.id,
        "agent": args.agent,
        "games": args.games,
        "seed": args.seed,
        "fixed": " ".join(fixed_words) or "none",
        "varied": " ".join(varied_words) or "none",
        "command": " ".join(command),
    }
    for path in write_tables(rows, settings, folder):
        print(_("table: {path}").format(path=path))
    try:
        print(_("report: {path}").format(path=write_report(games[0], rows, settings, folder)))
    except MissingExtraError as missing:
        print(_("no report.html: {reason}").format(reason=missing))
    return 0


def _print_study(rows: Sequence[Any]) -> None:
    """The study's table; a column as wide as its heading in the current language needs."""
    names = ("variant", "games", "first", "95%", "exact", "draws", "length", "leads", "branch")
    least = (max(len(r.label) for r in rows), 5, 6, 13, 5, 6, 6, 5, 6)
    headings = [name if name == "95%" else column(name) for name in names]
    w = [max(n, len(heading)) for n, heading in zip(least, headings, strict=True)]
    w[0] = least[0]  # the labels' width, as it always was
    print("  ".join(h.ljust(w[0]) if k == 0 else h.rjust(w[k]) for k, h in enumerate(headings)))
    for row in rows:
        data = row.row()
        exact = "" if row.exact is None else f"{row.exact:+d}"
        interval = f"{data['first_score_low']:>6.3f}-{data['first_score_high']:<6.3f}"
        print(
            f"{row.label:<{w[0]}}  {row.games:>{w[1]}}  {row.first_score:>{w[2]}.3f}  "
            f"{interval:>{w[3]}}  {exact:>{w[4]}}  {row.draw_rate:>{w[5]}.1%}  "
            f"{data['length_median']:>{w[6]}g}  {row.lead_changes:>{w[7]}.2f}  "
            f"{row.branching:>{w[8]}.1f}"
        )
