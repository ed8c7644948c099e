"""AI players: one Agent interface, baseline and search agents, named levels.

>>> import boardlab
>>> from boardlab.ai import make_agent
>>> agent = make_agent("mcts:iterations=200", seed=1)
>>> position = boardlab.new_game(boardlab.game_ids()[0]).initial()
>>> choice = agent.choose(position)
>>> choice.action in position.legal_actions()
True
"""

from __future__ import annotations

import re
from typing import Any

from boardlab.ai.alphabeta import AlphaBetaAgent
from boardlab.ai.az import AzAgent
from boardlab.ai.base import Agent, AgentFault, Choice, Limit
from boardlab.ai.engine import EngineAgent
from boardlab.ai.llm import LlmAgent
from boardlab.ai.mcts import MctsAgent
from boardlab.ai.openspiel import OpenSpielAgent
from boardlab.ai.perfect import PerfectAgent
from boardlab.ai.simple import GreedyAgent, RandomAgent
from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game
from boardlab.core.i18n import N_, _
from boardlab.core.registry import game_class
from boardlab.extras import has

AGENTS: dict[str, type[Agent]] = {
    cls.kind: cls
    for cls in (
        RandomAgent,
        GreedyAgent,
        AlphaBetaAgent,
        MctsAgent,
        PerfectAgent,
        LlmAgent,
        AzAgent,
        EngineAgent,
        OpenSpielAgent,
    )
}

#: The named levels: each an agent spec with its budget (measured strength: docs/ai.md).
#: With numba installed the searching levels run the compiled MCTS; without it, the
#: Python tree with heuristic rollouts stands in. A searching level's budget is
#: iterations (the same games on any machine), with a time it never goes past: its
#: promise on a loaded machine, well above what it takes on an idle core.
COMPILED_LEVELS: dict[str, str] = {
    "beginner": "greedy:noise=0.5",
    "easy": "greedy",
    "medium": "mcts:tree=compiled,iterations=3000,time=0.5",
    "hard": "mcts:tree=compiled,iterations=20000,time=1",
    "expert": "mcts:tree=compiled,iterations=400000,time=2",
    "master": "mcts:tree=compiled,minimax=0.4,iterations=350000,time=2",
    "perfect": "perfect",
}
PYTHON_LEVELS: dict[str, str] = {
    "beginner": "greedy:noise=0.5",
    "easy": "greedy",
    "medium": "mcts:iterations=400,rollout=heuristic,time=0.5",
    "hard": "mcts:time=1.5,rollout=heuristic",
    "expert": "mcts:time=4,rollout=heuristic",
    "master": "mcts:time=8,rollout=heuristic",
    "perfect": "perfect",
}
#: The levels' names, weakest first.
LEVEL_NAMES = tuple(COMPILED_LEVELS)
DEFAULT_LEVEL = "medium"
#: Each level as people read it: its name and what it does (the spec names are data).
LEVEL_WORDS: dict[str, tuple[str, str]] = {
    "beginner": (N_("beginner"), N_("plays almost at random")),
    "easy": (N_("easy"), N_("takes what it sees")),
    "medium": (N_("medium"), N_("a short search")),
    "hard": (N_("hard"), N_("a deeper search")),
    "expert": (N_("expert"), N_("a long search, about a second a move")),
    "master": (N_("master"), N_("the strongest search, playouts and judgement together")),
    "perfect": (N_("perfect"), N_("exact play from the solver's table")),
}


def level_name(spec: str) -> str:
    """An agent spec as people read it: a level's name in the current language
    (``mittel``), any other spec as it is written (``mcts:time=2``)."""
    return _(LEVEL_WORDS[spec][0]) if spec in LEVEL_WORDS else spec


def compiled(game: Game[Any] | type[Game[Any]] | None) -> bool:
    """Whether ``game`` plays with the compiled kernels: numba is installed and the game
    has a kernel (any game, when none is named)."""
    return has("fast") and (game is None or game.kernel is not None)


def levels(game: Game[Any] | type[Game[Any]] | None = None) -> dict[str, str]:
    """Every level's agent spec as ``game`` plays it: the common table (compiled or
    Python) with the game's own choices (``Game.levels``, ``Game.compiled_levels``)."""
    fast = compiled(game)
    table = dict(COMPILED_LEVELS if fast else PYTHON_LEVELS)
    if game is not None:
        table.update(game.levels)
        if fast:
            table.update(game.compiled_levels)
    return table


#: The levels as a game without its own choices plays them on this install.
LEVELS: dict[str, str] = levels()


def _game_class(game: Game[Any] | str | None) -> type[Game[Any]] | None:
    if game is None:
        return None
    return game_class(game) if isinstance(game, str) else type(game)


_TYPES: dict[str, type] = {"time": float, "iterations": int, "nodes": int, "depth": int}
#: How numbers are written in a spec: ASCII digits of sane length (``int`` and ``float``
#: would also take full-width digits, ``1_000``, ``nan`` and ``inf``).
NUMBERS = {int: re.compile(r"[0-9]{1,12}"), float: re.compile(r"[0-9]{1,12}(\.[0-9]{1,9})?")}
WORDS = {int: N_("an integer"), float: N_("a number like 1.5"), str: N_("a word")}
#: The largest budgets an agent spec may ask for: a day, and counts a search can hold.
BUDGET_MAX: dict[str, float] = {"time": 86_400, "iterations": 10**9, "nodes": 10**9, "depth": 100}


def level_spec(spec: str, game: Game[Any] | str | None = None) -> str:
    """The agent spec a level names in ``game`` (a game or its id; any other spec as it
    is)."""
    return levels(_game_class(game)).get(spec.strip().lower(), spec.strip())


def parse_spec(spec: str, game: Game[Any] | str | None = None) -> tuple[str, dict[str, Any]]:
    """``kind:key=value,key=value`` (or a level name, as ``game`` plays it) into the kind
    and its settings."""
    text = level_spec(spec, game)
    kind, _sep, rest = text.partition(":")
    kind = kind.strip().lower()
    if kind not in AGENTS:
        raise BoardlabError(
            _(
                "unknown agent {spec!r}: expected a level ({levels}) or an agent ({agents}) "
                "with parameters, like mcts:time=2 or alphabeta:depth=6"
            ).format(spec=spec, levels=", ".join(LEVELS), agents=", ".join(AGENTS))
        )
    cls = AGENTS[kind]
    settings: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
        key, sep, value = item.partition("=")
        key = key.strip()
        kinds = {**_TYPES, **cls.params}
        if not sep or key not in kinds:
            raise BoardlabError(
                _(
                    "bad agent parameter {item!r} in {spec!r}: expected key=value with key "
                    "one of {keys}"
                ).format(item=item, spec=spec, keys=", ".join(sorted(kinds)))
            )
        number = NUMBERS.get(kinds[key])
        try:
            if number is not None and not number.fullmatch(value.strip()):
                raise ValueError(value)
            settings[key] = kinds[key](value.strip())
        except ValueError:
            what = WORDS.get(kinds[key])
            raise BoardlabError(
                _("bad value {value!r} for {key!r} in agent {spec!r}: expected {what}").format(
                    value=value, key=key, spec=spec, what=_(what) if what else kinds[key].__name__
                )
            ) from None
        if isinstance(settings[key], int | float) and not 0 <= settings[key] <= BUDGET_MAX.get(
            key, float("inf")
        ):
            high = BUDGET_MAX.get(key)
            if high is None:
                raise BoardlabError(
                    _(
                        "bad value {value!r} for {key!r} in agent {spec!r}: expected 0 or more"
                    ).format(value=value, key=key, spec=spec)
                )
            raise BoardlabError(
                _(
                    "bad value {value!r} for {key!r} in agent {spec!r}: expected 0 to {high:,.0f}"
                ).format(value=value, key=key, spec=spec, high=high)
            )
    return kind, settings


def make_agent(spec: str, seed: int | None = None, game: Game[Any] | str | None = None) -> Agent:
    """The agent a spec names: a level (``medium``; ``game`` picks the agent that game
    plays the level with), an agent (``random``), or an agent with parameters
    (``mcts:time=2``, ``alphabeta:depth=6``)."""
    kind, settings = parse_spec(spec, game)
    return AGENTS[kind](seed, **settings)


__all__ = [
    "AGENTS",
    "LEVELS",
    "LEVEL_NAMES",
    "Agent",
    "AgentFault",
    "AlphaBetaAgent",
    "AzAgent",
    "Choice",
    "EngineAgent",
    "GreedyAgent",
    "Limit",
    "LlmAgent",
    "MctsAgent",
    "PerfectAgent",
    "RandomAgent",
    "level_spec",
    "levels",
    "make_agent",
    "parse_spec",
]
