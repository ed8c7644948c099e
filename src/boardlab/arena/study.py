"""Variant studies: how each combination of a game's options plays, measured by self-play.

For every variant an agent plays itself N times from the start (seats alternate between
its two seeded copies, so nothing but the seat favours a side). Each game yields its
facts (who won from the first seat, length, how often the lead changed, when the winner's
lead became final, the branching factor met); a variant's summary gives the first
player's score with its 95% interval, the draw rate and the distributions, and the exact
value of the start beside them where a solver knows it.

**Cached and extended.** Each game is appended to the study's file (one JSON line, on disk
before it counts) under the key of its variant, agent and seed; the same study asked for
more games plays only those missing, and a study of more variants reuses the games of
the variants it shares. A stopped study loses at most the games being played.

**The measures**, per game, from the first player's side (the player to act at the start):

- *lead*: the difference of the points the game declares (``Game.points``: a score, the
  worth of the pieces' rows, the seeds in the stores) at each position; a *lead change*
  is a change of the side ahead (ties skipped);
- *decisiveness*: the share of the game still to play when the winner took the lead for
  good (0: decided by the last action, near 1: ahead from the first); draws have none;
- *branching*: the mean number of legal actions at the positions of the game.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import statistics
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import closing
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from boardlab.ai import make_agent
from boardlab.arena.backends import Backend, LocalBackend
from boardlab.arena.match import play_game
from boardlab.arena.stats import Score
from boardlab.core.errors import BoardlabError, OptionError
from boardlab.core.files import append_line, cut_short
from boardlab.core.game import Game
from boardlab.core.i18n import _, pgettext
from boardlab.core.options import Option, OptionValue
from boardlab.core.record import GameRecord
from boardlab.core.registry import game_class, new_game

#: What a study file's lines are (the first field of each).
KIND = "boardlab-study-game"


@dataclass(frozen=True)
class GameFacts:
    """One self-play game, from the first player's side."""

    index: int
    score: float  # the first player's result: 1 win, 0.5 draw, 0 loss
    reason: str
    actions: int
    turns: int
    margin: int  # the first player's points less the second's, at the end
    lead_changes: int
    decisiveness: float | None  # None for a draw
    branching: float


def facts_of(record: GameRecord, index: int) -> GameFacts:
    """The measures of one finished game (see the module's docstring)."""
    game = record.game
    first = record.start.to_act
    outcome = record.outcome()
    assert outcome is not None
    leads = [_lead(p.points, first) for p in record.positions]
    score = outcome.score(first)
    decisive = None if score == 0.5 else decisiveness(leads, 1 if score == 1.0 else -1)
    choices = [len(p.legal_actions()) for p in record.positions[:-1]]
    return GameFacts(
        index,
        score,
        outcome.reason,
        len(record),
        game.turns(record.position.state),
        outcome.points[first] - outcome.points[1 - first],
        lead_changes(leads),
        decisive,
        statistics.fmean(choices) if choices else 0.0,
    )


def lead_changes(leads: Sequence[int]) -> int:
    """How often the side ahead changed (leads: +1 the first player ahead, -1 the second,
    0 level; levels do not end a lead)."""
    changes, ahead = 0, 0
    for lead in leads:
        if lead and ahead and lead != ahead:
            changes += 1
        ahead = lead or ahead
    return changes


def decisiveness(leads: Sequence[int], winner: int) -> float:
    """The share of the actions still to play when the ``winner`` (+1 or -1) took the
    lead for good: 0 if only the last action put him ahead."""
    behind = [k for k, lead in enumerate(leads) if lead != winner]
    settled = behind[-1] + 1 if behind else 0  # the first position of the final lead
    actions = max(1, len(leads) - 1)
    return max(0, actions - settled) / actions


def _lead(points: tuple[int, int], first: int) -> int:
    difference = points[first] - points[1 - first]
    return (difference > 0) - (difference < 0)


def study_game(
    game_id: str, options: Mapping[str, Any], agent: str, index: int, seed: int
) -> GameFacts:
    """Game ``index`` of a variant: ``agent`` against itself, seeded as a match is."""
    result = play_game(game_id, options, agent, agent, index, seed)
    return facts_of(GameRecord.read(result.record), index)


# ---------------------------------------------------------------------- the variants
def read_vary(game_id: str, texts: Sequence[str]) -> dict[str, list[OptionValue]]:
    """``--vary`` arguments: ``NAME`` (every value of a yes/no or word option),
    ``NAME=V1,V2`` or, for numbers, ``NAME=LOW..HIGH``; each value checked."""
    schema = game_class(game_id).schema
    varied: dict[str, list[OptionValue]] = {}
    for text in texts:
        name, has_values, values = text.partition("=")
        try:
            option = schema.get(name.strip(), game_id)
            varied[option.name] = _values(option, values if has_values else None)
        except OptionError as error:
            raise OptionError(
                _("--vary {text!r}: {error}").format(text=text, error=error)
            ) from None
    return varied


def _values(option: Option, text: str | None) -> list[OptionValue]:
    if text is None:
        if option.kind == "int":
            raise OptionError(
                _(
                    "{name} is a number: name its values, like {name}=2,3,4 or {name}=2..4 "
                    "({allowed})"
                ).format(name=option.name, allowed=option.allowed())
            )
        every = [False, True] if option.kind == "bool" else list(option.choices)
        return sorted(every, key=lambda value: value != option.default)  # the default first
    low, dots, high = text.partition("..")
    if dots and option.kind == "int":
        start, stop = int(option.parse(low)), int(option.parse(high))
        if start > stop:
            raise OptionError(
                _("expected LOW..HIGH with LOW <= HIGH, got {text!r}").format(text=text)
            )
        return list(range(start, stop + 1))
    words = [word for word in text.split(",") if word.strip()]
    if not words:
        raise OptionError(_("no values after '=' ({allowed})").format(allowed=option.allowed()))
    return list(dict.fromkeys(option.parse(word) for word in words))


def default_vary(game_id: str, fixed: Mapping[str, Any]) -> dict[str, list[OptionValue]]:
    """What a study varies when nothing is named: every value of the game's
    ``study_options`` that ``fixed`` leaves free."""
    schema = game_class(game_id).schema
    return {
        name: _values(schema.get(name), None)
        for name in game_class(game_id).study_options
        if name not in fixed
    }


def variants(
    game_id: str, fixed: Mapping[str, Any], varied: Mapping[str, Sequence[OptionValue]]
) -> list[Game[Any]]:
    """Every combination of the ``varied`` options over the ``fixed`` ones, one game per
    way of playing: combinations that the game's ``effective_options`` show to play
    alike are kept once."""
    fixed = dict(fixed)
    clash = sorted(set(varied) & set(fixed))
    if clash:
        raise OptionError(
            _("{names} both fixed with -o and varied with --vary").format(names=", ".join(clash))
        )
    found: dict[str, Game[Any]] = {}
    names = list(varied)
    for values in itertools.product(*(varied[n] for n in names)):
        game = new_game(game_id, {**fixed, **dict(zip(names, values, strict=True))})
        found.setdefault(_canonical(game), game)
    return list(found.values())


def _canonical(game: Game[Any]) -> str:
    return json.dumps([game.id, game.effective_options()], sort_keys=True)


def label(game: Game[Any], varied: Sequence[str]) -> str:
    """A variant's name in a table: the varied numbers, and the varied words and yes/no
    options that are not at their default (or idle); ``default`` if nothing is left."""
    effective = game.effective_options()
    words = [
        f"{n}={game.schema.get(n).format(effective[n])}"
        for n in varied
        if effective[n] != game.schema.get(n).default or game.schema.get(n).kind == "int"
    ]
    return " ".join(words) or "default"


def shown_label(label: str) -> str:
    """A variant's name (``label``) as a person reads it: ``default`` in the reader's
    language (the name itself stays English in the study's files)."""
    return pgettext("variant", "default") if label == "default" else label


# ---------------------------------------------------------------------- the study
@dataclass
class Study:
    """A study's plan: the variants, the agent, the games per variant, the seed; and the
    file that keeps its games."""

    game_id: str
    games: list[Game[Any]]
    agent: str
    count: int
    seed: int
    path: Path
    varied: tuple[str, ...]
    played: dict[str, dict[int, GameFacts]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.games:
            raise BoardlabError(_("a study needs at least one variant"))
        make_agent(self.agent, game=self.game_id).check(self.games[0])

    def key(self, game: Game[Any]) -> str:
        """A variant's games in the file: its rules as they play, the agent, the seed."""
        text = json.dumps([_canonical(game), self.agent, self.seed], sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def load(self) -> None:
        """The games the file already holds (of any variant: a later study may use them);
        a last line cut short by a stop is dropped and played again."""
        self.played = {}
        if not self.path.exists():
            return
        try:
            lines = self.path.read_text(encoding="utf-8").splitlines()
        except UnicodeDecodeError:
            raise BoardlabError(
                _("{path} is not a study file (not UTF-8 text)").format(path=self.path)
            ) from None
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                data = json.loads(line)
                if data.get("kind") != KIND:
                    raise ValueError
                facts = GameFacts(**{k: data[k] for k in GameFacts.__dataclass_fields__})
                self.played.setdefault(str(data["variant"]), {})[facts.index] = facts
            except (ValueError, KeyError, TypeError, AttributeError):
                if number == len(lines):
                    break
                raise BoardlabError(
                    _("{path}, line {number}: not a study game").format(
                        path=self.path, number=number
                    )
                ) from None

    def missing(self) -> list[tuple[str, dict[str, Any], str, int, int]]:
        """The games to play, as ``study_game`` arguments: the first of every variant,
        then the second of every variant..., so that a partial study covers them all."""
        tasks = []
        for index in range(self.count):
            for game in self.games:
                if index not in self.played.get(self.key(game), {}):
                    tasks.append((self.game_id, dict(game.options), self.agent, index, self.seed))
        return tasks

    def run(
        self, backend: Backend | None = None, progress: Callable[[int, int], None] | None = None
    ) -> list[Summary]:
        """Play the missing games on ``backend`` (default: every core of this machine),
        each on disk as it ends; the summaries of every variant."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.load()
        cut_short(self.path)
        tasks = self.missing()
        done = self.count * len(self.games) - len(tasks)
        if progress:
            progress(done, self.count * len(self.games))
        keys = {_canonical(g): self.key(g) for g in self.games}
        with closing((backend or LocalBackend()).unordered(study_game, tasks)) as finished:
            for task, facts in finished:
                variant = keys[_canonical(new_game(self.game_id, task[1]))]
                line = {"kind": KIND, "variant": variant, **asdict(facts)}
                append_line(self.path, json.dumps(line))
                self.played.setdefault(variant, {})[facts.index] = facts
                done += 1
                if progress:
                    progress(done, self.count * len(self.games))
        return self.summaries()

    def summaries(self) -> list[Summary]:
        """Every variant's summary over its first ``count`` games in the file."""
        rows = []
        for game in self.games:
            kept = self.played.get(self.key(game), {})
            facts = [kept[i] for i in range(self.count) if i in kept]
            rows.append(summarise(game, label(game, self.varied), facts))
        return rows


# ---------------------------------------------------------------------- summaries
@dataclass(frozen=True)
class Summary:
    """What a variant's games show."""

    label: str
    options: dict[str, OptionValue]
    games: int
    first: Score  # the first player's wins, draws and losses
    lengths: tuple[int, ...]  # actions per game, in game order
    turns: float
    lead_changes: float
    decisiveness: float | None
    branching: float
    margin: float
    exact: int | None  # the start's exact value for the first player, where known

    @property
    def first_score(self) -> float:
        return self.first.mean

    @property
    def draw_rate(self) -> float:
        return self.first.draws / self.games if self.games else 0.0

    def row(self) -> dict[str, Any]:
        """The summary as a flat table row (CSV and JSON)."""
        low, high = self.first.interval()
        lengths = sorted(self.lengths) or [0]
        return {
            "variant": self.label,
            "options": " ".join(f"{k}={_text(v)}" for k, v in self.options.items()),
            "games": self.games,
            "first_wins": self.first.wins,
            "draws": self.first.draws,
            "first_losses": self.first.losses,
            "first_score": round(self.first_score, 4),
            "first_score_low": round(low, 4),
            "first_score_high": round(high, 4),
            "draw_rate": round(self.draw_rate, 4),
            "length_mean": round(statistics.fmean(lengths), 2),
            "length_median": statistics.median(lengths),
            "length_p10": _quantile(lengths, 0.1),
            "length_p90": _quantile(lengths, 0.9),
            "turns_mean": round(self.turns, 2),
            "lead_changes_mean": round(self.lead_changes, 3),
            "decisiveness_mean": None if self.decisiveness is None else round(self.decisiveness, 3),
            "branching_mean": round(self.branching, 2),
            "margin_mean": round(self.margin, 2),
            "exact_value": self.exact,
        }


def summarise(game: Game[Any], name: str, facts: Sequence[GameFacts]) -> Summary:
    from boardlab.solve import start_value

    wins = sum(f.score == 1.0 for f in facts)
    draws = sum(f.score == 0.5 for f in facts)
    decided = [f.decisiveness for f in facts if f.decisiveness is not None]
    return Summary(
        name,
        game.effective_options(),
        len(facts),
        Score(wins, draws, len(facts) - wins - draws),
        tuple(f.actions for f in facts),
        _mean(f.turns for f in facts),
        _mean(f.lead_changes for f in facts),
        statistics.fmean(decided) if decided else None,
        _mean(f.branching for f in facts),
        _mean(f.margin for f in facts),
        start_value(game),
    )


def _mean(values: Iterator[float] | Any) -> float:
    found = list(values)
    return statistics.fmean(found) if found else 0.0


def _quantile(ordered: Sequence[int], share: float) -> int:
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _text(value: OptionValue) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)
