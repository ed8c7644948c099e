"""A fourth game, registered only by the tests that use it: tic-tac-toe, written as a game
author would, against the public API alone. That it goes through every tool with no
change outside this file proves the tools name no game."""

from __future__ import annotations

from types import MappingProxyType
from typing import NamedTuple

from boardlab import Game, IllegalActionError, InvalidNotationError, Option, OptionSchema, Outcome
from boardlab.core.board import ActionParts, Board, Note, Piece, Place, Tally

SIDES = ("x", "o")
LINES = (
    (0, 1, 2), (3, 4, 5), (6, 7, 8),
    (0, 3, 6), (1, 4, 7), (2, 5, 8),
    (0, 4, 8), (2, 4, 6),
)  # fmt: skip
EMPTY = -1


class TicTacToeState(NamedTuple):
    cells: tuple[int, ...]  # a1 b1 c1 a2 ... c3: -1 empty, 0 x, 1 o
    side: int
    turns: int


def square_name(square: int) -> str:
    return "abc"[square % 3] + str(square // 3 + 1)


def winner(state: TicTacToeState) -> int | None:
    for a, b, c in LINES:
        if state.cells[a] != EMPTY and state.cells[a] == state.cells[b] == state.cells[c]:
            return state.cells[a]
    return None


class TicTacToe(Game[TicTacToeState]):
    """Three in a row on a 3x3 grid; x moves first unless ``first=o``."""

    id = "tictactoe"
    name = "Tic-tac-toe"
    players = SIDES
    summary = "Mark squares of a 3x3 grid in turn; three in a row wins."
    brief = "Players mark an empty square in turn (a1-c3); three marks in a line win."
    colours = ("#0072b2", "#d55e00")
    kernel = "fourth_game_kernel"  # tests/fourth_game_kernel.py, beside this file
    reasons = MappingProxyType(
        {"line": "three in a row", "full": "the board is full", "turn_cap": "the turn limit"}
    )
    schema = OptionSchema(
        (
            Option("first", "x", "the player who marks first", choices=SIDES),
            Option("max_turns", 9, "turns after which the game ends in a draw", low=1, high=9),
        )
    )

    @property
    def num_actions(self) -> int:
        return 9

    @property
    def max_actions(self) -> int:
        return int(self.options["max_turns"])

    def initial_state(self) -> TicTacToeState:
        return TicTacToeState((EMPTY,) * 9, SIDES.index(str(self.options["first"])), 0)

    def legal_actions(self, state: TicTacToeState) -> list[int]:
        if self.outcome_of(state) is not None:
            return []
        return [k for k, cell in enumerate(state.cells) if cell == EMPTY]

    def apply(self, state: TicTacToeState, action: int) -> TicTacToeState:
        cells = list(state.cells)
        cells[action] = state.side
        return TicTacToeState(tuple(cells), 1 - state.side, state.turns + 1)

    def outcome_of(self, state: TicTacToeState) -> Outcome | None:
        won = winner(state)
        if won is not None:
            return Outcome(won, self.points(state), "line", self.players)
        if EMPTY not in state.cells:
            return Outcome(None, self.points(state), "full", self.players)
        if state.turns >= int(self.options["max_turns"]):
            return Outcome(None, self.points(state), "turn_cap", self.players)
        return None

    def to_act(self, state: TicTacToeState) -> int:
        return state.side

    def phase(self, state: TicTacToeState) -> str:
        return "m"

    def points(self, state: TicTacToeState) -> tuple[int, int]:
        won = winner(state)
        return (int(won == 0), int(won == 1))

    def turns(self, state: TicTacToeState) -> int:
        return state.turns

    def format_state(self, state: TicTacToeState) -> str:
        rows = [
            "".join(".xo"[state.cells[3 * rank + file] + 1] for file in range(3))
            for rank in (2, 1, 0)
        ]
        return f"{'/'.join(rows)} {SIDES[state.side]} {state.turns}"

    def parse_state(self, text: str) -> TicTacToeState:
        fields = text.split()
        rows = fields[0].split("/") if fields else []
        if (
            len(fields) != 3
            or len(rows) != 3
            or any(len(row) != 3 or set(row) - set(".xo") for row in rows)
            or fields[1] not in SIDES
            or not (fields[2].isascii() and fields[2].isdigit() and len(fields[2]) <= 1)
        ):
            raise InvalidNotationError(
                f"invalid tictactoe position string {text!r}: expected ranks 3 to 1 of . x o "
                f"separated by '/', the side to act (x or o) and the turns, like '.../.x./... o 1'"
            )
        cells = tuple(".xo".index(c) - 1 for rank in (0, 1, 2) for c in rows[2 - rank])
        return TicTacToeState(cells, SIDES.index(fields[1]), int(fields[2]))

    def format_action(self, state: TicTacToeState, action: int) -> str:
        return square_name(action)

    def parse_action(self, state: TicTacToeState, text: str) -> int:
        word = "".join(text.split()).lower()
        if len(word) != 2 or word[0] not in "abc" or word[1] not in "123":
            if len(word) == 2 and word[0].isalpha() and word[1].isdigit():
                raise IllegalActionError(f"illegal tictactoe action {text!r}: squares a1-c3")
            raise InvalidNotationError(
                f"invalid tictactoe action {text!r}: expected a square a1-c3"
            )
        return (int(word[1]) - 1) * 3 + "abc".index(word[0])

    def render(self, state: TicTacToeState) -> str:
        return "\n".join(self.format_state(state).split()[0].split("/"))

    def board_model(self, state: TicTacToeState) -> Board:
        places = []
        for square, cell in enumerate(state.cells):
            file, rank = square % 3, square // 3
            pieces = () if cell == EMPTY else (Piece("mark", cell, symbol="XO"[cell]),)
            places.append(Place(square_name(square), "square", file + 1, 3 - rank, pieces=pieces))
        for k in range(3):
            places.append(Place(f"file {k}", "label", k + 1, 0, text="abc"[k]))
            places.append(Place(f"rank {k}", "label", 0, 3 - k, text=str(k + 1)))
        over = self.outcome_of(state) is not None
        marks = [Tally(state.cells.count(side), "mark", "marks") for side in (0, 1)]
        return Board(4, 4, tuple(places), ((marks[0],), (marks[1],)),
                     None if over else state.side, "" if over else self.due(state))  # fmt: skip

    def action_parts(self, state: TicTacToeState, action: int) -> ActionParts:
        return ActionParts("mark", (square_name(action),), f"mark {square_name(action)}")

    def due(self, state: TicTacToeState) -> str:
        return "mark a square"

    def narrate(self, state: TicTacToeState, action: int) -> list[Note]:
        who = self.players[state.side].upper()
        square = square_name(action)
        notes = [Note("mark", "{player} marks {square}.", {"player": who, "square": square},
                      (square,))]  # fmt: skip
        if winner(self.apply(state, action)) is not None:
            notes.append(Note("line", "Three in a row: {player} wins.", {"player": who}))
        return notes
