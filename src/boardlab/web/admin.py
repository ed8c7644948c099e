"""Admins: accounts the host trusts with the server's own work (building the solvers'
tables on ``/admin``). Only the host makes one, on the server's machine and database
(``boardlab accounts admin NAME``): no page or request makes an account an admin, and
a bot never is one. The mark is the column ``admin`` of ``accounts`` (migration 0012).
"""

from __future__ import annotations

from sqlalchemy import select, update

from boardlab.core.i18n import _
from boardlab.web.accounts import name_key
from boardlab.web.data import RequestError
from boardlab.web.store import AccountRow, Store


class AdminStore:
    """Who is an admin in one database; each method one transaction (synchronous:
    called in a thread)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def mark(self, name: str, admin: bool = True) -> str:
        """Make the account ``name`` (any case) an admin, or no longer one; its name as
        it is written. A bot, or a name no account has, is refused."""
        with self.store.session() as session:
            row = session.scalar(select(AccountRow).where(AccountRow.key == name_key(name)))
            if row is None:
                raise RequestError(_("there is no account named {name!r}").format(name=name[:40]))
            if row.bot and admin:
                raise RequestError(
                    _("{name} is a bot: a bot cannot be an admin").format(name=row.name)
                )
            session.execute(update(AccountRow).where(AccountRow.id == row.id).values(admin=admin))
            return row.name

    def names(self) -> list[str]:
        """The admins' names, in order."""
        with self.store.reading() as session:
            return sorted(session.scalars(select(AccountRow.name).where(AccountRow.admin)))

    def is_admin(self, account_id: int) -> bool:
        with self.store.reading() as session:
            return bool(session.scalar(select(AccountRow.admin).where(AccountRow.id == account_id)))
