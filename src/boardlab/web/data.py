"""What the web app knows of a game, as plain data: a stored game, a line of chat, who
asks, and the errors that refuse a request. The rooms, the service and every storage
backend speak in these; none of them needs HTTP or SQL to be read.
"""

from __future__ import annotations

import functools
import hashlib
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

import orjson

from boardlab.core.errors import BoardlabError
from boardlab.core.i18n import _, counted
from boardlab.web import clock
from boardlab.web.clock import Clock

#: A seat a person plays (else an agent's spec).
HUMAN = "human"
#: The name a deleted account leaves on its games: no player can give it (names refuse
#: control characters), and it is shown as "deleted player" in the reader's language.
DELETED_NAME = "\x7fdeleted"


def message_text(data: Any) -> str:
    """A message to pages as JSON text: made by orjson, as a server makes one for each
    change of each game (some 15 times quicker than ``json.dumps``)."""
    return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS).decode()


class RequestError(BoardlabError):
    """A request the game cannot take (illegal, malformed, nothing to undo): the page
    shows the message and the game is unchanged."""


class NotYourSeat(RequestError):
    """An action for a seat the asker does not hold: a spectator, another game's secret."""


class StaleError(BoardlabError):
    """An answer to a ply that is no longer the current one."""


class Conflict(StaleError):
    """The database holds another state of the game than the one a change was made
    from: another server process changed it first."""


class NotFound(BoardlabError):
    """No game of that id."""


class SeatTaken(BoardlabError):
    """A seat someone else took first, or one that is not open."""


class DatabaseAway(BoardlabError):
    """The database cannot be reached now (restarting, the network down): the request
    is refused, to be sent again, and nothing was changed."""


@dataclass(frozen=True)
class StoredGame:
    """A game as stored: enough to rebuild its record."""

    id: str
    game: str
    options: dict[str, Any]
    start: str | None
    seats: tuple[str, str]
    headers: dict[str, str]
    owner: str
    resigned: int | None
    actions: tuple[str, ...]
    result: str
    updated: datetime
    revision: int
    seat_keys: tuple[str | None, str | None] | None = None
    open_seat: int | None = None
    listed: bool = False
    ending: str | None = None
    draw_offer: int | None = None
    takeback_offer: int | None = None
    rematch: str | None = None
    clock: dict[str, Any] | None = None
    names: tuple[str | None, str | None] = (None, None)
    #: where the last turn began and the turns before it (``rooms.snapshot_text``), so
    #: that a room loads without playing every action again; None: not kept
    snapshot: str | None = None
    #: the account holding each seat (None: a guest, an agent, or open)
    accounts: tuple[int | None, int | None] = (None, None)
    #: whether the game's end moves its players' ratings (both seats held by accounts)
    rated: bool = False
    #: a seek's rating range (lowest, highest): only an account rated within it at this
    #: game takes the open seat; None: anyone may
    rating_range: tuple[int, int] | None = None


@dataclass(frozen=True)
class ChatLine:
    """A line of chat: its number (growing in a game), who said it and when."""

    n: int
    seat: int
    text: str
    said: datetime


@dataclass(frozen=True)
class Append:
    """An action to store (``Store.append_many``): action number ``ply`` of the game,
    the result after it, the clock after it (None: unchanged) and the game's snapshot
    after it (None: none kept)."""

    game_id: str
    ply: int
    action: str
    result: str
    clock: dict[str, Any] | None = None
    snapshot: str | None = None


def shown_name(name: str | None, english: bool = False) -> str | None:
    """A player's name as shown: a deleted account's in words (in English for a record's
    headers, which are data)."""
    if name != DELETED_NAME:
        return name
    return "deleted player" if english else _("deleted player")


def new_secret() -> str:
    """The secret that acts for a seat: in a cookie, a seat link or an invitation."""
    return secrets.token_urlsafe(24)


def key_of(secret: str) -> str:
    """What the database keeps of a secret: its hash, so a copy of the database or a
    log of it acts for no one."""
    return hashlib.sha256(secret.encode()).hexdigest()


@dataclass(frozen=True)
class Viewer:
    """Who is asking about a game: the secrets it sent for it (a cookie, a header)."""

    secrets: tuple[str, ...] = ()
    #: the bot whose token the request sent (web/bots.py): the seats its account holds
    bot: int | None = None

    @functools.cached_property
    def keys(self) -> frozenset[str]:
        """The hashes of its secrets, worked out once (a page asks at each action)."""
        return frozenset(key_of(secret) for secret in self.secrets)

    def seats(self, stored: StoredGame) -> frozenset[int]:
        """The seats this viewer acts for; none for a spectator."""
        if stored.seat_keys is None or not (self.secrets or self.bot is not None):  # no keys yet
            return frozenset()
        keys = self.keys
        bot = self.bot
        return frozenset(
            k
            for k, key in enumerate(stored.seat_keys)
            if k != stored.open_seat
            and (
                (key is not None and key in keys) or (bot is not None and stored.accounts[k] == bot)
            )
        )


SPECTATOR = Viewer()


def online(stored: StoredGame) -> bool:
    """A game between two people who each hold a seat (or one waits for the other)."""
    keys = stored.seat_keys
    if keys is None or not all(spec == HUMAN for spec in stored.seats):
        return False
    return stored.open_seat is not None or keys[0] != keys[1]


def new_id() -> str:
    """An unguessable game id that reads well in a link."""
    return secrets.token_urlsafe(9)


def possible_id(game_id: str) -> bool:
    """Whether a game could have this id: not one longer than any id, nor one with a
    NUL, which PostgreSQL would refuse to even look up (a server error, not "no such
    game")."""
    return len(game_id) <= 32 and "\0" not in game_id


def no_game(game_id: str) -> NotFound:
    shown = game_id if len(game_id) <= 40 else game_id[:40] + "…"
    return NotFound(_("no game {game!r} here").format(game=shown))


def stale_message(length: int, ply: int) -> str:
    """Why an answer to the position after ``ply`` actions comes too late for a game of
    ``length`` actions."""
    return _(
        "the game has moved on: this was sent when the game held {sent}, and it now "
        "holds {held}; the board shows it as it stands"
    ).format(
        sent=counted(ply, "{n} action", "{n} actions") if ply > 0 else _("no action"),
        held=counted(length, "{n} action", "{n} actions"),
    )


def clock_started(running: Clock | None, open_seat: int | None, result: str) -> Clock | None:
    """The clock of a game whose two players are both at the board: a standing clock of
    a game that goes on, both seats taken, runs from now for the player to act (a
    rematch's, which stands until both have come to it). None: nothing to start."""
    if running is None or running["since"] is not None or open_seat is not None:
        return None
    return clock.start(running, clock.milliseconds()) if result == "*" else None


def seat_taken(
    keys: Sequence[str | None] | None,
    open_seat: int | None,
    result: str,
    listed: bool,
    seat: int,
    key: str,
    invited: str | None,
) -> tuple[str | None, str | None]:
    """A game's seat keys once ``key`` takes ``seat``: only while that seat is open and
    the game goes on, by the invitation whose hash is ``invited`` or, with None, from
    the lobby (the game must be listed); else refused (``SeatTaken``)."""
    held = list(keys or (None, None))
    if result != "*":  # (aborted while it waited, its invitation withdrawn)
        raise SeatTaken(_("this game has ended: its seat is open no more"))
    if open_seat != seat:
        raise SeatTaken(_("this seat is not open: someone has taken it"))
    if invited is None and not listed:
        raise SeatTaken(_("this game is not in the lobby: its seat opens by invitation"))
    if invited is not None and held[seat] != invited:
        raise SeatTaken(
            _("this invitation does not open the seat: ask its maker for the link again")
        )
    held[seat] = key
    return held[0], held[1]


@dataclass(frozen=True)
class NewGame:
    """A game to make (``GameStore.create``): ``game`` of ``options`` with ``seats`` (a
    person or an agent's spec each), made by ``owner`` (a browser's id), from ``start``
    (None: the game's initial position), with ``headers`` and ``actions`` already played,
    ``resigned`` and ``result`` (an uploaded record). ``seat_keys`` are the hashes of the
    secrets that act for its seats; ``open_seat`` waits for an opponent, in the lobby when
    ``listed`` (for players rated within ``rating_range`` only, if given); ``ending`` is
    how it ended, ``clock`` its clock, ``names`` its players' names; ``accounts`` hold
    seats, and a ``rated`` game's end moves their ratings."""

    game: str
    options: dict[str, Any]
    seats: Sequence[str]
    owner: str
    start: str | None = None
    headers: dict[str, str] | None = None
    actions: Sequence[str] = ()
    resigned: int | None = None
    result: str = "*"
    seat_keys: Sequence[str | None] | None = None
    open_seat: int | None = None
    listed: bool = False
    ending: str | None = None
    clock: dict[str, Any] | None = None
    names: Sequence[str | None] = (None, None)
    accounts: Sequence[int | None] = (None, None)
    rated: bool = False
    rating_range: Sequence[int] | None = None


class GameStore(Protocol):
    """Where games live, as the service and the pages use it: ``Store`` (SQLAlchemy, on
    SQLite or PostgreSQL) or ``MemoryStore`` (one process, nothing kept). Each method is
    one step that holds or fails whole; a change answers the game's revision after it,
    and a change to a ply the game no longer holds is refused (``Conflict``)."""

    url: str
    #: whether changes are announced to other server processes (``listen_url``)
    announces: bool

    def create(self, new: NewGame) -> str: ...
    def load(self, game_id: str) -> StoredGame: ...
    def append_many(self, appends: Sequence[Append]) -> list[int | BoardlabError]: ...
    def truncate(
        self, game_id: str, ply: int, length: int, clock: dict[str, Any] | None = None
    ) -> int: ...
    def end(
        self,
        game_id: str,
        ply: int,
        player: int | None,
        result: str,
        reason: str = "resign",
        clock: dict[str, Any] | None = None,
    ) -> int: ...
    def offer_draw(self, game_id: str, ply: int, player: int | None) -> int: ...
    def offer_takeback(self, game_id: str, ply: int, player: int | None) -> int: ...
    def discard(self, game_id: str) -> None: ...
    def link_rematch(self, game_id: str, rematch: str) -> str: ...
    def start_clock(self, game_id: str) -> int: ...
    def take_seat(
        self,
        game_id: str,
        seat: int,
        key: str,
        invited: str | None,
        name: str | None = None,
        account: int | None = None,
    ) -> int: ...
    def say(self, game_id: str, seat: int, text: str) -> ChatLine: ...
    def chat(self, game_id: str, after: int = 0, limit: int = 500) -> list[ChatLine]: ...
    def lobby(self, limit: int = 100) -> list[StoredGame]: ...
    def games_of(self, owner: str, limit: int = 200) -> list[StoredGame]: ...
    def review(self, game_id: str, agent: str, length: int) -> dict[str, Any] | None: ...
    def keep_review(self, game_id: str, agent: str, length: int, data: dict[str, Any]) -> None: ...
    def count(self) -> int: ...
    def checkpoint(self) -> Any: ...
    def close(self) -> None: ...
    def listen_url(self) -> str: ...


def rated_seat(other: int | None, account: int | None) -> None:
    """Refuse a seat of a rated game to a guest, or to the account holding the other."""
    if account is None:
        raise RequestError(
            _("this game is rated: sign in to take its seat (guests play unrated games)")
        )
    if account == other:
        raise RequestError(_("this game is rated: you cannot play yourself in it"))


def rating_span(rating: float, width: int) -> list[int]:
    """A seek's range of ratings: ``width`` either side of its maker's ``rating`` at the
    game (rounded), never below 0."""
    mine = round(rating)
    return [max(0, mine - width), mine + width]


def check_range(rating_range: Sequence[int] | None, account: int | None, rating: float) -> None:
    """Refuse the seat of a seek with a rating range to a guest, or to an account whose
    ``rating`` at its game lies outside it (both ends included)."""
    if rating_range is None:
        return
    low, high = rating_range
    if account is None:
        raise RequestError(
            _(
                "this game is for players rated {low} to {high}: sign in to take its seat "
                "(guests take seats without a rating range)"
            ).format(low=low, high=high)
        )
    if not low <= round(rating) <= high:
        raise RequestError(
            _(
                "this game is for players rated {low} to {high}, and your rating at this game "
                "is {rating}: choose another game, or make one of your own"
            ).format(low=low, high=high, rating=round(rating))
        )


#: A rating is provisional while its deviation is above this (lichess's rule).
PROVISIONAL = 110.0


def shown_rating(rating: float, deviation: float) -> str:
    """A rating as pages and headers show it: rounded, ``?`` after a provisional one."""
    return f"{round(rating)}{'?' if deviation > PROVISIONAL else ''}"
