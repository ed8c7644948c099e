"""Boards drawn for the terminal with Rich: colour where the terminal has it, and marks
that read without colour too (``NO_COLOR``): the squares, rows or pits the last turn
touched are bracketed, and the player to act is marked with ``>``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text

from boardlab.core.game import Position
from boardlab.games.galatjang.rules import BLOCKED, pit_count, pit_index, store_index
from boardlab.games.jinli.rules import DROP, GIVE, PASS, SIZE, step
from boardlab.games.linja.rules import NASTY, ROWS

#: The last turn: the position before each of its actions, and the action.
LastTurn = Sequence[tuple[Position[Any], int]]

PLAYER_STYLE = {
    "red": "bold red",
    "yellow": "bold yellow",
    "black": "bold bright_white",
    "south": "bold green",
    "north": "bold cyan",
}


def player_text(name: str) -> Text:
    return Text(name.capitalize(), style=PLAYER_STYLE.get(name, "bold"))


def view(position: Position[Any], last: LastTurn = ()) -> RenderableType:
    """The board of ``position`` with the last turn marked, and a status block."""
    drawers = {"jinli": jinli_view, "linja": linja_view, "galatjang": galatjang_view}
    group = drawers[position.game.id](position, last)
    assert isinstance(group, Group)
    for line in group.renderables:
        if isinstance(line, Text):
            line.rstrip()
    return group


def turn_words(position: Position[Any]) -> str:
    if position.is_over():
        return f"game over after {position.turns} turns"
    return f"turn {position.turns + 1}"


def cell(text: str, style: str, marked: bool) -> Text:
    return Text(f"[{text}]" if marked else f" {text} ", style=style)


# ---------------------------------------------------------------------- Jin Li
def jinli_view(position: Position[Any], last: LastTurn) -> RenderableType:
    state, game = position.state, position.game
    marked: set[int] = set()
    for _, action in last:
        if action == PASS:
            continue
        if action >= GIVE:
            marked.add(action - GIVE)
        elif action >= DROP:
            marked.add(action - DROP)
        else:
            origin, kind = divmod(action, 16)
            marked.update((origin, step(origin, kind & 7, 2 if kind >= 8 else 1)))
    files = Text("     " + "".join(f" {f} " for f in "abcdefg"), style="dim")
    lines: list[RenderableType] = [files]
    for rank in range(SIZE - 1, -1, -1):
        line = Text()
        line.append(f"  {rank + 1}  ", style="dim")
        for file in range(SIZE):
            square = rank * SIZE + file
            bit = 1 << square
            if state.koi[0] & bit:
                line.append(cell("R", "bold red", square in marked))
            elif state.koi[1] & bit:
                line.append(cell("Y", "bold yellow", square in marked))
            elif state.stones & bit:
                line.append(cell("o", "white", square in marked))
            else:
                line.append(cell(".", "dim", square in marked))
        line.append(f"  {rank + 1}", style="dim")
        lines.append(line)
    lines.append(files)
    target = game.options["target"]
    for side, name in enumerate(game.players):
        row = Text(" > " if side == state.side and not position.is_over() else "   ")
        row.append(player_text(name))
        row.append(f"{'':<{7 - len(name)}}{state.score[side]:>3} points")
        stones = "stone" if state.supply[side] == 1 else "stones"
        row.append(f"   {state.supply[side]:>2} {stones} in supply")
        lines.append(row)
    doing = {"m": "to swim or jump", "d": "to drop a stone", "g": "to give a stone back"}
    due = "" if position.is_over() else f", {position.player} {doing[position.phase]}"
    lines.append(Text(f"   {turn_words(position)}{due}, target {target} points", style="dim"))
    return Group(*lines)


# ---------------------------------------------------------------------- Linja
def linja_view(position: Position[Any], last: LastTurn) -> RenderableType:
    state, game = position.state, position.game
    notes: dict[int, list[str]] = {}
    for before, action in last:
        if action >= 2 * NASTY:
            continue
        to = action % NASTY % ROWS
        notes.setdefault(to, []).append(before.action_string(action))
    lines: list[RenderableType] = [Text("  row  black         red", style="dim")]
    for row in range(ROWS - 1, -1, -1):
        black, red = state.counts[0][row], state.counts[1][row]
        line = Text()
        line.append(f"   {row}   ", style="dim")
        line.append(f"{'B' * black:<13}", style="bold bright_white")
        line.append(f"{'R' * red:<13}", style="bold red")
        label = {0: "black start, red goal", 7: "red start, black goal"}.get(row, "")
        if 0 < row < ROWS - 1 and black + red >= 6:
            label = "full"
        line.append(f"{label:<22}", style="dim")
        if row in notes:
            line.append("<- " + " ".join(notes[row]), style="bold")
        lines.append(line)
    points = game.points(state)
    for side, name in enumerate(game.players):
        row_text = Text(" > " if side == state.side and not position.is_over() else "   ")
        row_text.append(player_text(name))
        row_text.append(f"{'':<{6 - len(name)}}{points[side]:>4} points if the game ended now")
        lines.append(row_text)
    lines.append(Text(f"   {turn_words(position)}, {phase_words(position)}", style="dim"))
    return Group(*lines)


def phase_words(position: Position[Any]) -> str:
    """The Linja phase in words."""
    if position.is_over():
        return "no move due"
    phase = position.phase
    extra = " of the extra turn" if phase.endswith("+") else ""
    kind = phase.rstrip("+")
    if kind == "o":
        return f"opening move{extra} due"
    if kind == "b":
        return "bonus move due (or pass)"
    rows = "row" if kind[1:] == "1" else "rows"
    return f"follow-up of {kind[1:]} {rows}{extra} due"


# ---------------------------------------------------------------------- Galatjang
def galatjang_view(position: Position[Any], last: LastTurn) -> RenderableType:
    state, game = position.state, position.game
    pits = pit_count(state)
    sown = {pit_index(pits, before.to_act, action) for before, action in last}

    def pit(side: int, number: int) -> Text:
        k = pit_index(pits, side, number)
        seeds = state.ring[k]
        style = PLAYER_STYLE[game.players[side]]
        shown = "x" if seeds == BLOCKED else str(seeds)
        text = f"[{shown:>2}]" if k in sown else f" {shown:>2} "
        return Text(text, style="dim" if seeds == BLOCKED else style)

    north_labels = Text("         " + "".join(f" n{p + 1:<3}" for p in reversed(range(pits))))
    south_labels = Text("         " + "".join(f" s{p + 1:<3}" for p in range(pits)))
    north = Text("         ")
    for p in reversed(range(pits)):
        north.append(pit(1, p)).append(" ")
    south = Text("         ")
    for p in range(pits):
        south.append(pit(0, p)).append(" ")
    stores = Text(" North ", style="bold cyan")
    stores.append(f"{state.ring[store_index(pits, 1)]:>2}", style="bold cyan")
    stores.append(" " * (5 * pits))
    stores.append(f"{state.ring[store_index(pits, 0)]:>2}", style="bold green")
    stores.append(" South", style="bold green")
    lines: list[RenderableType] = [
        Text(str(north_labels).rstrip(), style="dim"),
        north,
        stores,
        south,
        Text(str(south_labels).rstrip(), style="dim"),
    ]
    rounds = int(game.options["rounds"])
    for side, name in enumerate(game.players):
        row = Text(" > " if side == state.side and not position.is_over() else "   ")
        row.append(player_text(name))
        seeds = sum(
            max(state.ring[k], 0)
            for k in range(pit_index(pits, side, 0), pit_index(pits, side, 0) + pits)
        )
        blocked = sum(state.ring[pit_index(pits, side, p)] == BLOCKED for p in range(pits))
        row.append(f"{'':<{6 - len(name)}}{position.points[side]:>3} in store, {seeds:>2} in pits")
        if blocked:
            row.append(f", {blocked} blocked", style="dim")
        lines.append(row)
    where = f"round {state.round} of {rounds}, " if rounds > 1 else ""
    due = "" if position.is_over() else f", {position.player} to sow"
    lines.append(Text(f"   {where}{turn_words(position)}{due}", style="dim"))
    return Group(*lines)
