"""A puzzle as data, and the file puzzles are shipped in.

A puzzle is a position, the player to solve for, and the solution as a tree of
``Step``s: where the solver acts, every right answer (each action with the best exact
value) with what follows it; where the opponent acts, the one reply the puzzle plays
(the solver's best defence) and what follows it. Actions are written in the game's
notation, so that a file reads by eye and survives a change of action numbering.

The file: one JSON object per line, gzip'd (``puzzles.jsonl.gz``); a game ships its own
in its package (``shipped_path``). docs/puzzles.md describes the fields.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game
from boardlab.core.i18n import _
from boardlab.core.registry import game_class, new_game

#: The name of a game's shipped puzzle file, in its package.
FILE_NAME = "puzzles.jsonl.gz"


@dataclass(frozen=True)
class Step:
    """A node of a solution. Where the solver acts: ``answers``, each right action with
    the step that follows it (None: the puzzle ends there). Where the opponent acts:
    ``reply``, the one action the puzzle plays, and ``then``, what follows."""

    answers: tuple[tuple[str, Step | None], ...] = ()
    reply: str | None = None
    then: Step | None = None

    @property
    def solver_acts(self) -> bool:
        return self.reply is None

    def to_json(self) -> dict[str, Any]:
        if self.reply is not None:
            return {"reply": self.reply, "then": None if self.then is None else self.then.to_json()}
        return {"answers": {a: None if s is None else s.to_json() for a, s in self.answers}}

    @classmethod
    def from_json(cls, data: Any) -> Step:
        if not isinstance(data, dict):
            raise ValueError(f"a step is an object, not {data!r}")
        if "reply" in data:
            then = data.get("then")
            return cls(reply=str(data["reply"]), then=None if then is None else cls.from_json(then))
        answers = data.get("answers")
        if not isinstance(answers, dict) or not answers:
            raise ValueError(f"a step needs a reply or answers: {data!r}")
        return cls(
            answers=tuple(
                (str(a), None if s is None else cls.from_json(s)) for a, s in answers.items()
            )
        )

    def solver_steps(self) -> int:
        """The most solver steps on any line of this tree."""
        if self.reply is not None:
            return 0 if self.then is None else self.then.solver_steps()
        return 1 + max((0 if s is None else s.solver_steps()) for _a, s in self.answers)

    def main_line(self) -> list[str]:
        """The first right answer at each solver step, with the replies: one line."""
        if self.reply is not None:
            return [self.reply, *([] if self.then is None else self.then.main_line())]
        action, after = self.answers[0]
        return [action, *([] if after is None else after.main_line())]


@dataclass(frozen=True)
class Puzzle:
    """A position where one move (or the documented margin) is best, proven by the
    solver. ``value`` is the exact outcome for ``player`` (the solver) with best play,
    in the game's points; ``rating`` the first difficulty (docs/puzzles.md)."""

    id: str
    game: str
    options: tuple[str, ...]
    position: str
    player: int
    tree: Step
    themes: tuple[str, ...]
    value: int
    rating: int
    source: str
    failed: tuple[str, ...] = field(default=())  # the levels whose first move was wrong

    def new_game(self) -> Game[Any]:
        """The game under the puzzle's rules."""
        cls = game_class(self.game)
        return new_game(cls.id, cls.schema.parse_assignments(list(self.options), cls.id))

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "game": self.game,
            "options": list(self.options),
            "position": self.position,
            "player": self.player,
            "value": self.value,
            "rating": self.rating,
            "themes": list(self.themes),
            "failed": list(self.failed),
            "source": self.source,
            "tree": self.tree.to_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Puzzle:
        return cls(
            id=str(data["id"]),
            game=str(data["game"]),
            options=tuple(str(o) for o in data.get("options", ())),
            position=str(data["position"]),
            player=int(data["player"]),
            tree=Step.from_json(data["tree"]),
            themes=tuple(str(t) for t in data.get("themes", ())),
            value=int(data["value"]),
            rating=int(data["rating"]),
            source=str(data.get("source", "")),
            failed=tuple(str(t) for t in data.get("failed", ())),
        )

    def line(self) -> str:
        """The puzzle as one line of its file."""
        return json.dumps(self.to_json(), separators=(",", ":"), ensure_ascii=False)


def puzzle_id(game: Game[Any], position: str) -> str:
    """A puzzle's id: the game's id and a digest of its rules and position, so that the
    same position is one puzzle however often it is found."""
    key = "\n".join([game.id, *game.option_assignments(), position])
    return f"{game.id}-{hashlib.sha256(key.encode()).hexdigest()[:10]}"


def shipped_path(game: Game[Any] | type[Game[Any]]) -> Path:
    """Where a game's package keeps its puzzles (the file may not exist yet)."""
    module = sys.modules[game.__module__ if isinstance(game, type) else type(game).__module__]
    return Path(str(module.__file__)).parent / FILE_NAME


def parse_lines(lines: Iterable[str], where: str) -> Iterator[Puzzle]:
    """Puzzles from JSON lines (blank lines skipped); a BoardlabError names a bad line."""
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            yield Puzzle.from_json(json.loads(text))
        except (ValueError, KeyError, TypeError) as error:
            raise BoardlabError(
                _("{file}, line {line}: not a puzzle: {error}").format(
                    file=where, line=number, error=error
                )
            ) from None


def read_puzzles(path: Path) -> list[Puzzle]:
    """Every puzzle of a file: gzip'd JSON lines (``.gz``) or plain JSON lines."""
    if path.suffix == ".gz":
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            return list(parse_lines(handle, str(path)))
    with path.open(encoding="utf-8") as handle:
        return list(parse_lines(handle, str(path)))


def write_puzzles(path: Path, puzzles: Iterable[Puzzle]) -> int:
    """Write ``puzzles`` to ``path``, gzip'd if it ends in ``.gz`` (with no time stamp,
    so the same puzzles make the same bytes); how many."""
    text = "".join(p.line() + "\n" for p in puzzles)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".gz":
        buffer = io.BytesIO()
        with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, compresslevel=9) as handle:
            handle.write(text.encode("utf-8"))
        path.write_bytes(buffer.getvalue())
    else:
        path.write_text(text, encoding="utf-8")
    return text.count("\n")
