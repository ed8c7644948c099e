"""Galatjang as the tools show it: the ring of pits and stores as a board model, the
anatomy of a sowing, the narration of every seed, relay, capture and refill, and the
evaluation the searching agents use."""

from __future__ import annotations

import math
from functools import lru_cache
from typing import TYPE_CHECKING

from boardlab.core.board import ActionParts, Board, Note, Piece, Place, Tally, label
from boardlab.core.game import Feature
from boardlab.core.i18n import N_, _, counted
from boardlab.games.galatjang.rules import (
    BLOCKED,
    GalatjangState,
    Step,
    own_pits,
    pit_count,
    pit_index,
    store_index,
)

if TYPE_CHECKING:
    from boardlab.games.galatjang.game import Galatjang

SIDES = ("s", "n")
#: The stores' place names: data (the board model's ids that clicks and animations use),
#: marked for the catalogue so that ``store_words`` shows them in the reader's language.
STORES = (N_("South's store"), N_("North's store"))


@lru_cache(maxsize=256)
def place_name(pits: int, k: int) -> str:
    """The name of ring position ``k``: ``s3``, ``n5``, ``South's store`` (made once: a
    narration names every place a seed falls)."""
    for side in (0, 1):
        if k == store_index(pits, side):
            return STORES[side]
    return f"s{k + 1}" if k < pits else f"n{k - pits}"


def is_store(pits: int, k: int) -> bool:
    return k in (store_index(pits, 0), store_index(pits, 1))


def store_words(pits: int, k: int) -> str:
    """The store at ring position ``k`` as a person reads it: ``South's store``,
    ``Süds Gewinnmulde``."""
    return _(STORES[0 if k == store_index(pits, 0) else 1])


def board_model(game: Galatjang, state: GalatjangState) -> Board:
    """North's pits on top (n1 at the right), South's below (s1 at the left), North's
    store at the left end and South's at the right, each as tall as both rows."""
    pits = pit_count(state)
    places = []
    for side, row, labels in ((0, 3, 4), (1, 1, 0)):
        for pit in range(pits):
            x = pit + 1 if side == 0 else pits - pit
            name = f"{SIDES[side]}{pit + 1}"
            places.append(label(f"label {name}", x, labels, name))
            places.append(pit_place(name, side, x, row, state.ring[pit_index(pits, side, pit)]))
        store = state.ring[store_index(pits, side)]
        places.append(store_place(side, pits + 1 if side == 0 else 0, store, _(STORES[side])))
    tallies = []
    for side in (0, 1):
        cells = [state.ring[k] for k in own_pits(pits, side)]
        counts = [
            Tally(state.ring[store_index(pits, side)], "in store", "in store"),
            Tally(sum(max(n, 0) for n in cells), "in pits", "in pits"),
        ]
        blocked = cells.count(BLOCKED)
        if blocked:
            counts.append(Tally(blocked, "blocked", "blocked"))
        tallies.append(tuple(counts))
    over = game.outcome_of(state) is not None
    rounds = game.rules.rounds
    return Board(
        width=pits + 2,
        height=5,
        places=tuple(places),
        tallies=(tallies[0], tallies[1]),
        to_act=None if over else state.side,
        due="" if over else _("sow a pit"),
        notes=(
            (_("round {round} of {rounds}").format(round=state.round, rounds=rounds),)
            if rounds > 1
            else ()
        ),
    )


@lru_cache(maxsize=4096)
def pit_place(name: str, owner: int, x: int, y: int, seeds: int) -> Place:
    """Pit ``name`` of player ``owner`` holding ``seeds`` (or blocked), made once for
    each count: a server describes thousands of boards a minute."""
    return Place(
        name,
        "pit",
        x,
        y,
        pieces=(Piece("seed", None, max(seeds, 0), symbol="", counted=True),),
        owner=owner,
        blocked=seeds == BLOCKED,
    )


@lru_cache(maxsize=1024)
def store_place(owner: int, x: int, seeds: int, text: str) -> Place:
    """Player ``owner``'s store holding ``seeds``, named ``text`` as a person reads it
    (the place's name is an id)."""
    pieces = (Piece("seed", None, seeds, symbol="", counted=True),)
    return Place(STORES[owner], "store", x, 1, height=3, pieces=pieces, owner=owner, text=text)


def action_parts(state: GalatjangState, action: int) -> ActionParts:
    pit = f"{SIDES[state.side]}{action + 1}"
    return ActionParts("sow", (pit,), _("sow {pit}").format(pit=pit))


def narrate(game: Galatjang, state: GalatjangState, action: int) -> list[Note]:
    """A note for each leg of the sowing (the pit taken, then every place a seed fell),
    one for where the last seed fell, and the round's end, refills and next round."""
    steps, after = game.trace(state, action)
    pits = pit_count(state)
    who = game.player_name(state.side)
    notes: list[Note] = []
    leg: dict[str, object] = {}
    drops: list[int] = []

    def short(k: int) -> str:
        return "SN"[k == store_index(pits, 1)] if k in (pits, 2 * pits + 1) else place_name(pits, k)

    def close_leg() -> None:
        leg["drops"] = " ".join(short(k) for k in drops)
        if "held" in leg:
            text = _("{held} held seeds: {player} picks up {seeds} and sows on to {drops}.")
        else:
            text = _("{player} sows {pit}: {seeds} to {drops}.")
        places = (str(leg.get("held", leg.get("pit"))), *(place_name(pits, k) for k in drops))
        notes.append(Note("sow" if "pit" in leg else "relay", text, leg, places, sows=True))

    for step in steps:
        if step.kind == "take":
            leg = {"player": who, "pit": place_name(pits, step.place)}
            leg["seeds"] = counted(step.seeds, "{n} seed", "{n} seeds")
            drops = []
        elif step.kind == "drop":
            drops.append(step.place)
        elif step.kind == "relay":
            close_leg()
            leg = {"held": place_name(pits, step.place), "player": who, "seeds": step.seeds}
            drops = []
        elif step.kind in ("again", "stop", "capture", "stay"):
            close_leg()
            notes.append(last_seed(game, state, step, who, after))
        elif step.kind == "sweep":
            notes.append(round_end(game, state, step))
        elif step.kind == "refill":
            blocked = pits - step.seeds
            filled = {
                "player": game.player_name(step.place),
                "pits": counted(step.seeds, "{n} pit", "{n} pits"),
                "blocked": blocked,
            }
            if blocked:
                text = _("{player} fills {pits} ({blocked} blocked).")
            else:
                text = _("{player} fills {pits}.")
            notes.append(Note("refill", text, filled))
        elif step.kind == "round":
            starts = {"round": step.seeds, "player": game.player_name(step.place)}
            notes.append(Note("round", _("Round {round} begins; {player} starts."), starts))
    return notes


def last_seed(
    game: Galatjang, state: GalatjangState, step: Step, who: str, after: GalatjangState
) -> Note:
    """Where the last seed fell and what follows, a sentence for each case: ``{place}`` is
    a pit's name (``s3``), ``{store}`` a store in words (``South's store``), so that a
    translation can give a pit and a store the words they need."""
    pits = pit_count(state)
    where = (place_name(pits, step.place),)
    values: dict[str, object] = {"player": who}
    if is_store(pits, step.place):
        values["store"] = store_words(pits, step.place)
    else:
        values["place"] = where[0]
    if step.kind == "again":  # the sower's own store
        if after.side == state.side and after.turns == state.turns:
            return Note(
                "again", _("The last seed falls into {store}: {player} sows again."), values
            )
        text = _("The last seed falls into {store}, but {player} has no seeds left: the turn ends.")
        return Note("again", text, values, where)
    if step.kind == "stop":  # the opponent's store, or an empty pit of his
        if "store" in values:
            text = _("The last seed falls into {store}: the turn ends.")
        else:
            text = _("The last seed falls into the empty {place}: the turn ends.")
        return Note("stop", text, values, where)
    if step.kind == "stay":
        text = _("The last seed falls into the empty {place}, facing an empty pit: it stays.")
        return Note("stay", text, values, where)
    captured = step.seeds - 1
    if captured:
        values["captured"] = counted(captured, "{n} seed", "{n} seeds")
        values["store"] = store_words(pits, store_index(pits, state.side))
        text = _(
            "The last seed falls into the empty {place}: it and the {captured} opposite go "
            "to {store}."
        )
        return Note("capture", text, values, where)
    text = _(
        "The last seed falls into the empty {place}, facing an empty pit: it goes to the store."
    )
    return Note("capture", text, values, where)


def round_end(game: Galatjang, state: GalatjangState, step: Step) -> Note:
    pits = pit_count(state)
    limit = game.rules.max_turns
    values = {
        "round": state.round,
        "south": step.ring[store_index(pits, 0)],
        "north": step.ring[store_index(pits, 1)],
    }
    if state.turns + 1 >= limit:
        text = _(
            "Round {round} ends (the turn limit is reached): the pits are emptied into the "
            "stores, South {south}, North {north}."
        )
    else:
        text = _(
            "Round {round} ends (a player has no seeds): the pits are emptied into the "
            "stores, South {south}, North {north}."
        )
    return Note("round_end", text, values)


def evaluate(game: Galatjang, state: GalatjangState, player: int) -> float:
    """Seeds a player would end with if the round ended now (store plus own pits), as a
    share of all seeds, and a little for the seeds in play on his side."""
    pits = pit_count(state)
    total = sum(n for n in state.ring if n != BLOCKED) or 1
    store = game.points(state)
    on_side = [sum(max(state.ring[k], 0) for k in own_pits(pits, s)) for s in (0, 1)]
    mine = store[player] + on_side[player]
    theirs = store[1 - player] + on_side[1 - player]
    return 0.9 * math.tanh(4.0 * (mine - theirs) / total)


def observation_layout(game: Galatjang) -> tuple[Feature, ...]:
    pits = game.pits
    return (
        Feature("own_pits", pits, f"seeds in the observer's pits 1-{pits} / all seeds"),
        Feature("opponent_pits", pits, f"seeds in the opponent's pits 1-{pits} / all seeds"),
        Feature("stores", 2, "seeds in the stores / all seeds: the observer's, the opponent's"),
        Feature("own_blocked", pits, "1 for each blocked pit of the observer"),
        Feature("opponent_blocked", pits, "1 for each blocked pit of the opponent"),
        Feature("round", 1, "the round / rounds"),
        Feature("turns", 1, "completed turns in this round / max_turns"),
        Feature("observer", 1, "0 when South observes, 1 when North does"),
        Feature("to_act", 1, "1 when the observer is to act"),
    )


def observation(game: Galatjang, state: GalatjangState, me: int) -> list[float]:
    pits = pit_count(state)
    total = 2 * pits * game.rules.seeds
    sides = [[state.ring[pit_index(pits, side, k)] for k in range(pits)] for side in (me, 1 - me)]
    stores = [state.ring[store_index(pits, side)] for side in (me, 1 - me)]
    return [
        *(max(n, 0) / total for n in sides[0]),
        *(max(n, 0) / total for n in sides[1]),
        *(n / total for n in stores),
        *(float(n == BLOCKED) for n in sides[0]),
        *(float(n == BLOCKED) for n in sides[1]),
        state.round / game.rules.rounds,
        state.turns / game.rules.max_turns,
        float(me),
        float(me == state.side),
    ]
