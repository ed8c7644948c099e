"""The game-agnostic model: a ``Game`` (rules bound to options) and its ``Position`` values.

A game subclass implements its rules as methods over a compact, immutable *state* (a
NamedTuple of small integers), which is what search code and compiled kernels work on.
``Position`` wraps a state with its game and is the checked, friendly face: legal actions,
``play`` that refuses illegal actions, text forms, the outcome.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, ClassVar, Generic, NamedTuple, Protocol, TypeVar

from boardlab.core.board import ActionParts, Board, Note
from boardlab.core.editing import SWITCH as SWITCH
from boardlab.core.editing import EditTool as EditTool
from boardlab.core.errors import IllegalActionError, InvalidNotationError, clipped
from boardlab.core.fields import read_choice, split_fields
from boardlab.core.i18n import N_, _, noun, pgettext
from boardlab.core.options import OptionSchema, OptionValue

State = TypeVar("State", bound=Hashable)
#: The rules a game binds from its options, the last argument of its engine's functions.
BoundRules = TypeVar("BoundRules")


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended: the winner (a player index, None for a draw), both
    players' points in the order of the position string, and the reason word."""

    winner: int | None
    points: tuple[int, int]
    reason: str
    players: tuple[str, str]

    @property
    def winner_name(self) -> str:
        return "draw" if self.winner is None else self.players[self.winner]

    def summary(self) -> str:
        """``winner=<player|draw> points=<first>/<second> reason=<word>``."""
        return (
            f"winner={self.winner_name} points={self.points[0]}/{self.points[1]} "
            f"reason={self.reason}"
        )

    def sentence(
        self,
        reasons: Callable[[str], str] | None = None,
        names: Sequence[str] | None = None,
    ) -> str:
        """The result as a person reads it: ``North wins: resignation (South 5, North
        4).`` (``reasons`` turns the reason word into words, as ``Game.reason_words``;
        ``names`` are the players as shown, as ``Game.player_name`` gives them)."""
        shown = list(names) if names else [name.capitalize() for name in self.players]
        points = ", ".join(
            f"{name} {score}" for name, score in zip(shown, self.points, strict=True)
        )
        why = reasons(self.reason) if reasons else self.reason
        if self.winner is None:
            return _("Draw: {why} ({points}).").format(why=why, points=points)
        return _("{player} wins: {why} ({points}).").format(
            player=shown[self.winner], why=why, points=points
        )

    def score(self, player: int) -> float:
        """1 for a win, 0.5 for a draw, 0 for a loss, from ``player``'s side."""
        if self.winner is None:
            return 0.5
        return 1.0 if self.winner == player else 0.0


class Feature(NamedTuple):
    """One stretch of a game's observation vector: ``size`` numbers called ``name``,
    whose ``meaning`` the game card's observation table repeats."""

    name: str
    size: int
    meaning: str


def flat_fields(value: Any) -> list[float]:
    """Every number in ``value`` (nested tuples flattened), as floats; a number too
    large to be exact as a float32 is refused."""
    if isinstance(value, tuple):
        return [number for item in value for number in flat_fields(item)]
    number = int(value)
    if abs(number) >= 1 << 24:
        raise ValueError(f"state field {number} is too large for a float tensor")
    return [float(number)]


class Game(ABC, Generic[State]):
    """A game with its options fixed. Immutable; equal when the id and options are equal.

    Besides its rules a game declares, in one place, everything the tools around it need
    (the CLI, terminal play, agents, solvers, the browser, the RL adapters): they read
    these declarations and never name a game.
    """

    id: ClassVar[str]
    name: ClassVar[str]
    players: ClassVar[tuple[str, str]]
    schema: ClassVar[OptionSchema]
    summary: ClassVar[str]
    #: The rules in brief, a few paragraphs of plain text for ``boardlab rules``; ``{name}``
    #: fields are filled with the options in force (``rules_in_brief``).
    brief: ClassVar[str]

    # ------------------------------------------------------------------ declarations
    #: The players' colours (CSS hex), chosen so that colour-blind players tell them apart.
    colours: ClassVar[tuple[str, str]] = ("#0072b2", "#e69f00")
    #: The players as people read them, marked for the catalogue (``N_("South")``); by
    #: default the player names capitalised. Shown through ``player_name``.
    player_names: ClassVar[tuple[str, str] | tuple[()]] = ()
    #: The unit of points, singular and plural (``noun("point", "points")``).
    point_words: ClassVar[tuple[str, str]] = noun("point", "points")
    #: Its kinds of piece (``Piece.kind`` of the board model) in words, for one and for
    #: more, marked ``(Np_("piece", "stone"), Np_("pieces", "stones"))``: what the title
    #: of a place says stands on it (``piece_word``). A kind missing reads as its id.
    piece_words: ClassVar[Mapping[str, tuple[str, str]]] = MappingProxyType({})
    #: Every reason word of an outcome, in words (``resign`` is common to all games).
    reasons: ClassVar[Mapping[str, str]] = MappingProxyType({})
    #: The kinds of its narration (``Note.kind``) a player would name a move by, in
    #: words marked with ``N_``: the puzzles' themes. A kind missing is shown as its id.
    note_words: ClassVar[Mapping[str, str]] = MappingProxyType({})
    #: A sentence for a UI's help on how this game's actions may be typed, or empty.
    input_hint: ClassVar[str] = ""
    #: The module of the compiled kernel (see ``boardlab.fast``), or None.
    kernel: ClassVar[str | None] = None
    #: The perft depth from which the compiled kernel beats the Python rules.
    compiled_perft_from: ClassVar[int] = 8
    #: The exact solver, ``module:Class`` (a ``boardlab.solve.Solver``), or None.
    solver: ClassVar[str | None] = None
    #: A search that proves forced wins, for a game without a solver: ``module:Class``
    #: (``turns(state, player, horizon)``, ``horizon``, ``goal()``; see
    #: ``boardlab.puzzles.wins``), or None. The puzzles are proven by it.
    wins: ClassVar[str | None] = None
    #: Levels this game plays with another agent spec than the common table, and those
    #: it plays so only with the compiled kernels (``boardlab.ai.levels``).
    levels: ClassVar[Mapping[str, str]] = MappingProxyType({})
    compiled_levels: ClassVar[Mapping[str, str]] = MappingProxyType({})
    #: The palette of the position editor (``edit_tools``): empty for a game without one.
    edit_palette: ClassVar[tuple[EditTool, ...]] = ()
    #: The options a variant study (``boardlab study``) compares when none are named:
    #: those that change how the game plays and have a few values each. Not ``first``
    #: (it only swaps the names) nor caps such as ``max_turns``.
    study_options: ClassVar[tuple[str, ...]] = ()

    def __init__(self, options: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        given = dict(options or {})
        given.update(kwargs)
        self.options: Mapping[str, OptionValue] = MappingProxyType(
            self.schema.resolve(given, self.id)
        )

    # ------------------------------------------------------------------ static facts
    @property
    @abstractmethod
    def num_actions(self) -> int:
        """Size of the action space: every action is an int in ``range(num_actions)``."""

    @property
    @abstractmethod
    def max_actions(self) -> int:
        """An upper bound on the number of actions in one game under these options."""

    # ------------------------------------------------------------------ rules over states
    @abstractmethod
    def initial_state(self) -> State: ...

    @abstractmethod
    def legal_actions(self, state: State) -> list[int]:
        """The legal actions, ascending; empty exactly when the game is over."""

    @abstractmethod
    def apply(self, state: State, action: int) -> State:
        """The state after ``action``, which must be legal (not checked: the fast path)."""

    @abstractmethod
    def outcome_of(self, state: State) -> Outcome | None:
        """The outcome if the game is over in ``state``, else None."""

    @abstractmethod
    def to_act(self, state: State) -> int:
        """Index of the player to act (0 = the first of ``players``)."""

    @abstractmethod
    def phase(self, state: State) -> str:
        """The phase letter(s) of the position string."""

    @abstractmethod
    def points(self, state: State) -> tuple[int, int]:
        """Both players' current points, in the order of the position string."""

    @abstractmethod
    def turns(self, state: State) -> int:
        """The TURNS field: turns completed (in this round, for a game of rounds)."""

    # ------------------------------------------------------------------ text
    @abstractmethod
    def format_state(self, state: State) -> str: ...

    @abstractmethod
    def parse_state(self, text: str, check: bool = True) -> State:
        """The state of a position string; InvalidNotationError if malformed.

        With ``check`` (the default) a position the rules could never reach is refused
        too (InvalidNotationError, ``impossible position string ...``): wrong counts of
        pieces, more stones or seeds than the game has, a phase that cannot be due...
        With ``check=False`` those rule checks are skipped and only the format is read,
        so that a position being set up on the editor (a koi lifted before it is put
        elsewhere) can still be drawn: ``board_model`` and ``due`` work on such a state,
        and ``parse_state(text)`` says why it is not yet legal. ``legal_actions``,
        ``apply`` and the agents are never asked of an unchecked state: what they do with
        an impossible one is undefined. For a legal string both reads give the same state.
        """

    @abstractmethod
    def format_action(self, state: State, action: int) -> str: ...

    @abstractmethod
    def parse_action(self, state: State, text: str) -> int:
        """The action ``text`` names in ``state``: InvalidNotationError if it is not an
        action string; IllegalActionError if it names a move that cannot exist here."""

    @abstractmethod
    def render(self, state: State) -> str:
        """The board as plain text."""

    # ------------------------------------------------------------------ presentation
    @abstractmethod
    def board_model(self, state: State) -> Board:
        """The board of ``state`` for renderers: places, pieces, tallies, what is due."""

    @abstractmethod
    def action_parts(self, state: State, action: int) -> ActionParts:
        """The anatomy of a legal ``action``: its kind and the places it involves."""

    @abstractmethod
    def due(self, state: State) -> str:
        """What the player to act must do, in a few words (``swim or jump``)."""

    # ------------------------------------------------------------------ position editor
    def edit_tools(self) -> tuple[EditTool, ...]:
        """The palette of the position editor (an analysis board sets up any position
        with it): ``edit_palette``, empty for a game without an editor."""
        return self.edit_palette

    def edit(self, text: str, tool: str, place: str | None = None) -> str:
        """The position string ``text`` changed by ``tool`` at ``place`` (a place's name in
        the board model), NOT checked against the rules: a position being set up passes
        through impossible ones, and the parser judges the finished string. Raises
        InvalidNotationError for a string that cannot be read at all, an unknown tool, or
        a place the tool does not change."""
        tools = self.edit_tools()
        chosen = next((t for t in tools if t.id == tool), None)
        if chosen is None:
            if not tools:
                raise InvalidNotationError(
                    _(
                        "{game} has no position editor: no tool {tool!r} for position {text!r}"
                    ).format(game=self.id, tool=clipped(tool), text=clipped(text))
                )
            raise InvalidNotationError(
                _(
                    "unknown edit tool {tool!r} for {game} position {text!r}: the tools are {tools}"
                ).format(
                    tool=clipped(tool),
                    game=self.id,
                    text=clipped(text),
                    tools=", ".join(t.id for t in tools),
                )
            )
        places = [name for name, kind in self.edit_places(text).items() if kind in chosen.kinds]
        if not chosen.kinds and place is not None:
            raise InvalidNotationError(
                _(
                    "edit tool {tool!r} changes the whole {game} position {text!r} "
                    "and takes no place, not {place!r}"
                ).format(tool=tool, game=self.id, text=clipped(text), place=clipped(place))
            )
        if chosen.kinds and place is None:
            raise InvalidNotationError(
                _(
                    "edit tool {tool!r} needs a place ({kinds}) of {game} position {text!r}: "
                    "one of {places}"
                ).format(
                    tool=tool,
                    kinds=", ".join(chosen.kinds),
                    game=self.id,
                    text=clipped(text),
                    places=", ".join(places),
                )
            )
        if chosen.kinds and place not in places:
            raise InvalidNotationError(
                _(
                    "edit tool {tool!r} changes a place ({kinds}) of {game} position {text!r}, "
                    "not {place!r}: the places are {places}"
                ).format(
                    tool=tool,
                    kinds=", ".join(chosen.kinds),
                    game=self.id,
                    text=clipped(text),
                    place=clipped(place),
                    places=", ".join(places),
                )
            )
        return self.apply_edit(text, chosen, place)

    def edit_places(self, text: str) -> Mapping[str, str]:
        """The places of the board ``text`` shows, name to kind, read without the rules
        (an impossible position has them too); InvalidNotationError if ``text`` cannot be
        read. A game with edit tools implements it."""
        raise NotImplementedError(f"{self.id} declares edit tools but no edit_places")

    def apply_edit(self, text: str, tool: EditTool, place: str | None) -> str:
        """``Game.edit`` once the tool and the place are checked: the string surgery."""
        raise NotImplementedError(f"{self.id} declares edit tools but no apply_edit")

    def narrate(self, state: State, action: int) -> list[Note]:
        """What a legal ``action`` does, as notes a renderer turns into sentences; a game
        overrides this to explain its rules as they happen."""
        player = self.player_name(self.to_act(state))
        shown = self.format_action(state, action)
        return [Note("play", _("{player} plays {action}."), {"player": player, "action": shown})]

    def evaluate(self, state: State, player: int) -> float:
        """How the game stands for ``player``, in (-0.9, 0.9), for the searching agents
        (a proven win or loss counts 1 or -1, always more). By default the point
        difference; a game with a better estimate overrides it."""
        points = self.points(state)
        return 0.9 * math.tanh((points[player] - points[1 - player]) / 10.0)

    def observation(self, state: State, player: int | None = None) -> list[float]:
        """The state as ``player`` (by default the player to act) sees it: a flat vector
        of numbers for learning agents (OpenSpiel, PettingZoo, Gymnasium), laid out as
        ``observation_layout`` says. The games scale every number into [0, 1]; by default
        (a game that declares none) it is every field of the state as it is."""
        return flat_fields(state)

    def observation_layout(self) -> tuple[Feature, ...]:
        """The stretches of ``observation``, in order; their sizes add up to its length."""
        size = len(self.observation(self.initial_state()))
        return (Feature("fields", size, "every field of the state, in order"),)

    @classmethod
    def reason_words(cls, reason: str) -> str:
        """Why a game ended, in words (the game's ``reasons`` are marked with ``N_``)."""
        ended = {
            "resign": N_("resignation"),
            "forfeit": N_("forfeit (the player's program failed)"),
            "time": N_("time (the clock ran out)"),
            "abandoned": N_("abandonment (the player left the game)"),
            "agreement": N_("a draw agreed by both players"),
        }
        return _(ended.get(reason) or cls.reasons.get(reason, reason))

    @classmethod
    def piece_word(cls, kind: str, count: int) -> str:
        """A kind of piece in words, for one (``count`` 1) or more, in the current
        language (``piece_words``); a kind the game does not word reads as its id
        (``mark``, ``marks``)."""
        words = cls.piece_words.get(kind)
        if words is None:
            return kind if count == 1 else kind + "s"
        return pgettext("piece", words[0]) if count == 1 else pgettext("pieces", words[1])

    @classmethod
    def side_word(cls, player: int) -> str:
        """A player inside a message as the position string and options spell it
        (``south``), in the current language (the game marks these words with
        ``Np_("player", ...)``)."""
        return pgettext("player", cls.players[player])

    @staticmethod
    def end_word(reason: str) -> str:
        """The reason word of an end as the board text shows it, in the current language
        (marked by the game with ``Np_("reason", ...)``)."""
        return pgettext("reason", reason)

    @classmethod
    def over_line(cls, outcome: Outcome) -> str:
        """The last line of the text board of a finished game: ``Game over (target):
        red`` (reason and winner as data spells them, in the current language)."""
        reason = cls.end_word(outcome.reason)
        if outcome.winner is None:
            return _("Game over ({reason}): draw").format(reason=reason)
        return _("Game over ({reason}): {winner}").format(
            reason=reason, winner=cls.side_word(outcome.winner)
        )

    @classmethod
    def player_name(cls, player: int) -> str:
        """A player as people read it, in the current language: ``South``, ``Süd``."""
        names = cls.player_names or tuple(name.capitalize() for name in cls.players)
        return _(names[player])

    # ------------------------------------------------------------------ public face
    def initial(self) -> Position[State]:
        """The start position under these options."""
        return Position(self, self.initial_state())

    def from_position_string(self, text: str) -> Position[State]:
        """The position a position string describes (the format of the game card)."""
        return Position(self, self.parse_state(text))

    def rules_in_brief(self) -> str:
        """The rules in brief under these options (``{pits}`` becomes the number of pits),
        in the current language."""
        return _(self.brief).strip().format_map(self.options)

    def non_default_options(self) -> dict[str, OptionValue]:
        return self.schema.non_default(self.options)

    def effective_options(self) -> dict[str, OptionValue]:
        """The options as they decide play: an option that the others leave idle (a
        rule of a ruleset not in force) is given its default, so two games with equal
        effective options play alike and a study plays only one of them."""
        return dict(self.options)

    def option_assignments(self) -> list[str]:
        """Non-default options as ``key=value`` texts, in schema order."""
        return [
            f"{name}={self.schema.get(name).format(value)}"
            for name, value in self.non_default_options().items()
        ]

    def _key(self) -> tuple[str, tuple[tuple[str, OptionValue], ...]]:
        return (self.id, tuple(sorted(self.options.items())))

    def __eq__(self, other: object) -> bool:
        # the same object at once: a record checks its start's game at every copy
        return other is self or (isinstance(other, Game) and self._key() == other._key())

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        args = "".join(f", {a}" for a in self.option_assignments())
        return f"<Game {self.id}{args}>"


class TurnState(Hashable, Protocol):
    """A state that says who acts and how many turns are done, as fields."""

    @property
    def side(self) -> int: ...

    @property
    def turns(self) -> int: ...


Turned = TypeVar("Turned", bound=TurnState)
_Seen = TypeVar("_Seen", contravariant=True)
_Bound = TypeVar("_Bound", contravariant=True)


class Engine(Protocol[Turned, _Bound]):
    """A game's rules as a module of plain functions over its states (``rules.py``), each
    taking the rules bound from the options last."""

    def legal_actions(self, state: Turned, rules: _Bound, /) -> list[int]: ...

    def apply(self, state: Turned, action: int, rules: _Bound, /) -> Turned: ...

    def end_reason(self, state: Turned, rules: _Bound, /) -> str | None:
        """Why the game is over in ``state`` (a reason word of the game), or None."""


class Presenter(Protocol[_Seen]):
    """A game's presentation as a module of functions (``present.py``): the board model,
    the anatomy of actions, narration, evaluation and the observation."""

    def board_model(self, game: Any, state: _Seen, /) -> Board: ...

    def action_parts(self, state: _Seen, action: int, /) -> ActionParts: ...

    def narrate(self, game: Any, state: _Seen, action: int, /) -> list[Note]: ...

    def evaluate(self, game: Any, state: _Seen, player: int, /) -> float: ...

    def observation(self, game: Any, state: _Seen, player: int, /) -> list[float]: ...

    def observation_layout(self, game: Any, /) -> tuple[Feature, ...]: ...


class ModuleGame(Game[Turned], Generic[Turned, BoundRules]):
    """A game whose rules are an engine module and whose presentation a presenter module:
    the class names both (``engine = rules``, ``presenter = present``), binds the
    engine's rules from the options once (``bind_rules``), and holds only what differs
    from game to game: its declarations, text forms, drawing and checks, and any of
    these methods its rules need otherwise. Each method here is one call into a module:
    search and playouts call ``legal_actions`` and ``apply`` millions of times."""

    engine: Engine[Turned, BoundRules]
    presenter: Presenter[Turned]
    #: The fields of the position string, as errors name them, one of them ``SIDE``, and
    #: the letters of the players in it: the editor reads them and switches the side.
    position_fields: ClassVar[tuple[str, ...]]
    side_letters: ClassVar[tuple[str, str]]

    def __init__(self, options: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        super().__init__(options, **kwargs)
        self.rules: BoundRules = self.bind_rules()

    @abstractmethod
    def bind_rules(self) -> BoundRules:
        """The engine's rules under these options (``self.options``), bound once."""

    # ------------------------------------------------------------------ rules
    def legal_actions(self, state: Turned) -> list[int]:
        return self.engine.legal_actions(state, self.rules)

    def apply(self, state: Turned, action: int) -> Turned:
        return self.engine.apply(state, action, self.rules)

    def outcome_of(self, state: Turned) -> Outcome | None:
        reason = self.engine.end_reason(state, self.rules)
        if reason is None:
            return None
        points = self.final_points(state)
        return Outcome(self.winner_of(state, reason, points), points, reason, self.players)

    def final_points(self, state: Turned) -> tuple[int, int]:
        """The points a finished game counts: by default ``points``."""
        return self.points(state)

    def winner_of(self, state: Turned, reason: str, points: tuple[int, int]) -> int | None:
        """Who won a game that ended for ``reason`` with ``points``: by default the one
        with more points, nobody (a draw) if they are equal."""
        first, second = points
        return 0 if first > second else 1 if second > first else None

    def to_act(self, state: Turned) -> int:
        return state.side

    def turns(self, state: Turned) -> int:
        return state.turns

    # ------------------------------------------------------------------ presentation
    def board_model(self, state: Turned) -> Board:
        return self.presenter.board_model(self, state)

    def action_parts(self, state: Turned, action: int) -> ActionParts:
        return self.presenter.action_parts(state, action)

    def narrate(self, state: Turned, action: int) -> list[Note]:
        return self.presenter.narrate(self, state, action)

    def evaluate(self, state: Turned, player: int) -> float:
        return self.presenter.evaluate(self, state, player)

    def observation(self, state: Turned, player: int | None = None) -> list[float]:
        seen = state.side if player is None else player
        return self.presenter.observation(self, state, seen)

    def observation_layout(self) -> tuple[Feature, ...]:
        return self.presenter.observation_layout(self)

    # ------------------------------------------------------------------ position editor
    def edit_fields(self, text: str) -> list[str]:
        """The fields of ``text`` as the editor reads them: the side must be readable;
        the game reads the fields it changes, and keeps the others as they are."""
        fields = split_fields(text, self.position_fields, self.id)
        read_choice(fields[self.position_fields.index("SIDE")], "SIDE", text, self.side_letters)
        return fields

    def apply_edit(self, text: str, tool: EditTool, place: str | None) -> str:
        """The switch gives the move to the other player; every other tool changes the
        board (``edit_board``)."""
        fields = self.edit_fields(text)
        if tool.effect == "switch":
            side = self.position_fields.index("SIDE")
            fields[side] = self.side_letters[1 - self.side_letters.index(fields[side])]
        else:
            assert place is not None  # Game.edit checked it: every such tool has a place
            self.edit_board(fields, tool, place, text)
        return " ".join(fields)

    def edit_board(self, fields: list[str], tool: EditTool, place: str, text: str) -> None:
        """Change ``fields`` (of the position string ``text``) in place as ``tool`` does
        at ``place``, unchecked: a game with edit tools implements it."""
        raise NotImplementedError(f"{self.id} declares edit tools but no edit_board")


#: The longest action string any game writes, with room to spare (a record's and a
#: database's bound too).
MAX_ACTION_TEXT = 64


class Position(Generic[State]):
    """An immutable, hashable position of a game: a state and the rules it is read with."""

    __slots__ = ("_legal", "_string", "game", "state")

    game: Game[State]
    state: State
    _legal: tuple[int, ...] | None
    _string: str | None

    def __init__(self, game: Game[State], state: State) -> None:
        object.__setattr__(self, "game", game)
        object.__setattr__(self, "state", state)
        object.__setattr__(self, "_legal", None)
        object.__setattr__(self, "_string", None)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a Position is immutable: cannot set {name!r}")

    # ------------------------------------------------------------------ facts
    @property
    def to_act(self) -> int:
        """Index of the player to act."""
        return self.game.to_act(self.state)

    @property
    def player(self) -> str:
        """Name of the player to act."""
        return self.game.players[self.to_act]

    @property
    def phase(self) -> str:
        return self.game.phase(self.state)

    @property
    def points(self) -> tuple[int, int]:
        return self.game.points(self.state)

    @property
    def turns(self) -> int:
        return self.game.turns(self.state)

    def legal_actions(self) -> tuple[int, ...]:
        if self._legal is None:
            object.__setattr__(self, "_legal", tuple(self.game.legal_actions(self.state)))
        assert self._legal is not None
        return self._legal

    def legal_action_strings(self) -> list[str]:
        return [self.game.format_action(self.state, a) for a in self.legal_actions()]

    def is_legal(self, action: int) -> bool:
        return action in self.legal_actions()

    def is_over(self) -> bool:
        return not self.legal_actions()

    def outcome(self) -> Outcome | None:
        """The outcome of a finished game, None while it goes on."""
        return self.game.outcome_of(self.state)

    # ------------------------------------------------------------------ playing
    def play(self, action: int | str) -> Position[State]:
        """The position after ``action`` (an int or an action string), checked."""
        code = self.parse_action(action) if isinstance(action, str) else action
        if not self.is_legal(code):
            raise self._illegal(repr(code) if isinstance(action, int) else repr(action))
        return Position(self.game, self.game.apply(self.state, code))

    def play_unchecked(self, action: int) -> Position[State]:
        """The position after a legal ``action``; an illegal one gives an undefined state."""
        return Position(self.game, self.game.apply(self.state, action))

    def play_all(self, actions: Sequence[int | str]) -> Position[State]:
        position = self
        for action in actions:
            position = position.play(action)
        return position

    # ------------------------------------------------------------------ text
    def parse_action(self, text: str) -> int:
        """The legal action named by ``text``; a clear error if malformed or illegal."""
        if len(text) > MAX_ACTION_TEXT:  # refused unread: no message repeats all of it
            raise InvalidNotationError(
                _(
                    "invalid action {text!r}: too long ({count} characters), an action "
                    "string has at most {most}"
                ).format(text=clipped(text), count=len(text), most=MAX_ACTION_TEXT)
            )
        try:
            code = self.game.parse_action(self.state, text)
        except InvalidNotationError as error:
            raise InvalidNotationError(self._where(error)) from None
        except IllegalActionError as error:
            raise IllegalActionError(self._where(error)) from None
        if not self.is_legal(code):
            raise self._illegal(repr(clipped(text)))
        return code

    def action_string(self, action: int) -> str:
        return self.game.format_action(self.state, action)

    def position_string(self) -> str:
        """The position in notation, written once (a server names a position on its
        page, and again in the game's snapshot while its turn lasts)."""
        if self._string is None:
            object.__setattr__(self, "_string", self.game.format_state(self.state))
        assert self._string is not None
        return self._string

    def line_strings(self, actions: Sequence[int]) -> list[str]:
        """The strings of a line of actions from here (an agent's principal variation),
        as far as it stays legal."""
        words, position = [], self
        for action in actions:
            if action not in position.legal_actions():
                break
            words.append(position.action_string(action))
            position = position.play(action)
        return words

    def board(self) -> str:
        """The board drawn as plain text."""
        return self.game.render(self.state)

    def _where(self, error: Exception) -> str:
        return _("{error} (in position {position!r})").format(
            error=error, position=self.position_string()
        )

    def _illegal(self, shown: str) -> IllegalActionError:
        if self.is_over():
            message = _("illegal action {action} in {game} position {position!r}: the game is over")
        else:
            message = _(
                "illegal action {action} in {game} position {position!r}: legal actions are {legal}"
            )
        return IllegalActionError(
            message.format(
                action=shown,
                game=self.game.id,
                position=self.position_string(),
                legal=" ".join(self.legal_action_strings()),
            )
        )

    # ------------------------------------------------------------------ value semantics
    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and self.state == other.state and self.game == other.game

    def __hash__(self) -> int:
        return hash((self.game.id, self.state))

    def __str__(self) -> str:
        return self.position_string()

    def __repr__(self) -> str:
        return f"<Position {self.game.id} {self.position_string()!r}>"
