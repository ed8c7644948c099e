"""``boardlab rules``: a game's rules in brief and every option with its default."""

from __future__ import annotations

import argparse

from boardlab.cli.common import Commands, command, game_of, named, option_flag
from boardlab.core.i18n import _


def add(commands: Commands) -> argparse.ArgumentParser:
    rules = command(commands, "rules", _("the rules in brief and every option with its default"))
    option_flag(rules)
    return rules


def run(args: argparse.Namespace) -> int:
    game = game_of(args)
    cls = type(game)
    print(
        _("{game} ({id}), players {first} and {second}").format(
            game=cls.name, id=cls.id, first=named(game, 0), second=named(game, 1)
        )
    )
    print()
    print(game.rules_in_brief())
    print()
    print(_("Options (--option KEY=VALUE):"))
    width = max(len(o.name) for o in cls.schema)
    for option in cls.schema:
        default = _("default {value:<9} {allowed}").format(
            value=option.format(option.default), allowed=option.allowed()
        )
        print(f"  {option.name:<{width}}  {default}")
        print(f"  {'':<{width}}  {_(option.description)}")
    return 0
