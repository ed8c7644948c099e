"""Play matches: N games between two agents, seats alternating, in parallel processes,
from the start or from openings (each played by a pair of games, the seats swapped)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from contextlib import closing
from dataclasses import dataclass
from typing import Any

from boardlab.ai import make_agent
from boardlab.ai.base import AgentFault, Limit
from boardlab.arena.backends import Backend, LocalBackend
from boardlab.arena.openings import Openings
from boardlab.arena.stats import Score
from boardlab.core.record import GameRecord
from boardlab.core.registry import new_game


@dataclass(frozen=True)
class GameResult:
    """One game of a match: its index, who sat first, the result for agent A, the record."""

    index: int
    a_first: bool
    a_score: float  # 1 win, 0.5 draw, 0 loss
    reason: str
    actions: int
    record: str  # the game record in the text format
    seconds: tuple[float, float] = (0.0, 0.0)  # thinking time of A and of B
    points: tuple[int, int] = (0, 0)  # the final points of A and of B
    choices: tuple[int, int] = (0, 0)  # actions chosen by A and by B


@dataclass(frozen=True)
class MatchResult:
    game: str
    options: dict[str, Any]
    agent_a: str
    agent_b: str
    games: tuple[GameResult, ...]

    @property
    def score(self) -> Score:
        wins = sum(g.a_score == 1.0 for g in self.games)
        draws = sum(g.a_score == 0.5 for g in self.games)
        return Score(wins, draws, len(self.games) - wins - draws)

    def first_player_score(self) -> float:
        """The first player's mean result over the match (the seat's advantage)."""
        results = [g.a_score if g.a_first else 1.0 - g.a_score for g in self.games]
        return sum(results) / len(results) if results else 0.5

    def seconds_per_choice(self) -> tuple[float, float]:
        """The mean thinking time of A and of B per action chosen."""
        means = []
        for side in (0, 1):
            choices = sum(g.choices[side] for g in self.games)
            means.append(sum(g.seconds[side] for g in self.games) / max(1, choices))
        return means[0], means[1]


def play_game(
    game_id: str,
    options: Mapping[str, Any],
    agent_a: str,
    agent_b: str,
    index: int,
    seed: int,
    start: str | None = None,
    seconds: float | None = None,
) -> GameResult:
    """Game ``index`` of a match: A sits first in even games. Agents are seeded from
    ``seed`` and the index, so a match replays exactly with the same seed (unless
    ``seconds``, a time per action for both agents in place of their own budgets, rules
    their searches). ``start`` is a position string to begin from (an opening), else the
    start."""
    game = new_game(game_id, dict(options))
    a_first = index % 2 == 0
    agents = [
        make_agent(agent_a, seed * 1_000_003 + 2 * index, game_id),
        make_agent(agent_b, seed * 1_000_003 + 2 * index + 1, game_id),
    ]
    seats = agents if a_first else agents[::-1]
    specs = [agent_a, agent_b] if a_first else [agent_b, agent_a]
    record = GameRecord(
        game,
        None if start is None else game.from_position_string(start),
        headers={
            game.players[0].capitalize(): specs[0],
            game.players[1].capitalize(): specs[1],
            "Event": f"boardlab match {agent_a} vs {agent_b}",
            "Round": str(index + 1),
            "Seed": str(seed),
            **({"Movetime": f"{seconds:g}"} if seconds else {}),
        },
    )
    limit = Limit(time=seconds) if seconds else None
    seconds, choices = [0.0, 0.0], [0, 0]
    while not record.is_over():
        position = record.position
        seat = position.to_act
        began = time.perf_counter()
        try:
            choice = seats[seat].choose(position, limit)
        except AgentFault as fault:  # the game is lost, the match goes on
            record.resign(seat, "forfeit", str(fault))
            break
        record.play(choice.action, choice.comment)
        seconds[seat] += time.perf_counter() - began
        choices[seat] += 1
    outcome = record.outcome()
    assert outcome is not None
    a_seat = 0 if a_first else 1
    return GameResult(
        index,
        a_first,
        outcome.score(a_seat),
        outcome.reason,
        len(record),
        record.to_text(),
        (seconds[a_seat], seconds[1 - a_seat]),
        (outcome.points[a_seat], outcome.points[1 - a_seat]),
        (choices[a_seat], choices[1 - a_seat]),
    )


def play_match(
    game_id: str,
    agent_a: str,
    agent_b: str,
    games: int,
    options: Mapping[str, Any] | None = None,
    jobs: int | None = None,
    seed: int = 0,
    progress: Callable[[GameResult], None] | None = None,
    stop: Callable[[list[GameResult]], bool] | None = None,
    backend: Backend | None = None,
    openings: Openings | None = None,
    seconds: float | None = None,
) -> MatchResult:
    """Play ``games`` games on ``backend`` (default: ``jobs`` local processes, every core
    if not given), a few at a time ahead of the results; ``stop`` is asked after each
    result whether to end the match there (an SPRT's verdict): games still running are
    then left out. Games 2k and 2k + 1 form pair k, the seats swapped, both from the
    ``openings``' k-th (default: the start). ``seconds``: both agents' time per action,
    in place of their own budgets."""
    options = dict(options or {})
    game = new_game(game_id, options)  # refuse bad options before starting processes
    make_agent(agent_a, game=game_id).check(game)
    make_agent(agent_b, game=game_id).check(game)
    backend = backend or LocalBackend(jobs)
    results: list[GameResult] = []
    openings = openings or Openings()
    tasks = (
        (game_id, options, agent_a, agent_b, index, seed, openings.of_pair(index // 2), seconds)
        for index in range(games)
    )
    with closing(backend.unordered(play_game, tasks)) as finished:
        for _, result in finished:
            results.append(result)
            if progress:
                progress(result)
            if stop is not None and stop(results):
                break
    results.sort(key=lambda r: r.index)
    return MatchResult(game_id, options, agent_a, agent_b, tuple(results))
