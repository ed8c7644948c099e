"""Galatjang's exact endgames: the ``Solver`` face of ``boardlab.games.galatjang.endgames`` (every
last-round position with up to K seeds in the pits, built by ``boardlab solve
galatjang``; a memoised search where no table is built)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game
from boardlab.core.i18n import N_, _
from boardlab.core.registry import new_game
from boardlab.games.galatjang import endgames, solution
from boardlab.games.galatjang.certificate import Certificate, check, principal_line
from boardlab.solve import Progress, Solver, SolveRequest, best_line, ensure_table
from boardlab.solve.tables import read_header

#: Positions the search above the table may visit for one query of the perfect player or
#: ``analyze`` (a few seconds): the start of the default game needs about 730,000.
ABOVE_BUDGET = 3_000_000


class GalatjangSolver(Solver):
    covers = N_("every last-round position with at most 24 seeds in the pits")  # DEFAULT_MAX_SEEDS
    needs_table = False
    sized = True
    proves_start = True

    def __init__(self, endgame: endgames.GalatjangEndgame) -> None:
        self.endgame = endgame
        self.book = solution.read_book(endgame.game)
        self._above: solution.StartSolver | None = None

    @classmethod
    def open(cls, game: Game[Any]) -> GalatjangSolver:
        return cls(endgames.GalatjangEndgame.load(game, missing_ok=True))

    @classmethod
    def table_exists(cls, game: Game[Any]) -> bool:
        try:
            return endgames.default_table_path(game).exists()
        except BoardlabError:  # rules that have no endgame table
            return False

    @classmethod
    def table_path(cls, game: Game[Any]) -> Path | None:
        try:
            return endgames.default_table_path(game)
        except BoardlabError:
            return None

    def action_values(self, state: Any) -> dict[int, int] | None:
        """From the table or the endgame search, else the opening book, else (with a
        table built) the search above the table, within a budget."""
        found = self.endgame.action_values(state)
        if found is None:
            found = self.book.get(self.endgame.game.format_state(state))
        if found is None and self.endgame.max_seeds is not None:
            if self._above is None:
                try:
                    self._above = solution.StartSolver(self.endgame.game, self.endgame, 22)
                except BoardlabError:  # rules the search above the table does not play
                    return None
            found = self._above.values_within(state, ABOVE_BUDGET)
        return found

    def unreached(self, state: Any) -> str:
        if self.endgame.max_seeds is None:
            return _(
                "the position is not in the last round, or has too many seeds in the pits "
                "for a search without the endgame table (`boardlab solve galatjang` builds it)"
            )
        return _("the position is not in the last round, or its search passed the budget")

    @classmethod
    def solve(cls, game: Game[Any], request: SolveRequest, progress: Progress) -> list[str]:
        if request.check is not None:
            return _check(request.check, request.out)
        path = request.out or endgames.default_table_path(game)
        seeds = endgames.DEFAULT_MAX_SEEDS if request.max_seeds is None else request.max_seeds
        rebuild = request.rebuild or (
            request.max_seeds is not None
            and path.exists()
            and read_header(path).get("max_seeds") != seeds
        )
        header = ensure_table(
            path,
            SolveRequest(request.out, rebuild, request.verify, seeds),
            lambda target, update: endgames.GalatjangEndgame.build(
                game, seeds, target, update, request.work
            ),
            _("solving {game} endgames up to {seeds} seeds").format(game=game.name, seeds=seeds),
            _("positions"),
            progress,
        )
        size = path.stat().st_size / 1e9
        lines = [
            _("{game} endgames: {path} ({size:.2f} GB, built in {seconds:.0f} s)").format(
                game=game.name, path=path, size=size, seconds=header["build_seconds"]
            ),
            _(
                "every last-round position with at most {seeds} seeds in the pits is solved; "
                "`boardlab analyze {id} --position POS` shows its exact values and the perfect "
                "level plays them"
            ).format(seeds=header["max_seeds"], id=game.id),
        ]
        if request.start:
            lines += _start(game, path, request.certificate)
        return lines


def _start(game: Game[Any], path: Path, certificate_path: Path | None) -> list[str]:
    """Solve the start above the table at ``path``, write and check its certificate."""
    endgame = endgames.GalatjangEndgame.load(game, path)
    name = "-".join(game.option_assignments()) or "default"
    folder = path.parent / f"galatjang-start-{name}"
    began = time.perf_counter()
    solver, progress = solution.solve_start(game, endgame, folder, report=print)
    start = game.initial_state()
    values = progress.values
    value = max(values.values())
    certificate = solution.certify(solver, start, value)
    target = certificate.save(certificate_path or folder / "certificate.json")
    seconds = time.perf_counter() - began
    checked = check(certificate, endgame.table)
    player = game.side_word(game.to_act(start))
    if value == 0:
        verdict = _("start value {value:+d} for {player}: a draw with perfect play")
    elif value > 0:
        verdict = _(
            "start value {value:+d} for {player}: {player} wins by {margin} seeds with perfect play"
        )
    else:
        verdict = _(
            "start value {value:+d} for {player}: {player} loses by {margin} seeds with perfect "
            "play"
        )
    position = game.initial()
    line = principal_line(certificate)
    line += best_line(game, position.play_all(line).state, 200)
    best = [game.format_action(start, a) for a, v in values.items() if v == value]
    sowings = ", ".join(f"{game.format_action(start, a)} {v:+d}" for a, v in values.items())
    return [
        verdict.format(value=value, player=player, margin=abs(value)),
        _("first sowings: {sowings} (best: {best})").format(sowings=sowings, best=", ".join(best)),
        _("principal variation: {line}").format(line=" ".join(position.line_strings(line))),
        _(
            "searched {nodes:,} positions above the table (K={seeds}) in {search:.1f} s; "
            "{seconds:.1f} s in all; checkpoints in {folder}"
        ).format(
            nodes=sum(progress.nodes.values()),
            seeds=endgame.max_seeds,
            search=sum(progress.seconds.values()),
            seconds=seconds,
            folder=folder,
        ),
        _("certificate: {path}").format(path=target),
        _(
            "certificate checked: {claims:,} claims, {choices:,} choices, {leaves:,} table "
            "leaves, {ends:,} ends of the round"
        ).format(
            claims=checked.claims,
            choices=checked.choices_used,
            leaves=checked.table_leaves,
            ends=checked.ends,
        ),
    ]


def _check(path: Path, table: Path | None) -> list[str]:
    """Check a certificate with the engine (and the table its leaves are in)."""
    certificate = Certificate.read(path)
    game = new_game("galatjang", certificate.options)
    endgame = None
    if certificate.table_seeds >= 0:
        endgame = endgames.GalatjangEndgame.load(game, table)
    checked = check(certificate, None if endgame is None else endgame.table)
    player = game.side_word(game.to_act(game.from_position_string(certificate.position).state))
    return [
        _(
            "certificate checked: {position} is worth exactly {value:+d} to {player} "
            "({claims:,} claims, {choices:,} choices, {leaves:,} table leaves, {ends:,} ends "
            "of the round)"
        ).format(
            position=certificate.position,
            value=certificate.value,
            player=player,
            claims=checked.claims,
            choices=checked.choices_used,
            leaves=checked.table_leaves,
            ends=checked.ends,
        )
    ]
