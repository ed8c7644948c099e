"""Exact solvers: the complete Linja table and Galatjang endgame tables.

Both store one signed byte per position in a table file (``tables.py``): a header that
names the game, the rules the values hold under and a checksum, then the values, read
memory-mapped so that a player starts at once and pays only for the pages it touches.
"""
