"""Re-proving puzzles through the engine and the solver: every action of a solution is
legal, the first choice is a puzzle (one right action, nothing within the margin),
every right answer has exactly the best value and every right action is among the
answers, every reply is the solver's best defence (the lowest-numbered among equals),
every later step of the solver is still a step, and the themes are those narrated.
A game without a solver is proven so by its win search (``Game.wins``), with the values
``make`` documents: a forced win within the puzzle's turns. A failure is a
``PuzzleError`` naming the puzzle and the step."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Any

from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game
from boardlab.core.i18n import _
from boardlab.puzzles.make import (
    Prover,
    best_defence,
    judge,
    step_themes,
    turns_left,
)
from boardlab.puzzles.puzzle import Puzzle, Step


class PuzzleError(BoardlabError):
    """A puzzle whose solution the engine or the solver does not confirm."""


class _Checker:
    def __init__(self, puzzle: Puzzle) -> None:
        self.puzzle = puzzle
        self.game: Game[Any] = puzzle.new_game()
        self.prover = Prover(self.game)
        self.themes: set[str] = set()

    def fail(self, line: Sequence[str], problem: str) -> PuzzleError:
        where = _("after {line}").format(line=" ".join(line)) if line else _("at its position")
        return PuzzleError(
            _("puzzle {id}, {where}: {problem}").format(
                id=self.puzzle.id, where=where, problem=problem
            )
        )

    def values(self, state: Any, line: Sequence[str], horizon: int | None) -> dict[int, int]:
        values = self.prover.patient_values(state, horizon=horizon, solver=self.puzzle.player)
        if values is None:
            raise self.fail(line, _("the solver does not reach this position"))
        return values

    def action(self, state: Any, text: str, line: Sequence[str]) -> int:
        try:
            action = self.game.parse_action(state, text)
        except BoardlabError as error:
            raise self.fail(line, str(error)) from None
        if action not in self.game.legal_actions(state):
            raise self.fail(line, _("{action} is not legal here").format(action=text))
        return action

    def run(self) -> None:
        puzzle, game = self.puzzle, self.game
        try:
            state = game.parse_state(puzzle.position)
        except BoardlabError as error:
            raise self.fail([], str(error)) from None
        if game.to_act(state) != puzzle.player or puzzle.tree.reply is not None:
            raise self.fail([], _("the solver is not the player to act"))
        found = self.prover.root(state, self.values(state, [], None))
        assert found is not None
        values, horizon = found
        verdict = judge(values, self.prover.points)
        if not verdict.is_puzzle():
            raise self.fail(
                [],
                _(
                    "no single clearly best action: best {best:+d} for {right}; within the "
                    "margin of {margin}: {near}"
                ).format(
                    best=verdict.best,
                    right=self.names(state, verdict.right),
                    margin=self.prover.points,
                    near=self.names(state, verdict.near) or "-",
                ),
            )
        if verdict.best != puzzle.value:
            raise self.fail(
                [],
                _("the value is {value:+d}, not {claimed:+d}").format(
                    value=verdict.best, claimed=puzzle.value
                ),
            )
        self.solver_step(state, values, puzzle.tree, [], horizon)
        if tuple(sorted(self.themes)) != puzzle.themes:
            raise self.fail(
                [],
                _("the themes narrated are {themes}, not {claimed}").format(
                    themes=", ".join(sorted(self.themes)) or "-",
                    claimed=", ".join(puzzle.themes) or "-",
                ),
            )

    def names(self, state: Any, actions: Sequence[int]) -> str:
        return ", ".join(self.game.format_action(state, a) for a in actions)

    def solver_step(
        self,
        state: Any,
        values: dict[int, int],
        step: Step,
        line: list[str],
        horizon: int | None,
    ) -> None:
        game = self.game
        verdict = judge(values, self.prover.points)
        if line and not verdict.is_step():
            raise self.fail(line, _("this choice is not a step of a puzzle"))
        answers = {self.action(state, text, line): (text, after) for text, after in step.answers}
        for action, (text, _after) in answers.items():
            if values[action] != verdict.best:
                raise self.fail(
                    line,
                    _("the answer {action} is worth {value:+d}, not the best {best:+d}").format(
                        action=text, value=values[action], best=verdict.best
                    ),
                )
        missing = [a for a in verdict.right if a not in answers]
        if missing:
            raise self.fail(
                line,
                _("the equally good {actions} are missing from the answers").format(
                    actions=self.names(state, missing)
                ),
            )
        self.themes |= step_themes(game, state, verdict.right)
        for action, (text, after) in answers.items():
            if after is not None:
                child = game.apply(state, action)
                left = turns_left(game, child, self.puzzle.player, horizon)
                self.follow(child, after, [*line, text], left)

    def follow(self, state: Any, step: Step, line: list[str], horizon: int | None) -> None:
        game = self.game
        if game.outcome_of(state) is not None:
            raise self.fail(line, _("the game is over, but the solution goes on"))
        values = self.values(state, line, horizon)
        acts = game.to_act(state)
        if step.reply is None:
            if acts != self.puzzle.player:
                raise self.fail(line, _("the opponent acts here, but the solution has answers"))
            self.solver_step(state, values, step, line, horizon)
            return
        if acts == self.puzzle.player:
            raise self.fail(line, _("the solver acts here, but the solution has a reply"))
        reply = self.action(state, step.reply, line)
        best = best_defence(values)
        if reply != best:
            raise self.fail(
                line,
                _(
                    "the reply {reply} ({value:+d}) is not the best defence {best} ({top:+d})"
                ).format(
                    reply=step.reply,
                    value=values[reply],
                    best=game.format_action(state, best),
                    top=values[best],
                ),
            )
        if step.then is not None:
            self.follow(game.apply(state, reply), step.then, [*line, step.reply], horizon)


def check_puzzle(puzzle: Puzzle) -> None:
    """Re-prove one puzzle; a PuzzleError naming it and the step if it fails."""
    _Checker(puzzle).run()


def check_puzzles(
    puzzles: Sequence[Puzzle], sample: int | None = None, seed: int = 0
) -> tuple[int, float]:
    """Re-prove every puzzle (or a seeded sample of ``sample``): how many, in seconds."""
    chosen = list(puzzles)
    if sample is not None and sample < len(chosen):
        chosen = random.Random(seed).sample(chosen, sample)
    began = time.perf_counter()
    for puzzle in chosen:
        check_puzzle(puzzle)
    return len(chosen), time.perf_counter() - began
