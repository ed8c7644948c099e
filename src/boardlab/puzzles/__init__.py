"""Puzzles proven by the solvers: generated, checked, rated and played."""
