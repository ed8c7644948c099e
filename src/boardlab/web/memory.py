"""Games kept in memory: the storage a server needs when no database must outlive it.

``MemoryStore`` answers as ``Store`` does (``GameStore`` in ``data.py``; the same
refusals, revisions and orders, compared in ``tests/test_web_store.py``) from a few
dictionaries, so that tests of the service and the app can run without a database file
and a demonstration server without a disk. Everything is lost when the process stops;
one process only (nothing announces changes to another).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from boardlab.core.errors import BoardlabError
from boardlab.core.i18n import _
from boardlab.puzzles.glicko import Rating
from boardlab.web import clock
from boardlab.web.data import (
    Append,
    ChatLine,
    Conflict,
    NewGame,
    StoredGame,
    check_range,
    clock_started,
    new_id,
    no_game,
    possible_id,
    seat_taken,
    stale_message,
)

#: The ``--db`` that keeps games in memory.
MEMORY_URL = "memory:"


def now() -> datetime:
    return datetime.now(UTC)


class MemoryStore:
    """The games of one process, in memory (see the module's docstring). Each method is
    one step under one lock, as each of ``Store``'s is one transaction."""

    url = MEMORY_URL
    #: nothing to tell: there is no other process
    announces = False
    away_since: float | None = None

    def __init__(self) -> None:
        self.games: dict[str, StoredGame] = {}  # in the order they were made
        self.lines: dict[str, list[ChatLine]] = {}
        self.reviews: dict[tuple[str, str], tuple[int, dict[str, Any]]] = {}
        self.said = 0  # chat lines, numbered across games as a database's would be
        self.lock = threading.Lock()

    def close(self) -> None:
        """Nothing to give back: the games go with the process."""

    def checkpoint(self) -> None:
        """Nothing to copy: there is no log."""

    def listen_url(self) -> str:
        raise BoardlabError(_("games kept in memory are not announced to other processes"))

    # ------------------------------------------------------------------ games
    def create(self, new: NewGame) -> str:
        """A new game (``accounts`` and ``rated`` are kept only: no accounts here)."""
        game_id = new_id()
        seats, names, accounts = new.seats, new.names, new.accounts
        stored = StoredGame(
            id=game_id,
            game=new.game,
            options=dict(new.options),
            start=new.start,
            seats=(seats[0], seats[1]),
            headers=dict(new.headers or {}),
            owner=new.owner,
            resigned=new.resigned,
            actions=tuple(new.actions),
            result=new.result,
            updated=now(),
            revision=0,
            seat_keys=None if new.seat_keys is None else (new.seat_keys[0], new.seat_keys[1]),
            open_seat=new.open_seat,
            listed=new.listed and new.open_seat is not None,
            ending=new.ending,
            clock=None if new.clock is None else dict(new.clock),
            names=(names[0], names[1]),
            accounts=(accounts[0], accounts[1]),
            rated=new.rated,
            rating_range=None
            if new.rating_range is None
            else (new.rating_range[0], new.rating_range[1]),
        )
        with self.lock:
            self.games[game_id] = stored
        return game_id

    def load(self, game_id: str) -> StoredGame:
        with self.lock:
            return self._game(game_id)

    def append(
        self,
        game_id: str,
        ply: int,
        action: str,
        result: str,
        clock: dict[str, Any] | None = None,
    ) -> int:
        (answer,) = self.append_many([Append(game_id, ply, action, result, clock)])
        if isinstance(answer, BoardlabError):
            raise answer
        return answer

    def append_many(self, appends: Sequence[Append]) -> list[int | BoardlabError]:
        answers: list[int | BoardlabError] = []
        with self.lock:
            for item in appends:
                stored = self.games.get(item.game_id) if possible_id(item.game_id) else None
                if stored is None:
                    answers.append(no_game(item.game_id))
                    continue
                length = len(stored.actions)
                if length != item.ply or stored.resigned is not None or stored.ending:
                    answers.append(Conflict(stale_message(length, item.ply)))
                    continue
                changes: dict[str, Any] = {
                    "actions": (*stored.actions, item.action),
                    "snapshot": item.snapshot,
                }
                if item.clock is not None:
                    changes["clock"] = dict(item.clock)
                answers.append(
                    self._change(
                        stored,
                        result=item.result,
                        draw_offer=None,
                        takeback_offer=None,
                        **changes,
                    )
                )
        return answers

    def truncate(
        self, game_id: str, ply: int, length: int, clock: dict[str, Any] | None = None
    ) -> int:
        with self.lock:
            stored = self._game(game_id)
            self._check(stored, ply)
            changes: dict[str, Any] = {} if clock is None else {"clock": dict(clock)}
            return self._change(
                stored,
                actions=stored.actions[:length],
                snapshot=None,
                resigned=None,
                result="*",
                ending=None,
                draw_offer=None,
                takeback_offer=None,
                **changes,
            )

    def end(
        self,
        game_id: str,
        ply: int,
        player: int | None,
        result: str,
        reason: str = "resign",
        clock: dict[str, Any] | None = None,
    ) -> int:
        with self.lock:
            stored = self._game(game_id)
            self._check(stored, ply, stored.resigned is None and stored.ending is None)
            changes: dict[str, Any] = {} if clock is None else {"clock": dict(clock)}
            return self._change(
                stored,
                resigned=player,
                ending=reason,
                result=result,
                draw_offer=None,
                takeback_offer=None,
                **changes,
            )

    def offer_draw(self, game_id: str, ply: int, player: int | None) -> int:
        return self._offer(game_id, ply, "draw_offer", player)

    def offer_takeback(self, game_id: str, ply: int, player: int | None) -> int:
        return self._offer(game_id, ply, "takeback_offer", player)

    def _offer(self, game_id: str, ply: int, field: str, player: int | None) -> int:
        with self.lock:
            stored = self._game(game_id)
            self._check(stored, ply, stored.result == "*")
            changes: dict[str, Any] = {field: player}
            return self._change(stored, **changes)

    def discard(self, game_id: str) -> None:
        with self.lock:
            self.games.pop(game_id, None)
            self.lines.pop(game_id, None)

    def link_rematch(self, game_id: str, rematch: str) -> str:
        with self.lock:
            stored = self._game(game_id)
            if stored.rematch is None:
                self._change(stored, rematch=rematch, touch=False)
                return rematch
            return stored.rematch

    def take_seat(
        self,
        game_id: str,
        seat: int,
        key: str,
        invited: str | None,
        name: str | None = None,
        account: int | None = None,
    ) -> int:
        with self.lock:
            stored = self._game(game_id)
            keys = seat_taken(
                stored.seat_keys, stored.open_seat, stored.result, stored.listed, seat, key, invited
            )
            # no account plays here: a newcomer's rating, were one to ask
            check_range(stored.rating_range, account, Rating().rating)
            names = list(stored.names)
            names[seat] = name
            running = stored.clock
            if running is not None:  # both are here: the clock of the player to act runs
                running = clock.start(running, clock.milliseconds())
            return self._change(
                stored,
                seat_keys=keys,
                open_seat=None,
                listed=False,
                names=(names[0], names[1]),
                clock=running,
            )

    def start_clock(self, game_id: str) -> int:
        with self.lock:
            stored = self._game(game_id)
            started = clock_started(stored.clock, stored.open_seat, stored.result)
            if started is None:
                return stored.revision
            return self._change(stored, clock=started)

    # ------------------------------------------------------------------ chat
    def say(self, game_id: str, seat: int, text: str) -> ChatLine:
        with self.lock:
            self._game(game_id)
            self.said += 1
            line = ChatLine(self.said, seat, text, now())
            self.lines.setdefault(game_id, []).append(line)
            return line

    def chat(self, game_id: str, after: int = 0, limit: int = 500) -> list[ChatLine]:
        with self.lock:
            lines = [line for line in self.lines.get(game_id, ()) if line.n > after]
            return lines[-limit:] if limit else []

    # ------------------------------------------------------------------ lists
    def lobby(self, limit: int = 100) -> list[StoredGame]:
        with self.lock:
            waiting = [
                g
                for g in self.games.values()
                if g.listed and g.open_seat is not None and g.result == "*"
            ]
        return [dataclasses.replace(g, actions=()) for g in reversed(waiting)][:limit]

    def games_of(self, owner: str, limit: int = 200) -> list[StoredGame]:
        with self.lock:
            made = [g for g in self.games.values() if g.owner == owner]
        made.sort(key=lambda g: g.updated, reverse=True)
        return [dataclasses.replace(g, actions=()) for g in made[:limit]]

    def count(self) -> int:
        return len(self.games)

    # ------------------------------------------------------------------ reviews
    def review(self, game_id: str, agent: str, length: int) -> dict[str, Any] | None:
        kept = self.reviews.get((game_id, agent))
        return kept[1] if kept is not None and kept[0] == length else None

    def keep_review(self, game_id: str, agent: str, length: int, data: dict[str, Any]) -> None:
        self.reviews[game_id, agent] = (length, data)

    # ------------------------------------------------------------------ inside
    def _game(self, game_id: str) -> StoredGame:
        stored = self.games.get(game_id) if possible_id(game_id) else None
        if stored is None:
            raise no_game(game_id)
        return stored

    @staticmethod
    def _check(stored: StoredGame, ply: int, open_: bool = True) -> None:
        """Refuse a change to action ``ply`` when the game holds another (or, when
        ``open_`` is false, can take no such change any more)."""
        if len(stored.actions) != ply or not open_:
            raise Conflict(stale_message(len(stored.actions), ply))

    def _change(self, stored: StoredGame, touch: bool = True, **changes: Any) -> int:
        """Keep the game with ``changes`` at its next revision (``touch``: now is when
        it was last changed); that revision."""
        if touch:
            changes["updated"] = now()
        changed = dataclasses.replace(stored, revision=stored.revision + 1, **changes)
        self.games[stored.id] = changed
        return changed.revision
