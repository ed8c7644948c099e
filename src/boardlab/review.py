"""A game reviewed with the AI's eye: for every action, the best action, its value, the
value of the action played and what it lost, marked as an inaccuracy, a mistake or a
blunder.

Where a solver reaches the position (a game solved whole, with its table, or an endgame
within a solver's reach) the values are exact: points for the player to act. A drop of
the result by one class (a win to a draw, a draw to a loss) is a mistake, by two (a win
to a loss) a blunder, and points given away within the same result an inaccuracy.

Elsewhere an agent evaluates each position once, as chess reviewers do: the best value is
the agent's value of the position before the action (-1..1 for the player to act), the
played value its value of the position after it, seen by the same player. The loss is
their difference, zero when the agent would have played the same; 0.1 is an inaccuracy,
0.2 a mistake and 0.3 a blunder, the thresholds of winning-chance reviews.

Each side's accuracy is lichess's (``boardlab.solve.accuracy``) over its actions judged by
exact values only: the agent's values are estimates.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from boardlab.core.game import Game, Position
from boardlab.core.i18n import N_, _, counted, ngettext, noun
from boardlab.core.record import GameRecord

#: (least loss, mark) for agent values, the largest first. The marks are data (JSON, the
#: web page's classes); people read them through ``mark_name`` and ``mark_count``.
THRESHOLDS = ((0.3, "blunder"), (0.2, "mistake"), (0.1, "inaccuracy"))
SYMBOLS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}
MARKS = tuple(mark for _least, mark in reversed(THRESHOLDS))
#: Each mark in words.
MARK_NAMES = {
    "inaccuracy": N_("inaccuracy"),
    "mistake": N_("mistake"),
    "blunder": N_("blunder"),
}
#: Each mark counted, singular and plural.
MARK_COUNTS = {
    "inaccuracy": noun("{n} inaccuracy", "{n} inaccuracies"),
    "mistake": noun("{n} mistake", "{n} mistakes"),
    "blunder": noun("{n} blunder", "{n} blunders"),
}

Progress = Callable[[int, int], None]


def mark_name(mark: str) -> str:
    """A mark in words, in the current language: ``mistake``, ``Fehler``."""
    return _(MARK_NAMES[mark])


def mark_count(mark: str, n: int) -> str:
    """``n`` marks in words, in the current language: ``1 blunder``, ``2 inaccuracies``."""
    return counted(n, *MARK_COUNTS[mark])


@dataclass(frozen=True)
class ReviewItem:
    """One action judged: values are for ``player``, who played it."""

    ply: int
    player: int
    played: str
    best: str
    best_value: float
    played_value: float
    loss: float
    mark: str
    exact: bool


@dataclass
class Review:
    game: Game[Any]
    agent: str
    items: list[ReviewItem] = field(default_factory=list)

    def counts(self, player: int) -> dict[str, int]:
        """How many of each mark ``player`` earned."""
        return {
            mark: sum(i.mark == mark for i in self.items if i.player == player) for mark in MARKS
        }

    def counts_text(self, player: int) -> str:
        """``counts`` in words: ``0 inaccuracies, 2 mistakes, 1 blunder``."""
        return ", ".join(mark_count(mark, n) for mark, n in self.counts(player).items())

    def average_loss(self, player: int) -> float:
        """The mean loss of ``player``'s actions judged by the agent (exact points and
        agent values do not mix)."""
        losses = [i.loss for i in self.items if i.player == player and not i.exact]
        return sum(losses) / len(losses) if losses else 0.0

    def accuracy(self, player: int) -> tuple[float | None, int]:
        """``player``'s lichess-style accuracy (``boardlab.solve.accuracy``) over the
        actions judged by exact values, and how many there were: the agent's values are
        estimates, so they do not count. None without such actions."""
        from boardlab.solve.accuracy import game_accuracy, move_accuracy

        moves = [
            move_accuracy(i.best_value, i.played_value)
            for i in self.items
            if i.player == player and i.exact
        ]
        return game_accuracy(moves), len(moves)

    def to_dict(self) -> dict[str, Any]:
        players = []
        for k, name in enumerate(self.game.players):
            accuracy, exact = self.accuracy(k)
            players.append(
                {
                    "name": name,
                    "counts": self.counts(k),
                    "average_loss": round(self.average_loss(k), 4),
                    "accuracy": None if accuracy is None else round(accuracy, 1),
                    "exact_moves": exact,
                }
            )
        return {
            "game": self.game.id,
            "options": self.game.option_assignments(),
            "agent": self.agent,
            "items": [asdict(item) for item in self.items],
            "players": players,
        }


def review(
    record: GameRecord,
    agent: str = "hard",
    progress: Progress | None = None,
    *,
    first: int = 0,
    last: int | None = None,
) -> Review:
    """Judge every action of ``record`` (exact values where a solver reaches, else the
    agent's), or those of plies ``first`` to ``last`` (excluded): the items of slices
    that cover the game, put together, are the whole game's, so a long review can be
    made in parts. Each position is searched with a seed of its own, the same whichever
    slice asks."""
    from boardlab.ai import make_agent
    from boardlab.solve import exact_values

    game = record.game
    searcher = make_agent(agent, 0, game)
    searcher.check(game)
    values: dict[int, tuple[float, int | None]] = {}  # ply -> (value, best action)

    def judged(ply: int) -> tuple[float, int | None]:
        """The agent's value of position ``ply`` for its player to act, and its choice."""
        if ply not in values:
            position = record.positions[ply]
            outcome = position.outcome()
            if outcome is not None:
                values[ply] = (2 * outcome.score(position.to_act) - 1, None)
            else:
                searcher.reset()
                searcher.rng.seed(ply)
                analyze = getattr(searcher, "analyze", searcher.choose)
                choice = analyze(position)
                values[ply] = (choice.value or 0.0, choice.action)
        return values[ply]

    result = Review(game, agent)
    last = len(record.actions) if last is None else last
    total = last - first
    for ply in range(first, last):
        action = record.actions[ply]
        position = record.positions[ply]
        exact = exact_values(game, position.state)
        if exact is not None and action in exact:
            result.items.append(_exact_item(position, ply, action, exact))
        else:
            result.items.append(_agent_item(record, ply, action, judged))
        if progress is not None:
            progress(ply + 1 - first, total)
    return result


def _exact_item(
    position: Position[Any], ply: int, action: int, exact: dict[int, int]
) -> ReviewItem:
    best = max(exact, key=lambda a: exact[a])
    best_value, played_value = exact[best], exact[action]
    drop = _sign(best_value) - _sign(played_value)
    mark = {2: "blunder", 1: "mistake"}.get(drop, "inaccuracy" if played_value < best_value else "")
    return ReviewItem(
        ply=ply,
        player=position.to_act,
        played=position.action_string(action),
        best=position.action_string(best if played_value < best_value else action),
        best_value=best_value,
        played_value=played_value,
        loss=best_value - played_value,
        mark=mark,
        exact=True,
    )


def _agent_item(
    record: GameRecord,
    ply: int,
    action: int,
    judged: Callable[[int], tuple[float, int | None]],
) -> ReviewItem:
    position = record.positions[ply]
    best_value, best = judged(ply)
    after, _best = judged(ply + 1)
    following = record.positions[ply + 1]
    same = following.is_over() or following.to_act == position.to_act
    if following.is_over():
        outcome = following.outcome()
        assert outcome is not None
        after = 2 * outcome.score(position.to_act) - 1
    played_value = after if same else -after
    loss = 0.0 if best == action else max(0.0, best_value - played_value)
    mark = next((name for least, name in THRESHOLDS if loss >= least), "")
    return ReviewItem(
        ply=ply,
        player=position.to_act,
        played=position.action_string(action),
        best=position.action_string(action if best is None else best),
        best_value=round(best_value, 4),
        played_value=round(played_value, 4),
        loss=round(loss, 4),
        mark=mark,
        exact=False,
    )


def _sign(value: float) -> int:
    return (value > 0) - (value < 0)


def annotate(record: GameRecord, result: Review) -> GameRecord:
    """``record`` with each action's verdict in the comment after it (kept with any
    comment already there), as ``?! best s3 (+0.42), played +0.28``."""
    unit = ngettext(*result.game.point_words, 2)  # the plural, whatever the value
    for item in result.items:
        if item.exact:
            template = _("best {best} ({best_value:+.0f} {unit}, played {played_value:+.0f})")
        else:
            template = _("best {best} ({best_value:+.2f}, played {played_value:+.2f})")
        verdict = template.format(
            best=item.best, best_value=item.best_value, played_value=item.played_value, unit=unit
        )
        if item.mark:
            verdict = _("{symbol} {mark}: {verdict}").format(
                symbol=SYMBOLS[item.mark], mark=mark_name(item.mark), verdict=verdict
            )
        before = record.comments.get(item.ply + 1)
        record.comments[item.ply + 1] = f"{before} {verdict}" if before else verdict
    record.headers["Annotator"] = f"boardlab review ({result.agent})"
    return record
