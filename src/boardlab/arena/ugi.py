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
``go`` with clocks spends 1/30 of the clock plus the increment. A bad command gets
``info string error: ...`` and changes nothing.

The session is in one of two states, *idle* or *searching*; the search runs beside the
reader, so no command ever waits for more than a slice of it:

- ``ugi``, ``isready`` and ``query`` are answered at once in either state.
- ``stop`` ends a search (its ``bestmove`` comes before anything else is read); idle, it
  does nothing.
- ``position``, ``setoption``, ``uginewgame`` and ``go`` are read and checked first (a bad
  one is refused and the search goes on); a good one arriving while searching stops the
  search, whose ``bestmove`` is printed, then takes effect. This is what UCI engines do
  (Stockfish stops the search before it handles a new ``position`` or ``go``).
- ``quit`` stops the search and ends the session, waiting at most a second for it.
- The end of the input stops ``go infinite`` and lets any other search finish.

Every ``go`` that is accepted is answered by exactly one ``bestmove``. Every search runs
in slices of at most a quarter second, each a search of its own under the agent's
budget capped to the slice, so a ``stop`` is seen within a slice: ``movetime`` and clocks
slice their time, ``nodes`` and iterations are counted across slices, ``depth`` searches
until a slice reaches it or gets no deeper than the one before, and ``infinite`` until
``stop``. A search that ends before its slice's time is complete (a proven result, the
depth reached, an agent that does not search). The ``bestmove`` is the last slice's
choice, so a long ``movetime`` gives an agent that keeps nothing between searches
(alpha-beta) the strength of a quarter second; an MCTS that reuses its tree grows it
across slices.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import boardlab
from boardlab.ai import make_agent
from boardlab.ai.base import Agent, Choice, Limit
from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game, Position
from boardlab.core.options import Option
from boardlab.core.registry import new_game

SLICE = 0.25  # seconds: the longest a search runs before it looks for ``stop``
QUIT_PATIENCE = 1.0  # seconds ``quit`` waits for a slice to end before leaving anyway
CLOCK_SHARE = 30  # a move spends 1/30 of the clock
MAX_LINE = 100_000  # characters: a position with a long move list, not a stray file

#: What a checked command changes in the session, made once no search runs (or None).
Change = Callable[[], None] | None


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


@dataclass
class Budget:
    """What one ``go`` may spend (no limit: ``infinite``) and what its slices have spent,
    so the search can be cut into slices that each look for ``stop``."""

    limit: Limit | None
    started: float = field(default_factory=time.perf_counter)
    nodes: int = 0
    iterations: int = 0
    depth: int = 0

    def time_left(self) -> float | None:
        if self.limit is None or self.limit.time is None:
            return None
        return self.limit.time - (time.perf_counter() - self.started)

    def next_slice(self) -> Limit:
        """The limit of the next slice: what is left, and never more than ``SLICE``."""
        left = self.time_left()
        limit = self.limit or Limit()
        return Limit(
            time=SLICE if left is None else max(min(SLICE, left), 0.001),
            nodes=None if limit.nodes is None else max(limit.nodes - self.nodes, 1),
            iterations=None
            if limit.iterations is None
            else max(limit.iterations - self.iterations, 1),
            depth=limit.depth,
        )

    def is_spent(self, choice: Choice, piece: Limit) -> bool:
        """Count a slice's work; whether the ``go``'s limit is met. A slice that ended
        before half its time ended on its own: the search is complete."""
        deeper = choice.depth > self.depth
        self.nodes += choice.nodes
        self.iterations += choice.iterations
        self.depth = max(self.depth, choice.depth)
        if piece.time is not None and choice.seconds < piece.time / 2:
            return True
        limit = self.limit
        if limit is None:
            return False
        if limit.nodes is not None and self.nodes >= limit.nodes:
            return True
        if limit.iterations is not None and self.iterations >= limit.iterations:
            return True
        left = self.time_left()
        if left is not None:
            return left <= 0
        if limit.nodes is not None or limit.iterations is not None:
            return False
        if limit.depth is not None and self.depth >= limit.depth:
            return True
        return not deeper  # a depth the slices get no nearer to


class Engine:
    """One engine session, idle or searching; ``handle`` takes one line of input."""

    def __init__(self, game: Game[Any], agent: str, write: Callable[[str], None]) -> None:
        self.game, self.agent_spec = game, agent
        lock = threading.Lock()

        def write_line(line: str) -> None:  # the reader and the search both write
            with lock:
                write(line)

        self.write = write_line
        self.options: dict[str, Any] = dict(game.options)
        self.agent = make_agent(agent, seed=0, game=game)
        self.agent.check(game)
        self.position: Position[Any] = game.initial()
        self.search: threading.Thread | None = None  # None: idle
        self.infinite = False
        self.stopping = threading.Event()

    @property
    def state(self) -> str:
        """``searching`` from an accepted ``go`` until its search ends or is stopped,
        else ``idle``."""
        return "searching" if self.search is not None and self.search.is_alive() else "idle"

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
                self.stop(patience=QUIT_PATIENCE)
                return False
            handler = COMMANDS.get(command)
            if handler is None:
                raise BoardlabError(f"unknown command {command!r}")
            change = handler(self, rest)
            if change is not None:
                self.stop()  # searching -> idle: the search's bestmove comes first
                change()
        except BoardlabError as error:
            self.write(f"info string error: {error}")
        return True

    # ------------------------------------------------------------------ commands
    def ugi(self, rest: list[str]) -> Change:
        self.write(f"id name boardlab {boardlab.__version__} ({self.game.id})")
        self.write("id author the boardlab authors")
        self.write(f"option name agent type string default {self.agent_spec}")
        for option in self.game.schema:
            self.write(option_line(option))
        self.write("ugiok")
        return None

    def isready(self, rest: list[str]) -> Change:
        self.write("readyok")
        return None

    def setoption(self, rest: list[str]) -> Change:
        text = " ".join(rest)
        if not text.startswith("name ") or " value " not in text:
            raise BoardlabError(f"setoption {text!r}: expected setoption name NAME value VALUE")
        name, _, value = text[len("name ") :].partition(" value ")
        name, value = name.strip(), value.strip()
        if name == "agent":
            agent = make_agent(value, seed=0, game=self.game)
            agent.check(self.game)

            def set_agent() -> None:
                self.agent, self.agent_spec = agent, value

            return set_agent
        game = new_game(self.game.id, {**self.options, name: value})  # checks the option
        game_agent = make_agent(self.agent_spec, seed=0, game=game)

        def set_game() -> None:
            self.game, self.options, self.agent = game, dict(game.options), game_agent
            self.position = game.initial()

        return set_game

    def uginewgame(self, rest: list[str]) -> Change:
        def new_game() -> None:
            self.agent.reset()
            self.position = self.game.initial()

        return new_game

    def position_command(self, rest: list[str]) -> Change:
        if not rest or rest[0] not in ("startpos", "fen"):
            raise BoardlabError("position: expected startpos or fen POSITION, then moves ...")
        split = rest.index("moves") if "moves" in rest else len(rest)
        if rest[0] == "startpos":
            position = self.game.initial()
        else:
            position = self.game.from_position_string(" ".join(rest[1:split]))
        for move in rest[split + 1 :]:
            position = position.play(move)

        def set_position() -> None:
            self.position = position

        return set_position

    def go(self, rest: list[str]) -> Change:
        if self.position.is_over():
            raise BoardlabError("go: the game is over in this position")
        limit, infinite = self.limit(rest)

        def start_search() -> None:
            self.stopping.clear()
            self.infinite = infinite
            budget = Budget(None if infinite else limit or self.agent.budget)
            self.search = threading.Thread(
                target=self.think, args=(self.agent, self.position, budget), daemon=True
            )
            self.search.start()

        return start_search

    def stop_command(self, rest: list[str]) -> Change:
        self.stop()
        return None

    def query(self, rest: list[str]) -> Change:
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
        return None

    # ------------------------------------------------------------------ searching
    def limit(self, rest: list[str]) -> tuple[Limit | None, bool]:
        """The search limit a ``go`` asks for (None: the agent's own budget), and whether
        it is ``infinite``."""
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
            return None, True
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
        return None, False

    def think(self, agent: Agent, position: Position[Any], budget: Budget) -> None:
        """Search ``position`` slice by slice until ``budget`` is spent or ``stop``; then
        this ``go``'s one ``bestmove``, whatever happened."""
        choice: Choice | None = None
        try:
            while not self.stopping.is_set():
                piece = budget.next_slice()
                choice = agent.choose(position, piece)
                self.write(info(position, choice))
                if budget.is_spent(choice, piece):
                    if budget.limit is None:  # infinite: nothing more to find, but
                        self.stopping.wait()  # its bestmove waits for stop
                    break
        except BoardlabError as error:
            self.write(f"info string error: {error}")
        finally:
            action = position.legal_actions()[0] if choice is None else choice.action
            self.write(f"bestmove {position.action_string(action)}")

    def stop(self, patience: float | None = None) -> None:
        """Idle again: end the running search, if any, once its slice is over (its
        ``bestmove`` is printed by then, unless ``patience`` seconds run out first)."""
        if self.search is None:
            return
        self.stopping.set()
        self.search.join(patience)
        self.search = None

    def finish(self) -> None:
        """The input has ended: stop ``go infinite``, let any other search finish."""
        if self.search is not None and not self.infinite:
            self.search.join()
        self.stop()


#: A command's handler reads and checks its words, answers what is answered at once, and
#: returns the change it makes to the session (None: no change), made once idle.
COMMANDS: dict[str, Callable[[Engine, list[str]], Change]] = {
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
    engine.finish()
