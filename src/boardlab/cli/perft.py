"""``boardlab perft``: the action sequences of a given length, counted."""

from __future__ import annotations

import argparse

from boardlab.cli.common import Commands, command, game_of, position_of, with_options, within
from boardlab.core.i18n import _
from boardlab.core.perft import divide
from boardlab.fast import perft_counter


def add(commands: Commands) -> argparse.ArgumentParser:
    count = command(commands, "perft", _("count the action sequences of a given length"))
    with_options(count)
    count.add_argument("--depth", "-d", type=within(int, 0, 40), required=True, metavar="N")
    count.add_argument("--divide", action="store_true", help=_("first one line per legal action"))
    count.add_argument(
        "--engine",
        choices=("auto", "python", "compiled"),
        default="auto",
        help=_(
            "count with the Python rules or the compiled kernel (auto: compiled for deep "
            "counts when numba is installed and the game has a kernel)"
        ),
    )
    return count


def run(args: argparse.Namespace) -> int:
    position = position_of(game_of(args), args)
    count = perft_counter(position.game, args.depth, args.engine)
    if args.divide and args.depth >= 1:
        rows = divide(position, args.depth, count)
        for action, number in rows:
            print(f"{action}: {number}")
        print(sum(number for _, number in rows))
    else:
        print(count(position, args.depth))
    return 0
