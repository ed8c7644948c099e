"""The Jin Li game: options, position strings, action strings and the board drawing."""

from __future__ import annotations

import re
from types import MappingProxyType

from boardlab.core.editing import SWITCH, EditTool
from boardlab.core.errors import IllegalActionError, InvalidNotationError, clipped
from boardlab.core.fields import read_choice, read_int, read_pair, split_fields
from boardlab.core.game import ModuleGame
from boardlab.core.i18n import N_, Np_, _, counted
from boardlab.core.options import Option, OptionSchema
from boardlab.core.registry import register
from boardlab.games.jinli import present, rules
from boardlab.games.jinli.present import square_name
from boardlab.games.jinli.rules import (
    DIRECTIONS,
    DROP,
    DROP_DUE,
    GIVE,
    GIVE_DUE,
    MOVE,
    NUM_ACTIONS,
    PASS,
    RED,
    SIZE,
    SQUARES,
    YELLOW,
    JinLiState,
    Rules,
)

FIELDS = ("BOARD", "SIDE", "PHASE", "STONES", "SCORES", "PASSES", "TURNS")
SIDES = ("r", "y")
PHASES = ("m", "d", "g")
START_SQUARES = {
    "corners": ((0, 6), (42, 48)),  # red a1 g1, yellow a7 g7
    "inset": ((8, 12), (36, 40)),  # red b2 f2, yellow b6 f6
}
SQUARE = re.compile(r"[a-g][1-7]")


def piece_at(state: JinLiState, square: int, empty: str) -> str:
    """The letter of a square in the position string: R, Y, o, or ``empty``."""
    bit = 1 << square
    if state.koi[RED] & bit:
        return "R"
    if state.koi[YELLOW] & bit:
        return "Y"
    return "o" if state.stones & bit else empty


def square_index(name: str) -> int:
    return (int(name[1]) - 1) * SIZE + "abcdefg".index(name[0])


def board_text(letters: list[str]) -> str:
    """The BOARD field of the squares' letters (R, Y, o, or empty), square by square."""
    ranks = []
    for rank in range(SIZE - 1, -1, -1):
        text, run = "", 0
        for letter in letters[rank * SIZE : rank * SIZE + SIZE]:
            if not letter:
                run += 1
                continue
            text += (str(run) if run else "") + letter
            run = 0
        ranks.append(text + (str(run) if run else ""))
    return "/".join(ranks)


def read_squares(board: str, text: str) -> list[str]:
    """The letter of every square (R, Y, o, or empty) of the BOARD field of ``text``,
    square by square, whatever the rules say of them (the editor reads impossible
    boards too); InvalidNotationError if it is not 7 ranks of 7 squares."""
    letters = [""] * SQUARES
    ranks = board.split("/")
    if len(ranks) != SIZE:
        raise InvalidNotationError(
            _(
                "malformed BOARD {board!r} in position string {text!r}: "
                "expected 7 ranks separated by '/'"
            ).format(board=board, text=clipped(text))
        )
    for row, rank_text in enumerate(ranks):
        rank, file = SIZE - 1 - row, 0
        for char in rank_text:
            if char in "1234567":
                file += int(char)
                continue
            if char not in "RYo" or file >= SIZE:
                raise InvalidNotationError(
                    _(
                        "malformed rank {rank} {rank_text!r} in position string {text!r}: "
                        "expected R, Y, o and digits 1-7 for empty squares, 7 squares a rank"
                    ).format(rank=rank + 1, rank_text=rank_text, text=clipped(text))
                )
            letters[rank * SIZE + file] = char
            file += 1
        if file != SIZE:
            raise InvalidNotationError(
                _(
                    "malformed rank {rank} {rank_text!r} in position string {text!r}: "
                    "it covers {file} squares, expected 7"
                ).format(rank=rank + 1, rank_text=rank_text, text=clipped(text), file=file)
            )
    return letters


def stone_taken(supply: tuple[int, int], side: int) -> tuple[int, int]:
    """The supplies after the editor puts a stone on the pond: it comes from the supply
    of ``side`` (the player to act) if it has one, else from the other's; with both
    empty the stone is one more than the game has (the parser says so)."""
    for player in (side, 1 - side):
        if supply[player]:
            return _with(supply, player, supply[player] - 1)
    return supply


def stone_returned(supply: tuple[int, int], side: int, on_board: int, each: int) -> tuple[int, int]:
    """The supplies after the editor takes a stone off the pond (cleared, or covered by
    a koi), ``on_board`` stones staying there, ``each`` the stones a player begins with.
    It goes back to the supply of ``side`` (the player to act), as the stone put last
    came from it, unless that supply is full (``each``): then to the other's. A stone
    the game does not have (the pond and the supplies already hold all ``2 * each``)
    leaves the game. So a stone put and cleared again gives the string back whenever the
    player to act had a stone in supply (and, with both supplies empty, when the game's
    stones were all on the pond)."""
    if on_board + sum(supply) >= 2 * each:
        return supply
    for player in (side, 1 - side):
        if supply[player] < each:
            return _with(supply, player, supply[player] + 1)
    return supply


def _with(pair: tuple[int, int], player: int, value: int) -> tuple[int, int]:
    return (value, pair[1]) if player == RED else (pair[0], value)


#: The words of the players and of the ends inside messages, as data spells them
#: (``Game.side_word``, ``Game.end_word`` translate them).
WORDS = (
    Np_("player", "red"),
    Np_("player", "yellow"),
    Np_("reason", "target"),
    Np_("reason", "passes"),
    Np_("reason", "turn_cap"),
    Np_("reason", "no_moves"),
)


#: The position editor's palette: what a player sets up on the pond (a koi of either
#: player, a stone, an empty square) and the player to act. Supplies, scores, phase,
#: passes and turns keep their values: they are counts a board does not show.
EDIT_TOOLS = (
    EditTool("red-koi", N_("Red koi"), ("square",), "put", present.square_place(0, RED).pieces[0]),
    EditTool(
        "yellow-koi",
        N_("Yellow koi"),
        ("square",),
        "put",
        present.square_place(0, YELLOW).pieces[0],
    ),
    EditTool(
        "stone", N_("Stone"), ("square",), "put", present.square_place(0, present.STONE).pieces[0]
    ),
    EditTool("clear", N_("Clear a square"), ("square",), "clear"),
    SWITCH,
)
#: The letter each tool writes on a square of the BOARD field.
EDIT_LETTERS = {"red-koi": "R", "yellow-koi": "Y", "stone": "o", "clear": ""}
EDIT_PLACES = MappingProxyType({square_name(square): "square" for square in range(SQUARES)})


@register
class JinLi(ModuleGame[JinLiState, Rules]):
    """Jin Li, W. David MacKenzie's koi game on a 7x7 pond."""

    id = "jinli"
    name = "Jin Li"
    players = ("red", "yellow")
    player_names = (N_("Red"), N_("Yellow"))
    summary = N_("Swim two koi in a 7x7 pond, drop stones, jump them; score by meeting other koi.")
    brief = N_("""
Board: a 7x7 pond, squares a1-g7; Red's edge is rank 1. Each player has 2 koi (Red on a1
and g1, Yellow on a7 and g7; inset: b2 f2 / b6 f6) and a supply of {stones} stones.

A turn is a SWIM or a JUMP:
- swim: a koi moves to one of the 8 neighbouring empty squares (no koi, no stone); then,
  if the player has stones left, he must DROP one on any empty square (written @d4);
- jump: a koi jumps in a straight line over exactly one stone on the neighbouring square
  to the empty square just beyond (a1-c3); no drop follows. Koi cannot be jumped.
When a koi lands, its owner scores 1 point for every other koi (own or opponent's) on
the 8 squares around it. Reaching the target, {target} points, wins at once (no drop).

No swim or jump: pass (or, with no_move=lose, lose); two passes in a row end the game.
With recycle, when a player drops his last stone the opponent gives one stone of the
board back to him (written xe5) and then plays his own turn. At the turn cap, or after
two passes, the higher score wins; equal scores are a draw.

Actions: a1-b2 (swim), a1-c3 (jump), @d4 (drop), xe5 (give), pass.
Position: BOARD SIDE PHASE STONES SCORES PASSES TURNS,
e.g. Y5Y/7/7/7/7/7/R5R r m 10/10 0/0 0 0 (phase m move, d drop, g give).
""")
    colours = ("#d55e00", "#f0c419")
    reasons = MappingProxyType(
        {
            "target": N_("reached the target"),
            "passes": N_("two passes in a row"),
            "turn_cap": N_("the turn limit was reached"),
            "no_moves": N_("the player to move could not move"),
        }
    )
    piece_words = MappingProxyType(
        {
            "koi": (Np_("piece", "koi"), Np_("pieces", "koi")),
            "stone": (Np_("piece", "stone"), Np_("pieces", "stones")),
        }
    )
    note_words = MappingProxyType(
        {"swim": N_("Swim"), "jump": N_("Jump"), "drop": N_("Drop"), "pass": N_("Pass")}
    )
    engine = rules
    presenter = present
    edit_palette = EDIT_TOOLS
    position_fields = FIELDS
    side_letters = SIDES
    kernel = "boardlab.games.jinli.kernel"
    wins = "boardlab.games.jinli.wins:JinLiWins"
    compiled_perft_from = 6
    study_options = ("start", "recycle", "no_move")
    schema = OptionSchema(
        (
            Option(
                "start",
                "corners",
                N_("koi start in the corners, or inset (alternate rule 1)"),
                choices=("corners", "inset"),
                label=N_("Where the koi start"),
                choice_labels=(N_("in the corners"), N_("inset")),
            ),
            Option(
                "first",
                "red",
                N_("the player who moves first"),
                choices=("red", "yellow"),
                label=N_("Who moves first"),
                choice_labels=player_names,
            ),
            Option(
                "target",
                10,
                N_("points that win at once (alternate rule 3: 15)"),
                low=1,
                high=99,
                label=N_("Points to win"),
            ),
            Option(
                "stones",
                10,
                N_("stones in each player's supply (alternate rule 2: 6)"),
                low=0,
                high=22,
                label=N_("Stones per player"),
            ),
            Option(
                "recycle",
                False,
                N_(
                    "after a player drops his last stone the opponent gives one back "
                    "(alternate rule 4)"
                ),
                label=N_("Give a stone back"),
            ),
            Option(
                "no_move",
                "pass",
                N_("a player with no swim or jump passes, or loses"),
                choices=("pass", "lose"),
                label=N_("With no swim or jump"),
                choice_labels=(N_("pass"), N_("lose")),
            ),
            Option(
                "max_turns",
                300,
                N_("turns after which the game ends (higher score wins)"),
                low=1,
                high=100_000,
                label=N_("Turn limit"),
            ),
        )
    )

    def bind_rules(self) -> Rules:
        o = self.options
        return Rules(
            target=int(o["target"]),
            recycle=bool(o["recycle"]),
            lose_when_stuck=o["no_move"] == "lose",
            max_turns=int(o["max_turns"]),
        )

    @property
    def num_actions(self) -> int:
        return NUM_ACTIONS

    @property
    def max_actions(self) -> int:
        # A turn is a swim and a drop, or one jump or pass; a give may precede it.
        return 3 * self.rules.max_turns

    # ------------------------------------------------------------------ rules
    def initial_state(self) -> JinLiState:
        red, yellow = START_SQUARES[str(self.options["start"])]
        stones = int(self.options["stones"])
        return JinLiState(
            koi=(sum(1 << s for s in red), sum(1 << s for s in yellow)),
            stones=0,
            side=RED if self.options["first"] == "red" else YELLOW,
            phase=MOVE,
            supply=(stones, stones),
            score=(0, 0),
            passes=0,
            turns=0,
        )

    def winner_of(self, state: JinLiState, reason: str, points: tuple[int, int]) -> int | None:
        """A player who cannot move under ``no_move=lose`` loses whatever the scores."""
        if reason == "no_moves":
            return 1 - state.side
        return super().winner_of(state, reason, points)

    def phase(self, state: JinLiState) -> str:
        return PHASES[state.phase]

    def points(self, state: JinLiState) -> tuple[int, int]:
        return state.score

    # ------------------------------------------------------------------ position strings
    def format_state(self, state: JinLiState) -> str:
        board = board_text([piece_at(state, square, "") for square in range(SQUARES)])
        return (
            f"{board} {SIDES[state.side]} {PHASES[state.phase]} "
            f"{state.supply[0]}/{state.supply[1]} {state.score[0]}/{state.score[1]} "
            f"{state.passes} {state.turns}"
        )

    def parse_state(self, text: str, check: bool = True) -> JinLiState:
        """With ``check=False`` only the format is read: the counts of koi, the stones in
        supply and in all, passes against turns and the phase due are not judged."""
        board, side, phase, stones, scores, passes, turns = split_fields(text, FIELDS, "jinli")
        koi, rocks = [0, 0], 0
        for square, letter in enumerate(read_squares(board, text)):
            if letter == "o":
                rocks |= 1 << square
            elif letter:
                koi["RY".index(letter)] |= 1 << square
        state = JinLiState(
            koi=(koi[0], koi[1]),
            stones=rocks,
            side=read_choice(side, "SIDE", text, SIDES),
            phase=read_choice(phase, "PHASE", text, PHASES),
            supply=read_pair(stones, "STONES", text, high=SQUARES),
            score=read_pair(scores, "SCORES", text, high=999),
            passes=read_int(passes, "PASSES", text, 0, 2),
            turns=read_int(turns, "TURNS", text, 0, 100_000),
        )
        if check:
            self._check_state(state, text)
        return state

    def _check_state(self, state: JinLiState, text: str) -> None:
        """InvalidNotationError if the rules could never reach ``state`` (``text``)."""
        if state.passes > state.turns:
            raise InvalidNotationError(
                _(
                    "impossible position string {text!r}: {passes} passes in a row but only "
                    "{turns} turns played (a pass is a turn)"
                ).format(text=clipped(text), passes=state.passes, turns=state.turns)
            )
        for player, letter in ((RED, "R"), (YELLOW, "Y")):
            if state.koi[player].bit_count() != 2:
                raise InvalidNotationError(
                    _(
                        "impossible position string {text!r}: {player} has {count} koi "
                        "({letter}), every player has 2"
                    ).format(
                        text=clipped(text),
                        player=JinLi.side_word(player),
                        count=state.koi[player].bit_count(),
                        letter=letter,
                    )
                )
        each = int(self.options["stones"])
        on_board = state.stones.bit_count()
        for player in (RED, YELLOW):
            if state.supply[player] > each:
                raise InvalidNotationError(
                    _(
                        "impossible position string {text!r}: {player} has {stones}, more than "
                        "the {each} each player begins with (option stones)"
                    ).format(
                        text=clipped(text),
                        player=JinLi.side_word(player),
                        stones=counted(
                            state.supply[player], "{n} stone in supply", "{n} stones in supply"
                        ),
                        each=each,
                    )
                )
        if on_board + sum(state.supply) > 2 * each:
            raise InvalidNotationError(
                _(
                    "impossible position string {text!r}: {stones} and {supply} in supply, "
                    "more than the {total} of the game (option stones={each})"
                ).format(
                    text=clipped(text),
                    stones=counted(on_board, "{n} stone on the board", "{n} stones on the board"),
                    supply=sum(state.supply),
                    total=2 * each,
                    each=each,
                )
            )
        if state.phase == GIVE_DUE and not state.stones:
            raise InvalidNotationError(
                _(
                    "impossible position string {text!r}: a give is due but no stone is on the "
                    "board"
                ).format(text=clipped(text))
            )
        if state.phase == DROP_DUE and state.supply[state.side] == 0:
            raise InvalidNotationError(
                _(
                    "impossible position string {text!r}: a drop is due but {player} has no "
                    "stone in supply"
                ).format(text=clipped(text), player=JinLi.side_word(state.side))
            )
        if state.phase == GIVE_DUE and (
            not self.rules.recycle or state.supply[1 - state.side] != 0
        ):
            raise InvalidNotationError(
                _(
                    "impossible position string {text!r}: a give is due only with "
                    "recycle=true, after {player} dropped his last stone"
                ).format(text=clipped(text), player=JinLi.side_word(1 - state.side))
            )
        if state.phase == DROP_DUE and not rules.empty_squares(state):
            raise InvalidNotationError(
                _(
                    "impossible position string {text!r}: a drop is due but no square is empty"
                ).format(text=clipped(text))
            )

    # ------------------------------------------------------------------ position editor
    def edit_places(self, text: str) -> MappingProxyType[str, str]:
        read_squares(self.edit_fields(text)[0], text)
        return EDIT_PLACES

    def edit_board(self, fields: list[str], tool: EditTool, place: str, text: str) -> None:
        """A stone comes from a supply and goes back to one, so the stones of the game
        keep their number as the rules count it (``stone_taken``, ``stone_returned``)."""
        letters = read_squares(fields[0], text)
        square = square_index(place)
        letter = EDIT_LETTERS[tool.id]
        if (letters[square] == "o") != (letter == "o"):
            supply = read_pair(fields[3], "STONES", text, high=SQUARES)
            side = SIDES.index(fields[1])
            if letter == "o":
                supply = stone_taken(supply, side)
            else:
                on_board = letters.count("o") - 1
                supply = stone_returned(supply, side, on_board, int(self.options["stones"]))
            fields[3] = f"{supply[0]}/{supply[1]}"
        letters[square] = letter
        fields[0] = board_text(letters)

    # ------------------------------------------------------------------ action strings
    def format_action(self, state: JinLiState, action: int) -> str:
        if action == PASS:
            return "pass"
        if action >= GIVE:
            return "x" + square_name(action - GIVE)
        if action >= DROP:
            return "@" + square_name(action - DROP)
        origin, kind = divmod(action, 16)
        to = rules.step(origin, kind & 7, 2 if kind >= 8 else 1)
        return f"{square_name(origin)}-{square_name(to)}"

    def parse_action(self, state: JinLiState, text: str) -> int:
        word = "".join(text.split()).lower()
        if word == "pass":
            return PASS
        if len(word) == 3 and word[0] in "@x" and SQUARE.fullmatch(word[1:]):
            return (DROP if word[0] == "@" else GIVE) + square_index(word[1:])
        parts = word.split("-")
        if len(parts) != 2 or not all(SQUARE.fullmatch(p) for p in parts):
            raise InvalidNotationError(
                _(
                    "invalid jinli action {text!r}: expected a swim or jump like a1-b2 or "
                    "a1-c3, a drop like @d4, a give like xe5, or pass"
                ).format(text=clipped(text))
            )
        origin, to = square_index(parts[0]), square_index(parts[1])
        df, dr = to % SIZE - origin % SIZE, to // SIZE - origin // SIZE
        steps = max(abs(df), abs(dr))
        if steps in (1, 2) and df in (-steps, 0, steps) and dr in (-steps, 0, steps):
            d = DIRECTIONS.index((df // steps, dr // steps))
            return origin * 16 + (8 if steps == 2 else 0) + d
        raise IllegalActionError(
            _(
                "illegal jinli action {text!r}: a koi swims one square or jumps two in a line"
            ).format(text=clipped(text))
        )

    # ------------------------------------------------------------------ presentation
    def due(self, state: JinLiState) -> str:
        return _(present.DUE[state.phase])

    # ------------------------------------------------------------------ drawing
    def render(self, state: JinLiState) -> str:
        files = "    " + " ".join("abcdefg")
        lines = [files]
        for rank in range(SIZE - 1, -1, -1):
            cells = []
            for file in range(SIZE):
                cells.append(piece_at(state, rank * SIZE + file, "."))
            lines.append(f" {rank + 1}  {' '.join(cells)}  {rank + 1}")
        lines.append(files)
        for side in (RED, YELLOW):
            points = counted(state.score[side], "{n} point", "{n} points")
            stones = counted(state.supply[side], "{n} stone in supply", "{n} stones in supply")
            lines.append(f"{self.player_name(side):<8}{points:<11}{stones}")
        reason = rules.end_reason(state, self.rules)
        if reason is not None:
            outcome = self.outcome_of(state)
            assert outcome is not None and outcome.reason == reason
            lines.append(self.over_line(outcome))
        else:
            player = self.player_name(state.side)
            if state.phase == DROP_DUE:
                doing = _("{player} to drop a stone").format(player=player)
            elif state.phase == GIVE_DUE:
                doing = _("{player} to give a stone back").format(player=player)
            else:
                doing = _("{player} to swim or jump").format(player=player)
            lines.append(doing)
        return "\n".join(lines)


__all__ = ["DROP", "GIVE", "PASS", "JinLi"]
