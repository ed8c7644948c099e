"""Openings: where the games of a match or a tournament start.

From the start, deterministic agents play the same two games over and over and the seat
can decide them all; from varied openings the games measure the agents. Each opening is
played by a pair of games with the seats swapped, so that the seat's advantage cancels:
pair ``k`` starts from opening ``k``. The openings are the start itself, ``length``
uniformly random actions drawn from a seed (the same seed, the same openings), or the
position strings of a file, in order, again from the first after the last.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game, Position
from boardlab.core.i18n import _, counted
from boardlab.core.registry import new_game

#: Random openings in a row that may end the game before one is refused as impossible.
TRIES = 1000


def cycled(openings: Sequence[str | None], pair: int) -> str | None:
    """The opening of pair ``pair``: the ``pair``-th, again from the first after the last."""
    return openings[pair % len(openings)]


@dataclass
class Openings:
    """The openings of a match's or a tournament's pairs; random ones are drawn as the
    pairs ask for them, so that a long match does not wait for openings it never plays."""

    known: list[str | None] = field(default_factory=lambda: [None])
    length: int = 0  # random actions in each (0: the start, or a file's)
    source: str | None = None  # the file they were read from
    more: Iterator[str] | None = None  # the random ones not drawn yet

    @classmethod
    def random(cls, game_id: str, options: Mapping[str, Any], length: int, seed: int) -> Openings:
        """Openings of ``length`` random actions from ``seed``; the first is drawn now, so
        that a length no game survives is refused before any game is played."""
        more = random_positions(game_id, options, length, seed)
        return cls([next(more)], length=length, more=more)

    @classmethod
    def read(cls, game_id: str, options: Mapping[str, Any], path: str) -> Openings:
        return cls(list(read_openings(game_id, options, path)), source=path)

    @property
    def from_start(self) -> bool:
        """Whether every game starts from the start (no openings asked for)."""
        return self.more is None and self.source is None

    def of_pair(self, pair: int) -> str | None:
        """The position string pair ``pair`` starts from (None: the start)."""
        if self.more is None:
            return cycled(self.known, pair)
        self.known.extend(islice(self.more, max(0, pair + 1 - len(self.known))))
        return self.known[pair]

    def first(self, pairs: int) -> tuple[str | None, ...]:
        """What ``pairs`` pairs start from, each once: as many random openings, all of a
        file's (the pairs go round them), or the start."""
        if self.more is not None:
            self.of_pair(pairs - 1)
            return tuple(self.known[:pairs])
        return tuple(self.known)

    def describe(self, pairs: int) -> str:
        """How ``pairs`` pairs of games started, in words."""
        if self.from_start:
            return _("from the start position")
        used = min(pairs, len(self.known))  # the pairs go round a file's, or a tournament's
        openings = counted(used, "{n} opening", "{n} openings")
        if self.source is None:
            said = _("from {openings} of {actions}, each played with both seats").format(
                openings=openings,
                actions=counted(self.length, "{n} random action", "{n} random actions"),
            )
        else:
            said = _("from {openings} of {path} in order, each played with both seats").format(
                openings=openings, path=self.source
            )
        if pairs > used:
            said += _(" ({pairs} pairs: the openings again from the first)").format(pairs=pairs)
        return said


def random_positions(
    game_id: str, options: Mapping[str, Any], length: int, seed: int
) -> Iterator[str]:
    """Openings of ``length`` uniformly random actions from the start (none that ends the
    game), as position strings, without end."""
    game = new_game(game_id, dict(options))
    rng = random.Random(seed)
    failed = 0
    while True:
        position = game.initial()
        for _step in range(length):
            position = position.play(rng.choice(position.legal_actions()))
            if position.is_over():
                break
        if not position.is_over():
            failed = 0
            yield position.position_string()
            continue
        failed += 1
        if failed == TRIES:
            raise BoardlabError(
                _(
                    "no opening of {length} random actions: {tries} tries in a row ended "
                    "the game first; give --openings fewer actions"
                ).format(length=length, tries=TRIES)
            )


def random_openings(
    game_id: str, options: Mapping[str, Any], count: int, length: int, seed: int
) -> list[str]:
    """The first ``count`` openings of ``length`` random actions from ``seed``."""
    return list(islice(random_positions(game_id, options, length, seed), count))


def read_openings(game_id: str, options: Mapping[str, Any], path: str) -> list[str]:
    """The position strings of a file, one a line (``#`` comments and blank lines left
    out), each checked: a position of this game under these options, not finished."""
    game = new_game(game_id, dict(options))
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        why = error.strerror if isinstance(error, OSError) else _("not UTF-8 text")
        raise BoardlabError(
            _("cannot read the openings file {path!r}: {why}").format(path=path, why=why)
        ) from None
    openings = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            position = game.from_position_string(line)
        except BoardlabError as error:
            raise BoardlabError(
                _("{path}, line {number}: {error}").format(path=path, number=number, error=error)
            ) from None
        if position.is_over():
            raise BoardlabError(
                _("{path}, line {number}: the game is over in {line!r}").format(
                    path=path, number=number, line=line
                )
            )
        if not same_board(position, game.initial()):
            raise BoardlabError(
                _(
                    "{path}, line {number}: {line!r} is a position of another board than "
                    "{game}'s: expected one like its start {start!r}, or the options it was "
                    "written for, given with -o"
                ).format(
                    path=path,
                    number=number,
                    line=line,
                    game=described(game),
                    start=game.initial().position_string(),
                )
            )
        openings.append(line)
    if not openings:
        raise BoardlabError(_("{path} holds no position string").format(path=path))
    return openings


def same_board(position: Position[Any], start: Position[Any]) -> bool:
    """Whether a position has the places of the start (labels aside): a position string
    can describe another board than the options give (more pits), which the agents, the
    records and the kernels would misread."""
    board, expected = (p.game.board_model(p.state) for p in (position, start))
    return [p.name for p in board.playing_places()] == [p.name for p in expected.playing_places()]


def described(game: Game[Any]) -> str:
    """``GAME (KEY=VALUE ...)``: the game with the options that are not its defaults."""
    options = " ".join(game.option_assignments())
    return f"{game.id} ({options})" if options else game.id
