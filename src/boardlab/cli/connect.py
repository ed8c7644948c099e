"""``boardlab connect``: an engine program plays online as a bot (boardlab.connect)."""

from __future__ import annotations

import argparse

from boardlab.cli.common import Commands, add_seek, within
from boardlab.core.i18n import _
from boardlab.extras import require


def add(commands: Commands) -> argparse.ArgumentParser:
    connect = commands.add_parser(
        "connect",
        help=_("play online as a bot: an engine plays the bot's challenges and seeks"),
        description=_(
            "Connect an engine speaking UGI (boardlab engine is one) to a boardlab server "
            "as a bot account: it accepts the challenges of the games it plays, keeps its "
            "seeks open in the lobby, and plays its games to their end. The host makes the "
            "bot and its token with boardlab bots add. See docs/engine.md, Playing online."
        ),
    )
    connect.add_argument("url", metavar="URL", help=_("the server, e.g. http://localhost:8000"))
    connect.add_argument("--token", required=True, metavar="TOKEN", help=_("the bot's API token"))
    connect.add_argument(
        "--engine",
        required=True,
        metavar="CMD",
        help=_(
            "the engine's command; the game's id goes where it says {game}, else at its "
            "end (boardlab engine GAME takes it so)"
        ),
    )
    connect.add_argument(
        "--games",
        type=within(int, 1, 8),
        default=1,
        metavar="N",
        help=_("games played at once (default 1, at most 8)"),
    )
    connect.add_argument(
        "--accept",
        metavar="GAME,...",
        help=_("the games whose challenges it accepts (default: every game)"),
    )
    add_seek(connect)
    return connect


def run(args: argparse.Namespace) -> int:
    require("web", "boardlab connect", "websockets")
    from boardlab.connect import check_settings, connect

    accept = None if args.accept is None else args.accept.split(",")
    settings = check_settings(args.url, args.token, args.engine, args.games, accept, args.seek)
    connect(settings)
    return 0
