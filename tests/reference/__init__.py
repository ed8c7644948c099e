"""Deliberately simple, independent reference implementations used only by the tests.

Written from /work/shared/RULES.md and the seed texts alone (never from src/boardlab).
Each module has the same string-based interface: DEFAULTS, initial, legal, play, outcome.
"""
