"""Boards drawn as SVG from the game's board model, for the browser and the rules pages:
any registered game draws, and no game is named here.

Squares, pits, stores and rows become shapes; pieces of a player are discs in his colour
(a neutral piece a grey stone), counted pieces a number; labels are text. Every playing
place carries ``data-place`` with its name, the name actions use, so a page turns clicks
into actions with ``Game.action_parts``; the places the last turn touched are marked and
chosen places (the targets of a selected piece) get a dot. Each place has a ``<title>``
that says what stands on it, for screen readers and tooltips, in the current language.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from boardlab.core.board import Board, Place
from boardlab.core.game import Game
from boardlab.core.i18n import SOURCE, _, language, pgettext

#: The board's own style sheet, inside every SVG (a page's Content-Security-Policy allows
#: exactly this text by its hash).
STYLE = (
    "text{font-family:sans-serif;text-anchor:middle;dominant-baseline:central}"
    ".label{fill:#666;font-size:15px}.count{font-size:20px;font-weight:bold}"
)
CELL = 56  # the height of a grid line, and the least width of a column
PIECE_GAP = 16  # the distance between the discs of a row's pieces
MARK = "#ffd54f"  # the last turn's places: a yellow both colour-blind kinds tell apart
NEUTRAL = "#8d8d8d"  # a piece of nobody's
SURFACE = {"square": "#e8f1f5", "pit": "#f4ead7", "store": "#efe2c6", "row": "#f6f0e2"}


def column_widths(board: Board) -> list[int]:
    """Each grid column as wide as its widest place needs: a row holds its pieces side by
    side, a label its text."""
    widths = [CELL] * board.width
    for place in board.places:
        if place.kind == "row":
            need = PIECE_GAP * (place.count() + 2)
        elif place.kind == "label":
            need = 9 * len(place.text) + 16
        else:
            need = CELL
        widths[place.x] = max(widths[place.x], need)
    return widths


def board_svg(
    game: Game[Any],
    board: Board,
    marked: Collection[str] = (),
    targets: Collection[str] = (),
    title: str = "",
) -> str:
    """The board as an SVG document (a string), ``marked`` places outlined, ``targets``
    dotted."""
    return "\n".join(draw(game, board, marked, targets, title).lines)


@dataclass(frozen=True)
class Drawing:
    """A board drawn: the SVG's lines (each place one line, so a page can be sent only
    the lines of the places that changed), and what they were drawn from, so that the
    next board of the game redraws only what differs (``draw``)."""

    lines: list[str]
    places: tuple[Place, ...]
    marked: frozenset[str]
    targets: frozenset[str]
    widths: list[int]


def draw(
    game: Game[Any],
    board: Board,
    marked: Collection[str] = (),
    targets: Collection[str] = (),
    title: str = "",
    before: Drawing | None = None,
) -> Drawing:
    """``board`` drawn, ``marked`` places outlined, ``targets`` dotted. Given the drawing
    ``before`` it (the game's board one change ago), a place that is the same object as
    there (presenters hand out one object for each place and what stands on it) and
    keeps its mark keeps its line: a change redraws the few places it touched, not all."""
    marks = frozenset(marked)
    places = board.places
    if before is not None and (targets or before.targets or len(before.places) != len(places)):
        before = None  # nothing to take from it
    changed: list[int] = []
    if before is not None:
        changed = [
            k for k, (p, q) in enumerate(zip(places, before.places, strict=True)) if p is not q
        ]
        if any(p.kind in ("row", "label") for k in changed for p in (places[k], before.places[k])):
            before = None  # the columns' widths may differ: drawn whole
    widths = before.widths if before is not None else column_widths(board)
    left = [sum(widths[:x]) for x in range(board.width + 1)]
    height = CELL * board.height
    label = title or _("{game} board").format(game=game.name)
    head = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {left[-1]} {height}" '
        f'width="{left[-1]}" height="{height}" role="group" class="board" '
        f"aria-label={quoteattr(label)}>",
        f"<style>{STYLE}</style>",
    ]
    if len(DRAWN) >= MOST_KINDS:
        DRAWN.clear()
    drawn = DRAWN.setdefault((game.id, game.colours, language()), {})
    if len(drawn) >= MOST_DRAWN:
        drawn.clear()

    def line(place: Place) -> str:
        x = left[place.x]
        w = left[place.x + place.width] - x
        key = (place, x, w, place.name in marks, place.name in targets)
        found = drawn.get(key)
        if found is None:
            found = drawn[key] = _line(game, place, x, w, key[3], key[4])
        return found

    if before is not None:
        lines = list(before.lines)
        lines[: len(head)] = head
        flipped = marks ^ before.marked
        again = set(changed)
        if flipped:
            again.update(k for k, place in enumerate(places) if place.name in flipped)
        for k in again:
            lines[len(head) + k] = line(places[k])
    else:
        lines = [*head, *(line(place) for place in places), "</svg>"]
    return Drawing(lines, places, marks, frozenset(targets), widths)


def _line(game: Game[Any], place: Place, x: int, w: int, marked: bool, target: bool) -> str:
    """The line of the SVG that draws ``place`` at ``x``, ``w`` wide."""
    y, h = CELL * place.y, CELL * place.height
    if place.kind == "label":
        return f'<text class="label" x="{x + w / 2}" y="{y + h / 2}">{escape(place.text)}</text>'
    return _place(game, place, x, y, w, h, marked, target)


#: Places drawn already, by game, colours and language, then by all else that decides
#: their drawing: a board differs from the one before it in a few places, so a server
#: draws a position mostly from here.
DRAWN: dict[tuple[Any, ...], dict[tuple[Any, ...], str]] = {}
MOST_DRAWN, MOST_KINDS = 20_000, 64


def _place(
    game: Game[Any], place: Place, x: int, y: int, w: int, h: int, marked: bool, target: bool
) -> str:
    """One playing place: its shape, what stands on it, its title and its marks."""
    stroke = MARK if marked else "#9e9e9e"
    width = 4 if marked else 1
    owner = "" if place.owner is None else f" owner-{place.owner}"
    out = [
        f"<g class={quoteattr(f'place {place.kind}{owner}')} data-place={quoteattr(place.name)}>",
        f"<title>{escape(describe(game, place))}</title>",
    ]
    fill = "#d9d9d9" if place.blocked else SURFACE[place.kind]
    cx, cy = x + w / 2, y + h / 2
    if place.kind == "pit":
        ring = game.colours[place.owner] if place.owner is not None else stroke
        out.append(
            f'<circle class="shape" cx="{cx}" cy="{cy}" r="{CELL * 0.4}" fill="{fill}" '
            f'stroke="{MARK if marked else ring}" stroke-width="{width + 1}"/>'
        )
    else:
        radius = 18 if place.kind == "store" else 4
        edge = stroke
        if place.owner is not None and not marked:
            edge, width = game.colours[place.owner], 2
        out.append(
            f'<rect class="shape" x="{x + 3}" y="{y + 3}" width="{w - 6}" height="{h - 6}" '
            f'rx="{radius}" fill="{fill}" stroke="{edge}" stroke-width="{width}"/>'
        )
    out.extend(_pieces(game, place, x, cx, cy))
    if target:  # in the corner, clear of what stands on the place
        out.append(f'<circle class="target" cx="{x + w - 13}" cy="{y + 13}" r="6" fill="#2e7d32"/>')
    out.append("</g>")
    return "".join(out)


def _pieces(game: Game[Any], place: Place, x: int, cx: float, cy: float) -> list[str]:
    if place.blocked:
        return [f'<text class="count" x="{cx}" y="{cy}" fill="#777">x</text>']
    if any(piece.counted for piece in place.pieces):
        return [f'<text class="count" x="{cx}" y="{cy}">{place.count()}</text>']
    out = []
    if place.kind == "row":  # each player's pieces side by side, in his colour
        k = 0
        for piece in place.pieces:
            for _ in range(piece.count):
                k += 1
                out.append(_disc(game, piece.owner, x + PIECE_GAP * k, cy, 7))
        return out
    for piece in place.pieces:
        out.append(_disc(game, piece.owner, cx, cy, 19 if piece.owner is not None else 14))
    return out


def _disc(game: Game[Any], owner: int | None, cx: float, cy: float, r: float) -> str:
    colour = NEUTRAL if owner is None else game.colours[owner]
    return f'<circle cx="{cx}" cy="{cy}" r="{r}" fill="{colour}" stroke="#333" stroke-width="1.5"/>'


def describe(game: Game[Any], place: Place) -> str:
    """What a person hears for a place: its name, then each piece in the game's words
    (``Game.piece_word``) with its owner and count (``d4: red koi``, ``s3: 7 seeds``;
    ``d4: Koi von Rot``), or ``empty``."""
    if place.blocked:
        blocked = pgettext("place", "blocked")
        return f"{place.name}: {blocked}"
    things = []
    for piece in place.pieces:
        if piece.count == 0:
            continue
        noun = game.piece_word(piece.kind, piece.count)
        if piece.owner is None:
            things.append(noun if piece.count == 1 else f"{piece.count} {noun}")
            continue
        whose = owner_words(game, piece.owner)
        if piece.count == 1:
            things.append(_("{player} {piece}").format(player=whose, piece=noun))
        else:
            thing = _("{count} {player} {pieces}")
            things.append(thing.format(count=piece.count, player=whose, pieces=noun))
    said = ", ".join(things) or pgettext("place", "empty")
    return f"{place.name}: {said}"


def owner_words(game: Game[Any], player: int) -> str:
    """Whose pieces they are: in English the player's colour as an adjective, as the
    records write it (``red koi``); in another language the translated name, which its
    phrase places (``Koi von Rot``)."""
    return game.players[player] if language() == SOURCE else game.player_name(player)
