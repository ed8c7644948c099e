"""Results files: a line of JSON per finished game, appended and on disk as the game ends,
so that a long run (a tournament, a match) stopped anywhere resumes where it stopped.

Every line carries the key of the run that played it (a hash of the settings, which fix
every game and its seeds), so that another run's file is refused rather than mixed in.
Every line is checked on reading: a file edited by hand would give wrong results, so it
is refused at its first wrong line, by number. A last line left without its newline and
unreadable is a game a stop cut short while writing: it is left out and played again.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from boardlab.core.errors import BoardlabError
from boardlab.core.files import append_line, cut_short, locked
from boardlab.core.i18n import N_, _

#: What one game can score for a side: a loss, a draw, a win.
GAME_SCORES = (0.0, 0.5, 1.0)

Entry = TypeVar("Entry")


def settings_key(*settings: object) -> str:
    """What identifies a run in its results file: a short hash of its settings."""
    text = json.dumps(list(settings), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def shown(value: object, most: int = 40) -> str:
    """A value of a results line as an error quotes it: as written, cut short."""
    text = json.dumps(value)
    return text if len(text) <= most else text[:most] + "…"


def check_text(data: Mapping[str, Any], fields: Iterable[str], path: Path, line: int) -> None:
    """Refuse a line whose ``fields`` are not text."""
    for field in fields:
        if not isinstance(data[field], str):
            raise BoardlabError(
                _("{path}, line {line}: {field} {value} is not text").format(
                    path=path, line=line, field=field, value=shown(data[field])
                )
            )


#: What the errors call a file of each kind, by kind and fault: not UTF-8 text, a line
#: not JSON or short of a field, a line of another run.
_SAID = {
    ("tournament", "text"): N_("{path} is not a tournament results file (not UTF-8 text)"),
    ("match", "text"): N_("{path} is not a match results file (not UTF-8 text)"),
    ("tournament", "line"): N_("{path}, line {number}: not a tournament result"),
    ("match", "line"): N_("{path}, line {number}: not a match result"),
    ("tournament", "another"): N_(
        "{path} holds another tournament's games (other agents or settings): "
        "name another --results file"
    ),
    ("match", "another"): N_(
        "{path} holds another match's games (other agents or settings): name another --results file"
    ),
}


@dataclass(frozen=True)
class ResultsFile(Generic[Entry]):
    """The results file of one run: ``kind`` (``tournament``, ``match``) is the field of
    every line that holds the run's ``key``; ``fields`` those every line must have
    besides; ``check`` turns a line's data (and its number, for errors) into the game's
    number and entry, or refuses it."""

    path: Path
    kind: str
    key: str
    fields: frozenset[str]
    check: Callable[[Mapping[str, Any], int], tuple[int, Entry]]

    def load(self) -> dict[int, Entry]:
        """The games already in the file, by number, in the order they were written."""
        if not self.path.exists():
            return {}
        try:
            text = self.path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise BoardlabError(self._said("text").format(path=self.path)) from None
        done: dict[int, Entry] = {}
        lines_of: dict[int, int] = {}  # game number: the line it is on
        lines = text.splitlines()
        if lines and not text.endswith("\n"):
            lines.pop()  # a last line a stop left unfinished: its game is played again
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except ValueError:
                data = None
            if not isinstance(data, dict) or self.fields - data.keys() or self.kind not in data:
                raise BoardlabError(self._said("line").format(path=self.path, number=number))
            if data[self.kind] != self.key:
                raise BoardlabError(self._said("another").format(path=self.path))
            game, entry = self.check(data, number)
            if game in done:
                raise BoardlabError(
                    _(
                        "{path}, line {line}: game {game} again (it is on line {earlier} too): "
                        "a game has one result"
                    ).format(path=self.path, line=number, game=game, earlier=lines_of[game])
                )
            done[game], lines_of[game] = entry, number
        return done

    def _said(self, fault: str) -> str:
        return _(_SAID[self.kind, fault])

    @contextmanager
    def resumed(self) -> Iterator[dict[int, Entry]]:
        """The games already in the file, which is then ready for more while the block
        runs: a last line a stop cut short is dropped (its game is played again). One run
        at a time writes a file: another that names it meanwhile is refused, as it would
        play the same games again."""
        with locked(self.path, wait=False) as had:
            if not had:
                raise BoardlabError(
                    _(
                        "{path} is being written by another run: wait until it ends, "
                        "or name another --results file"
                    ).format(path=self.path)
                )
            done = self.load()
            cut_short(self.path)
            yield done

    def append(self, fields: Mapping[str, Any]) -> None:
        """Add one game, on disk before the next one counts."""
        append_line(self.path, json.dumps({self.kind: self.key, **fields}))
