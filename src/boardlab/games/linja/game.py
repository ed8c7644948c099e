"""The Linja game: options, position strings, action strings and the board drawing."""

from __future__ import annotations

import re
from functools import cached_property
from types import MappingProxyType
from typing import Any

from boardlab.core.board import ActionParts, Board, Note
from boardlab.core.errors import InvalidNotationError
from boardlab.core.fields import read_choice, read_int, split_fields
from boardlab.core.game import Feature, Game, Outcome
from boardlab.core.options import Option, OptionSchema, OptionValue
from boardlab.core.registry import register
from boardlab.games.linja import present, rules
from boardlab.games.linja.rules import (
    BLACK,
    BONUS,
    CAPACITY,
    FOLLOW_UP,
    NASTY,
    NUM_ACTIONS,
    OPENING,
    PASS,
    PIECES,
    RED,
    ROWS,
    LinjaState,
    Rules,
)

FIELDS = ("BLACK/RED", "SIDE", "PHASE", "PASSES", "TURNS")
SIDES = ("b", "r")
PHASE = re.compile(r"(o|f([1-7])|b)(\+?)")
MOVE = re.compile(r"(o?)([0-7])-([0-7])")
ACTION_FORMS = "a move FROM-TO with rows 0-7 like 0-1 or 3-7, an opponent move like o4-5, or pass"


@register
class Linja(Game[LinjaState]):
    """Linja, Steffen Mühlhäuser's race over seven bamboo sticks."""

    id = "linja"
    name = "Linja"
    players = ("black", "red")
    summary = "Race 12 pieces past the other side's; the row you enter sets the next move's length."
    brief = """
Rows 0-7: row 0 is Black's start and Red's goal, row 7 Red's start and Black's goal;
rows 1-6 lie between the 7 sticks and hold at most 6 pieces each (a move may cross a
full row but not end in one). Black starts with 6 pieces in row 0 and one in each of rows
1-6, Red mirrored. Black moves up, Red down; only bonus moves go backward.

A turn (ruleset bonus):
1. opening: one own piece moves one row forward (no opening possible: pass);
2. follow-up: N = the pieces of both colours already in the row the opening piece
   entered; if N > 0 (and it did not enter the goal) one own piece, any, moves exactly N
   rows forward, ending in the goal if it would go beyond (impossible: forfeited);
3. bonus: if the follow-up piece entered the goal with exactly N steps, one own piece
   may move one row forward or backward (pass declines).
Ruleset extra-turn: an opening into the goal earns a follow-up of 1; a follow-up that
ends in a field row that was empty earns one extra turn; no bonus.

The game ends when every black piece stands beyond every red piece, after two passes in
a row, or at the turn cap. Each piece scores by its row counted from its own start:
-5 -3 -2 -1 +1 +2 +3 +5 (positive: 0 0 0 0 1 2 3 5). More points wins.

Actions: FROM-TO with absolute rows (0-1, 3-7), o4-5 for an opponent piece (nasty), pass.
Position: BLACK/RED SIDE PHASE PASSES TURNS, e.g. 6,1,1,1,1,1,1,0/0,1,1,1,1,1,1,6 b o 0 0
(phase o opening, fN follow-up of N, b bonus; + marks an extra turn).
"""
    colours = ("#303030", "#d55e00")
    reasons = MappingProxyType(
        {
            "passed": "the sides have passed each other",
            "passes": "two passes in a row",
            "turn_cap": "the turn limit was reached",
        }
    )
    kernel = "boardlab.games.linja.kernel"
    compiled_perft_from = 9
    solver = "boardlab.games.linja.solver:LinjaSolver"
    study_options = ("ruleset", "scoring", "bonus_after_opening", "goal_step_back", "nasty")
    schema = OptionSchema(
        (
            Option("first", "black", "the player who moves first", choices=("black", "red")),
            Option(
                "ruleset",
                "bonus",
                "bonus: the seed text; extra-turn: the bilingual Steffen sheet",
                choices=("bonus", "extra-turn"),
            ),
            Option(
                "bonus_after_opening",
                False,
                "an opening move into the goal also earns a bonus move",
            ),
            Option("goal_step_back", False, "a bonus may move an own piece back out of the goal"),
            Option("nasty", False, "a bonus may instead move an opponent piece one row"),
            Option(
                "scoring",
                "signed",
                "signed: -5 -3 -2 -1 1 2 3 5 by row; positive: 0 0 0 0 1 2 3 5",
                choices=("signed", "positive"),
            ),
            Option(
                "max_turns",
                1000,
                "turns after which the game ends (more points wins)",
                low=1,
                high=100_000,
            ),
        )
    )

    def __init__(self, options: Any = None, **kwargs: Any) -> None:
        super().__init__(options, **kwargs)
        o = self.options
        self.rules = Rules(
            extra_turn=o["ruleset"] == "extra-turn",
            bonus_after_opening=bool(o["bonus_after_opening"]),
            goal_step_back=bool(o["goal_step_back"]),
            nasty=bool(o["nasty"]),
            max_turns=int(o["max_turns"]),
        )
        self.positive = o["scoring"] == "positive"

    def effective_options(self) -> dict[str, OptionValue]:
        """The extra-turn ruleset has no bonus moves: their three options are idle."""
        chosen = dict(self.options)
        if self.rules.extra_turn:
            for name in ("bonus_after_opening", "goal_step_back", "nasty"):
                chosen[name] = self.schema.get(name).default
        return chosen

    @property
    def num_actions(self) -> int:
        return NUM_ACTIONS

    @property
    def max_actions(self) -> int:
        # bonus ruleset: opening, follow-up, bonus; extra-turn: two openings and follow-ups
        return (4 if self.rules.extra_turn else 3) * self.rules.max_turns

    # ------------------------------------------------------------------ rules
    def initial_state(self) -> LinjaState:
        black = (6, 1, 1, 1, 1, 1, 1, 0)
        return LinjaState(
            counts=(black, black[::-1]),
            side=BLACK if self.options["first"] == "black" else RED,
            phase=OPENING,
            steps=0,
            extra=False,
            passes=0,
            turns=0,
        )

    def legal_actions(self, state: LinjaState) -> list[int]:
        return rules.legal_actions(state, self.rules)

    def apply(self, state: LinjaState, action: int) -> LinjaState:
        return rules.apply(state, action, self.rules)

    def outcome_of(self, state: LinjaState) -> Outcome | None:
        reason = rules.end_reason(state, self.rules)
        if reason is None:
            return None
        black, red = self.points(state)
        winner = BLACK if black > red else RED if red > black else None
        return Outcome(winner, (black, red), reason, self.players)

    def to_act(self, state: LinjaState) -> int:
        return state.side

    def phase(self, state: LinjaState) -> str:
        letter = {OPENING: "o", FOLLOW_UP: f"f{state.steps}", BONUS: "b"}[state.phase]
        return letter + ("+" if state.extra else "")

    def points(self, state: LinjaState) -> tuple[int, int]:
        return rules.points(state, self.positive)

    def turns(self, state: LinjaState) -> int:
        return state.turns

    # ------------------------------------------------------------------ position strings
    def format_state(self, state: LinjaState) -> str:
        black, red = (",".join(map(str, c)) for c in state.counts)
        return f"{black}/{red} {SIDES[state.side]} {self.phase(state)} {state.passes} {state.turns}"

    def parse_state(self, text: str) -> LinjaState:
        rows, side, phase, passes, turns = split_fields(text, FIELDS, "linja")
        halves = rows.split("/")
        counts = [c.split(",") for c in halves]
        if len(halves) != 2 or any(len(c) != ROWS for c in counts):
            raise InvalidNotationError(
                f"malformed BLACK/RED {rows!r} in position string {text!r}: expected the "
                f"counts of rows 0-7 for each side, comma-separated, black/red"
            )
        black, red = (tuple(read_int(n, "row count", text, 0, 12) for n in c) for c in counts)
        match = PHASE.fullmatch(phase)
        if not match:
            raise InvalidNotationError(
                f"malformed PHASE {phase!r} in position string {text!r}: "
                f"expected o, o+, fN, fN+ (N from 1 to 7) or b"
            )
        kind = {"o": OPENING, "b": BONUS}.get(match.group(1), FOLLOW_UP)
        state = LinjaState(
            counts=(black, red),
            side=read_choice(side, "SIDE", text, SIDES),
            phase=kind,
            steps=int(match.group(2) or 0),
            extra=bool(match.group(3)),
            passes=read_int(passes, "PASSES", text, 0, 2),
            turns=read_int(turns, "TURNS", text, 0, 100_000),
        )
        self._check_state(state, text)
        return state

    def _check_state(self, state: LinjaState, text: str) -> None:
        def refuse(why: str) -> InvalidNotationError:
            return InvalidNotationError(f"impossible linja position string {text!r}: {why}")

        if state.passes > state.turns:
            raise refuse(
                f"{state.passes} passes in a row but only {state.turns} turns played "
                "(a pass is a turn)"
            )
        for side in (BLACK, RED):
            if sum(state.counts[side]) != PIECES:
                raise refuse(
                    f"{self.players[side]} has {sum(state.counts[side])} pieces, "
                    f"every player has {PIECES}"
                )
        for row in range(1, ROWS - 1):
            if rules.total(state, row) > CAPACITY:
                raise refuse(f"row {row} holds more than {CAPACITY} pieces")
        if state.phase == BONUS and state.extra:
            raise refuse("a bonus never happens inside an extra turn")
        if state.extra and not self.rules.extra_turn:
            raise refuse("extra turns exist only under ruleset=extra-turn")
        if state.phase == BONUS and self.rules.extra_turn:
            raise refuse("there is no bonus under ruleset=extra-turn")
        if state.phase == FOLLOW_UP and not self.legal_actions(state):
            raise refuse(f"no piece can make the follow-up of {state.steps} (it is forfeited)")
        if state.phase == BONUS and not state.counts[state.side][rules.goal(state.side)]:
            raise refuse(
                f"a bonus is due but {self.players[state.side]} has no piece in the goal "
                f"(row {rules.goal(state.side)}); a bonus is earned by entering it"
            )
        inside_a_turn = state.phase != OPENING or state.extra
        if state.turns == 0 and inside_a_turn and state not in self._first_turn:
            raise refuse(
                "no turn is complete (TURNS 0), so this must be a step of the first "
                "turn from the initial position, and it is not"
            )

    @cached_property
    def _first_turn(self) -> frozenset[LinjaState]:
        """Every position inside the game's first turn: the only ones with TURNS 0 and a
        follow-up, bonus or extra turn due."""
        seen: set[LinjaState] = set()
        todo = [self.initial_state()]
        while todo:
            state = todo.pop()
            if state.turns == 0 and state not in seen:
                seen.add(state)
                todo.extend(
                    rules.apply(state, a, self.rules)
                    for a in rules.legal_actions(state, self.rules)
                )
        return frozenset(seen)

    # ------------------------------------------------------------------ action strings
    def format_action(self, state: LinjaState, action: int) -> str:
        if action == PASS:
            return "pass"
        prefix = "o" if action >= NASTY else ""
        origin, to = divmod(action % NASTY, ROWS)
        return f"{prefix}{origin}-{to}"

    def parse_action(self, state: LinjaState, text: str) -> int:
        word = "".join(text.split()).lower()
        if word == "pass":
            return PASS
        match = MOVE.fullmatch(word)
        if not match:
            raise InvalidNotationError(f"invalid linja action {text!r}: expected {ACTION_FORMS}")
        code = int(match.group(2)) * ROWS + int(match.group(3))
        return code + NASTY if match.group(1) else code

    # ------------------------------------------------------------------ presentation
    def board_model(self, state: LinjaState) -> Board:
        return present.board_model(self, state)

    def action_parts(self, state: LinjaState, action: int) -> ActionParts:
        return present.action_parts(state, action)

    def due(self, state: LinjaState) -> str:
        return present.due(state)

    def narrate(self, state: LinjaState, action: int) -> list[Note]:
        return present.narrate(self, state, action)

    def evaluate(self, state: LinjaState, player: int) -> float:
        return present.evaluate(self, state, player)

    def observation(self, state: LinjaState, player: int | None = None) -> list[float]:
        return present.observation(self, state, state.side if player is None else player)

    def observation_layout(self) -> tuple[Feature, ...]:
        return present.observation_layout(self)

    # ------------------------------------------------------------------ drawing
    def render(self, state: LinjaState) -> str:
        lines = ["row  black  red   (black moves up to row 7, red down to row 0)"]
        for row in range(ROWS - 1, -1, -1):
            label = {0: "black start / red goal", 7: "red start / black goal"}.get(row, "")
            b, r = state.counts[BLACK][row], state.counts[RED][row]
            pieces = "B" * b + "R" * r
            lines.append(f" {row}   {b:>3}  {r:>3}   {pieces:<13} {label}".rstrip())
        black, red = self.points(state)
        lines.append(f"points: black {black}, red {red}; turn {state.turns}")
        outcome = self.outcome_of(state)
        if outcome is not None:
            lines.append(f"Game over ({outcome.reason}): {outcome.winner_name}")
        else:
            lines.append(f"{self.players[state.side].capitalize()} to play: {present.due(state)}")
        return "\n".join(lines)
