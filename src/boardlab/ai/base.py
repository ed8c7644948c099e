"""The agent interface shared by every AI: a position and a limit in, an action with
information out. The same seed and an iteration, node or depth limit give the same choice.

Values are from the point of view of the player to act, in [-1, 1]: 1 a win, -1 a loss,
0 a draw (or an even position); heuristic estimates stay inside (-0.9, 0.9).
"""

from __future__ import annotations

import gc
import random
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game, Position
from boardlab.core.i18n import _

WIN = 1.0
#: What a move's time keeps back from its search: a share of it, at most MOVE_OVERHEAD
#: seconds, for the answer built after the search and the waits for a core on a loaded
#: machine (a few scheduler slices), so that an agent never thinks past its ``time=``.
OVERHEAD_SHARE = 0.02
MOVE_OVERHEAD = 0.05


@dataclass(frozen=True)
class Limit:
    """How much an agent may search: any of seconds, iterations (MCTS), nodes, depth
    (in actions). Unset fields are unlimited; an agent falls back to its own budget."""

    time: float | None = None
    iterations: int | None = None
    nodes: int | None = None
    depth: int | None = None

    def __post_init__(self) -> None:
        for name in ("time", "iterations", "nodes", "depth"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise BoardlabError(
                    _("bad limit {name}={value!r}: expected a number above 0").format(
                        name=name, value=value
                    )
                )

    def is_set(self) -> bool:
        return any(v is not None for v in (self.time, self.iterations, self.nodes, self.depth))


@dataclass(frozen=True)
class Choice:
    """An agent's answer: the action, and what the search learned on the way."""

    action: int
    value: float | None = None  # for the player to act, -1..1
    pv: tuple[int, ...] = ()  # principal variation, starting with ``action``
    nodes: int = 0
    iterations: int = 0
    depth: int = 0
    seconds: float = 0.0
    #: (action, value for the player to act, visits or 0) of every legal action searched.
    action_values: tuple[tuple[int, float, int], ...] = field(default=(), compare=False)
    #: What the game record should say about this choice (a language model's refused
    #: answers), or "".
    comment: str = field(default="", compare=False)


class AgentFault(BoardlabError):
    """An agent failed during a game (an external program crashed, fell silent or answered
    an illegal action): it loses that game by forfeit, and a match goes on."""


class SearchTimeout(Exception):
    """Raised inside a search when its clock runs out."""


class Clock:
    """A deadline checked cheaply: the wall clock is read every ``stride`` ticks."""

    def __init__(self, seconds: float | None, stride: int = 64) -> None:
        self.start = time.perf_counter()
        self.deadline = None if seconds is None else self.start + seconds
        self.stride = stride
        self.ticks = 0

    def expired(self) -> bool:
        self.ticks += 1
        if self.deadline is None or self.ticks % self.stride:
            return False
        return time.perf_counter() >= self.deadline

    def now_expired(self) -> bool:
        return self.deadline is not None and time.perf_counter() >= self.deadline

    def elapsed(self) -> float:
        return time.perf_counter() - self.start


class _CollectorPause:
    """Python's cyclic garbage collector held off while a search on a clock runs. A full
    collection walks every object of the process (numba's compiler keeps millions), and
    the nodes a search makes trigger one every few moves: up to half a second spent past
    the move's time on a loaded machine. A search's trees hold no cycles, so they are
    freed as they are dropped; the collector runs again once no search of the process
    (in any thread) is running, if it ran before the first one began."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.searches = 0
        self.restore = False

    @contextmanager
    def __call__(self) -> Iterator[None]:
        with self.lock:
            self.searches += 1
            if self.searches == 1:
                self.restore = gc.isenabled()
                gc.disable()
        try:
            yield
        finally:
            with self.lock:
                self.searches -= 1
                if self.searches == 0 and self.restore:
                    gc.enable()


collector_paused = _CollectorPause()


class Agent(ABC):
    """Chooses actions. Built with a seed and default budget; ``choose`` may override the
    budget with a ``Limit`` and the randomness with an ``rng``."""

    kind: ClassVar[str]
    #: Parameters accepted in a spec (``mcts:time=2``) with their types.
    params: ClassVar[dict[str, type]] = {}

    def __init__(self, seed: int | None = None, **settings: Any) -> None:
        unknown = set(settings) - set(self.params) - {"time", "iterations", "nodes", "depth"}
        if unknown:
            allowed = ", ".join(sorted({*self.params, "time", "iterations", "nodes", "depth"}))
            raise BoardlabError(
                _("unknown parameter {name!r} for agent {kind!r}: expected {allowed}").format(
                    name=sorted(unknown)[0], kind=self.kind, allowed=allowed
                )
            )
        self.seed = seed
        self.rng = random.Random(seed)
        self.budget = Limit(
            time=settings.get("time"),
            iterations=settings.get("iterations"),
            nodes=settings.get("nodes"),
            depth=settings.get("depth"),
        )
        self.settings = settings

    def limit_for(self, limit: Limit | None) -> Limit:
        """The budget of one choice: ``limit`` if set, else the agent's own; its time less
        the move's overhead."""
        chosen = limit if limit is not None and limit.is_set() else self.budget
        if chosen.time is None:
            return chosen
        return replace(chosen, time=chosen.time - min(MOVE_OVERHEAD, chosen.time * OVERHEAD_SHARE))

    @abstractmethod
    def choose(
        self,
        position: Position[Any],
        limit: Limit | None = None,
        rng: random.Random | None = None,
    ) -> Choice:
        """A legal action of ``position`` (which must not be over), with information.

        With the same seed (or the same ``rng``) and an iteration, node or depth limit,
        the choice is the same every time; agents that keep knowledge between moves (MCTS
        tree reuse) start afresh when they are given an explicit ``rng``."""

    def reset(self) -> None:  # noqa: B027 (agents without memory keep nothing)
        """Forget anything kept from earlier moves (a new game starts)."""

    def check(self, game: Game[Any]) -> None:  # noqa: B027 (most play every game)
        """Raise a BoardlabError, saying what is missing, if this agent cannot play
        ``game`` (the perfect player without its table), before a game starts."""

    def warm(self, position: Position[Any]) -> None:  # noqa: B027 (most need nothing)
        """Get ready to play ``position``'s game (compile what needs compiling), so that
        the first real move does not wait; safe to run in a background thread."""

    def spec(self) -> str:
        """The agent spec that builds this agent again."""
        parts = [f"{k}={v}" for k, v in self.settings.items()]
        return self.kind + (":" + ",".join(parts) if parts else "")

    def __repr__(self) -> str:
        return f"<Agent {self.spec()}>"


def require_playable(position: Position[Any]) -> tuple[int, ...]:
    actions = position.legal_actions()
    if not actions:
        raise BoardlabError(
            _("no action to choose: the game is over in {position}").format(position=position)
        )
    return actions


def with_time(choice: Choice, clock: Clock) -> Choice:
    return replace(choice, seconds=clock.elapsed())
