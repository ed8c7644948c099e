"""Deliberately simple, independent reference implementations used only by the tests.

Written from the rules cards (docs/games) alone, never from src/boardlab.
Each module has the same string-based interface: DEFAULTS, initial, legal, play, outcome.
"""
