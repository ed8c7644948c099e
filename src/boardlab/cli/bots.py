"""``boardlab bots``: a host's bot accounts and their API tokens (web.bots), and the
built-in levels offered as bots."""

from __future__ import annotations

import argparse
import asyncio
import functools
import shlex
import sys
from typing import TYPE_CHECKING

from boardlab.cli.common import Commands, add_seek
from boardlab.core.errors import BoardlabError
from boardlab.core.i18n import _, ngettext
from boardlab.extras import require

if TYPE_CHECKING:
    from boardlab.web.bots import BotStore


def add(commands: Commands) -> argparse.ArgumentParser:
    bots = commands.add_parser(
        "bots",
        help=_("bot accounts and their API tokens (for boardlab connect)"),
        description=_(
            "add NAME makes a bot account and prints its token (shown once); token NAME "
            "prints another; list shows the bots and their tokens' tags; revoke NAME [TAG] "
            "revokes one token, or all; offer URL LEVEL,... plays the built-in levels as "
            "bots on the server at URL (on this database), until stopped, each keeping "
            "the seeks of --seek open in the lobby."
        ),
    )
    bots.add_argument("action", choices=["add", "token", "list", "revoke", "offer"])
    bots.add_argument("words", nargs="*", metavar="ARG", help=_("NAME [TAG], or URL LEVEL,..."))
    bots.add_argument("--db", metavar="URL", help=_("an SQLAlchemy database URL"))
    add_seek(bots)
    return bots


def run(args: argparse.Namespace) -> int:
    require("web", "boardlab bots")
    from boardlab.web.bots import BotStore
    from boardlab.web.store import Store, default_url

    store = Store(args.db or default_url(), upgrade=False)  # a schema not current: said
    try:
        bots = BotStore(store)
        words = list(args.words)
        if args.action == "offer":
            return offer(bots, words, args.seek)
        if args.action == "list":
            for name, tags in bots.listing():
                print(f"{name}\t{' '.join(tags) or '-'}")
            return 0
        if not words or len(words) > (2 if args.action == "revoke" else 1):
            raise BoardlabError(
                _("boardlab bots {action}: name the bot, e.g. boardlab bots {action} NAME").format(
                    action=args.action
                )
            )
        if args.action == "add":
            _account, token = bots.add(words[0])
            print(token)
        elif args.action == "token":
            print(bots.make_token(bots.find(words[0])))
        else:
            gone = bots.revoke(bots.find(words[0]), words[1] if len(words) > 1 else None)
            print(
                ngettext("{count} token revoked", "{count} tokens revoked", gone).format(count=gone)
            )
    finally:
        store.engine.dispose()
    return 0


def offer(bots: BotStore, words: list[str], seeks: list[str]) -> int:
    """The built-in levels as bots: an account per level (``level-bot``), a fresh token,
    and ``boardlab connect`` with ``boardlab engine --agent LEVEL`` for each, keeping
    ``seeks`` open in the lobby."""
    from boardlab.ai import LEVELS
    from boardlab.connect import Bot, check_settings, read_seek
    from boardlab.web.bots import level_bot

    if len(words) != 2:
        raise BoardlabError(
            _(
                "boardlab bots offer: give the server and the levels, e.g. boardlab bots "
                "offer http://localhost:8000 beginner,hard"
            )
        )
    url, chosen = words[0], [w for w in words[1].split(",") if w]
    for level in chosen:
        if level not in LEVELS:
            raise BoardlabError(
                _("unknown level {level!r}: choose from {levels}").format(
                    level=level, levels=", ".join(LEVELS)
                )
            )
    for text in seeks:  # refused before any token is made
        read_seek(text)
    engine = f"{shlex.quote(sys.executable)} -m boardlab engine --agent"
    clients = []
    for level in chosen:
        name, token = level_bot(bots, level)
        settings = check_settings(url, token, f"{engine} {shlex.quote(level)}", 4, None, seeks)
        clients.append(Bot(settings, functools.partial(speak, name)))

    async def play() -> None:
        await asyncio.gather(*(client.run() for client in clients))

    asyncio.run(play())
    return 0


def speak(name: str, line: str) -> None:
    """A line of one of the bots ``offer`` plays, after its name."""
    print(f"{name}: {line}", flush=True)
