"""Lessons that teach a game's rules one at a time, in the spirit of lichess's Learn: each
sets up a position and asks for an action, then says what it did.

A game's lessons are data in its package, ``lessons.toml``: the ``rules`` they teach,
then one ``[[lesson]]`` table each, in the order a newcomer learns, with its words in
every language it is written in. A
lesson is a position (and options, where it needs a variant) and its steps; a step asks
for one of the actions it ``accept``s (any legal action when it names none), says why
another legal action is not the one asked for (``wrong``), explains what the accepted
action did, and may play the other side's ``reply`` before the next step. ``teaches``
names the rules a lesson covers (the tests check that every rule in ``rules`` is
taught) and ``shows`` the narration a step's action must produce, so that a
lesson cannot drift from the rules it claims to teach::

    rules = ["swim", "jump", "drop", "scoring", "supplies"]

    [[lesson]]
    id = "swim"
    teaches = ["swim"]
    title = { en = "Swimming", de = "Schwimmen" }
    position = "Y5Y/7/7/7/7/7/R5R r m 10/10 0/0 0 0"

      [[lesson.step]]
      ask = { en = "Swim your koi from a1 to b2.", de = "..." }
      accept = ["a1-b2"]
      shows = ["swim"]
      explain = { en = "A koi swims one square in any direction ...", de = "..." }
"""

from __future__ import annotations

import importlib.resources
import tomllib
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import boardlab
from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game, Position


class LessonError(BoardlabError):
    """A lesson file that does not say what a lesson needs, or asks for what the rules
    do not allow."""


@dataclass(frozen=True)
class Step:
    ask: dict[str, str]
    explain: dict[str, str]
    accept: tuple[str, ...] = ()  # action strings; empty: any legal action
    wrong: dict[str, str] = field(default_factory=dict)
    reply: tuple[str, ...] = ()  # the other side's actions played after this step
    shows: tuple[str, ...] = ()  # narration kinds the accepted action produces


@dataclass(frozen=True)
class Lesson:
    id: str
    number: int  # from 1, in the game's order
    title: dict[str, str]
    position: str
    steps: tuple[Step, ...]
    teaches: tuple[str, ...] = ()
    options: dict[str, Any] = field(default_factory=dict)
    intro: dict[str, str] = field(default_factory=dict)

    def game(self, game_id: str) -> Game[Any]:
        return boardlab.new_game(game_id, **self.options)

    def start(self, game_id: str) -> Position[Any]:
        """The lesson's position, with its options."""
        return self.game(game_id).from_position_string(self.position)


def words(text: dict[str, str], language: str) -> str:
    """A lesson's text in ``language``, else in English."""
    return text.get(language) or text.get("en", "")


def lessons(game_id: str) -> tuple[Lesson, ...]:
    """The lessons of a game, in order; none when its package has no ``lessons.toml``."""
    return _read(game_id)[1]


def rules_taught(game_id: str) -> tuple[str, ...]:
    """The rules a game's lessons teach between them, by the names ``teaches`` uses."""
    return _read(game_id)[0]


@cache
def _read(game_id: str) -> tuple[tuple[str, ...], tuple[Lesson, ...]]:
    game = boardlab.new_game(game_id)
    package = type(game).__module__.rpartition(".")[0]
    try:
        text = (importlib.resources.files(package) / "lessons.toml").read_text(encoding="utf-8")
    except (FileNotFoundError, ModuleNotFoundError, NotADirectoryError):
        return (), ()
    try:
        data = tomllib.loads(text)
        found = tuple(_lesson(number, table) for number, table in enumerate(data["lesson"], 1))
        return tuple(data.get("rules", ())), found
    except (tomllib.TOMLDecodeError, KeyError, TypeError) as error:
        raise LessonError(f"{game_id}'s lessons.toml cannot be read: {error}") from error


def _lesson(number: int, table: dict[str, Any]) -> Lesson:
    steps = tuple(
        Step(
            ask=dict(step["ask"]),
            explain=dict(step["explain"]),
            accept=tuple(step.get("accept", ())),
            wrong=dict(step.get("wrong", {})),
            reply=tuple(step.get("reply", ())),
            shows=tuple(step.get("shows", ())),
        )
        for step in table["step"]
    )
    return Lesson(
        id=table["id"],
        number=number,
        title=dict(table["title"]),
        position=table["position"],
        steps=steps,
        teaches=tuple(table.get("teaches", ())),
        options=dict(table.get("options", {})),
        intro=dict(table.get("intro", {})),
    )


def lesson(game_id: str, lesson_id: str) -> Lesson | None:
    return next((k for k in lessons(game_id) if k.id == lesson_id), None)
