"""The puzzle generator: positions from self-play where the solver proves that one action
is clearly best, with the solution tree, the themes and a first difficulty. It names no
game: every fact comes from the registry, the solver (``boardlab.solve``), the narration
and the levels. The rules it follows are in docs/puzzles.md.

The criterion, at a position where the solver's values reach (``exact_values``): sort
the legal actions' exact values; the *right* actions have the best value; an action is
*near* if it is not right but keeps the best result class (win, draw, loss: the sign of
the value) and falls short of the best by less than the margin; every other action is
*wrong*. The root of a puzzle has exactly one right action, no near one and at least one
wrong one. A later position where the solver acts is a step of the puzzle if it has no
near action and at least one wrong one (any number of right ones, all accepted);
otherwise the puzzle ends before it.

A game without a solver may declare a win search instead (``Game.wins``,
``boardlab.puzzles.wins``); its puzzles are forced wins. The root has exactly one action
that forces a win within the search's horizon H of the solver's own turns, every other
action proven not to; the least number of turns n in which it does is the puzzle's
horizon and value. The values that the criterion above then judges are, where the
solver acts with r of those turns left (the one he is in counting), r for an action that
still forces the win within them and 0 for one that does not: so every such action is
accepted, and the puzzle ends at the win. Where the opponent acts, a reply is worth -m,
m the solver's turns to the win after it: the best defence resists longest.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game, Position
from boardlab.core.i18n import _
from boardlab.puzzles.puzzle import Puzzle, Step, puzzle_id, read_puzzles, write_puzzles
from boardlab.puzzles.wins import searched, win_search_or_none
from boardlab.solve import exact_values, solver_class_or_none

#: The margin is this fraction of the pieces on the board at the start (at least
#: ``MIN_MARGIN`` points): an action that wins less than that much below the best, with
#: the same result class, is "as good" for a puzzle, so the position is none.
MARGIN_DIVISOR = 12
MIN_MARGIN = 2
#: A puzzle ends after the solver's third turn, or after six solver steps on a line
#: (a turn of several actions counts each action as a step).
MAX_SOLVER_TURNS = 3
MAX_SOLVER_STEPS = 6
#: The levels tried on a puzzle's first move, weakest first; each that fails adds
#: ``PER_LEVEL`` to ``BASE_RATING``.
TRIED_LEVELS = ("beginner", "easy", "medium", "hard", "expert")
BASE_RATING = 600
PER_LEVEL = 300
#: The self-play pairings, used in turn: game k is played by PAIRINGS[k % 5].
PAIRINGS = (
    ("beginner", "easy"),
    ("easy", "medium"),
    ("medium", "beginner"),
    ("easy", "hard"),
    ("medium", "medium"),
)


def scale(game: Game[Any]) -> int:
    """The game's scale in points: the pieces on the board at the start."""
    board = game.board_model(game.initial_state())
    return sum(piece.count for place in board.places for piece in place.pieces)


def margin(game: Game[Any]) -> int:
    """How much more than every other action the one right action must win, in points,
    where the result class does not already tell it apart."""
    return max(MIN_MARGIN, scale(game) // MARGIN_DIVISOR)


def result_class(value: int) -> int:
    """1 a win, 0 a draw, -1 a loss: the sign of an exact value."""
    return (value > 0) - (value < 0)


@dataclass(frozen=True)
class Verdict:
    """The legal actions of a position sorted by their exact values."""

    best: int
    right: tuple[int, ...]
    near: tuple[int, ...]
    wrong: tuple[int, ...]

    def is_step(self) -> bool:
        """A choice worth asking: nothing almost as good, something clearly worse."""
        return not self.near and bool(self.wrong)

    def is_puzzle(self) -> bool:
        """A puzzle's first choice: one right action, and a step."""
        return len(self.right) == 1 and self.is_step()


def judge(values: dict[int, int], points: int) -> Verdict:
    """Right, near and wrong actions by their values, with ``points`` the margin."""
    best = max(values.values())
    right, near, wrong = [], [], []
    for action in sorted(values):
        value = values[action]
        if value == best:
            right.append(action)
        elif result_class(value) == result_class(best) and best - value < points:
            near.append(action)
        else:
            wrong.append(action)
    return Verdict(best, tuple(right), tuple(near), tuple(wrong))


def best_defence(values: dict[int, int]) -> int:
    """The opponent's reply the puzzle plays: the best for him (the worst for the
    solver), the lowest action number among equals."""
    return min(values, key=lambda action: (-values[action], action))


def kinds(game: Game[Any], state: Any, action: int) -> set[str]:
    return {note.kind for note in game.narrate(state, action)}


def step_themes(game: Game[Any], state: Any, answers: tuple[int, ...]) -> set[str]:
    """The narration kinds of the right answers that not every legal action shares."""
    legal = game.legal_actions(state)
    common = set.intersection(*(kinds(game, state, a) for a in legal))
    return set().union(*(kinds(game, state, a) for a in answers)) - common


class Prover:
    """Builds a puzzle's solution tree from the solver's values, else from the game's
    win search (see the module's docstring for when a step is one)."""

    def __init__(self, game: Game[Any], points: int | None = None) -> None:
        self.game = game
        self.points = margin(game) if points is None else points
        self.search = win_search_or_none(game) if game.wins is not None else None

    def values(
        self, state: Any, horizon: int | None = None, solver: int | None = None
    ) -> dict[int, int] | None:
        """The solver's exact values where it reaches, else the win search's (with
        ``horizon`` turns of ``solver`` left: by default the search's horizon, the
        player to act)."""
        try:
            found = exact_values(self.game, state) or None
        except BoardlabError:
            found = None
        if found is not None or self.search is None:
            return found
        return self.searched_values(
            state,
            self.search.horizon if horizon is None else horizon,
            self.game.to_act(state) if solver is None else solver,
        )

    def searched_values(self, state: Any, horizon: int, solver: int) -> dict[int, int] | None:
        """The win search's values (the module's docstring): ``horizon`` for an action
        of ``solver`` that forces the win within his ``horizon`` turns, else 0; for the
        opponent's action, minus the solver's turns to the win after it (0: none)."""
        assert self.search is not None
        if self.game.outcome_of(state) is not None:
            return None
        turns = self.search.turns(state, solver, horizon)
        if self.game.to_act(state) == solver:
            return {action: horizon if n else 0 for action, n in turns.items()}
        return {action: -n if n else 0 for action, n in turns.items()}

    def root(
        self, state: Any, values: dict[int, int] | None = None
    ) -> tuple[dict[int, int], int | None] | None:
        """A puzzle's first values and its horizon (None where the solver's exact values
        prove it): for a forced win found by search, the values within the least number
        of turns in which the one winning action forces it. None where neither reaches."""
        values = self.values(state) if values is None else values
        if values is None:
            return None
        if self.search is None or exact_values_or_none(self.game, state) is not None:
            return values, None
        winning = [action for action, value in values.items() if value > 0]
        if len(winning) != 1:
            return values, None  # no puzzle: its judgement says so
        turns = self.search.turns(state, self.game.to_act(state), self.search.horizon)
        least = turns[winning[0]]
        assert least is not None
        return {action: least if action == winning[0] else 0 for action in values}, least

    def patient_values(
        self, state: Any, depth: int = 2, horizon: int | None = None, solver: int | None = None
    ) -> dict[int, int] | None:
        """``values``, asked again after the positions below ``state`` (to ``depth``
        actions) where the solver does not reach it at once: a solver that searches
        within a budget and remembers what it found (an endgame search) reaches a
        position in a fresh process that it reached in a long run. Values are exact
        either way; only whether they come within the budget changes."""
        values = self.values(state, horizon, solver)
        for below in range(1, depth + 1):
            if values is not None:
                break
            self._ask_below(state, below)
            values = self.values(state, horizon, solver)
        return values

    def _ask_below(self, state: Any, depth: int) -> None:
        game = self.game
        if game.outcome_of(state) is not None:
            return
        for action in game.legal_actions(state):
            child = game.apply(state, action)
            if depth > 1:
                self._ask_below(child, depth - 1)
            self.values(child)

    def tree(
        self, state: Any, values: dict[int, int] | None = None
    ) -> tuple[Step, int, set[str]] | None:
        """The solution from ``state`` (the solver to act), its value and themes; None
        unless the position is a puzzle. ``values``: the state's, if already known."""
        found = self.root(state, values)
        if found is None or len(found[0]) < 2:
            return None
        values, horizon = found
        verdict = judge(values, self.points)
        if not verdict.is_puzzle():
            return None
        themes: set[str] = set()
        solver = self.game.to_act(state)
        step = self._solver_step(state, verdict, solver, 1, 1, themes, horizon)
        return step, verdict.best, themes

    def _solver_step(
        self,
        state: Any,
        verdict: Verdict,
        solver: int,
        turn: int,
        steps: int,
        themes: set[str],
        horizon: int | None,
    ) -> Step:
        game = self.game
        themes |= step_themes(game, state, verdict.right)
        answers = []
        for action in verdict.right:
            after = game.apply(state, action)
            left = turns_left(game, after, solver, horizon)
            answers.append(
                (
                    game.format_action(state, action),
                    self._after(after, solver, turn, steps, themes, left),
                )
            )
        return Step(answers=tuple(answers))

    def _after(
        self,
        state: Any,
        solver: int,
        turn: int,
        steps: int,
        themes: set[str],
        horizon: int | None,
    ) -> Step | None:
        """What follows a right answer: the solver's next step, or the opponent's best
        defence up to it; None where the puzzle ends."""
        game = self.game
        if steps >= MAX_SOLVER_STEPS or game.outcome_of(state) is not None:
            return None
        replies: list[str] = []
        while game.to_act(state) != solver:
            if turn >= MAX_SOLVER_TURNS:
                return None
            values = self.values(state, horizon, solver)
            if values is None:
                return None
            reply = best_defence(values)
            replies.append(game.format_action(state, reply))
            state = game.apply(state, reply)
            if game.outcome_of(state) is not None:
                return None
        values = self.values(state, horizon, solver)
        if values is None:
            return None
        verdict = judge(values, self.points)
        if not verdict.is_step():
            return None
        found: Step = self._solver_step(
            state, verdict, solver, turn + (1 if replies else 0), steps + 1, themes, horizon
        )
        for reply_text in reversed(replies):
            found = Step(reply=reply_text, then=found)
        return found


def exact_values_or_none(game: Game[Any], state: Any) -> dict[int, int] | None:
    try:
        return exact_values(game, state) or None
    except BoardlabError:
        return None


def turns_left(game: Game[Any], after: Any, solver: int, horizon: int | None) -> int | None:
    """The solver's turns left in a forced win's horizon after his action led to
    ``after``: one fewer when it ended his turn (None: no horizon, exact values)."""
    if horizon is None or game.to_act(after) == solver:
        return horizon
    return horizon - 1


def difficulty(
    game: Game[Any], state: Any, right: set[int], seed: int
) -> tuple[int, tuple[str, ...]]:
    """The first rating and the levels whose first move (seeded) is not right."""
    from boardlab.ai import make_agent

    position = Position(game, state)
    failed = tuple(
        level
        for level in TRIED_LEVELS
        if make_agent(level, seed=seed, game=game).choose(position).action not in right
    )
    return BASE_RATING + PER_LEVEL * len(failed), failed


def why_not(game: Game[Any]) -> str | None:
    """Why no puzzle can be made for ``game`` now, in words; None if puzzles can be."""
    cls = solver_class_or_none(game)
    if searched(game):
        if win_search_or_none(game) is None:
            return _(
                "{game}'s forced wins need the fast extra: pip install 'boardlab[fast]'"
            ).format(game=game.name)
        return None
    if game.solver is None:
        return _("{game} has no solver, so no exact values prove a puzzle yet").format(
            game=game.name
        )
    if cls is None:
        return _("{game}'s solver needs the fast extra: pip install 'boardlab[fast]'").format(
            game=game.name
        )
    if cls.needs_table and not cls.table_exists(game):
        return _(
            "{game}'s solver needs its table, which is not built here: `boardlab solve {id}` "
            "builds it (see docs/puzzles.md), then make the puzzles again"
        ).format(game=game.name, id=game.id)
    return None


@dataclass
class Tally:
    """What a run examined and made: candidates are distinct positions the solver
    reaches; ``unreached`` those it does not."""

    games: int = 0
    candidates: int = 0
    unreached: int = 0
    puzzles: int = 0
    themes: Counter[str] = field(default_factory=Counter)
    ratings: Counter[int] = field(default_factory=Counter)
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "candidates": self.candidates,
            "unreached": self.unreached,
            "puzzles": self.puzzles,
            "themes": dict(sorted(self.themes.items())),
            "ratings": {str(k): v for k, v in sorted(self.ratings.items())},
            "seconds": round(self.seconds, 1),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Tally:
        return cls(
            games=data["games"],
            candidates=data["candidates"],
            unreached=data["unreached"],
            puzzles=data["puzzles"],
            themes=Counter(data["themes"]),
            ratings=Counter({int(k): v for k, v in data["ratings"].items()}),
            seconds=data["seconds"],
        )

    def add(self, puzzle: Puzzle) -> None:
        self.puzzles += 1
        self.themes.update(puzzle.themes or ("none",))
        self.ratings[puzzle.rating] += 1


def self_play(game: Game[Any], seed: int, number: int) -> Iterator[tuple[str, Any, int]]:
    """The positions of self-play game ``number`` (seeded): (source, state, ply)."""
    from boardlab.ai import make_agent

    pairing = PAIRINGS[number % len(PAIRINGS)]
    agents = [
        make_agent(level, seed=seed * 7919 + number * 2 + k, game=game)
        for k, level in enumerate(pairing)
    ]
    source = f"self-play {pairing[0]}-{pairing[1]} seed={seed} game={number}"
    position = game.initial()
    ply = 0
    while not position.is_over():
        yield source, position.state, ply
        position = position.play(agents[position.to_act % 2].choose(position).action)
        ply += 1


def make_one(
    prover: Prover, state: Any, source: str, seed: int, values: dict[int, int] | None = None
) -> Puzzle | None:
    """The puzzle at ``state``, or None if it is none."""
    game = prover.game
    found = prover.tree(state, values)
    if found is None:
        return None
    tree, value, themes = found
    right = {game.parse_action(state, action) for action, _after in tree.answers}
    rating, failed = difficulty(game, state, right, seed)
    position = game.format_state(state)
    return Puzzle(
        id=puzzle_id(game, position),
        game=game.id,
        options=tuple(game.option_assignments()),
        position=position,
        player=game.to_act(state),
        tree=tree,
        themes=tuple(sorted(themes)),
        value=value,
        rating=rating,
        source=source,
        failed=failed,
    )


Report = Callable[[str], None]


def make_puzzles(
    game: Game[Any],
    count: int,
    seed: int = 0,
    out: Path | None = None,
    report: Report | None = None,
    max_games: int | None = None,
    stored: Iterable[tuple[str, Any, int]] | None = None,
) -> tuple[list[Puzzle], Tally]:
    """Up to ``count`` puzzles from seeded self-play (``max_games`` games at most: 50
    per puzzle asked by default). With ``out``, the run checkpoints beside it
    (``OUT.partial`` and ``OUT.progress.json``, after every game that found puzzles and
    every 20th) and resumes from there when run again with the same seed; the file is
    written at the end. ``stored``: positions as ``self_play`` gives them, looked at
    first (the games a web server stored: ``boardlab.web.puzzles.stored_positions``)."""
    reason = why_not(game)
    if reason is not None:
        raise BoardlabError(reason)
    prover = Prover(game)
    tally = Tally()
    puzzles: list[Puzzle] = []
    seen: set[str] = set()
    first_game = 0
    resumed = False
    partial = progress = None
    if out is not None:
        partial = out.with_name(out.name + ".partial")
        progress = out.with_name(out.name + ".progress.json")
        if progress.exists() and partial.exists():
            saved = json.loads(progress.read_text(encoding="utf-8"))
            if saved.get("seed") == seed and saved.get("game") == game.id:
                tally = Tally.from_json(saved["tally"])
                first_game = saved["next_game"]
                resumed = True
                kept = {p.id: p for p in read_puzzles(partial)}
                puzzles = list(kept.values())[: tally.puzzles]
                tally.puzzles = len(puzzles)
                seen = set(saved.get("seen", []))
        if not resumed:
            partial.write_text("", encoding="utf-8")
    limit = max_games if max_games is not None else 50 * count
    began = time.perf_counter() - tally.seconds
    number = -1 if stored is not None and not resumed else first_game  # -1: the stored games
    while len(puzzles) < count and number < limit:
        found: list[Puzzle] = []
        positions = stored if number < 0 and stored is not None else self_play(game, seed, number)
        for source, state, ply in positions:
            text = game.format_state(state)
            if text in seen:
                continue
            seen.add(text)
            values = prover.values(state)
            if values is None:
                tally.unreached += 1
                continue
            tally.candidates += 1
            puzzle = make_one(prover, state, f"{source} ply={ply}", seed, values)
            if puzzle is not None and len(puzzles) + len(found) < count:
                found.append(puzzle)
        number += 1
        tally.games += 1 if number > 0 else 0
        for puzzle in found:
            puzzles.append(puzzle)
            tally.add(puzzle)
        tally.seconds = time.perf_counter() - began
        if partial is not None and progress is not None and (found or number % 20 == 0):
            with partial.open("a", encoding="utf-8") as handle:
                handle.writelines(p.line() + "\n" for p in found)
            saved = {
                "game": game.id,
                "seed": seed,
                "next_game": number,
                "tally": tally.to_json(),
                "seen": sorted(seen),
            }
            progress.write_text(json.dumps(saved), encoding="utf-8")
        if report is not None and found:
            report(
                _(
                    "{puzzles} puzzles from {candidates} candidates in {games} games "
                    "({seconds:.0f} s)"
                ).format(
                    puzzles=len(puzzles),
                    candidates=tally.candidates,
                    games=tally.games,
                    seconds=tally.seconds,
                )
            )
    if out is not None:
        write_puzzles(out, puzzles)
        for path in (partial, progress):
            if path is not None:
                path.unlink(missing_ok=True)
    return puzzles, tally
