"""``boardlab connect``: an engine program plays online as a bot account, as lichess-bot
does for chess (docs/engine.md, *Playing online*).

The client talks to a boardlab server as its bot account (``Authorization: Bearer
TOKEN``): it asks for the challenges made to the bot every few seconds, accepts those of
games it plays (``accept``) while it has room (``games`` at once) and declines the
others with the reason, and follows each of its games over the game's live socket (the
seat's secret in ``X-Boardlab-Seat``, or the token alone for a seat the bot's account
holds). When the bot is to act it gives the engine the position (``position fen``) and
a move time from the clock (1/30 of what is left plus the increment, as ``boardlab
engine`` spends a clock; the ``movetime`` without one), and plays its ``bestmove``.

Told ``seeks`` (``--seek``), it keeps a seek of each open in the server's lobby while it
has room for a game (its games and open seeks at most ``games``), posts it again once
the game it made ends, withdraws seeks when a challenge it accepted fills its room, and
withdraws them all when it stops. A seek taken is one of the bot's games, found as the
games after a restart are.

The engine is driven by ``engine:cmd=...`` (``boardlab.ai.engine``): one program per
game, started with the game's id where the command says ``{game}`` (else after it, as
``boardlab engine GAME`` takes it) and told the game's options with ``setoption``; it
is ended when the game ends, when the client stops (Ctrl-C) or when it fails (the bot
then resigns that game rather than lose it on time). A socket that drops is opened
again, and the game picks up where it stands; a client started again finds its games
(``/api/bot/games``: the token holds the bot's seats). The win is claimed from an
opponent who left, once the server says it may be.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import shlex
import signal
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import boardlab
from boardlab.ai.base import Limit
from boardlab.ai.engine import HANDSHAKE, EngineAgent
from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game, Position
from boardlab.core.i18n import _
from boardlab.extras import require

#: Seconds between two looks at the bot's challenges and games.
POLL_SECONDS = 2.0
#: Games a client plays at once, at most (the server bounds a bot's games too).
MOST_GAMES = 8
#: Seconds an HTTP request may take; a dropped socket is opened again after
#: ``RECONNECT_SECONDS``, at most ``RECONNECTS`` times in a row.
REQUEST_SECONDS = 15.0
RECONNECT_SECONDS, RECONNECTS = 1.0, 30
#: Seconds between the kills of a game's engine that is being closed mid-search.
INTERRUPT_AGAIN = 0.05
#: Seconds a claim of the win waits at most (the server's minute, and a clock that
#: differs), and between two claims while the opponent stays away.
CLAIM_PATIENCE, CLAIM_AGAIN = 70.0, 5.0
#: A move never takes more of the clock than this share, and keeps this margin (ms)
#: for the way to the server.
CLOCK_SHARE, CLOCK_MARGIN = 30, 300
#: How a seek is written (``--seek``), in the words of the new game form.
SEEK_FORM = "GAME [NAME=VALUE...] [clock=MINUTES+SECONDS] [rated|casual] [range=N] [side=SIDE]"
#: A seek's words that are not the game's options, and the sides it may name.
SEEK_WORDS, SEEK_SIDES = ("clock", "range", "side"), ("south", "north", "random")


class ConnectError(BoardlabError):
    """What stops the client, said in one line (a bad address or token, a server away)."""


class BadSeek(ConnectError):
    """A ``--seek`` the server refused the first time it was posted: the client stops."""


class Refused(BoardlabError):
    """A request the server refused: its status and its one-sentence reason."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class SeekSpec:
    """A seek the bot keeps open in the lobby, as ``--seek`` wrote it (``text``): the
    game, its options, the clock, rated or casual, the range of ratings and the bot's
    side, as the server's ``POST /api/bot/seeks`` takes them."""

    text: str
    game: str
    #: the options changed from the defaults, as their texts (``nasty``, ``true``)
    options: tuple[tuple[str, str], ...] = ()
    clock: str | None = None
    rated: bool = False
    range: int | None = None
    side: str = "random"

    def body(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "options": dict(self.options),
            "clock": self.clock,
            "rated": self.rated,
            "range": self.range,
            "side": self.side,
        }

    def matches(self, seek: dict[str, Any]) -> bool:
        """Whether an open seek of the bot's is this one (a client started again takes
        over the seeks it left open)."""
        body = self.body()
        if any(seek.get(key) != body[key] for key in ("game", "clock", "rated")):
            return False
        try:
            game = boardlab.new_game(self.game, seek.get("options") or {})
        except (BoardlabError, TypeError, ValueError):
            return False
        return tuple(assignment(text) for text in game.option_assignments()) == self.options


def assignment(text: str) -> tuple[str, str]:
    """``NAME=VALUE`` as its two texts."""
    name, _equals, value = text.partition("=")
    return name, value


def read_seek(text: str) -> SeekSpec:
    """A ``--seek``, e.g. ``GAME clock=5+3 rated``: the game first, then its options
    (``NAME=VALUE``, as ``--option`` takes them), ``clock=M+S``, ``rated`` or
    ``casual``, ``range=N`` (the ratings that near the bot's take it) and ``side=``;
    each problem one sentence quoting the seek and saying what is valid. The server
    checks the rest (a clock's bounds, the ranges it offers, a rated game's rules)."""
    words = text.split()

    def bad(why: str) -> ConnectError:
        return ConnectError(
            _("bad --seek {seek!r}: {why}; write {form}").format(seek=text, why=why, form=SEEK_FORM)
        )

    if not words:
        raise bad(_("it is empty"))
    game_id, values = words[0], {}
    if game_id not in boardlab.game_ids():
        raise bad(
            _("unknown game {game!r} (choose from {games})").format(
                game=game_id, games=", ".join(boardlab.game_ids())
            )
        )
    rated = False
    for word in words[1:]:
        if word in ("rated", "casual"):
            rated = word == "rated"
            continue
        name, equals, value = word.partition("=")
        if not equals or not name or not value:
            raise bad(_("{word!r} is not NAME=VALUE, rated or casual").format(word=word))
        values[name] = value
    clock = values.pop("clock", None)
    if clock is not None and not re.fullmatch(r"\d{1,3}\+\d{1,2}", clock):
        raise bad(
            _("bad clock {clock!r}: expected MINUTES+SECONDS such as 5+3").format(clock=clock)
        )
    width = values.pop("range", None)
    if width is not None and not width.isdigit():
        raise bad(_("bad range {range!r}: expected a number such as 200").format(range=width))
    side = values.pop("side", "random")
    if side not in SEEK_SIDES:
        raise bad(
            _("bad side {side!r}: choose {sides}").format(side=side, sides=", ".join(SEEK_SIDES))
        )
    try:
        game = boardlab.new_game(game_id, values)
    except (BoardlabError, TypeError, ValueError) as error:
        raise bad(str(error)) from None
    options = tuple(assignment(text) for text in game.option_assignments())
    return SeekSpec(
        text, game_id, options, clock, rated, None if width is None else int(width), side
    )


@dataclass(frozen=True)
class Settings:
    """What ``boardlab connect`` was told."""

    url: str
    token: str
    engine: str
    games: int = 1
    #: the games it accepts challenges to (None: every game)
    accept: frozenset[str] | None = None
    #: seconds a move takes in a game without a clock
    movetime: float = 1.0
    poll: float = POLL_SECONDS
    #: the seeks it keeps open in the lobby
    seeks: tuple[SeekSpec, ...] = ()


def check_settings(
    url: str,
    token: str,
    engine: str,
    games: int = 1,
    accept: Iterable[str] | None = None,
    seeks: Iterable[str] = (),
) -> Settings:
    """The settings, checked: each problem one sentence quoting what was given."""
    base = server_url(url)
    if not token.strip() or any(c.isspace() for c in token.strip()):
        raise ConnectError(
            _("the token is empty or has spaces in it: give the bot's API token as it was shown")
        )
    try:
        words = shlex.split(engine)
    except ValueError as error:
        words, engine = [], f"{engine} ({error})"
    if not words:
        raise ConnectError(
            _("bad engine {cmd!r}: give the command of a UGI engine").format(cmd=engine)
        )
    if not 1 <= games <= MOST_GAMES:
        raise ConnectError(
            _("bad --games {count}: choose a number from 1 to {most}").format(
                count=games, most=MOST_GAMES
            )
        )
    chosen = None
    if accept is not None:
        known = boardlab.game_ids()
        chosen = frozenset(a.strip() for a in accept if a.strip())
        for game_id in sorted(chosen):
            if game_id not in known:
                raise ConnectError(
                    _("unknown game {game!r} in --accept: choose from {games}").format(
                        game=game_id, games=", ".join(known)
                    )
                )
    wanted = tuple(read_seek(text) for text in seeks)
    return Settings(base, token.strip(), engine, games, chosen, seeks=wanted)


def server_url(url: str) -> str:
    """The server's address without a trailing slash, or a ConnectError that says what
    would do."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConnectError(
            _("bad server address {url!r}: expected one like http://localhost:8000").format(url=url)
        )
    return urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))


class Server:
    """A boardlab server as the bot sees it: JSON over HTTP with its token."""

    def __init__(self, url: str, token: str) -> None:
        self.url = url
        self.token = token

    def headers(self, seat: str | None = None) -> dict[str, str]:
        found = {"Accept": "application/json"}
        if self.token:  # (a game played by its seat's secret alone needs none)
            found["Authorization"] = f"Bearer {self.token}"
        if seat:
            found["X-Boardlab-Seat"] = seat
        return found

    def request(
        self, method: str, path: str, body: dict[str, Any] | None = None, seat: str | None = None
    ) -> Any:
        """The JSON answer; a ``Refused`` for a refusal, a ``ConnectError`` when the
        server cannot be reached or answers something that is not boardlab's."""
        data = None if body is None else json.dumps(body).encode()
        headers = self.headers(seat)
        if data is not None:
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(self.url + path, data, headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=REQUEST_SECONDS) as answer:
                return json.loads(answer.read() or b"null")
        except urllib.error.HTTPError as error:
            message: Any = None
            with contextlib.suppress(ValueError, AttributeError, OSError):  # not boardlab's
                message = json.loads(error.read()).get("error")
            if not isinstance(message, str):
                message = f"HTTP {error.code} {error.reason}"
            raise Refused(error.code, message) from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            raise ConnectError(
                _("cannot reach {url}: {reason}").format(url=self.url, reason=reason)
            ) from None
        except ValueError:
            raise ConnectError(
                _("{url} did not answer as a boardlab server (not JSON)").format(url=self.url)
            ) from None

    def socket_url(self, game_id: str) -> str:
        parts = urlsplit(self.url)
        scheme = "wss" if parts.scheme == "https" else "ws"
        path = f"{parts.path}/ws/games/{quote(game_id, safe='')}"
        return urlunsplit((scheme, parts.netloc, path, "", ""))


class GameEngine(EngineAgent):
    """``engine:cmd=...`` for one game: told the game's options once it has started."""

    def __init__(self, command: str, game: Game[Any]) -> None:
        super().__init__(cmd=engine_command(command, game.id), timeout=5.0)
        self.assignments = [a.split("=", 1) for a in game.option_assignments()]

    def start(self) -> None:
        fresh = self.process is None or self.process.poll() is not None
        super().start()
        if fresh and self.assignments:
            for name, value in self.assignments:
                self.send(f"setoption name {name} value {value}")
            self.send("isready")
            deadline = time.perf_counter() + HANDSHAKE
            while not self.read(deadline, "readyok").startswith("readyok"):
                pass


def engine_command(command: str, game_id: str) -> str:
    """The engine's command for a game: its id where ``{game}`` stands, else after it."""
    if "{game}" in command:
        return command.replace("{game}", shlex.quote(game_id))
    return f"{command} {shlex.quote(game_id)}"


def move_time(state: dict[str, Any], seat: int, movetime: float) -> float:
    """Seconds the engine may think: 1/30 of the seat's clock plus the increment, less a
    margin for the way to the server; ``movetime`` in a game without a clock."""
    clock = state.get("clock")
    if not clock:
        return movetime
    left = float(clock["left"][seat])
    increment = float(clock.get("increment") or 0) * 1000
    budget = min(left / CLOCK_SHARE + increment, left - CLOCK_MARGIN) - CLOCK_MARGIN / 3
    return max(budget, 50.0) / 1000


@dataclass
class Table:
    """One game the bot plays: its engine, the seats it holds, what it has answered."""

    game_id: str
    seat: str | None
    you: list[int] = field(default_factory=list)
    answered: int = -1  # the ply of the last action sent
    next_id: int = 0
    engine: GameEngine | None = None
    over: bool = False
    ply: int = 0  # the game's, as last heard
    #: claiming the win from an opponent who left (see ``Bot.watch_away``)
    claiming: asyncio.Task[None] | None = None
    claims: set[int] = field(default_factory=set)  # the ids of the claims sent
    #: the engine's search under way, in a thread (see ``Bot.close``)
    thinking: asyncio.Future[str] | None = None

    def stop_claiming(self) -> None:
        if self.claiming is not None:
            self.claiming.cancel()
            self.claiming = None


class Bot:
    """The client: challenges accepted or declined, each game played to its end."""

    def __init__(self, settings: Settings, say: Callable[[str], None] = print) -> None:
        self.settings = settings
        self.server = Server(settings.url, settings.token)
        self.say = say
        self.tables: dict[str, Table] = {}
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self.name = ""
        #: the open seek of each of ``settings.seeks`` (its game's id), None: none open
        self.seeking: list[str | None] = [None] * len(settings.seeks)
        #: what the server last said when refusing each seek (said once, not each look)
        self.seek_refusals: list[str] = [""] * len(settings.seeks)
        #: whether each seek has been posted once (a first refusal is a bad seek)
        self.seek_posted: list[bool] = [False] * len(settings.seeks)
        #: the games of every seek it has made or taken over (once taken, it plays them)
        self.sought: set[str] = set()

    # ------------------------------------------------------------------ the account
    async def call(
        self, method: str, path: str, body: dict[str, Any] | None = None, seat: str | None = None
    ) -> Any:
        return await asyncio.to_thread(self.server.request, method, path, body, seat)

    async def sign_in(self) -> str:
        """The bot's name, asked with its token: a bad token stops the client."""
        try:
            account = await self.call("GET", "/api/bot/account")
        except Refused as refused:
            if refused.status in (401, 403):
                raise ConnectError(
                    _("{url} does not take this token: {reason}").format(
                        url=self.settings.url, reason=refused
                    )
                ) from None
            if refused.status == 404:
                raise ConnectError(
                    _("{url} has no bot accounts (a boardlab server before bots?)").format(
                        url=self.settings.url
                    )
                ) from None
            raise ConnectError(str(refused)) from None
        if not isinstance(account, dict) or not isinstance(account.get("name"), str):
            raise ConnectError(
                _("{url} did not answer as a boardlab server").format(url=self.settings.url)
            )
        self.name = account["name"]
        return self.name

    async def run(self) -> None:
        """Play until stopped: challenges and games, every ``poll`` seconds."""
        await self.sign_in()
        waiting = (
            _("connected to {url} as {name}: waiting for challenges and seeking")
            if self.settings.seeks
            else _("connected to {url} as {name}: waiting for challenges")
        )
        self.say(waiting.format(url=self.settings.url, name=self.name))
        try:
            while True:
                await self.look()
                await asyncio.sleep(self.settings.poll)
        finally:
            await self.stop()

    async def look(self) -> None:
        """One look: the bot's seeks still open, the games the bot's account holds a
        seat in (a seek taken, a game after a restart), the challenges made to it, then
        its seeks kept open while it has room."""
        seeking = bool(self.settings.seeks)
        if seeking:
            try:
                await self.seen_seeks()
            except Refused as refused:
                if refused.status in (403, 404):  # a server before bots' seeks
                    raise BadSeek(
                        _("{url} takes no seeks from bots: {reason}").format(
                            url=self.settings.url, reason=refused
                        )
                    ) from None
                self.say(_("the server refused: {reason}").format(reason=refused))
                seeking = False
            except ConnectError as error:  # the challenges are asked for as ever
                self.say(_("the server refused: {reason}").format(reason=error))
                seeking = False
        try:
            games = await self.call("GET", "/api/bot/games")
            for game_id in games.get("games", []):
                if not isinstance(game_id, str) or game_id in self.tasks:
                    continue
                if self.has_room() or game_id in self.sought:  # a seek of its own, taken
                    self.start_game(game_id, None)
            challenges = await self.call("GET", "/api/challenges")
        except (Refused, ConnectError) as error:
            self.say(_("the server refused: {reason}").format(reason=error))
            return
        for challenge in challenges.get("in", []):
            await self.answer(challenge)
        if seeking:
            try:
                await self.keep_seeks()
            except BadSeek:
                raise
            except (Refused, ConnectError) as error:  # it is tried again at the next look
                self.say(_("the server refused: {reason}").format(reason=error))

    def has_room(self) -> bool:
        return len(self.tasks) < self.settings.games

    # ------------------------------------------------------------------ its seeks
    async def seen_seeks(self) -> None:
        """Which of the bot's seeks are still open: one taken (its game is among the
        bot's games now) or withdrawn is free to be posted again; an open one left by
        a client before this one is taken over by the seek it matches."""
        found = await self.call("GET", "/api/bot/seeks")
        open_now = [seek for seek in found.get("seeks", []) if isinstance(seek, dict)]
        ids = {seek.get("id") for seek in open_now}
        self.seeking = [ident if ident in ids else None for ident in self.seeking]
        for seek in open_now:
            if seek.get("id") in self.seeking:
                continue
            for k, spec in enumerate(self.settings.seeks):
                if self.seeking[k] is None and spec.matches(seek):
                    self.seeking[k] = str(seek["id"])
                    self.sought.add(str(seek["id"]))
                    self.seek_posted[k] = True
                    break

    async def keep_seeks(self) -> None:
        """Seeks posted while the bot has room (its games and open seeks fewer than
        ``games``), the newest withdrawn when a challenge accepted left too little."""
        open_seeks = [k for k, ident in enumerate(self.seeking) if ident is not None]
        room = self.settings.games - len(self.tasks) - len(open_seeks)
        while room < 0 and open_seeks:
            await self.withdraw(open_seeks.pop())
            room += 1
        for k, spec in enumerate(self.settings.seeks):
            if room <= 0:
                return
            if self.seeking[k] is None:
                room -= await self.post_seek(k, spec)

    async def post_seek(self, k: int, spec: SeekSpec) -> int:
        """Post seek ``k``: 1 if it is open now. The server's first refusal of a seek is
        a bad seek, which stops the client; a later one (its bounds) is said once."""
        try:
            made = await self.call("POST", "/api/bot/seeks", spec.body())
        except Refused as refused:
            if not self.seek_posted[k] and refused.status in (400, 422):
                raise BadSeek(
                    _("bad --seek {seek!r}: {reason}").format(seek=spec.text, reason=refused)
                ) from None
            if str(refused) != self.seek_refusals[k]:
                self.seek_refusals[k] = str(refused)
                self.say(_("seek {seek!r}: {reason}").format(seek=spec.text, reason=refused))
            return 0
        self.seek_posted[k], self.seek_refusals[k] = True, ""
        self.seeking[k] = str(made["id"])
        self.sought.add(str(made["id"]))
        self.say(
            _("seeking in the lobby: {seek} (game {game})").format(seek=spec.text, game=made["id"])
        )
        return 1

    async def withdraw(self, k: int) -> None:
        """Withdraw seek ``k``: its game, which waits for its opponent, aborted."""
        ident, self.seeking[k] = self.seeking[k], None
        if ident is None:
            return
        with contextlib.suppress(Refused):  # taken and played meanwhile, or gone
            await self.call("POST", f"/api/games/{quote(ident, safe='')}/abort", {"ply": 0})

    def why_not(self, challenge: dict[str, Any]) -> str | None:
        """Why the bot declines a challenge (None: it plays it)."""
        game_id = str(challenge.get("game"))
        accept = self.settings.accept
        if game_id not in boardlab.game_ids() or (accept is not None and game_id not in accept):
            return _("this bot does not play {game}").format(game=game_id)
        options = challenge.get("options") or {}
        try:
            boardlab.new_game(game_id, **options)
        except BoardlabError as error:
            return _("this bot does not play these options: {error}").format(error=error)
        return None

    async def answer(self, challenge: dict[str, Any]) -> None:
        ident = quote(str(challenge.get("id")), safe="")
        reason = self.why_not(challenge)
        try:
            if reason is not None:
                await self.call("POST", f"/api/challenges/{ident}/decline", {"reason": reason})
                self.say(_("declined challenge {id}: {reason}").format(id=ident, reason=reason))
                return
            if not self.has_room():
                return  # it waits for a game to end (or expires)
            taken = await self.call("POST", f"/api/challenges/{ident}/accept", {})
        except (Refused, ConnectError) as refused:  # it is asked again at the next look
            self.say(_("challenge {id}: {reason}").format(id=ident, reason=refused))
            return
        self.say(_("accepted challenge {id}: game {game}").format(id=ident, game=taken["game"]))
        self.start_game(str(taken["game"]), taken.get("seat"))

    # ------------------------------------------------------------------ its games
    def start_game(self, game_id: str, seat: str | None) -> None:
        table = Table(game_id, seat)
        self.tables[game_id] = table
        task = asyncio.create_task(self.follow(table))
        self.tasks[game_id] = task
        task.add_done_callback(lambda _task: self.tasks.pop(game_id, None))

    async def follow(self, table: Table) -> None:
        """Play one game to its end over its socket, opening it again when it drops."""
        from websockets.asyncio.client import connect
        from websockets.exceptions import InvalidStatus, WebSocketException

        tries = 0
        try:
            while not table.over and tries < RECONNECTS:
                try:
                    async with connect(
                        self.server.socket_url(table.game_id),
                        additional_headers=self.server.headers(table.seat),
                        open_timeout=REQUEST_SECONDS,
                        proxy=None,
                    ) as socket:
                        tries = 0
                        table.answered = -1  # the game is sent afresh: answer what it shows
                        table.stop_claiming()  # (one of the socket before)
                        async for message in socket:
                            try:
                                heard = json.loads(message)
                                await self.hear(table, heard, socket.send)
                            except (ValueError, KeyError, TypeError, AttributeError):
                                self.say(
                                    _("game {game}: a message it cannot read: {text}").format(
                                        game=table.game_id, text=str(message)[:80]
                                    )
                                )
                            if table.over:
                                return
                except InvalidStatus as refused:  # the token or the game: no use trying again
                    status = refused.response.status_code
                    if status in (401, 403, 404):
                        self.say(
                            _("game {game}: the server refused its socket (HTTP {status})").format(
                                game=table.game_id, status=status
                            )
                        )
                        return
                except (OSError, WebSocketException, TimeoutError):
                    pass
                if not table.over:
                    if tries == 0:
                        self.say(
                            _("game {game}: the connection dropped; opening it again").format(
                                game=table.game_id
                            )
                        )
                    tries += 1
                    await asyncio.sleep(RECONNECT_SECONDS)
            if not table.over:
                self.say(_("game {game}: the server cannot be reached").format(game=table.game_id))
        finally:
            await self.close(table)

    async def hear(self, table: Table, message: dict[str, Any], send: Callable[[str], Any]) -> None:
        kind = message.get("type")
        if kind == "welcome":
            table.you = list(message.get("you", []))
            if not table.you:
                self.say(_("game {game}: this bot holds no seat in it").format(game=table.game_id))
                table.over = True
        elif kind == "state":
            table.ply = int(message["state"]["ply"])
            self.watch_away(table, message["state"], send)
            await self.turn(table, message["state"], send)
        elif kind == "status":
            self.watch_away(table, message, send)
        elif kind == "error" and message.get("id") in table.claims:
            pass  # a claim too early: the next one comes
        elif kind == "error" and message.get("status") != 409:  # 409: the game moved on
            self.say(
                _("game {game}: {reason}").format(game=table.game_id, reason=message.get("message"))
            )
        elif kind == "error" and message.get("status") == 409:
            table.answered = -1

    def watch_away(self, table: Table, status: dict[str, Any], send: Callable[[str], Any]) -> None:
        """Claim the win from an opponent who has left the game (no page of it open for
        a minute, as the server counts): a game abandoned must not hold one of the
        bot's places for ever. The claims start when the server says the win may be
        claimed and go on every few seconds while the opponent stays away."""
        others = [k for k in (0, 1) if k not in table.you]
        claim_from = status.get("claim_from") or [None, None]
        if table.over or len(others) != 1 or claim_from[others[0]] is None:
            table.stop_claiming()
            return
        if table.claiming is None:
            wait = (float(claim_from[others[0]]) - time.time() * 1000) / 1000
            table.claiming = asyncio.create_task(self.claim(table, send, wait))

    async def claim(self, table: Table, send: Callable[[str], Any], wait: float) -> None:
        from websockets.exceptions import WebSocketException

        await asyncio.sleep(min(max(wait, 0.0), CLAIM_PATIENCE))
        while not table.over:
            table.next_id += 1
            table.claims.add(table.next_id)
            try:
                await send(json.dumps({"type": "claim", "id": table.next_id, "ply": table.ply}))
            except (WebSocketException, OSError):  # its socket closed: the next one claims
                return
            await asyncio.sleep(CLAIM_AGAIN)

    async def turn(self, table: Table, state: dict[str, Any], send: Callable[[str], Any]) -> None:
        """Act if the bot is to act and has not answered this ply."""
        outcome = state.get("outcome")
        if outcome is not None:
            table.over = True
            self.say(
                _("game {game} is over: {result}").format(
                    game=table.game_id, result=outcome.get("sentence") or outcome.get("result")
                )
            )
            return
        seat, ply = state.get("to_act"), int(state["ply"])
        if seat not in table.you or ply == table.answered or state.get("open_seat") is not None:
            return
        table.answered = ply
        table.thinking = asyncio.ensure_future(asyncio.to_thread(self.think, table, state, seat))
        try:  # (shielded: the thread goes on when the game's task is cancelled)
            action = await asyncio.shield(table.thinking)
        except BoardlabError as fault:  # the engine failed (crashed, silent, illegal)
            self.say(
                _("game {game}: the engine failed ({reason}); resigning").format(
                    game=table.game_id, reason=fault
                )
            )
            await send(json.dumps({"type": "resign", "ply": ply}))
            return
        table.next_id += 1
        await send(json.dumps({"type": "play", "id": table.next_id, "ply": ply, "action": action}))

    def think(self, table: Table, state: dict[str, Any], seat: int) -> str:
        """The engine's action in the state's position, as a string."""
        options = dict(a.split("=", 1) for a in state.get("options", []))
        game = boardlab.new_game(state["game"], **options)
        position = Position(game, game.parse_state(state["position"]))
        if table.engine is None:
            table.engine = GameEngine(self.settings.engine, game)
        seconds = move_time(state, seat, self.settings.movetime)
        choice = table.engine.choose(position, Limit(time=seconds))
        return position.action_string(choice.action)

    async def close(self, table: Table) -> None:
        """End the game's claims and its engine. A search under way is cut short and
        waited for: its thread may be starting the engine, which must not outlive the
        client."""
        table.stop_claiming()
        while table.thinking is not None and not table.thinking.done():
            if table.engine is not None:  # (again: the thread may start it after)
                table.engine.interrupt()
            await asyncio.wait([table.thinking], timeout=INTERRUPT_AGAIN)
        if table.thinking is not None and not table.thinking.cancelled():
            table.thinking.exception()  # seen: a search cut short is no news
        engine, table.engine = table.engine, None
        if engine is not None:
            await asyncio.to_thread(engine.close)  # (it waits a second for the program)
        self.tables.pop(table.game_id, None)

    async def stop(self) -> None:
        """Withdraw the bot's seeks, and end every game's task and engine (the games go
        on without the bot)."""
        for k in range(len(self.seeking)):
            with contextlib.suppress(ConnectError):  # the server away: they stay open
                await self.withdraw(k)
        tasks = list(self.tasks.values())
        for task in tasks:
            task.cancel()
        with contextlib.suppress(BaseException):
            await asyncio.gather(*tasks, return_exceptions=True)
        for table in list(self.tables.values()):
            await self.close(table)


async def play_one(
    settings: Settings, game_id: str, seat: str | None, say: Callable[[str], None] = print
) -> None:
    """Play one game to its end with a seat's secret (no account needed)."""
    bot = Bot(settings, say)
    bot.start_game(game_id, seat)
    try:
        await bot.tasks[game_id]
    finally:
        await bot.stop()


def say_now(line: str) -> None:
    """A line of the client's log, written at once (its output may be a pipe)."""
    print(line, flush=True)


def connect(settings: Settings, say: Callable[[str], None] = say_now) -> None:
    """Run the client until Ctrl-C or SIGTERM (a service stopped): its engines ended on
    the way out either way."""
    require("web", "boardlab connect", "websockets")

    async def run() -> None:
        running = asyncio.current_task()
        if running is not None:
            with contextlib.suppress(NotImplementedError, RuntimeError):  # not on Windows
                asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, running.cancel)
        await Bot(settings, say).run()

    with contextlib.suppress(asyncio.CancelledError):  # SIGTERM: a quiet end
        asyncio.run(run())


__all__ = [
    "Bot",
    "ConnectError",
    "SeekSpec",
    "Settings",
    "check_settings",
    "connect",
    "play_one",
    "read_seek",
]
