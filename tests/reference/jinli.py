"""Reference Jin Li (the Jin Li card), written for clarity, not speed.

Position string: ``BOARD SIDE PHASE STONES SCORES PASSES TURNS``, e.g.
``Y5Y/7/7/7/7/7/R5R r m 10/10 0/0 0 0``.

Internally a position is a plain dict; the board is a dict square-name -> 'R' | 'Y' | 'o'
(empty squares are absent).  Everything is derived from the position string plus options.
"""

from __future__ import annotations

DEFAULTS: dict = {
    "start": "corners",  # corners | inset (alternate rule 1)
    "first": "red",  # red | yellow
    "target": 10,  # alternate rule 3: 15
    "stones": 10,  # alternate rule 2: 6
    "recycle": False,  # alternate rule 4
    "no_move": "pass",  # pass | lose
    "max_turns": 300,
}

FILES = "abcdefg"
SIZE = 7
NAMES = {"r": "red", "y": "yellow"}
KOI = {"r": "R", "y": "Y"}
DIRECTIONS = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (dx, dy) != (0, 0)]


# ----------------------------------------------------------------------------- helpers


def _opts(options: dict | None) -> dict:
    merged = dict(DEFAULTS)
    merged.update(options or {})
    if merged["start"] not in ("corners", "inset"):
        raise ValueError(f"bad option start={merged['start']!r}")
    if merged["first"] not in ("red", "yellow"):
        raise ValueError(f"bad option first={merged['first']!r}")
    if merged["no_move"] not in ("pass", "lose"):
        raise ValueError(f"bad option no_move={merged['no_move']!r}")
    return merged


def _square(x: int, y: int) -> str:
    """x = file index 0..6 (a..g), y = rank index 0..6 (rank 1..7)."""
    return f"{FILES[x]}{y + 1}"


def _coords(square: str) -> tuple[int, int]:
    if len(square) != 2 or square[0] not in FILES or square[1] not in "1234567":
        raise ValueError(f"bad square {square!r}")
    return FILES.index(square[0]), int(square[1]) - 1


def _on_board(x: int, y: int) -> bool:
    return 0 <= x < SIZE and 0 <= y < SIZE


def _other(side: str) -> str:
    return "y" if side == "r" else "r"


# ----------------------------------------------------------------------------- text


def parse(position: str) -> dict:
    fields = position.split()
    if len(fields) != 7:
        raise ValueError(f"bad position {position!r}")
    board_text, side, phase, stones, scores, passes, turns = fields
    ranks = board_text.split("/")
    if len(ranks) != SIZE:
        raise ValueError(f"bad board in {position!r}")
    board: dict[str, str] = {}
    # "BOARD: ranks 7 down to 1 separated by /"
    for i, rank_text in enumerate(ranks):
        y = SIZE - 1 - i
        x = 0
        for ch in rank_text:
            if ch in "1234567":
                x += int(ch)
            elif ch in "RYo":
                if x >= SIZE:
                    raise ValueError(f"bad board in {position!r}")
                board[_square(x, y)] = ch
                x += 1
            else:
                raise ValueError(f"bad board in {position!r}")
        if x != SIZE:
            raise ValueError(f"bad board in {position!r}")
    if side not in ("r", "y") or phase not in ("m", "d", "g"):
        raise ValueError(f"bad side/phase in {position!r}")
    red_stones, yellow_stones = (int(v) for v in stones.split("/"))
    red_score, yellow_score = (int(v) for v in scores.split("/"))
    return {
        "board": board,
        "side": side,
        "phase": phase,
        "stones": {"r": red_stones, "y": yellow_stones},
        "scores": {"r": red_score, "y": yellow_score},
        "passes": int(passes),
        "turns": int(turns),
    }


def format_position(pos: dict) -> str:
    rows = []
    for y in range(SIZE - 1, -1, -1):
        text = ""
        run = 0
        for x in range(SIZE):
            piece = pos["board"].get(_square(x, y))
            if piece is None:
                run += 1
            else:
                if run:
                    text += str(run)
                    run = 0
                text += piece
        if run:
            text += str(run)
        rows.append(text)
    return (
        f"{'/'.join(rows)} {pos['side']} {pos['phase']} "
        f"{pos['stones']['r']}/{pos['stones']['y']} "
        f"{pos['scores']['r']}/{pos['scores']['y']} {pos['passes']} {pos['turns']}"
    )


# ----------------------------------------------------------------------------- rules


def initial(options: dict) -> str:
    opts = _opts(options)
    if opts["start"] == "corners":
        # "Red koi on a1 and g1, Yellow koi on a7 and g7"
        board = {"a1": "R", "g1": "R", "a7": "Y", "g7": "Y"}
    else:
        # "inset = alternate rule 1: Red b2, f2; Yellow b6, f6"
        board = {"b2": "R", "f2": "R", "b6": "Y", "f6": "Y"}
    pos = {
        "board": board,
        "side": "r" if opts["first"] == "red" else "y",
        "phase": "m",
        "stones": {"r": opts["stones"], "y": opts["stones"]},
        "scores": {"r": 0, "y": 0},
        "passes": 0,
        "turns": 0,
    }
    return format_position(pos)


def _koi_moves(pos: dict) -> list[str]:
    """All swims and jumps of the side to act (phase m)."""
    board = pos["board"]
    moves = []
    for square, piece in board.items():
        if piece != KOI[pos["side"]]:
            continue
        x, y = _coords(square)
        for dx, dy in DIRECTIONS:
            # swim: "one own koi moves to one of the 8 neighbouring squares that is empty
            # (no koi, no stone)"
            nx, ny = x + dx, y + dy
            if _on_board(nx, ny) and _square(nx, ny) not in board:
                moves.append(f"{square}-{_square(nx, ny)}")
            # jump: "over exactly one stone on the neighbouring square, landing on the empty
            # square directly beyond.  Koi cannot be jumped."
            jx, jy = x + 2 * dx, y + 2 * dy
            if (
                _on_board(jx, jy)
                and board.get(_square(nx, ny)) == "o"
                and _square(jx, jy) not in board
            ):
                moves.append(f"{square}-{_square(jx, jy)}")
    return moves


def _over(pos: dict, opts: dict) -> tuple[str, tuple[int, int], str] | None:
    scores = pos["scores"]
    points = (scores["r"], scores["y"])
    # "Reaching the target ... ends the game at once with that player winning"
    reached = [s for s in ("r", "y") if scores[s] >= opts["target"]]
    if reached:
        if len(reached) == 2:
            # Not reachable in play; the last mover (not the side to act) scored last.
            reached = [_other(pos["side"])]
        return NAMES[reached[0]], points, "target"
    # Other end checks run between turns only ("a started turn is always finished").
    if pos["phase"] != "m":
        return None

    def by_score(reason: str) -> tuple[str, tuple[int, int], str]:
        # "Game end other than by target: higher score wins; equal scores are a draw."
        if scores["r"] > scores["y"]:
            return "red", points, reason
        if scores["y"] > scores["r"]:
            return "yellow", points, reason
        return "draw", points, reason

    # "Two consecutive passes end the game."
    if pos["passes"] >= 2:
        return by_score("passes")
    # "when that many turns (passes included, gives not) have been played, the game ends"
    if pos["turns"] >= opts["max_turns"]:
        return by_score("turn_cap")
    # "With no_move=lose, a player to move with no swim or jump has lost"
    if opts["no_move"] == "lose" and not _koi_moves(pos):
        return NAMES[_other(pos["side"])], points, "no_moves"
    return None


def outcome(options: dict, position: str) -> tuple[str, tuple[int, int], str] | None:
    return _over(parse(position), _opts(options))


def legal(options: dict, position: str) -> list[str]:
    opts = _opts(options)
    pos = parse(position)
    if _over(pos, opts) is not None:
        return []
    board = pos["board"]
    if pos["phase"] == "d":
        # drop: "places one stone on any empty square (the square just left included)"
        empties = [
            _square(x, y) for x in range(SIZE) for y in range(SIZE) if _square(x, y) not in board
        ]
        return sorted(f"@{sq}" for sq in empties)
    if pos["phase"] == "g":
        # give: "the opponent immediately chooses any stone on the board"
        return sorted(f"x{sq}" for sq, piece in board.items() if piece == "o")
    moves = _koi_moves(pos)
    if not moves:
        # "No legal swim or jump: option no_move=pass ... the player's only action is pass"
        return ["pass"]
    return sorted(moves)


def _end_turn(pos: dict) -> None:
    """Close the turn: TURNS + 1, the opponent to act, phase m."""
    pos["turns"] += 1
    pos["side"] = _other(pos["side"])
    pos["phase"] = "m"


def play(options: dict, position: str, action: str) -> str:
    opts = _opts(options)
    pos = parse(position)
    if action not in legal(opts, position):
        raise ValueError(f"illegal action {action!r} in {position!r}")
    side = pos["side"]
    board = pos["board"]

    if action == "pass":
        pos["passes"] += 1
        _end_turn(pos)
        return format_position(pos)

    if action.startswith("x"):
        # give: the stone "goes back to the dropping player's supply"; the giver then plays
        # his own turn.  "a give belongs to no turn" (TURNS and PASSES unchanged).
        del board[action[1:]]
        pos["stones"][_other(side)] += 1
        pos["phase"] = "m"
        return format_position(pos)

    if action.startswith("@"):
        # drop: one stone from the mover's supply onto an empty square; the turn is complete.
        board[action[1:]] = "o"
        pos["stones"][side] -= 1
        _end_turn(pos)
        # recycle: "when a player drops his last stone, the opponent immediately chooses any
        # stone on the board" -- unless "the turn cap is reached by a turn that dropped the
        # last stone under recycle, the game ends at once and no give is played".
        if opts["recycle"] and pos["stones"][side] == 0 and pos["turns"] < opts["max_turns"]:
            pos["phase"] = "g"  # the side to act (the opponent of the dropper) gives
        return format_position(pos)

    # swim or jump
    src, dst = action.split("-")
    sx, sy = _coords(src)
    dx, dy = _coords(dst)
    is_jump = max(abs(dx - sx), abs(dy - sy)) == 2
    board[dst] = board.pop(src)
    # "PASSES resets to 0 at a swim or jump."
    pos["passes"] = 0
    # "when a koi lands (swim or jump), its owner scores 1 point per other koi (own or
    # opponent's) on the 8 squares around the landing square"
    gained = 0
    for ox, oy in DIRECTIONS:
        nx, ny = dx + ox, dy + oy
        if _on_board(nx, ny) and board.get(_square(nx, ny)) in ("R", "Y"):
            gained += 1
    pos["scores"][side] += gained
    if pos["scores"][side] >= opts["target"]:
        # "Reaching the target ends the game at once ... a pending drop is then not made."
        # "When the target is reached the turn is closed as usual (TURNS + 1, the opponent
        # to act, phase m)."
        _end_turn(pos)
        return format_position(pos)
    if not is_jump and pos["stones"][side] > 0:
        # "Then, if the mover still has stones, a drop follows ... The drop is mandatory."
        pos["phase"] = "d"
        return format_position(pos)
    # jump ("No drop follows") or a swim without stones: the turn is complete.
    _end_turn(pos)
    return format_position(pos)
