"""The games: importing this package registers every one of them."""

from boardlab.games.galatjang import Galatjang
from boardlab.games.jinli import JinLi
from boardlab.games.linja import Linja

__all__ = ["Galatjang", "JinLi", "Linja"]
