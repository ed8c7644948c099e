"""Small readers shared by the position-string parsers: each names the field it reads,
so an error says which part of which string was wrong and what it should look like."""

from __future__ import annotations

from boardlab.core.errors import InvalidNotationError, clipped
from boardlab.core.i18n import _


def split_fields(text: str, names: tuple[str, ...], game: str) -> list[str]:
    """The space-separated fields of a position string, exactly ``len(names)`` of them."""
    fields = text.split()
    if len(fields) != len(names):
        raise InvalidNotationError(
            _(
                "malformed {game} position string {text!r}: expected {count} fields "
                "({names}), got {got}"
            ).format(
                game=game,
                text=clipped(text),
                count=len(names),
                names=" ".join(names),
                got=len(fields),
            )
        )
    return fields


def is_number(word: str, digits: int = 9) -> bool:
    """ASCII digits only (not ``²``, ``①`` or full-width digits, which ``isdigit`` and
    ``int`` take), and few enough for any count in a game."""
    return 0 < len(word) <= digits and word.isascii() and word.isdigit()


def read_int(word: str, field: str, text: str, low: int = 0, high: int = 10**9) -> int:
    """A non-negative decimal integer in ``[low, high]``, in ASCII digits. ``field`` names
    the field in errors: its name in the format (``TURNS``), or words marked with ``N_``
    (``N_("pit")``), translated here."""
    if not is_number(word) or not low <= int(word) <= high:
        raise InvalidNotationError(
            _(
                "malformed {field} {word!r} in position string {text!r}: "
                "expected an integer from {low} to {high}"
            ).format(field=_(field), word=clipped(word), text=clipped(text), low=low, high=high)
        )
    return int(word)


def read_pair(word: str, field: str, text: str, high: int = 10**9) -> tuple[int, int]:
    """Two integers written ``a/b``."""
    parts = word.split("/")
    if len(parts) != 2:
        raise InvalidNotationError(
            _(
                "malformed {field} {word!r} in position string {text!r}: expected two numbers a/b"
            ).format(field=_(field), word=clipped(word), text=clipped(text))
        )
    return read_int(parts[0], field, text, 0, high), read_int(parts[1], field, text, 0, high)


def read_choice(word: str, field: str, text: str, choices: tuple[str, ...]) -> int:
    """The index of ``word`` among ``choices``."""
    if word not in choices:
        raise InvalidNotationError(
            _(
                "malformed {field} {word!r} in position string {text!r}: expected one of {choices}"
            ).format(
                field=_(field), word=clipped(word), text=clipped(text), choices=", ".join(choices)
            )
        )
    return choices.index(word)
