"""``boardlab engine``: an agent speaking UGI on standard input and output."""

from __future__ import annotations

import argparse
import sys
import threading

from boardlab.cli.common import Commands, agent_help, command, game_of, option_flag
from boardlab.core.i18n import _


def add(commands: Commands) -> argparse.ArgumentParser:
    agents = agent_help()
    engine = command(
        commands, "engine", _("be an engine speaking UGI on standard input and output")
    )
    option_flag(engine)
    engine.add_argument(
        "--agent",
        default="medium",
        metavar="SPEC",
        help=_("{agents} (default: medium); also setoption name agent value SPEC").format(
            agents=agents
        ),
    )
    return engine


def run(args: argparse.Namespace) -> int:
    from boardlab.arena.ugi import serve

    lock = threading.Lock()

    def write(line: str) -> None:  # the search thread writes too
        with lock:
            print(line, flush=True)

    serve(game_of(args), args.agent, sys.stdin, write)
    return 0
