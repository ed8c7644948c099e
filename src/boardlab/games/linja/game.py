"""The Linja game: options, position strings, action strings and the board drawing."""

from __future__ import annotations

import re
from functools import cached_property
from types import MappingProxyType

from boardlab.core.editing import SWITCH, EditTool
from boardlab.core.errors import InvalidNotationError, clipped
from boardlab.core.fields import read_choice, read_int, split_fields
from boardlab.core.game import ModuleGame
from boardlab.core.i18n import N_, Np_, _
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
#: The start and goal rows, as the text board labels them.
ZONE_LABELS = {0: N_("black start / red goal"), ROWS - 1: N_("red start / black goal")}


def read_rows(rows: str, text: str, most: int = 10**9) -> list[list[int]]:
    """Both sides' counts of rows 0-7 in the BLACK/RED field of ``text``, each from 0 to
    ``most`` (the editor reads any count: the parser judges them)."""
    counts = [half.split(",") for half in rows.split("/")]
    if len(counts) != 2 or any(len(c) != ROWS for c in counts):
        raise InvalidNotationError(
            _(
                "malformed BLACK/RED {rows!r} in position string {text!r}: expected the "
                "counts of rows 0-7 for each side, comma-separated, black/red"
            ).format(rows=clipped(rows), text=clipped(text))
        )
    return [[read_int(n, N_("row count"), text, 0, most) for n in c] for c in counts]


#: The words of the players and of the ends inside messages, as data spells them
#: (``Game.side_word``, ``Game.end_word`` translate them).
WORDS = (
    Np_("player", "black"),
    Np_("player", "red"),
    Np_("reason", "passed"),
    Np_("reason", "passes"),
    Np_("reason", "turn_cap"),
)


#: The position editor's palette: a piece of either player added to or removed from a
#: row, and the player to act. The phase, passes and turns keep their values.
EDIT_TOOLS = (
    EditTool(
        "add-black", N_("Add a black piece"), ("row",), "add", present.row_place(0, 1, 0).pieces[0]
    ),
    EditTool(
        "remove-black",
        N_("Remove a black piece"),
        ("row",),
        "remove",
        present.row_place(0, 1, 0).pieces[0],
    ),
    EditTool(
        "add-red", N_("Add a red piece"), ("row",), "add", present.row_place(0, 0, 1).pieces[0]
    ),
    EditTool(
        "remove-red",
        N_("Remove a red piece"),
        ("row",),
        "remove",
        present.row_place(0, 0, 1).pieces[0],
    ),
    SWITCH,
)
EDIT_PLACES = MappingProxyType({str(row): "row" for row in range(ROWS)})


@register
class Linja(ModuleGame[LinjaState, Rules]):
    """Linja, Steffen Mühlhäuser's race over seven bamboo sticks."""

    id = "linja"
    name = "Linja"
    players = ("black", "red")
    player_names = (N_("Black"), N_("Red"))
    summary = N_(
        "Race 12 pieces past the other side's; the row you enter sets the next move's length."
    )
    brief = N_("""
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
""")
    colours = ("#303030", "#d55e00")
    reasons = MappingProxyType(
        {
            "passed": N_("the sides have passed each other"),
            "passes": N_("two passes in a row"),
            "turn_cap": N_("the turn limit was reached"),
        }
    )
    piece_words = MappingProxyType({"piece": (Np_("piece", "piece"), Np_("pieces", "pieces"))})
    note_words = MappingProxyType(
        {
            "opening": N_("Opening move"),
            "follow_up": N_("Follow-up move"),
            "follow_up_due": N_("Earning a follow-up"),
            "no_follow_up": N_("No follow-up"),
            "overshoot": N_("Beyond the goal"),
            "goal": N_("Reaching the goal"),
            "bonus": N_("Bonus move"),
            "bonus_due": N_("Earning a bonus move"),
            "decline": N_("Bonus declined"),
            "pass": N_("Pass"),
        }
    )
    engine = rules
    presenter = present
    edit_palette = EDIT_TOOLS
    position_fields = FIELDS
    side_letters = SIDES
    kernel = "boardlab.games.linja.kernel"
    compiled_perft_from = 9
    solver = "boardlab.games.linja.solver:LinjaSolver"
    study_options = ("ruleset", "scoring", "bonus_after_opening", "goal_step_back", "nasty")
    schema = OptionSchema(
        (
            Option(
                "first",
                "black",
                N_("the player who moves first"),
                choices=("black", "red"),
                label=N_("Who moves first"),
                choice_labels=player_names,
            ),
            Option(
                "ruleset",
                "bonus",
                N_("bonus: the seed text; extra-turn: the bilingual Steffen sheet"),
                choices=("bonus", "extra-turn"),
                label=N_("Rule set"),
                choice_labels=(N_("bonus moves"), N_("an extra turn")),
            ),
            Option(
                "bonus_after_opening",
                False,
                N_("an opening move into the goal also earns a bonus move"),
                label=N_("A bonus after an opening move into the goal"),
            ),
            Option(
                "goal_step_back",
                False,
                N_("a bonus may move an own piece back out of the goal"),
                label=N_("A bonus may step back out of the goal"),
            ),
            Option(
                "nasty",
                False,
                N_("a bonus may instead move an opponent piece one row"),
                label=N_("A bonus may move an opponent's piece"),
            ),
            Option(
                "scoring",
                "signed",
                N_("signed: -5 -3 -2 -1 1 2 3 5 by row; positive: 0 0 0 0 1 2 3 5"),
                choices=("signed", "positive"),
                label=N_("Scoring"),
                choice_labels=(N_("signed (-5 to 5)"), N_("positive (0 to 5)")),
            ),
            Option(
                "max_turns",
                1000,
                N_("turns after which the game ends (more points wins)"),
                low=1,
                high=100_000,
                label=N_("Turn limit"),
            ),
        )
    )

    def bind_rules(self) -> Rules:
        o = self.options
        return Rules(
            extra_turn=o["ruleset"] == "extra-turn",
            bonus_after_opening=bool(o["bonus_after_opening"]),
            goal_step_back=bool(o["goal_step_back"]),
            nasty=bool(o["nasty"]),
            max_turns=int(o["max_turns"]),
        )

    @cached_property
    def positive(self) -> bool:
        """Scoring by the positive table (``scoring=positive``), not the signed one."""
        return self.options["scoring"] == "positive"

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

    def phase(self, state: LinjaState) -> str:
        letter = {OPENING: "o", FOLLOW_UP: f"f{state.steps}", BONUS: "b"}[state.phase]
        return letter + ("+" if state.extra else "")

    def points(self, state: LinjaState) -> tuple[int, int]:
        return rules.points(state, self.positive)

    # ------------------------------------------------------------------ position strings
    def format_state(self, state: LinjaState) -> str:
        black, red = (",".join(map(str, c)) for c in state.counts)
        return f"{black}/{red} {SIDES[state.side]} {self.phase(state)} {state.passes} {state.turns}"

    def parse_state(self, text: str, check: bool = True) -> LinjaState:
        """With ``check=False`` only the format is read: a row may hold any count (as the
        editor writes them), and the pieces a side, the full rows, passes against turns,
        the phase due under the ruleset and the first turn are not judged."""
        rows, side, phase, passes, turns = split_fields(text, FIELDS, "linja")
        most = PIECES if check else 10**9
        black, red = (tuple(counts) for counts in read_rows(rows, text, most))
        match = PHASE.fullmatch(phase)
        if not match:
            raise InvalidNotationError(
                _(
                    "malformed PHASE {phase!r} in position string {text!r}: "
                    "expected o, o+, fN, fN+ (N from 1 to 7) or b"
                ).format(phase=clipped(phase), text=clipped(text))
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
        if check:
            self._check_state(state, text)
        return state

    def _check_state(self, state: LinjaState, text: str) -> None:
        def refuse(why: str) -> InvalidNotationError:
            return InvalidNotationError(
                _("impossible linja position string {text!r}: {why}").format(
                    text=clipped(text), why=why
                )
            )

        if state.passes > state.turns:
            raise refuse(
                _(
                    "{passes} passes in a row but only {turns} turns played (a pass is a turn)"
                ).format(passes=state.passes, turns=state.turns)
            )
        for side in (BLACK, RED):
            count = sum(state.counts[side])
            if count != PIECES:
                raise refuse(
                    _("{player} has {count} pieces, every player has {pieces}").format(
                        player=Linja.side_word(side), count=count, pieces=PIECES
                    )
                )
        for row in range(1, ROWS - 1):
            if rules.total(state, row) > CAPACITY:
                raise refuse(
                    _("row {row} holds more than {capacity} pieces").format(
                        row=row, capacity=CAPACITY
                    )
                )
        if state.phase == BONUS and state.extra:
            raise refuse(_("a bonus never happens inside an extra turn"))
        if state.extra and not self.rules.extra_turn:
            raise refuse(_("extra turns exist only under ruleset=extra-turn"))
        if state.phase == BONUS and self.rules.extra_turn:
            raise refuse(_("there is no bonus under ruleset=extra-turn"))
        if state.phase == FOLLOW_UP and not self.legal_actions(state):
            raise refuse(
                _("no piece can make the follow-up of {steps} (it is forfeited)").format(
                    steps=state.steps
                )
            )
        if state.phase == BONUS and not state.counts[state.side][rules.goal(state.side)]:
            raise refuse(
                _(
                    "a bonus is due but {player} has no piece in the goal (row {row}); "
                    "a bonus is earned by entering it"
                ).format(player=Linja.side_word(state.side), row=rules.goal(state.side))
            )
        inside_a_turn = state.phase != OPENING or state.extra
        if state.turns == 0 and inside_a_turn and state not in self._first_turn:
            raise refuse(
                _(
                    "no turn is complete (TURNS 0), so this must be a step of the first "
                    "turn from the initial position, and it is not"
                )
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

    # ------------------------------------------------------------------ position editor
    def edit_places(self, text: str) -> MappingProxyType[str, str]:
        read_rows(self.edit_fields(text)[0], text)
        return EDIT_PLACES

    def edit_board(self, fields: list[str], tool: EditTool, place: str, text: str) -> None:
        """A row may take any count here (the parser judges the total)."""
        counts = read_rows(fields[0], text)
        assert tool.piece is not None and tool.piece.owner is not None
        row, here = counts[tool.piece.owner], int(place)
        row[here] = row[here] + 1 if tool.effect == "add" else max(0, row[here] - 1)
        fields[0] = "/".join(",".join(map(str, side)) for side in counts)

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
            raise InvalidNotationError(
                _(
                    "invalid linja action {text!r}: expected a move FROM-TO with rows 0-7 "
                    "like 0-1 or 3-7, an opponent move like o4-5, or pass"
                ).format(text=clipped(text))
            )
        code = int(match.group(2)) * ROWS + int(match.group(3))
        return code + NASTY if match.group(1) else code

    # ------------------------------------------------------------------ presentation
    def due(self, state: LinjaState) -> str:
        return present.due(state)

    # ------------------------------------------------------------------ drawing
    def render(self, state: LinjaState) -> str:
        lines = [_("row  black  red   (black moves up to row 7, red down to row 0)")]
        for row in range(ROWS - 1, -1, -1):
            label = _(ZONE_LABELS[row]) if row in ZONE_LABELS else ""
            b, r = state.counts[BLACK][row], state.counts[RED][row]
            pieces = "B" * b + "R" * r
            lines.append(f" {row}   {b:>3}  {r:>3}   {pieces:<13} {label}".rstrip())
        black, red = self.points(state)
        lines.append(
            _("points: black {black}, red {red}; turn {turn}").format(
                black=black, red=red, turn=state.turns
            )
        )
        outcome = self.outcome_of(state)
        if outcome is not None:
            lines.append(self.over_line(outcome))
        else:
            lines.append(
                _("{player} to play: {due}").format(
                    player=self.player_name(state.side), due=present.due(state)
                )
            )
        return "\n".join(lines)
