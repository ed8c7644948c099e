"""The web app's games: what a page shows of a stored game, and every change to one.

Each change is checked by the engine on a record rebuilt from the database, stored, and
only then shown: to the page that asked and, over WebSockets, to every other page open
on the game. Agents' turns are played here too, one task per game, their searches in
worker processes. Nothing here names a game: boards come from the board model, clicks
from the anatomy of actions.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
import hashlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from datetime import UTC
from typing import Any

from starlette.concurrency import run_in_threadpool

import boardlab
from boardlab.ai import level_name
from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game
from boardlab.core.i18n import _, language, use_language
from boardlab.core.record import AGREEMENT, GameRecord
from boardlab.ui.svg import board_svg
from boardlab.web import clock, thinking
from boardlab.web.queue import (
    CLIENT,
    MAX_JOBS_PER_CLIENT,
    SLOW,
    FairQueue,
    QueueFullError,
    lane_for,
)
from boardlab.web.store import (
    CHANNEL,
    ORIGIN,
    ChatLine,
    DatabaseAway,
    StaleError,
    Store,
    StoredGame,
    stale_message,
)

log = logging.getLogger("boardlab.web")

HUMAN = "human"
#: The agent behind hints, as in the terminal.
HINT_AGENT = "hard"
#: The agent a review asks.
REVIEW_AGENT = "hard"
#: Seconds before an agent that failed is asked again.
RETRY_AFTER = 10.0
#: Seconds a page may take to take a message before it is forgotten.
SEND_SECONDS = 10.0
#: Positions the records kept in memory may hold together (``GameService._record``).
KEPT_POSITIONS = 200_000


class RequestError(BoardlabError):
    """A request the game cannot take (illegal, malformed, nothing to undo): the page
    shows the message and the game is unchanged."""


class NotYourSeat(RequestError):
    """An action for a seat the asker does not hold: a spectator, another game's secret."""


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

    def seats(self, stored: StoredGame) -> frozenset[int]:
        """The seats this viewer acts for; none for a spectator."""
        if stored.seat_keys is None:  # from before seats had keys: a review only
            return frozenset()
        keys = {key_of(secret) for secret in self.secrets}
        return frozenset(
            k
            for k, key in enumerate(stored.seat_keys)
            if key is not None and key in keys and k != stored.open_seat
        )


SPECTATOR = Viewer()


def online(stored: StoredGame) -> bool:
    """A game between two people who each hold a seat (or one waits for the other)."""
    keys = stored.seat_keys
    if keys is None or not all(spec == HUMAN for spec in stored.seats):
        return False
    return stored.open_seat is not None or keys[0] != keys[1]


@dataclass
class Seat:
    spec: str

    @property
    def human(self) -> bool:
        return self.spec == HUMAN

    def label(self, name: str) -> str:
        """The seat as a page shows it: the player's ``name`` for a person, else the AI
        and its level."""
        return name if self.human else _("AI ({level})").format(level=level_name(self.spec))


#: A page watching a game: it is sent messages, ``{"type": "state", "state": ...}`` with
#: the game's state in its language, and ``{"type": "chat", "lines": [...]}``.
Listener = Callable[[dict[str, Any]], Awaitable[None]]


class GameService:
    """The games of one store, with the agents that play in them and the pages that
    watch them."""

    def __init__(self, store: Store, workers: int = 2, searches: int = MAX_JOBS_PER_CLIENT) -> None:
        self.store = store
        #: the AI's processes, taken in turn by the clients who ask (a review's parts
        #: one at a time, beside the searches); one more than ``workers``, as reviews
        #: had a process of their own before
        self.queue = FairQueue(workers + 1, max_jobs_per_client=searches)
        #: games whose agent is searching now (the page shows it thinking)
        self.thinking: set[str] = set()
        #: games whose agent failed, with when and why: not woken again for a while
        self.trouble: dict[str, tuple[float, str]] = {}
        self.reviewing: dict[str, asyncio.Task[None]] = {}
        #: how many pages each seat of a game has open now (none: the player is away)
        self.present: dict[str, collections.Counter[int]] = {}
        #: when to look again at each game whose clock runs (``arm``)
        self.timers: dict[str, asyncio.TimerHandle] = {}
        #: the pages watching each game, with the language each reads and who it is
        self.watchers: dict[str, dict[Listener, tuple[str, Viewer]]] = {}
        self.tasks: set[asyncio.Task[None]] = set()
        #: the latest records rebuilt, by game and revision, the least recently used first
        self.records: collections.OrderedDict[tuple[str, int], GameRecord] = (
            collections.OrderedDict()
        )

    # ------------------------------------------------------------------ workers
    async def close(self) -> None:
        """Stop: the agents' turns, timers and worker processes; the work in flight is
        let finish its step, so no database connection is left in use."""
        for timer in self.timers.values():
            timer.cancel()
        # this loop's tasks (tests run several clients, each its own loop, on one app)
        loop = asyncio.get_running_loop()
        mine = [task for task in self.tasks if task.get_loop() is loop]
        for task in mine:
            task.cancel()
        if mine:
            await asyncio.wait(mine, timeout=5)
        self.queue.close()

    # ------------------------------------------------------------------ reading
    async def load(self, game_id: str) -> tuple[StoredGame, GameRecord]:
        """The game as stored; a player whose clock has run out has lost it on time
        (whoever looks first, a page, a request or the timer, finds it so)."""
        stored = await run_in_threadpool(self.store.load, game_id)
        record = await self._record(stored)
        to_act = None if record.is_over() else record.position.to_act
        if to_act is not None and clock.expired(stored.clock, to_act, clock.milliseconds()):
            ended = await run_in_threadpool(record_of, stored)
            ended.resign(to_act, "time")
            stopped = clock.flagged(stored.clock or {}, to_act, clock.milliseconds())
            with contextlib.suppress(StaleError):  # someone acted or flagged it first
                await run_in_threadpool(
                    self.store.end, game_id, len(record), to_act, ended.result(), "time", stopped
                )
            stored = await run_in_threadpool(self.store.load, game_id)
            record = await self._record(stored)
            self._spawn(self._broadcast(stored, record))
        return stored, record

    async def _record(self, stored: StoredGame) -> GameRecord:
        """The record of a stored game, a copy of its own for the caller: replayed beside
        the event loop the first time a revision is asked for, then kept (a game read
        by all its watchers, or over and over by one client, is replayed once)."""
        kept = self.records.get((stored.id, stored.revision))
        if kept is None:
            kept = await run_in_threadpool(record_of, stored)
            self._keep(stored, kept)
        self.records.move_to_end((stored.id, stored.revision))
        return kept.copy()

    def _keep(self, stored: StoredGame, record: GameRecord) -> None:
        """Keep ``record`` (a copy) as the record of ``stored``, forgetting the least
        recently used beyond ``KEPT_POSITIONS``."""
        self.records[(stored.id, stored.revision)] = record.copy()
        held = sum(len(kept.positions) for kept in self.records.values())
        while held > KEPT_POSITIONS and len(self.records) > 1:
            _key, oldest = self.records.popitem(last=False)
            held -= len(oldest.positions)

    async def state(self, game_id: str, viewer: Viewer = SPECTATOR) -> dict[str, Any]:
        stored, record = await self.load(game_id)
        return self.describe(stored, record, viewer)

    def describe(
        self, stored: StoredGame, record: GameRecord, viewer: Viewer = SPECTATOR
    ) -> dict[str, Any]:
        """Everything a game page shows, as JSON, for ``viewer``."""
        state = describe(stored, record, stored.id in self.thinking, viewer.seats(stored))
        failed = self.trouble.get(stored.id)
        trouble = _("the AI could not play: {error}").format(error=failed[1]) if failed else ""
        state["trouble"] = trouble if not state["thinking"] else ""
        here = self.present.get(stored.id, collections.Counter())
        state["away"] = [
            k for k in (0, 1) if online(stored) and k != stored.open_seat and not here[k]
        ]
        return state

    # ------------------------------------------------------------------ changes
    async def play(
        self, game_id: str, text: Any, ply: Any, viewer: Viewer = SPECTATOR
    ) -> dict[str, Any]:
        """Play one action a person sent (its string), answering action number ``ply``."""
        stored, record = await self.load(game_id)
        check_ply(record, ply)
        if record.is_over():
            raise RequestError(_("the game is over: no more actions"))
        position = record.position
        if not Seat(stored.seats[position.to_act]).human:
            raise RequestError(
                _("it is the AI's turn ({player}): wait for its action").format(
                    player=position.game.player_name(position.to_act)
                )
            )
        check_seat(stored, record, viewer, position.to_act)
        if not isinstance(text, str) or not text.strip():
            raise RequestError(
                _("no action given: expected an action string such as {example!r}").format(
                    example=position.legal_action_strings()[0]
                )
            )
        action = position.parse_action(text.strip())  # refuses what is not legal here
        return await self._store_action(stored, record, action, viewer)

    async def _store_action(
        self, stored: StoredGame, record: GameRecord, action: int, viewer: Viewer = SPECTATOR
    ) -> dict[str, Any]:
        ply = len(record)
        text = record.position.action_string(action)
        mover = record.position.to_act
        record.play(action)
        ticked = None
        if stored.clock is not None and stored.clock["since"] is not None:
            next_to_act = None if record.is_over() else record.position.to_act
            ticked = clock.after_action(stored.clock, mover, next_to_act, clock.milliseconds())
        await run_in_threadpool(self.store.append, stored.id, ply, text, record.result(), ticked)
        # the game as stored now, without reading it back: the append checked that it held
        # exactly ``stored.actions`` and changed just these fields, in one transaction
        after = dataclasses.replace(
            stored,
            actions=(*stored.actions, text),
            result=record.result(),
            revision=stored.revision + 1,
            draw_offer=None,
            clock=stored.clock if ticked is None else ticked,
        )
        self._keep(after, record)
        return await self._changed(stored.id, viewer, (after, record))

    async def undo(self, game_id: str, ply: Any, viewer: Viewer = SPECTATOR) -> dict[str, Any]:
        """Take back the latest turn a person played (and the agent's replies after it),
        or a resignation."""
        stored, record = await self.load(game_id)
        check_ply(record, ply)
        if online(stored):
            raise RequestError(_("there is no undo in a game between two people online"))
        check_seat(stored, record, viewer, None)
        if record.resigned is not None:
            length = len(record)
        else:
            start = record.turn_start(lambda player: Seat(stored.seats[player]).human)
            if start is None:
                raise RequestError(_("nothing to undo: no person has played yet"))
            length = start
        await run_in_threadpool(self.store.truncate, game_id, len(record), length)
        return await self._changed(game_id, viewer)

    async def resign(self, game_id: str, ply: Any, viewer: Viewer = SPECTATOR) -> dict[str, Any]:
        """The person to act resigns (against an agent: the person, whoever acts); online,
        the player who asks."""
        stored, record = await self.load(game_id)
        check_ply(record, ply)
        if record.is_over():
            raise RequestError(_("the game is already over"))
        humans = [p for p in (0, 1) if Seat(stored.seats[p]).human]
        if not humans:
            raise RequestError(_("only a person can resign, and both seats are agents"))
        check_seat(stored, record, viewer, None)
        humans = [p for p in humans if p in viewer.seats(stored)]
        to_act = record.position.to_act
        player = to_act if to_act in humans else humans[0]
        record.resign(player)
        await run_in_threadpool(
            self.store.end,
            game_id,
            len(record),
            player,
            record.result(),
            "resign",
            stopped(stored, record),
        )
        return await self._changed(game_id, viewer)

    async def draw(
        self, game_id: str, ply: Any, answer: str, viewer: Viewer = SPECTATOR
    ) -> dict[str, Any]:
        """A draw between two people online: ``offer`` one, or ``accept`` or ``decline``
        the other player's offer. Any action voids an offer."""
        stored, record = await self.load(game_id)
        check_ply(record, ply)
        if record.is_over():
            raise RequestError(_("the game is already over"))
        if not online(stored):
            raise RequestError(_("draws are offered between two people online"))
        check_seat(stored, record, viewer, None)
        (me,) = viewer.seats(stored)
        offer = stored.draw_offer
        if answer == "offer":
            if offer == me:
                raise RequestError(_("you have offered a draw already: wait for the answer"))
            if offer is not None:
                raise RequestError(_("your opponent offers a draw: accept or decline it"))
            await run_in_threadpool(self.store.offer_draw, game_id, len(record), me)
        elif offer != 1 - me:
            raise RequestError(_("there is no draw offered to you to answer"))
        elif answer == "accept":
            record.agree_draw()
            await run_in_threadpool(
                self.store.end,
                game_id,
                len(record),
                None,
                record.result(),
                AGREEMENT,
                stopped(stored, record),
            )
        else:
            await run_in_threadpool(self.store.offer_draw, game_id, len(record), None)
        return await self._changed(game_id, viewer)

    async def rematch(
        self, game_id: str, viewer: Viewer, admit: Callable[[], None] = lambda: None
    ) -> str:
        """The rematch of a finished game, made on the first request of a player: the
        same game and options, the seats swapped, each player's secret acting for their
        new seat. Its id. ``admit`` (the caller's limit on new games, raising to refuse)
        counts the making only."""
        stored, record = await self.load(game_id)
        if not record.is_over():
            raise RequestError(_("a rematch follows a finished game"))
        check_seat(stored, record, viewer, None)
        if stored.rematch is not None:
            return stored.rematch
        admit()
        keys = stored.seat_keys or (None, None)
        made = await run_in_threadpool(
            lambda: self.store.create(
                stored.game,
                stored.options,
                [stored.seats[1], stored.seats[0]],
                stored.owner,
                start=stored.start,
                seat_keys=[keys[1], keys[0]],
                clock=fresh_clock(stored.clock),
                names=[stored.names[1], stored.names[0]],
            )
        )
        kept = await run_in_threadpool(self.store.link_rematch, game_id, made)
        if kept != made:  # the other player asked at the same moment, and was first
            await run_in_threadpool(self.store.discard, made)
        else:
            self.wake(made)
            await self.tell(game_id)
        return kept

    async def say(
        self, game_id: str, text: str, viewer: Viewer, admit: Callable[[int], None] = lambda _: None
    ) -> None:
        """Keep a line of chat from a player of a game online (``text`` already checked)
        and send it to the players' pages, here and in the other server processes.
        ``admit`` (the caller's rate limit by seat, raising to refuse) counts players'
        lines only."""
        stored = await run_in_threadpool(self.store.load, game_id)
        seats = viewer.seats(stored)
        if not online(stored) or not seats:
            raise NotYourSeat(_("only the two players of a game online chat, and you hold no seat"))
        admit(min(seats))
        line = await run_in_threadpool(self.store.say, game_id, min(seats), text)
        await self._tell_chat(stored, [line])

    async def chat(self, game_id: str, viewer: Viewer) -> list[dict[str, Any]]:
        """The game's chat as a player's page shows it (none for a spectator)."""
        stored = await run_in_threadpool(self.store.load, game_id)
        if not online(stored) or not viewer.seats(stored):
            return []
        return [chat_json(line) for line in await run_in_threadpool(self.store.chat, game_id)]

    async def _tell_chat(self, stored: StoredGame, lines: list[ChatLine]) -> None:
        """Lines of chat to the pages of the game's players (spectators read none)."""
        message = {"type": "chat", "lines": [chat_json(line) for line in lines]}
        watching = self.watchers.get(stored.id, {}).items()
        players = [listener for listener, (_lang, viewer) in watching if viewer.seats(stored)]
        await self._send(stored.id, [(listener, message) for listener in players])

    async def _relay_chat(self, game_id: str, n: int) -> None:
        """A line of chat another server process kept, to the pages here."""
        with contextlib.suppress(BoardlabError):
            stored = await run_in_threadpool(self.store.load, game_id)
            lines = await run_in_threadpool(self.store.chat, game_id, n - 1, 1)
            await self._tell_chat(stored, lines)

    async def hint(self, game_id: str, ply: Any, viewer: Viewer = SPECTATOR) -> dict[str, Any]:
        """The hint agent's action for the person to act, with its evaluation and line."""
        stored, record = await self.load(game_id)
        check_ply(record, ply)
        if record.is_over():
            raise RequestError(_("the game is over: there is nothing to hint"))
        if online(stored):
            raise RequestError(_("there are no hints in a game between two people online"))
        check_seat(stored, record, viewer, record.position.to_act)
        answer = await self._think(stored, HINT_AGENT)
        position = record.position
        action = position.parse_action(answer["action"])
        answer["places"] = list(position.game.action_parts(position.state, action).places)
        answer["player"] = position.player
        return answer

    async def _think(self, stored: StoredGame, spec: str) -> dict[str, Any]:
        """The agent's answer, searched when the turn of the client who caused it comes
        (``CLIENT``: the request that woke the agent, or asked for the hint)."""
        seed = thinking.seed_for(stored.id, len(stored.actions))
        result: dict[str, Any] = await self.queue.run(
            CLIENT.get(),
            lane_for(spec, stored.game),
            thinking.choose,
            stored.game,
            stored.options,
            stored.start,
            stored.actions,
            spec,
            seed,
        )
        return result

    # ------------------------------------------------------------------ agents
    def _spawn(self, work: Coroutine[Any, Any, Any]) -> None:
        """Run ``work`` beside the request, kept until it is done."""
        task = asyncio.create_task(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def arm(self, stored: StoredGame, record: GameRecord) -> None:
        """Look at a game again when the running clock would run out, so the pages
        watching it learn of the loss on time without anyone asking."""
        timer = self.timers.pop(stored.id, None)
        if timer is not None:
            timer.cancel()
        running = stored.clock is not None and stored.clock["since"] is not None
        if not running or record.is_over() or not self.watchers.get(stored.id):
            return
        to_act = record.position.to_act
        left = clock.left_now(stored.clock or {}, to_act, clock.milliseconds())[to_act]
        self.timers[stored.id] = asyncio.get_running_loop().call_later(
            max(0.0, left / 1000) + 0.05, lambda: self._spawn(self._look(stored.id))
        )

    async def _look(self, game_id: str) -> None:
        """Load the game (which ends it if a clock has run out) and tell its pages."""
        self.timers.pop(game_id, None)
        with contextlib.suppress(BoardlabError):
            stored, record = await self.load(game_id)
            self.arm(stored, record)

    def wake(self, game_id: str) -> None:
        """Start the agent's turn if an agent is to act and none is searching yet: after
        every change, when a page opens, and so after a restart of the server."""
        if game_id in self.thinking:
            return
        failed = self.trouble.get(game_id)
        if failed is not None and time.monotonic() - failed[0] < RETRY_AFTER:
            return
        self.thinking.add(game_id)
        task = asyncio.create_task(self._agent_turns(game_id))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _agent_turns(self, game_id: str) -> None:
        thought = False  # pages were told the AI is thinking: tell them when it stops
        try:
            while True:
                stored, record = await self.load(game_id)
                if record.is_over() or Seat(stored.seats[record.position.to_act]).human:
                    return
                thought = True
                await self._broadcast(stored, record)
                answer = await self._think(stored, stored.seats[record.position.to_act])
                self.trouble.pop(game_id, None)
                try:
                    action = record.position.parse_action(answer["action"])
                    await self._store_action(stored, record, action)
                except StaleError:
                    continue  # overtaken by an undo or a resignation: look again
        except (DatabaseAway, QueueFullError) as error:  # the page says so; no trace
            self.trouble[game_id] = (time.monotonic(), str(error))
            thought = True
        except Exception as error:  # the page says so, the log has the details
            log.exception("the agent of game %s could not play", game_id)
            self.trouble[game_id] = (time.monotonic(), str(error))
            thought = True
        finally:
            self.thinking.discard(game_id)
            if thought:
                with contextlib.suppress(Exception):
                    await self._broadcast(*await self.load(game_id))

    async def _changed(
        self,
        game_id: str,
        viewer: Viewer = SPECTATOR,
        known: tuple[StoredGame, GameRecord] | None = None,
    ) -> dict[str, Any]:
        """Tell every page of the game's change (``known``: the game as it now stands,
        else it is read); the state for ``viewer``."""
        stored, record = known or await self.load(game_id)
        if not record.is_over() and not Seat(stored.seats[record.position.to_act]).human:
            self.wake(game_id)
        told = await self._broadcast(stored, record)
        kind = (language(), viewer.seats(stored))
        return told[kind]["state"] if kind in told else self.describe(stored, record, viewer)

    # ------------------------------------------------------------------ reviews
    async def review(self, game_id: str) -> dict[str, Any]:
        """The stored review of the game as it stands, or ``running`` while one is made."""
        stored, record = await self.load(game_id)
        length = len(record)
        data = await run_in_threadpool(self.store.review, game_id, REVIEW_AGENT, length)
        if data is not None:
            return {"status": "ready", **data, "agent_name": level_name(REVIEW_AGENT)}
        if game_id not in self.reviewing:
            task = asyncio.create_task(self._make_review(stored, length))
            self.reviewing[game_id] = task
            task.add_done_callback(lambda _: self.reviewing.pop(game_id, None))
        return {"status": "running", "length": length}

    async def _make_review(self, stored: StoredGame, length: int) -> None:
        """The review in parts, each its own turn in the queue: a long review takes turns
        with everyone's searches and short reviews instead of holding a worker."""
        client = CLIENT.get()
        parts = []
        try:
            for first, last in thinking.review_parts(length):
                part = await self.queue.run(
                    client,
                    SLOW,
                    thinking.review_part,
                    stored.game,
                    stored.options,
                    stored.start,
                    stored.actions,
                    REVIEW_AGENT,
                    first,
                    last,
                )
                parts.append(part)
            data = thinking.reviewed(stored.game, stored.options, REVIEW_AGENT, parts)
            await run_in_threadpool(self.store.keep_review, stored.id, REVIEW_AGENT, length, data)
        except (DatabaseAway, QueueFullError):
            pass  # asked for again, the review starts again
        except Exception:
            log.exception("the review of game %s failed", stored.id)

    # ------------------------------------------------------------------ other processes
    async def listen(self) -> None:
        """Tell this process's pages of the changes other server processes make: they
        announce each on PostgreSQL's LISTEN/NOTIFY channel, which needs no other server.
        A lost connection is made again, and every game watched here is told afresh,
        since announcements may have been missed meanwhile."""
        import psycopg

        failing = False  # said once an outage, not once a second
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(
                    self.store.listen_url(), autocommit=True
                ) as connection:
                    await connection.execute(f"LISTEN {CHANNEL}")
                    failing = False
                    for game_id in list(self.watchers):
                        self._spawn(self.tell(game_id))
                    async for note in connection.notifies():
                        origin, game_id, *line = note.payload.split(":")
                        if origin == ORIGIN or not self.watchers.get(game_id):
                            continue
                        if line:
                            self._spawn(self._relay_chat(game_id, int(line[0])))
                        else:
                            self._spawn(self.tell(game_id))
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the database restarts, the network fails
                if not failing:
                    why = str(error).strip().splitlines()[0][:200] if str(error) else error
                    log.warning("listening for changes failed (%s); trying every second", why)
                failing = True
                await asyncio.sleep(1.0)

    # ------------------------------------------------------------------ watchers
    def watch(self, game_id: str, listener: Listener, viewer: Viewer = SPECTATOR) -> None:
        """Send ``listener`` each new state of the game as ``viewer`` sees it, in the
        current language."""
        self.watchers.setdefault(game_id, {})[listener] = (language(), viewer)

    def unwatch(self, game_id: str, listener: Listener) -> None:
        self.watchers.get(game_id, {}).pop(listener, None)

    def arrived(self, game_id: str, seats: frozenset[int], here: bool) -> None:
        """A page of a player opened (``here``) or closed: when a seat has its first
        page or loses its last, the other pages learn the player is back or away (told
        beside, so that a page closing is not held up by the others)."""
        count = self.present.setdefault(game_id, collections.Counter())
        changed = False
        for seat in seats:
            before = count[seat] > 0
            count[seat] += 1 if here else -1
            changed |= before != (count[seat] > 0)
        if not +count:
            self.present.pop(game_id, None)
        if changed:
            self._spawn(self.tell(game_id, online_only=True))

    async def tell(self, game_id: str, online_only: bool = False) -> None:
        """Send the game as it stands to the pages watching it (a seat taken; a player
        come or gone, which only a game between two people online shows)."""
        with contextlib.suppress(BoardlabError):
            stored, record = await self.load(game_id)
            if online(stored) or not online_only:
                await self._broadcast(stored, record)

    async def _broadcast(
        self, stored: StoredGame, record: GameRecord
    ) -> dict[tuple[str, frozenset[int]], dict[str, Any]]:
        """The game's new state to every page watching it, described once for each
        language and seats they have; the messages sent, by language and seats."""
        self.arm(stored, record)
        messages: dict[tuple[str, frozenset[int]], dict[str, Any]] = {}
        sends = []
        for listener, (lang, viewer) in list(self.watchers.get(stored.id, {}).items()):
            kind = (lang, viewer.seats(stored))
            if kind not in messages:
                with use_language(lang):
                    state = self.describe(stored, record, viewer)
                messages[kind] = {"type": "state", "state": state}
            sends.append((listener, messages[kind]))
        await self._send(stored.id, sends)
        return messages

    async def _send(self, game_id: str, sends: list[tuple[Listener, dict[str, Any]]]) -> None:
        """Each message to its page, all at once: a page that is slow to take it holds up
        no other; one that fails, or takes longer than ``SEND_SECONDS``, is forgotten (its
        connection is closed by the server's pings, and the page connects again)."""

        async def send(listener: Listener, message: dict[str, Any]) -> None:
            try:
                await asyncio.wait_for(listener(message), SEND_SECONDS)
            except Exception:
                self.unwatch(game_id, listener)

        await asyncio.gather(*(send(listener, message) for listener, message in sends))


def record_of(stored: StoredGame) -> GameRecord:
    """The record of a stored game, its players named as the page names them."""
    game = boardlab.new_game(stored.game, **stored.options)
    headers = {  # data: the record's header names and seats stay in English
        side.capitalize(): (name or side.capitalize()) if spec == HUMAN else f"AI ({spec})"
        for side, spec, name in zip(game.players, stored.seats, stored.names, strict=True)
    }
    return thinking.rebuild(
        stored.game,
        stored.options,
        stored.start,
        stored.actions,
        stored.resigned,
        {"Event": "boardlab", **headers, **stored.headers},
        stored.ending,
    )


def fresh_clock(old: clock.Clock | None) -> clock.Clock | None:
    """A clock of the same time control, full and standing (None: no clock)."""
    return None if old is None else clock.new_clock(old["base"], old["increment"])


def stopped(stored: StoredGame, record: GameRecord) -> clock.Clock | None:
    """The game's clock stopped now, the player to act's thinking time taken off."""
    if stored.clock is None or stored.clock["since"] is None:
        return stored.clock
    to_act = record.position.to_act
    return clock.after_action(stored.clock, to_act, None, clock.milliseconds())


def check_seat(stored: StoredGame, record: GameRecord, viewer: Viewer, seat: int | None) -> None:
    """Refuse a change from someone who does not hold ``seat`` (None: any seat of a
    person)."""
    held = viewer.seats(stored)
    if stored.open_seat is not None:
        raise RequestError(_("the game waits for an opponent: send them the invitation link first"))
    if (seat is None and not held) or (seat is not None and seat not in held):
        who = record.game.player_name(record.position.to_act if seat is None else seat)
        raise NotYourSeat(
            _(
                "you do not hold {player}'s seat: only the player with its link can act "
                "for it (spectators watch)"
            ).format(player=who)
        )


def check_ply(record: GameRecord, ply: Any) -> None:
    """Refuse an answer to another action number than the current one."""
    if isinstance(ply, bool) or not isinstance(ply, int):
        raise RequestError(
            _(
                "bad ply {ply!r}: expected the number of actions the page has seen (now {now})"
            ).format(ply=ply, now=len(record))
        )
    if ply != len(record):
        raise StaleError(stale_message(len(record), ply))


def describe(
    stored: StoredGame, record: GameRecord, thinking_now: bool, held: frozenset[int] = frozenset()
) -> dict[str, Any]:
    """A game page's state: the board (SVG), the legal actions with the places a person
    clicks for each, the move list, and what the last turn did."""
    game: Game[Any] = record.game
    position = record.position
    board = game.board_model(position.state)
    outcome = record.outcome()
    last = record.last_turn()
    marked: list[str] = []
    notes: list[dict[str, Any]] = []
    first = len(record) - len(last)
    for ply, (before, action) in enumerate(last, first):
        marked.extend(game.action_parts(before.state, action).places)
        notes.extend(
            {"ply": ply, "kind": n.kind, "text": str(n), "places": list(n.places), "sows": n.sows}
            for n in game.narrate(before.state, action)
        )
    seats = [Seat(spec) for spec in stored.seats]
    legal = []
    if outcome is None:
        for action in position.legal_actions():
            parts = game.action_parts(position.state, action)
            legal.append(
                {
                    "action": position.action_string(action),
                    "places": list(parts.places),
                    "label": parts.label,
                    "kind": parts.kind,
                }
            )
    to_act = None if outcome is not None else position.to_act
    return {
        "id": stored.id,
        "game": game.id,
        "name": game.name,
        "options": game.option_assignments(),
        "ply": len(record),
        "revision": stored.revision,
        "players": list(game.players),
        "colours": list(game.colours),
        "seats": [
            {
                "spec": seat.spec,
                "human": seat.human,
                "name": game.player_name(k),
                "label": seat.label(stored.names[k] or game.player_name(k)),
                "player": stored.names[k] if seat.human else None,
            }
            for k, seat in enumerate(seats)
        ],
        "tallies": [[str(t) for t in side] for side in board.tallies],
        "to_act": to_act,
        "human_to_act": to_act is not None and seats[to_act].human,
        "you": sorted(held),
        "you_act": to_act is not None and to_act in held and stored.open_seat is None,
        "online": online(stored),
        "can_chat": online(stored) and bool(held),
        "open_seat": stored.open_seat,
        "listed": stored.listed,
        "draw_offer": stored.draw_offer,
        "clock": None
        if stored.clock is None
        else {
            "left": clock.left_now(stored.clock, to_act, clock.milliseconds()),
            "running": to_act if stored.clock["since"] is not None else None,
            "base": stored.clock["base"],
            "increment": stored.clock["increment"],
        },
        "rematch": stored.rematch,
        "due": board.due,
        "notes": list(board.notes),
        "turn": position.turns + 1,
        "svg": board_svg(game, board, marked, title=f"{game.name}: {position_title(record)}"),
        "legal": legal,
        "moves": [
            {"number": t.number, "player": t.player, "first_ply": t.first_ply, "actions": t.actions}
            for t in record.turns()
        ],
        "last": {"places": marked, "notes": notes, "ply": first},
        "outcome": None
        if outcome is None
        else {
            "sentence": sentence(record),
            "winner": outcome.winner,
            "reason": outcome.reason,
        },
        "thinking": thinking_now,
        "can_undo": bool(held)
        and not online(stored)
        and (
            record.resigned is not None
            or record.turn_start(lambda player: seats[player].human) is not None
        ),
        "position": position.position_string(),
    }


def chat_json(line: ChatLine) -> dict[str, Any]:
    said = line.said if line.said.tzinfo else line.said.replace(tzinfo=UTC)  # from SQLite
    return {"n": line.n, "seat": line.seat, "text": line.text, "said": said.isoformat()}


def sentence(record: GameRecord) -> str:
    """How the game ended, in words."""
    game = record.game
    outcome = record.outcome()
    assert outcome is not None
    return outcome.sentence(game.reason_words, [game.player_name(0), game.player_name(1)])


def position_title(record: GameRecord) -> str:
    if record.outcome() is not None:
        return sentence(record)
    position = record.position
    return _("turn {turn}, {player} to act").format(
        turn=position.turns + 1, player=position.game.player_name(position.to_act)
    )
