"""The win search a game without a solver declares (``Game.wins``): it proves forced
wins within a few of a player's own turns, and so proves that game's puzzles where no
exact values exist. The puzzle package reads it through this module, never by the
game's name."""

from __future__ import annotations

from typing import Any, Protocol

from boardlab.core.errors import BoardlabError
from boardlab.core.game import Game
from boardlab.core.i18n import _
from boardlab.extras import import_extra


class WinSearch(Protocol):
    """What a game's win search offers."""

    #: The own turns within which a puzzle's forced win is looked for.
    horizon: int

    def turns(self, state: Any, player: int, horizon: int) -> dict[int, int | None]:
        """For each legal action, the least number of ``player``'s own turns (at most
        ``horizon``; when he is to act, this one counts as the first) within which he
        forces a win after it; None where he does not."""

    def goal(self) -> str:
        """What a player aims at, to end "after this, {player} can stop you ...", in
        words in the current language."""


_OPEN: dict[Game[Any], WinSearch] = {}


def win_search(game: Game[Any]) -> WinSearch | None:
    """The game's win search for its rules, made once per process; None if it declares
    none. It needs the ``fast`` extra: without it, a BoardlabError says what to install."""
    if game.wins is None:
        return None
    if game not in _OPEN:
        module, _sep, name = game.wins.partition(":")
        needed_by = _("{game}'s forced wins").format(game=game.name)
        _OPEN[game] = getattr(import_extra(module, needed_by, _("the solvers")), name)(game)
    return _OPEN[game]


def win_search_or_none(game: Game[Any]) -> WinSearch | None:
    """``win_search``, with None also when the ``fast`` extra is missing."""
    try:
        return win_search(game)
    except BoardlabError:
        return None


def searched(game: Game[Any] | type[Game[Any]]) -> bool:
    """Whether ``game``'s puzzles are proven by its win search (it has no solver)."""
    return game.solver is None and game.wins is not None
