"""Linja: Steffen Mühlhäuser's race over seven bamboo sticks."""

from boardlab.games.linja.game import Linja
from boardlab.games.linja.rules import LinjaState

__all__ = ["Linja", "LinjaState"]
