"""Galatjang rules (docs/games/galatjang.md) as plain functions over a compact state.

The board is the sowing ring seen from South, ``2 * P + 2`` positions for ``P`` pits a
row: South's pits s1..sP (0..P-1), South's store (P), North's pits n1..nP (P+1..2P),
North's store (2P+1). A blocked pit holds ``BLOCKED``. The pit opposite ring position
``k`` is ``2P - k``. An action is the index (0..P-1) of the pit the side to act sows.
"""

from __future__ import annotations

from typing import NamedTuple

SOUTH, NORTH = 0, 1
BLOCKED = -1
MAX_RELAYS = 100_000  # a guard: no reachable sowing has come near it
#: The most pits a row may have (option ``pits``; the kernel's action space).
MAX_PITS = 16
#: The pits of a row on the default board (the kernel folds this number into its code).
DEFAULT_PITS = 6


class GalatjangState(NamedTuple):
    ring: tuple[int, ...]  # seeds per ring position, BLOCKED for a blocked pit
    side: int  # SOUTH or NORTH, the player to act
    round: int  # from 1
    turns: int  # completed turns in this round


class Rules(NamedTuple):
    seeds: int
    sow_opponent_store: bool
    skip_origin: bool
    capture_lone_seed: bool  # lone_seed=store
    max_turns: int
    rounds: int
    refill_far_end: bool
    round_starter: str  # winner, loser or alternate


class Step(NamedTuple):
    """One step of a move, for showing it as it happens: ``kind`` is ``take`` (seeds
    picked up from ``place``), ``drop`` (one seed into ``place``), ``relay`` (the last
    seed fell into a pit that held seeds: they are picked up), ``again`` (the last seed
    fell into the sower's store), ``stop`` (the turn ends at ``place``), ``capture``
    (``seeds`` go from ``place`` and the opposite pit to the store), ``stay`` (a lone seed
    stays), ``sweep`` (the round is over: pits into stores), ``refill`` (the next round's
    pits, ``seeds`` of them filled by player ``place``), ``round`` (round ``seeds`` starts,
    player ``place`` to act). ``ring`` is the board after the step."""

    kind: str
    place: int
    seeds: int
    ring: tuple[int, ...]


class EndlessSowingError(RuntimeError):
    """A sowing that relays forever (never seen; the guard keeps a bug from hanging)."""


def pit_count(state: GalatjangState) -> int:
    return len(state.ring) // 2 - 1


def pit_index(pits: int, side: int, pit: int) -> int:
    """Ring position of ``side``'s pit number ``pit`` (0-based, in sowing order)."""
    return pit if side == SOUTH else pits + 1 + pit


def store_index(pits: int, side: int) -> int:
    return pits if side == SOUTH else 2 * pits + 1


def own_pits(pits: int, side: int) -> range:
    first = pit_index(pits, side, 0)
    return range(first, first + pits)


def has_seeds(state: GalatjangState, side: int) -> bool:
    """``side`` has a seed in an unblocked pit (blocked pits hold BLOCKED < 0)."""
    return any(state.ring[k] > 0 for k in own_pits(pit_count(state), side))


def round_over(state: GalatjangState, rules: Rules) -> bool:
    return state.turns >= rules.max_turns or not has_seeds(state, state.side)


def legal_actions(state: GalatjangState, rules: Rules) -> list[int]:
    if round_over(state, rules):
        return []
    pits = pit_count(state)
    first = pit_index(pits, state.side, 0)
    return [p for p in range(pits) if state.ring[first + p] > 0]


def sow(
    ring: list[int], side: int, origin: int, rules: Rules, trace: list[Step] | None = None
) -> bool:
    """Sow the pit at ring position ``origin`` for ``side``, relays included, in place.
    Returns True if the last seed fell into the sower's own store (he sows again).
    With ``trace``, every step is appended to it."""

    def note(kind: str, place: int, seeds: int = 0) -> None:
        if trace is not None:
            trace.append(Step(kind, place, seeds, tuple(ring)))

    size = len(ring)
    pits = size // 2 - 1
    mine, theirs = store_index(pits, side), store_index(pits, 1 - side)
    hand, ring[origin], position = ring[origin], 0, origin
    note("take", origin, hand)
    for _ in range(MAX_RELAYS):
        while hand:
            position = (position + 1) % size
            if (
                ring[position] == BLOCKED
                or (position == theirs and not rules.sow_opponent_store)
                or (position == origin and rules.skip_origin)
            ):
                continue
            ring[position] += 1
            hand -= 1
            note("drop", position)
        if position == mine:
            note("again", position)
            return True
        if position == theirs:
            note("stop", position)
            return False
        if ring[position] > 1:  # the pit held seeds before: relay from it
            hand, ring[position], origin = ring[position], 0, position
            note("relay", position, hand)
            continue
        if position not in own_pits(pits, side):  # an opponent's empty pit
            note("stop", position)
            return False
        opposite = 2 * pits - position
        captured = max(ring[opposite], 0)  # a blocked pit counts as empty
        if captured or rules.capture_lone_seed:
            ring[mine] += 1 + captured
            ring[position] = 0
            if captured:
                ring[opposite] = 0
            note("capture", position, 1 + captured)
        else:
            note("stay", position)
        return False
    raise EndlessSowingError(f"a sowing from ring position {origin} did not end")


def sweep(state: GalatjangState) -> list[int]:
    """The ring after each player moves the seeds of his pits into his own store."""
    pits = pit_count(state)
    ring = list(state.ring)
    for side in (SOUTH, NORTH):
        for k in own_pits(pits, side):
            if ring[k] > 0:
                ring[store_index(pits, side)] += ring[k]
                ring[k] = 0
    return ring


def refill(ring: list[int], side: int, rules: Rules) -> bool:
    """Fill ``side``'s pits with ``seeds`` each from his store, in place, starting next to
    the store (or at pit 1); pits left unfilled are blocked. False if none was filled."""
    pits = len(ring) // 2 - 1
    store = store_index(pits, side)
    order = own_pits(pits, side)
    filled = False
    for k in order if rules.refill_far_end else reversed(order):
        if ring[store] >= rules.seeds:
            ring[k] = rules.seeds
            ring[store] -= rules.seeds
            filled = True
        else:
            ring[k] = BLOCKED
    return filled


def round_starter(state: GalatjangState) -> int:
    """Who started the current round: turns alternate strictly, so it follows from TURNS."""
    return state.side if state.turns % 2 == 0 else 1 - state.side


def winner_by_stores(ring: list[int] | tuple[int, ...]) -> int | None:
    pits = len(ring) // 2 - 1
    south, north = ring[store_index(pits, SOUTH)], ring[store_index(pits, NORTH)]
    return SOUTH if south > north else NORTH if north > south else None


def next_round(state: GalatjangState, rules: Rules) -> GalatjangState | None:
    """The start of the next round after ``state``'s round ended, or None when the match
    ends here (last round, or a player cannot fill a single pit)."""
    if state.round >= rules.rounds:
        return None
    ring = sweep(state)
    winner = winner_by_stores(ring)
    started = round_starter(state)
    if winner is None or rules.round_starter == "alternate":
        starter = 1 - started
    else:
        starter = winner if rules.round_starter == "winner" else 1 - winner
    if not all([refill(ring, SOUTH, rules), refill(ring, NORTH, rules)]):
        return None
    return GalatjangState(tuple(ring), starter, state.round + 1, 0)


def apply(
    state: GalatjangState, action: int, rules: Rules, trace: list[Step] | None = None
) -> GalatjangState:
    """The state after a legal sowing, with the automatic steps that follow it: the turn
    end, the round end and its sweep, the refill and the next round. With ``trace``,
    every step is appended to it."""
    ring = list(state.ring)
    pits = pit_count(state)
    again = sow(ring, state.side, pit_index(pits, state.side, action), rules, trace)
    after = state._replace(ring=tuple(ring))
    if again and has_seeds(after, state.side):
        return after  # the same player sows again, same turn
    after = after._replace(side=1 - state.side, turns=state.turns + 1)
    if not round_over(after, rules):
        return after
    swept = after._replace(ring=tuple(sweep(after)))
    following = next_round(after, rules)
    if trace is not None:
        trace.append(Step("sweep", -1, 0, swept.ring))
        if following is not None:
            for side in (SOUTH, NORTH):
                filled = sum(following.ring[k] > 0 for k in own_pits(pits, side))
                trace.append(Step("refill", side, filled, following.ring))
            trace.append(Step("round", following.side, following.round, following.ring))
    return following or swept


def end_reason(state: GalatjangState, rules: Rules) -> str | None:
    """Why the match is over in ``state``, or None."""
    if not round_over(state, rules):
        return None
    if state.round < rules.rounds and next_round(state, rules) is not None:
        return None  # a round end that the next round follows (not a settled position)
    if state.round < rules.rounds:
        return "cannot_fill"
    return "turn_cap" if state.turns >= rules.max_turns else "no_seeds"
