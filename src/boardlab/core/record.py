"""Game records: the one mutable object, with history, undo, headers and two file formats.

The text format is in the spirit of PGN: tag pairs, a blank line, then the actions with
each turn numbered, ``{comments}`` anywhere, and the result as the last token::

    [Game "<game id>"]
    [Options "<key=value ...>"]
    [<First player> "<a name, human or an agent spec>"]
    [<Second player> "..."]
    [Date "2026.11.21"]
    [Result "*"]

    1. <action> <action> 2. <action> *

(docs/records.md shows records of each game). A game ended with no result, aborted
by a player before it had really begun, says so: ``[Result "aborted"]``, ``[Reason
"aborted"]`` and ``[Aborted "<the player who aborted it>"]``, its movetext ending in
``aborted`` (in JSON: ``"aborted": "<player>"`` and ``"outcome": null``); no winner, no
draw, no points.

The writer is strict (fixed tag order, canonical action strings, lines of at most 79
characters); the reader is tolerant (any tag order and case, turn numbers optional,
lenient action strings, a bare list of actions with no tags at all) and reports the line
and token of any error. Reading what was written gives back the same game.
"""

from __future__ import annotations

import itertools
import json
import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from boardlab.core.errors import BoardlabError, InvalidNotationError
from boardlab.core.files import write_atomic
from boardlab.core.game import Game, Outcome, Position
from boardlab.core.i18n import N_, SOURCE, _, language, ngettext
from boardlab.core.registry import new_game

JSON_FORMAT = "boardlab-record"
JSON_VERSION = 1
UNFINISHED = "*"
#: The largest record file read: far more than any game (a game of 1000 turns is about
#: 20 KB), small enough that a wrong file is refused at once.
MAX_RECORD_BYTES = 16 * 1024 * 1024
#: The byte-order mark as text reads it (U+FEFF): some editors start UTF-8 files with one.
BOM = "\ufeff"

_TAG = re.compile(r'\[\s*([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"\s*\]')
#: How a player loses an unfinished game other than by its rules: by resigning, by a
#: forfeit (the player's program failed), on time (the clock ran out) or by abandoning
#: it (the player left a game online and the other claimed the win).
RESIGN_REASONS = ("resign", "forfeit", "time", "abandoned")
#: The reason word of a draw both players agreed to.
AGREEMENT = "agreement"
#: The result and reason word of a game a player aborted before it had really begun:
#: it ends with no result (no winner, not a draw: ``outcome`` is None).
ABORTED = "aborted"
#: A tag (its quoted value may hold ``]``), a comment (``\}`` inside it), a line comment,
#: a malformed tag, or a word.
_TOKEN = re.compile(
    r'\[\s*[A-Za-z][A-Za-z0-9_]*\s+"(?:[^"\\\n]|\\.)*"\s*\]'
    r"|\{(?:[^}\\\n]|\\.)*\}?|;[^\n]*|\[[^\]\n]*\]?|[^\s{};\[]+"
)
_TAG_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_ESCAPED = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)")
_SHORT = {"n": "\n", "t": "\t", "r": "\r"}
_TURN_NUMBER = re.compile(r"\d+\.+")


class RecordError(InvalidNotationError):
    """A record that cannot be read, with where: ``line`` and ``token`` (1-based), and
    for an action, its ``index`` among the record's actions (1-based)."""

    def __init__(
        self, message: str, line: int = 0, token: str = "", index: int | None = None
    ) -> None:
        shown = token if len(token) <= 60 else token[:57] + "..."  # a line, not a screenful
        if not token:
            text = _("line {line}, {message}") if line else "{message}"
        elif line and index is not None:
            text = _("line {line}, action {index} {token!r}: {message}")
        elif line:
            text = _("line {line}, {token!r}: {message}")
        elif index is not None:
            text = _("action {index} {token!r}: {message}")
        else:
            text = "{token!r}: {message}"
        super().__init__(text.format(line=line, index=index, token=shown, message=message))
        self.line, self.token, self.index = line, token, index


@dataclass(frozen=True)
class Turn:
    """Consecutive actions of one player, numbered from 1 in the record."""

    number: int
    player: int
    first_ply: int
    actions: tuple[str, ...]


class GameRecord:
    """A game as played: the start position, every action and position since, headers and
    comments. ``play`` checks legality; ``undo`` goes back to any earlier point."""

    def __init__(
        self,
        game: Game[Any],
        start: Position[Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.game = game
        self.start = start if start is not None else game.initial()
        if self.start.game != game:
            raise BoardlabError(_("the start position belongs to another game or options"))
        #: the actions and positions from ply ``_base`` on (all of them, ``_base`` 0,
        #: unless the record was ``resumed``)
        self._actions: list[int] = []
        self._positions: list[Position[Any]] = [self.start]
        self._base = 0
        #: the actions before ``_base`` as their strings, each with its player, until
        #: something asks for their positions (then they are played again)
        self._before: tuple[tuple[str, int], ...] = ()
        self.headers: dict[str, str] = dict(headers or {})
        #: comments[k]: the comment after the first k actions (0: before any action).
        self.comments: dict[int, str] = {}
        #: the player (index) who resigned or forfeited, ending an unfinished game
        self.resigned: int | None = None
        #: ``resign``, ``forfeit`` (the player's program failed: a crash, a timeout),
        #: ``time`` (the player's clock ran out) or ``abandoned`` (the player left); or
        #: ``aborted``: ``resigned`` aborted the game, which has no result (``abort``)
        self.resign_reason = "resign"
        #: whether the players agreed to a draw, ending the unfinished game
        self.agreed = False

    def copy(self) -> GameRecord:
        """A record of its own with the same game so far: its positions are shared
        (they are immutable values), its lists and headers are not."""
        twin = GameRecord(self.game, self.start, self.headers)
        twin._actions = list(self._actions)
        twin._positions = list(self._positions)
        twin._base, twin._before = self._base, self._before
        twin.comments = dict(self.comments)
        twin.resigned, twin.resign_reason, twin.agreed = (
            self.resigned,
            self.resign_reason,
            self.agreed,
        )
        return twin

    @classmethod
    def resumed(
        cls,
        game: Game[Any],
        start: Position[Any],
        actions: Sequence[str],
        turns: Sequence[int],
        turn_position: Position[Any],
        headers: Mapping[str, str] | None = None,
    ) -> GameRecord:
        """The record of a game stored with a snapshot: its ``actions`` as strings, the
        first ply of each of its ``turns``, and the position where the last turn began.
        Only the last turn is played again; the actions before it become positions only
        if something asks for them (a review, an undo that far back), so a long game
        loads in the time of a short one. A snapshot that does not fit the actions is
        refused (``BoardlabError``): the caller replays them all."""
        base = turns[-1] if turns else 0
        order = [*turns, len(actions)]
        if (
            turn_position.game != game
            or (turns and turns[0] != 0)
            or any(a >= b for a, b in itertools.pairwise(order))
            or len(actions) < base
        ):
            raise BoardlabError(_("the snapshot does not fit the game's actions"))
        players = [start.to_act if k % 2 == 0 else 1 - start.to_act for k in range(len(turns))]
        if players and turn_position.to_act != players[-1]:
            raise BoardlabError(_("the snapshot does not fit the game's actions"))
        record = cls(game, start, headers)
        if base:
            record._base, record._positions = base, [turn_position]
            record._before = tuple(
                (actions[ply], players[k])
                for k in range(len(turns) - 1)
                for ply in range(order[k], order[k + 1])
            )
        for action in actions[base:]:
            record.play(action)
        if players and any(p.to_act != players[-1] for p in record._positions[:-1]):
            raise BoardlabError(_("the snapshot does not fit the game's actions"))
        return record

    def _whole(self) -> None:
        """Play the actions before the last turn of a resumed record again, once, for
        what asks for their positions."""
        if not self._base:
            return
        replayed = GameRecord(self.game, self.start)
        for text, _player in self._before:
            replayed.play(text)
        if replayed.position != self._positions[0]:
            raise BoardlabError(_("the snapshot does not fit the game's actions"))
        self._actions = replayed._actions + self._actions
        self._positions = replayed._positions[:-1] + self._positions
        self._base, self._before = 0, ()

    @property
    def actions(self) -> list[int]:
        """Every action played, as numbers."""
        self._whole()
        return self._actions

    @property
    def positions(self) -> list[Position[Any]]:
        """The start and the position after each action."""
        self._whole()
        return self._positions

    def position_at(self, ply: int) -> Position[Any]:
        """The position after the first ``ply`` actions."""
        if ply < self._base:
            self._whole()
        return self._positions[ply - self._base]

    def _players(self) -> list[int]:
        """Who played each action."""
        return [p for _text, p in self._before] + [p.to_act for p in self._positions[:-1]]

    # ------------------------------------------------------------------ play and undo
    @property
    def position(self) -> Position[Any]:
        """The current (last) position."""
        return self._positions[-1]

    def __len__(self) -> int:
        """The number of actions played."""
        return self._base + len(self._actions)

    def play(self, action: int | str, comment: str = "") -> Position[Any]:
        """Play a legal action (int or action string) and return the new position; a
        ``comment`` is written after it."""
        if self.agreed:
            raise BoardlabError(_("the game is over: the players agreed to a draw"))
        if self.aborted is not None:
            raise BoardlabError(
                _("the game is over: {player} aborted it").format(
                    player=_player_shown(self.game, self.aborted)
                )
            )
        if self.resigned is not None:
            raise BoardlabError(
                _("the game is over: {player} resigned").format(
                    player=_player_shown(self.game, self.resigned)
                )
            )
        current = self.position
        code = current.parse_action(action) if isinstance(action, str) else action
        after = current.play(code)
        self._actions.append(code)
        self._positions.append(after)
        if comment:
            self.comments[len(self)] = comment
        return after

    def play_all(self, actions: Sequence[int | str]) -> Position[Any]:
        for action in actions:
            self.play(action)
        return self.position

    def undo(self, count: int = 1) -> None:
        """Take back the last ``count`` actions."""
        if not 0 <= count <= len(self):
            # English says "actions" for any count (as it always has); German needs both.
            raise BoardlabError(
                ngettext(
                    "cannot undo {n} actions: the record holds {held}",
                    "cannot undo {n} actions: the record holds {held}",
                    count,
                ).format(n=count, held=len(self))
            )
        self.undo_to(len(self) - count)

    def undo_to(self, ply: int) -> None:
        """Go back to the position after the first ``ply`` actions (0: the start)."""
        if not 0 <= ply <= len(self):
            raise BoardlabError(
                _("cannot go back to action {ply}: the record holds {held}").format(
                    ply=ply, held=len(self)
                )
            )
        if ply < self._base:
            self._whole()
        del self._actions[ply - self._base :]
        del self._positions[ply - self._base + 1 :]
        self.resigned = None
        self.agreed = False
        for key in [k for k in self.comments if k > ply]:
            del self.comments[key]

    def action_strings(self) -> list[str]:
        tail = zip(self._positions, self._actions, strict=False)
        return [text for text, _player in self._before] + [p.action_string(a) for p, a in tail]

    def last_turn(self) -> list[tuple[Position[Any], int]]:
        """The actions of the latest turn (the last run of actions by one player), each
        with the position it was played in."""
        if not self._actions:
            if not self._base:
                return []
            self._whole()
        positions, actions = self._positions, self._actions
        mover = positions[-2].to_act
        k = len(actions)
        while k > 0 and positions[k - 1].to_act == mover:
            k -= 1
        if k == 0 and self._base and self._before[-1][1] == mover:
            self._whole()  # (a resumed record's tail begins at a turn: not reached)
            return self.last_turn()
        return list(zip(positions[k:-1], actions[k:], strict=True))

    def turn_start(self, person: Callable[[int], bool]) -> int | None:
        """Where the latest turn played by a person (``person(player)`` is true) began:
        what an undo goes back to, taking any agent's replies after it too. None when
        no person has played."""
        players = self._players()
        starts = [
            k
            for k, player in enumerate(players)
            if person(player) and (k == 0 or players[k - 1] != player)
        ]
        return starts[-1] if starts else None

    def turns(self) -> Iterator[Turn]:
        """The actions grouped into turns: runs of consecutive actions by one player."""
        group: list[str] = []
        player, first = -1, 0
        number = 0
        tail = zip(self._positions, self._actions, strict=False)
        played = [*self._before, *((p.action_string(a), p.to_act) for p, a in tail)]
        for ply, (text, mover) in enumerate(played):
            if mover != player and group:
                number += 1
                yield Turn(number, player, first, tuple(group))
                group = []
            if not group:
                player, first = mover, ply
            group.append(text)
        if group:
            yield Turn(number + 1, player, first, tuple(group))

    # ------------------------------------------------------------------ results
    def resign(self, player: int | None = None, reason: str = "resign", why: str = "") -> None:
        """``player`` (by default the one to act) gives up the unfinished game, or loses
        it by ``forfeit``; ``why`` is written as a comment at that point."""
        if self.position.is_over():
            raise BoardlabError(_("the game is already over"))
        if reason not in RESIGN_REASONS:
            raise BoardlabError(
                _("unknown reason {reason!r}: expected one of {reasons}").format(
                    reason=reason, reasons=", ".join(RESIGN_REASONS)
                )
            )
        self.resigned = self.position.to_act if player is None else player
        self.resign_reason = reason
        if why:
            self.comments[len(self)] = why

    def abort(self, player: int) -> None:
        """``player`` aborts the unfinished game: it ends with no result (no winner, not
        a draw; ``outcome`` is None and ``result`` is ``aborted``)."""
        if self.is_over():
            raise BoardlabError(_("the game is already over"))
        self.resigned, self.resign_reason = player, ABORTED

    @property
    def aborted(self) -> int | None:
        """The player who aborted the game, or None."""
        return self.resigned if self.resign_reason == ABORTED else None

    def turns_completed(self) -> int:
        """How many turns are complete: runs of one player's actions that the other
        player's turn (or the end of the game by its rules) followed."""
        players = self._players()
        if not players:
            return 0
        ends = sum(1 for a, b in itertools.pairwise(players) if a != b)
        last_done = self.position.is_over() or self.position.to_act != players[-1]
        return ends + (1 if last_done else 0)

    def agree_draw(self) -> None:
        """End the unfinished game in a draw both players agreed to (reason
        ``agreement``)."""
        if self.is_over():
            raise BoardlabError(_("the game is already over"))
        self.agreed = True

    def is_over(self) -> bool:
        return self.resigned is not None or self.agreed or self.position.is_over()

    def outcome(self) -> Outcome | None:
        """How the game ended: by the rules, by a resignation (reason ``resign``, or
        ``forfeit``, ``time`` or ``abandoned``) or by a draw agreed (``agreement``). None
        while it goes on, and for an aborted game, which has no result."""
        if self.aborted is not None:
            return None
        if self.agreed:
            return Outcome(None, self.position.points, AGREEMENT, self.game.players)
        if self.resigned is not None:
            reason = self.resign_reason
            return Outcome(1 - self.resigned, self.position.points, reason, self.game.players)
        return self.position.outcome()

    def result(self) -> str:
        """The winner's name, ``draw``, ``aborted`` (no result), or ``*`` while the game
        goes on."""
        if self.aborted is not None:
            return ABORTED
        outcome = self.outcome()
        return UNFINISHED if outcome is None else outcome.winner_name

    def full_headers(self) -> dict[str, str]:
        """The headers as the writer puts them: fixed tags first, then the others."""
        outcome = self.outcome()
        fixed: dict[str, str] = {"Game": self.game.id}
        options = " ".join(self.game.option_assignments())
        if options:
            fixed["Options"] = options
        for name in self.game.players:
            fixed[name.capitalize()] = self.headers.get(name.capitalize(), "?")
        fixed["Date"] = self.headers.get("Date", date.today().strftime("%Y.%m.%d"))
        if self.start != self.game.initial():
            fixed["Position"] = self.start.position_string()
        fixed["Result"] = self.result()
        if outcome is not None:
            fixed["Points"] = f"{outcome.points[0]}/{outcome.points[1]}"
            fixed["Reason"] = outcome.reason
        if self.aborted is not None:
            fixed["Reason"] = ABORTED
            fixed["Aborted"] = self.game.players[self.aborted]
        derived = {"Game", "Options", "Position", "Result", "Points", "Reason", "Aborted"}
        rest = {k: v for k, v in self.headers.items() if k not in fixed and k not in derived}
        return {**fixed, **rest}

    # ------------------------------------------------------------------ text format
    def to_text(self) -> str:
        """The record in the text format (strict writer)."""
        headers = self.full_headers()
        for name in headers:
            if not _TAG_NAME.fullmatch(name):
                raise RecordError(
                    _(
                        "header name {name!r} cannot be written: expected a letter, then "
                        "letters, digits or _"
                    ).format(name=name)
                )
        lines = [f'[{k} "{_escape(v)}"]' for k, v in headers.items()]
        words: list[str] = []
        if 0 in self.comments:
            words.append(_comment(self.comments[0]))
        for turn in self.turns():
            for offset, action in enumerate(turn.actions):
                # The turn number stays on the line of the turn's first action.
                words.append(f"{turn.number}. {action}" if offset == 0 else action)
                ply = turn.first_ply + offset + 1
                if ply in self.comments:
                    words.append(_comment(self.comments[ply]))
        words.append(self.result())
        return "\n".join([*lines, "", *_wrap(words, 79)]) + "\n"

    @classmethod
    def from_text(
        cls,
        text: str,
        game: str | Game[Any] | None = None,
        options: Mapping[str, Any] | None = None,
        start: str | None = None,
        most: int | None = None,
    ) -> GameRecord:
        """Read a record, or a bare list of actions. ``game`` names the game when the text
        has no Game tag (and must agree when it has one); ``options`` and ``start`` (a
        position string) add to or override the text's Options and Position tags. A
        record of more than ``most`` actions is refused before any is played (a server's
        bound on the games it keeps)."""
        headers: dict[str, str] = {}
        moves: list[tuple[int, str]] = []
        comments: list[tuple[int, str]] = []
        results: list[tuple[int, str]] = []
        for line_number, line in enumerate(text.splitlines(), 1):
            for match in _TOKEN.finditer(line):
                token = match.group()
                if token.startswith("["):
                    tag = _TAG.fullmatch(token)
                    if not tag:
                        raise RecordError(
                            _('malformed tag: expected [Name "value"]'), line_number, token
                        )
                    headers[_tag_name(tag.group(1))] = _unescape(tag.group(2))
                elif token.startswith("{"):
                    if not token.endswith("}"):
                        raise RecordError(
                            _("comment not closed with } on the same line"), line_number, token
                        )
                    comments.append((len(moves), _unescape(token[1:-1].strip())))
                elif token.startswith(";"):
                    comments.append((len(moves), token[1:].strip()))
                elif _TURN_NUMBER.fullmatch(token):
                    continue
                else:
                    add_action_token(moves, line_number, _TURN_NUMBER.sub("", token, count=1))
        try:
            record = cls._start(headers, game, options, start)
        except RecordError:
            raise
        except BoardlabError as error:  # the Game, Options or Position tag
            raise RecordError(_("in the tags: {error}").format(error=error)) from None
        if len(moves) > min(record.game.max_actions, most or record.game.max_actions) + 1:
            raise RecordError(_too_long(len(moves), record.game, most))  # a result, maybe
        results_words = {*record.game.players, "draw", UNFINISHED, ABORTED}
        while moves and moves[-1][1].lower() in results_words:
            results.append(moves.pop())
        for index, (line_number, word) in enumerate(moves, 1):
            if word.lower() in results_words:
                raise RecordError(_("a result may only end the record"), line_number, word, index)
            try:
                record.play(word)
            except BoardlabError as error:
                raise RecordError(str(error), line_number, word, index) from None
        for ply, note in comments:
            if note:
                record.comments[ply] = (
                    f"{record.comments[ply]} {note}" if ply in record.comments else note
                )
        claimed = results[0][1].lower() if results else headers.get("Result", UNFINISHED).lower()
        reason = headers.get("Reason", "").lower()
        ended = reason in RESIGN_REASONS and claimed in record.game.players
        if ended and not record.position.is_over():
            record.resign(1 - record.game.players.index(claimed), reason)
        if reason == AGREEMENT and claimed == "draw" and not record.position.is_over():
            record.agree_draw()
        if claimed == ABORTED:
            line_number = results[0][0] if results else 0
            who = headers.get("Aborted", "").strip().lower()
            if who not in record.game.players or record.position.is_over():
                raise RecordError(
                    _(
                        'an aborted game names the player who aborted it, [Aborted "{player}"], '
                        "and is not over by its rules"
                    ).format(player=record.game.players[0]),
                    line_number,
                )
            record.abort(record.game.players.index(who))
        if claimed != UNFINISHED and claimed != record.result():
            line_number = results[0][0] if results else 0
            raise RecordError(
                _(
                    "the record claims the result {claimed!r} but its actions give {result!r}"
                ).format(claimed=claimed, result=record.result()),
                line_number,
            )
        return record

    @classmethod
    def _start(
        cls,
        headers: dict[str, str],
        game: str | Game[Any] | None,
        options: Mapping[str, Any] | None,
        start: str | None,
    ) -> GameRecord:
        named = headers.get("Game")
        if game is None and named is None:
            raise RecordError(_("the record has no Game tag: name the game"))
        game_id = game.id if isinstance(game, Game) else game
        if named is not None and game_id is not None and named.strip().lower() != game_id:
            raise RecordError(
                _("the record is a game of {named!r}, not {wanted!r}").format(
                    named=named, wanted=game_id
                )
            )
        if isinstance(game, Game) and options is None and "Options" not in headers:
            chosen: Game[Any] = game
        else:
            base = new_game(named or str(game_id))
            values: dict[str, Any] = dict(game.options) if isinstance(game, Game) else {}
            values.update(
                base.schema.parse_assignments(headers.get("Options", "").split(), base.id)
            )
            values.update(options or {})
            chosen = new_game(base.id, values)
        position_text = start or headers.get("Position") or headers.get("Fen")
        begin = chosen.from_position_string(position_text) if position_text else None
        kept = {k: v for k, v in headers.items() if k not in ("Game", "Options", "Position")}
        return cls(chosen, begin, kept)

    # ------------------------------------------------------------------ JSON
    def to_dict(self) -> dict[str, Any]:
        outcome = self.outcome()
        return {
            "format": JSON_FORMAT,
            "version": JSON_VERSION,
            "game": self.game.id,
            "options": dict(self.game.options),
            "headers": self.full_headers(),
            "start": self.start.position_string(),
            "actions": self.action_strings(),
            "comments": {str(k): v for k, v in sorted(self.comments.items())},
            "final": self.position.position_string(),
            "resigned": None
            if self.resigned is None or self.aborted is not None
            else self.game.players[self.resigned],
            "agreed": self.agreed,
            "aborted": None if self.aborted is None else self.game.players[self.aborted],
            "outcome": None
            if outcome is None
            else {
                "winner": outcome.winner_name,
                "points": list(outcome.points),
                "reason": outcome.reason,
            },
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"

    @classmethod
    def from_dict(
        cls,
        data: Mapping[str, Any],
        game: str | Game[Any] | None = None,
        options: Mapping[str, Any] | None = None,
        start: str | None = None,
        most: int | None = None,
    ) -> GameRecord:
        """A record from its JSON data, every field checked for its type. ``game`` must
        agree with the record's game when given; ``options``, ``start`` and ``most``
        as for the text format."""
        if not isinstance(data, Mapping) or data.get("format") != JSON_FORMAT:
            raise RecordError(
                _('not a boardlab JSON record: expected "format": {format!r}').format(
                    format=JSON_FORMAT
                )
            )
        if data.get("version") != JSON_VERSION:
            raise RecordError(
                _("unsupported record version {version!r}: expected {expected}").format(
                    version=data.get("version"), expected=JSON_VERSION
                )
            )
        named = _field(data, "game", str, N_("a game id"))
        wanted = game.id if isinstance(game, Game) else game
        if wanted is not None and named.strip().lower() != wanted.strip().lower():
            raise RecordError(
                _("the record is a game of {named!r}, not {wanted!r}").format(
                    named=named, wanted=wanted
                )
            )
        values = dict(_field(data, "options", dict, N_("an object of option values"), {}))
        if not all(isinstance(v, str | int | bool) for v in values.values()):
            raise RecordError(_('"options" must map option names to strings, numbers or booleans'))
        values.update(options or {})
        try:
            game = new_game(named, values)
        except BoardlabError as error:
            raise RecordError(_('"game" and "options": {error}').format(error=error)) from None
        start = start or _field(data, "start", str, N_("a position string"), None)
        raw_headers = _field(data, "headers", dict, N_("an object of strings"), {})
        if not all(isinstance(v, str | int | float) for v in raw_headers.values()):
            raise RecordError(_('"headers" must map names to strings'))
        headers = {str(k): str(v) for k, v in raw_headers.items()}
        for name in headers:
            if not _TAG_NAME.fullmatch(name):
                raise RecordError(
                    _(
                        '"headers": the name {name!r} is not a tag name (a letter, then '
                        "letters, digits or _)"
                    ).format(name=name)
                )
        for derived in ("Game", "Options", "Position", "Result", "Points", "Reason", "Aborted"):
            headers.pop(derived, None)
        try:
            begin = game.from_position_string(start) if start else None
        except BoardlabError as error:
            raise RecordError(f'"start": {error}') from None
        record = cls(game, begin, headers)
        actions = _field(data, "actions", list, N_("a list of action strings"), [])
        if not all(isinstance(action, str) for action in actions):
            raise RecordError(_('"actions" must be a list of action strings'))
        if len(actions) > min(game.max_actions, most or game.max_actions):
            raise RecordError(_too_long(len(actions), game, most))
        for index, action in enumerate(actions, 1):
            try:
                record.play(str(action))
            except BoardlabError as error:
                raise RecordError(str(error), token=str(action), index=index) from None
        for key, note in _field(data, "comments", dict, N_("an object of strings"), {}).items():
            if not isinstance(note, str):
                raise RecordError(_("comment {key!r} is not a string").format(key=key))
            if not (str(key).isascii() and str(key).isdigit() and len(str(key)) <= 9) or int(
                key
            ) > len(record):
                raise RecordError(
                    _("comment key {key!r} is not an action count 0-{most}").format(
                        key=key, most=len(record)
                    )
                )
            record.comments[int(key)] = str(note)
        resigned = _field(data, "resigned", str, N_("a player's name or null"), None)
        if resigned is not None:
            if resigned not in game.players or record.position.is_over():
                raise RecordError(
                    _("bad resignation {resigned!r}: not a player of an open game").format(
                        resigned=resigned
                    )
                )
            outcome = data.get("outcome")
            reason = outcome.get("reason") if isinstance(outcome, dict) else None
            record.resign(
                game.players.index(resigned), reason if reason in RESIGN_REASONS else "resign"
            )
        if _field(data, "agreed", bool, N_("true or false"), False):
            if record.is_over():
                raise RecordError(_("a draw agreed in a game that is already over"))
            record.agree_draw()
        aborted = _field(data, "aborted", str, N_("a player's name or null"), None)
        if aborted is not None:
            if aborted not in game.players or record.is_over():
                raise RecordError(
                    _("bad abort {aborted!r}: not a player of an open game").format(aborted=aborted)
                )
            record.abort(game.players.index(aborted))
        final = _field(data, "final", str, N_("a position string or null"), None)
        if final is not None and final != record.position.position_string():
            raise RecordError(
                _(
                    "the record's final position {final!r} is not where its actions lead: "
                    "{reached!r}"
                ).format(final=final, reached=record.position.position_string())
            )
        return record

    @classmethod
    def from_json(cls, text: str, **kwargs: Any) -> GameRecord:
        """A record from JSON text; ``game``, ``options`` and ``start`` as for
        ``from_dict``."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            raise RecordError(
                _("malformed JSON: {error}").format(error=error.msg), error.lineno
            ) from None
        except RecursionError:
            raise RecordError(_("malformed JSON: nested too deeply for a record")) from None
        except ValueError as error:  # a number too long to convert
            raise RecordError(_("malformed JSON: {error}").format(error=error)) from None
        return cls.from_dict(data, **kwargs)

    # ------------------------------------------------------------------ files
    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the record (JSON if the name ends in .json, else text) atomically: the
        file is either the old one or the complete new one, never half written."""
        json_format = Path(path).suffix.lower() == ".json"
        return write_atomic(path, self.to_json() if json_format else self.to_text())

    @classmethod
    def load(cls, path: str | os.PathLike[str], **kwargs: Any) -> GameRecord:
        """Read a record file in either format (JSON is recognised by its first character)."""
        with open(path, "rb") as stream:
            text = read_record_text(stream, str(path))
        return cls.read(text, **kwargs)

    @classmethod
    def read(cls, text: str, **kwargs: Any) -> GameRecord:
        """A record from text in either format, or a bare list of actions."""
        if text.lstrip().startswith("{") and text.rstrip().endswith("}"):
            return cls.from_json(text, **kwargs)
        return cls.from_text(text, **kwargs)

    def __repr__(self) -> str:
        return f"<GameRecord {self.game.id} {len(self)} actions {self.result()}>"


def _field(data: Mapping[str, Any], name: str, kind: type, shown: str, default: Any = ...) -> Any:
    """``data[name]`` if it is a ``kind`` (None for a missing or null field with a
    default), else a RecordError that names the field and what it should be (``shown``,
    marked with ``N_``)."""
    value = data.get(name)
    if value is None and default is not ...:
        return default
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise RecordError(
            _('"{name}" must be {shown}, not {kind} {value!r:.60}').format(
                name=name, shown=_(shown), kind=type(value).__name__, value=value
            )
        )
    return value


def _too_long(count: int, game: Game[Any], most: int | None = None) -> str:
    """The error for a record of more actions than ``game`` allows, or than ``most``."""
    if most is not None and most < game.max_actions:
        return _("more than {most} actions: the longest record taken here has {most}").format(
            most=most
        )
    return _(
        "{count} actions: more than a game of {game} under these options can have ({most})"
    ).format(count=count, game=game.id, most=game.max_actions)


def _player_shown(game: Game[Any], player: int) -> str:
    """A player in an error message: the record's name (``red``) in English, as these
    messages have always said it, the translated name (``Rot``) in another language."""
    return game.players[player] if language() == SOURCE else game.player_name(player)


def read_record_text(stream: Any, name: str) -> str:
    """The text of a record file or stream (binary, or text), read as
    ``decode_record_text`` reads it."""
    return decode_record_text(stream.read(MAX_RECORD_BYTES + 1), name)


def decode_record_text(data: bytes | str, name: str) -> str:
    """The text of a record's bytes (or text): at most ``MAX_RECORD_BYTES``, strict UTF-8,
    a leading byte-order mark left out (editors on Windows write one); a RecordError
    naming ``name`` otherwise. Every reader of records (files, standard input, uploads)
    goes through here, so a record reads the same wherever it comes from."""
    if len(data) > MAX_RECORD_BYTES:
        raise RecordError(
            _("{name} is larger than {size} MB: not a game record").format(
                name=name, size=MAX_RECORD_BYTES // (1024 * 1024)
            )
        )
    try:
        text = data if isinstance(data, str) else data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise RecordError(
            _(
                "{name} is not UTF-8 text (byte {byte:#04x} at offset {offset}): not a game record"
            ).format(name=name, byte=data[error.start], offset=error.start)
        ) from None
    return text.removeprefix(BOM)


def split_records(text: str) -> list[str]:
    """The records of a text holding several (as a match writes them): a record starts at
    a Game tag that follows movetext or another record's tags."""
    records: list[list[str]] = [[]]
    seen_moves = False
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if stripped.lower().startswith("[game ") and seen_moves:
            records.append([])
            seen_moves = False
        elif stripped and not stripped.startswith(("[", ";", "{")):
            seen_moves = True
        records[-1].append(line)
    return ["".join(lines) for lines in records if "".join(lines).strip()]


def add_action_token(moves: list[tuple[int, str]], line: int, word: str) -> None:
    """Append an action token, joining the parts of one typed with spaces inside
    (``a1 - b2``, ``@ d4``, ``o 4-5``)."""
    if (
        moves
        and moves[-1][0] == line
        and (word.startswith("-") or moves[-1][1].endswith("-") or moves[-1][1] in "@xXoO")
    ):
        moves[-1] = (line, moves[-1][1] + word)
    elif word:
        moves.append((line, word))


def _tag_name(name: str) -> str:
    return name[:1].upper() + name[1:].lower()


def _escape(value: str, special: str = '"') -> str:
    """``value`` for a tag or a comment: a backslash before ``\\`` and ``special``,
    characters a line cannot show (line breaks, controls) as ``\\n``, ``\\xNN`` or
    ``\\uNNNN``, and spaces at either end as ``\\x20`` (readers strip them), so that
    reading gives back exactly ``value``."""
    out = []
    for k, char in enumerate(value):
        if char in ("\\", special):
            out.append("\\" + char)
        elif char == " " and (k == 0 or k == len(value) - 1):
            out.append("\\x20")
        elif char.isprintable():
            out.append(char)
        elif char in "\n\t\r":
            out.append("\\" + {"\n": "n", "\t": "t", "\r": "r"}[char])
        else:
            code = ord(char)
            out.append(
                f"\\x{code:02x}"
                if code < 0x100
                else f"\\u{code:04x}"
                if code < 0x10000
                else f"\\U{code:08x}"
            )
    return "".join(out)


def _unescape(value: str) -> str:
    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if len(code) > 1:
            return chr(int(code[1:], 16))
        return _SHORT.get(code, code)

    return _ESCAPED.sub(one, value)


def _comment(text: str) -> str:
    return "{" + _escape(text, "}") + "}"


def _wrap(words: list[str], width: int) -> list[str]:
    lines: list[str] = []
    current = ""
    for word in words:
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    if current:
        lines.append(current)
    return lines
