"""``boardlab serve``: the web app."""

from __future__ import annotations

import argparse

from boardlab.cli.common import Commands, within
from boardlab.core.i18n import _, pgettext
from boardlab.extras import require


def add(commands: Commands) -> argparse.ArgumentParser:
    serve = commands.add_parser(
        "serve",
        help=_("play in the browser: start the web app"),
        description=_(
            "Start the web app: play against the AI or a friend, review games, "
            "read the rules. Games are stored in the database (SQLite in your data directory "
            "unless --db or $BOARDLAB_DB names another)."
        ),
    )
    serve.add_argument("--host", default="127.0.0.1", help=_("address to listen on"))
    serve.add_argument(
        "--port", type=within(int, 0, 65535), default=8000, help=pgettext("network", "port")
    )
    serve.add_argument(
        "--db",
        metavar="URL",
        help=_("an SQLAlchemy database URL, or memory: (games lost when the server stops)"),
    )
    serve.add_argument(
        "--workers",
        type=within(int, 1, 64),
        default=1,
        metavar="N",
        help=_(
            "server processes sharing the address and the database (default 1; more "
            "need PostgreSQL)"
        ),
    )
    serve.add_argument(
        "--ai-workers",
        type=within(int, 1, 64),
        default=2,
        metavar="N",
        help=_("processes in which the AI searches, for each server process (default 2)"),
    )
    serve.add_argument(
        "--limit",
        action="append",
        default=[],
        metavar="NAME=N",
        help=_("a bound on what one client may do, e.g. uploads=20 (the list: docs/web.md)"),
    )
    serve.add_argument(
        "--proxy",
        metavar="ADDRESSES",
        help=_(
            "the reverse proxies in front of the server (comma-separated addresses): only "
            "their X-Forwarded-For and X-Forwarded-Proto are believed"
        ),
    )
    serve.add_argument(
        "--perfect",
        metavar="GAME,...",
        help=_(
            "offer the perfect level of these games: their solvers' tables are built in the "
            "background, one at a time, and resumed after a restart (see the page /admin)"
        ),
    )
    serve.add_argument(
        "--secure-cookies",
        action="store_true",
        help=_("mark cookies Secure: the site is reached over HTTPS only"),
    )
    return serve


def run(args: argparse.Namespace) -> int:
    require("web", "boardlab serve")
    from boardlab.web.guard import Limits
    from boardlab.web.serve import serve

    limits = Limits.parse(args.limit)
    if args.perfect:
        from boardlab.web import tables

        for game_id in [name.strip() for name in args.perfect.split(",") if name.strip()]:
            tables.want(game_id)  # a game without a table: one line naming those with one
    return serve(
        args.host,
        args.port,
        args.db,
        args.ai_workers,
        args.workers,
        limits=limits,
        proxies=args.proxy,
        secure_cookies=args.secure_cookies,
    )
