"""boardlab: reference engines for Jin Li, Linja and Galatjang.

>>> import boardlab
>>> game = boardlab.new_game("jinli", stones=6)
>>> position = game.initial().play("a1-b2").play("@d4")
>>> position.position_string()
'Y5Y/7/7/3o3/7/1R5/6R y m 5/6 0/0 0 1'
"""

from boardlab.core.errors import (
    BoardlabError,
    IllegalActionError,
    InvalidNotationError,
    OptionError,
    UnknownGameError,
)
from boardlab.core.game import Game, Outcome, Position
from boardlab.core.options import Option, OptionSchema
from boardlab.core.registry import game_class, game_ids, new_game, register
from boardlab.games import Galatjang, JinLi, Linja

__version__ = "0.1.0"

__all__ = [
    "BoardlabError",
    "Galatjang",
    "Game",
    "IllegalActionError",
    "InvalidNotationError",
    "JinLi",
    "Linja",
    "Option",
    "OptionError",
    "OptionSchema",
    "Outcome",
    "Position",
    "UnknownGameError",
    "__version__",
    "game_class",
    "game_ids",
    "new_game",
    "register",
]
