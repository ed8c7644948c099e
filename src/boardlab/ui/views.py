"""Boards drawn for the terminal with Rich, from the game's board model, so any game
draws: colour where the terminal has it, and marks that read without colour too
(``NO_COLOR``): the places the last turn touched are bracketed, and the player to act is
marked with ``>``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from boardlab.core.board import Board, Place
from boardlab.core.game import Game, Position
from boardlab.core.i18n import _, counted

#: The last turn: the position before each of its actions, and the action.
LastTurn = Sequence[tuple[Position[Any], int]]


def player_style(game: Game[Any], player: int) -> str:
    """The player's colour, bold; a colour too dark for a dark terminal is plain bold."""
    colour = game.colours[player]
    red, green, blue = (int(colour[k : k + 2], 16) for k in (1, 3, 5))
    dark = 0.2126 * red + 0.7152 * green + 0.0722 * blue < 64
    return "bold" if dark else f"bold {colour}"


def player_text(game: Game[Any], player: int) -> Text:
    return Text(game.player_name(player), style=player_style(game, player))


def touched(last: LastTurn) -> set[str]:
    """The places the actions of the last turn involved."""
    return {
        name
        for before, action in last
        for name in before.game.action_parts(before.state, action).places
    }


def cell_text(place: Place) -> str:
    """What a text board shows on a place: a label's text, the count of counted pieces,
    or one symbol a piece (``.`` for an empty square)."""
    if place.kind == "label":
        return place.text
    if place.blocked:
        return "x"
    if any(piece.counted for piece in place.pieces):
        return str(place.count())
    symbols = "".join(piece.symbol * piece.count for piece in place.pieces)
    return symbols or ("." if place.kind == "square" else "")


def view(position: Position[Any], last: LastTurn = ()) -> RenderableType:
    """The board of ``position`` with the last turn marked, and a status block."""
    game = position.game
    board = game.board_model(position.state)
    lines: list[RenderableType] = [*grid(game, board, touched(last)), *status(position, board)]
    for line in lines:
        if isinstance(line, Text):
            line.rstrip()
    return Group(*lines)


def grid(game: Game[Any], board: Board, marked: set[str]) -> list[Text]:
    """The places line by line; every column as wide as its widest text, a place drawn
    on the middle line of its span."""
    widths = [0] * board.width
    rows: list[dict[int, Place]] = [{} for _ in range(board.height)]
    for place in board.places:
        widths[place.x] = max(widths[place.x], len(cell_text(place)))
        rows[place.y + place.height // 2][place.x] = place
    lines = []
    for row in rows:
        line = Text("  ")
        for x, width in enumerate(widths):
            found = row.get(x)
            if found is None:
                line.append(" " * (width + 2))
                continue
            text = cell_text(found)
            shown = text.ljust(width) if found.kind == "row" else text.rjust(width)
            line.append(cell(game, found, shown, found.name in marked))
        lines.append(line)
    return lines


def cell(game: Game[Any], place: Place, shown: str, marked: bool) -> Text:
    """A place as text, bracketed when the last turn touched it: a count in its owner's
    colour, or each player's pieces in his colour (both players' in a shared row)."""
    if place.kind == "label":
        return Text(f" {shown} ", style="dim")
    left, right = ("[", "]") if marked else (" ", " ")
    text = Text(left, style="bold")
    if place.blocked or not shown.strip(" ."):
        text.append(shown, style="dim")
    elif place.owner is not None or any(piece.counted for piece in place.pieces):
        owner = place.owner
        text.append(shown, style=player_style(game, owner) if owner is not None else "")
    else:
        drawn = 0
        for piece in place.pieces:
            owner = piece.owner
            run = piece.symbol * piece.count
            text.append(run, style=player_style(game, owner) if owner is not None else "")
            drawn += len(run)
        text.append(" " * (len(shown) - drawn))
    text.append(right, style="bold")
    return text


def status(position: Position[Any], board: Board) -> list[Text]:
    """A line a player with his tallies, ``>`` at the one to act; then the turn, what is
    due and the game's notes."""
    game = position.game
    names = [game.player_name(side) for side in range(len(board.tallies))]
    width = max(len(name) for name in names)
    lines = []
    for side, tallies in enumerate(board.tallies):
        line = Text(" > " if side == board.to_act else "   ")
        line.append(player_text(game, side))
        line.append(" " * (width - len(names[side]) + 2))
        line.append(", ".join(str(tally) for tally in tallies))
        lines.append(line)
    if position.is_over():
        words = [counted(position.turns, "game over after {n} turn", "game over after {n} turns")]
    else:
        words = [
            _("turn {number}").format(number=position.turns + 1),
            f"{names[position.to_act]}: {board.due}",
        ]
    lines.append(Text("   " + ", ".join([*words, *board.notes]), style="dim"))
    return lines
