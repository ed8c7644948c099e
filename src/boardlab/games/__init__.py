"""The games: importing this package registers every one of them, in this order."""

# isort: skip_file
from boardlab.games.jinli import JinLi
from boardlab.games.linja import Linja
from boardlab.games.galatjang import Galatjang

__all__ = ["Galatjang", "JinLi", "Linja"]
