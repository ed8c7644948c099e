"""Linja solved whole: the ``Solver`` face of ``boardlab.games.linja.solution`` (the table of every
position of a variant, built by ``boardlab solve linja``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from boardlab.core.game import Game, Position
from boardlab.core.i18n import N_, _, pgettext
from boardlab.games.linja import solution as table
from boardlab.solve import Progress, Solver, SolveRequest, ensure_table
from boardlab.solve.tables import TableError, read_header


class LinjaSolver(Solver):
    covers = N_("every position of the variant")
    needs_table = True

    def __init__(self, solution: table.LinjaSolution) -> None:
        self.solution = solution

    @classmethod
    def open(cls, game: Game[Any]) -> LinjaSolver:
        return cls(table.LinjaSolution.load(game))  # type: ignore[arg-type]

    @classmethod
    def table_exists(cls, game: Game[Any]) -> bool:
        return table.LinjaSolution.available(game)  # type: ignore[arg-type]

    @classmethod
    def table_path(cls, game: Game[Any]) -> Path | None:
        return table.default_path(game)  # type: ignore[arg-type]

    @classmethod
    def start_value(cls, game: Game[Any]) -> int | None:
        """From the table when it is built, else from the values proven and published."""
        found = super().start_value(game)
        if found is None:
            found = table.START_VALUES.get(table.variant_name(game))  # type: ignore[arg-type]
        return found

    def action_values(self, state: Any) -> dict[int, int] | None:
        if not self.solution.in_reach(state):
            return None
        return self.solution.action_values(state)

    def unreached(self, state: Any) -> str:
        return _(
            "the position lies beyond the table's reach (the turn cap could end the game first)"
        )

    @classmethod
    def solve(cls, game: Game[Any], request: SolveRequest, progress: Progress) -> list[str]:
        if request.max_seeds is not None:
            raise TableError(_("--max-seeds is for endgame tables: Linja is solved whole"))
        path = request.out or table.default_path(game)  # type: ignore[arg-type]
        name = table.variant_name(game)  # type: ignore[arg-type]
        header = ensure_table(
            path,
            request,
            lambda target, update: table.build(
                game,  # type: ignore[arg-type]
                target,
                update,
                request.lowest,
                request.work,
            ),
            _("solving {game} {variant}").format(game=game.name, variant=name),
            pgettext("progress", "levels"),
            progress,
        )
        if header.get("format") == table.FLAT_FORMAT:
            # A table of format 1 (flat, 2.36 GiB): converted, not built again.
            print(_("compacting {path} ...").format(path=path), flush=True)
            with progress(_("compacting"), pgettext("progress", "rows")) as update:
                table.compact(game, path, progress=update)  # type: ignore[arg-type]
            header = read_header(path)
        solution = table.LinjaSolution.load(game, path)  # type: ignore[arg-type]
        start = game.initial()
        size = path.stat().st_size / 1e9
        lines = [
            _("{game} {variant}: {path} ({size:.2f} GB, built in {seconds:.0f} s)").format(
                game=game.name,
                variant=name,
                path=path,
                size=size,
                seconds=header["build_seconds"],
            )
        ]
        if not solution.in_reach(start.state):
            partial = _("a partial table (progress {lowest} and more): the start is beyond it")
            return [*lines, partial.format(lowest=solution.lowest)]
        value = solution.value(start.state)
        first = start.game.side_word(start.to_act)
        if value == 0:
            verdict = _("start {position}: a draw with perfect play (value {value:+d})")
        elif value > 0:
            verdict = _(
                "start {position}: {player} wins by {margin} with perfect play (value {value:+d})"
            )
        else:
            verdict = _(
                "start {position}: {player} loses by {margin} with perfect play (value {value:+d})"
            )
        turns = [" ".join(_strings(start, t)) for t in solution.best_turns(start.state)]
        return [
            *lines,
            verdict.format(
                position=start.position_string(), player=first, margin=abs(value), value=value
            ),
            _("optimal first turns ({count}): {turns}").format(
                count=len(turns), turns=", ".join(turns)
            ),
        ]


def _strings(position: Position[Any], actions: tuple[int, ...]) -> list[str]:
    words = []
    for action in actions:
        words.append(position.action_string(action))
        position = position.play(action)
    return words
