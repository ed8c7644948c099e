"""What a game shows and explains, as data: the board model, the anatomy of an action and
the narration of what an action did. Renderers (the terminal, the browser's SVG) draw
from these and never look inside a game's state, so they serve any registered game.

The board is a grid of places. Each place has a name (the one actions use: ``d4``, ``s3``,
``5``), a kind that says how to draw it (``square``, ``pit``, ``store``, ``row``, or a
``label`` that only carries text), its cell in the grid (column ``x``, line ``y`` from the
top, and a span), and what stands on it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache, cached_property
from types import MappingProxyType
from typing import Any

from boardlab.core.i18n import ngettext

#: Kinds of place a renderer draws; ``label`` places carry only their text.
PLACE_KINDS = ("square", "pit", "store", "row", "label")


@dataclass(frozen=True)
class Piece:
    """Pieces of one kind and owner on a place: ``count`` of them. ``symbol`` is the
    letter a text renderer shows for one; a piece with ``counted`` is shown as a number
    (seeds in a pit), not one symbol a piece."""

    kind: str
    owner: int | None = None
    count: int = 1
    symbol: str = "*"
    counted: bool = False


@dataclass(frozen=True)
class Place:
    """One cell of the board (or a label beside it), with what stands on it."""

    name: str
    kind: str
    x: int
    y: int
    width: int = 1
    height: int = 1
    pieces: tuple[Piece, ...] = ()
    owner: int | None = None
    #: Text shown with the place: the name on a label, a note such as ``full`` on a row.
    text: str = ""
    blocked: bool = False

    def __post_init__(self) -> None:
        if self.kind not in PLACE_KINDS:
            raise ValueError(f"unknown place kind {self.kind!r}: expected {PLACE_KINDS}")

    def __hash__(self) -> int:
        return self._hash

    @cached_property
    def _hash(self) -> int:
        """Worked out once: a server looks each place up among those it has drawn, and
        presenters hand out the same places again (a square with a given piece on it,
        made once)."""
        return hash((self.name, self.kind, self.x, self.y, self.pieces, self.text, self.blocked))

    def __getstate__(self) -> dict[str, Any]:
        # a string's hash differs from process to process: another works its own out
        return {k: v for k, v in self.__dict__.items() if k != "_hash"}

    def count(self, owner: int | None = None) -> int:
        """Pieces here (of ``owner``'s, if given)."""
        return sum(p.count for p in self.pieces if owner is None or p.owner == owner)


@cache
def label(name: str, x: int, y: int, text: str) -> Place:
    """A label place, made once: a server describes thousands of boards a minute, and
    their labels are the same."""
    return Place(name, "label", x, y, text=text)


@dataclass(frozen=True)
class Tally:
    """A number a player has, with the words for it: ``5 stones in supply``."""

    value: int
    singular: str
    plural: str

    def __str__(self) -> str:
        return f"{self.value} {self.words}"

    @property
    def words(self) -> str:
        """The words for the value, in the current language (``stones in supply``)."""
        return ngettext(self.singular, self.plural, self.value)


@dataclass(frozen=True)
class Board:
    """A position as a renderer sees it: the places on a ``width`` x ``height`` grid,
    both players' tallies (points first), who is to act (None when the game is over)
    and what is due, in words."""

    width: int
    height: int
    places: tuple[Place, ...]
    tallies: tuple[tuple[Tally, ...], tuple[Tally, ...]]
    to_act: int | None
    #: What the player to act must do (``swim or jump``), empty when the game is over.
    due: str
    #: Facts of the whole game shown under the board (``target 10 points``).
    notes: tuple[str, ...] = ()

    def place(self, name: str) -> Place:
        """The place of that name (labels aside)."""
        for place in self.places:
            if place.name == name and place.kind != "label":
                return place
        raise KeyError(f"no place {name!r} on this board")

    def playing_places(self) -> tuple[Place, ...]:
        """The places actions can name: everything but labels."""
        return tuple(p for p in self.places if p.kind != "label")


@dataclass(frozen=True)
class ActionParts:
    """The anatomy of one action: its kind, and the places it involves in the order a
    person clicks them: one place (a drop, a pit sown), two (from, to), or none (pass,
    which a UI offers as a button with ``label``). ``owner`` is the player whose piece
    moves, when that is not the player to act."""

    kind: str
    places: tuple[str, ...]
    label: str
    owner: int | None = None


@dataclass(frozen=True)
class Note:
    """One sentence of narration as data: ``kind`` says what happened (``swim``,
    ``relay``, ``capture``...), ``template`` is the English sentence with ``{name}``
    fields filled from ``values``, and ``places`` are the board places it is about,
    in order (every seed's place for a sowing), so a renderer can animate them.
    ``sows`` says the pieces of the first place are lifted and dropped one by one on
    the places after it, which a renderer shows seed by seed."""

    kind: str
    template: str
    values: Mapping[str, Any] = field(default_factory=dict)
    places: tuple[str, ...] = ()
    sows: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", MappingProxyType(dict(self.values)))

    def __str__(self) -> str:
        return self.template.format(**self.values)


def plural(count: int, word: str, words: str | None = None) -> str:
    """``1 seed``, ``2 seeds`` (``words`` for an irregular plural)."""
    return f"{count} {word if count == 1 else words or word + 's'}"
