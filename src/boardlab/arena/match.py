"""Play matches: N games between two agents, seats alternating, in parallel processes,
from the start or from openings (each played by a pair of games, the seats swapped)."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Mapping
from contextlib import ExitStack, closing
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from boardlab.ai import level_spec, make_agent
from boardlab.ai.base import AgentFault, Limit
from boardlab.arena import results_file
from boardlab.arena.backends import Backend, LocalBackend
from boardlab.arena.openings import Openings
from boardlab.arena.stats import Score
from boardlab.core.errors import BoardlabError
from boardlab.core.i18n import N_, _
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
    resumed: int = 0  # of the games, those taken from the results file

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
    thought, choices = [0.0, 0.0], [0, 0]
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
        thought[seat] += time.perf_counter() - began
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
        (thought[a_seat], thought[1 - a_seat]),
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
    results: str | os.PathLike[str] | None = None,
) -> MatchResult:
    """Play ``games`` games on ``backend`` (default: ``jobs`` local processes, every core
    if not given), a few at a time ahead of the results; ``stop`` is asked after each
    result whether to end the match there (an SPRT's verdict): games still running are
    then left out. Games 2k and 2k + 1 form pair k, the seats swapped, both from the
    ``openings``' k-th (default: the start). ``seconds``: both agents' time per action,
    in place of their own budgets.

    ``results``: a file each game is added to as it ends, so that a stopped match
    resumes: started again with the same settings (game, options, agents, seed,
    openings, ``seconds``, ``games``) it takes the games the file holds, asks ``stop``
    about them first (if it says stop, nothing is played) and plays the games missing,
    in their order, each numbered and seeded as in one uninterrupted match (and so the
    same game, but for ``seconds``' searches). The games a stop cut off come first, so
    the pairs they left open are completed before new pairs begin. What ``stop`` sees
    differs from an uninterrupted run only in order: the file's games in the order they
    ended, then the cut-off games as they end, where an uninterrupted run would have had
    them end among the next ones (with several processes no run has a fixed order). A
    file this match wrote with the same ``stop`` holds no game after its verdict, so a
    test decided in it is decided on all of it, as the run that wrote it stopped."""
    options = dict(options or {})
    game = new_game(game_id, options)  # refuse bad options before starting processes
    make_agent(agent_a, game=game_id).check(game)
    make_agent(agent_b, game=game_id).check(game)
    openings = openings or Openings()
    log = None
    with ExitStack() as held:
        played: list[GameResult] = []
        if results is not None:
            key = match_key(game_id, options, agent_a, agent_b, seed, openings, seconds, games)
            log = results_of(Path(results), key, games)
            played = list(held.enter_context(log.resumed()).values())
            if played:  # their openings drawn, so that the openings used are those described
                openings.of_pair(max(result.index for result in played) // 2)
        resumed = len(played)
        if not (played and stop is not None and stop(played)):
            done = {result.index for result in played}
            tasks = (
                (
                    game_id,
                    options,
                    agent_a,
                    agent_b,
                    index,
                    seed,
                    openings.of_pair(index // 2),
                    seconds,
                )
                for index in range(games)
                if index not in done
            )
            with closing((backend or LocalBackend(jobs)).unordered(play_game, tasks)) as finished:
                for _number, result in finished:
                    if log is not None:
                        log.append(asdict(result))
                    played.append(result)
                    if progress:
                        progress(result)
                    if stop is not None and stop(played):
                        break
    played.sort(key=lambda r: r.index)
    return MatchResult(game_id, options, agent_a, agent_b, tuple(played), resumed)


def match_key(
    game_id: str,
    options: Mapping[str, Any],
    agent_a: str,
    agent_b: str,
    seed: int,
    openings: Openings,
    seconds: float | None,
    games: int,
) -> str:
    """What identifies a match in its results file: the settings that fix its games.
    A level is named by the agent it stands for in the game (a level retuned between
    two runs is another match); random openings by their length (the seed draws them),
    a file's by the positions it holds."""
    drawn = openings.length if openings.more is not None else openings.known
    specs = (level_spec(agent_a, game_id), level_spec(agent_b, game_id))
    return results_file.settings_key(game_id, options, *specs, seed, drawn, seconds, games)


#: The fields of a match's results line besides its key: a game result's.
RESULT_FIELDS = frozenset(field.name for field in fields(GameResult))


def _whole(value: object, least: int | None = 0) -> bool:
    """Whether a value read is a whole number (not true or false, which JSON keeps apart)
    of at least ``least``."""
    return type(value) is int and (least is None or value >= least)


def _time(value: object) -> bool:
    """Whether a value read is a time in seconds."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return math.isfinite(value) and value >= 0


def _two(valid: Callable[[object], bool]) -> Callable[[object, int], bool]:
    """A check of a pair of values (A's and B's), each by ``valid``."""
    return lambda value, _index: (
        isinstance(value, list) and len(value) == 2 and all(map(valid, value))
    )


#: The fields of a results line that are not text: whether a value is valid in game
#: ``index``, and what is, in words.
_RULES: dict[str, tuple[Callable[[Any, int], bool], str]] = {
    "a_first": (
        lambda value, index: value is (index % 2 == 0),
        N_("true in even games (A sits first), false in odd ones"),
    ),
    "a_score": (
        lambda value, _index: type(value) in (int, float) and value in results_file.GAME_SCORES,
        N_("1 (A won), 0.5 (a draw) or 0"),
    ),
    "actions": (lambda value, _index: _whole(value), N_("a whole number, 0 or more")),
    "seconds": (_two(_time), N_("A's and B's thinking time: two numbers, 0 or more")),
    "points": (
        _two(lambda value: _whole(value, None)),
        N_("A's and B's points: two whole numbers"),
    ),
    "choices": (
        _two(_whole),
        N_("the actions A and B chose: two whole numbers, 0 or more"),
    ),
}


def results_of(path: Path, key: str, games: int) -> results_file.ResultsFile[GameResult]:
    """A match's results file, every line checked to be a game of the match with ``key``."""

    def check(data: Mapping[str, Any], line: int) -> tuple[int, GameResult]:
        index = data["index"]
        if not _whole(index) or index >= games:
            raise BoardlabError(
                _(
                    "{path}, line {line}: game number {value} is not one of this match's: "
                    "expected a whole number from 0 to {last}"
                ).format(path=path, line=line, value=results_file.shown(index), last=games - 1)
            )
        results_file.check_text(data, ("reason", "record"), path, line)
        for field, (valid, expected) in _RULES.items():
            if not valid(data[field], index):
                said = _("{path}, line {line}: {field} {value} is not valid: expected {expected}")
                value = results_file.shown(data[field])
                raise BoardlabError(
                    said.format(
                        path=path, line=line, field=field, value=value, expected=_(expected)
                    )
                )
        return index, GameResult(
            index,
            data["a_first"],
            float(data["a_score"]),
            data["reason"],
            data["actions"],
            data["record"],
            (float(data["seconds"][0]), float(data["seconds"][1])),
            (data["points"][0], data["points"][1]),
            (data["choices"][0], data["choices"][1]),
        )

    return results_file.ResultsFile(
        path,
        "match",
        key,
        RESULT_FIELDS,
        check,
    )
