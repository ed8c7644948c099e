"""Matches between agents: games played in parallel, results with confidence intervals."""

from boardlab.arena.match import GameResult, MatchResult, play_game, play_match
from boardlab.arena.stats import Score, elo_difference, score_interval

__all__ = [
    "GameResult",
    "MatchResult",
    "Score",
    "elo_difference",
    "play_game",
    "play_match",
    "score_interval",
]
