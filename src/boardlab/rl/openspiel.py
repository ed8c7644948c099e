"""boardlab's games as OpenSpiel games (Python games registered with ``pyspiel``).

Every registered boardlab game is exposed under the short name ``boardlab_<id>``
(``boardlab_`` and the game's id), and every boardlab option is an OpenSpiel game
parameter with the option's default::

    from boardlab.rl import openspiel
    openspiel.register()
    game = pyspiel.load_game("boardlab_<id>", {"<option>": "<value>"})
    game = openspiel.load("<id>", option="value")           # the same game
    state = game.new_initial_state()
    str(state)                                 # the position string
    game.new_initial_state("<position string>")  # any position

The games are sequential, deterministic, perfect-information and zero-sum; the returns at
the end are 1/-1 for a win/loss and 0 for a draw, for OpenSpiel player p = boardlab player
index p (the first of ``Game.players``). A player who acts several times in a row (a
turn of several actions) is simply the current player for several actions. Observation
and information state strings are the position string, which holds the whole state; the
observation tensor is ``Game.observation`` from the observing player's side, numbers in
[0, 1] laid out as ``Game.observation_layout`` says (documented in each game card).
Serialization works (the position string is what is stored).

pyspiel is imported only when a function of this module is first called, so the module
imports without OpenSpiel installed; nothing else in boardlab imports it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from boardlab.core.errors import BoardlabError, OptionError
from boardlab.core.game import Game, Position
from boardlab.core.i18n import _
from boardlab.core.registry import game_class, game_ids, new_game
from boardlab.extras import import_extra

PREFIX = "boardlab_"

_registered: set[str] = set()


def short_name(game_id: str) -> str:
    """The OpenSpiel short name of a boardlab game: ``boardlab_<id>``."""
    return PREFIX + game_class(game_id).id


def register() -> list[str]:
    """Register every boardlab game with OpenSpiel (again only for games registered with
    boardlab since the last call); the OpenSpiel short names of all of them."""
    pyspiel = _pyspiel()
    classes = _classes()
    for game_id in game_ids():
        name = short_name(game_id)
        if name not in _registered:
            pyspiel.register_game(classes.game_type(game_id), classes.game_class(game_id))
            _registered.add(name)
    return [short_name(game_id) for game_id in game_ids()]


def load(game_id: str, **options: Any) -> Any:
    """The ``pyspiel.Game`` of a boardlab game (``<id>`` or ``boardlab_<id>``) with the
    given options, as Python values or as text (``stones="6"``), checked by boardlab."""
    register()
    bare = game_id[len(PREFIX) :] if game_id.startswith(PREFIX) else game_id
    cls = game_class(bare)
    resolved = cls.schema.resolve(options, cls.id)
    return _pyspiel().load_game(short_name(cls.id), cls.schema.non_default(resolved))


def boardlab_position(state: Any) -> Position[Any]:
    """The boardlab ``Position`` of an OpenSpiel state of one of these games."""
    node: _Node = state._node
    return Position(node.game, node.state)


# ---------------------------------------------------------------------- the state payload
class _Node:
    """A boardlab game and one of its states, with its legal actions once computed.

    This is the only Python attribute of an OpenSpiel state. pyspiel clones a Python state
    by deep-copying its attributes, so the node, immutable, copies as itself; pyspiel
    serializes a state by pickling them, so the node pickles as its game's id, options
    and position string.
    """

    __slots__ = ("_legal", "game", "state")

    def __init__(self, game: Game[Any], state: Any) -> None:
        self.game = game
        self.state = state
        self._legal: list[int] | None = None

    def legal(self) -> list[int]:
        if self._legal is None:
            self._legal = self.game.legal_actions(self.state)
        return self._legal

    def __deepcopy__(self, memo: dict[int, Any]) -> _Node:
        return self

    def __reduce__(self) -> tuple[Callable[..., _Node], tuple[Any, ...]]:
        options = tuple(sorted(self.game.options.items()))
        return _node_from_text, (self.game.id, options, self.game.format_state(self.state))


@functools.cache
def _boardlab_game(game_id: str, options: tuple[tuple[str, Any], ...]) -> Game[Any]:
    return new_game(game_id, dict(options))


def _node_from_text(game_id: str, options: tuple[tuple[str, Any], ...], text: str) -> _Node:
    game = _boardlab_game(game_id, options)
    return _Node(game, game.parse_state(text))


# ---------------------------------------------------------------------- the pyspiel classes
def __getattr__(name: str) -> Any:
    """``OpenSpielGame``, ``OpenSpielState`` and the game classes (``OpenSpiel<Class>``),
    made on first use; pickle finds them here. Asking for one registers the games."""
    if name.startswith("OpenSpiel"):
        register()
        classes = _classes()
        found = {"OpenSpielGame": classes.Game, "OpenSpielState": classes.State}
        for game_id in game_ids():
            cls = classes.game_class(game_id)
            found[cls.__name__] = cls
        if name in found:
            return found[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _pyspiel() -> Any:
    return import_extra("pyspiel", "boardlab.rl.openspiel")


@functools.cache
def _classes() -> Any:
    """The pyspiel subclasses, made on first use so that pyspiel is imported lazily."""
    _pyspiel()  # the clear error if OpenSpiel is missing
    import numpy as np
    import pyspiel  # type: ignore[import-not-found, unused-ignore]

    terminal = pyspiel.PlayerId.TERMINAL

    def game_type(game_id: str) -> Any:
        cls = game_class(game_id)
        return pyspiel.GameType(
            short_name=short_name(game_id),
            long_name=f"boardlab {cls.name}",
            dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
            chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
            information=pyspiel.GameType.Information.PERFECT_INFORMATION,
            utility=pyspiel.GameType.Utility.ZERO_SUM,
            reward_model=pyspiel.GameType.RewardModel.TERMINAL,
            max_num_players=2,
            min_num_players=2,
            provides_information_state_string=True,
            provides_information_state_tensor=False,
            provides_observation_string=True,
            provides_observation_tensor=True,
            parameter_specification={option.name: option.default for option in cls.schema},
        )

    class OpenSpielGame(pyspiel.Game):  # type: ignore[misc]
        """A boardlab game with its options, as a ``pyspiel.Game``; one subclass a game."""

        game_id = ""

        def __init__(self, params: dict[str, Any] | None = None) -> None:
            game_id = self.game_id
            try:
                game = game_class(game_id)(dict(params or {}))
            except BoardlabError as error:
                raise OptionError(
                    _("{game}: {error}").format(game=short_name(game_id), error=error)
                ) from None
            info = pyspiel.GameInfo(
                num_distinct_actions=game.num_actions,
                max_chance_outcomes=0,
                num_players=2,
                min_utility=-1.0,
                max_utility=1.0,
                utility_sum=0.0,
                max_game_length=game.max_actions,
            )
            super().__init__(game_type(game_id), info, dict(game.options))
            self.boardlab_game = game
            self.start = _Node(game, game.initial_state())
            self.tensor_size = len(game.observation(self.start.state))

        def new_initial_state(self, position: str | None = None) -> OpenSpielState:
            """The start position, or the position a position string describes."""
            if position is None:
                return OpenSpielState(self, self.start)
            if not isinstance(position, str):
                raise TypeError(
                    _("{game}: a state is made from a position string, not from {kind}").format(
                        game=short_name(self.boardlab_game.id), kind=type(position).__name__
                    )
                )
            game = self.boardlab_game
            return OpenSpielState(self, _Node(game, game.parse_state(position)))

        def make_py_observer(
            self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
        ) -> Observer:
            return Observer(self, params)

    class OpenSpielState(pyspiel.State):  # type: ignore[misc]
        """A position of a boardlab game, as a ``pyspiel.State``."""

        def __init__(self, game: OpenSpielGame, node: _Node) -> None:
            super().__init__(game)
            self._node = node

        def current_player(self) -> int:
            node = self._node
            return node.game.to_act(node.state) if node.legal() else terminal

        def _legal_actions(self, player: int) -> list[int]:
            # pyspiel asks only for the player to act (others have none; it says so).
            return self._node.legal()

        def _apply_action(self, action: int) -> None:
            node = self._node
            if action not in node.legal():
                Position(node.game, node.state).play(int(action))  # raises, saying why
            self._node = _Node(node.game, node.game.apply(node.state, action))

        def _action_to_string(self, player: int, action: int) -> str:
            node = self._node
            return node.game.format_action(node.state, action)

        def is_terminal(self) -> bool:
            return not self._node.legal()

        def returns(self) -> list[float]:
            node = self._node
            if node.legal():
                return [0.0, 0.0]
            outcome = node.game.outcome_of(node.state)
            assert outcome is not None
            if outcome.winner is None:
                return [0.0, 0.0]
            return [1.0, -1.0] if outcome.winner == 0 else [-1.0, 1.0]

        def position(self) -> Position[Any]:
            """This state as a boardlab ``Position``."""
            return Position(self._node.game, self._node.state)

        def __str__(self) -> str:
            node = self._node
            return node.game.format_state(node.state)

    class Observer:
        """The observer of both players (the information is perfect): the position
        string, and the game's observation from the observing player's side."""

        def __init__(self, game: OpenSpielGame, params: dict[str, Any] | None) -> None:
            if params:
                raise ValueError(
                    _("{game}: observation parameters are not supported; got {params}").format(
                        game=short_name(game.boardlab_game.id), params=params
                    )
                )
            self.game = game.boardlab_game
            self.tensor = np.zeros(game.tensor_size, np.float32)
            self.dict = {"observation": self.tensor}

        def set_from(self, state: OpenSpielState, player: int) -> None:
            self.tensor[:] = self.game.observation(state._node.state, player)

        def string_from(self, state: OpenSpielState, player: int) -> str:
            return str(state)

    def game_subclass(game_id: str) -> type[OpenSpielGame]:
        # The creator pyspiel keeps is a class, as in OpenSpiel's own Python games: pyspiel
        # drops its reference after Python has shut down, which a class (unlike a function)
        # survives.
        name = f"OpenSpiel{game_class(game_id).__name__}"
        return type(name, (OpenSpielGame,), {"game_id": game_id, "__qualname__": name})

    # Named as module attributes (see ``__getattr__``) so that pickle finds them.
    OpenSpielGame.__qualname__ = "OpenSpielGame"
    OpenSpielState.__qualname__ = "OpenSpielState"
    return SimpleNamespace(
        Game=OpenSpielGame,
        State=OpenSpielState,
        game_type=game_type,
        game_class=functools.cache(game_subclass),
    )
