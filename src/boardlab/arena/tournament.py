"""Tournaments: every agent against every other (or one against the field), in game pairs
with the seats swapped, from the same opening, fitted to ratings.

The plan is fixed by the settings: pairing ``p`` (agents ``i`` and ``j``), pair ``k``,
game ``g`` (0: ``i`` takes the first seat, 1: ``j`` does) is game number
``2 * (p * pairs + k) + g``, which also seeds its agents, so a tournament replays exactly.
Each finished game is appended to the results file (a line of JSON, flushed to disk), and
a tournament started again with the same settings and file plays only the games missing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardlab.ai import make_agent
from boardlab.arena import results_file
from boardlab.arena.backends import Backend, LocalBackend
from boardlab.arena.match import GameResult, play_game
from boardlab.arena.openings import cycled
from boardlab.arena.openings import random_openings as random_openings  # re-exported
from boardlab.arena.openings import read_openings as read_openings  # re-exported
from boardlab.arena.ratings import Fit, fit
from boardlab.arena.stats import Score
from boardlab.core.errors import BoardlabError
from boardlab.core.i18n import _
from boardlab.core.registry import new_game


@dataclass(frozen=True)
class Entry:
    """One finished game: the agents in the first and second seat and the first's score."""

    number: int
    first: str
    second: str
    score: float
    reason: str
    record: str


@dataclass(frozen=True)
class Plan:
    game: str
    options: dict[str, Any]
    agents: tuple[str, ...]
    gauntlet: bool
    pairs: int
    openings: tuple[str | None, ...]
    seed: int

    def pairings(self) -> list[tuple[int, int]]:
        n = len(self.agents)
        if self.gauntlet:
            return [(0, j) for j in range(1, n)]
        return [(i, j) for i in range(n) for j in range(i + 1, n)]

    def games(self) -> list[tuple[int, str, str, str | None]]:
        """Every game: its number, the agents as A and B (A first in even numbers), the
        opening."""
        planned = []
        for p, (i, j) in enumerate(self.pairings()):
            for k in range(self.pairs):
                pair = p * self.pairs + k
                opening = cycled(self.openings, pair)
                for g in (0, 1):
                    planned.append((2 * pair + g, self.agents[i], self.agents[j], opening))
        return planned

    def key(self) -> str:
        """What identifies the tournament in its results file."""
        return results_file.settings_key(
            self.game,
            self.options,
            self.agents,
            self.gauntlet,
            self.pairs,
            self.openings,
            self.seed,
        )


def results_of(path: Path, plan: Plan) -> results_file.ResultsFile[Entry]:
    """The tournament's results file, every line checked against the plan: a file that
    was edited by hand, or that mixes tournaments, would give wrong ratings."""
    seats = {n: (a, b) if n % 2 == 0 else (b, a) for n, a, b, _opening in plan.games()}

    def check(data: Mapping[str, Any], line: int) -> tuple[int, Entry]:
        entry = _checked_entry(data, seats, path, line)
        return entry.number, entry

    return results_file.ResultsFile(
        path,
        "tournament",
        plan.key(),
        RESULT_FIELDS,
        check,
    )


def load(path: Path, plan: Plan) -> dict[int, Entry]:
    """The games already in a results file of this tournament, refused at its first wrong
    line; a last line a stop cut short is left out (``run`` plays that game again)."""
    return results_of(path, plan).load()


#: The fields of a results line besides the tournament's key.
RESULT_FIELDS = frozenset({"number", "first", "second", "score", "reason", "record"})


def _checked_entry(
    data: Mapping[str, Any], seats: Mapping[int, tuple[str, str]], path: Path, line: int
) -> Entry:
    """The entry a results line holds, if it is a game this plan could have played."""
    number, score = data["number"], data["score"]
    if type(number) is not int or number not in seats:
        raise BoardlabError(
            _(
                "{path}, line {line}: game number {value} is not one of this tournament's: "
                "expected a whole number from 0 to {last}"
            ).format(path=path, line=line, value=results_file.shown(number), last=len(seats) - 1)
        )
    first, second = seats[number]
    if (data["first"], data["second"]) != (first, second):
        raise BoardlabError(
            _(
                "{path}, line {line}: game {game} is {first} (first seat) against {second}, "
                "not {got_first} against {got_second}"
            ).format(
                path=path,
                line=line,
                game=number,
                first=first,
                second=second,
                got_first=results_file.shown(data["first"]),
                got_second=results_file.shown(data["second"]),
            )
        )
    if type(score) not in (int, float) or score not in results_file.GAME_SCORES:
        raise BoardlabError(
            _(
                "{path}, line {line}: score {value} is not the result of a game: expected "
                "1 (the first seat won), 0.5 (a draw) or 0"
            ).format(path=path, line=line, value=results_file.shown(score))
        )
    results_file.check_text(data, ("reason", "record"), path, line)
    return Entry(number, first, second, float(score), data["reason"], data["record"])


def entry_of(result: GameResult, agent_a: str, agent_b: str) -> Entry:
    first, second = (agent_a, agent_b) if result.a_first else (agent_b, agent_a)
    score = result.a_score if result.a_first else 1.0 - result.a_score
    return Entry(result.index, first, second, score, result.reason, result.record)


def run(
    plan: Plan,
    path: Path,
    jobs: int = 1,
    progress: Callable[[list[Entry]], None] | None = None,
    backend: Backend | None = None,
) -> list[Entry]:
    """Play the games of ``plan`` missing from ``path`` on ``backend`` (default: ``jobs``
    local processes); every game, in order."""
    game = new_game(plan.game, plan.options)
    for spec in set(plan.agents):
        make_agent(spec, game=plan.game).check(game)
    results = results_of(path, plan)
    with results.resumed() as done:
        entries = list(done.values())
        tasks = (
            (plan.game, plan.options, a, b, number, plan.seed, opening)
            for number, a, b, opening in plan.games()
            if number not in done
        )
        with closing((backend or LocalBackend(jobs)).unordered(play_game, tasks)) as finished:
            for task, result in finished:
                entry = entry_of(result, task[2], task[3])
                results.append(entry.__dict__)
                entries.append(entry)
                if progress:
                    progress(entries)
    return sorted(entries, key=lambda e: e.number)


@dataclass(frozen=True)
class Standing:
    """An agent's place: its rating with the 95% half-width, and its results."""

    agent: str
    rating: float
    margin: float
    results: Score


def standings(agents: Sequence[str], entries: Sequence[Entry]) -> tuple[list[Standing], Fit | None]:
    """Every agent's rating and results, best first, and the fit (None before any game)."""
    tally = {agent: [0, 0, 0] for agent in agents}
    for e in entries:
        for agent, score in ((e.first, e.score), (e.second, 1.0 - e.score)):
            tally[agent][0 if score == 1.0 else 1 if score == 0.5 else 2] += 1
    fitted = (
        fit(list(dict.fromkeys(agents)), [(e.first, e.second, e.score) for e in entries])
        if entries
        else None
    )
    rows = [
        Standing(
            agent,
            fitted.ratings[agent] if fitted else 0.0,
            fitted.margins[agent] if fitted else 0.0,
            Score(*tally[agent]),
        )
        for agent in dict.fromkeys(agents)
    ]
    return sorted(rows, key=lambda s: (-s.rating, -s.results.mean)), fitted
