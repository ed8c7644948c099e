"""Reference Galatjang (the Galatjang card), written for clarity, not speed.

Position string: ``SOUTH/NORTH STORES SIDE ROUND TURNS``, e.g.
``6,6,6,6,6,6/6,6,6,6,6,6 0/0 s 1 0``.

Internally: pits["s"] and pits["n"] are lists of P entries (index 0 = pit 1), each an int
or None for a blocked pit (`x`); stores["s"], stores["n"] are ints.  The number of pits P
is taken from the position string ("the position string wins").

The sowing ring, counter-clockwise: s1..sP, South's store, n1..nP, North's store, s1.
A ring place is ("s", i) / ("n", i) for pit i+1 of that side, or ("S",) / ("N",) for a
store ("S" = South's store, "N" = North's store).
"""

from __future__ import annotations

DEFAULTS: dict = {
    "pits": 6,
    "seeds": 6,
    "first": "south",  # south | north
    "sow_opponent_store": True,
    "skip_origin": False,
    "lone_seed": "store",  # store | stay
    "max_turns": 500,  # per round
    "rounds": 1,
    "refill": "store_end",  # store_end | far_end
    "round_starter": "winner",  # winner | loser | alternate
}

NAMES = {"s": "south", "n": "north"}
STORE = {"s": ("S",), "n": ("N",)}
MAX_RELAYS = 10_000


# ----------------------------------------------------------------------------- helpers


def _opts(options: dict | None) -> dict:
    merged = dict(DEFAULTS)
    merged.update(options or {})
    for key, allowed in (
        ("first", ("south", "north")),
        ("lone_seed", ("store", "stay")),
        ("refill", ("store_end", "far_end")),
        ("round_starter", ("winner", "loser", "alternate")),
    ):
        if merged[key] not in allowed:
            raise ValueError(f"bad option {key}={merged[key]!r}")
    if merged["pits"] < 1 or merged["seeds"] < 0 or merged["rounds"] < 1:
        raise ValueError("bad option value")
    return merged


def _other(side: str) -> str:
    return "n" if side == "s" else "s"


def _ring(pits_per_row: int) -> list[tuple]:
    """'s1..s6, South's store, n1..n6, North's store, s1'."""
    return (
        [("s", i) for i in range(pits_per_row)]
        + [("S",)]
        + [("n", i) for i in range(pits_per_row)]
        + [("N",)]
    )


def _seeds_in_pits(pos: dict, side: str) -> int:
    return sum(v for v in pos["pits"][side] if v is not None)


def _total(pos: dict) -> int:
    pits = _seeds_in_pits(pos, "s") + _seeds_in_pits(pos, "n")
    return pits + pos["stores"]["s"] + pos["stores"]["n"]


# ----------------------------------------------------------------------------- text


def parse(position: str) -> dict:
    fields = position.split()
    if len(fields) != 5:
        raise ValueError(f"bad position {position!r}")
    rows_text, stores_text, side, round_text, turns_text = fields
    rows = rows_text.split("/")
    if len(rows) != 2:
        raise ValueError(f"bad position {position!r}")

    def row(text: str) -> list[int | None]:
        return [None if v == "x" else int(v) for v in text.split(",")]

    south, north = row(rows[0]), row(rows[1])
    if len(south) != len(north):
        raise ValueError(f"rows of different length in {position!r}")
    south_store, north_store = (int(v) for v in stores_text.split("/"))
    if side not in ("s", "n"):
        raise ValueError(f"bad side in {position!r}")
    return {
        "pits": {"s": south, "n": north},
        "stores": {"s": south_store, "n": north_store},
        "side": side,
        "round": int(round_text),
        "turns": int(turns_text),
    }


def format_position(pos: dict) -> str:
    def row(values: list[int | None]) -> str:
        return ",".join("x" if v is None else str(v) for v in values)

    return (
        f"{row(pos['pits']['s'])}/{row(pos['pits']['n'])} "
        f"{pos['stores']['s']}/{pos['stores']['n']} {pos['side']} {pos['round']} {pos['turns']}"
    )


# ----------------------------------------------------------------------------- rules


def initial(options: dict) -> str:
    opts = _opts(options)
    pos = {
        "pits": {"s": [opts["seeds"]] * opts["pits"], "n": [opts["seeds"]] * opts["pits"]},
        "stores": {"s": 0, "n": 0},
        "side": "s" if opts["first"] == "south" else "n",
        "round": 1,
        "turns": 0,
    }
    return format_position(pos)


def _round_over(pos: dict, opts: dict) -> bool:
    """'when the player to move has no seeds in his playable pits, the round ends';
    'max_turns ... ends the round the same way'."""
    return pos["turns"] >= opts["max_turns"] or _seeds_in_pits(pos, pos["side"]) == 0


def _sweep(pos: dict) -> None:
    """'each player moves the seeds in his own pits into his own store' (blocked stay x)."""
    for side in ("s", "n"):
        for i, v in enumerate(pos["pits"][side]):
            if v is not None:
                pos["stores"][side] += v
                pos["pits"][side][i] = 0


def _winner_by_stores(pos: dict) -> str:
    """'More seeds in store wins; equal is a draw.'  Returns 's', 'n' or 'draw'."""
    if pos["stores"]["s"] > pos["stores"]["n"]:
        return "s"
    if pos["stores"]["n"] > pos["stores"]["s"]:
        return "n"
    return "draw"


def _cannot_fill(pos: dict, opts: dict) -> str | None:
    """'A player who cannot fill a single pit loses the match.'  Returns that side or None."""
    for side in ("s", "n"):
        if pos["stores"][side] < opts["seeds"]:
            return side
    return None


def _over(pos: dict, opts: dict) -> tuple[str, tuple[int, int], str] | None:
    if not _round_over(pos, opts):
        return None
    # Judge as if the pits were swept into their owners' stores.
    swept = {
        "pits": {s: list(v) for s, v in pos["pits"].items()},
        "stores": dict(pos["stores"]),
        "side": pos["side"],
        "round": pos["round"],
        "turns": pos["turns"],
    }
    _sweep(swept)
    points = (swept["stores"]["s"], swept["stores"]["n"])
    if pos["round"] >= opts["rounds"]:
        # the last round: "After round N the match ends: more seeds wins, equal is a draw."
        reason = "turn_cap" if pos["turns"] >= opts["max_turns"] else "no_seeds"
        winner = _winner_by_stores(swept)
        return (NAMES[winner] if winner != "draw" else "draw"), points, reason
    loser = _cannot_fill(swept, opts)
    if loser is not None:
        return NAMES[_other(loser)], points, "cannot_fill"
    # A finished round that is not the last and where both can refill is never shown: the
    # new round starts automatically.
    raise ValueError("position shows a finished round that should have started the next one")


def outcome(options: dict, position: str) -> tuple[str, tuple[int, int], str] | None:
    return _over(parse(position), _opts(options))


def legal(options: dict, position: str) -> list[str]:
    opts = _opts(options)
    pos = parse(position)
    if _over(pos, opts) is not None:
        return []
    side = pos["side"]
    # 'takes all seeds from one own non-empty, non-blocked pit'
    return sorted(f"{side}{i + 1}" for i, v in enumerate(pos["pits"][side]) if v)


def _get(pos: dict, place: tuple) -> int | None:
    if len(place) == 1:
        return pos["stores"]["s" if place[0] == "S" else "n"]
    return pos["pits"][place[0]][place[1]]


def _add(pos: dict, place: tuple, amount: int) -> None:
    if len(place) == 1:
        pos["stores"]["s" if place[0] == "S" else "n"] += amount
    else:
        pos["pits"][place[0]][place[1]] += amount


def _sow(pos: dict, opts: dict, pit_index: int) -> str:
    """One sowing (with its relays) by the side to act from its pit pit_index (0-based).

    Returns how it ended: 'store' (last seed in own store), or 'end' (the turn ends)."""
    mover = pos["side"]
    opponent = _other(mover)
    ring = _ring(len(pos["pits"]["s"]))
    at = ring.index((mover, pit_index))
    origin = ring[at]
    hand = pos["pits"][mover][pit_index]
    pos["pits"][mover][pit_index] = 0
    relays = 0
    before = 0  # seeds in the place the last seed fell into, just before it fell
    while True:
        # drop the seeds of the hand one by one into the following places of the ring
        while hand > 0:
            at = (at + 1) % len(ring)
            place = ring[at]
            if _get(pos, place) is None:
                continue  # 'Blocked pits are skipped.'
            if place == STORE[opponent] and not opts["sow_opponent_store"]:
                continue  # 'false skips the opponent's store'
            if place == origin and opts["skip_origin"]:
                continue  # 'true skips the pit the current seeds were taken from'
            before = _get(pos, place)
            _add(pos, place, 1)
            hand -= 1
        last = ring[at]
        # 'own store: the player sows again from an own pit'
        if last == STORE[mover]:
            return "store"
        # 'opponent's store ... the turn ends'
        if last == STORE[opponent]:
            return "end"
        # 'a pit (either side) that held seeds before: he takes all seeds of that pit, the
        # last one included, and keeps sowing from the next position (relay)'
        if before > 0:
            relays += 1
            if relays > MAX_RELAYS:
                raise RuntimeError("endless sowing")
            hand = _get(pos, last)
            pos["pits"][last[0]][last[1]] = 0
            origin = last  # 'for a relay, the relay pit'
            continue
        # '... or an opponent pit that was empty: the turn ends'
        if last[0] == opponent:
            return "end"
        # 'an own pit that was empty: that seed and all seeds of the opposite pit go to his
        # store; the turn ends.'  The opposite of pit i is pit P+1-i; blocked counts as empty.
        size = len(pos["pits"]["s"])
        opposite_index = size - 1 - last[1]
        opposite = pos["pits"][opponent][opposite_index] or 0
        if opts["lone_seed"] == "stay" and opposite == 0:
            # 'with stay, when the opposite pit is empty nothing is captured and the seed
            # stays'
            return "end"
        pos["pits"][mover][last[1]] = 0
        if pos["pits"][opponent][opposite_index] is not None:
            pos["pits"][opponent][opposite_index] = 0
        pos["stores"][mover] += 1 + opposite
        return "end"


def _round_starter(pos: dict) -> str:
    """Ruling: the starter of the current round is the side to act if TURNS is even, else the
    other side (turns strictly alternate)."""
    return pos["side"] if pos["turns"] % 2 == 0 else _other(pos["side"])


def _refill(pos: dict, opts: dict, side: str) -> None:
    """'each player fills his pits with `seeds` each from his store, starting with the pit
    next to his store and moving away from it (far_end starts at pit 1); seeds left over
    stay in the store; pits he cannot fill are blocked'."""
    size = len(pos["pits"][side])
    order = list(range(size - 1, -1, -1)) if opts["refill"] == "store_end" else list(range(size))
    for i in order:
        if pos["stores"][side] >= opts["seeds"]:
            pos["stores"][side] -= opts["seeds"]
            pos["pits"][side][i] = opts["seeds"]
        else:
            pos["pits"][side][i] = None


def _finish_turn(pos: dict, opts: dict) -> None:
    """A turn ends: TURNS + 1, the other side to act; then the round may end."""
    pos["turns"] += 1
    pos["side"] = _other(pos["side"])
    if not _round_over(pos, opts):
        return
    starter = _round_starter(pos)  # computed before anything changes
    _sweep(pos)
    if pos["round"] >= opts["rounds"]:
        return  # the match is over; the string shows the swept end of the round
    if _cannot_fill(pos, opts) is not None:
        return  # 'he loses at once, reason cannot_fill'; the swept end is shown
    # the next round starts automatically
    winner = _winner_by_stores(pos)
    if winner == "draw":
        next_starter = _other(starter)  # 'a drawn round: the player who did not start it'
    elif opts["round_starter"] == "winner":
        next_starter = winner
    elif opts["round_starter"] == "loser":
        next_starter = _other(winner)
    else:  # alternate
        next_starter = _other(starter)
    for side in ("s", "n"):
        _refill(pos, opts, side)
    pos["round"] += 1
    pos["turns"] = 0
    pos["side"] = next_starter


def play(options: dict, position: str, action: str) -> str:
    opts = _opts(options)
    pos = parse(position)
    if action not in legal(opts, position):
        raise ValueError(f"illegal action {action!r} in {position!r}")
    pit_index = int(action[1:]) - 1
    ended = _sow(pos, opts, pit_index)
    if ended == "store" and _seeds_in_pits(pos, pos["side"]) > 0:
        # 'the player sows again from an own pit (mandatory ...)': same side, same turn
        return format_position(pos)
    # 'if he has no seeds, the turn ends' -- or the turn ended anyway
    _finish_turn(pos, opts)
    return format_position(pos)
