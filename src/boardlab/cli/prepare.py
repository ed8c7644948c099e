"""``boardlab prepare``: every AI level compiled before a server's first players wait."""

from __future__ import annotations

import argparse

from boardlab.cli.common import Commands
from boardlab.core.i18n import _


def add(commands: Commands) -> argparse.ArgumentParser:
    return commands.add_parser(
        "prepare",
        help=_("compile what every AI level needs, before a server's first players wait"),
        description=_(
            "Compile and load the AI's searches and the solvers' tables for every level "
            "of every game, once, into the cache on disk: a fresh install takes about a "
            "minute, later runs a second or two. make serve runs it before the server "
            "starts, so that no first move waits for it."
        ),
    )


def run(args: argparse.Namespace) -> int:
    from boardlab.extras import has
    from boardlab.web.thinking import prepare_levels

    if not has("fast"):
        print(_("nothing to prepare: without the fast extra the AI compiles nothing"))
        return 0
    prepare_levels(print, _("boardlab prepare"))
    return 0
