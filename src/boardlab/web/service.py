"""The web app's games: every change to one, made in its room.

A game a page or a request touches is loaded once into a room (``rooms.py``) and stays
there while it is used; each change is checked by the engine on the room's record,
stored (appends of many games together, ``GroupCommit``), and only then shown, as an
event to every page watching. Agents' turns are played here too, their searches in
worker processes. Other server processes learn of each change on PostgreSQL's
LISTEN/NOTIFY channel and bring their rooms of the game up to date.

Nothing here knows HTTP or SQL: pages are listeners that take text, the store is called
through its methods in a thread. Nothing names a game: boards come from the board model,
clicks from the anatomy of actions.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import json
import logging
import queue
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any, TypeVar

import boardlab
from boardlab.core.errors import (
    BoardlabError,
    IllegalActionError,
    InvalidNotationError,
    clipped,
)
from boardlab.core.game import MAX_ACTION_TEXT, Position
from boardlab.core.i18n import _, language
from boardlab.core.record import ABORTED, AGREEMENT, GameRecord
from boardlab.web import clock, positions, puzzles, rooms, thinking
from boardlab.web.data import (
    HUMAN,
    SPECTATOR,
    Append,
    ChatLine,
    Conflict,
    DatabaseAway,
    GameStore,
    NewGame,
    NotYourSeat,
    RequestError,
    StaleError,
    StoredGame,
    Viewer,
    clock_started,
    message_text,
    online,
    rated_seat,
    shown_name,
    stale_message,
)
from boardlab.web.queue import (
    CLIENT,
    MAX_JOBS_PER_CLIENT,
    SLOW,
    FairQueue,
    QueueFullError,
    lane_for,
)
from boardlab.web.rooms import (
    Event,
    Listener,
    Room,
    Watcher,
    chat_json,
    moves_after,
    resumed,
    snapshot_text,
)

log = logging.getLogger("boardlab.web")

#: The agent behind hints, as in the terminal.
HINT_AGENT = "hard"
#: The agent a review asks, and the analysis board.
REVIEW_AGENT = ANALYSIS_AGENT = "hard"
#: Seconds before an agent that failed is asked again.
RETRY_AFTER = 10.0
#: Seconds a room nobody watches or uses stays in memory, and how often to look.
IDLE_SECONDS, SWEEP_SECONDS = 120.0, 30.0
#: Seconds between the store's checkpoints (SQLite: the log copied into the database).
CHECKPOINT_SECONDS = 1.0
#: Seconds between full garbage collections of a server process (``keep_steady``).
FULL_COLLECTION_SECONDS = 600.0
#: A transaction of actions that takes this many seconds or more is logged (the
#: database or its disk is slow: every action in it waited), at most once a ``QUIET``.
SLOW_COMMIT_SECONDS, QUIET_SECONDS = 0.1, 10.0
#: How often a server process looks at its event loop's lateness, and the lateness it
#: logs (a change held up that long is that late on every page).
LAG_SECONDS, SLOW_LOOP_SECONDS = 0.1, 0.1
#: At most how often the pages of a game are told how many watch it.
SPECTATORS_TOLD_SECONDS = 1.0

T = TypeVar("T")
#: The changes a player asks for (``GameService.act``), each made by its ``_kind``.
CHANGES = ("play", "undo", "resign", "draw", "takeback", "claim", "abort")


class Rare:
    """A warning that may come often, logged at most once a ``QUIET_SECONDS`` with the
    number of times it came meanwhile (a slow disk is said once, not a hundred times)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.said = -QUIET_SECONDS
        self.unsaid = 0

    def say(self, **values: Any) -> None:
        now = time.monotonic()
        if now - self.said < QUIET_SECONDS:
            self.unsaid += 1
            return
        more = f" ({self.unsaid} more since the last)" if self.unsaid else ""
        log.warning(self.text.format(**values) + more)
        self.said, self.unsaid = now, 0


class GroupCommit:
    """Actions of many games stored together: each waits for the transaction that holds
    it, and the actions that come while one transaction is written go in the next, so
    the disk syncs once for all of them (and at once when only one waits).

    The transactions are written by a thread of its own, handed each batch through a
    queue and answering on the event loop with one callback: an action costs no task,
    no executor's future and no copy of its context (``asyncio.to_thread`` made four
    hand-offs of each transaction)."""

    def __init__(self, store_many: Callable[[list[Append]], Sequence[int | BoardlabError]]):
        self.store_many = store_many
        self.pending: list[tuple[Append, asyncio.Future[int]]] = []
        #: the batch the thread is writing, None while it waits
        self.writing: list[tuple[Append, asyncio.Future[int]]] | None = None
        self.batches_due: queue.SimpleQueue[
            tuple[asyncio.AbstractEventLoop, list[Append]] | None
        ] = queue.SimpleQueue()
        self.thread: threading.Thread | None = None
        #: set while nothing is written or waits (``close``)
        self.idle = asyncio.Event()
        self.idle.set()
        #: transactions written and actions stored, for the benchmarks
        self.batches = self.stored = 0
        self.slow = Rare(
            "storing actions took {ms} ms ({size} in one transaction): the database or "
            "its disk is slow"
        )

    async def append(self, item: Append) -> int:
        """Store ``item`` with the others waiting: the game's revision after it."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[int] = loop.create_future()
        self.pending.append((item, future))
        if self.writing is None:
            self._hand_over(loop)
        return await future

    def _hand_over(self, loop: asyncio.AbstractEventLoop) -> None:
        """Give the actions waiting to the thread, as one transaction."""
        self.writing, self.pending = self.pending, []
        self.idle.clear()
        if self.thread is None:
            self.thread = threading.Thread(target=self._write, name="group commit", daemon=True)
            self.thread.start()
        self.batches_due.put((loop, [item for item, _ in self.writing]))

    def _write(self) -> None:
        """The thread: each batch stored, its answers given back on its event loop."""
        while True:
            due = self.batches_due.get()
            if due is None:
                return
            loop, items = due
            try:
                answers = self._store(items)
            except Exception as error:  # the database is away: every one of them is refused
                answers = [error] * len(items)  # type: ignore[list-item]
            with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
                loop.call_soon_threadsafe(self._written, loop, answers)

    def _store(self, items: list[Append]) -> Sequence[int | BoardlabError]:
        """``store_many``, timed in the thread (a slow one is the database's or its
        disk's, not the event loop's)."""
        began = time.perf_counter()
        try:
            return self.store_many(items)
        finally:
            took = time.perf_counter() - began
            if took >= SLOW_COMMIT_SECONDS:
                self.slow.say(size=len(items), ms=round(took * 1000))

    def _written(self, loop: asyncio.AbstractEventLoop, answers: Sequence[Any]) -> None:
        """A transaction's answers, each to the action that waits for it; the actions
        that came meanwhile go next."""
        batch, self.writing = self.writing or [], None
        self.batches += 1
        self.stored += len(batch)
        for (_item, future), answer in zip(batch, answers, strict=True):
            if future.done():
                continue
            if isinstance(answer, BaseException):
                future.set_exception(answer)
            else:
                future.set_result(answer)
        if self.pending:
            self._hand_over(loop)
        else:
            self.idle.set()

    async def close(self) -> None:
        """Let the transactions under way finish, then end the thread."""
        await self.idle.wait()
        if self.thread is not None:
            self.batches_due.put(None)
            self.thread = None


class GameService:
    """The games of one store in their rooms, with the agents that play in them and the
    pages that watch them."""

    def __init__(
        self, store: GameStore, workers: int = 2, searches: int = MAX_JOBS_PER_CLIENT
    ) -> None:
        self.store = store
        #: the AI's processes, taken in turn by the clients who ask (a review's parts
        #: one at a time, beside the searches); one more than ``workers``, as reviews
        #: had a process of their own before
        self.queue = FairQueue(workers + 1, max_jobs_per_client=searches)
        self.rooms: dict[str, Room] = {}
        self.loading: dict[str, asyncio.Task[Room]] = {}
        self.writer = GroupCommit(store.append_many)
        self.reviewing: dict[str, asyncio.Task[None]] = {}
        self.tasks: set[asyncio.Task[Any]] = set()
        self.sweeping: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ workers
    async def close(self) -> None:
        """Stop: the agents' turns, timers and worker processes; the changes in flight
        are let finish, so nothing acknowledged is lost and no connection is left in use."""
        for room in self.rooms.values():
            if room.timer is not None:
                room.timer.cancel()
        if self.sweeping is not None:
            self.sweeping.cancel()
        loop = asyncio.get_running_loop()
        mine = [task for task in self.tasks if task.get_loop() is loop]
        for task in mine:
            task.cancel()
        if mine:
            await asyncio.wait(mine, timeout=5)
        await self.writer.close()
        self.queue.close()

    async def keep_steady(self) -> None:
        """What a long-running server process does beside its requests: the store's
        checkpoints, every second, and a full garbage collection every ten minutes, at
        a time of its own. Python would otherwise collect the whole heap whenever it
        had grown by a quarter: with a thousand games in memory that held every game
        still for 100-300 ms, once a second or so. Young objects are collected often
        and in small sets (each pause a few ms; with 10,000 new objects between
        collections a pause was 60-90 ms), the middle generation every third time
        (some 20 ms)."""
        gc.freeze()  # what the server is made of (modules, the app) is never garbage
        gc.set_threshold(1_000, 3, 1_000_000)
        last = time.monotonic()
        watching = asyncio.create_task(self._watch_loop())
        try:
            while True:
                await asyncio.sleep(CHECKPOINT_SECONDS)
                with contextlib.suppress(Exception):  # an outage is said by the requests
                    await asyncio.to_thread(self.store.checkpoint)
                if time.monotonic() - last > FULL_COLLECTION_SECONDS:
                    gc.collect()
                    last = time.monotonic()
        finally:
            watching.cancel()

    @staticmethod
    async def _watch_loop() -> None:
        """Log when the event loop was held up (a long callback, a collection, the
        machine busy elsewhere): every page waited that long."""
        held = Rare("the event loop was held {ms} ms: every page waited that long")
        loop = asyncio.get_running_loop()
        while True:
            due = loop.time() + LAG_SECONDS
            await asyncio.sleep(LAG_SECONDS)
            late = loop.time() - due
            if late >= SLOW_LOOP_SECONDS:
                held.say(ms=round(late * 1000))

    def _spawn(self, work: Coroutine[Any, Any, T]) -> asyncio.Task[T]:
        """Run ``work`` beside the caller, kept until it is done."""
        task = asyncio.ensure_future(work)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    # ------------------------------------------------------------------ rooms
    async def room(self, game_id: str) -> Room:
        """The game's room, loaded on first touch; a player whose clock has run out has
        lost (whoever looks first, a page, a request or the timer, finds it so)."""
        room = self.rooms.get(game_id)
        if room is None:
            loading = self.loading.get(game_id)
            if loading is None:
                loading = self._spawn(self._open(game_id))
                self.loading[game_id] = loading
                loading.add_done_callback(lambda _: self.loading.pop(game_id, None))
            room = await asyncio.shield(loading)
        room.touched = time.monotonic()
        if room.out_of_time():
            with contextlib.suppress(StaleError):  # another process ended it first
                await self._changing(room, self._flag, room)
        return room

    async def _open(self, game_id: str) -> Room:
        stored = await asyncio.to_thread(self.store.load, game_id)
        record = await asyncio.to_thread(record_of, stored)
        room = self.rooms.setdefault(game_id, Room(stored, record))
        self._arm(room)
        self._wake(room)  # an agent to act (after a restart of the server too)
        if self.sweeping is None or self.sweeping.done():
            self.sweeping = self._spawn(self._sweep())
        return room

    async def _sweep(self) -> None:
        """Let idle rooms go: nobody watches, nothing runs in them, unused a while."""
        while self.rooms:
            await asyncio.sleep(SWEEP_SECONDS)
            now = time.monotonic()
            for game_id, room in list(self.rooms.items()):
                if (
                    not room.watchers
                    and not room.thinking
                    and not room.lock.locked()
                    and room.timer is None
                    and now - room.touched > IDLE_SECONDS
                ):
                    del self.rooms[game_id]

    async def load(self, game_id: str) -> tuple[StoredGame, GameRecord]:
        """The game as it stands, its record a copy of the caller's own."""
        room = await self.room(game_id)
        return room.stored, room.record.copy()

    async def state(self, game_id: str, viewer: Viewer = SPECTATOR) -> dict[str, Any]:
        """Everything a game page shows, as JSON, for ``viewer`` (a player who asks is at
        the board: ``_asked``)."""
        room = await self.room(game_id)
        self._asked(room, viewer)
        return room.state(language(), viewer)

    # ------------------------------------------------------------------ changing a room
    async def _changing(self, room: Room, change: Callable[..., Awaitable[T]], *args: Any) -> T:
        """Run ``change(*args)`` holding the room, to its end even if the asker goes
        away: a change stored is always a change shown."""

        async def locked() -> T:
            async with room.lock:
                try:
                    return await change(*args)
                except Conflict:  # another server process changed the game first
                    await self._refresh(room)
                    raise

        return await asyncio.shield(self._spawn(locked()))

    def _changed(
        self,
        room: Room,
        stored: StoredGame,
        record: GameRecord,
        moves: list[dict[str, Any]] | None = None,
    ) -> None:
        """The room's game as it now stands (with its move list when the caller has it):
        told to every page, the clock watched, the agent woken if it is to act."""
        event = room.change(stored, record, moves)
        self._broadcast(room, event)
        self._arm(room)
        if not record.is_over() and stored.seats[record.position.to_act] != HUMAN:
            self._wake(room)

    async def _refresh(self, room: Room, whole: bool = False) -> None:
        """Read the game again (changed by another server process, or by a change that
        is stored as a whole): its record is replayed only if its actions changed (or,
        ``whole``, whatever changed)."""
        stored = await asyncio.to_thread(self.store.load, room.id)
        if stored.revision == room.version and not whole:
            return
        old = room.stored
        if not whole and (stored.actions, stored.resigned, stored.ending) == (
            old.actions,
            old.resigned,
            old.ending,
        ):
            record = room.record.copy()
            record.headers = headers_of(stored)
        else:
            record = await asyncio.to_thread(record_of, stored)
        self._changed(room, stored, record)

    async def _flag(self, room: Room) -> None:
        """End the game of a player whose time has run out."""
        if not room.out_of_time():
            return
        record = room.record
        to_act = record.position.to_act
        ended = record.copy()
        ended.resign(to_act, "time")
        stopped = clock.flagged(room.stored.clock or {}, to_act, clock.milliseconds())
        revision = await asyncio.to_thread(
            self.store.end, room.id, len(record), to_act, ended.result(), "time", stopped
        )
        await self._end(room, ended, revision, stopped)

    async def _rated(self, stored: StoredGame, record: GameRecord) -> StoredGame:
        """The end of a rated game as stored: its headers now carry the ratings that
        the end moved (``store.rate_end``), and so do the record's."""
        if not stored.rated or not record.is_over():
            return stored
        kept = await asyncio.to_thread(self.store.load, stored.id)
        stored = dataclasses.replace(stored, headers=kept.headers)
        record.headers = headers_of(stored)
        return stored

    async def _end(self, room: Room, ended: GameRecord, revision: int, stopped: Any) -> None:
        stored = dataclasses.replace(
            room.stored,
            resigned=ended.resigned,
            ending=AGREEMENT if ended.agreed else ended.resign_reason,
            result=ended.result(),
            draw_offer=None,
            takeback_offer=None,
            clock=stopped,
            revision=revision,
        )
        self._changed(room, await self._rated(stored, ended), ended)

    # ------------------------------------------------------------------ changes
    async def act(self, kind: str, game_id: str, viewer: Viewer, ply: Any, *details: Any) -> Room:
        """Make the change ``kind`` (``play`` with the action's string, ``undo``,
        ``resign``, ``draw`` or ``takeback`` with the answer, ``claim``, ``abort``) for
        ``viewer``, answering action number ``ply``: a page's message or an API request.
        The game's room, changed."""
        room = await self.room(game_id)
        if kind not in CHANGES:
            raise RequestError(_("unknown change {kind!r}").format(kind=kind))
        self._asked(room, viewer)
        change: Callable[..., Awaitable[None]] = getattr(self, f"_{kind}")
        await self._changing(room, change, room, viewer, ply, *details)
        return room

    async def play(
        self, game_id: str, text: Any, ply: Any, viewer: Viewer = SPECTATOR
    ) -> dict[str, Any]:
        """Play one action a person sent (its string), answering action number ``ply``:
        the state after it, for ``viewer``."""
        room = await self.act("play", game_id, viewer, ply, text)
        return room.state(language(), viewer)

    async def _play(self, room: Room, viewer: Viewer, ply: Any, text: Any) -> None:
        stored, record = room.stored, room.record
        check_ply(record, ply)
        if record.is_over():
            raise RequestError(_("the game is over: no more actions"))
        position = record.position
        if stored.seats[position.to_act] != HUMAN:
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
        try:
            action = position.parse_action(text.strip())
        except (InvalidNotationError, IllegalActionError) as error:
            if len(text.strip()) > MAX_ACTION_TEXT:  # refused unread, as it says
                raise
            raise RequestError(not_now(position, text.strip())) from error
        await self._store_action(room, action)

    async def _store_action(self, room: Room, action: int) -> None:
        """Store ``action`` in the room's game (stored first, then shown)."""
        stored, record = room.stored, room.record
        ply = len(record)
        text = record.position.action_string(action)
        mover = record.position.to_act
        after = record.copy()
        after.play(action)
        ticked = None
        if stored.clock is not None and stored.clock["since"] is not None:
            next_to_act = None if after.is_over() else after.position.to_act
            ticked = clock.after_action(stored.clock, mover, next_to_act, clock.milliseconds())
        result = after.result()
        moves = moves_after(room.moves, record, after)
        snapshot = snapshot_text(after, moves)
        revision = await self.writer.append(Append(stored.id, ply, text, result, ticked, snapshot))
        changed = await self._rated(played(stored, text, result, revision, ticked, snapshot), after)
        self._changed(room, changed, after, moves)

    async def undo(self, game_id: str, ply: Any, viewer: Viewer = SPECTATOR) -> dict[str, Any]:
        """Take back the latest turn a person played (and the agent's replies after it),
        or a resignation."""
        room = await self.act("undo", game_id, viewer, ply)
        return room.state(language(), viewer)

    async def _undo(self, room: Room, viewer: Viewer, ply: Any) -> None:
        stored, record = room.stored, room.record
        check_ply(record, ply)
        if online(stored):
            raise RequestError(_("there is no undo in a game between two people online"))
        check_seat(stored, record, viewer, None)
        if record.resigned is not None:
            length = len(record)
        else:
            start = record.turn_start(lambda player: stored.seats[player] == HUMAN)
            if start is None:
                raise RequestError(_("nothing to undo: no person has played yet"))
            length = start
        await asyncio.to_thread(self.store.truncate, room.id, len(record), length)
        await self._refresh(room)

    async def resign(self, game_id: str, ply: Any, viewer: Viewer = SPECTATOR) -> dict[str, Any]:
        """The person to act resigns (against an agent: the person, whoever acts); online,
        the player who asks."""
        room = await self.act("resign", game_id, viewer, ply)
        return room.state(language(), viewer)

    async def _resign(self, room: Room, viewer: Viewer, ply: Any) -> None:
        stored, record = room.stored, room.record
        check_ply(record, ply)
        if record.is_over():
            raise RequestError(_("the game is already over"))
        humans = [p for p in (0, 1) if stored.seats[p] == HUMAN]
        if not humans:
            raise RequestError(_("only a person can resign, and both seats are agents"))
        check_seat(stored, record, viewer, None)
        humans = [p for p in humans if p in viewer.seats(stored)]
        to_act = record.position.to_act
        player = to_act if to_act in humans else humans[0]
        ended = record.copy()
        ended.resign(player)
        halted = stopped(stored, record)
        revision = await asyncio.to_thread(
            self.store.end, room.id, len(record), player, ended.result(), "resign", halted
        )
        await self._end(room, ended, revision, halted)

    async def draw(
        self, game_id: str, ply: Any, answer: str, viewer: Viewer = SPECTATOR
    ) -> dict[str, Any]:
        """A draw between two people online: ``offer`` one, or ``accept`` or ``decline``
        the other player's offer. Any action voids an offer."""
        room = await self.act("draw", game_id, viewer, ply, answer)
        return room.state(language(), viewer)

    async def _draw(self, room: Room, viewer: Viewer, ply: Any, answer: Any) -> None:
        me = self._asker(room, viewer, ply, _("draws are offered between two people online"))
        stored, record = room.stored, room.record
        offer = stored.draw_offer
        if answer == "offer":
            if offer == me:
                raise RequestError(_("you have offered a draw already: wait for the answer"))
            if offer is not None:
                raise RequestError(_("your opponent offers a draw: accept or decline it"))
            await self._offer(room, self.store.offer_draw, "draw_offer", me)
        elif offer != 1 - me:
            raise RequestError(_("there is no draw offered to you to answer"))
        elif answer == "accept":
            ended = record.copy()
            ended.agree_draw()
            halted = stopped(stored, record)
            revision = await asyncio.to_thread(
                self.store.end, room.id, len(record), None, ended.result(), AGREEMENT, halted
            )
            await self._end(room, ended, revision, halted)
        else:
            await self._offer(room, self.store.offer_draw, "draw_offer", None)

    @staticmethod
    def _asker(room: Room, viewer: Viewer, ply: Any, not_online: str) -> int:
        """The seat of ``viewer``, who asks something of the other player of a game
        online that goes on (a draw, a takeback, the win), answering action ``ply``;
        else refused (``not_online`` where the game is not between two people online)."""
        stored, record = room.stored, room.record
        check_ply(record, ply)
        if record.is_over():
            raise RequestError(_("the game is already over"))
        if not online(stored):
            raise RequestError(not_online)
        check_seat(stored, record, viewer, None)
        (me,) = viewer.seats(stored)
        return me

    async def _offer(
        self, room: Room, keep: Callable[[str, int, int | None], int], field: str, player: Any
    ) -> None:
        """``player`` now offers what ``field`` of the stored game holds (None: nobody
        does): kept by ``keep`` (the store's), then told to the pages."""
        stored, record = room.stored, room.record
        revision = await asyncio.to_thread(keep, room.id, len(record), player)
        changed = dataclasses.replace(stored, **{field: player}, revision=revision)
        self._changed(room, changed, record)

    async def takeback(
        self, game_id: str, ply: Any, answer: str, viewer: Viewer = SPECTATOR
    ) -> dict[str, Any]:
        """A takeback between two people online: ``offer`` to take back your last turn
        (and the reply to it), or ``accept`` or ``decline`` the other player's request.
        Any action voids a request."""
        room = await self.act("takeback", game_id, viewer, ply, answer)
        return room.state(language(), viewer)

    async def _takeback(self, room: Room, viewer: Viewer, ply: Any, answer: Any) -> None:
        not_online = _("a takeback is asked of the other player online; here, undo takes back")
        me = self._asker(room, viewer, ply, not_online)
        stored, record = room.stored, room.record
        asked = stored.takeback_offer
        if answer == "offer":
            if asked == me:
                raise RequestError(_("you have asked to take back already: wait for the answer"))
            if asked is not None:
                raise RequestError(_("your opponent asks to take back: accept or decline it"))
            if record.turn_start(lambda player: player == me) is None:
                raise RequestError(_("nothing to take back: you have not played yet"))
            await self._offer(room, self.store.offer_takeback, "takeback_offer", me)
        elif asked != 1 - me:
            raise RequestError(_("there is no takeback asked of you to answer"))
        elif answer == "accept":  # back to where the asker's last turn began, clock running
            start = record.turn_start(lambda player: player == asked)
            halted = stopped(stored, record)
            running = None if halted is None else clock.start(halted, clock.milliseconds())
            await asyncio.to_thread(self.store.truncate, room.id, len(record), start or 0, running)
            await self._refresh(room)
        else:
            await self._offer(room, self.store.offer_takeback, "takeback_offer", None)

    async def claim(self, game_id: str, ply: Any, viewer: Viewer = SPECTATOR) -> dict[str, Any]:
        """Claim the win of a game online whose other player has been away (no page of
        the game open) for ``CLAIM_SECONDS``: they lose it, reason ``abandoned``."""
        room = await self.act("claim", game_id, viewer, ply)
        return room.state(language(), viewer)

    async def _claim(self, room: Room, viewer: Viewer, ply: Any) -> None:
        not_online = _("a win is claimed from an opponent who left a game online")
        other = 1 - self._asker(room, viewer, ply, not_online)
        stored, record = room.stored, room.record
        name = record.game.player_name(other)
        if room.present[other]:
            raise RequestError(_("{player} is here: there is no win to claim").format(player=name))
        gone = (clock.milliseconds() - room.away_since[other]) // 1000
        if gone < rooms.CLAIM_SECONDS:
            raise RequestError(
                _("{player} has been away {gone} s: the win may be claimed after {wait} s").format(
                    player=name, gone=gone, wait=rooms.CLAIM_SECONDS
                )
            )
        ended = record.copy()
        ended.resign(other, "abandoned")
        halted = stopped(stored, record)
        revision = await asyncio.to_thread(
            self.store.end, room.id, len(record), other, ended.result(), "abandoned", halted
        )
        await self._end(room, ended, revision, halted)

    async def abort(self, game_id: str, ply: Any, viewer: Viewer = SPECTATOR) -> dict[str, Any]:
        """Abort a game online before it has really begun (``rooms.abortable``: fewer
        than ``rooms.ABORT_TURNS`` turns complete), or one still waiting for its
        opponent: it ends with no result, reason ``aborted``."""
        room = await self.act("abort", game_id, viewer, ply)
        return room.state(language(), viewer)

    async def _abort(self, room: Room, viewer: Viewer, ply: Any) -> None:
        stored, record = room.stored, room.record
        check_ply(record, ply)
        if record.is_over():
            raise RequestError(_("the game is already over"))
        if not online(stored):
            raise RequestError(
                _("only a game between two people online is aborted; here, undo or resign instead")
            )
        held = viewer.seats(stored)
        if not held:
            raise NotYourSeat(
                _("only a player of this game may abort it: you hold no seat (spectators watch)")
            )
        if not rooms.abortable(stored, record):
            raise RequestError(
                _(
                    "too late to abort: the game has begun (a game is aborted only while "
                    "each player has had at most one turn); resign instead"
                )
            )
        me = min(held)
        ended = record.copy()
        ended.abort(me)
        halted = stopped(stored, record)
        revision = await asyncio.to_thread(
            self.store.end, room.id, len(record), me, ended.result(), ABORTED, halted
        )
        await self._end(room, ended, revision, halted)

    async def take_seat(
        self,
        game_id: str,
        key: str,
        invited: str | None,
        name: str | None,
        viewer: Viewer,
        account: int | None = None,
    ) -> None:
        """Seat an opponent in the game's open seat, acting with the secret whose hash
        is ``key``, held by ``account`` if signed in (see ``Store.take_seat``)."""
        from boardlab.web.data import SeatTaken

        room = await self.room(game_id)

        async def seat() -> None:
            stored = room.stored
            if stored.open_seat is None:
                raise SeatTaken(_("this seat is not open: someone has taken it"))
            if viewer.seats(stored):
                raise RequestError(
                    _(
                        "you play this game already: the open seat is for your opponent; "
                        "send them the invitation link"
                    )
                )
            if stored.rated:  # refused before the seat is tried, in the same words
                rated_seat(stored.accounts[1 - stored.open_seat], account)
            try:
                await asyncio.to_thread(
                    self.store.take_seat, game_id, stored.open_seat, key, invited, name, account
                )
            finally:
                await self._refresh(room)

        await self._changing(room, seat)

    async def rematch(
        self, game_id: str, viewer: Viewer, admit: Callable[[], None] = lambda: None
    ) -> str:
        """The rematch of a finished game, made on the first request of a player: the
        same game and options, the seats swapped, each player's secret acting for their
        new seat. Its id. ``admit`` (the caller's limit on new games, raising to refuse)
        counts the making only."""
        room = await self.room(game_id)
        stored, record = room.stored, room.record
        if not record.is_over():
            raise RequestError(_("a rematch follows a finished game"))
        if stored.open_seat is not None:  # aborted while it waited: nobody to play again
            raise RequestError(_("a rematch needs an opponent, and this game never had one"))
        check_seat(stored, record, viewer, None)
        if stored.rematch is not None:
            return stored.rematch
        admit()
        keys = stored.seat_keys or (None, None)
        made = await asyncio.to_thread(
            lambda: self.store.create(
                NewGame(
                    stored.game,
                    stored.options,
                    [stored.seats[1], stored.seats[0]],
                    stored.owner,
                    start=stored.start,
                    seat_keys=[keys[1], keys[0]],
                    clock=fresh_clock(stored.clock),
                    names=[stored.names[1], stored.names[0]],
                    accounts=[stored.accounts[1], stored.accounts[0]],
                    rated=stored.rated,
                )
            )
        )

        async def link() -> str:
            kept: str = await asyncio.to_thread(self.store.link_rematch, game_id, made)
            await self._refresh(room)
            return kept

        kept = await self._changing(room, link)
        if kept != made:  # the other player asked at the same moment, and was first
            await asyncio.to_thread(self.store.discard, made)
        else:
            self.wake(made, stored.seats)
        return kept

    # ------------------------------------------------------------------ chat
    async def say(
        self, game_id: str, text: str, viewer: Viewer, admit: Callable[[int], None] = lambda _: None
    ) -> None:
        """Keep a line of chat from a player of a game online (``text`` already checked)
        and send it to the players' pages, here and in the other server processes.
        ``admit`` (the caller's rate limit by seat, raising to refuse) counts players'
        lines only."""
        room = await self.room(game_id)
        seats = viewer.seats(room.stored)
        if not online(room.stored) or not seats:
            raise NotYourSeat(_("only the two players of a game online chat, and you hold no seat"))
        admit(min(seats))
        line = await asyncio.to_thread(self.store.say, game_id, min(seats), text)
        self._tell_chat(room, [line])

    async def chat(self, game_id: str, viewer: Viewer) -> list[dict[str, Any]]:
        """The game's chat as a player's page shows it (none for a spectator)."""
        room = await self.room(game_id)
        if not online(room.stored) or not viewer.seats(room.stored):
            return []
        return [chat_json(line) for line in await asyncio.to_thread(self.store.chat, game_id)]

    def _tell_chat(self, room: Room, lines: list[ChatLine]) -> None:
        """Lines of chat to the pages of the game's players (spectators read none)."""
        text = message_text({"type": "chat", "lines": [chat_json(line) for line in lines]})
        for listener in room.players_watching():
            self._deliver(room, listener, text)

    # ------------------------------------------------------------------ the AI
    async def hint(self, game_id: str, ply: Any, viewer: Viewer = SPECTATOR) -> dict[str, Any]:
        """The hint agent's action for the person to act, with its evaluation and line."""
        room = await self.room(game_id)
        stored, record = room.stored, room.record
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

    def wake(self, game_id: str, seats: Sequence[str]) -> None:
        """Start the agent's turn of a new game with ``seats`` if an agent is to act. A
        game of people only is not loaded here: its room is loaded by its first page,
        in the process its pages go to (with several, another than this one may be)."""
        if all(spec == HUMAN for spec in seats):
            return

        async def wake() -> None:
            with contextlib.suppress(BoardlabError):
                self._wake(await self.room(game_id))

        self._spawn(wake())

    def _wake(self, room: Room) -> None:
        if room.thinking:
            return
        record = room.record
        if record.is_over() or room.stored.seats[record.position.to_act] == HUMAN:
            return
        if room.trouble is not None and time.monotonic() - room.trouble[0] < RETRY_AFTER:
            return
        room.thinking = True
        self._tell_status(room)
        self._spawn(self._agent_turns(room))

    async def _agent_turns(self, room: Room) -> None:
        try:
            while True:
                stored, record = room.stored, room.record
                if record.is_over() or stored.seats[record.position.to_act] == HUMAN:
                    return
                answer = await self._think(stored, stored.seats[record.position.to_act])
                room.trouble = None

                async def move(seen: int = stored.revision, chosen: str = answer["action"]) -> None:
                    if room.version != seen:
                        return  # overtaken by an undo or a resignation: look again
                    action = room.record.position.parse_action(chosen)
                    await self._store_action(room, action)

                with contextlib.suppress(StaleError):
                    await self._changing(room, move)
        except (DatabaseAway, QueueFullError) as error:  # the page says so; no trace
            room.trouble = (time.monotonic(), str(error))
        except Exception as error:  # the page says so, the log has the details
            log.exception("the agent of game %s could not play", room.id)
            room.trouble = (time.monotonic(), str(error))
        finally:
            room.thinking = False
            self._tell_status(room)

    # ------------------------------------------------------------------ clocks
    def _arm(self, room: Room) -> None:
        """Look at a game again when the running clock would run out, so its pages learn
        of the loss on time without anyone asking."""
        if room.timer is not None:
            room.timer.cancel()
            room.timer = None
        left = room.time_left()
        if left is None:
            return

        def look() -> None:
            room.timer = None
            self._spawn(self._look(room))

        room.timer = asyncio.get_running_loop().call_later(max(0.0, left / 1000), look)

    async def _look(self, room: Room) -> None:
        with contextlib.suppress(BoardlabError):
            await self._changing(room, self._flag, room)
        if room.timer is None and room.time_left() is not None:
            self._arm(room)  # not yet out (the clock moved meanwhile): look again

    async def analyse(
        self, game_id: str, options: Sequence[str], text: str | None
    ) -> dict[str, Any]:
        """The analysis board's best lines of a position no game stores, searched when
        the asker's turn in the queue comes; the position is read here first, so that
        a bad one is refused before it waits."""
        await asyncio.to_thread(positions.read_position, game_id, options, text)
        result: dict[str, Any] = await self.queue.run(
            CLIENT.get(),
            lane_for(ANALYSIS_AGENT, game_id),
            thinking.analyse,
            game_id,
            list(options),
            text,
            ANALYSIS_AGENT,
        )
        return result

    async def why(self, puzzle_id: str, path: Sequence[str], action: str) -> dict[str, Any]:
        """Why ``action`` after ``path`` is not the puzzle's best, in words: the solver's
        exact values, run when the asker's turn in the queue comes (the puzzle, the path
        and the action are checked here first, so that a bad request never waits)."""
        puzzle, text = await asyncio.to_thread(puzzles.why_position, puzzle_id, path, action)
        found: dict[str, Any] = await self.queue.run(
            CLIENT.get(),
            lane_for(ANALYSIS_AGENT, puzzle.game),
            puzzles.why,
            puzzle.game,
            list(puzzle.options),
            text,
            action,
        )
        return puzzles.explain(puzzle, path, found)

    # ------------------------------------------------------------------ reviews
    async def review(self, game_id: str) -> dict[str, Any]:
        """The stored review of the game as it stands, or ``running`` while one is made."""
        from boardlab.ai import level_name

        room = await self.room(game_id)
        stored = room.stored
        length = len(stored.actions)
        data = await asyncio.to_thread(self.store.review, game_id, REVIEW_AGENT, length)
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
            await asyncio.to_thread(self.store.keep_review, stored.id, REVIEW_AGENT, length, data)
        except (DatabaseAway, QueueFullError):
            pass  # asked for again, the review starts again
        except Exception:
            log.exception("the review of game %s failed", stored.id)

    # ------------------------------------------------------------------ other processes
    async def listen(self) -> None:
        """Keep this process's rooms up to date with the changes other server processes
        make: they announce each on PostgreSQL's LISTEN/NOTIFY channel, which needs no
        other server. A lost connection is made again, and every room here is read
        afresh, since announcements may have been missed meanwhile."""
        import psycopg

        from boardlab.web.store import CHANNEL, ORIGIN, heard

        failing = False  # said once an outage, not once a second
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(
                    self.store.listen_url(), autocommit=True
                ) as connection:
                    await connection.execute(f"LISTEN {CHANNEL}")
                    failing = False
                    for known in list(self.rooms.values()):
                        self._spawn(self._changing(known, self._refresh, known))
                    async for note in connection.notifies():
                        origin, game_id, revision, text = heard(note.payload)
                        if origin != ORIGIN and (game_id in self.rooms or game_id in self.loading):
                            data = {"g": game_id, "v": revision, **json.loads(text)}
                            self._spawn(self._hear(data))
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the database restarts, the network fails
                if not failing:
                    why = str(error).strip().splitlines()[0][:200] if str(error) else error
                    log.warning("listening for changes failed (%s); trying every second", why)
                failing = True
                await asyncio.sleep(1.0)

    async def _hear(self, data: dict[str, Any]) -> None:
        """Another process's announcement, for a room here: one being loaded is waited
        for (it may have read the game before the change was committed)."""
        room = self.rooms.get(data["g"])
        loading = self.loading.get(data["g"])
        if room is None and loading is not None:
            with contextlib.suppress(Exception):  # one not read has nothing to tell
                room = await asyncio.shield(loading)
        if room is None:
            return
        if "chat" in data:
            await self._relay_chat(room, data["chat"])
        elif data["v"] > room.version:
            await self._changing(room, self._heard, room, data)

    async def _heard(self, room: Room, data: dict[str, Any]) -> None:
        """Another process changed the game: an action it announced is played here (the
        next one, from a room that missed none), anything else read afresh."""
        if data["v"] <= room.version:
            return
        if data["v"] != room.version + 1 or "a" not in data:
            await self._refresh(room)
            return
        stored, record = room.stored, room.record
        after = record.copy()
        try:
            after.play(data["a"])
        except BoardlabError:  # not this room's game: it is read afresh, whole
            log.warning("game %s: an announced action did not fit its room", room.id)
            await self._refresh(room, whole=True)
            return
        ticked = data.get("c")
        changed = played(stored, data["a"], after.result(), data["v"], ticked)
        self._changed(room, await self._rated(changed, after), after)

    async def _relay_chat(self, room: Room, n: int) -> None:
        """A line of chat another server process kept, to the pages here."""
        with contextlib.suppress(BoardlabError):
            lines = await asyncio.to_thread(self.store.chat, room.id, n - 1, 1)
            self._tell_chat(room, lines)

    # ------------------------------------------------------------------ pages
    async def watch(
        self, game_id: str, listener: Listener, viewer: Viewer = SPECTATOR, since: int | None = None
    ) -> Room:
        """Send ``listener`` (a page, in the current language) what it needs to be up to
        date with the game, then every change: ``welcome`` with the seats it holds, the
        events after version ``since`` (or the whole state), the chat for a player."""
        room = await self.room(game_id)
        lang = language()
        room.watchers[listener] = Watcher(lang, viewer)
        seats = viewer.seats(room.stored)
        welcome = {"type": "welcome", "v": room.version, "you": sorted(seats)}
        self._deliver(room, listener, message_text(welcome))
        for text in room.missed(since, lang):
            self._deliver(room, listener, text)
        if since is not None:  # what changed meanwhile without a new version
            self._deliver(room, listener, room.status_message(lang))
        self._arrived(room, seats, here=True)
        if not seats:
            self._spectator(room, +1)
        self._wake(room)
        return room

    def unwatch(self, game_id: str, listener: Listener) -> None:
        room = self.rooms.get(game_id)
        if room is None:
            return
        watcher = room.watchers.pop(listener, None)
        room.touched = time.monotonic()
        if watcher is not None:
            seats = watcher.viewer.seats(room.stored)
            self._arrived(room, seats, here=False)
            if not seats:
                self._spectator(room, -1)

    def _spectator(self, room: Room, change: int) -> None:
        """A spectator's page opened or closed: the pages learn the count within a
        second (a thousand arriving at once make one message each, not a thousand)."""
        room.spectators += change
        if room.spectators_untold:
            return
        room.spectators_untold = True

        def tell() -> None:
            room.spectators_untold = False
            self._tell_status(room)

        asyncio.get_running_loop().call_later(SPECTATORS_TOLD_SECONDS, tell)

    def _arrived(self, room: Room, seats: frozenset[int], here: bool) -> None:
        """A page of a player opened (``here``) or closed: when a seat has its first
        page or loses its last, the other pages of a game online learn the player is
        back or away."""
        changed = False
        for seat in seats:
            before = room.present[seat] > 0
            room.present[seat] += 1 if here else -1
            changed |= before != (room.present[seat] > 0)
            if before and not room.present[seat]:
                room.away_since[seat] = clock.milliseconds()
        room.present = +room.present
        if changed and online(room.stored):
            self._tell_status(room)
            self._start_clock_when_both_came(room)

    def _asked(self, room: Room, viewer: Viewer) -> None:
        """A request of a player of a game online over the API, with no page open maybe
        (a program that plays by requests, a person who closed the page): they are at
        the board, so a standing clock starts once both are (as when both pages open),
        and they are away only from this request (the win is not claimed from a player
        who keeps asking)."""
        seats = viewer.seats(room.stored)
        if not seats or not online(room.stored):
            return
        if room.asked(seats, clock.milliseconds()):
            self._tell_status(room)
        self._start_clock_when_both_came(room)

    def _start_clock_when_both_came(self, room: Room) -> None:
        """A standing clock (a rematch's, a challenge's) runs once both players are at
        the board, by a page or by requests (``Room.at_board``)."""
        if room.at_board(0) and room.at_board(1) and clock_stands(room.stored):
            self._spawn(self._start_clock(room))

    async def _start_clock(self, room: Room) -> None:
        """Both players have come to a game whose clock stands (a rematch's): it runs."""

        async def start() -> None:
            await asyncio.to_thread(self.store.start_clock, room.id)
            await self._refresh(room)

        try:
            await self._changing(room, start)
        except Exception:  # the database away: the next page that opens tries again
            log.warning("the clock of game %s could not be started", room.id, exc_info=True)

    def _broadcast(self, room: Room, event: Event) -> None:
        """A change to every page watching the game, described and encoded once for
        each language they read."""
        for listener, watcher in list(room.watchers.items()):
            text = room.message(watcher.language, event.moves_from, event.follows)
            self._deliver(room, listener, text)

    def _tell_status(self, room: Room) -> None:
        """The agent thinking or not, a player away or back, to every page."""
        room.texts.clear()  # the messages of this version told the status as it was
        for listener, watcher in list(room.watchers.items()):
            self._deliver(room, listener, room.status_message(watcher.language))

    @staticmethod
    def _deliver(room: Room, listener: Listener, text: str) -> None:
        """Give a page its message; a page that cannot take it (its queue is full: it is
        too slow) is forgotten, and its socket closes (``Outbox``)."""
        try:
            listener(text)
        except Exception:
            room.watchers.pop(listener, None)


def headers_of(stored: StoredGame) -> dict[str, str]:
    """The record's headers of a stored game, its players named as the page names them."""
    game = boardlab.new_game(stored.game, **stored.options)
    named = {  # data: the record's header names and seats stay in English
        side.capitalize(): (shown_name(name, english=True) or side.capitalize())
        if spec == HUMAN
        else f"AI ({spec})"
        for side, spec, name in zip(game.players, stored.seats, stored.names, strict=True)
    }
    return {"Event": "boardlab", **named, **stored.headers}


def record_of(stored: StoredGame) -> GameRecord:
    """The record of a stored game: from its snapshot when it has one, else replayed."""
    headers = headers_of(stored)
    record = resumed(stored, headers)
    if record is not None:
        return record
    return thinking.rebuild(
        stored.game,
        stored.options,
        stored.start,
        stored.actions,
        stored.resigned,
        headers,
        stored.ending,
    )


def played(
    stored: StoredGame,
    action: str,
    result: str,
    revision: int,
    ticked: clock.Clock | None,
    snapshot: str | None = None,
) -> StoredGame:
    """The stored game after ``action``: the append changed just these fields."""
    return dataclasses.replace(
        stored,
        actions=(*stored.actions, action),
        snapshot=snapshot,
        result=result,
        revision=revision,
        draw_offer=None,
        takeback_offer=None,
        clock=stored.clock if ticked is None else ticked,
    )


#: How many of the legal actions a refusal names.
NAMED = 12


def not_now(position: Position[Any], text: str) -> str:
    """Why ``text`` is not an action the player to act may play, in the words of the
    game page: what is due and the actions that are (not the position's notation)."""
    legal = position.legal_action_strings()
    named = ", ".join(legal[:NAMED]) + (", …" if len(legal) > NAMED else "")
    return _("{action!r} cannot be played now ({due}); what can: {legal}").format(
        action=clipped(text), due=position.game.due(position.state), legal=named
    )


def clock_stands(stored: StoredGame) -> bool:
    """Whether the game's clock would start were both players at the board."""
    return clock_started(stored.clock, stored.open_seat, stored.result) is not None


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
