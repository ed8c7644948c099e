"""The web app's games: what a page shows of a stored game, and every change to one.

Each change is checked by the engine on a record rebuilt from the database, stored, and
only then shown: to the page that asked and, over WebSockets, to every other page open
on the game. Agents' turns are played here too, one task per game, their searches in
worker processes. Nothing here names a game: boards come from the board model, clicks
from the anatomy of actions.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from starlette.concurrency import run_in_threadpool

import boardlab
from boardlab.ai import level_name
from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game
from boardlab.core.i18n import _, language, use_language
from boardlab.core.record import GameRecord
from boardlab.ui.svg import board_svg
from boardlab.web import thinking
from boardlab.web.store import StaleError, Store, StoredGame, stale_message

log = logging.getLogger("boardlab.web")

HUMAN = "human"
#: The agent behind hints, as in the terminal.
HINT_AGENT = "hard"
#: The agent a review asks.
REVIEW_AGENT = "hard"
#: Seconds before an agent that failed is asked again.
RETRY_AFTER = 10.0


class RequestError(BoardlabError):
    """A request the game cannot take (illegal, malformed, nothing to undo): the page
    shows the message and the game is unchanged."""


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


#: A page watching a game: it is sent the game's state in its language.
Listener = Callable[[dict[str, Any]], Awaitable[None]]


class GameService:
    """The games of one store, with the agents that play in them and the pages that
    watch them."""

    def __init__(self, store: Store, workers: int = 2) -> None:
        self.store = store
        self.workers = workers
        self._pool: Any = None
        self._review_pool: Any = None
        #: games whose agent is searching now (the page shows it thinking)
        self.thinking: set[str] = set()
        #: games whose agent failed, with when and why: not woken again for a while
        self.trouble: dict[str, tuple[float, str]] = {}
        self.reviewing: dict[str, asyncio.Task[None]] = {}
        #: the pages watching each game, with the language each reads
        self.watchers: dict[str, dict[Listener, str]] = {}
        self.tasks: set[asyncio.Task[None]] = set()

    # ------------------------------------------------------------------ workers
    @property
    def pool(self) -> Any:
        if self._pool is None:
            self._pool = thinking.pool(self.workers)
        return self._pool

    @property
    def review_pool(self) -> Any:
        if self._review_pool is None:
            self._review_pool = thinking.pool(1)
        return self._review_pool

    def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        for pool in (self._pool, self._review_pool):
            if pool is not None:
                pool.shutdown(wait=False, cancel_futures=True)

    # ------------------------------------------------------------------ reading
    async def load(self, game_id: str) -> tuple[StoredGame, GameRecord]:
        stored = await run_in_threadpool(self.store.load, game_id)
        return stored, record_of(stored)

    async def state(self, game_id: str) -> dict[str, Any]:
        stored, record = await self.load(game_id)
        return self.describe(stored, record)

    def describe(self, stored: StoredGame, record: GameRecord) -> dict[str, Any]:
        """Everything a game page shows, as JSON."""
        state = describe(stored, record, stored.id in self.thinking)
        failed = self.trouble.get(stored.id)
        trouble = _("the AI could not play: {error}").format(error=failed[1]) if failed else ""
        state["trouble"] = trouble if not state["thinking"] else ""
        return state

    # ------------------------------------------------------------------ changes
    async def play(self, game_id: str, text: Any, ply: Any) -> dict[str, Any]:
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
        if not isinstance(text, str) or not text.strip():
            raise RequestError(
                _("no action given: expected an action string such as {example!r}").format(
                    example=position.legal_action_strings()[0]
                )
            )
        action = position.parse_action(text.strip())  # refuses what is not legal here
        return await self._store_action(stored, record, action)

    async def _store_action(
        self, stored: StoredGame, record: GameRecord, action: int
    ) -> dict[str, Any]:
        ply = len(record)
        text = record.position.action_string(action)
        record.play(action)
        await run_in_threadpool(self.store.append, stored.id, ply, text, record.result())
        return await self._changed(stored.id)

    async def undo(self, game_id: str, ply: Any) -> dict[str, Any]:
        """Take back the latest turn a person played (and the agent's replies after it),
        or a resignation."""
        stored, record = await self.load(game_id)
        check_ply(record, ply)
        if record.resigned is not None:
            length = len(record)
        else:
            start = record.turn_start(lambda player: Seat(stored.seats[player]).human)
            if start is None:
                raise RequestError(_("nothing to undo: no person has played yet"))
            length = start
        await run_in_threadpool(self.store.truncate, game_id, len(record), length)
        return await self._changed(game_id)

    async def resign(self, game_id: str, ply: Any) -> dict[str, Any]:
        """The person to act resigns (against an agent: the person, whoever acts)."""
        stored, record = await self.load(game_id)
        check_ply(record, ply)
        if record.is_over():
            raise RequestError(_("the game is already over"))
        humans = [p for p in (0, 1) if Seat(stored.seats[p]).human]
        if not humans:
            raise RequestError(_("only a person can resign, and both seats are agents"))
        to_act = record.position.to_act
        player = to_act if to_act in humans else humans[0]
        record.resign(player)
        await run_in_threadpool(self.store.resign, game_id, len(record), player, record.result())
        return await self._changed(game_id)

    async def hint(self, game_id: str, ply: Any) -> dict[str, Any]:
        """The hint agent's action for the person to act, with its evaluation and line."""
        stored, record = await self.load(game_id)
        check_ply(record, ply)
        if record.is_over():
            raise RequestError(_("the game is over: there is nothing to hint"))
        answer = await self._think(stored, HINT_AGENT)
        position = record.position
        action = position.parse_action(answer["action"])
        answer["places"] = list(position.game.action_parts(position.state, action).places)
        answer["player"] = position.player
        return answer

    async def _think(self, stored: StoredGame, spec: str) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        seed = thinking.seed_for(stored.id, len(stored.actions))
        result: dict[str, Any] = await loop.run_in_executor(
            self.pool,
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
        except Exception as error:  # the page says so, the log has the details
            log.exception("the agent of game %s could not play", game_id)
            self.trouble[game_id] = (time.monotonic(), str(error))
            thought = True
        finally:
            self.thinking.discard(game_id)
            if thought:
                with contextlib.suppress(Exception):
                    await self._broadcast(*await self.load(game_id))

    async def _changed(self, game_id: str) -> dict[str, Any]:
        stored, record = await self.load(game_id)
        if not record.is_over() and not Seat(stored.seats[record.position.to_act]).human:
            self.wake(game_id)
        await self._broadcast(stored, record)
        return self.describe(stored, record)

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
        loop = asyncio.get_running_loop()
        try:
            data = await loop.run_in_executor(
                self.review_pool,
                thinking.review,
                stored.game,
                stored.options,
                stored.start,
                stored.actions,
                REVIEW_AGENT,
            )
            await run_in_threadpool(self.store.keep_review, stored.id, REVIEW_AGENT, length, data)
        except Exception:
            log.exception("the review of game %s failed", stored.id)

    # ------------------------------------------------------------------ watchers
    def watch(self, game_id: str, listener: Listener) -> None:
        """Send ``listener`` each new state of the game, in the current language."""
        self.watchers.setdefault(game_id, {})[listener] = language()

    def unwatch(self, game_id: str, listener: Listener) -> None:
        self.watchers.get(game_id, {}).pop(listener, None)

    async def _broadcast(self, stored: StoredGame, record: GameRecord) -> None:
        """The game's new state to every page watching it, described once for each
        language they read."""
        states: dict[str, dict[str, Any]] = {}
        for listener, lang in list(self.watchers.get(stored.id, {}).items()):
            if lang not in states:
                with use_language(lang):
                    states[lang] = self.describe(stored, record)
            try:
                await listener(states[lang])
            except Exception:  # a closed page: forget it
                self.unwatch(stored.id, listener)


def record_of(stored: StoredGame) -> GameRecord:
    """The record of a stored game, its players named as the page names them."""
    game = boardlab.new_game(stored.game, **stored.options)
    headers = {  # data: the record's header names and seats stay in English
        name.capitalize(): name.capitalize() if spec == HUMAN else f"AI ({spec})"
        for name, spec in zip(game.players, stored.seats, strict=True)
    }
    return thinking.rebuild(
        stored.game,
        stored.options,
        stored.start,
        stored.actions,
        stored.resigned,
        {"Event": "boardlab", **headers, **stored.headers},
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


def describe(stored: StoredGame, record: GameRecord, thinking_now: bool) -> dict[str, Any]:
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
                "label": seat.label(game.player_name(k)),
            }
            for k, seat in enumerate(seats)
        ],
        "tallies": [[str(t) for t in side] for side in board.tallies],
        "to_act": to_act,
        "human_to_act": to_act is not None and seats[to_act].human,
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
        "can_undo": record.resigned is not None
        or record.turn_start(lambda player: seats[player].human) is not None,
        "position": position.position_string(),
    }


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
