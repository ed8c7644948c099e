"""Galatjang's exact endgames: the ``Solver`` face of ``boardlab.games.galatjang.endgames`` (every
last-round position with up to K seeds in the pits, built by ``boardlab solve
galatjang``; a memoised search where no table is built)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game
from boardlab.core.registry import new_game
from boardlab.games.galatjang import endgames, solution
from boardlab.games.galatjang.certificate import Certificate, check, principal_line
from boardlab.solve import Progress, Solver, SolveRequest, best_line, ensure_table
from boardlab.solve.tables import read_header

#: Positions the search above the table may visit for one query of the perfect player or
#: ``analyze`` (a few seconds): the start of the default game needs about 730,000.
ABOVE_BUDGET = 3_000_000


class GalatjangSolver(Solver):
    covers = "every last-round position with up to K seeds in the pits"
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
            return (
                "the position is not in the last round, or has too many seeds in the pits "
                "for a search without the endgame table (`boardlab solve galatjang` builds it)"
            )
        return "the position is not in the last round, or its search passed the budget"

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
            lambda target, update: endgames.GalatjangEndgame.build(game, seeds, target, update),
            f"solving {game.name} endgames up to {seeds} seeds",
            "positions",
            progress,
        )
        size = path.stat().st_size / 1e9
        lines = [
            f"{game.name} endgames: {path} ({size:.2f} GB, built in "
            f"{header['build_seconds']:.0f} s)",
            f"every last-round position with at most {header['max_seeds']} seeds in the pits "
            f"is solved; `boardlab analyze {game.id} --position POS` shows its exact values "
            "and the perfect level plays them",
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
    player = game.players[game.to_act(start)]
    verdict = (
        "a draw"
        if value == 0
        else f"{player} {'wins' if value > 0 else 'loses'} by {abs(value)} seeds"
    )
    position = game.initial()
    line = principal_line(certificate)
    line += best_line(game, position.play_all(line).state, 200)
    best = [game.format_action(start, a) for a, v in values.items() if v == value]
    return [
        f"start value {value:+d} for {player}: {verdict} with perfect play",
        "first sowings: "
        + ", ".join(f"{game.format_action(start, a)} {v:+d}" for a, v in values.items())
        + f" (best: {', '.join(best)})",
        f"principal variation: {' '.join(position.line_strings(line))}",
        f"searched {sum(progress.nodes.values()):,} positions above the table "
        f"(K={endgame.max_seeds}) in {sum(progress.seconds.values()):.1f} s; "
        f"{seconds:.1f} s in all; checkpoints in {folder}",
        f"certificate: {target}",
        f"certificate checked: {checked.claims:,} claims, {checked.choices_used:,} choices, "
        f"{checked.table_leaves:,} table leaves, {checked.ends:,} ends of the round",
    ]


def _check(path: Path, table: Path | None) -> list[str]:
    """Check a certificate with the engine (and the table its leaves are in)."""
    certificate = Certificate.read(path)
    game = new_game("galatjang", certificate.options)
    endgame = None
    if certificate.table_seeds >= 0:
        endgame = endgames.GalatjangEndgame.load(game, table)
    checked = check(certificate, None if endgame is None else endgame.table)
    player = game.players[game.to_act(game.from_position_string(certificate.position).state)]
    return [
        f"certificate checked: {certificate.position} is worth exactly {certificate.value:+d} "
        f"to {player} ({checked.claims:,} claims, {checked.choices_used:,} choices, "
        f"{checked.table_leaves:,} table leaves, {checked.ends:,} ends of the round)"
    ]
