"""Exact solvers: a game that declares one (``Game.solver``) gives exact values of its
positions from a table built once (``boardlab solve``), and the perfect player, ``analyze``
and the review read them through the ``Solver`` interface below, never by the game's name.

Tables store one signed byte per position in a table file (``tables.py``, flat or in
compressed blocks): a header that names the game, the rules the values hold under and a
checksum, then the values, read memory-mapped so that a player starts at once and pays
only for the pages (or blocks) it touches.
Solvers need numpy and numba: the ``fast`` extra.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game
from boardlab.core.i18n import _
from boardlab.extras import import_extra

#: ``progress(label, unit)``: a context giving ``update(done, total)`` (a progress bar).
Progress = Callable[[str, str], AbstractContextManager[Callable[[int, int], None]]]


@dataclass(frozen=True)
class SolveRequest:
    """What ``boardlab solve`` asks: where the table goes (None: the default place),
    whether to build it again or check its checksum, and a size for solvers that build
    tables of a chosen reach (the most seeds in the pits of an endgame table)."""

    out: Path | None = None
    rebuild: bool = False
    verify: bool = False
    max_seeds: int | None = None
    start: bool = False  # also solve the start above the table, with a certificate
    certificate: Path | None = None  # where that certificate goes (None: beside the run)
    check: Path | None = None  # only check this certificate
    #: A folder where the build keeps what it has done and goes on from when started
    #: again (the server's background builds: ``boardlab.solve.resume``).
    work: Path | None = None
    #: A table that reaches less, for tests only (a game solved whole: its levels from
    #: this one up).
    lowest: int = 0


class Solver(ABC):
    """Exact values of a game's positions: the final point difference for the player to
    act under perfect play, for every legal action."""

    #: What the table covers, in a few words for help texts (marked with ``N_``).
    covers: ClassVar[str]
    #: True if there are no exact values without a table (the game is solved whole);
    #: False if the solver also searches where no table is built (endgames).
    needs_table: ClassVar[bool]
    #: Whether ``SolveRequest.max_seeds`` means something to this solver.
    sized: ClassVar[bool] = False
    #: Whether it solves the start above its table and checks certificates
    #: (``SolveRequest.start``, ``certificate``, ``check``).
    proves_start: ClassVar[bool] = False

    @classmethod
    @abstractmethod
    def open(cls, game: Game[Any]) -> Solver:
        """The solver for ``game``'s rules; a TableError that names the command which
        builds the table when one is needed and missing."""

    @classmethod
    @abstractmethod
    def table_exists(cls, game: Game[Any]) -> bool:
        """Whether the table for ``game``'s rules is built."""

    @classmethod
    def table_path(cls, game: Game[Any]) -> Path | None:
        """Where the table for ``game``'s rules lives (None: rules without a table)."""
        return None

    @abstractmethod
    def action_values(self, state: Any) -> dict[int, int] | None:
        """Every legal action's exact value, or None where the solver does not reach."""

    def unreached(self, state: Any) -> str:
        """Why ``state`` has no exact value, for a person (in the current language)."""
        return _("the position lies beyond the solver's reach")

    @classmethod
    def start_value(cls, game: Game[Any]) -> int | None:
        """The exact value of the start for the first player, where it is known: here
        from the table or the search where they reach; a solver may also know values
        proven once and published (without their table)."""
        if cls.needs_table and not cls.table_exists(game):
            return None
        values = open_solver(game).action_values(game.initial_state())
        return max(values.values()) if values else None

    @classmethod
    @abstractmethod
    def solve(cls, game: Game[Any], request: SolveRequest, progress: Progress) -> list[str]:
        """Build (or read) the table as asked; the lines that report what it holds."""


def solver_class(game: Game[Any]) -> type[Solver] | None:
    """The solver a game declares, imported on first use; None if it has none. Solvers
    need the ``fast`` extra: without it, a BoardlabError says what to install."""
    if game.solver is None:
        return None
    module, _sep, name = game.solver.partition(":")
    needed_by = _("{game}'s exact play").format(game=game.name)
    found: type[Solver] = getattr(import_extra(module, needed_by, _("the solvers")), name)
    return found


_OPEN: dict[tuple[Any, ...], Solver] = {}


def open_solver(game: Game[Any]) -> Solver:
    """The game's solver for its rules, opened once per process and table folder."""
    from boardlab.solve.tables import table_dir

    cls = solver_class(game)
    if cls is None:
        raise BoardlabError(_("{game} has no solver").format(game=game.name))
    # a table built since (by the server, in the background) is opened then
    key = (game, str(table_dir()), cls.table_exists(game))
    if key not in _OPEN:
        _OPEN[key] = cls.open(game)
    return _OPEN[key]


def exact_values(game: Game[Any], state: Any) -> dict[int, int] | None:
    """Every legal action's exact value in ``state`` when a solver reaches it (and its
    table is built, where it needs one), else None; never raises for a missing extra."""
    cls = solver_class_or_none(game)
    if cls is None or (cls.needs_table and not cls.table_exists(game)):
        return None
    return open_solver(game).action_values(state)


def start_value(game: Game[Any]) -> int | None:
    """The exact value of ``game``'s start for the first player where a solver knows it,
    else None; never raises for a missing extra or rules a solver refuses."""
    cls = solver_class_or_none(game)
    if cls is None:
        return None
    try:
        return cls.start_value(game)
    except BoardlabError:
        return None


def solver_class_or_none(game: Game[Any]) -> type[Solver] | None:
    """``solver_class``, with None also when the ``fast`` extra is missing."""
    try:
        return solver_class(game)
    except BoardlabError:
        return None


def best_line(game: Game[Any], state: Any, length: int = 12) -> list[int]:
    """An exact principal variation from ``state``: the best action by the solver at
    each step, as long as the solver reaches and the game goes on."""
    line: list[int] = []
    while len(line) < length and game.outcome_of(state) is None:
        values = exact_values(game, state)
        if not values:
            break
        action = max(values, key=lambda a: values[a])
        line.append(action)
        state = game.apply(state, action)
    return line


def ensure_table(
    path: Path,
    request: SolveRequest,
    build: Callable[[Path, Callable[[int, int], None]], Any],
    label: str,
    unit: str,
    progress: Progress,
) -> dict[str, Any]:
    """Build the table at ``path`` unless it exists (or ``rebuild``), check its checksum
    if asked; its header. ``label`` and ``unit`` are shown on the progress bar: the
    caller passes them in the current language."""
    from boardlab.solve.tables import open_table

    if request.rebuild or not path.exists():
        print(_("building {path} ...").format(path=path), flush=True)
        with progress(label, unit) as update:
            build(path, update)
    table = open_table(path)
    if request.verify:
        with progress(_("checksum"), _("bytes")) as update:
            table.verify(update)
        print(_("checksum verified"))
    return table.header


__all__ = [
    "Progress",
    "SolveRequest",
    "Solver",
    "best_line",
    "ensure_table",
    "exact_values",
    "open_solver",
    "solver_class",
    "start_value",
]
