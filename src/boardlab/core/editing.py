"""The tools of a position editor, as data: what a palette offers and what each tool
does to a place, so a page can draw the palette (the piece a tool puts, in the board's
own drawing) and a test can check any game's tools without naming one.

The editor works on position strings, not states: while a player sets a position up it
passes through positions the rules refuse (a koi lifted before it is put elsewhere), so
``Game.edit`` changes a string without checking it, and the game's parser judges the
finished one.
"""

from __future__ import annotations

from dataclasses import dataclass

from boardlab.core.board import Piece
from boardlab.core.i18n import N_

#: What a tool does: ``put`` its piece on the place (replacing what stood there),
#: ``clear`` the place, ``add`` or ``remove`` one of its piece (nothing to remove leaves
#: the place as it was), ``block`` or unblock the place, ``switch`` the player to act.
EFFECTS = ("put", "clear", "add", "remove", "block", "switch")


@dataclass(frozen=True)
class EditTool:
    """One tool of a game's editor palette.

    ``id`` is a stable word for URLs and JSON (``red-koi``); ``label`` is English marked
    with ``N_``, shown through ``_``; ``kinds`` are the kinds of board place it changes
    (``square``, ``pit``...), empty for a tool that changes the whole position and takes
    no place; ``piece`` is what it puts, adds or removes, as the board model shows it.
    """

    id: str
    label: str
    kinds: tuple[str, ...]
    effect: str
    piece: Piece | None = None

    def __post_init__(self) -> None:
        if self.effect not in EFFECTS:
            raise ValueError(f"unknown edit effect {self.effect!r}: expected {EFFECTS}")


#: The tool every game with a turn order offers: the other player is to act.
SWITCH = EditTool("switch", N_("Switch the player to act"), (), "switch")
