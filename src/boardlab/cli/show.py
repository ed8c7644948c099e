"""``boardlab show``: the board of a position, its string and its legal actions."""

from __future__ import annotations

import argparse

from boardlab.cli.common import Commands, command, game_of, position_of, with_options
from boardlab.core.i18n import _


def add(commands: Commands) -> argparse.ArgumentParser:
    show = command(commands, "show", _("draw the board of a position"))
    with_options(show)
    return show


def run(args: argparse.Namespace) -> int:
    position = position_of(game_of(args), args)
    print(position.board())
    print(position.position_string())
    if not position.is_over():
        print(_("legal: {actions}").format(actions=" ".join(position.legal_action_strings())))
    return 0
