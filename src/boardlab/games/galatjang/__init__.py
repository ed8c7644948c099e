"""Galatjang: a mancala from Makassar with relay sowing."""

from boardlab.games.galatjang.game import Galatjang
from boardlab.games.galatjang.rules import GalatjangState

__all__ = ["Galatjang", "GalatjangState"]
