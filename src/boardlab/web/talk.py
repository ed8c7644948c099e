"""What players say to each other online: the name they give their seat and their chat
lines. Both are any text a person may type, checked here and shown as text everywhere
(an injected ``<script>`` is read, never run)."""

from __future__ import annotations

import unicodedata
from typing import Any

from boardlab.core.i18n import _
from boardlab.web.data import RequestError

#: The longest name a player may give.
MAX_NAME = 32
#: The longest line of chat.
MAX_LINE = 500
#: Lines a player may say in a game in ``CHAT_SECONDS``, to keep a chat readable.
CHAT_LINES, CHAT_SECONDS = 8, 10.0
#: The zero-width joiner, a format character that emoji sequences need.
JOINER = "\u200d"


def check_name(text: Any) -> str | None:
    """A player's name as they typed it, spaces tidied; None for no name."""
    if text is None:
        return None
    name = " ".join(str(text).split())
    if not name:
        return None
    if len(name) > MAX_NAME or not printable(name):
        raise RequestError(
            _(
                "bad name {name!r}: expected up to {most} letters, digits, spaces or signs "
                "on one line"
            ).format(name=str(text)[:60], most=MAX_NAME)
        )
    return name


def check_line(text: Any) -> str:
    """A line of chat as it will be shown: one line of up to ``MAX_LINE`` characters."""
    if not isinstance(text, str) or not text.strip():
        raise RequestError(
            _("empty chat line: expected {example} with some text").format(
                example='{"type": "chat", "text": "..."}'
            )
        )
    line = " ".join(text.split())
    if len(line) > MAX_LINE or not printable(line):
        raise RequestError(
            _(
                "bad chat line {text!r}: expected up to {most} characters of text on one line"
            ).format(text=text[:60], most=MAX_LINE)
        )
    return line


def printable(text: str) -> bool:
    """No control, format or unassigned characters, which could hide or reorder text
    (but the joiner of emoji sequences)."""
    return all(unicodedata.category(c)[0] != "C" or c == JOINER for c in text)
