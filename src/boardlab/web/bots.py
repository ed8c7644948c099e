"""Bots: accounts played by programs (``boardlab connect``), each acting with an API
token instead of a password and a session (docs/web.md, *Bots*).

A host makes a bot (``boardlab bots add NAME``): a new account marked ``bot``, which
has no password that signs in, and its first token. A token is 32 random bytes, shown
once; the database keeps its SHA-256 only, as it keeps sessions, and a request's token
is compared with ``hmac.compare_digest`` after its lookup by hash. An account holds at
most ``TOKENS_MOST`` tokens; the host revokes them (``boardlab bots revoke``).

A request that sends ``Authorization: Bearer TOKEN`` (``BotTokens``, before the app)
acts as the bot for the bot API only (``ALLOWED``): its account and games, its seeks
in the lobby, its challenges, the state of a game and the actions of a player, the live
socket. Its
seats are those its account holds (``Viewer.bot``), besides any secret it sends. Any
other route, a page, the password or the account's deletion, is refused (403); a bad or
revoked token is refused everywhere (401). A token sent as a session cookie is no
session: the request is a guest's.

A bot's seek is a game online waiting in the lobby, as a person's is: the bot's seat
held by its account, the other open to whoever fits its terms (``BotStore.seek``). A bot
keeps at most ``SEEKS_MOST`` open, counted with its games among the ``BOT_GAMES_MOST``
it may have at once; it withdraws one by aborting its game, as a person does. A bot
takes no seat in the lobby: a person who seeks may not want a program (lichess keeps
its lobby for people too); people find bots' seeks there, marked BOT, or challenge them.
"""

from __future__ import annotations

import asyncio
import hmac
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import delete, func, select

from boardlab.core.i18n import _
from boardlab.web.accounts import Account, check_account_name, name_key, session_key
from boardlab.web.challenges import SIDE_WORDS, Terms
from boardlab.web.clock import new_clock
from boardlab.web.data import HUMAN, NewGame, RequestError, StoredGame, rating_span
from boardlab.web.guard import REQUEST_SECONDS, RateLimit, refuse
from boardlab.web.store import AccountGameRow, AccountRow, BotTokenRow, GameRow, Store, _stored

#: Tokens an account may hold at once.
TOKENS_MOST = 5
#: Games a bot plays at once, its open seeks counted: a challenge or a seek beyond is
#: refused until one ends.
BOT_GAMES_MOST = 8
#: Seeks a bot keeps open in the lobby at once.
SEEKS_MOST = 3
#: The password hash of a bot: no password is ever hashed to it, so none signs in.
NO_PASSWORD = "!bot"
#: What a token request may ask: (method, path pattern). The live socket is ``WS``.
ALLOWED: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (method, re.compile(pattern))
    for method, pattern in (
        ("GET", r"/api/bot/account"),
        ("GET", r"/api/bot/games"),
        ("GET", r"/api/bot/seeks"),
        ("POST", r"/api/bot/seeks"),
        ("GET", r"/api/challenges(/[^/]+)?"),
        ("POST", r"/api/challenges"),
        ("POST", r"/api/challenges/[^/]+/(accept|decline|cancel)"),
        ("GET", r"/api/games/[^/]+"),
        ("POST", r"/api/games/[^/]+/(play|resign|draw|claim|abort)"),
        ("WS", r"/ws/games/[^/]+"),
    )
)


@dataclass(frozen=True)
class TokenInfo:
    """A token as the host sees it: never the token, only when it was made and the
    first characters of its hash (to name it when revoking)."""

    tag: str
    created: datetime


def new_token() -> str:
    return secrets.token_urlsafe(32)


def tag_of(key: str) -> str:
    """How a token is named: the first 8 characters of its hash."""
    return key[:8]


def allowed(method: str, path: str) -> bool:
    """Whether a bot's token may ask ``method path``."""
    return any(m == method and pattern.fullmatch(path) for m, pattern in ALLOWED)


def bearer_of(headers: Iterable[tuple[bytes, bytes]]) -> str | None:
    """The token of an ``Authorization: Bearer`` header ("" for one that names none);
    None without one (another scheme, such as a proxy's Basic, is not the app's)."""
    for name, value in headers:
        if name.lower() == b"authorization":
            scheme, _space, token = value.decode("latin-1").strip().partition(" ")
            if scheme.lower() == "bearer":
                return token.strip()
    return None


class BotStore:
    """The bots and their tokens in one database; each method one transaction
    (synchronous: called in a thread)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def add(self, name: str) -> tuple[Account, str]:
        """A new bot account and its first token; a taken name is refused."""
        name = check_account_name(name)
        with self.store.session() as session:
            taken = session.scalar(select(AccountRow.id).where(AccountRow.key == name_key(name)))
            if taken is not None:
                raise RequestError(
                    _("the name {name!r} is taken: a bot is a new account").format(name=name)
                )
            row = AccountRow(name=name, key=name_key(name), password=NO_PASSWORD, bot=True)
            session.add(row)
            session.flush()
            account = Account(row.id, row.name)
        return account, self.make_token(account)

    def find(self, name: str) -> Account:
        """The bot of ``name`` (any case), or a refusal."""
        with self.store.reading() as session:
            row = session.scalar(select(AccountRow).where(AccountRow.key == name_key(name)))
        if row is None or not row.bot:
            raise RequestError(_("there is no bot named {name!r}").format(name=name))
        return Account(row.id, row.name)

    def make_token(self, account: Account) -> str:
        """A new token of the bot (shown once: only its hash is kept)."""
        token = new_token()
        with self.store.session() as session:
            held = session.scalar(select(func.count()).where(BotTokenRow.account_id == account.id))
            if held is not None and held >= TOKENS_MOST:
                raise RequestError(
                    _("{name} has {most} tokens: revoke one first").format(
                        name=account.name, most=TOKENS_MOST
                    )
                )
            session.add(
                BotTokenRow(
                    key=session_key(token), account_id=account.id, created=datetime.now(UTC)
                )
            )
        return token

    def tokens(self, account: Account) -> list[TokenInfo]:
        with self.store.reading() as session:
            rows = session.scalars(
                select(BotTokenRow)
                .where(BotTokenRow.account_id == account.id)
                .order_by(BotTokenRow.created)
            ).all()
            return [TokenInfo(tag_of(row.key), row.created) for row in rows]

    def revoke(self, account: Account, tag: str | None) -> int:
        """Revoke the token named ``tag`` (every token for None); how many went."""
        with self.store.session() as session:
            rows = session.scalars(
                select(BotTokenRow).where(BotTokenRow.account_id == account.id)
            ).all()
            gone = [row.key for row in rows if tag is None or tag_of(row.key) == tag]
            if tag is not None and not gone:
                raise RequestError(
                    _("{name} has no token {tag!r}: see boardlab bots list").format(
                        name=account.name, tag=tag
                    )
                )
            if gone:
                session.execute(delete(BotTokenRow).where(BotTokenRow.key.in_(gone)))
            return len(gone)

    def account_of(self, token: str) -> Account | None:
        """The bot ``token`` acts for, if it is a live token of a bot."""
        if not 16 <= len(token) <= 128:
            return None
        key = session_key(token)
        with self.store.reading() as session:
            found = session.execute(
                select(BotTokenRow.key, AccountRow.id, AccountRow.name, AccountRow.bot)
                .join(AccountRow, AccountRow.id == BotTokenRow.account_id)
                .where(BotTokenRow.key == key)
            ).first()
        if found is None or not hmac.compare_digest(found[0], key) or not found[3]:
            return None
        return Account(found[1], found[2])

    def open_games(self, account_id: int) -> list[tuple[str, bool]]:
        """The games not over whose seat the bot's account holds, the oldest first, each
        with whether it still waits in the lobby for an opponent (a seek)."""
        with self.store.reading() as session:  # (a game of seats held is the accounts')
            rows = session.execute(
                select(GameRow.id, GameRow.seat_accounts, GameRow.open_seat)
                .join(AccountGameRow, AccountGameRow.game_id == GameRow.id)
                .where(AccountGameRow.account_id == account_id)
                .where(GameRow.ending.is_(None), GameRow.result == "*")
                .order_by(GameRow.created)
            ).all()
        return [
            (ident, waits is not None) for ident, held, waits in rows if held and account_id in held
        ]

    def games_in_progress(self, account_id: int) -> list[str]:
        """The games the bot plays now (both seats taken), the oldest first."""
        return [ident for ident, waits in self.open_games(account_id) if not waits]

    def seeks(self, account_id: int) -> list[StoredGame]:
        """The bot's seeks still waiting in the lobby, the oldest first."""
        waiting = [ident for ident, waits in self.open_games(account_id) if waits]
        if not waiting:
            return []
        with self.store.reading() as session:
            rows = session.scalars(
                select(GameRow).where(GameRow.id.in_(waiting)).order_by(GameRow.created)
            ).all()
            return [_stored(row, ()) for row in rows]

    def seek(
        self, account: Account, terms: Terms, width: int | None, key: str, owner: str
    ) -> StoredGame:
        """A new seek of the bot's in the lobby: a game online on ``terms``, the bot's
        seat held by its account and by the secret whose hash is ``key``, the other open
        to anyone (rated within ``width`` either side of the bot's rating at the game, if
        given). Refused past ``SEEKS_MOST`` open seeks or ``BOT_GAMES_MOST`` games and
        seeks, counted in the transaction that makes it (the bot's account locked: two
        requests at once do not both pass)."""
        with self.store.session() as session:
            session.get(AccountRow, account.id, with_for_update=True)
            held = session.execute(
                select(GameRow.open_seat, GameRow.seat_accounts)
                .join(AccountGameRow, AccountGameRow.game_id == GameRow.id)
                .where(AccountGameRow.account_id == account.id)
                .where(GameRow.ending.is_(None), GameRow.result == "*")
            ).all()
            mine = [waits for waits, seats in held if seats and account.id in seats]
            if sum(waits is not None for waits in mine) >= SEEKS_MOST:
                raise RequestError(
                    _("{name} has {most} seeks open: cancel one first (abort its game)").format(
                        name=account.name, most=SEEKS_MOST
                    )
                )
            if len(mine) >= BOT_GAMES_MOST:
                raise too_busy(account)
            side = int(terms.side) if terms.side != "random" else secrets.randbelow(2)
            keys: list[str | None] = [None, None]
            keys[side] = key
            accounts: list[int | None] = [None, None]
            accounts[side] = account.id
            names: list[str | None] = [None, None]
            names[side] = account.name
            span = None
            if width is not None:
                span = rating_span(Store._rating_at(session, account.id, terms.game), width)
            game_id = Store.add_game(
                session,
                NewGame(
                    terms.game,
                    dict(terms.options),
                    [HUMAN, HUMAN],
                    owner,
                    seat_keys=keys,
                    open_seat=1 - side,
                    listed=True,
                    clock=None if terms.clock is None else new_clock(*terms.clock),
                    names=names,
                    accounts=accounts,
                    rated=terms.rated,
                    rating_range=span,
                ),
            )
            return _stored(session.get_one(GameRow, game_id), ())

    def listing(self) -> list[tuple[str, list[str]]]:
        """Every bot's name and its tokens' tags."""
        with self.store.reading() as session:
            rows = session.execute(
                select(AccountRow.id, AccountRow.name)
                .where(AccountRow.bot)
                .order_by(AccountRow.key)
            ).all()
        return [(name, [t.tag for t in self.tokens(Account(ident, name))]) for ident, name in rows]

    def bots_among(self, ids: list[int]) -> set[int]:
        """Which of these accounts are bots (profiles and leaderboards mark them)."""
        if not ids:
            return set()
        with self.store.reading() as session:
            return set(
                session.scalars(
                    select(AccountRow.id).where(AccountRow.id.in_(ids), AccountRow.bot)
                ).all()
            )


def too_busy(account: Account) -> RequestError:
    return RequestError(
        _("{name} plays {most} games at once already (its seeks counted): try again later").format(
            name=account.name, most=BOT_GAMES_MOST
        )
    )


def seek_json(stored: StoredGame) -> dict[str, Any]:
    """A bot's seek as the bot API answers it (never a secret)."""
    running = stored.clock
    waits = stored.open_seat if stored.open_seat is not None else 0
    return {
        "id": stored.id,
        "game": stored.game,
        "options": dict(stored.options),
        "clock": None if running is None else f"{running['base'] // 60}+{running['increment']}",
        "rated": stored.rated,
        "range": None if stored.rating_range is None else list(stored.rating_range),
        "side": SIDE_WORDS[str(1 - waits)],
        "url": f"/play/{stored.id}",
    }


def level_bot(bots: BotStore, level: str) -> tuple[str, str]:
    """The name of the bot that plays a built-in level (``LEVEL-bot``, made if missing)
    and a fresh token of it (its older ones revoked: the last ``boardlab bots offer``
    plays it)."""
    name = f"{level}-bot"
    try:
        account = bots.find(name)
    except RequestError:
        return name, bots.add(name)[1]
    bots.revoke(account, None)
    return name, bots.make_token(account)


class Bots:
    """The bots of a site, asked off the event loop; None on a server without accounts
    (``--db memory:``), where no token acts."""

    def __init__(self, store: Any, requests: int) -> None:
        self.kept = BotStore(store) if isinstance(store, Store) else None
        #: a bot's tokens count as one client of ``Limits.requests``, from any address
        self.requests = RateLimit(requests, REQUEST_SECONDS)

    async def account_of(self, token: str) -> Account | None:
        if self.kept is None:
            return None
        return await asyncio.to_thread(self.kept.account_of, token)

    def _kept(self) -> BotStore:
        if self.kept is None:
            raise RequestError(
                _("this server keeps no accounts, so no bots: it runs with --db memory:")
            )
        return self.kept

    async def games_in_progress(self, account: Account) -> list[str]:
        if self.kept is None:
            return []
        return await asyncio.to_thread(self.kept.games_in_progress, account.id)

    async def check_room(self, account: Account) -> None:
        """Refuse a new game to a bot that plays ``BOT_GAMES_MOST`` already (its open
        seeks counted)."""
        if self.kept is None:
            return
        if len(await asyncio.to_thread(self.kept.open_games, account.id)) >= BOT_GAMES_MOST:
            raise too_busy(account)

    async def seeks(self, account: Account) -> list[StoredGame]:
        return await asyncio.to_thread(self._kept().seeks, account.id)

    async def seek(
        self, account: Account, terms: Terms, width: int | None, key: str, owner: str
    ) -> StoredGame:
        return await asyncio.to_thread(self._kept().seek, account, terms, width, key, owner)

    async def bots_among(self, ids: list[int]) -> set[int]:
        if self.kept is None:
            return set()
        return await asyncio.to_thread(self.kept.bots_among, ids)


class BotTokens:
    """A request with a bot's token: refused (401) unless the token is a live one,
    refused (403) on any route but the bot API's, over the bot's share of requests 429; else it
    goes on as the bot (``scope["state"]``: ``account`` and ``bot``)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        kind = scope["type"]
        token = bearer_of(scope.get("headers", ())) if kind in ("http", "websocket") else None
        if token is None:
            await self.app(scope, receive, send)
            return
        bots: Bots = scope["app"].state.bots
        method = "WS" if kind == "websocket" else scope["method"]
        path = scope["path"]
        account = await bots.account_of(token) if token else None
        status, message, retry = 0, "", {}
        if account is None:
            status = 401
            message = _("this token acts for no bot: it is not one, or it was revoked")
        elif not allowed(method, path):
            status = 403
            message = _(
                "a bot's token acts only on the bot API ({path} is not part of it): "
                "see docs/web.md, Bots"
            ).format(path=path[:80])
        elif not bots.requests.allow(str(account.id)):
            status, retry = 429, {"Retry-After": str(int(REQUEST_SECONDS))}
            message = _("too many requests from this bot: at most {most} in {seconds} seconds")
            message = message.format(most=bots.requests.most, seconds=int(REQUEST_SECONDS))
        if status:
            if kind == "websocket":
                await send({"type": "websocket.close", "code": 1008})
            else:
                await refuse(scope, send, status, message, **retry)
            return
        assert account is not None
        state = scope.setdefault("state", {})
        state["account"], state["bot"] = account, account.id
        await self.app(scope, receive, send)
