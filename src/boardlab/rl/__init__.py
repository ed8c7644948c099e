"""Bridges from boardlab's games to reinforcement-learning and game-playing frameworks."""
