"""boardlab: reference engines, AI and research tools for abstract strategy games.

Every game is registered under an id; a game with its options makes positions, which
play actions by their strings and tell their outcome:

>>> import boardlab
>>> game_id = boardlab.game_ids()[0]
>>> position = boardlab.new_game(game_id).initial()
>>> after = position.play(position.legal_action_strings()[0])
>>> boardlab.new_game(game_id).from_position_string(after.position_string()) == after
True

The games' own classes are in ``boardlab.games``; records are ``boardlab.GameRecord``.
"""

from boardlab import games
from boardlab.core.errors import (
    BoardlabError,
    IllegalActionError,
    InvalidNotationError,
    OptionError,
    UnknownGameError,
)
from boardlab.core.game import Game, Outcome, Position
from boardlab.core.options import Option, OptionSchema
from boardlab.core.record import GameRecord, RecordError, split_records
from boardlab.core.registry import game_class, game_ids, new_game, register
from boardlab.games import *  # noqa: F403 (each game's class, by the games' own list)

__version__ = "0.1.0"

__all__ = [
    "BoardlabError",
    "Game",
    "GameRecord",
    "IllegalActionError",
    "InvalidNotationError",
    "Option",
    "OptionError",
    "OptionSchema",
    "Outcome",
    "Position",
    "RecordError",
    "UnknownGameError",
    "__version__",
    "game_class",
    "game_ids",
    "games",
    "new_game",
    "register",
    "split_records",
    *games.__all__,
]
