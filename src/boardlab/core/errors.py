"""The errors boardlab raises: one small family, all of them ``ValueError``.

Every message quotes the input that was refused and says what would have been valid,
so the command line can show it as one line and a program can catch one base class.
"""

from __future__ import annotations


class BoardlabError(ValueError):
    """Root of every error about input given to boardlab."""


class InvalidNotationError(BoardlabError):
    """Text that cannot be parsed: an action, a position string, a record."""


class IllegalActionError(BoardlabError):
    """An action that parses but is not allowed in the position it was played in."""


class OptionError(BoardlabError):
    """An unknown option, or a value outside what the option allows."""


class UnknownGameError(BoardlabError):
    """A game id that is not registered."""


#: The most of a refused input a message quotes: enough to recognise it, never a copy
#: of whatever was sent.
QUOTED = 80


def clipped(text: object, most: int = QUOTED) -> str:
    """``text`` as an error message quotes it: cut after ``most`` characters."""
    shown = str(text)
    return shown if len(shown) <= most else shown[:most] + "…"
