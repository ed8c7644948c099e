"""``boardlab accounts``: the host's word on accounts: which are admins (web.admin)."""

from __future__ import annotations

import argparse

from boardlab.cli.common import Commands
from boardlab.core.errors import BoardlabError
from boardlab.core.i18n import _
from boardlab.extras import require


def add(commands: Commands) -> argparse.ArgumentParser:
    accounts = commands.add_parser(
        "accounts",
        help=_("the server's admins: the accounts that may build its tables"),
        description=_(
            "admin NAME makes an account an admin (it may build the solvers' tables on the "
            "page /admin); admin NAME --revoke makes it an account like any other; admins "
            "lists them."
        ),
    )
    accounts.add_argument("action", choices=["admin", "admins"])
    accounts.add_argument("name", nargs="?", metavar="NAME", help=_("the account's name"))
    accounts.add_argument(
        "--revoke", action="store_true", help=_("no longer an admin (with admin NAME)")
    )
    accounts.add_argument("--db", metavar="URL", help=_("an SQLAlchemy database URL"))
    return accounts


def run(args: argparse.Namespace) -> int:
    require("web", "boardlab accounts")
    from boardlab.web.admin import AdminStore
    from boardlab.web.store import Store, default_url

    store = Store(args.db or default_url(), upgrade=False)  # a schema not current: said
    try:
        admins = AdminStore(store)
        if args.action == "admins":
            for name in admins.names():
                print(name)
            return 0
        if not args.name:
            raise BoardlabError(
                _("boardlab accounts admin: name the account, e.g. boardlab accounts admin NAME")
            )
        name = admins.mark(args.name, not args.revoke)
        message = _("{name} is no longer an admin") if args.revoke else _("{name} is an admin")
        print(message.format(name=name))
    finally:
        store.engine.dispose()
    return 0
