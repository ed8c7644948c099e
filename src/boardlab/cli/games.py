"""``boardlab games``: the games there are, one a line."""

from __future__ import annotations

import argparse

from boardlab.cli.common import Commands
from boardlab.core.i18n import _
from boardlab.core.registry import game_class, game_ids


def add(commands: Commands) -> argparse.ArgumentParser:
    return commands.add_parser("games", help=_("list the games"), description=_("List the games."))


def run(args: argparse.Namespace) -> int:
    for game_id in game_ids():
        cls = game_class(game_id)
        print(f"{game_id:<10} {cls.name}: {_(cls.summary)}")
    return 0
