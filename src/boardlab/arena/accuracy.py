"""Accuracy against perfect play: how far each level's moves fall from the exact values
of a game with a solver, over positions from real games.

Positions come from games played between a spread of levels (``played_by``), seeded so
the same settings give the same positions. From each game one position is drawn from
each third of its length (early, middle, late) among those the solver reaches and that
offer a choice (two legal actions or more), until ``count`` are drawn. Each level is then
asked its move in every position and judged by the exact values of all legal actions
(final point difference for the player to act):

* value lost: the best action's value minus the chosen one's, in the game's points;
* optimal: whether the chosen action is worth as much as the best;
* accuracy: lichess's move accuracy from the exact values (``boardlab.solve.accuracy``):
  100 for a move that keeps the result; the points given away within the same result
  show in the value lost and the share optimal.

Per level: the mean value lost with its 95% t interval, the share optimal with its
Wilson interval, and the accuracy (the mean of the moves' accuracies, and as lichess
counts a game, the mean of their arithmetic and harmonic means).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from boardlab.ai import make_agent
from boardlab.ai.base import Agent
from boardlab.arena.stats import Z95, score_interval
from boardlab.core.errors import BoardlabError
from boardlab.core.files import write_atomic
from boardlab.core.game import Game, Position
from boardlab.core.i18n import N_, _
from boardlab.core.registry import game_class, game_ids, new_game
from boardlab.extras import import_extra
from boardlab.solve import exact_values, open_solver, solver_class
from boardlab.solve.accuracy import game_accuracy, move_accuracy

#: The parts of a game a position is drawn from: thirds of its length in plies.
STAGES = (N_("early"), N_("middle"), N_("late"))
#: Who plays the games the positions come from, unless asked otherwise: cheap levels
#: that reach every kind of position (the beginner's blunders, medium's plans).
PLAYED_BY = ("beginner", "easy", "medium")
#: Games played for each position wanted before the sampling gives up.
GAMES_PER_POSITION = 4

#: ``progress(done, total, note)``: positions drawn, or one level's positions judged.
Progress = Callable[[int, int, str], None]


#: Student's t two-sided 95% quantiles for 1 to 10 degrees of freedom.
T95 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228)


def t_quantile(freedom: int) -> float:
    """The two-sided 95% quantile of Student's t with ``freedom`` degrees of freedom: from
    the table up to 10, then Cornish-Fisher from the normal's (within 0.1%)."""
    if freedom <= len(T95):
        return T95[max(1, freedom) - 1]
    z, v = Z95, freedom
    return (
        z
        + (z**3 + z) / (4 * v)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
    )


def mean_interval(values: Sequence[float]) -> tuple[float, float, float]:
    """The mean and its 95% t interval (the mean twice for fewer than two values)."""
    n = len(values)
    if n == 0:
        return 0.0, 0.0, 0.0
    mean = sum(values) / n
    if n < 2:
        return mean, mean, mean
    spread = math.sqrt(sum((x - mean) ** 2 for x in values) / (n - 1))
    half = t_quantile(n - 1) * spread / math.sqrt(n)
    return mean, max(0.0, mean - half) if min(values) >= 0 else mean - half, mean + half


@dataclass(frozen=True)
class Sampled:
    """A position drawn from a real game, with every legal action's exact value."""

    position: str
    game: int  # which of the played games it comes from
    ply: int
    stage: int  # index into STAGES
    values: dict[int, int]


@dataclass(frozen=True)
class Judged:
    """One level's move in one sampled position."""

    sample: int  # index of the sample
    stage: int
    action: int
    loss: int
    optimal: bool
    accuracy: float


@dataclass(frozen=True)
class Summary:
    """One level's moves together."""

    level: str
    moves: int
    mean_loss: float
    loss_low: float
    loss_high: float
    optimal: float
    optimal_low: float
    optimal_high: float
    accuracy: float
    game_accuracy: float
    #: per stage: (moves, mean loss, low, high, share optimal)
    stages: tuple[tuple[int, float, float, float, float], ...]


def solvable_games() -> list[str]:
    """The games that declare a solver."""
    return [g for g in game_ids() if game_class(g).solver is not None]


def require_exact(game: Game[Any]) -> None:
    """Raise a BoardlabError saying why ``game`` has no exact values here: no solver
    (naming the games that have one), a missing extra, or a table not built (naming the
    command that builds it)."""
    solver = solver_class(game)
    if solver is None:
        raise BoardlabError(
            _(
                "{game} has no solver, so no exact values to measure against; "
                "games with one: {games}"
            ).format(game=game.name, games=", ".join(solvable_games()))
        )
    if solver.needs_table:
        open_solver(game)  # a TableError names the command that builds the table


def sample_positions(
    game: Game[Any],
    count: int,
    seed: int,
    played_by: Sequence[str] = PLAYED_BY,
    progress: Progress | None = None,
) -> list[Sampled]:
    """``count`` positions from games between every ordered pair of ``played_by`` (a
    level against itself too), one from each stage of each game where the solver reaches
    one with a choice; the same settings give the same positions."""
    require_exact(game)
    rng = random.Random(seed)
    pairs = [(a, b) for a in played_by for b in played_by]
    samples: list[Sampled] = []
    played = 0
    while len(samples) < count:
        if played >= GAMES_PER_POSITION * count:
            raise BoardlabError(
                _(
                    "only {found} positions with exact values in {games} games of {game}: "
                    "ask for fewer"
                ).format(found=len(samples), games=played, game=game.name)
            )
        first, second = pairs[played % len(pairs)]
        states = _play(game, first, second, seed * 1_000_003 + played)
        for stage in range(len(STAGES)):
            plies = [p for p in range(len(states)) if _stage(p, len(states)) == stage]
            rng.shuffle(plies)
            for ply in plies:
                state = states[ply]
                if len(game.legal_actions(state)) < 2:
                    continue
                values = exact_values(game, state)
                if values:
                    samples.append(Sampled(game.format_state(state), played, ply, stage, values))
                    break
            if len(samples) == count:
                break
        played += 1
        if progress is not None:
            progress(len(samples), count, _("{games} games").format(games=played))
    return samples


def _stage(ply: int, length: int) -> int:
    return min(len(STAGES) - 1, len(STAGES) * ply // max(1, length))


def _play(game: Game[Any], first: str, second: str, seed: int) -> list[Any]:
    """The states of a game between ``first`` and ``second`` before each action."""
    agents = [make_agent(first, 2 * seed, game), make_agent(second, 2 * seed + 1, game)]
    state = game.initial_state()
    states = []
    while game.outcome_of(state) is None:
        states.append(state)
        choice = agents[game.to_act(state)].choose(Position(game, state))
        state = game.apply(state, choice.action)
    return states


def judge(
    game: Game[Any],
    agent: Agent,
    samples: Sequence[Sampled],
    seed: int = 0,
    label: str = "",
    progress: Progress | None = None,
) -> list[Judged]:
    """``agent``'s move in each sample, judged by its exact values. Each position is
    played afresh with a seed of its own."""
    judged = []
    for k, sample in enumerate(samples):
        agent.reset()
        position = game.from_position_string(sample.position)
        action = agent.choose(position, rng=random.Random(seed * 1_000_003 + k)).action
        best = max(sample.values.values())
        if action not in sample.values:
            raise BoardlabError(f"{action} is not a legal action of {sample.position}")
        played = sample.values[action]
        judged.append(
            Judged(
                k, sample.stage, action, best - played, played == best, move_accuracy(best, played)
            )
        )
        if progress is not None:
            progress(k + 1, len(samples), label)
    return judged


def summarize(level: str, judged: Sequence[Judged]) -> Summary:
    """``level``'s moves in figures, with 95% intervals."""
    losses = [float(j.loss) for j in judged]
    mean, low, high = mean_interval(losses)
    hits = sum(j.optimal for j in judged)
    share_low, share_high = score_interval(hits, 0, len(judged) - hits)
    if hits == len(judged):  # exactly 1 at a share of 1, which rounding misses
        share_high = 1.0
    accuracies = [j.accuracy for j in judged]
    stages = []
    for stage in range(len(STAGES)):
        mine = [j for j in judged if j.stage == stage]
        m, lo, hi = mean_interval([float(j.loss) for j in mine])
        share = sum(j.optimal for j in mine) / len(mine) if mine else 0.0
        stages.append((len(mine), m, lo, hi, share))
    return Summary(
        level=level,
        moves=len(judged),
        mean_loss=mean,
        loss_low=low,
        loss_high=high,
        optimal=hits / len(judged) if judged else 0.0,
        optimal_low=share_low,
        optimal_high=share_high,
        accuracy=sum(accuracies) / len(accuracies) if accuracies else 0.0,
        game_accuracy=game_accuracy(accuracies) or 0.0,
        stages=tuple(stages),
    )


@dataclass
class Study:
    """A measurement: its settings, its positions, and each level's judged moves; kept in
    a JSON file after each level, so the same command resumes a stopped run."""

    game: str
    options: dict[str, Any]
    count: int
    seed: int
    played_by: list[str]
    samples: list[Sampled] = field(default_factory=list)
    judged: dict[str, list[Judged]] = field(default_factory=dict)

    def key(self) -> tuple[Any, ...]:
        return (self.game, self.options, self.count, self.seed, self.played_by)

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "options": self.options,
            "positions": self.count,
            "seed": self.seed,
            "played_by": self.played_by,
            "summaries": [asdict(summarize(level, j)) for level, j in self.judged.items()],
            "samples": [asdict(s) for s in self.samples],
            "judged": {level: [asdict(x) for x in j] for level, j in self.judged.items()},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Study:
        samples = [
            Sampled(
                s["position"],
                s["game"],
                s["ply"],
                s["stage"],
                {int(a): int(v) for a, v in s["values"].items()},
            )
            for s in data["samples"]
        ]
        judged = {level: [Judged(**x) for x in j] for level, j in data["judged"].items()}
        return cls(
            data["game"],
            data["options"],
            data["positions"],
            data["seed"],
            list(data["played_by"]),
            samples,
            judged,
        )

    def describe(self) -> str:
        """The settings in a few words, for a message."""
        options = new_game(self.game, self.options).option_assignments()
        settings = f"--positions {self.count} --seed {self.seed}"
        played_by = f"--played-by {','.join(self.played_by)}"
        return " ".join([self.game, *(f"-o {o}" for o in options), settings, played_by])

    def save(self, path: Path) -> None:
        write_atomic(path, json.dumps(self.to_dict(), indent=1) + "\n")


def measure(
    game: Game[Any],
    levels: Sequence[str],
    count: int,
    seed: int,
    played_by: Sequence[str] = PLAYED_BY,
    results: Path | None = None,
    progress: Progress | None = None,
) -> Study:
    """Every level of ``levels`` judged on ``count`` sampled positions; with ``results``,
    what a run with the same settings already did there is kept and the rest added."""
    require_exact(game)
    agents = [make_agent(level, seed, game) for level in levels]  # bad specs refused first
    for agent in agents:
        agent.check(game)
    study = Study(game.id, dict(game.options), count, seed, list(played_by))
    if results is not None and results.exists():
        kept = _read(results)
        if kept.key() != study.key():
            raise BoardlabError(
                _(
                    "{path} holds a run with other settings ({kept}); give another --results "
                    "file to measure {wanted}"
                ).format(path=results, kept=kept.describe(), wanted=study.describe())
            )
        study = kept
    if not study.samples:
        study.samples = sample_positions(game, count, seed, played_by, progress)
        if results is not None:
            study.save(results)
    for level, agent in zip(levels, agents, strict=True):
        if level in study.judged:
            continue
        study.judged[level] = judge(game, agent, study.samples, seed, level, progress)
        if results is not None:
            study.save(results)
    return study


def _read(path: Path) -> Study:
    """The run kept in ``path``; a BoardlabError if it is not one."""
    try:
        return Study.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as error:
        raise BoardlabError(
            _(
                "cannot resume from {path}: not a results file of boardlab accuracy ({error})"
            ).format(path=path, error=error)
        ) from None


#: The formats ``plot`` writes, by the file's suffix.
PLOT_FORMATS = (".svg", ".png", ".pdf")


def plot(study: Study, levels: Sequence[str], path: Path) -> Path:
    """Each level's mean value lost by stage, with its 95% interval, saved to ``path``
    (its suffix names the format: .svg, .png)."""
    figure_module = import_extra("matplotlib.figure", _("the accuracy plot"), "matplotlib")
    figure = figure_module.Figure(figsize=(7.5, 4.2), layout="constrained")
    axes = figure.add_subplot()
    width = 0.8 / max(1, len(levels))
    for k, level in enumerate(levels):
        summary = summarize(level, study.judged[level])
        xs = [s + (k - (len(levels) - 1) / 2) * width for s in range(len(STAGES))]
        means = [row[1] for row in summary.stages]
        below = [row[1] - row[2] for row in summary.stages]
        above = [row[3] - row[1] for row in summary.stages]
        axes.bar(xs, means, width, yerr=[below, above], capsize=2, label=level)
    axes.set_xticks(range(len(STAGES)), [_(stage) for stage in STAGES])
    axes.set_ylabel(_("mean value lost per move (points)"))
    counts = [sum(s.stage == k for s in study.samples) for k in range(len(STAGES))]
    axes.set_title(
        _("{game}: value lost against perfect play, {positions} positions ({counts})").format(
            game=new_game(study.game, study.options).name,
            positions=len(study.samples),
            counts=" / ".join(map(str, counts)),
        ),
        fontsize=10,
    )
    axes.legend(fontsize=8)
    figure.savefig(path)
    return path
