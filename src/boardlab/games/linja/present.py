"""Linja as the tools show it: the eight rows as a board model, the anatomy of each
action, the narration of what it did (the follow-up count, the bonus, the extra turn),
and the evaluation the searching agents use."""

from __future__ import annotations

import math
from functools import cache
from typing import TYPE_CHECKING

from boardlab.core.board import ActionParts, Board, Note, Piece, Place, Tally, label
from boardlab.core.game import Feature
from boardlab.core.i18n import N_, _, counted, pgettext
from boardlab.games.linja.rules import (
    BLACK,
    BONUS,
    CAPACITY,
    FOLLOW_UP,
    NASTY,
    OPENING,
    PASS,
    PIECES,
    ROWS,
    LinjaState,
    goal,
)

if TYPE_CHECKING:
    from boardlab.games.linja.game import Linja

SYMBOLS = ("B", "R")
ZONES = {0: N_("black start, red goal"), ROWS - 1: N_("red start, black goal")}


def due(state: LinjaState) -> str:
    """The phase in words: ``opening move``, ``follow-up of 3 rows``, ``bonus move of 1
    row (or pass)``, ``... of the extra turn``."""
    if state.phase == OPENING:
        return _("opening move of the extra turn") if state.extra else _("opening move")
    if state.phase == BONUS:
        return _("bonus move of 1 row (or pass)")
    if state.extra:
        return counted(
            state.steps,
            "follow-up of {n} row of the extra turn",
            "follow-up of {n} rows of the extra turn",
        )
    return counted(state.steps, "follow-up of {n} row", "follow-up of {n} rows")


def board_model(game: Linja, state: LinjaState) -> Board:
    """Rows 7 (Red's start, Black's goal) down to 0 under a heading, one line each: the
    row number, the row with both colours' pieces, and what the row is (a start zone, a
    goal, full)."""
    places = [label("rows", 0, 0, _("row"))]
    for row in range(ROWS):
        y = ROWS - row
        black, red = state.counts[BLACK][row], state.counts[1 - BLACK][row]
        places.append(label(f"row {row}", 0, y, str(row)))
        places.append(row_place(row, black, red))
        if row in ZONES:
            note = _(ZONES[row])
        else:
            note = pgettext("row", "full") if black + red >= CAPACITY else ""
        if note:
            places.append(label(f"about row {row}", 2, y, note))
    over = game.outcome_of(state) is not None
    points = game.points(state)
    return Board(
        width=3,
        height=ROWS + 1,
        places=tuple(places),
        tallies=((Tally(points[0], "point", "points"),), (Tally(points[1], "point", "points"),)),
        to_act=None if over else state.side,
        due="" if over else due(state),
        notes=(_("points as if the game ended now"),),
    )


@cache
def row_place(row: int, black: int, red: int) -> Place:
    """Row ``row`` with ``black`` and ``red`` pieces on it: made once (a server
    describes thousands of boards a minute)."""
    pieces = tuple(
        Piece("piece", side, count=n, symbol=SYMBOLS[side])
        for side, n in ((0, black), (1, red))
        if n
    )
    return Place(str(row), "row", 1, ROWS - row, pieces=pieces)


def action_parts(state: LinjaState, action: int) -> ActionParts:
    if action == PASS:
        label = _("decline the bonus") if state.phase == BONUS else _("pass")
        return ActionParts("pass", (), label)
    kind = {OPENING: "opening", FOLLOW_UP: "follow-up", BONUS: "bonus"}[state.phase]
    origin, to = divmod(action % NASTY, ROWS)
    places = (str(origin), str(to))
    if action >= NASTY:
        return ActionParts("bonus", places, f"o{origin}-{to}", owner=1 - state.side)
    return ActionParts(kind, places, f"{origin}-{to}")


def narrate(game: Linja, state: LinjaState, action: int) -> list[Note]:
    side = state.side
    parts = action_parts(state, action)
    values: dict[str, object] = {"player": game.player_name(side), "action": parts.label}
    if action == PASS:
        if state.phase == BONUS:
            return [Note("decline", _("{player} declines the bonus move."), values)]
        if state.extra:
            text = _("{player} has no opening move in the extra turn; the turn ends.")
            return [Note("pass", text, values)]
        return [Note("pass", _("{player} has no opening move and passes."), values)]
    if action >= NASTY:
        values["action"] = parts.label[1:]
        text = _("Bonus: {player} moves an opponent piece {action}.")
        return [Note("bonus", text, values, parts.places)]
    origin, to = divmod(action, ROWS)
    if state.phase == BONUS:
        if (to - origin) * (1 if side == 0 else -1) > 0:
            text = _("Bonus: {player} moves {action}, one row forward.")
        else:
            text = _("Bonus: {player} moves {action}, one row back.")
        return [Note("bonus", text, values, parts.places)]
    new = game.apply(state, action)
    continues = new.side == side
    if state.phase == OPENING:
        notes = [Note("opening", _("{player} opens {action}."), values, parts.places)]
        if to == goal(side):
            if new.phase == FOLLOW_UP and continues:
                text = _("The piece reaches the goal: a follow-up of 1 row.")
            elif new.phase == BONUS:
                text = _("The piece reaches the goal: a bonus move.")
            else:
                text = _("The piece reaches the goal: no follow-up.")
            return [*notes, Note("goal", text)]
        there = new.counts[0][to] + new.counts[1][to] - 1
        count = {
            "row": to,
            "pieces": counted(there, "{n} piece", "{n} pieces"),
            "rows": counted(there, "{n} row", "{n} rows"),
        }
        if there == 0:
            notes.append(Note("no_follow_up", _("Row {row} was empty: no follow-up."), count))
        elif new.phase == FOLLOW_UP and continues:
            text = _("Row {row} held {pieces}: a follow-up of {rows}.")
            notes.append(Note("follow_up_due", text, count))
        else:
            text = _(
                "Row {row} held {pieces}, but no piece can move {rows}: the follow-up is forfeited."
            )
            notes.append(Note("forfeit", text, count))
        return notes
    notes = [Note("follow_up", _("{player} follows up {action}."), values, parts.places)]
    if new.phase == BONUS:
        text = _("The piece enters the goal with exactly {steps}: a bonus move.")
        steps = counted(state.steps, "{n} step", "{n} steps")
        notes.append(Note("bonus_due", text, {"steps": steps}))
    elif new.phase == OPENING and continues:
        text = _("It ends in row {row}, which was empty: an extra turn.")
        notes.append(Note("extra_turn", text, {"row": to}))
    elif to == goal(side) and abs(to - origin) < state.steps:
        text = _("It overshoots into the goal: the surplus steps are lost.")
        notes.append(Note("overshoot", text))
    return notes


def evaluate(game: Linja, state: LinjaState, player: int) -> float:
    """The points each side would have if the game ended now, plus progress: rows still
    to go cost a little, since they are moves the opponent may not have to make."""
    black, red = game.points(state)
    advance_black = sum(n * r for r, n in enumerate(state.counts[BLACK]))
    advance_red = sum(n * (ROWS - 1 - r) for r, n in enumerate(state.counts[1 - BLACK]))
    diff = (black - red) + 0.25 * (advance_black - advance_red)
    return 0.9 * math.tanh((diff if player == BLACK else -diff) / 12.0)


def observation_layout(game: Linja) -> tuple[Feature, ...]:
    return (
        Feature("own_pieces", ROWS, "the observer's pieces in rows 0-7 / 12"),
        Feature("opponent_pieces", ROWS, "the opponent's pieces in rows 0-7 / 12"),
        Feature("phase", 3, "1 for what is due: opening, follow-up, bonus"),
        Feature("follow_up", 1, "rows the follow-up due must go / 7 (0 outside it)"),
        Feature("extra", 1, "1 inside the extra turn of ruleset extra-turn"),
        Feature("passes", 1, "consecutive pass turns / 2"),
        Feature("turns", 1, "completed turns / max_turns"),
        Feature("observer", 1, "0 when Black observes, 1 when Red does"),
        Feature("to_act", 1, "1 when the observer is to act"),
    )


def observation(game: Linja, state: LinjaState, me: int) -> list[float]:
    return [
        *(n / PIECES for n in state.counts[me]),
        *(n / PIECES for n in state.counts[1 - me]),
        *(float(state.phase == phase) for phase in (OPENING, FOLLOW_UP, BONUS)),
        state.steps / (ROWS - 1),
        float(state.extra),
        state.passes / 2,
        state.turns / game.rules.max_turns,
        float(me),
        float(me == state.side),
    ]
