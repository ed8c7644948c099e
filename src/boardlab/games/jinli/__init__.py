"""Jin Li: W. David MacKenzie's koi game on a 7x7 pond."""

from boardlab.games.jinli.game import JinLi
from boardlab.games.jinli.rules import JinLiState

__all__ = ["JinLi", "JinLiState"]
