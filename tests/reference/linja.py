"""Reference Linja (the Linja card), written for clarity, not speed.

Position string: ``BLACK/RED SIDE PHASE PASSES TURNS``, e.g.
``6,1,1,1,1,1,1,0/0,1,1,1,1,1,1,6 b o 0 0``.

Rows are absolute 0..7.  Black starts in row 0 and moves towards 7 (its goal); Red starts in
row 7 and moves towards 0.  Internally counts are two lists of 8 ints.
"""

from __future__ import annotations

DEFAULTS: dict = {
    "first": "black",  # black | red
    "ruleset": "bonus",  # bonus | extra-turn
    "bonus_after_opening": False,
    "goal_step_back": False,
    "nasty": False,
    "scoring": "signed",  # signed | positive
    "max_turns": 1000,
}

NAMES = {"b": "black", "r": "red"}
START = {"b": 0, "r": 7}  # each side's start zone
GOAL = {"b": 7, "r": 0}  # each side's goal
FORWARD = {"b": +1, "r": -1}
CAPACITY = 6  # "a field row (1-6) holds at most 6 pieces of both colours together"
SIGNED = [-5, -3, -2, -1, 1, 2, 3, 5]
POSITIVE = [0, 0, 0, 0, 1, 2, 3, 5]


# ----------------------------------------------------------------------------- helpers


def _opts(options: dict | None) -> dict:
    merged = dict(DEFAULTS)
    merged.update(options or {})
    if merged["first"] not in ("black", "red"):
        raise ValueError(f"bad option first={merged['first']!r}")
    if merged["ruleset"] not in ("bonus", "extra-turn"):
        raise ValueError(f"bad option ruleset={merged['ruleset']!r}")
    if merged["scoring"] not in ("signed", "positive"):
        raise ValueError(f"bad option scoring={merged['scoring']!r}")
    return merged


def _other(side: str) -> str:
    return "r" if side == "b" else "b"


def _total(pos: dict, row: int) -> int:
    return pos["counts"]["b"][row] + pos["counts"]["r"][row]


def _is_field(row: int) -> bool:
    return 1 <= row <= 6


def _can_enter(pos: dict, row: int) -> bool:
    """A move may not end in a full field row; start zones/goals hold any number."""
    return not (_is_field(row) and _total(pos, row) >= CAPACITY)


# ----------------------------------------------------------------------------- text


def parse(position: str) -> dict:
    fields = position.split()
    if len(fields) != 5:
        raise ValueError(f"bad position {position!r}")
    counts_text, side, phase_text, passes_text, turns_text = fields
    parts = counts_text.split("/")
    if len(parts) != 2:
        raise ValueError(f"bad position {position!r}")
    black = [int(v) for v in parts[0].split(",")]
    red = [int(v) for v in parts[1].split(",")]
    if len(black) != 8 or len(red) != 8 or min(black + red) < 0:
        raise ValueError(f"bad counts in {position!r}")
    if side not in ("b", "r"):
        raise ValueError(f"bad side in {position!r}")
    # PHASE: o | o+ | fN | fN+ | b
    extra = phase_text.endswith("+")
    core = phase_text[:-1] if extra else phase_text
    if core == "o":
        phase, n = "o", 0
    elif core == "b" and not extra:
        phase, n = "b", 0
    elif core.startswith("f") and core[1:].isdigit() and int(core[1:]) >= 1:
        phase, n = "f", int(core[1:])
    else:
        raise ValueError(f"bad phase in {position!r}")
    return {
        "counts": {"b": black, "r": red},
        "side": side,
        "phase": phase,  # 'o', 'f' or 'b'
        "n": n,  # follow-up distance in phase f
        "extra": extra,  # inside an extra turn ('+')
        "passes": int(passes_text),
        "turns": int(turns_text),
    }


def format_position(pos: dict) -> str:
    black = ",".join(str(v) for v in pos["counts"]["b"])
    red = ",".join(str(v) for v in pos["counts"]["r"])
    phase = f"f{pos['n']}" if pos["phase"] == "f" else pos["phase"]
    if pos["extra"]:
        phase += "+"
    return f"{black}/{red} {pos['side']} {phase} {pos['passes']} {pos['turns']}"


# ----------------------------------------------------------------------------- rules


def initial(options: dict) -> str:
    opts = _opts(options)
    # "Black 6 pieces in row 0 and 1 in each of rows 1-6; Red 6 in row 7 and 1 in each of
    # rows 1-6."
    pos = {
        "counts": {"b": [6, 1, 1, 1, 1, 1, 1, 0], "r": [0, 1, 1, 1, 1, 1, 1, 6]},
        "side": "b" if opts["first"] == "black" else "r",
        "phase": "o",
        "n": 0,
        "extra": False,
        "passes": 0,
        "turns": 0,
    }
    return format_position(pos)


def _openings(pos: dict) -> list[tuple[int, int]]:
    """'one own piece, not in its goal, moves one row forward (not into a full row)'."""
    side = pos["side"]
    result = []
    for row in range(8):
        if row == GOAL[side] or pos["counts"][side][row] == 0:
            continue
        dest = row + FORWARD[side]
        if _can_enter(pos, dest):
            result.append((row, dest))
    return result


def _follow_ups(pos: dict, n: int) -> list[tuple[int, int]]:
    """'one own piece ... must move exactly N rows forward; a move that would go beyond the
    goal ends in the goal'; never into a full row; one action per source row."""
    side = pos["side"]
    result = []
    for row in range(8):
        if row == GOAL[side] or pos["counts"][side][row] == 0:
            continue
        dest = row + n * FORWARD[side]
        dest = min(dest, 7) if side == "b" else max(dest, 0)
        if _can_enter(pos, dest):
            result.append((row, dest))
    return result


def _bonus_moves(pos: dict, opts: dict) -> list[str]:
    side = pos["side"]
    opp = _other(side)
    moves = []
    # own piece "(not in its goal) one row forward or backward: backward at most into his own
    # start zone, never into a full row"
    for row in range(8):
        if pos["counts"][side][row] == 0:
            continue
        if row == GOAL[side]:
            # goal_step_back: "a bonus may move an own piece back out of the goal"
            if opts["goal_step_back"]:
                dest = row - FORWARD[side]
                if _can_enter(pos, dest):
                    moves.append(f"{row}-{dest}")
            continue
        fwd = row + FORWARD[side]
        if _can_enter(pos, fwd):
            moves.append(f"{row}-{fwd}")
        if row != START[side]:
            back = row - FORWARD[side]
            if _can_enter(pos, back):
                moves.append(f"{row}-{back}")
    # nasty: "move one opponent piece one row forward or backward in the opponent's
    # direction, never out of its goal, never into a full row" (and never off the board)
    if opts["nasty"]:
        for row in range(8):
            if pos["counts"][opp][row] == 0 or row == GOAL[opp]:
                continue
            fwd = row + FORWARD[opp]
            if _can_enter(pos, fwd):
                moves.append(f"o{row}-{fwd}")
            if row != START[opp]:
                back = row - FORWARD[opp]
                if _can_enter(pos, back):
                    moves.append(f"o{row}-{back}")
    return moves


def _score(pos: dict, opts: dict) -> tuple[int, int]:
    table = SIGNED if opts["scoring"] == "signed" else POSITIVE
    # "a piece scores by its row counted from its own start zone (0) to its goal (7)"
    black = sum(table[row] * c for row, c in enumerate(pos["counts"]["b"]))
    red = sum(table[7 - row] * c for row, c in enumerate(pos["counts"]["r"]))
    return black, red


def _passed(pos: dict) -> bool:
    """'every black piece is in a higher row than every red piece (pieces that share a row,
    goals included, have not passed)'."""
    black_rows = [r for r in range(8) if pos["counts"]["b"][r] > 0]
    red_rows = [r for r in range(8) if pos["counts"]["r"][r] > 0]
    return not black_rows or not red_rows or min(black_rows) > max(red_rows)


def _over(pos: dict, opts: dict) -> tuple[str, tuple[int, int], str] | None:
    # "The end checks run only when a new turn is due" (phase o, never o+).
    if pos["phase"] != "o" or pos["extra"]:
        return None
    if _passed(pos):
        reason = "passed"
    elif pos["passes"] >= 2:  # "two consecutive passes end the game"
        reason = "passes"
    elif pos["turns"] >= opts["max_turns"]:
        reason = "turn_cap"
    else:
        return None
    points = _score(pos, opts)
    # "More points wins; equal points is a draw."
    if points[0] > points[1]:
        return "black", points, reason
    if points[1] > points[0]:
        return "red", points, reason
    return "draw", points, reason


def outcome(options: dict, position: str) -> tuple[str, tuple[int, int], str] | None:
    return _over(parse(position), _opts(options))


def legal(options: dict, position: str) -> list[str]:
    opts = _opts(options)
    pos = parse(position)
    if _over(pos, opts) is not None:
        return []
    if pos["phase"] == "o":
        moves = [f"{a}-{b}" for a, b in _openings(pos)]
        # "If no opening move exists, the only action is pass."
        return sorted(moves) if moves else ["pass"]
    if pos["phase"] == "f":
        # A follow-up phase is only ever shown when a follow-up move exists (otherwise it is
        # forfeited automatically).  A hand-made position without one gets no actions.
        return sorted(f"{a}-{b}" for a, b in _follow_ups(pos, pos["n"]))
    # bonus: the moves plus "pass declines"
    return sorted([*_bonus_moves(pos, opts), "pass"])


def _end_turn(pos: dict) -> None:
    """The turn is complete: TURNS + 1 (once, extra turn included), the other side to open."""
    pos["turns"] += 1
    pos["side"] = _other(pos["side"])
    pos["phase"] = "o"
    pos["n"] = 0
    pos["extra"] = False


def _move(pos: dict, side: str, src: int, dst: int) -> None:
    pos["counts"][side][src] -= 1
    pos["counts"][side][dst] += 1


def _start_follow_up(pos: dict, n: int) -> None:
    """Enter phase fN, or forfeit it: 'If no piece can make it (every destination is a full
    row), the follow-up is forfeited.'  A forfeited follow-up ends the turn."""
    if _follow_ups(pos, n):
        pos["phase"] = "f"
        pos["n"] = n
    else:
        _end_turn(pos)


def play(options: dict, position: str, action: str) -> str:
    opts = _opts(options)
    pos = parse(position)
    if action not in legal(opts, position):
        raise ValueError(f"illegal action {action!r} in {position!r}")
    side = pos["side"]
    extra_turn_rules = opts["ruleset"] == "extra-turn"

    if pos["phase"] == "o":
        if action == "pass":
            if not pos["extra"]:
                # an opening-phase pass is a pass turn
                pos["passes"] += 1
            # "a player with no opening move in the extra turn plays pass, which ends the
            # turn and is not a pass turn" (PASSES unchanged)
            _end_turn(pos)
            return format_position(pos)
        src, dst = (int(v) for v in action.split("-"))
        _move(pos, side, src, dst)
        # "PASSES resets to 0 at an opening move."
        pos["passes"] = 0
        if dst == GOAL[side]:
            if extra_turn_rules:
                # "an opening that enters the goal earns a follow-up of exactly 1"
                _start_follow_up(pos, 1)
            elif opts["bonus_after_opening"]:
                # "a bonus also after an opening move that enters the goal"
                pos["phase"] = "b"
                pos["extra"] = False
            else:
                # "or the opening piece entered its goal, there is no follow-up"
                _end_turn(pos)
            return format_position(pos)
        # "N = number of pieces (both colours) in the row the opening piece entered, not
        # counting that piece"
        n = _total(pos, dst) - 1
        if n == 0:
            _end_turn(pos)  # "If N = 0 ... there is no follow-up"
        else:
            _start_follow_up(pos, n)
        return format_position(pos)

    if pos["phase"] == "f":
        src, dst = (int(v) for v in action.split("-"))
        n = pos["n"]
        # "a row that was empty" means empty just before the follow-up move
        was_empty = _total(pos, dst) == 0
        _move(pos, side, src, dst)
        if extra_turn_rules:
            # "a follow-up that ends in a field row that was empty before earns one extra full
            # turn (opening + follow-up) for the same player, at most once per turn"
            if _is_field(dst) and was_empty and not pos["extra"]:
                pos["phase"] = "o"
                pos["n"] = 0
                pos["extra"] = True
            else:
                _end_turn(pos)
            return format_position(pos)
        # bonus: "if the follow-up piece entered the goal with exactly N steps (no surplus)"
        if dst == GOAL[side] and abs(dst - src) == n:
            pos["phase"] = "b"
            pos["n"] = 0
        else:
            _end_turn(pos)
        return format_position(pos)

    # phase b: "A bonus never earns another bonus."  Declining (pass) is not a pass turn.
    if action != "pass":
        if action.startswith("o"):
            src, dst = (int(v) for v in action[1:].split("-"))
            _move(pos, _other(side), src, dst)
        else:
            src, dst = (int(v) for v in action.split("-"))
            _move(pos, side, src, dst)
    _end_turn(pos)
    return format_position(pos)
