"""Challenges: one account asks another, by name, to play a game (its options, clock,
rated or casual, the challenger's side); the challenged accepts or declines, the
challenger may cancel, and an unanswered challenge expires (after ten minutes, as on
lichess). Accepting makes the game online, each seat held by its account.

A seat is held by its secret alone (docs/web.md, "Who may do what"), so the challenger
is given the secret of their seat to come when they make the challenge, in the answer
to their own request (``seat``, and the cookie ``challenge-ID`` for a browser); the
database keeps only its hash. When the challenge is accepted, that hash holds the
challenger's seat, and the challenger's browser turns its challenge cookie into the
game's seat cookie (``seat_for``). Nobody else is ever sent it: the challenged gets a
secret of their own with the game.
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, or_, select
from sqlalchemy.orm import Session, aliased

import boardlab
from boardlab.core.errors import BoardlabError, OptionError, UnknownGameError, clipped
from boardlab.core.i18n import _
from boardlab.web.accounts import Account, name_key
from boardlab.web.clock import new_clock, parse_control
from boardlab.web.data import (
    HUMAN,
    NewGame,
    NotFound,
    NotYourSeat,
    RequestError,
    key_of,
    new_id,
    new_secret,
)
from boardlab.web.store import AccountRow, ChallengeRow, Store
from boardlab.web.talk import printable

#: Seconds an unanswered challenge stays open.
CHALLENGE_SECONDS = 600
#: Open challenges at once, per challenger and per challenged.
MOST_OPEN = 10
#: Seconds a challenge is kept after it was answered or expired (both players learn how
#: it went), and the most of them listed.
KEPT_SECONDS, MOST_LISTED = 86400, 50
#: The longest reason a decline may give.
REASON_MAX = 200
#: The challenger's side, as a request names it: ``south`` the first player, ``north``
#: the second (a game's own names for its players are taken too), ``random`` by lot.
SIDES = {"south": "0", "north": "1", "random": "random"}
SIDE_WORDS = {value: word for word, value in SIDES.items()}
#: The cookie that holds the challenger's seat secret until the game is made.
COOKIE = "challenge"


class NotYourChallenge(NotYourSeat):
    """A change to a challenge by the other party (the challenger accepting, the
    challenged cancelling)."""


@dataclass(frozen=True)
class Challenge:
    id: str
    challenger: str
    challenged: str
    challenger_id: int
    game: str
    options: dict[str, Any]
    clock: tuple[int, int] | None
    rated: bool
    #: the challenger's side: ``0``, ``1`` or ``random``
    side: str
    #: ``open``, ``accepted``, ``declined``, ``cancelled`` or ``expired``
    status: str
    reason: str | None
    game_id: str | None
    created: datetime
    expires: datetime
    challenger_key: str

    def json(self) -> dict[str, Any]:
        """As the API answers it (never with a secret or its hash)."""
        control = None if self.clock is None else f"{self.clock[0] // 60}+{self.clock[1]}"
        found: dict[str, Any] = {
            "id": self.id,
            "from": self.challenger,
            "to": self.challenged,
            "game": self.game,
            "options": self.options,
            "clock": control,
            "rated": self.rated,
            "side": SIDE_WORDS[self.side],
            "status": self.status,
            "reason": self.reason,
            "created": self.created.isoformat(),
            "expires": self.expires.isoformat(),
        }
        if self.game_id is not None:
            found["game_id"], found["url"] = self.game_id, f"/play/{self.game_id}"
        return found


@dataclass(frozen=True)
class Terms:
    """What a game proposed to others proposes (a challenge, a bot's seek), checked:
    the game, its options changed from the defaults, the clock (base and increment
    seconds), rated or casual, and the proposer's side (``0``, ``1`` or ``random``)."""

    game: str
    options: dict[str, Any]
    clock: tuple[int, int] | None
    rated: bool
    side: str


@dataclass(frozen=True)
class Proposal(Terms):
    """What a challenge proposes, checked: its terms and the player challenged."""

    to: str = ""


def read_terms(game: Any, options: Any, clock: Any, rated: Any, side: Any, longest: int) -> Terms:
    """A proposed game's terms as a request gives them, each refused with what is
    valid; ``longest`` the most actions a game may hold on this server."""
    try:
        made = boardlab.new_game(str(game), **(options or {}))
    except UnknownGameError:
        raise RequestError(
            _("unknown game {game!r}: choose one of {games}").format(
                game=clipped(str(game), 32), games=", ".join(boardlab.game_ids())
            )
        ) from None
    except (OptionError, TypeError, ValueError) as error:
        raise RequestError(
            _("options not allowed for {game}: {why}").format(game=game, why=clipped(str(error)))
        ) from None
    if made.max_actions > longest:
        raise RequestError(
            _("these options allow games longer than this server keeps: choose a shorter game")
        )
    kept = dict(made.non_default_options())
    if rated and kept:
        raise RequestError(
            _(
                "only a game under the default rules is rated: leave the options at their "
                "defaults, or ask for a casual game"
            )
        )
    control = None
    if clock is not None:
        if not isinstance(clock, str):
            raise RequestError(_("bad clock: expected MINUTES+SECONDS such as 5+3, or null"))
        try:
            control = parse_control(clock.strip())
        except BoardlabError as error:
            raise RequestError(str(error)) from None
    own = {name.lower(): str(k) for k, name in enumerate(made.players)}
    chosen = SIDES.get(side) if isinstance(side, str) else None
    chosen = chosen or (own.get(side.lower()) if isinstance(side, str) else None)
    if chosen is None:
        raise RequestError(
            _("bad side {side!r}: choose south (the first player), north or random").format(
                side=clipped(str(side), 32)
            )
        )
    return Terms(made.id, kept, control, bool(rated), chosen)


def read_proposal(
    to: Any, game: Any, options: Any, clock: Any, rated: Any, side: Any, longest: int
) -> Proposal:
    """A challenge's terms as a request gives them, each refused with what is valid;
    ``longest`` the most actions a game may hold on this server."""
    if not isinstance(to, str) or not to.strip():
        raise RequestError(_("name the player to challenge: 'to' is their name"))
    terms = read_terms(game, options, clock, rated, side, longest)
    return Proposal(**dataclasses.asdict(terms), to=to.strip())


def _challenge(row: ChallengeRow, challenger: str, challenged: str, moment: datetime) -> Challenge:
    expires = aware(row.expires)
    status = "expired" if row.status == "open" and expires <= moment else row.status
    return Challenge(
        id=row.id,
        challenger=challenger,
        challenged=challenged,
        challenger_id=row.challenger_id,
        game=row.game,
        options=dict(row.options),
        clock=None if row.clock is None else (row.clock[0], row.clock[1]),
        rated=bool(row.rated),
        side=row.side,
        status=status,
        reason=row.reason,
        game_id=row.game_id,
        created=aware(row.created),
        expires=expires,
        challenger_key=row.challenger_key,
    )


def aware(moment: datetime) -> datetime:
    """A time read back from SQLite (which keeps no zone) as UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def no_challenge(challenge_id: str) -> NotFound:
    return NotFound(
        _("no challenge {challenge!r} of yours here").format(challenge=clipped(challenge_id, 40))
    )


class ChallengeStore:
    """The challenges of one database; each method one transaction (called in a
    thread)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def create(self, challenger: Account, proposal: Proposal, key: str) -> Challenge:
        """A new open challenge, refused to oneself, to a name no account has, and past
        ``MOST_OPEN`` for either player."""
        moment = datetime.now(UTC)
        with self.store.session() as session:
            session.execute(  # the answered and expired ones, once both could learn it
                delete(ChallengeRow).where(
                    ChallengeRow.expires <= moment - timedelta(seconds=KEPT_SECONDS)
                )
            )
            found = session.scalar(
                select(AccountRow).where(AccountRow.key == name_key(proposal.to[:64]))
            )
            if found is None:
                raise RequestError(
                    _("there is no player named {name!r}: check the name").format(
                        name=clipped(proposal.to, 40)
                    )
                )
            if found.id == challenger.id:
                raise RequestError(_("you cannot challenge yourself: name another player"))
            for column, whose in (
                (ChallengeRow.challenger_id, challenger.id),
                (ChallengeRow.challenged_id, found.id),
            ):
                count = session.scalar(
                    select(func.count())
                    .select_from(ChallengeRow)
                    .where(column == whose, ChallengeRow.status == "open")
                    .where(ChallengeRow.expires > moment)
                )
                if (count or 0) >= MOST_OPEN:
                    mine = whose == challenger.id
                    raise RequestError(
                        (
                            _(
                                "you have {most} open challenges: wait for an answer or "
                                "cancel one first"
                            )
                            if mine
                            else _("{name} has {most} open challenges to answer: try again later")
                        ).format(most=MOST_OPEN, name=found.name)
                    )
            row = ChallengeRow(
                id=new_id(),
                challenger_id=challenger.id,
                challenged_id=found.id,
                game=proposal.game,
                options=proposal.options,
                clock=None if proposal.clock is None else list(proposal.clock),
                rated=proposal.rated,
                side=proposal.side,
                status="open",
                challenger_key=key,
                created=moment,
                expires=moment + timedelta(seconds=CHALLENGE_SECONDS),
            )
            session.add(row)
            session.flush()
            return _challenge(row, challenger.name, found.name, moment)

    def _rows(self, session: Session, *where: Any) -> list[Challenge]:
        moment = datetime.now(UTC)
        challenger, challenged = aliased(AccountRow), aliased(AccountRow)
        found = session.execute(
            select(ChallengeRow, challenger.name, challenged.name)
            .join(challenger, challenger.id == ChallengeRow.challenger_id)
            .join(challenged, challenged.id == ChallengeRow.challenged_id)
            .where(*where)
            .order_by(ChallengeRow.created.desc())
            .limit(MOST_LISTED)
        ).all()
        return [_challenge(row, a, b, moment) for row, a, b in found]

    def find(self, challenge_id: str, account: Account) -> Challenge:
        """A challenge of ``account``'s (made or received); another's is not found."""
        with self.store.reading() as session:
            found = self._rows(
                session,
                ChallengeRow.id == challenge_id[:32],
                or_(
                    ChallengeRow.challenger_id == account.id,
                    ChallengeRow.challenged_id == account.id,
                ),
            )
        if not found:
            raise no_challenge(challenge_id)
        return found[0]

    def of(self, account: Account) -> tuple[list[Challenge], list[Challenge]]:
        """The open challenges to ``account`` and every challenge it made that is kept
        (the latest first)."""
        moment = datetime.now(UTC)
        with self.store.reading() as session:
            incoming = self._rows(
                session,
                ChallengeRow.challenged_id == account.id,
                ChallengeRow.status == "open",
                ChallengeRow.expires > moment,
            )
            outgoing = self._rows(session, ChallengeRow.challenger_id == account.id)
        return incoming, outgoing

    def answer(self, challenge_id: str, account: Account, change: str, reason: str | None) -> None:
        """``decline`` (the challenged, with an optional ``reason``) or ``cancel`` (the
        challenger) an open challenge."""
        with self.store.session() as session:
            row = self._open(session, challenge_id, account, change)
            row.status = "declined" if change == "decline" else "cancelled"
            row.reason = reason

    def accept(self, challenge_id: str, account: Account, key: str, owner: str) -> str:
        """Accept an open challenge to ``account``: its game made in the same
        transaction, online, each seat held by its account and its secret (``key`` the
        hash of the challenged's), the clock standing until both players have come to
        the board; its id."""
        with self.store.session() as session:
            row = self._open(session, challenge_id, account, "accept")
            side = int(row.side) if row.side != "random" else secrets.randbelow(2)
            challenger = session.get(AccountRow, row.challenger_id)
            assert challenger is not None  # a challenge goes with its accounts
            keys: list[str | None] = [None, None]
            keys[side], keys[1 - side] = row.challenger_key, key
            held: list[int | None] = [None, None]
            held[side], held[1 - side] = row.challenger_id, account.id
            names: list[str | None] = [None, None]
            names[side], names[1 - side] = challenger.name, account.name
            game_id = Store.add_game(
                session,
                NewGame(
                    row.game,
                    dict(row.options),
                    [HUMAN, HUMAN],
                    owner,
                    seat_keys=keys,
                    clock=None if row.clock is None else new_clock(row.clock[0], row.clock[1]),
                    names=names,
                    accounts=held,
                    rated=bool(row.rated),
                ),
            )
            row.status, row.game_id = "accepted", game_id
            return game_id

    @staticmethod
    def _open(session: Session, challenge_id: str, account: Account, change: str) -> ChallengeRow:
        """The challenge's row, locked, if ``account`` may ``change`` it now."""
        row = session.get(ChallengeRow, challenge_id[:32], with_for_update=True)
        if row is None or account.id not in (row.challenger_id, row.challenged_id):
            raise no_challenge(challenge_id)
        mine = row.challenger_id if change == "cancel" else row.challenged_id
        if account.id != mine:
            raise NotYourChallenge(
                _("only its challenger may cancel a challenge")
                if change == "cancel"
                else _("only the player challenged may accept or decline a challenge")
            )
        if row.status != "open":
            raise RequestError(
                {
                    "accepted": _("this challenge was accepted already: its game is on"),
                    "declined": _("this challenge was declined: it is over"),
                    "cancelled": _("this challenge was cancelled: it is over"),
                }.get(row.status, _("this challenge is over"))
            )
        if aware(row.expires) <= datetime.now(UTC):
            raise RequestError(
                _("this challenge has expired (unanswered for {minutes} minutes)").format(
                    minutes=CHALLENGE_SECONDS // 60
                )
            )
        return row


class Challenges:
    """What the routes ask, each step stored in a thread. ``store`` is None where the
    server keeps no database (``--db memory:``): then every step says so."""

    def __init__(self, store: Store | None) -> None:
        self.store = None if store is None else ChallengeStore(store)

    def kept(self) -> ChallengeStore:
        """The store of challenges, or the refusal of a server that keeps none."""
        if self.store is None:
            raise RequestError(
                _("this server keeps no accounts, so no challenges: it runs with --db memory:")
            )
        return self.store

    async def make(self, challenger: Account, proposal: Proposal) -> tuple[Challenge, str]:
        """A new challenge and the secret of the challenger's seat to come (for the
        challenger alone: the database keeps its hash)."""
        secret = new_secret()
        made = await asyncio.to_thread(self.kept().create, challenger, proposal, key_of(secret))
        return made, secret

    async def find(self, challenge_id: str, account: Account) -> Challenge:
        return await asyncio.to_thread(self.kept().find, challenge_id, account)

    async def of(self, account: Account | None) -> tuple[list[Challenge], list[Challenge]]:
        if account is None or self.store is None:
            return [], []
        return await asyncio.to_thread(self.store.of, account)

    async def answer(
        self, challenge_id: str, account: Account, change: str, reason: Any = None
    ) -> None:
        text = check_reason(reason)
        await asyncio.to_thread(self.kept().answer, challenge_id, account, change, text)

    async def accept(self, challenge_id: str, account: Account, owner: str) -> tuple[str, str]:
        """The game made by accepting, and the challenged's seat secret."""
        secret = new_secret()
        game_id = await asyncio.to_thread(
            self.kept().accept, challenge_id, account, key_of(secret), owner
        )
        return game_id, secret


def check_reason(reason: Any) -> str | None:
    """A decline's reason: one line of up to ``REASON_MAX`` characters of text, or
    none."""
    if reason is None or (isinstance(reason, str) and not reason.strip()):
        return None
    text = " ".join(reason.split()) if isinstance(reason, str) else ""
    if not text or len(text) > REASON_MAX or not printable(text):
        raise RequestError(
            _("bad reason {text!r}: expected up to {most} characters of text on one line").format(
                text=clipped(str(reason), 60), most=REASON_MAX
            )
        )
    return text


def seat_for(challenge: Challenge, account: Account, cookies: Mapping[str, str]) -> str | None:
    """The challenger's seat secret for the game of an accepted challenge, from the
    cookie their browser was given with the challenge: only for the challenger, and only
    the secret whose hash holds the seat."""
    if challenge.game_id is None or account.id != challenge.challenger_id:
        return None
    secret = cookies.get(f"{COOKIE}-{challenge.id}", "")
    if 16 <= len(secret) <= 64 and key_of(secret) == challenge.challenger_key:
        return secret
    return None
