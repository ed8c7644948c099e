"""A live game in memory: its room.

A room holds everything about one game that a server process needs while people play
it: the game as stored, its record (so no request replays it), the pages watching it
with their languages, who of the players has a page open, the clock's timer and the
agent's turn. Every change to the game goes through its room, one at a time (``lock``),
and becomes an event with a version number (the game's revision in the database), sent
to every page as text encoded once per language: a thousand spectators cost one
description and one encoding, not a thousand. A page that comes back with the last
version it saw is sent what changed since (the game as it stands, the move list from
the first turn the missed events changed), or the whole state when they are no longer
kept.

Nothing here knows HTTP or the database: the service (``service.py``) loads rooms,
stores their changes and hands them pages; ``describe`` is what a page shows.
"""

from __future__ import annotations

import asyncio
import collections
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC
from typing import Any

import boardlab
from boardlab.ai import level_name
from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game
from boardlab.core.i18n import _, use_language
from boardlab.core.record import ABORTED, GameRecord
from boardlab.ui.svg import Drawing, draw
from boardlab.web import clock
from boardlab.web.data import (
    HUMAN,
    ChatLine,
    StoredGame,
    Viewer,
    message_text,
    online,
    shown_name,
)
from boardlab.web.positions import legal_actions, narration

#: A page watching a game: it is given messages as JSON text (``Room.message``) to send
#: in order, and raises when it cannot take more (it is too slow, and goes).
Listener = Callable[[str], None]
#: Events a room keeps for pages that come back (a page further behind gets the state).
KEPT_EVENTS = 32
#: How long a player online must have been away (no page of the game open, no request
#: of their seat's) before the other may claim the win.
CLAIM_SECONDS = 60
#: A player who plays over the API alone (no page open) is away from their last request:
#: the pages are told it again once it has moved on this much (not at every request), so
#: the win they offer to claim is never offered sooner than this before it may be.
AWAY_TOLD_SECONDS = 15
#: A game online may be aborted (ended with no result) while fewer turns than this are
#: complete: each player has had at most one turn. After it, a player resigns instead.
ABORT_TURNS = 2
#: Seconds a message that shows a running clock is sent as it is (a change told to a
#: thousand pages is encoded once; a page that comes later sees the clock as it is then).
CLOCK_FRESH = 0.05


@dataclass
class Watcher:
    """A page on a game: the language it reads and who it is."""

    language: str
    viewer: Viewer


@dataclass(frozen=True)
class Event:
    """A change to the game: its version, the version it follows, and the first turn of
    the move list it changed (what a page that missed it must be sent again)."""

    version: int
    follows: int
    moves_from: int


@dataclass
class Room:
    """One game while it is live in this process (see the module's docstring)."""

    stored: StoredGame
    record: GameRecord
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    watchers: dict[Listener, Watcher] = field(default_factory=dict)
    #: how many pages each seat has open now (none: the player is away)
    present: collections.Counter[int] = field(default_factory=collections.Counter)
    #: since when (milliseconds since the epoch) each seat has had no page open; a room
    #: just loaded counts both players away from then
    away_since: dict[int, int] = field(
        default_factory=lambda: dict.fromkeys((0, 1), int(time.time() * 1000))
    )
    #: the seats whose player has asked for the game over the API (a program that plays
    #: by requests, a page closed): they are at the board for the clock, as a page is
    came: set[int] = field(default_factory=set)
    #: the ``away_since`` the pages were last told of, by seat
    away_told: dict[int, int] = field(default_factory=dict)
    #: how many pages watch holding no seat, and whether the pages are yet to be told
    spectators: int = 0
    spectators_untold: bool = False
    timer: asyncio.TimerHandle | None = None
    #: whether the agent is searching now (the page shows it thinking)
    thinking: bool = False
    #: when and why the agent last failed (not woken again for a while), or None
    trouble: tuple[float, str] | None = None
    #: when the room was last used (monotonic seconds): idle rooms leave memory
    touched: float = field(default_factory=time.monotonic)
    #: the game as each language describes it, at the current version
    described: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: the messages of the current version, by language and first turn of the move list,
    #: with when each was made (one with a running clock is made again after a moment)
    texts: dict[tuple[str, int, bool], tuple[float, str]] = field(default_factory=dict)
    #: the board as drawn at the current version, and at the version before
    #: (``board_base``), by language: a page that holds that one is sent only the lines
    #: of the board that changed, and the next board redraws only what changed
    boards: dict[str, Drawing] = field(default_factory=dict)
    boards_before: dict[str, Drawing] = field(default_factory=dict)
    board_base: int | None = None
    #: the move list at the current version (language-free)
    moves: list[dict[str, Any]] = field(default_factory=list)
    events: collections.deque[Event] = field(
        default_factory=lambda: collections.deque(maxlen=KEPT_EVENTS)
    )

    def __post_init__(self) -> None:
        self.moves = moves_of(self.record)

    @property
    def id(self) -> str:
        return self.stored.id

    @property
    def version(self) -> int:
        return self.stored.revision

    def time_left(self) -> int | None:
        """Milliseconds the player to act has left while their clock runs, else None."""
        running = self.stored.clock
        if running is None or running["since"] is None or self.record.is_over():
            return None
        to_act = self.record.position.to_act
        return clock.left_now(running, to_act, clock.milliseconds())[to_act]

    def out_of_time(self) -> bool:
        left = self.time_left()
        return left is not None and left <= 0

    def at_board(self, seat: int) -> bool:
        """Whether the seat's player has come to the game: a page of it open, or a
        request of the seat's over the API since the room was loaded."""
        return self.present[seat] > 0 or seat in self.came

    def asked(self, seats: frozenset[int], now: int) -> bool:
        """A request over the API of a player holding ``seats`` at ``now``: they have come
        to the board, and a seat with no page open is away only from now. Whether the
        pages should be told (its away time moved ``AWAY_TOLD_SECONDS`` since they were
        last told)."""
        tell = False
        for seat in seats:
            self.came.add(seat)
            if not self.present[seat]:
                self.away_since[seat] = now
                told = self.away_told.get(seat, 0)
                if now - told >= AWAY_TOLD_SECONDS * 1000:
                    self.away_told[seat] = now
                    tell = True
        return tell

    # ------------------------------------------------------------------ changes
    def change(
        self, stored: StoredGame, record: GameRecord, moves: list[dict[str, Any]] | None = None
    ) -> Event:
        """The game as it now stands (stored, at a new version, its move list ``moves``
        when the caller has it): the event that tells it, kept for pages that come
        back."""
        self.boards_before, self.boards = self.boards, {}
        self.board_base = self.version
        if moves is None:
            moves = moves_after(self.moves, self.record, record)
        before, self.moves = self.moves, moves
        self.stored, self.record = stored, record
        self.described.clear()
        self.texts.clear()
        same = 0
        while same < min(len(before), len(self.moves)) and (
            before[same] is self.moves[same] or before[same] == self.moves[same]
        ):
            same += 1
        event = Event(stored.revision, self.board_base, same)
        self.events.append(event)
        return event

    # ------------------------------------------------------------------ what pages see
    def shared(self, lang: str) -> dict[str, Any]:
        """The game at its version as every page in ``lang`` sees it, described once."""
        found = self.described.get(lang)
        if found is None:
            with use_language(lang):
                found, self.boards[lang] = describe(
                    self.stored, self.record, self.boards_before.get(lang)
                )
            self.described[lang] = found
        return found

    def status(self) -> dict[str, Any]:
        """What changes without a change to the game: the agent thinking or failing,
        the players away, how many watch."""
        failed = self.trouble
        trouble = ""
        if failed is not None and not self.thinking:
            trouble = _("the AI could not play: {error}").format(error=failed[1])
        away = [
            k
            for k in (0, 1)
            if online(self.stored) and k != self.stored.open_seat and not self.present[k]
        ]
        return {
            "thinking": self.thinking,
            "trouble": trouble,
            "away": away,
            "claim_from": [
                self.away_since[k] + CLAIM_SECONDS * 1000 if k in away else None for k in (0, 1)
            ],
            "watching": self.spectators,
        }

    def status_message(self, lang: str) -> str:
        """The status as a message to pages in ``lang``."""
        with use_language(lang):
            return message_text({"type": "status", "v": self.version, **self.status()})

    def state(self, lang: str, viewer: Viewer) -> dict[str, Any]:
        """The whole state as ``viewer``'s page shows it (an API answer, a page's first
        load), moves and all."""
        with use_language(lang):
            return {
                **self.shared(lang),
                "clock": clock_now(self.stored, self.record),
                "moves": self.moves,
                "moves_from": 0,
                **self.status(),
                **personal(self.stored, self.record, viewer),
            }

    def message(self, lang: str, moves_from: int = 0, since: int | None = None) -> str:
        """The JSON text of the game at its version for pages in ``lang`` that hold
        version ``since``: the move list from turn ``moves_from`` (0: the whole state),
        and the board as the lines that changed when the page holds the version before
        (``svg_lines``, by line number, with ``svg_base``; a board is some 15 KB, a move
        changes a few of its places). The same text for every such page, whatever seats
        it holds (a page knows its own from ``welcome``), made once (once a moment while
        a clock runs down)."""
        now = time.monotonic()
        patch = since is not None and since == self.board_base and lang in self.boards_before
        made, text = self.texts.get((lang, moves_from, patch), (0.0, ""))
        if not text or (now - made > CLOCK_FRESH and self.time_left() is not None):
            with use_language(lang):
                state = {
                    **self.shared(lang),
                    "clock": clock_now(self.stored, self.record),
                    "moves": self.moves[moves_from:],
                    "moves_from": moves_from,
                    **self.status(),
                }
            if patch:
                lines = changed_lines(self.boards_before[lang].lines, self.boards[lang].lines)
                if lines is not None:
                    del state["svg"]
                    state.update(svg_lines=lines, svg_base=self.board_base)
            text = message_text({"type": "state", "v": self.version, "state": state})
            self.texts[lang, moves_from, patch] = (now, text)
        return text

    def missed(self, since: int | None, lang: str) -> list[str]:
        """What a page that saw version ``since`` needs to be up to date: nothing, the
        changes after it in one message (the game as it stands, the move list from the
        first turn any of them changed), or, when they are no longer all kept, the whole
        state."""
        if since == self.version:
            return []
        after = [event for event in self.events if since is not None and event.version > since]
        kept = (
            since is not None
            and since < self.version
            and len(after) == self.version - since
            and after[0].version == since + 1
        )
        if not kept:
            return [self.message(lang)]
        return [self.message(lang, min(event.moves_from for event in after), since)]

    def players_watching(self) -> list[Listener]:
        """The pages of the game's players (who read its chat)."""
        return [
            listener
            for listener, watcher in self.watchers.items()
            if watcher.viewer.seats(self.stored)
        ]


def changed_lines(before: list[str], after: list[str]) -> dict[int, str] | None:
    """The lines ``after`` that differ from the lines ``before``, by number (None when
    their counts differ): ``before`` with these lines replaced is ``after``."""
    if len(before) != len(after):
        return None
    return {k: line for k, (was, line) in enumerate(zip(before, after, strict=True)) if was != line}


def clock_now(stored: StoredGame, record: GameRecord) -> dict[str, Any] | None:
    """The game's clock as a page shows it now: each player's milliseconds left, and
    whose run down (None: no clock)."""
    if stored.clock is None:
        return None
    to_act = None if record.is_over() else record.position.to_act
    return {
        "left": clock.left_now(stored.clock, to_act, clock.milliseconds()),
        "running": to_act if stored.clock["since"] is not None else None,
        "base": stored.clock["base"],
        "increment": stored.clock["increment"],
    }


def moves_of(record: GameRecord) -> list[dict[str, Any]]:
    """The move list: the record's turns, each with its number, player, first ply and
    actions."""
    return [
        {"number": t.number, "player": t.player, "first_ply": t.first_ply, "actions": t.actions}
        for t in record.turns()
    ]


def moves_after(
    moves: list[dict[str, Any]], before: GameRecord, after: GameRecord
) -> list[dict[str, Any]]:
    """The move list of ``after``, given ``moves``, that of ``before``: when ``after``
    is ``before`` and one more action (the common change), only the last turn is new."""
    ply = len(before)
    if len(after) != ply + 1 or after.position_at(ply) is not before.position:
        return moves_of(after)
    position, action = after.last_turn()[-1]
    text = position.action_string(action)
    if moves and moves[-1]["player"] == position.to_act:
        last = moves[-1]
        return [*moves[:-1], {**last, "actions": (*last["actions"], text)}]
    turn = {
        "number": len(moves) + 1,
        "player": position.to_act,
        "first_ply": ply,
        "actions": (text,),
    }
    return [*moves, turn]


def snapshot_text(record: GameRecord, moves: list[dict[str, Any]]) -> str:
    """What is stored beside a game's actions so that its room loads without replaying
    them (``resumed``): the number of actions it holds, the first ply of each turn
    (``moves``, the record's move list) and the position where the last turn began."""
    turns = [turn["first_ply"] for turn in moves]
    position = record.position_at(turns[-1] if turns else 0)
    return message_text(
        {"length": len(record), "turns": turns, "position": position.position_string()}
    )


def resumed(stored: StoredGame, headers: dict[str, str]) -> GameRecord | None:
    """The record of a stored game from its snapshot, only the last turn played again;
    None when it has none that fits its actions (it is replayed)."""
    if stored.snapshot is None or stored.resigned is not None or stored.ending is not None:
        return None
    try:
        kept = json.loads(stored.snapshot)
        if kept["length"] != len(stored.actions):
            return None
        game = boardlab.new_game(stored.game, **stored.options)
        start = game.initial() if stored.start is None else game.from_position_string(stored.start)
        turn = game.from_position_string(kept["position"])
        return GameRecord.resumed(game, start, stored.actions, kept["turns"], turn, headers)
    except (BoardlabError, ValueError, KeyError, TypeError):
        return None


def personal(stored: StoredGame, record: GameRecord, viewer: Viewer) -> dict[str, Any]:
    """What only ``viewer`` sees of the game: the seats it holds and what it may do. A
    page works these out itself from ``you`` (``welcome``); the API answers them."""
    held = viewer.seats(stored)
    to_act = None if record.is_over() else record.position.to_act
    return {
        "you": sorted(held),
        "you_act": to_act is not None and to_act in held and stored.open_seat is None,
        "can_chat": online(stored) and bool(held),
        "can_undo": bool(held) and undoable(stored, record),
    }


def undoable(stored: StoredGame, record: GameRecord) -> bool:
    """Whether the game has a person's turn (or a resignation) to take back."""
    if online(stored):
        return False
    return record.resigned is not None or (
        record.turn_start(lambda player: stored.seats[player] == HUMAN) is not None
    )


def abortable(stored: StoredGame, record: GameRecord) -> bool:
    """Whether a player of the game may abort it now: a game online (or one waiting for
    its opponent) that goes on, fewer than ``ABORT_TURNS`` turns complete."""
    return online(stored) and not record.is_over() and record.turns_completed() < ABORT_TURNS


def seat_label(spec: str, name: str) -> str:
    """A seat as a page shows it: the player's ``name`` for a person, else the AI and
    its level."""
    return name if spec == HUMAN else _("AI ({level})").format(level=level_name(spec))


def describe(
    stored: StoredGame, record: GameRecord, board_before: Drawing | None = None
) -> tuple[dict[str, Any], Drawing]:
    """A game page's state, the same for every page in the current language: the board
    (SVG), the legal actions with the places a person clicks for each, and what the
    last turn did (the move list and what only one page sees are added to it); and the
    board as drawn, redrawn from ``board_before`` where it changed."""
    game: Game[Any] = record.game
    position = record.position
    board = game.board_model(position.state)
    outcome = record.outcome()
    last = record.last_turn()
    first = len(record) - len(last)
    marked, notes = narration(last, first)
    over = record.is_over()
    legal = legal_actions(position) if not over else []
    to_act = None if over else position.to_act
    drawing = draw(
        game, board, marked, title=f"{game.name}: {position_title(record)}", before=board_before
    )
    state = {
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
                "spec": spec,
                "human": spec == HUMAN,
                "name": game.player_name(k),
                "label": seat_label(spec, shown_name(stored.names[k]) or game.player_name(k)),
                "player": shown_name(stored.names[k]) if spec == HUMAN else None,
            }
            for k, spec in enumerate(stored.seats)
        ],
        "tallies": [[str(t) for t in side] for side in board.tallies],
        "to_act": to_act,
        "human_to_act": to_act is not None and stored.seats[to_act] == HUMAN,
        "online": online(stored),
        "open_seat": stored.open_seat,
        "listed": stored.listed,
        "draw_offer": stored.draw_offer,
        "takeback_offer": stored.takeback_offer,
        "rematch": stored.rematch,
        "due": board.due,
        "notes": list(board.notes),
        "turn": position.turns + 1,
        "svg": "\n".join(drawing.lines),
        "legal": legal,
        "last": {"places": marked, "notes": notes, "ply": first},
        # an aborted game is over with no outcome: no winner and no draw (``result``)
        "outcome": None
        if not over
        else {
            "sentence": sentence(record, stored.names),
            "winner": None if outcome is None else outcome.winner,
            "reason": ABORTED if outcome is None else outcome.reason,
            "result": record.result(),
            "aborted_by": record.aborted,
        },
        "abortable": abortable(stored, record),
        "undoable": undoable(stored, record),
        "position": position.position_string(),
    }
    return state, drawing


def chat_json(line: ChatLine) -> dict[str, Any]:
    said = line.said if line.said.tzinfo else line.said.replace(tzinfo=UTC)  # from SQLite
    return {"n": line.n, "seat": line.seat, "text": line.text, "said": said.isoformat()}


def sentence(record: GameRecord, names: tuple[str | None, str | None] = (None, None)) -> str:
    """How the game ended, in words (``names``: the names the players gave)."""
    game = record.game
    if record.aborted is not None:
        side, name = game.player_name(record.aborted), shown_name(names[record.aborted])
        if name:
            return _("The game was aborted by {player} ({name}).").format(player=side, name=name)
        return _("The game was aborted by {player}.").format(player=side)
    outcome = record.outcome()
    assert outcome is not None
    return outcome.sentence(game.reason_words, [game.player_name(0), game.player_name(1)])


def position_title(record: GameRecord) -> str:
    if record.is_over():
        return sentence(record)
    position = record.position
    return _("turn {turn}, {player} to act").format(
        turn=position.turns + 1, player=position.game.player_name(position.to_act)
    )
