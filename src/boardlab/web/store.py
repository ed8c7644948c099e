"""Where games live: SQLAlchemy 2 tables, migrated by Alembic, on SQLite by default.

A game is a row of what never changes (game, options, start, seats, owner) and one row per
action, keyed by (game, ply). The key is what keeps a game whole: an action is committed
before anyone is shown it, and two answers to the same ply (a double click, a stale tab, an
AI move overtaken by an undo) cannot both be stored; the second is refused as stale.
"""

from __future__ import annotations

import contextlib
import json
import logging
import secrets
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    create_engine,
    delete,
    event,
    false,
    func,
    select,
    text,
)
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Engine
from sqlalchemy.exc import (
    ArgumentError,
    DBAPIError,
    InterfaceError,
    NoSuchModuleError,
    OperationalError,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker

from boardlab.core.errors import BoardlabError
from boardlab.core.i18n import _
from boardlab.puzzles.glicko import Rating
from boardlab.web import clock
from boardlab.web.data import (
    Append,
    ChatLine,
    Conflict,
    DatabaseAway,
    NewGame,
    StoredGame,
    check_range,
    clock_started,
    new_id,
    no_game,
    possible_id,
    rated_seat,
    seat_taken,
    shown_rating,
    stale_message,
)

log = logging.getLogger("boardlab.web")

MIGRATIONS = Path(__file__).with_name("migrations")
#: The PostgreSQL channel on which every change to a game is announced (``announcement``),
#: so that every server process tells the pages it holds.
CHANNEL = "boardlab_games"
#: This process, in the announcements it makes (it has told its own pages already).
ORIGIN = secrets.token_hex(8)
#: The most first attempts at puzzles kept (``PuzzleTryRow``): past it the oldest are
#: forgotten, and a browser's next attempt at such a puzzle counts as its first again.
#: About 36 MB on SQLite, 94 MB on PostgreSQL (36 and 94 bytes a row, measured), however
#: many browsers clients make up.
MOST_TRIES = 1_000_000


class Base(DeclarativeBase):
    pass


def now() -> datetime:
    return datetime.now(UTC)


class GameRow(Base):
    __tablename__ = "games"
    #: ``rated``'s server default is not read back on insert (a database not yet at 0008
    #: has no such column to return)
    __mapper_args__ = {"eager_defaults": False}  # noqa: RUF012

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    game: Mapped[str] = mapped_column(String(32))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    start: Mapped[str | None] = mapped_column(Text)
    #: Who sits in each seat: ``human`` or an agent spec.
    seats: Mapped[list[str]] = mapped_column(JSON)
    headers: Mapped[dict[str, str]] = mapped_column(JSON)
    #: The browser that made the game (a cookie), for its list of games.
    owner: Mapped[str] = mapped_column(String(64), index=True)
    resigned: Mapped[int | None] = mapped_column(Integer)
    #: Actions stored, kept with them so a list of games needs no count.
    length: Mapped[int] = mapped_column(Integer, default=0)
    #: ``*`` while the game goes on, then the winner's name, ``draw`` or ``aborted`` (no
    #: result).
    result: Mapped[str] = mapped_column(String(32), default="*")
    #: Changes so far (actions, undos, resignations): pages show the newest state only.
    revision: Mapped[int] = mapped_column(Integer, default=0)
    #: For each seat the hash of the secret that acts for it (None for an agent's seat);
    #: None as a whole for games made before seats had keys.
    seat_keys: Mapped[list[str | None] | None] = mapped_column(JSON, nullable=True)
    #: The seat waiting for an opponent to join, in a game between two people online.
    open_seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: Whether the game waits in the lobby, where anyone may take its open seat.
    listed: Mapped[bool] = mapped_column(Boolean, default=False, index=True)
    #: How an unfinished game ended: ``resign``, ``forfeit``, ``time``, ``abandoned`` (with
    #: ``resigned`` the player who lost), ``agreement`` (a draw) or ``aborted`` (with
    #: ``resigned`` the player who aborted it: no result); None while the rules decide.
    ending: Mapped[str | None] = mapped_column(String(16), nullable=True)
    #: The player who offers a draw, until the other answers or anyone acts.
    draw_offer: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: The player who asks to take back their last turn, until the other answers or
    #: anyone acts.
    takeback_offer: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: The game that was made as the rematch of this one.
    rematch: Mapped[str | None] = mapped_column(String(32), nullable=True)
    #: The time control and what is left of it: ``base`` and ``increment`` seconds,
    #: ``left`` milliseconds of each player, ``since`` (epoch ms) when the player to act
    #: began thinking, None while the clock stands.
    clock: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    #: The name each player gave for their seat (None: none given), shown beside the side.
    names: Mapped[list[str | None] | None] = mapped_column(JSON, nullable=True)
    #: The position where the last turn began and the first ply of each turn, as JSON,
    #: written with each action, so that a game is loaded without replaying its actions
    #: (``rooms.snapshot_text``); None when not kept (then it is replayed).
    snapshot: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: The account holding each seat (None: a guest's, an agent's, or still open).
    seat_accounts: Mapped[list[int | None] | None] = mapped_column(JSON, nullable=True)
    #: A rated game: its end moves both accounts' ratings (``RatingRow``).
    rated: Mapped[bool] = mapped_column(Boolean, server_default=false())
    #: A seek's rating range, ``[lowest, highest]``: only a player whose rating at the
    #: game lies within it takes the open seat; None: anyone may.
    rating_range: Mapped[list[int] | None] = mapped_column(JSON, nullable=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    updated: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now, index=True)


class ActionRow(Base):
    __tablename__ = "actions"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    ply: Mapped[int] = mapped_column(Integer, primary_key=True)
    action: Mapped[str] = mapped_column(String(64))
    played: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class ChatRow(Base):
    """A line one player of a game online said to the other."""

    __tablename__ = "chat"
    __table_args__ = (Index("ix_chat_game_id", "game_id", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    seat: Mapped[int] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(Text)
    said: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class ReviewRow(Base):
    __tablename__ = "reviews"

    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )
    agent: Mapped[str] = mapped_column(String(128), primary_key=True)
    #: The review is of the first ``length`` actions; a longer game is reviewed anew.
    length: Mapped[int] = mapped_column(Integer)
    data: Mapped[dict[str, Any]] = mapped_column(JSON)


class PuzzleRatingRow(Base):
    """A puzzle's Glicko-2 rating from players' attempts (docs/puzzles.md), made by its
    first counted attempt: a puzzle without one has its first difficulty."""

    __tablename__ = "puzzle_ratings"

    puzzle_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    rating: Mapped[float] = mapped_column(Float)
    deviation: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    #: The attempts that moved it (each browser's first).
    attempts: Mapped[int] = mapped_column(Integer, default=0)


class PuzzlePlayerRow(Base):
    """A signed-in player's puzzle rating (Glicko-2), kept with the account so that it
    follows them to any browser; a guest's stays in the browser."""

    __tablename__ = "puzzle_players"

    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    rating: Mapped[float] = mapped_column(Float)
    deviation: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    attempts: Mapped[int] = mapped_column(Integer, default=0)


class PuzzleTryRow(Base):
    """A browser's first attempt at a puzzle, the one that moves the puzzle's rating:
    kept as a 64-bit digest of the two (``key``), in the order made (``n``), the
    latest ``MOST_TRIES`` of them."""

    __tablename__ = "puzzle_tries"
    __table_args__ = (Index("ix_puzzle_tries_key", "key", unique=True),)

    n: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    key: Mapped[int] = mapped_column(BigInteger)


class AccountRow(Base):
    """A player's account (web/accounts.py): a name, unique whatever its case, and the
    argon2id hash of the password."""

    __tablename__ = "accounts"
    __table_args__ = (Index("ix_accounts_key", "key", unique=True),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(32))
    #: The name in lower case: two accounts cannot differ by case alone.
    key: Mapped[str] = mapped_column(String(32))
    password: Mapped[str] = mapped_column(String(256))
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    #: A bot: played by a program with API tokens (web/bots.py), signed in by no password.
    bot: Mapped[bool] = mapped_column(Boolean, server_default=false())
    #: An admin: builds the solvers' tables on /admin (web/admin.py), made by the host.
    admin: Mapped[bool] = mapped_column(Boolean, server_default=false())


class SessionRow(Base):
    """A signed-in browser: the SHA-256 of its session id (the cookie holds the id, the
    database only its hash, so a copy of the database signs in no one)."""

    __tablename__ = "sessions"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    seen: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    expires: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


class BotTokenRow(Base):
    """A bot's API token (web/bots.py): its SHA-256, as a session's (the token is shown
    once, to the host who made it)."""

    __tablename__ = "bot_tokens"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class AccountGameRow(Base):
    """A game an account knows: made in a browser while it was signed in, or before it
    signed up or in there. The seats are still held by their secrets."""

    __tablename__ = "account_games"
    __table_args__ = (Index("ix_account_games_game_id", "game_id"),)

    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    game_id: Mapped[str] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), primary_key=True
    )


class RatingRow(Base):
    """An account's Glicko-2 rating at one game (its default rules), moved by each rated
    game's end."""

    __tablename__ = "ratings"
    __table_args__ = (Index("ix_ratings_game_rating", "game", "rating"),)

    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    game: Mapped[str] = mapped_column(String(32), primary_key=True)
    rating: Mapped[float] = mapped_column(Float)
    deviation: Mapped[float] = mapped_column(Float)
    volatility: Mapped[float] = mapped_column(Float)
    #: Rated games played.
    games: Mapped[int] = mapped_column(Integer, default=0)


class RatingHistoryRow(Base):
    """An account's rating at one game after one rated game (the profile's chart)."""

    __tablename__ = "rating_history"
    __table_args__ = (Index("ix_rating_history_account", "account_id", "game", "n"),)

    n: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    game: Mapped[str] = mapped_column(String(32))
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    rating: Mapped[float] = mapped_column(Float)
    deviation: Mapped[float] = mapped_column(Float)
    played: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)


class ChallengeRow(Base):
    """A challenge from one account to another (``web/challenges.py``): the game it
    proposes, open until the challenged accepts (a game is made: ``game_id``) or
    declines, the challenger cancels, or it expires."""

    __tablename__ = "challenges"
    __table_args__ = (
        Index("ix_challenges_challenger", "challenger_id", "status"),
        Index("ix_challenges_challenged", "challenged_id", "status"),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    challenger_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    challenged_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    game: Mapped[str] = mapped_column(String(32))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    #: ``[base, increment]`` seconds, None: no clock
    clock: Mapped[list[int] | None] = mapped_column(JSON, nullable=True)
    rated: Mapped[bool] = mapped_column(Boolean)
    #: the challenger's side: ``0``, ``1`` or ``random`` (drawn when accepted)
    side: Mapped[str] = mapped_column(String(16))
    #: ``open``, ``accepted``, ``declined`` or ``cancelled`` (an open one past
    #: ``expires`` is expired)
    status: Mapped[str] = mapped_column(String(16))
    reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: the hash of the secret the challenger was given for the seat of the game to come
    challenger_key: Mapped[str] = mapped_column(String(64))
    game_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    created: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=now)
    expires: Mapped[datetime] = mapped_column(DateTime(timezone=True))


def default_url() -> str:
    """SQLite in the user data directory (``$BOARDLAB_DB`` names another URL)."""
    import os

    from platformdirs import user_data_path

    if os.environ.get("BOARDLAB_DB"):
        return os.environ["BOARDLAB_DB"]
    folder = user_data_path("boardlab")
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'boardlab.sqlite3'}"


class Store:
    """The games of one database. Methods are synchronous (the web app calls them in a
    thread) and each is one transaction. ``upgrade`` brings the schema to the newest
    first; False (a server's worker process, after ``boardlab serve`` upgraded once)
    refuses a database at another schema, saying what to run; None leaves it as it is
    (``boardlab db``)."""

    def __init__(self, url: str | None = None, upgrade: bool | None = True) -> None:
        self.url = url or default_url()
        try:
            self.engine = open_engine(self.url)
            if upgrade:
                migrate(self.engine)
            else:  # opened now, so that an unreachable database is said in one line
                current, newest = schema_of(self.engine)
        except (ArgumentError, NoSuchModuleError, ValueError):
            raise BoardlabError(
                _(
                    "bad database URL {url!r}: expected sqlite:///PATH or "
                    "postgresql+psycopg://USER:PASSWORD@HOST:PORT/DATABASE (a server also "
                    "keeps games in memory: --db memory:)"
                ).format(url=self.url)
            ) from None
        except ModuleNotFoundError as error:
            raise BoardlabError(
                _("the database {url} needs the Python module {module!r}").format(
                    url=safe_url(self.url), module=error.name
                )
            ) from None
        except DBAPIError as error:
            why = str(error.orig).strip().splitlines()[0] if error.orig else str(error)
            raise BoardlabError(
                _("cannot open the database {url}: {why}").format(url=safe_url(self.url), why=why)
            ) from None
        if upgrade is False and current != newest:
            raise BoardlabError(
                _(
                    "the database {url} has schema {current}, this boardlab needs {newest}: "
                    "run boardlab db upgrade --db URL first"
                ).format(url=safe_url(self.url), current=current or "none", newest=newest)
            )
        self.sessions = sessionmaker(self.engine, expire_on_commit=False)
        # a read of several statements sees one moment of the database: on PostgreSQL
        # (read committed by default) a game's row and its actions read one after the
        # other could be of two moments, an action committed between them (a room then
        # held a record one action ahead of its version)
        reading: dict[str, Any] = {"reading": True}
        if self.engine.dialect.name == "postgresql":
            reading["isolation_level"] = "REPEATABLE READ"
        self.readings = sessionmaker(
            self.engine.execution_options(**reading), expire_on_commit=False
        )
        # SQLite has one writer at a time: this process's writers queue here, in turn,
        # rather than poll SQLite's lock (whose waits are unfair and can last a second)
        sqlite = self.engine.dialect.name == "sqlite"
        self._writing = threading.RLock() if sqlite else contextlib.nullcontext()
        #: whether changes are announced to the other server processes (PostgreSQL)
        self.announces = self.engine.dialect.name == "postgresql"
        self._appending = Appending(self.engine.dialect)
        #: the connection that stores actions (``append_many``), kept between its
        #: transactions, and the lock of the thread using it
        self._appender: Any = None
        self._appender_lock = threading.Lock()
        # a lost database, as SQLAlchemy says it and as the driver does (``append_many``)
        driver = self.engine.dialect.loaded_dbapi
        self._lost: tuple[type[Exception], ...] = (
            OperationalError,
            InterfaceError,
            driver.OperationalError,
            driver.InterfaceError,
        )
        #: since when the database has been away (monotonic seconds), None while it answers
        self.away_since: float | None = None

    def close(self) -> None:
        """Give the database its connections back now."""
        with self._appender_lock:
            if self._appender is not None:
                self._appender.close()
                self._appender = None
        self.engine.dispose()

    def checkpoint(self) -> tuple[int, int] | None:
        """Copy SQLite's write-ahead log into the database without holding up a writer
        (a passive checkpoint, on a connection of its own and outside any transaction):
        done by the server every second, so that no commit has to (its disk syncs made
        a commit wait 300 ms). The frames in the log and those copied (None: not
        SQLite)."""
        if self.engine.dialect.name != "sqlite":
            return None
        connection = self.engine.raw_connection()
        try:
            cursor = connection.cursor()
            cursor.execute("PRAGMA wal_checkpoint(PASSIVE)")
            _busy, frames, copied = cursor.fetchall()[0]  # a checkpoint answers one row
            return int(frames), int(copied)
        finally:
            connection.close()

    def listen_url(self) -> str:
        """The database as psycopg connects to it, to listen for announcements."""
        from sqlalchemy.engine import make_url

        url = make_url(self.url).set(drivername="postgresql")
        return url.render_as_string(hide_password=False)

    def _announce(self, session: Session, game_id: str, revision: int = 0, chat: int = 0) -> None:
        """Announce a change to the game (its new ``revision``, or line ``chat`` of its
        chat), sent when the transaction commits."""
        if self.announces:
            session.execute(
                text("SELECT pg_notify(:channel, :payload)"),
                {"channel": CHANNEL, "payload": announcement(game_id, revision, chat=chat)},
            )

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A transaction that writes: on SQLite it holds the write lock from its start."""
        with self._reachable(), self._writing, self.sessions.begin() as session:
            yield session

    @contextmanager
    def reading(self) -> Iterator[Session]:
        """A transaction that only reads: on SQLite it waits for no writer (WAL)."""
        with self._reachable(), self.readings.begin() as session:
            yield session

    @contextmanager
    def _reachable(self) -> Iterator[None]:
        """Turn a lost database into ``DatabaseAway``, said once in the log when it goes
        and once when it is back, whatever the number of requests in between."""
        try:
            yield
        except self._lost as error:
            if self.away_since is None:
                self.away_since = time.monotonic()
                why = str(getattr(error, "orig", None) or error).strip().splitlines()[0][:200]
                log.warning("the database is away (%s): requests get 503 until it is back", why)
            raise DatabaseAway(
                _("the database is away for a moment: try again in a few seconds")
            ) from None
        if self.away_since is not None:
            log.warning("the database is back after %.1f s", time.monotonic() - self.away_since)
            self.away_since = None

    def create(self, new: NewGame) -> str:
        """A new game (``NewGame``: with ``actions`` already played, for an uploaded
        record); its id."""
        with self.session() as session:
            return self.add_game(session, new)

    @staticmethod
    def add_game(session: Session, new: NewGame) -> str:
        """``create`` inside ``session``, a transaction that may do more (a challenge
        accepted: its game made with it)."""
        game_id = new_id()
        session.add(
            GameRow(
                id=game_id,
                game=new.game,
                options=new.options,
                start=new.start,
                seats=list(new.seats),
                headers=new.headers or {},
                owner=new.owner,
                resigned=new.resigned,
                length=len(new.actions),
                result=new.result,
                seat_keys=None if new.seat_keys is None else list(new.seat_keys),
                open_seat=new.open_seat,
                listed=new.listed and new.open_seat is not None,
                ending=new.ending,
                clock=new.clock,
                names=list(new.names),
                # set only when held: a database not yet migrated to 0008 still
                # takes guests' games (the columns left out of the insert)
                **(
                    {"seat_accounts": list(new.accounts), "rated": new.rated}
                    if new.rated or any(a is not None for a in new.accounts)
                    else {}
                ),
                # set only when asked for, as the accounts above (migration 0010)
                **({} if new.rating_range is None else {"rating_range": list(new.rating_range)}),
            )
        )
        session.flush()
        session.add_all(
            ActionRow(game_id=game_id, ply=k, action=a) for k, a in enumerate(new.actions)
        )
        # the game is among the games of each account holding a seat (a rematch too)
        session.add_all(
            AccountGameRow(account_id=a, game_id=game_id)
            for a in dict.fromkeys(new.accounts)
            if a is not None
        )
        return game_id

    def load(self, game_id: str) -> StoredGame:
        with self.reading() as session:
            row = session.get(GameRow, game_id) if possible_id(game_id) else None
            if row is None:
                raise no_game(game_id)
            actions = session.scalars(
                select(ActionRow.action).where(ActionRow.game_id == game_id).order_by(ActionRow.ply)
            ).all()
            return _stored(row, tuple(actions))

    def append(
        self,
        game_id: str,
        ply: int,
        action: str,
        result: str,
        clock: dict[str, Any] | None = None,
    ) -> int:
        """Store ``action`` as action number ``ply`` (0-based): refused as stale when the
        game holds another number of actions (or someone stored that ply first). A draw
        offered is void once anyone acts; ``clock`` is the clock after the action. The
        game's revision after it."""
        (answer,) = self.append_many([Append(game_id, ply, action, result, clock)])
        if isinstance(answer, BoardlabError):
            raise answer
        return answer

    def append_many(self, appends: Sequence[Append]) -> list[int | BoardlabError]:
        """Store the actions of many games in one transaction (group commit: one disk
        sync for all): for each, the game's revision after it, or the error that
        refused it (stale, no such game) while the others are stored. The statements go
        to the driver as they are (``Appending``; on PostgreSQL one an action, which
        also announces it): an action is the server's most frequent write."""
        answers: dict[int, int | BoardlabError] = {}
        sql = self._appending
        # in the order of their games, so that two processes' batches never wait for
        # each other's rows in a circle
        order = sorted(range(len(appends)), key=lambda k: appends[k].game_id)
        with self._reachable(), self._writing, self._appending_transaction() as cursor:
            moment = sql.moment(now())
            for k in order:
                item = appends[k]
                if not possible_id(item.game_id):
                    answers[k] = no_game(item.game_id)
                    continue
                clock = () if item.clock is None else (sql.clock(item.clock),)
                changing = (
                    item.ply + 1,
                    item.result,
                    moment,
                    item.snapshot,
                    *clock,
                    item.game_id,
                    item.ply,
                )
                if self.announces:  # the action kept and announced in the same statement
                    head, tail = announcement_around(item.game_id, item.action, item.clock)
                    kept = (item.game_id, item.ply, item.action, moment, CHANNEL, head, tail)
                    statement = sql.append_with_clock if clock else sql.append
                    cursor.execute(statement, (*changing, *kept))
                else:
                    cursor.execute(sql.update_with_clock if clock else sql.update, changing)
                found = cursor.fetchone()
                if found is None:
                    cursor.execute(sql.length, (item.game_id,))
                    length = cursor.fetchone()
                    answers[k] = (
                        no_game(item.game_id)
                        if length is None
                        else Conflict(stale_message(length[0], item.ply))
                    )
                    continue
                revision = int(found[0])
                if not self.announces:
                    cursor.execute(sql.insert, (item.game_id, item.ply, item.action, moment))
                if item.result != "*":  # the rules ended it: a rated game moves ratings
                    rate_end(cursor, sql, item.game_id)
                answers[k] = revision
        return [answers[k] for k in range(len(appends))]

    @contextmanager
    def _appending_transaction(self) -> Iterator[Any]:
        """A transaction on the connection kept for storing actions, as the driver's
        cursor: a batch of actions, the server's most frequent write, takes no
        connection from the pool, asks no ping, and goes through no SQLAlchemy event
        (each cost more than the batch's statements). After an error the connection is
        let go, so a database that restarted is found again by the next batch."""
        with self._appender_lock:
            if self._appender is None:
                self._appender = self.engine.raw_connection()
            connection = self._appender
            try:
                cursor = connection.cursor()
                if self.engine.dialect.name == "sqlite":
                    cursor.execute("BEGIN IMMEDIATE")  # as ``open_engine``'s writers do
                yield cursor
                cursor.close()
                connection.commit()
            except BaseException:
                self._appender = None
                with contextlib.suppress(Exception):
                    connection.rollback()
                with contextlib.suppress(Exception):
                    connection.invalidate()  # not back to the pool: it may be broken
                raise

    def truncate(
        self, game_id: str, ply: int, length: int, clock: dict[str, Any] | None = None
    ) -> int:
        """Keep the first ``length`` actions (an undo, also of a resignation, or a
        takeback agreed, with its ``clock``), when the game still holds ``ply``; the
        game's revision after."""
        with self.session() as session:
            row = self._row(session, game_id)
            if row.length != ply:
                raise Conflict(stale_message(row.length, ply))
            session.execute(
                delete(ActionRow).where(ActionRow.game_id == game_id, ActionRow.ply >= length)
            )
            row.length, row.resigned, row.result, row.updated = length, None, "*", now()
            row.ending = row.draw_offer = row.takeback_offer = row.snapshot = None
            if clock is not None:
                row.clock = clock
            return self._changed(session, row)

    def end(
        self,
        game_id: str,
        ply: int,
        player: int | None,
        result: str,
        reason: str = "resign",
        clock: dict[str, Any] | None = None,
    ) -> int:
        """End the unfinished game at action ``ply``: ``player`` loses (``resign``,
        ``forfeit``, ``time``, ``abandoned``) or aborts it (``aborted``: no result), or,
        with no player, a draw agreed (``agreement``). The game's revision after."""
        with self.session() as session:
            row = self._row(session, game_id)
            if row.length != ply or row.resigned is not None or row.ending is not None:
                raise Conflict(stale_message(row.length, ply))
            row.resigned, row.ending, row.result, row.updated = player, reason, result, now()
            row.draw_offer = row.takeback_offer = None
            if clock is not None:
                row.clock = clock
            revision = self._changed(session, row)
            if row.rated:  # the ratings move in the transaction that stores the end
                session.flush()
                cursor = session.connection().connection.cursor()
                try:
                    rate_end(cursor, self._appending, game_id)
                finally:
                    cursor.close()
                session.expire(row, ["headers"])
            return revision

    def offer_draw(self, game_id: str, ply: int, player: int | None) -> int:
        """``player`` offers a draw at action ``ply`` (None: the offer is declined); the
        game's revision after."""
        return self._offer(game_id, ply, "draw_offer", player)

    def offer_takeback(self, game_id: str, ply: int, player: int | None) -> int:
        """``player`` asks at action ``ply`` to take back their last turn (None: the
        request is declined); the game's revision after."""
        return self._offer(game_id, ply, "takeback_offer", player)

    def _offer(self, game_id: str, ply: int, column: str, player: int | None) -> int:
        with self.session() as session:
            row = self._row(session, game_id)
            if row.length != ply or row.result != "*":
                raise Conflict(stale_message(row.length, ply))
            setattr(row, column, player)
            row.updated = now()
            return self._changed(session, row)

    def discard(self, game_id: str) -> None:
        """Forget a game that was made in vain (a rematch made twice at once)."""
        with self.session() as session:
            session.execute(delete(ActionRow).where(ActionRow.game_id == game_id))
            session.execute(delete(GameRow).where(GameRow.id == game_id))

    def link_rematch(self, game_id: str, rematch: str) -> str:
        """Record ``rematch`` as the rematch of the game, unless one was made first; the
        rematch that stands."""
        with self.session() as session:
            row = self._row(session, game_id)
            if row.rematch is None:
                row.rematch = rematch
                self._changed(session, row)
            return row.rematch

    def take_seat(
        self,
        game_id: str,
        seat: int,
        key: str,
        invited: str | None,
        name: str | None = None,
        account: int | None = None,
    ) -> int:
        """Seat an opponent in the open ``seat``, acting with the secret whose hash is
        ``key`` and named ``name``, held by ``account`` if signed in: by invitation
        (``invited``, the hash of the invitation's secret) or from the lobby (None: the
        game must be listed). Of two at once, one gets the seat; a rated game's seat
        goes to another account only (``rated_seat``). The game's revision after."""
        with self.session() as session:
            row = self._row(session, game_id)
            keys = seat_taken(
                row.seat_keys, row.open_seat, row.result, row.listed, seat, key, invited
            )
            held = list(row.seat_accounts or [None, None])
            if row.rated:
                rated_seat(held[1 - seat], account)
            if row.rating_range is not None:
                rating = None if account is None else self._rating_at(session, account, row.game)
                check_range(row.rating_range, account, rating or 0.0)
            held[seat] = account
            row.seat_accounts = held
            if account is not None:
                session.merge(AccountGameRow(account_id=account, game_id=game_id))
            row.seat_keys, row.open_seat, row.listed = list(keys), None, False
            names = list(row.names or [None, None])
            names[seat] = name
            row.names = names
            if row.clock is not None:  # both are here: the clock of the player to act runs
                row.clock = clock.start(row.clock, clock.milliseconds())
            row.updated = now()
            return self._changed(session, row)

    @staticmethod
    def _rating_at(session: Session, account: int, game: str) -> float:
        """An account's rating at ``game`` (a newcomer's before its first rated game)."""
        found = session.scalar(
            select(RatingRow.rating).where(RatingRow.account_id == account, RatingRow.game == game)
        )
        return Rating().rating if found is None else float(found)

    def ratings_at(
        self, wanted: Sequence[tuple[int, str]]
    ) -> dict[tuple[int, str], tuple[float, str]]:
        """The ratings of accounts at games, by (account, game): the rating and as it is
        shown (``shown_rating``); a newcomer's where an account has played no rated game
        of it."""
        if not wanted:
            return {}
        accounts = {account for account, _game in wanted}
        with self.reading() as session:
            rows = session.scalars(select(RatingRow).where(RatingRow.account_id.in_(accounts)))
            kept = {(row.account_id, row.game): row for row in rows}
        first = Rating()
        found = {}
        for key in wanted:
            row = kept.get(key)
            rating, deviation = (
                (first.rating, first.deviation) if row is None else (row.rating, row.deviation)
            )
            found[key] = (rating, shown_rating(rating, deviation))
        return found

    def names_of(self, accounts: Sequence[int]) -> dict[int, str]:
        """The names of accounts, by id (a deleted one's left out)."""
        with self.reading() as session:
            found = session.execute(
                select(AccountRow.id, AccountRow.name).where(AccountRow.id.in_(set(accounts)))
            ).all()
            return {account: name for account, name in found}

    def rating_of(self, account: int, game: str) -> float:
        with self.reading() as session:
            return self._rating_at(session, account, game)

    def start_clock(self, game_id: str) -> int:
        """Start the game's clock now that both players are at the board, if it stands
        (``clock_started``); the game's revision after."""
        with self.session() as session:
            row = self._row(session, game_id)
            started = clock_started(row.clock, row.open_seat, row.result)
            if started is None:
                return row.revision
            row.clock = started
            row.updated = now()
            return self._changed(session, row)

    def say(self, game_id: str, seat: int, text: str) -> ChatLine:
        """Keep a line of chat, announced to the other server processes."""
        with self.session() as session:
            line = ChatRow(game_id=game_id, seat=seat, text=text, said=now())
            session.add(line)
            session.flush()
            self._announce(session, game_id, chat=line.id)
            return ChatLine(line.id, seat, text, line.said)

    def chat(self, game_id: str, after: int = 0, limit: int = 500) -> list[ChatLine]:
        """The game's chat after line number ``after``: the latest ``limit`` lines, in
        order."""
        with self.reading() as session:
            rows = session.scalars(
                select(ChatRow)
                .where(ChatRow.game_id == game_id, ChatRow.id > after)
                .order_by(ChatRow.id.desc())
                .limit(limit)
            ).all()
            return [ChatLine(row.id, row.seat, row.text, row.said) for row in reversed(rows)]

    def lobby(self, limit: int = 100) -> list[StoredGame]:
        """The games waiting in the lobby for an opponent, the newest first."""
        with self.reading() as session:
            rows = session.scalars(
                select(GameRow)
                .where(
                    GameRow.listed.is_(True),
                    GameRow.open_seat.is_not(None),
                    GameRow.result == "*",  # not one its maker aborted
                )
                .order_by(GameRow.created.desc())
                .limit(limit)
            ).all()
            return [_stored(row, ()) for row in rows]

    def games_of(self, owner: str, limit: int = 200) -> list[StoredGame]:
        """The games a browser made, the latest first (without their actions)."""
        with self.reading() as session:
            rows = session.scalars(
                select(GameRow)
                .where(GameRow.owner == owner)
                .order_by(GameRow.updated.desc())
                .limit(limit)
            ).all()
            return [_stored(row, ()) for row in rows]

    def review(self, game_id: str, agent: str, length: int) -> dict[str, Any] | None:
        with self.reading() as session:
            row = session.get(ReviewRow, (game_id, agent))
            return row.data if row is not None and row.length == length else None

    def keep_review(self, game_id: str, agent: str, length: int, data: dict[str, Any]) -> None:
        with self.session() as session:
            row = session.get(ReviewRow, (game_id, agent))
            if row is None:
                session.add(ReviewRow(game_id=game_id, agent=agent, length=length, data=data))
            else:
                row.length, row.data = length, data

    def puzzle_ratings(self) -> dict[str, Rating]:
        """Every puzzle's rating that players' attempts have moved, by id."""
        with self.reading() as session:
            return {
                row.puzzle_id: Rating(row.rating, row.deviation, row.volatility)
                for row in session.scalars(select(PuzzleRatingRow))
            }

    def rate_puzzle(
        self,
        puzzle_id: str,
        first: Rating,
        tried: int | None,
        rate: Callable[[Rating], Rating],
    ) -> tuple[Rating, Rating | None]:
        """An attempt at a puzzle, in one transaction: the puzzle's rating before it
        (the stored one, else ``first``) and, when ``tried`` (the digest of the puzzle
        and the browser) is new, the rating ``rate`` makes of it, stored; None when the
        attempt does not count (the browser tried it before, or is not known). Two
        attempts at once are one after the other: the puzzle's row is locked."""
        with self.session() as session:
            if tried is None or not self._first_try(session, tried):
                row = session.get(PuzzleRatingRow, puzzle_id)
                return (first if row is None else _rating(row)), None
            before, after = self._rerate(session, PuzzleRatingRow, puzzle_id, first, rate)
            return before, after

    def puzzle_player(self, account_id: int) -> Rating | None:
        """An account's puzzle rating, None before its first attempt."""
        with self.reading() as session:
            row = session.get(PuzzlePlayerRow, account_id)
            return None if row is None else _rating(row)

    def rate_player(
        self, account_id: int, first: Rating, rate: Callable[[Rating], Rating]
    ) -> tuple[Rating, Rating]:
        """An account's attempt at a puzzle, in one transaction: its rating before (the
        stored one, else ``first``, the rating its browser kept as a guest) and the one
        ``rate`` makes of it, stored. Attempts at once are one after the other."""
        with self.session() as session:
            return self._rerate(session, PuzzlePlayerRow, account_id, first, rate)

    def _rerate(
        self,
        session: Session,
        table: type[PuzzleRatingRow] | type[PuzzlePlayerRow],
        key: Any,
        first: Rating,
        rate: Callable[[Rating], Rating],
    ) -> tuple[Rating, Rating]:
        """The rating kept in ``table``'s row ``key`` (made with ``first`` unless there)
        before and after ``rate``, the row locked meanwhile: attempts at once are one
        after the other, none lost."""
        column = table.__mapper__.primary_key[0].name
        session.execute(  # the row made, unless an attempt made it first
            self._insert_new(table).values({column: key, "attempts": 0, **first.to_dict()})
        )
        row = cast(
            "PuzzleRatingRow | PuzzlePlayerRow | None",
            session.get(table, key, with_for_update=True, populate_existing=True),
        )
        assert row is not None  # made just now, or before
        before = _rating(row)
        after = rate(before)
        row.rating, row.deviation, row.volatility = (
            after.rating,
            after.deviation,
            after.volatility,
        )
        row.attempts += 1
        return before, after

    def _first_try(self, session: Session, tried: int) -> bool:
        """Keep ``tried`` (a browser's attempt at a puzzle) if it is new, forgetting the
        oldest past ``MOST_TRIES``; whether it was new. Looked up first: PostgreSQL
        spends a number of ``n`` on an INSERT that does nothing, and the numbers say
        what to forget."""
        if session.scalar(select(PuzzleTryRow.n).where(PuzzleTryRow.key == tried)) is not None:
            return False
        made = session.execute(  # nothing made if the same browser's attempt came first
            self._insert_new(PuzzleTryRow).values(key=tried).returning(PuzzleTryRow.n)
        ).scalar()
        if made is None:
            return False
        session.execute(delete(PuzzleTryRow).where(PuzzleTryRow.n <= made - MOST_TRIES))
        return True

    def _insert_new(self, table: type[Base]) -> Any:
        """An INSERT of ``table`` that does nothing where the row is there already."""
        insert = postgresql_insert if self.engine.dialect.name == "postgresql" else sqlite_insert
        return insert(table).on_conflict_do_nothing()

    def count(self) -> int:
        with self.reading() as session:
            return session.scalar(select(func.count()).select_from(GameRow)) or 0

    def _changed(self, session: Session, row: GameRow) -> int:
        """Count a change to the game in ``row`` and announce it; its new revision."""
        row.revision += 1
        self._announce(session, row.id, row.revision)
        return row.revision

    @staticmethod
    def _row(session: Session, game_id: str) -> GameRow:
        row = session.get(GameRow, game_id, with_for_update=True) if possible_id(game_id) else None
        if row is None:
            raise no_game(game_id)
        return row


def rate_end(cursor: Any, sql: Appending, game_id: str) -> None:
    """Move both players' ratings by the end of game ``game_id``, if rated, with the
    driver's ``cursor`` inside the transaction that stored the end: one rating period of
    one game each (as lichess rates), against the other's rating before it, then
    ``glicko.bounded``. An aborted game moves nothing. The ratings before the game and
    their change go to the game's headers (``SouthRating``, ``SouthRatingDiff``...), a
    history row per player to ``rating_history``."""
    import boardlab
    from boardlab.puzzles.glicko import bounded, update

    mark = sql.mark
    cursor.execute(
        f"SELECT game, result, rated, seat_accounts, headers FROM games WHERE id = {mark}",
        (game_id,),
    )
    found = cursor.fetchone()
    if found is None:
        return
    kind, result, rated, accounts, headers = found
    accounts, headers = _json(accounts), _json(headers)
    if not rated or result in ("*", "aborted") or not accounts or None in accounts:
        return
    players = [name.lower() for name in boardlab.new_game(kind).players]
    first = 0.5 if result.lower() not in players else 1.0 - players.index(result.lower())
    before = []
    for account in accounts:
        cursor.execute(
            "INSERT INTO ratings (account_id, game, rating, deviation, volatility, games) "
            f"VALUES ({mark}, {mark}, 1500.0, 350.0, 0.06, 0) "
            "ON CONFLICT (account_id, game) DO NOTHING",
            (account, kind),
        )
        cursor.execute(
            "SELECT rating, deviation, volatility FROM ratings "
            f"WHERE account_id = {mark} AND game = {mark}{sql.lock}",
            (account, kind),
        )
        rating, deviation, volatility = cursor.fetchone()
        before.append(Rating(float(rating), float(deviation), float(volatility)))
    moment = sql.moment(now())
    headers = dict(headers or {})
    for seat, account in enumerate(accounts):
        score = first if seat == 0 else 1.0 - first
        after = bounded(update(before[seat], [(before[1 - seat], score)]))
        cursor.execute(
            f"UPDATE ratings SET rating = {mark}, deviation = {mark}, volatility = {mark}, "
            f"games = games + 1 WHERE account_id = {mark} AND game = {mark}",
            (after.rating, after.deviation, after.volatility, account, kind),
        )
        cursor.execute(
            "INSERT INTO rating_history (account_id, game, game_id, rating, deviation, "
            f"played) VALUES ({mark}, {mark}, {mark}, {mark}, {mark}, {mark})",
            (account, kind, game_id, after.rating, after.deviation, moment),
        )
        side = players[seat].capitalize()
        headers[f"{side}Rating"] = shown_rating(before[seat].rating, before[seat].deviation)
        headers[f"{side}RatingDiff"] = f"{round(after.rating) - round(before[seat].rating):+d}"
    cursor.execute(
        f"UPDATE games SET headers = {mark} WHERE id = {mark}", (sql.headers(headers), game_id)
    )


def _json(value: Any) -> Any:
    """A JSON column's value as a driver gives it: parsed (PostgreSQL) or text (SQLite)."""
    return json.loads(value) if isinstance(value, str | bytes) else value


def _rating(row: PuzzleRatingRow | PuzzlePlayerRow) -> Rating:
    return Rating(row.rating, row.deviation, row.volatility)


def _stored(row: GameRow, actions: tuple[str, ...]) -> StoredGame:
    return StoredGame(
        id=row.id,
        game=row.game,
        options=dict(row.options),
        start=row.start,
        seats=(row.seats[0], row.seats[1]),
        headers=dict(row.headers),
        owner=row.owner,
        resigned=row.resigned,
        actions=actions,
        result=row.result,
        updated=row.updated,
        revision=row.revision,
        seat_keys=None if row.seat_keys is None else (row.seat_keys[0], row.seat_keys[1]),
        open_seat=row.open_seat,
        listed=bool(row.listed),
        ending=row.ending,
        draw_offer=row.draw_offer,
        takeback_offer=row.takeback_offer,
        rematch=row.rematch,
        clock=None if row.clock is None else dict(row.clock),
        names=(None, None) if row.names is None else (row.names[0], row.names[1]),
        snapshot=row.snapshot,
        accounts=(None, None)
        if row.seat_accounts is None
        else (row.seat_accounts[0], row.seat_accounts[1]),
        rated=bool(row.rated),
        rating_range=None
        if row.rating_range is None
        else (row.rating_range[0], row.rating_range[1]),
    )


def announcement(
    game_id: str,
    revision: int,
    action: str | None = None,
    clock: dict[str, Any] | None = None,
    chat: int = 0,
) -> str:
    """The payload that announces a change on ``CHANNEL``: the process that made it, the
    game and its new revision, then as JSON the action and the clock after it, when the
    change is an action (so that another process need not read it), or the number of a
    new line of its chat. Every process hears every announcement: what comes before the
    JSON lets one without the game's room skip it unread (``heard``)."""
    head, tail = announcement_around(game_id, action, clock, chat)
    return f"{head}{revision}{tail}"


def announcement_around(
    game_id: str, action: str | None = None, clock: dict[str, Any] | None = None, chat: int = 0
) -> tuple[str, str]:
    """An announcement (``announcement``) as the texts before and after its revision,
    for a statement that learns the revision as it writes it."""
    data: dict[str, Any] = {"chat": chat} if chat else {}
    if action is not None:
        data["a"] = action
        data["c"] = clock
    return f"{ORIGIN} {game_id} ", f" {json.dumps(data)}"


def heard(payload: str) -> tuple[str, str, int, str]:
    """An announcement's origin, game, revision and JSON (``announcement``)."""
    origin, game_id, revision, data = payload.split(" ", 3)
    return origin, game_id, int(revision), data


class Appending:
    """An action's statements in the driver's own terms, made once for a database: the
    game's row (only if it still has the actions the player saw, and goes on) and the
    action's. Values go through the columns' own conversions, as SQLAlchemy's would."""

    def __init__(self, dialect: Any) -> None:
        mark = "?" if dialect.paramstyle == "qmark" else "%s"
        check = f"WHERE id = {mark} AND length = {mark} AND resigned IS NULL AND ending IS NULL"
        setting = (
            f"length = {mark}, result = {mark}, draw_offer = NULL, takeback_offer = NULL, "
            f"updated = {mark}, "
            f"snapshot = {mark}"
        )
        ending = "revision = revision + 1 " + check + " RETURNING revision"
        self.update = f"UPDATE games SET {setting}, {ending}"
        self.update_with_clock = f"UPDATE games SET {setting}, clock = {mark}, {ending}"
        self.length = f"SELECT length FROM games WHERE id = {mark}"
        values = ", ".join([mark] * 4)
        self.insert = f"INSERT INTO actions (game_id, ply, action, played) VALUES ({values})"
        # PostgreSQL: the game's row, the action's and the announcement in one statement
        # (one round trip an action, not three); the action is kept, and announced, only
        # if the game's row changed
        self.append, self.append_with_clock = (
            f"WITH changed AS ({update}), kept AS (INSERT INTO actions (game_id, ply, action, "
            f"played) SELECT {values} FROM changed) "
            f"SELECT revision, pg_notify({mark}, {mark} || revision || {mark}) FROM changed"
            for update in (self.update, self.update_with_clock)
        )
        columns = GameRow.__table__.c
        self.moment = _converter(columns.updated.type, dialect)
        self.clock = _converter(columns.clock.type, dialect)
        self.headers = _converter(columns.headers.type, dialect)
        self.mark = mark
        #: how a row read is locked until the transaction ends (SQLite locks it all)
        self.lock = " FOR UPDATE" if dialect.name == "postgresql" else ""


def _converter(kind: Any, dialect: Any) -> Callable[[Any], Any]:
    """How a column of type ``kind`` gives the driver a value."""
    process = kind.dialect_impl(dialect).bind_processor(dialect)
    return process or (lambda value: value)


def safe_url(url: str) -> str:
    """The database URL without its password."""
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def open_engine(url: str) -> Engine:
    """An engine for ``url``; SQLite gets WAL, full syncs, foreign keys and transactions
    that lock when they begin, so a killed server loses nothing it has said was stored
    and two changes at once are one after the other."""
    server = not url.startswith("sqlite")
    # a server's connections are kept (not opened and closed for each burst of requests)
    pooled = {"pool_size": 20, "max_overflow": 10} if server else {}
    # a server's connection may have been dropped (a restart): checked before use; a
    # SQLite file's never is
    engine = create_engine(url, pool_pre_ping=server, **pooled)
    if engine.dialect.name == "sqlite":
        database = engine.url.database
        if database and database != ":memory:":
            Path(database).parent.mkdir(parents=True, exist_ok=True)

        @event.listens_for(engine, "connect")
        def _pragmas(connection: Any, _: Any) -> None:
            connection.isolation_level = None  # transactions begin below, not in the driver
            cursor = connection.cursor()
            # the server copies the log into the database beside its writers (``checkpoint``);
            # a commit does so itself only once the log is large (40 MB), as a fallback
            pragmas = ("journal_mode=WAL", "synchronous=FULL", "foreign_keys=ON")
            for pragma in (*pragmas, f"wal_autocheckpoint={CHECKPOINT_PAGES}"):
                cursor.execute(f"PRAGMA {pragma}")
            cursor.execute("PRAGMA busy_timeout=10000")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _begin(connection: Any) -> None:
            # SQLite ignores FOR UPDATE: a transaction that writes takes the write lock
            # when it begins, so what it read still holds when it writes (two people
            # taking one seat, an action and a resignation at once: one after the other,
            # never both). One that only reads sees a snapshot and waits for nobody.
            reading = connection.get_execution_options().get("reading", False)
            connection.exec_driver_sql("BEGIN" if reading else "BEGIN IMMEDIATE")

    return engine


#: Pages of SQLite's write-ahead log after which a commit copies it into the database
#: itself (while holding up the writer behind it): only if ``Store.checkpoint`` has not.
CHECKPOINT_PAGES = 10_000


def migrate(engine: Engine) -> tuple[str | None, str]:
    """Bring the database to the newest schema with the Alembic migrations shipped in the
    package (a new database is created by them too): its schema before and after."""
    from alembic import command

    before, _newest = schema_of(engine)
    with engine.begin() as connection:
        config = alembic_config()
        config.attributes["connection"] = connection
        command.upgrade(config, "head")
    return before, schema_of(engine)[0] or "base"


def schema_of(engine: Engine) -> tuple[str | None, str]:
    """The database's schema (None for an empty database) and the newest one."""
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    newest = ScriptDirectory.from_config(alembic_config()).get_current_head() or "base"
    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision(), newest


def alembic_config() -> Any:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


def dumps(value: Any) -> str:
    return json.dumps(value, sort_keys=True)
