"""Jin Li as the tools show it: the pond as a board model, the anatomy of each action,
the narration of what it did, and the evaluation the searching agents use."""

from __future__ import annotations

import math
from functools import cache
from typing import TYPE_CHECKING

from boardlab.core.board import ActionParts, Board, Note, Piece, Place, Tally, label
from boardlab.core.game import Feature
from boardlab.core.i18n import N_, _, language
from boardlab.games.jinli.rules import (
    ADJACENT,
    DROP,
    DROP_DUE,
    GIVE,
    GIVE_DUE,
    MOVE,
    PASS,
    SIZE,
    JinLiState,
    bits,
    step,
)

if TYPE_CHECKING:
    from boardlab.games.jinli.game import JinLi

FILES = "abcdefg"
#: What is due in each phase, marked for the catalogue (translated where shown).
DUE = {
    MOVE: N_("swim or jump"),
    DROP_DUE: N_("drop a stone"),
    GIVE_DUE: N_("give a stone back"),
}
SYMBOLS = ("R", "Y")


def square_name(square: int) -> str:
    return FILES[square % SIZE] + str(square // SIZE + 1)


def board_model(game: JinLi, state: JinLiState) -> Board:
    """The 7x7 pond on a 9x9 grid: rank 7 at the top, files and ranks labelled around."""
    places = list(LABELS)
    for square in range(SIZE * SIZE):
        bit = 1 << square
        if state.stones & bit:
            places.append(square_place(square, STONE))
        elif (state.koi[0] | state.koi[1]) & bit:
            places.append(square_place(square, 0 if state.koi[0] & bit else 1))
        else:
            places.append(square_place(square, None))
    over = game.outcome_of(state) is not None
    tallies = tuple(
        (
            Tally(state.score[side], "point", "points"),
            Tally(state.supply[side], "stone in supply", "stones in supply"),
        )
        for side in (0, 1)
    )
    return Board(
        width=SIZE + 2,
        height=SIZE + 2,
        places=tuple(places),
        tallies=(tallies[0], tallies[1]),
        to_act=None if over else state.side,
        due="" if over else _(DUE[state.phase]),
        notes=(_("target {target} points").format(target=game.options["target"]),),
    )


#: The files and ranks written around the pond.
LABELS = tuple(
    label(f"file {FILES[file]}", file + 1, y, FILES[file])
    for file in range(SIZE)
    for y in (0, SIZE + 1)
) + tuple(
    label(f"rank {rank + 1}", x, SIZE - rank, str(rank + 1))
    for rank in range(SIZE)
    for x in (0, SIZE + 1)
)
#: What stands on a square, for ``square_place``: a player's koi (0 or 1), a stone, None.
STONE = 2


@cache
def square_place(square: int, content: int | None) -> Place:
    """A square of the pond with a koi of player ``content``, a stone or nothing: made
    once, as a square holds one of four things (a server describes thousands of ponds)."""
    if content is None:
        pieces: tuple[Piece, ...] = ()
    elif content == STONE:
        pieces = (Piece("stone", None, symbol="o"),)
    else:
        pieces = (Piece("koi", content, symbol=SYMBOLS[content]),)
    x, y = square % SIZE + 1, SIZE - square // SIZE
    return Place(square_name(square), "square", x, y, pieces=pieces)


def action_parts(state: JinLiState, action: int) -> ActionParts:
    # an action names all it does, whatever the position: its parts are made once
    return parts_of(action, language())


@cache
def parts_of(action: int, lang: str) -> ActionParts:
    """The parts of ``action`` in ``lang`` (the current language)."""
    if action == PASS:
        return ActionParts("pass", (), _("pass"))
    if action >= GIVE:
        square = square_name(action - GIVE)
        return ActionParts(
            "give", (square,), _("give back the stone on {square}").format(square=square)
        )
    if action >= DROP:
        square = square_name(action - DROP)
        return ActionParts("drop", (square,), _("drop a stone on {square}").format(square=square))
    origin, kind = divmod(action, 16)
    jump = kind >= 8
    to = step(origin, kind & 7, 2 if jump else 1)
    text = f"{square_name(origin)}-{square_name(to)}"
    return ActionParts("jump" if jump else "swim", (square_name(origin), square_name(to)), text)


def narrate(game: JinLi, state: JinLiState, action: int) -> list[Note]:
    side = state.side
    who = game.player_name(side)
    parts = action_parts(state, action)
    if action == PASS:
        return [Note("pass", _("{player} has no swim or jump and passes."), {"player": who})]
    after = game.apply(state, action)
    if action >= GIVE:
        other = game.player_name(1 - side)
        return [
            Note(
                "give",
                _("{player} gives the stone on {square} back to {other}, then plays a turn."),
                {"player": who, "square": parts.places[0], "other": other},
                parts.places,
            )
        ]
    if action >= DROP:
        notes = [
            Note(
                "drop",
                _("{player} drops a stone on {square} ({left} left)."),
                {"player": who, "square": parts.places[0], "left": after.supply[side]},
                parts.places,
            )
        ]
        if after.phase == GIVE_DUE:
            giver = game.player_name(after.side)
            notes.append(
                Note(
                    "last_stone",
                    _("That was {player}'s last stone: {giver} gives one back."),
                    {"player": who, "giver": giver},
                )
            )
        return notes
    gained = after.score[side] - state.score[side]
    values: dict[str, object] = {"player": who, "action": parts.label}
    jump = parts.kind == "jump"
    if not gained:
        template = _("{player} jumps {action}.") if jump else _("{player} swims {action}.")
        return [Note(parts.kind, template, values, parts.places)]
    values.update(gained=gained, points=after.score[side])
    if jump:
        template = _("{player} jumps {action}, next to {gained} koi: +{gained} (now {points}).")
    else:
        template = _("{player} swims {action}, next to {gained} koi: +{gained} (now {points}).")
    return [Note(parts.kind, template, values, parts.places)]


def evaluate(game: JinLi, state: JinLiState, player: int) -> float:
    """Points count most, weighed against the target; then chances to score next: for
    each own koi, the other koi two squares away or closer (a swim lands next to them),
    minus the same for the opponent; and a little for stones still in supply."""
    target = int(game.options["target"])
    all_koi = state.koi[0] | state.koi[1]

    def chances(side: int) -> int:
        total = 0
        for square in bits(state.koi[side]):
            near = 0
            for n in bits(ADJACENT[square]):
                near |= ADJACENT[n]
            total += (near & all_koi & ~(1 << square)).bit_count()
        return total

    other = 1 - player
    score = (state.score[player] - state.score[other]) / max(target, 1) * 3.0
    score += 0.08 * (chances(player) - chances(other))
    score += 0.01 * (state.supply[player] - state.supply[other])
    return 0.9 * math.tanh(score)


def observation_layout(game: JinLi) -> tuple[Feature, ...]:
    squares = SIZE * SIZE
    return (
        Feature("own_koi", squares, "1 on each square with a koi of the observer"),
        Feature("opponent_koi", squares, "1 on each square with a koi of the opponent"),
        Feature("stones", squares, "1 on each square with a stone"),
        Feature("supplies", 2, "stones in supply / stones: the observer's, the opponent's"),
        Feature("points", 2, "points / target, at most 1: the observer's, the opponent's"),
        Feature("phase", 3, "1 for what is due: swim or jump, drop, give back"),
        Feature("passes", 1, "consecutive passes / 2"),
        Feature("turns", 1, "completed turns / max_turns"),
        Feature("observer", 1, "0 when Red observes, 1 when Yellow does"),
        Feature("to_act", 1, "1 when the observer is to act"),
    )


def observation(game: JinLi, state: JinLiState, me: int) -> list[float]:
    them = 1 - me
    r = game.rules
    stones = max(1, int(game.options["stones"]))
    squares = [
        float((board >> square) & 1)
        for board in (state.koi[me], state.koi[them], state.stones)
        for square in range(SIZE * SIZE)
    ]
    return [
        *squares,
        state.supply[me] / stones,
        state.supply[them] / stones,
        min(1.0, state.score[me] / r.target),
        min(1.0, state.score[them] / r.target),
        *(float(state.phase == phase) for phase in (MOVE, DROP_DUE, GIVE_DUE)),
        state.passes / 2,
        state.turns / r.max_turns,
        float(me),
        float(me == state.side),
    ]
