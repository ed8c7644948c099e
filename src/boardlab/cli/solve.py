"""``boardlab solve``: a game solved exactly by its solver, the table kept."""

from __future__ import annotations

import argparse
from pathlib import Path

from boardlab.cli.common import Commands, command, game_of, option_flag, progress_bar, within
from boardlab.core.errors import BoardlabError
from boardlab.core.i18n import _
from boardlab.core.registry import game_class, game_ids, new_game


def add(commands: Commands) -> argparse.ArgumentParser:
    solve = command(
        commands, "solve", _("solve exactly and keep the table (games that declare a solver)")
    )
    solve.epilog = _(
        "Tables go to $BOARDLAB_TABLES, or the user data directory, unless --out names a "
        "file; an existing table is read, not built again, unless --rebuild."
    )
    option_flag(solve)
    solve.add_argument("--out", metavar="PATH", help=_("the table file"))
    solve.add_argument(
        "--max-seeds",
        type=within(int, 0, 40),
        metavar="K",
        help=_("endgame tables: the most seeds in the pits of a solved position"),
    )
    solve.add_argument("--rebuild", action="store_true", help=_("build even if the table exists"))
    solve.add_argument("--verify", action="store_true", help=_("check the table's checksum"))
    solve.add_argument(
        "--start",
        action="store_true",
        help=_("also solve the start above the endgame table and write a certificate"),
    )
    solve.add_argument("--certificate", metavar="FILE", help=_("where --start writes it"))
    solve.add_argument(
        "--check",
        metavar="FILE",
        help=_("check a certificate (with the table its leaves need)"),
    )
    return solve


def run(args: argparse.Namespace) -> int:
    from boardlab.solve import SolveRequest, solver_class

    game = game_of(args)
    solver = solver_class(game)
    if solver is None:
        solved = [game_id for game_id in game_ids() if game_class(game_id).solver is not None]
        raise BoardlabError(
            _("{game} has no solver: boardlab solves {games}").format(
                game=game.name, games=", ".join(solved)
            )
        )
    if args.max_seeds is not None and not solver.sized:
        sized = [
            game_id
            for game_id in game_ids()
            if (found := solver_class(new_game(game_id))) is not None and found.sized
        ]
        raise BoardlabError(
            _("--max-seeds is for endgame tables ({games}): {game} is solved whole").format(
                games=", ".join(sized), game=game.name
            )
        )
    if (args.start or args.check or args.certificate) and not solver.proves_start:
        raise BoardlabError(
            _(
                "--start, --certificate and --check are for solvers above an endgame table: "
                "{game} is solved whole"
            ).format(game=game.name)
        )
    request = SolveRequest(
        Path(args.out) if args.out else None,
        args.rebuild,
        args.verify,
        args.max_seeds,
        args.start,
        Path(args.certificate) if args.certificate else None,
        Path(args.check) if args.check else None,
    )
    for line in solver.solve(game, request, progress_bar):
        print(line)
    return 0
