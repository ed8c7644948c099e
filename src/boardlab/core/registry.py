"""The registry of games: ids to Game classes, so every tool can list and build them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from boardlab.core.errors import UnknownGameError, clipped
from boardlab.core.game import Game
from boardlab.core.i18n import _

_GAMES: dict[str, type[Game[Any]]] = {}

G = TypeVar("G", bound=type[Game[Any]])


def register(cls: G) -> G:
    """Class decorator: make a game available under its ``id``."""
    _GAMES[cls.id] = cls
    return cls


def unregister(game_id: str) -> None:
    """Remove a game from the registry (a game a test registered for itself)."""
    _GAMES.pop(game_class(game_id).id)


def game_ids() -> list[str]:
    """The ids of every registered game, in registration order."""
    return list(_GAMES)


def game_class(game_id: str) -> type[Game[Any]]:
    try:
        return _GAMES[game_id.strip().lower()]
    except KeyError:
        known = ", ".join(_GAMES)
        raise UnknownGameError(
            _("unknown game {game!r}: the games are {known}").format(
                game=clipped(game_id), known=known
            )
        ) from None


def new_game(game_id: str, options: Mapping[str, Any] | None = None, **kwargs: Any) -> Game[Any]:
    """The game ``game_id`` with the given options (Python values or ``key=value`` text
    values); unknown options and bad values raise OptionError listing what is allowed."""
    return game_class(game_id)(options, **kwargs)
