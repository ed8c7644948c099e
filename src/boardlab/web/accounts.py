"""Players' accounts: sign up with a name and a password, sign in and out, change the
password, delete the account; the server-side sessions that say who a browser is; a
guest's games moving to the account the browser signs up or in to.

Passwords are hashed with argon2id (``argon2-cffi``, the ``web`` extra), off the event
loop and a few at a time (``Hasher``): a flood of sign-ins waits its turn and holds up
nothing else. Sessions are random ids kept by the browser in an HttpOnly cookie and by
the database as their SHA-256 only; a sign-in always makes a new one (a session id set
before it is never kept). Failed sign-ins are counted per name and per address
(``Throttle``), and every refusal of a sign-in says the same words after the same work,
whether the name exists or not.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import re
import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from sqlalchemy import delete, insert, literal, or_, select, update
from sqlalchemy.exc import IntegrityError

from boardlab.core.errors import BoardlabError
from boardlab.core.i18n import _
from boardlab.extras import MissingExtraError
from boardlab.web.data import (
    DELETED_NAME,
    PROVISIONAL,
    RequestError,
    StoredGame,
    shown_rating,
)
from boardlab.web.store import (
    AccountGameRow,
    AccountRow,
    BotTokenRow,
    ChallengeRow,
    GameRow,
    PuzzlePlayerRow,
    RatingHistoryRow,
    RatingRow,
    SessionRow,
    Store,
    _stored,
)

#: A name: 3 to 20 letters (a-z, A-Z), digits, ``_`` or ``-``, beginning with a letter
#: or a digit; unique whatever its case (``Ana`` and ``ana`` are one name).
NAME_MIN, NAME_MAX = 3, 20
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
#: A password: at least 8 characters, at most 256 bytes (UTF-8) before it is hashed.
PASSWORD_MIN, PASSWORD_MAX = 8, 256
#: How long a session lasts after the browser was last seen with it.
SESSION_DAYS = 30
#: A session's last-seen time is written at most this often (a write per request would
#: cost every signed-in page a transaction).
SEEN_SECONDS = 300
#: Failed sign-ins counted in ``FAILURE_SECONDS``: per name, and per address; past
#: either the sign-in is refused with 429 until the oldest failure is that old.
NAME_FAILURES, ADDRESS_FAILURES, FAILURE_SECONDS = 5, 20, 900.0
#: Games a profile shows on a page.
PROFILE_GAMES = 20
#: New accounts per address in an hour.
SIGN_UPS, SIGN_UP_SECONDS = 10, 3600.0
#: Passwords hashed or checked at once by a server process (each ~70 ms and 19 MiB).
HASHING_AT_ONCE = 2
#: The cookie of the session id.
SESSION_COOKIE = "boardlab_session"
#: The argon2id cost: RFC 9106's second choice as OWASP gives it (19 MiB, 2 passes,
#: 1 lane): about 70 ms on this project's machine.
MEMORY_KIB, PASSES, LANES = 19456, 2, 1

T = TypeVar("T")


class SignInRefused(BoardlabError):
    """A name and password that do not sign in: the same words whether the name exists
    or not."""


class NotSignedIn(BoardlabError):
    """A request that needs an account, from a browser that is signed in to none."""


class Throttled(BoardlabError):
    """Too many failed sign-ins (or new accounts) for a name or an address: try again
    after ``retry`` seconds."""

    def __init__(self, message: str, retry: int) -> None:
        super().__init__(message)
        self.retry = retry


@dataclass(frozen=True)
class Account:
    """Who a signed-in browser is."""

    id: int
    name: str
    #: a bot (web/bots.py): marked BOT on its profile and the leaderboards
    bot: bool = False


@dataclass(frozen=True)
class Standing:
    """An account's rating at one game, as profiles and leaderboards show it."""

    name: str
    game: str
    rating: float
    deviation: float
    games: int
    bot: bool = False

    @property
    def provisional(self) -> bool:
        return self.deviation > PROVISIONAL

    @property
    def shown(self) -> str:
        return shown_rating(self.rating, self.deviation)


@dataclass(frozen=True)
class Profile:
    """What a player's page shows: ratings, their history per game, games played."""

    account: Account
    ratings: list[Standing]
    history: dict[str, list[float]]
    games: list[StoredGame]
    #: the names of the accounts that held the games' seats, by id
    names: dict[int, str]
    #: the page of games shown (0 the latest) and whether older ones follow
    page: int = 0
    more: bool = False


# ---------------------------------------------------------------------- the rules
def check_account_name(text: Any) -> str:
    """A new account's name as typed, or a refusal that quotes it and says what is
    valid."""
    name = text.strip() if isinstance(text, str) else ""
    if NAME_MIN <= len(name) <= NAME_MAX and NAME_PATTERN.fullmatch(name):
        return name
    raise RequestError(
        _(
            "bad name {name!r}: a name is {least} to {most} letters (a-z), digits, _ or -, "
            "beginning with a letter or a digit"
        ).format(name=str(text)[:40], least=NAME_MIN, most=NAME_MAX)
    )


def check_password(text: Any) -> str:
    """A new password, or a refusal saying what is valid (never quoting it)."""
    password = text if isinstance(text, str) else ""
    size = len(password.encode())
    if len(password) >= PASSWORD_MIN and size <= PASSWORD_MAX:
        return password
    raise RequestError(
        _(
            "this password is {count} characters ({size} bytes) long: a password is at "
            "least {least} characters and at most {most} bytes"
        ).format(count=len(password), size=size, least=PASSWORD_MIN, most=PASSWORD_MAX)
    )


def name_key(name: str) -> str:
    """What makes two names one: their lower case. A text no account can be named (a
    NUL, which PostgreSQL refuses in text; a page of text) has the key ``""``, which no
    account has: a lookup of it finds nobody, and the database is asked nothing odd."""
    stripped = name.strip()
    if NAME_MIN <= len(stripped) <= NAME_MAX and NAME_PATTERN.fullmatch(stripped):
        return stripped.lower()
    return ""


def session_key(token: str) -> str:
    """What the database keeps of a session id: its SHA-256."""
    return hashlib.sha256(token.encode()).hexdigest()


# ---------------------------------------------------------------------- hashing
class Hasher:
    """argon2id, in threads beside the event loop, at most ``HASHING_AT_ONCE`` at a
    time per process."""

    def __init__(self, at_once: int = HASHING_AT_ONCE) -> None:
        self.at_once = at_once
        self._gate: asyncio.Semaphore | None = None
        self._hasher: Any = None
        self._dummy = ""
        #: hashes running now and the most seen at once (for the tests)
        self.running = self.most_running = 0

    def _argon2(self) -> Any:
        if self._hasher is None:
            try:
                from argon2 import PasswordHasher
            except ImportError as error:
                raise MissingExtraError(_("signing in"), "web", "argon2-cffi") from error
            self._hasher = PasswordHasher(
                time_cost=PASSES, memory_cost=MEMORY_KIB, parallelism=LANES
            )
            # the hash an unknown name's password is checked against: the same work
            self._dummy = self._hasher.hash(secrets.token_urlsafe(16))
        return self._hasher

    async def _run(self, work: Callable[[], T]) -> T:
        if self._gate is None:
            self._gate = asyncio.Semaphore(self.at_once)
        async with self._gate:
            self.running += 1
            self.most_running = max(self.most_running, self.running)
            try:
                return await asyncio.to_thread(work)
            finally:
                self.running -= 1

    async def hash(self, password: str) -> str:
        return await self._run(lambda: str(self._argon2().hash(password)))

    async def verify(self, hashed: str | None, password: str) -> bool:
        """Whether ``password`` is the one ``hashed`` was made of; for None (no such
        account) the same work against a dummy hash, and False."""

        def check() -> bool:
            from argon2.exceptions import InvalidHashError, VerificationError

            hasher = self._argon2()
            try:
                right = bool(hasher.verify(hashed or self._dummy, password))
            except (VerificationError, InvalidHashError):
                right = False
            return right and hashed is not None

        return await self._run(check)


# ---------------------------------------------------------------------- throttling
class Throttle:
    """Failures counted per key in a sliding window, kept in this process (as the other
    limits: docs/web.md)."""

    def __init__(self, most: int, seconds: float) -> None:
        self.most, self.seconds = most, seconds
        self.seen: dict[str, deque[float]] = {}

    def wait(self, key: str, now: float | None = None) -> int:
        """Seconds until ``key`` may try again (0: now)."""
        now = time.monotonic() if now is None else now
        times = self.seen.get(key)
        if not times:
            return 0
        while times and now - times[0] >= self.seconds:
            times.popleft()
        if len(times) < self.most:
            if not times:
                del self.seen[key]
            return 0
        return max(1, int(times[0] + self.seconds - now + 0.999))

    def count(self, key: str, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        self.seen.setdefault(key, deque()).append(now)
        if len(self.seen) > 10_000:  # forget the keys with nothing in the window
            for idle in [k for k, t in self.seen.items() if not t or now - t[-1] >= self.seconds]:
                del self.seen[idle]

    def forget(self, key: str) -> None:
        self.seen.pop(key, None)


# ---------------------------------------------------------------------- the database
class AccountStore:
    """The accounts, sessions and account games of one database; each method one
    transaction (synchronous: called in a thread)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def create(self, name: str, password: str, browser: str) -> Account | None:
        """A new account, with the games of ``browser``; None when the name is taken."""
        try:
            with self.store.session() as session:
                row = AccountRow(name=name, key=name_key(name), password=password)
                session.add(row)
                session.flush()
                self._claim(session, row.id, browser)
                return Account(row.id, row.name)
        except IntegrityError:
            return None

    def find(self, name: str) -> tuple[Account, str] | None:
        """The account of ``name`` (any case) and its password hash."""
        with self.store.reading() as session:
            row = session.scalar(select(AccountRow).where(AccountRow.key == name_key(name)))
            return None if row is None else (Account(row.id, row.name), row.password)

    def password_of(self, account: Account) -> str | None:
        with self.store.reading() as session:
            row = session.get(AccountRow, account.id)
            return None if row is None else row.password

    def open_session(self, account: Account, browser: str, ending: str | None) -> str:
        """A new session id for ``account`` (the one ``ending`` held, if any, ended),
        and the games of ``browser`` moved to the account."""
        token = secrets.token_urlsafe(32)
        moment = datetime.now(UTC)
        with self.store.session() as session:
            if ending:  # the browser's session before, whoever's it was
                session.execute(delete(SessionRow).where(SessionRow.key == session_key(ending)))
            session.execute(delete(SessionRow).where(SessionRow.expires <= moment))
            session.add(
                SessionRow(
                    key=session_key(token),
                    account_id=account.id,
                    created=moment,
                    seen=moment,
                    expires=moment + timedelta(days=SESSION_DAYS),
                )
            )
            self._claim(session, account.id, browser)
        return token

    def account_of(self, token: str) -> Account | None:
        """Who the session id ``token`` signs in, if it is a live session."""
        if not 16 <= len(token) <= 128:
            return None
        key = session_key(token)
        moment = datetime.now(UTC)
        with self.store.reading() as session:
            found = session.execute(
                select(SessionRow.key, SessionRow.seen, SessionRow.expires, AccountRow)
                .join(AccountRow, AccountRow.id == SessionRow.account_id)
                .where(SessionRow.key == key)
            ).first()
        if found is None or not hmac.compare_digest(found[0], key):
            return None
        stored_key, seen, expires, row = found
        if aware(expires) <= moment:
            return None
        if (moment - aware(seen)).total_seconds() >= SEEN_SECONDS:
            with self.store.session() as session:
                session.execute(
                    update(SessionRow)
                    .where(SessionRow.key == stored_key)
                    .values(seen=moment, expires=moment + timedelta(days=SESSION_DAYS))
                )
        return Account(row.id, row.name)

    def close_session(self, token: str) -> None:
        with self.store.session() as session:
            session.execute(delete(SessionRow).where(SessionRow.key == session_key(token)))

    def set_password(self, account: Account, password: str, keeping: str) -> None:
        """A new password hash; every session of the account but ``keeping`` ends."""
        with self.store.session() as session:
            session.execute(
                update(AccountRow).where(AccountRow.id == account.id).values(password=password)
            )
            session.execute(
                delete(SessionRow).where(
                    SessionRow.account_id == account.id,
                    SessionRow.key != session_key(keeping),
                )
            )

    def delete(self, account: Account) -> None:
        """The account gone with its sessions; its games stay, the account's name on
        them replaced by ``DELETED_NAME``."""
        with self.store.session() as session:
            games = session.scalars(
                select(GameRow)
                .join(AccountGameRow, AccountGameRow.game_id == GameRow.id)
                .where(AccountGameRow.account_id == account.id)
            ).all()
            for game in games:
                if game.names and any(
                    n and name_key(n) == name_key(account.name) for n in game.names
                ):
                    game.names = [
                        DELETED_NAME if n and name_key(n) == name_key(account.name) else n
                        for n in game.names
                    ]
                if game.seat_accounts and account.id in game.seat_accounts:
                    # its seats held by no one now: a later account may get its id
                    game.seat_accounts = [
                        None if a == account.id else a for a in game.seat_accounts
                    ]
            kept = (
                SessionRow,
                AccountGameRow,
                RatingRow,
                RatingHistoryRow,
                PuzzlePlayerRow,
                BotTokenRow,
            )
            for table in kept:
                session.execute(delete(table).where(table.account_id == account.id))
            session.execute(  # its challenges, made and received
                delete(ChallengeRow).where(
                    or_(
                        ChallengeRow.challenger_id == account.id,
                        ChallengeRow.challenged_id == account.id,
                    )
                )
            )
            session.execute(delete(AccountRow).where(AccountRow.id == account.id))

    def link(self, account: Account, game_id: str) -> None:
        """``game_id`` among the account's games."""
        with self.store.session() as session:
            session.merge(AccountGameRow(account_id=account.id, game_id=game_id))

    def games_of(self, account: Account, limit: int = 200) -> list[StoredGame]:
        """The account's games, the latest first (without their actions)."""
        with self.store.reading() as session:
            rows = session.scalars(
                select(GameRow)
                .join(AccountGameRow, AccountGameRow.game_id == GameRow.id)
                .where(AccountGameRow.account_id == account.id)
                .order_by(GameRow.updated.desc())
                .limit(limit)
            ).all()
            return [_stored(row, ()) for row in rows]

    def find_public(self, name: str) -> Account | None:
        """The account named ``name`` (whatever its case), for its profile."""
        with self.store.reading() as session:
            row = session.scalars(
                select(AccountRow).where(AccountRow.key == name_key(name))
            ).first()
            return None if row is None else Account(row.id, row.name, row.bot)

    def profile(self, account: Account, page: int = 0, limit: int = PROFILE_GAMES) -> Profile:
        """The account's ratings (the most played game first), each game's history, and
        page ``page`` of the games where it held a seat, the latest first."""
        with self.store.reading() as session:
            ratings = [
                Standing(account.name, row.game, row.rating, row.deviation, row.games)
                for row in session.scalars(
                    select(RatingRow)
                    .where(RatingRow.account_id == account.id)
                    .order_by(RatingRow.games.desc(), RatingRow.game)
                )
            ]
            history: dict[str, list[float]] = {}
            for row in session.scalars(
                select(RatingHistoryRow)
                .where(RatingHistoryRow.account_id == account.id)
                .order_by(RatingHistoryRow.n)
            ):
                history.setdefault(row.game, []).append(row.rating)
            rows = session.scalars(
                select(GameRow)
                .join(AccountGameRow, AccountGameRow.game_id == GameRow.id)
                # only the games online (its games against the AI hold no account)
                .where(AccountGameRow.account_id == account.id, GameRow.seat_accounts.is_not(None))
                .order_by(GameRow.updated.desc(), GameRow.id)
                .offset(page * limit)
                .limit(limit + 1)
            ).all()
            more = len(rows) > limit
            # only the games it played under its name
            played = [r for r in rows[:limit] if account.id in (r.seat_accounts or ())]
            held = {a for r in played for a in r.seat_accounts or () if a is not None}
            found = session.execute(
                select(AccountRow.id, AccountRow.name).where(AccountRow.id.in_(held))
            ).all()
            names = {account_id: name for account_id, name in found}
            games = [_stored(r, ()) for r in played]
            return Profile(account, ratings, history, games, names, page, more)

    def leaderboard(self, game: str, limit: int = 50) -> list[Standing]:
        """The best ``limit`` ratings at ``game`` that are not provisional."""
        with self.store.reading() as session:
            found = session.execute(
                select(AccountRow.name, AccountRow.bot, RatingRow)
                .join(RatingRow, RatingRow.account_id == AccountRow.id)
                .where(RatingRow.game == game, RatingRow.deviation <= PROVISIONAL)
                .order_by(RatingRow.rating.desc(), AccountRow.key)
                .limit(limit)
            ).all()
            return [
                Standing(name, row.game, row.rating, row.deviation, row.games, bot)
                for name, bot, row in found
            ]

    @staticmethod
    def _claim(session: Any, account_id: int, browser: str) -> None:
        """The games ``browser`` made that the account does not know yet: its now."""
        known = select(AccountGameRow.game_id).where(AccountGameRow.account_id == account_id)
        session.execute(
            insert(AccountGameRow).from_select(
                ["account_id", "game_id"],
                select(literal(account_id), GameRow.id).where(
                    GameRow.owner == browser, GameRow.id.not_in(known)
                ),
            )
        )


def aware(moment: datetime) -> datetime:
    """A time read back from SQLite (which keeps no zone) as UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


# ---------------------------------------------------------------------- the service
class Accounts:
    """What the routes ask: each step checked, throttled, hashed off the loop and stored
    in a thread. ``store`` is None where the server keeps no database (``--db memory:``):
    then every step says accounts need one."""

    def __init__(self, store: Store | None) -> None:
        self.store = None if store is None else AccountStore(store)
        self.hasher = Hasher()
        self.names = Throttle(NAME_FAILURES, FAILURE_SECONDS)
        self.addresses = Throttle(ADDRESS_FAILURES, FAILURE_SECONDS)
        self.sign_ups = Throttle(SIGN_UPS, SIGN_UP_SECONDS)

    def _kept(self) -> AccountStore:
        if self.store is None:
            raise RequestError(_("this server keeps no accounts: it was started with --db memory:"))
        return self.store

    async def sign_up(
        self, name: Any, password: Any, browser: str, address: str, ending: str | None
    ) -> tuple[Account, str]:
        """A new account and its first session id."""
        store = self._kept()
        name, password = check_account_name(name), check_password(password)
        wait = self.sign_ups.wait(address)
        if wait:
            raise Throttled(
                _("too many new accounts from your address: at most {most} an hour").format(
                    most=SIGN_UPS
                ),
                wait,
            )
        hashed = await self.hasher.hash(password)
        account = await asyncio.to_thread(store.create, name, hashed, browser)
        if account is None:
            raise RequestError(
                _("the name {name!r} is taken (whatever its case): choose another").format(
                    name=name
                )
            )
        self.sign_ups.count(address)
        token = await asyncio.to_thread(store.open_session, account, browser, ending)
        return account, token

    async def sign_in(
        self, name: Any, password: Any, browser: str, address: str, ending: str | None
    ) -> tuple[Account, str]:
        """A new session id of the account ``name`` names, if ``password`` is its."""
        store = self._kept()
        name = name if isinstance(name, str) else ""
        password = password if isinstance(password, str) else ""
        key = "name:" + name_key(name)[:64]
        wait = max(self.names.wait(key), self.addresses.wait(address))
        if wait:
            raise Throttled(
                _(
                    "too many failed sign-ins for this name or from your address: try "
                    "again in {minutes} minutes"
                ).format(minutes=max(1, (wait + 59) // 60)),
                wait,
            )
        found = None
        if len(password.encode()) <= PASSWORD_MAX and len(name) <= NAME_MAX:
            found = await asyncio.to_thread(store.find, name)
        # the same work whether the name exists or not: a dummy hash for none
        right = await self.hasher.verify(
            None if found is None else found[1], password[:PASSWORD_MAX]
        )
        if found is None or not right:
            self.names.count(key)
            self.addresses.count(address)
            raise SignInRefused(_("this name and password do not sign in: check both"))
        self.names.forget(key)
        account = found[0]
        token = await asyncio.to_thread(store.open_session, account, browser, ending)
        return account, token

    async def account_of(self, token: str | None) -> Account | None:
        if not token or self.store is None:
            return None
        return await asyncio.to_thread(self.store.account_of, token)

    async def sign_out(self, token: str | None) -> None:
        if token and self.store is not None:
            await asyncio.to_thread(self.store.close_session, token)

    async def _confirm(self, account: Account, password: Any, address: str) -> None:
        """Refuse unless ``password`` is the account's (failures throttled as sign-ins)."""
        store = self._kept()
        key = "name:" + name_key(account.name)
        wait = max(self.names.wait(key), self.addresses.wait(address))
        if wait:
            raise Throttled(
                _(
                    "too many wrong passwords for this account: try again in {minutes} minutes"
                ).format(minutes=max(1, (wait + 59) // 60)),
                wait,
            )
        password = password if isinstance(password, str) else ""
        hashed = await asyncio.to_thread(store.password_of, account)
        if not await self.hasher.verify(hashed, password[:PASSWORD_MAX]):
            self.names.count(key)
            self.addresses.count(address)
            raise SignInRefused(_("this is not the account's password: type it again"))

    async def change_password(
        self, account: Account, password: Any, new: Any, token: str, address: str
    ) -> None:
        """The new password, once the present one is given; the other sessions end."""
        new = check_password(new)
        await self._confirm(account, password, address)
        hashed = await self.hasher.hash(new)
        await asyncio.to_thread(self._kept().set_password, account, hashed, token)

    async def delete(self, account: Account, password: Any, address: str) -> None:
        await self._confirm(account, password, address)
        await asyncio.to_thread(self._kept().delete, account)

    async def link(self, account: Account | None, game_id: str) -> None:
        if account is not None and self.store is not None:
            await asyncio.to_thread(self.store.link, account, game_id)

    async def games_of(self, account: Account, limit: int = 200) -> list[StoredGame]:
        return await asyncio.to_thread(self._kept().games_of, account, limit)

    async def profile(self, name: str, page: int = 0) -> Profile | None:
        """The profile of the account ``name`` with page ``page`` of its games; None if
        there is none (or no accounts)."""
        if self.store is None:
            return None
        store = self.store
        account = await asyncio.to_thread(store.find_public, name)
        if account is None:
            return None
        return await asyncio.to_thread(store.profile, account, page)

    async def leaderboard(self, game: str) -> list[Standing]:
        if self.store is None:
            return []
        return await asyncio.to_thread(self.store.leaderboard, game)
