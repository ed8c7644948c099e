"""``boardlab engine``: any agent as an engine speaking UGI over standard input and output.

UGI is the game-agnostic descendant of chess's UCI that cutegames defines; boardlab's
position strings are its FEN and action strings its moves. A session::

    < ugi
    > id name boardlab <version> (<game>)
    > id author the boardlab authors
    > option name agent type string default medium
    > option name <game option> type spin|check|combo default ... [min .. max | var ..]
    > ugiok
    < isready
    > readyok
    < setoption name agent value mcts:time=2
    < uginewgame
    < position startpos moves <action> <action> ...      (or: position fen <position string> ...)
    < go movetime 1000                  (or nodes N, depth N, p1time/p2time/p1inc/p2inc ms,
    > info depth 1 nodes 3120 time 998 score cp 12 pv <action> ...   infinite until stop)
    > bestmove <action>
    < query gameover | p1turn | result
    > response false | true | none
    < quit

A turn of several actions is several ``go``: the engine answers one action at a time.
``go`` with clocks spends 1/30 of the clock plus the increment. The search runs beside
the reader, so ``stop`` ends ``go infinite`` (searched in slices of a quarter second)
and ``isready`` is answered at once. A bad command gets ``info string error: ...`` and
changes nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

import boardlab
from boardlab.ai import make_agent
from boardlab.ai.base import Choice, Limit
from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game, Position
from boardlab.core.options import Option
from boardlab.core.registry import new_game

SLICE = 0.25  # seconds a slice of ``go infinite`` searches
CLOCK_SHARE = 30  # a move spends 1/30 of the clock
MAX_LINE = 100_000  # characters: a position with a long move list, not a stray file


def option_line(option: Option) -> str:
    """An option as ``ugi`` announces it."""
    default = option.format(option.default)
    if option.kind == "bool":
        return f"option name {option.name} type check default {default}"
    if option.kind == "int":
        span = f"min {option.low} max {option.high}"
        return f"option name {option.name} type spin default {default} {span}"
    choices = " ".join(f"var {choice}" for choice in option.choices)
    return f"option name {option.name} type combo default {default} {choices}"


class Engine:
    """The state of one engine session; ``handle`` takes one line of input."""

    def __init__(self, game: Game[Any], agent: str, write: Callable[[str], None]) -> None:
        self.game, self.agent_spec, self.write = game, agent, write
        self.options: dict[str, Any] = dict(game.options)
        self.agent = make_agent(agent, seed=0, game=game)
        self.agent.check(game)
        self.position: Position[Any] = game.initial()
        self.search: threading.Thread | None = None
        self.stopping = threading.Event()

    def handle(self, line: str) -> bool:
        """Act on one line; False once ``quit`` is read."""
        line = line.rstrip("\r\n")
        if len(line) > MAX_LINE:
            self.write(f"info string error: a line of {len(line)} characters, at most {MAX_LINE}")
            return True
        words = line.split()
        if not words:
            return True
        command, rest = words[0], words[1:]
        try:
            if command == "quit":
                self.stop()
                return False
            handler = COMMANDS.get(command)
            if handler is None:
                raise BoardlabError(f"unknown command {command!r}")
            handler(self, rest)
        except BoardlabError as error:
            self.write(f"info string error: {error}")
        return True

    # ------------------------------------------------------------------ commands
    def ugi(self, rest: list[str]) -> None:
        self.write(f"id name boardlab {boardlab.__version__} ({self.game.id})")
        self.write("id author the boardlab authors")
        self.write(f"option name agent type string default {self.agent_spec}")
        for option in self.game.schema:
            self.write(option_line(option))
        self.write("ugiok")

    def isready(self, rest: list[str]) -> None:
        self.write("readyok")

    def setoption(self, rest: list[str]) -> None:
        text = " ".join(rest)
        if not text.startswith("name ") or " value " not in text:
            raise BoardlabError(f"setoption {text!r}: expected setoption name NAME value VALUE")
        name, _, value = text[len("name ") :].partition(" value ")
        name, value = name.strip(), value.strip()
        self.wait()
        if name == "agent":
            agent = make_agent(value, seed=0, game=self.game)
            agent.check(self.game)
            self.agent, self.agent_spec = agent, value
            return
        game = new_game(self.game.id, {**self.options, name: value})  # checks the option
        self.game, self.options = game, dict(game.options)
        self.agent = make_agent(self.agent_spec, seed=0, game=game)
        self.position = game.initial()

    def uginewgame(self, rest: list[str]) -> None:
        self.wait()
        self.agent.reset()
        self.position = self.game.initial()

    def position_command(self, rest: list[str]) -> None:
        if not rest or rest[0] not in ("startpos", "fen"):
            raise BoardlabError("position: expected startpos or fen POSITION, then moves ...")
        split = rest.index("moves") if "moves" in rest else len(rest)
        if rest[0] == "startpos":
            position = self.game.initial()
        else:
            position = self.game.from_position_string(" ".join(rest[1:split]))
        for move in rest[split + 1 :]:
            position = position.play(move)
        self.wait()
        self.position = position

    def go(self, rest: list[str]) -> None:
        if self.position.is_over():
            raise BoardlabError("go: the game is over in this position")
        self.wait()
        limit, infinite = self.limit(rest)
        self.stopping.clear()
        self.search = threading.Thread(
            target=self.think, args=(self.position, limit, infinite), daemon=True
        )
        self.search.start()

    def stop_command(self, rest: list[str]) -> None:
        self.stop()

    def query(self, rest: list[str]) -> None:
        outcome = self.position.outcome()
        answers = {
            "gameover": str(outcome is not None).lower(),
            "p1turn": str(outcome is None and self.position.to_act == 0).lower(),
            "result": "none"
            if outcome is None
            else "draw"
            if outcome.winner is None
            else f"p{outcome.winner + 1}win",
        }
        if len(rest) != 1 or rest[0] not in answers:
            raise BoardlabError(f"query {' '.join(rest)!r}: expected gameover, p1turn or result")
        self.write(f"response {answers[rest[0]]}")

    # ------------------------------------------------------------------ searching
    def limit(self, rest: list[str]) -> tuple[Limit, bool]:
        """The search limit a ``go`` asks for, and whether it is ``infinite``."""
        numbers: dict[str, int] = {}
        words = iter(rest)
        infinite = False
        for word in words:
            if word == "infinite":
                infinite = True
                continue
            if word not in ("movetime", "nodes", "depth", "p1time", "p2time", "p1inc", "p2inc"):
                raise BoardlabError(f"go: unknown parameter {word!r}")
            value = next(words, "")
            if not (value.isascii() and value.isdigit() and len(value) <= 12):
                raise BoardlabError(f"go {word}: expected a whole number, got {value!r}")
            numbers[word] = int(value)
        if infinite:
            return Limit(time=SLICE), True
        if "movetime" in numbers:
            return Limit(time=max(numbers["movetime"], 1) / 1000), False
        if "nodes" in numbers or "depth" in numbers:
            return Limit(
                nodes=numbers.get("nodes") or None, depth=numbers.get("depth") or None
            ), False
        me = self.position.to_act + 1
        if f"p{me}time" in numbers:
            spend = numbers[f"p{me}time"] / CLOCK_SHARE + numbers.get(f"p{me}inc", 0)
            return Limit(time=max(spend, 10) / 1000), False
        return Limit(), False  # the agent's own budget

    def think(self, position: Position[Any], limit: Limit, infinite: bool) -> None:
        choice: Choice | None = None
        try:
            while choice is None or (infinite and not self.stopping.is_set()):
                choice = self.agent.choose(position, limit)
                self.write(info(position, choice))
        except BoardlabError as error:
            self.write(f"info string error: {error}")
            choice = choice or Choice(action=position.legal_actions()[0])
        self.write(f"bestmove {position.action_string(choice.action)}")

    def stop(self) -> None:
        self.stopping.set()
        self.wait()

    def wait(self) -> None:
        """Let a running search finish (``stop`` has cut ``go infinite`` short)."""
        if self.search is not None:
            self.search.join()
            self.search = None


COMMANDS: dict[str, Callable[[Engine, list[str]], None]] = {
    "ugi": Engine.ugi,
    "isready": Engine.isready,
    "setoption": Engine.setoption,
    "uginewgame": Engine.uginewgame,
    "position": Engine.position_command,
    "go": Engine.go,
    "stop": Engine.stop_command,
    "query": Engine.query,
}


def info(position: Position[Any], choice: Choice) -> str:
    """The ``info`` line of a finished search."""
    parts = [f"info depth {choice.depth or 1}", f"nodes {choice.nodes or choice.iterations}"]
    parts.append(f"time {round(choice.seconds * 1000)}")
    if choice.value is not None:
        parts.append(f"score cp {round(choice.value * 100)}")
    line = position.line_strings(choice.pv or (choice.action,))
    return " ".join([*parts, "pv", *line])


def serve(game: Game[Any], agent: str, lines: Iterable[str], write: Callable[[str], None]) -> None:
    """Run an engine session over ``lines`` until ``quit`` or the end of the input."""
    engine = Engine(game, agent, write)
    for line in lines:
        if not engine.handle(line):
            return
    engine.stop()
