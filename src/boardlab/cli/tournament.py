"""``boardlab tournament``: every agent against every other (or a gauntlet), with ratings."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from boardlab.cli.common import (
    SEED,
    Commands,
    agent_help,
    backend_of,
    column,
    command,
    game_of,
    named,
    openings_flags,
    openings_of,
    option_flag,
    parallel,
    progress_bar,
    within,
)
from boardlab.core.errors import BoardlabError
from boardlab.core.files import games_dir, write_atomic
from boardlab.core.i18n import _, pgettext


def add(commands: Commands) -> argparse.ArgumentParser:
    agents = agent_help()
    tournament = command(commands, "tournament", _("every agent against every other, with ratings"))
    tournament.add_argument("agents", nargs="+", metavar="AGENT", help=agents)
    option_flag(tournament)
    tournament.add_argument(
        "--gauntlet",
        action="store_true",
        help=_("the first agent against each of the others only"),
    )
    tournament.add_argument(
        "--pairs",
        type=within(int, 1, 10**6),
        default=10,
        metavar="N",
        help=_("game pairs (seats swapped, same opening) per meeting (default 10)"),
    )
    openings_flags(tournament)
    parallel(tournament)
    tournament.add_argument("--seed", type=SEED, default=0, metavar="S")
    tournament.add_argument(
        "--results",
        metavar="FILE",
        help=_(
            "where each game is added as it ends; the same command and file resume a "
            "stopped tournament (default: a file named after the settings in the games folder)"
        ),
    )
    tournament.add_argument(
        "--records", metavar="FILE", help=_("write every game's record to FILE")
    )
    return tournament


def run(args: argparse.Namespace) -> int:
    from boardlab.arena.tournament import Plan, run, standings

    game = game_of(args)
    agents = tuple(args.agents)
    if len(agents) < 2 or len(set(agents)) != len(agents):
        raise BoardlabError(
            _("a tournament needs two or more different agents, got {agents}").format(
                agents=" ".join(agents)
            )
        )
    options = dict(game.options)
    openings = openings_of(game, args)
    # random openings drawn: pairs x agents (in a gauntlet x opponents), the pairs going
    # round them; the count the results files of earlier tournaments were keyed by
    drawn = max(1, args.pairs * (len(agents) - 1 if args.gauntlet else len(agents)))
    plan = Plan(
        game.id,
        options,
        agents,
        args.gauntlet,
        args.pairs,
        openings.first(drawn),
        args.seed,
    )
    path = (
        Path(args.results)
        if args.results
        else games_dir() / f"tournament-{game.id}-{plan.key()}.jsonl"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    total = len(plan.games())
    print(_("results: {path}").format(path=path))
    label = _("{game} tournament").format(game=game.name)
    with progress_bar(label, pgettext("unit", "games")) as update:

        def show(entries: list[Any]) -> None:
            rows = standings(agents, entries)[0]
            leader = ", ".join(f"{r.agent} {r.results.mean:.0%}" for r in rows[:3])
            update(len(entries), total, leader)

        with backend_of(args) as backend:
            entries = run(plan, path, progress=show, backend=backend)
    rows, fitted = standings(agents, entries)
    width = max(len(a) for a in agents)
    print(
        _("{game}: {games} games, {pairs} pairs a meeting, seed {seed}").format(
            game=game.name, games=len(entries), pairs=args.pairs, seed=args.seed
        )
    )
    print(openings.describe(len(plan.games()) // 2))
    print(
        f"{column('rank'):>4}  {column('agent'):<{width}}  {'Elo':>6}  {'95%':>5}  "
        f"{column('score'):>6}  {column('W-D-L'):>11}"
    )
    for rank, row in enumerate(rows, 1):
        won = row.results
        print(
            f"{rank:>4}  {row.agent:<{width}}  {row.rating:>+6.0f}  {row.margin:>5.0f}  "
            f"{won.mean:>6.1%}  {f'{won.wins}-{won.draws}-{won.losses}':>11}"
        )
    if fitted is not None:
        print(
            _(
                "first seat ({player}) worth {advantage:+.0f} Elo (95% ± {margin:.0f}); "
                "draw term {draw:.0f} Elo"
            ).format(
                player=named(game, 0),
                advantage=fitted.advantage,
                margin=fitted.advantage_margin,
                draw=fitted.draw_elo,
            )
        )
    if args.records:
        path = write_atomic(args.records, "\n".join(e.record for e in entries))
        print(_("records: {path}").format(path=path))
    return 0
