"""Galatjang's exact endgames: the ``Solver`` face of ``boardlab.games.galatjang.endgames`` (every
last-round position with up to K seeds in the pits, built by ``boardlab solve
galatjang``; a memoised search where no table is built)."""

from __future__ import annotations

from typing import Any

from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game
from boardlab.games.galatjang import endgames
from boardlab.solve import Progress, Solver, SolveRequest, ensure_table
from boardlab.solve.tables import read_header


class GalatjangSolver(Solver):
    covers = "every last-round position with up to K seeds in the pits"
    needs_table = False
    sized = True

    def __init__(self, endgame: endgames.GalatjangEndgame) -> None:
        self.endgame = endgame

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
        return self.endgame.action_values(state)

    def unreached(self, state: Any) -> str:
        return "the position is not in the last round, or has too many seeds in the pits"

    @classmethod
    def solve(cls, game: Game[Any], request: SolveRequest, progress: Progress) -> list[str]:
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
        return [
            f"{game.name} endgames: {path} ({size:.2f} GB, built in "
            f"{header['build_seconds']:.0f} s)",
            f"every last-round position with at most {header['max_seeds']} seeds in the pits "
            f"is solved; `boardlab analyze {game.id} --position POS` shows its exact values "
            "and the perfect level plays them",
        ]
