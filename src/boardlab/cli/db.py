"""``boardlab db``: the web app's database schema, upgraded or reported."""

from __future__ import annotations

import argparse

from boardlab.cli.common import Commands
from boardlab.core.i18n import _
from boardlab.extras import require


def add(commands: Commands) -> argparse.ArgumentParser:
    db = commands.add_parser(
        "db",
        help=_("the web app's database: its schema"),
        description=_(
            "upgrade brings the database's schema to the newest (boardlab serve does it "
            "before its processes start); status says where it stands."
        ),
    )
    db.add_argument("action", choices=["upgrade", "status"])
    db.add_argument("--db", metavar="URL", help=_("an SQLAlchemy database URL"))
    return db


def run(args: argparse.Namespace) -> int:
    require("web", "boardlab db")
    from boardlab.web.store import Store, default_url, migrate, safe_url, schema_of

    url = args.db or default_url()
    store = Store(url, upgrade=None)
    try:
        if args.action == "upgrade":
            before, after = migrate(store.engine)
            message = (
                _("{url}: schema {schema}, the newest")
                if before == after
                else _("{url}: schema {before} upgraded to {schema}")
            )
            print(message.format(url=safe_url(url), before=before or "none", schema=after))
        else:
            current, newest = schema_of(store.engine)
            message = (
                _("{url}: schema {schema}, the newest")
                if current == newest
                else _("{url}: schema {current}; the newest is {schema}: boardlab db upgrade")
            )
            print(message.format(url=safe_url(url), current=current or "none", schema=newest))
    finally:
        store.engine.dispose()
    return 0
