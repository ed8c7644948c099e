"""The conformance suite a game author runs on a new game: every promise of the core API
and of the declarations the tools rely on, checked over random games under random option
sets (pgx ships its ``api_test`` the same way).

>>> import boardlab
>>> from boardlab.testing import check_game
>>> check_game(boardlab.game_ids()[0], option_sets=2, games=1) > 0
True

``check_kernel`` does the same for a game's compiled kernel (``Game.kernel``, the
interface in ``boardlab.fast``): at every position of random games it must agree with the
engine, also as plain Python (``NUMBA_DISABLE_JIT=1``).

>>> from boardlab.testing import check_kernel
>>> check_kernel(boardlab.game_ids()[0], option_sets=2, games=1) > 0
True

A broken promise raises ``ConformanceError`` naming the game, its options, the position
string and what failed. Both return the number of positions they checked.
"""

from __future__ import annotations

import importlib
import random
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NoReturn

from boardlab.core.errors import IllegalActionError, OptionError
from boardlab.core.game import Game, Position
from boardlab.core.options import Option, OptionValue
from boardlab.core.record import GameRecord
from boardlab.core.registry import game_class, new_game
from boardlab.extras import import_extra

COLOUR = re.compile(r"#[0-9a-fA-F]{6}")


class ConformanceError(AssertionError):
    """A game broke a promise of the API."""


def check_game(
    game: str | type[Game[Any]], *, option_sets: int = 8, games: int = 3, seed: int = 0
) -> int:
    """Check the game class (or the registered game of that id): its static facts and
    options, then ``games`` random games under the default options and under each of
    ``option_sets`` - 1 random option sets. Returns the number of positions checked."""
    cls = game_class(game) if isinstance(game, str) else game
    check_static_facts(cls)
    check_options(cls)
    rng = random.Random(seed)
    checked = 0
    for options in [{}, *(random_options(cls, rng) for _ in range(option_sets - 1))]:
        instance = cls(options)
        check_value_semantics(instance)
        for _ in range(games):
            checked += check_random_game(instance, random.Random(rng.getrandbits(32)))
    return checked


def small_values(option: Option) -> tuple[OptionValue, ...]:
    """Values of an option that keep random games short and varied: both booleans,
    every choice, and the low end of an integer range with the default."""
    if option.kind == "bool":
        return (False, True)
    if option.kind == "choice":
        return option.choices
    low = option.low if option.low is not None else int(option.default)
    high = option.high if option.high is not None else int(option.default)
    return tuple(sorted({low, min(high, low + 2), int(option.default)}))


def random_options(cls: type[Game[Any]], rng: random.Random) -> dict[str, OptionValue]:
    return {option.name: rng.choice(small_values(option)) for option in cls.schema}


def fail(
    game: Game[Any] | type[Game[Any]], what: str, position: Position[Any] | None = None
) -> NoReturn:
    """Raise a ConformanceError that says where."""
    where = f"{game.id}"
    if isinstance(game, Game) and game.option_assignments():
        where += f" ({' '.join(game.option_assignments())})"
    if position is not None:
        where += f" at {position.position_string()!r}"
    raise ConformanceError(f"{where}: {what}")


def expect(condition: object, game: Any, what: str, position: Position[Any] | None = None) -> None:
    if not condition:
        fail(game, what, position)


# ---------------------------------------------------------------------- static facts
def check_static_facts(cls: type[Game[Any]]) -> None:
    expect(cls.id and cls.id == cls.id.lower() and cls.id.isidentifier(), cls, "id not a word")
    expect(game_class(cls.id) is cls, cls, "not registered under its id")
    expect(len(cls.players) == 2 and len(set(cls.players)) == 2, cls, "players not two names")
    expect(cls.name and cls.summary and cls.brief.strip(), cls, "name, summary or brief empty")
    expect(len(cls.colours) == 2, cls, "not a colour for each player")
    expect(all(COLOUR.fullmatch(c) for c in cls.colours), cls, "colours not #rrggbb")
    expect(cls.colours[0].lower() != cls.colours[1].lower(), cls, "both players one colour")
    expect(len(cls.point_words) == 2 and all(cls.point_words), cls, "point words missing")
    names = [option.name for option in cls.schema]
    expect(len(names) == len(set(names)), cls, "an option declared twice")
    for option in cls.schema:
        expect(option.description, cls, f"option {option.name!r} has no description")
    game = cls()
    expect(game.num_actions > 0 and game.max_actions > 0, cls, "no action space or length")


def check_options(cls: type[Game[Any]]) -> None:
    """Defaults are valid, every value round-trips through its text, and bad options are
    refused with an OptionError."""
    for option in cls.schema:
        expect(option.check(option.default) == option.default, cls, f"{option.name} default")
        for value in small_values(option):
            text = option.format(value)
            expect(option.parse(text) == value, cls, f"{option.name}={text} does not round-trip")
            expect(cls({option.name: text}).options[option.name] == value, cls, "text value")
        if option.kind == "int" and option.high is not None:
            refused(cls, {option.name: option.high + 1}, f"{option.name} above its range")
        refused(cls, {option.name: "not a value"}, f"{option.name}='not a value'")
    refused(cls, {"no_such_option": 1}, "an unknown option")


def refused(cls: type[Game[Any]], options: dict[str, Any], what: str) -> None:
    try:
        cls(options)
    except OptionError:
        return
    fail(cls, f"{what} was accepted")


def check_value_semantics(game: Game[Any]) -> None:
    again = new_game(game.id, dict(game.options))
    expect(game == again and hash(game) == hash(again), game, "equal options, unequal games")
    start = game.initial()
    expect(start == again.initial() and hash(start) == hash(again.initial()), game, "start")
    try:
        start.state = None
    except AttributeError:
        pass
    else:
        fail(game, "a position could be changed", start)


# ---------------------------------------------------------------------- random games
def check_random_game(game: Game[Any], rng: random.Random) -> int:
    """Play one uniformly random game, checking every position; the positions checked."""
    position = game.initial()
    record = GameRecord(game)
    count = 0
    while True:
        check_position(position, rng)
        count += 1
        if position.is_over():
            break
        action = rng.choice(position.legal_actions())
        check_narration(position, action)
        position = record.play(action)
        expect(len(record) <= game.max_actions, game, "longer than max_actions", position)
    check_outcome(position)
    check_record(record)
    return count


def check_position(position: Position[Any], rng: random.Random) -> None:
    game = position.game
    text = position.position_string()
    back = game.from_position_string(text)
    expect(back == position and hash(back) == hash(position), game, "string round trip", position)
    expect(back.position_string() == text, game, "position string not canonical", position)
    expect(isinstance(position.board(), str) and position.board(), game, "no text board", position)
    actions = position.legal_actions()
    expect(list(actions) == sorted(set(actions)), game, "legal actions not ascending", position)
    expect(all(0 <= a < game.num_actions for a in actions), game, "action out of range", position)
    expect(position.is_over() == (position.outcome() is not None), game, "over/outcome", position)
    expect(position.to_act in (0, 1), game, "to_act not 0 or 1", position)
    strings = position.legal_action_strings()
    expect(len(set(strings)) == len(strings), game, "two actions, one string", position)
    for action, string in zip(actions, strings, strict=True):
        expect(position.parse_action(string) == action, game, f"{string!r} round trip", position)
        expect(position.parse_action(string.upper()) == action, game, "case", position)
        expect(
            position.play_unchecked(action) == position.play(action), game, "unchecked", position
        )
    for action in rng.sample(range(game.num_actions), min(game.num_actions, 20)):
        if action not in actions:
            try:
                position.play(action)
            except IllegalActionError:
                continue
            fail(game, f"illegal action {action} was played", position)
    check_board(position)
    if not position.is_over():
        value = game.evaluate(position.state, position.to_act)
        expect(-1.0 < value < 1.0, game, f"evaluation {value} outside (-1, 1)", position)


def check_board(position: Position[Any]) -> None:
    """The board model and the anatomy of every legal action."""
    game = position.game
    board = game.board_model(position.state)
    over = position.is_over()
    expect(board.to_act == (None if over else position.to_act), game, "board's to_act", position)
    expect(bool(board.due) != over, game, "due words while playing, none at the end", position)
    expect(len(board.tallies) == 2, game, "tallies for both players", position)
    for place in board.places:
        inside = place.x >= 0 and place.x + place.width <= board.width
        inside = inside and place.y >= 0 and place.y + place.height <= board.height
        expect(inside, game, f"place {place.name!r} outside the grid", position)
    names = [place.name for place in board.playing_places()]
    expect(len(names) == len(set(names)), game, "two places, one name", position)
    clicks: dict[tuple[tuple[str, ...], int | None], int] = {}
    for action in position.legal_actions():
        parts = game.action_parts(position.state, action)
        shown = position.action_string(action)
        expect(parts.kind and parts.label, game, f"{shown}: no kind or label", position)
        for name in parts.places:
            expect(name in names, game, f"{shown}: place {name!r} not on the board", position)
        key = (parts.places, parts.owner)
        expect(key not in clicks, game, f"{shown} and another action: the same clicks", position)
        clicks[key] = action


def check_narration(position: Position[Any], action: int) -> None:
    game = position.game
    notes = game.narrate(position.state, action)
    shown = position.action_string(action)
    expect(notes, game, f"no narration of {shown}", position)
    after = position.play(action)
    names = {
        place.name
        for state in (position.state, after.state)
        for place in game.board_model(state).playing_places()
    }
    for note in notes:
        expect(str(note).strip(), game, f"an empty sentence narrating {shown}", position)
        for name in note.places:
            expect(name in names, game, f"narration of {shown}: no place {name!r}", position)


def check_outcome(position: Position[Any]) -> None:
    game = position.game
    outcome = position.outcome()
    assert outcome is not None
    expect(outcome.winner in (0, 1, None), game, "winner", position)
    expect(outcome.players == game.players, game, "outcome's players", position)
    expect(game.reason_words(outcome.reason) != outcome.reason, game, "reason in words", position)
    try:
        position.play(0)
    except IllegalActionError:
        return
    fail(game, "a finished game accepted an action", position)


def check_record(record: GameRecord) -> None:
    game = record.game
    for back in (
        GameRecord.from_text(record.to_text()),
        GameRecord.from_json(record.to_json()),
    ):
        same = back.action_strings() == record.action_strings()
        expect(same and back.position == record.position, game, "record round trip")
        expect(back.outcome() == record.outcome(), game, "record outcome")


# ---------------------------------------------------------------------- compiled kernels
#: How an option set is drawn for ``check_kernel`` (by default ``random_options``).
OptionDraw = Callable[[type[Game[Any]], random.Random], dict[str, OptionValue]]


def check_kernel(
    game: str | type[Game[Any]],
    *,
    option_sets: int = 8,
    games: int = 3,
    seed: int = 0,
    draw: OptionDraw = random_options,
    starts: Iterable[tuple[Mapping[str, OptionValue], str]] = (),
    depth: int = 2,
) -> int:
    """Check the game's compiled kernel against its engine: ``games`` random games under
    the default options and under each of ``option_sets`` - 1 option sets from ``draw``,
    then, from each of ``starts`` (options, position string), every position of the
    tree ``depth`` actions deep and ``games`` random games. At every position the kernel
    must agree with the engine (``KernelProbe.position``), and its fused ``playout``
    must play what the engine plays with the same choices (``KernelProbe.playout``).
    Returns the number of positions checked."""
    cls = game_class(game) if isinstance(game, str) else game
    expect(cls.kernel, cls, "no kernel declared")
    rng = random.Random(seed)
    checked = 0
    option_list = [{}, *(draw(cls, rng) for _ in range(option_sets - 1))][:option_sets]
    for options in option_list:
        instance = cls(options)
        for _ in range(games):
            checked += check_kernel_game(instance, random.Random(rng.getrandbits(32)))
    for assigned, text in starts:
        instance = cls(dict(assigned))
        probe = KernelProbe(instance)
        start = instance.parse_state(text)
        frontier = [start]
        for _ in range(depth):
            checked += len(frontier)
            frontier = [
                instance.apply(state, action)
                for state in frontier
                for action in probe.position(state)
            ]
        for _ in range(games):
            checked += check_kernel_game(instance, random.Random(rng.getrandbits(32)), start)
    return checked


def check_kernel_game(game: Game[Any], rng: random.Random, start: Any = None) -> int:
    """One uniformly random game from ``start`` (by default the start of the game), the
    kernel checked at every position; the fused playout from one random and its last
    position replayed by the engine. Returns the positions checked."""
    probe = KernelProbe(game)
    state = game.initial_state() if start is None else start
    states = [state]
    while legal := probe.position(state):
        state = game.apply(state, rng.choice(legal))
        states.append(state)
    for state in (rng.choice(states), states[-1]):
        probe.playout(state, rng.getrandbits(63))
    return len(states)


def check_kernel_position(game: Game[Any], state: Any) -> list[int]:
    """``KernelProbe.position``: the kernel at one position; the engine's legal actions."""
    return KernelProbe(game).position(state)


def check_playout(game: Game[Any], state: Any, seed: int) -> None:
    """``KernelProbe.playout``: the fused playout from ``state`` against the engine."""
    KernelProbe(game).playout(state, seed)


def result_code(game: Game[Any], state: Any) -> int:
    """The engine's outcome as the kernel's ``result`` says it: -1 on, 2 a draw, else
    the winner."""
    outcome = game.outcome_of(state)
    return -1 if outcome is None else 2 if outcome.winner is None else outcome.winner


class KernelProbe:
    """A game's kernel, its options array and buffers, compared with the engine."""

    def __init__(self, game: Game[Any]) -> None:
        expect(game.kernel, game, "no kernel declared")
        self.np = import_extra("numpy", "check_kernel")
        self.rng = import_extra("boardlab.fast.rng", "check_kernel")
        self.game = game
        self.kernel = importlib.import_module(str(game.kernel))
        self.p = self.kernel.params(game)
        self.out = self.np.full(self.kernel.MAX_LEGAL, -1, dtype=self.np.int64)

    def position(self, state: Any) -> list[int]:
        """The encoding round trip, the legal actions (the same ints in the same order,
        from ``legal`` and ``moves``), the result, the player to act, both players'
        observations (and evaluations, if the kernel has ``evaluate``), and the state
        after every legal action. Returns the engine's legal actions."""
        game, kernel, p, out, np = self.game, self.kernel, self.p, self.out, self.np
        where = Position(game, state)
        s = kernel.encode(game, state)
        before = s.copy()
        expect(kernel.decode(game, s) == state, game, "decode(encode(state)) differs", where)
        legal = game.legal_actions(state)
        got = out[: kernel.legal(s, p, out)].tolist()
        expect(got == legal, game, f"kernel legal {got}, engine {legal}", where)
        code, kernel_code = result_code(game, state), int(kernel.result(s, p))
        expect(kernel_code == code, game, f"kernel result {kernel_code}, engine {code}", where)
        if code == -1:
            if hasattr(kernel, "moves"):
                got = out[: kernel.moves(s, p, out)].tolist()
                expect(got == legal, game, f"kernel moves {got}, engine {legal}", where)
            player, kernel_player = game.to_act(state), int(kernel.to_act(s, p))
            expect(kernel_player == player, game, f"kernel to_act {kernel_player}", where)
        for seat in (0, 1):
            expected = game.observation(state, seat)
            seen = np.full(len(expected), np.nan)  # a number never written stays unequal
            kernel.observe(s, p, seat, seen)
            if seen.tolist() != expected:
                differ = [i for i, (a, b) in enumerate(zip(seen, expected, strict=True)) if a != b]
                fail(game, f"observation of player {seat} differs at {differ}", where)
            if code == -1 and hasattr(kernel, "evaluate"):
                value, engine_value = kernel.evaluate(s, p, seat), game.evaluate(state, seat)
                what = f"evaluation for player {seat}: kernel {value}, engine {engine_value}"
                expect(value == engine_value, game, what, where)
        expect(np.array_equal(s, before), game, "a query changed the state array", where)
        for action in legal:
            child = s.copy()
            kernel.apply(child, p, action)
            if kernel.decode(game, child) != game.apply(state, action):
                fail(game, f"state after {game.format_action(state, action)} differs", where)
        return legal

    def playout(self, state: Any, seed: int) -> None:
        """The kernel's ``playout`` from ``state`` against the engine making the same
        choices (the k-th legal action, k = ``fast.rng.below(g, count)``): the same
        result, number of actions, final state and generator state; the final array has
        no legal action and that result."""
        game, kernel, p, rng = self.game, self.kernel, self.p, self.rng
        s = kernel.encode(game, state)
        g_kernel, g_engine = rng.seeded(seed), rng.seeded(seed)
        code, actions = (int(x) for x in kernel.playout(s, p, g_kernel))
        end, played = state, 0
        while legal := game.legal_actions(end):
            end = game.apply(end, legal[rng.below(g_engine, len(legal))])
            played += 1
        where = Position(game, state)
        what = f"playout {seed}: kernel ({code}, {actions} actions), engine"
        engine = (result_code(game, end), played)
        expect((code, actions) == engine, game, f"{what} {engine}", where)
        expect(kernel.decode(game, s) == end, game, f"playout {seed} ends elsewhere", where)
        expect(g_kernel.tolist() == g_engine.tolist(), game, f"playout {seed}: generator", where)
        left = kernel.legal(s, p, self.out)
        expect(left == 0 and kernel.result(s, p) == code, game, f"playout {seed}: not over", where)
