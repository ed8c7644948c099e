"""The Galatjang game: options, position strings, action strings and the board drawing."""

from __future__ import annotations

from functools import cached_property
from types import MappingProxyType

from boardlab.core.editing import SWITCH, EditTool
from boardlab.core.errors import IllegalActionError, InvalidNotationError, clipped
from boardlab.core.fields import read_choice, read_int, read_pair, split_fields
from boardlab.core.game import ModuleGame
from boardlab.core.i18n import N_, Np_, _, counted, noun
from boardlab.core.options import Option, OptionSchema, OptionValue
from boardlab.core.registry import register
from boardlab.games.galatjang import present, rules
from boardlab.games.galatjang.rules import (
    BLOCKED,
    DEFAULT_PITS,
    MAX_PITS,
    NORTH,
    SOUTH,
    GalatjangState,
    Rules,
    pit_count,
    pit_index,
    store_index,
)

FIELDS = ("SOUTH/NORTH", "STORES", "SIDE", "ROUND", "TURNS")
SIDES = ("s", "n")
#: The most seeds a pit or a store of a position string may hold.
MOST_SEEDS = 9999


def read_pits(rows: str, text: str, most: int = 10**9) -> list[list[int]]:
    """South's and North's pits in the SOUTH/NORTH field of ``text``: seeds from 0 to
    ``most`` (the editor reads any count: the parser judges them), or BLOCKED."""
    halves = [half.split(",") for half in rows.split("/")]
    if len(halves) != 2 or len(halves[0]) != len(halves[1]) or len(halves[0]) > MAX_PITS:
        raise InvalidNotationError(
            _(
                "malformed SOUTH/NORTH {rows!r} in position string {text!r}: expected the "
                "pits s1.. and n1.. comma-separated, south/north, the same number on each "
                "side (at most {most}), x for a blocked pit"
            ).format(rows=clipped(rows), text=clipped(text), most=MAX_PITS)
        )
    return [
        [BLOCKED if cell == "x" else read_int(cell, "pit", text, 0, most) for cell in half]
        for half in halves
    ]


def pits_text(pits: list[int]) -> str:
    """A row of the SOUTH/NORTH field: seeds, or x for a blocked pit."""
    return ",".join("x" if n == BLOCKED else str(n) for n in pits)


#: The words of the players and of the ends inside messages, as data spells them
#: (``Game.side_word``, ``Game.end_word`` translate them).
WORDS = (
    Np_("player", "south"),
    Np_("player", "north"),
    Np_("reason", "no_seeds"),
    Np_("reason", "turn_cap"),
    Np_("reason", "cannot_fill"),
)


#: The position editor's palette: a seed added to or removed from a pit or a store, a
#: pit blocked or unblocked (from round 2 on, a pit its owner could not fill), and the
#: player to act. The round and the turns keep their values.
SEED = present.pit_place("s1", SOUTH, 1, 1, 1).pieces[0]
EDIT_TOOLS = (
    EditTool("add-seed", N_("Add a seed"), ("pit", "store"), "add", SEED),
    EditTool("remove-seed", N_("Remove a seed"), ("pit", "store"), "remove", SEED),
    EditTool("block", N_("Block or unblock a pit"), ("pit",), "block"),
    SWITCH,
)


@register
class Galatjang(ModuleGame[GalatjangState, Rules]):
    """Galatjang, a mancala from Makassar with relay sowing."""

    id = "galatjang"
    name = "Galatjang"
    players = ("south", "north")
    player_names = (N_("South"), N_("North"))
    summary = N_(
        "Sow seeds around a ring of pits and stores; relay from full pits, capture from empty."
    )
    brief = N_("""
Two rows of {pits} pits with {seeds} seeds each; South owns the bottom row (s1-s{pits},
left to right) and the store on the right, North the top row (n1-n{pits}, right to left
as South sees it) and the store on the left. Seeds go counter-clockwise: s1..s{pits},
South's store, n1..n{pits}, North's store, s1...

A sowing takes all seeds of an own non-empty pit and drops them one by one into the
following pits and stores. Where the last seed lands:
- own store: the player sows again (if he has seeds);
- a pit that held seeds: he picks them all up and keeps sowing (relay);
- the opponent's store, or an empty pit of the opponent: the turn ends;
- an empty own pit: that seed and the seeds of the opposite pit go to his store.
The round ends when the player to move has no seeds (or at the turn cap); each player
then puts the seeds of his pits into his store. More seeds wins.

With rounds > 1, each player refills his pits with {seeds} seeds each from his store, from the
store's end; pits he cannot fill are blocked (x) for the round; a player who cannot fill
one pit loses. The round's winner starts the next.

Actions: s3, n5 (the pit sown), or a bare pit number of the side to act.
Position: SOUTH/NORTH STORES SIDE ROUND TURNS, e.g. 6,6,6,6,6,6/6,6,6,6,6,6 0/0 s 1 0.
""")
    colours = ("#e69f00", "#56b4e9")
    point_words = noun("seed", "seeds")
    reasons = MappingProxyType(
        {
            "no_seeds": N_("a player to move had no seeds"),
            "turn_cap": N_("the turn limit was reached"),
            "cannot_fill": N_("a player could not fill a single pit"),
        }
    )
    piece_words = MappingProxyType({"seed": (Np_("piece", "seed"), Np_("pieces", "seeds"))})
    note_words = MappingProxyType(
        {
            "again": N_("Another sowing"),
            "capture": N_("Capture"),
            "relay": N_("Relay sowing"),
            "stop": N_("Stopping the sowing"),
            "round_end": N_("Ending the round"),
            "refill": N_("Refill"),
            "round": N_("New round"),
            "stay": N_("Staying put"),
        }
    )
    input_hint = N_("A bare number is a pit of yours: 3 is s3 for South.")
    engine = rules
    presenter = present
    edit_palette = EDIT_TOOLS
    position_fields = FIELDS
    side_letters = SIDES
    kernel = "boardlab.games.galatjang.kernel"
    compiled_perft_from = 9
    solver = "boardlab.games.galatjang.solver:GalatjangSolver"
    #: ``beginner`` plays more random moves: against ``noise=0.5`` ``easy`` scored 0.71
    #: (0.64 to 0.77) in 200 games, too near the ladder's 0.65; against 0.7, 0.80 (0.73
    #: to 0.85). ``expert`` is alpha-beta, which wins from the losing seat against
    #: ``hard`` where the MCTS of the same time does not (docs/ai.md).
    levels = MappingProxyType({"beginner": "greedy:noise=0.7"})
    compiled_levels = MappingProxyType({"expert": "alphabeta:engine=compiled,nodes=2000000,time=2"})
    study_options = ("sow_opponent_store", "skip_origin", "lone_seed")
    schema = OptionSchema(
        (
            Option(
                "pits",
                DEFAULT_PITS,
                N_("pits in each row"),
                low=1,
                high=MAX_PITS,
                label=N_("Pits per row"),
            ),
            Option(
                "seeds",
                6,
                N_("seeds in each pit at the start (and at a refill)"),
                low=1,
                high=20,
                label=N_("Seeds per pit"),
            ),
            Option(
                "first",
                "south",
                N_("the player who sows first"),
                choices=("south", "north"),
                label=N_("Who sows first"),
                choice_labels=player_names,
            ),
            Option(
                "sow_opponent_store",
                True,
                N_("sowing drops seeds into the opponent's store too"),
                label=N_("Sow into the opponent's store"),
            ),
            Option(
                "skip_origin",
                False,
                N_("a sowing skips the pit its seeds were taken from on later laps"),
                label=N_("Skip the emptied pit"),
            ),
            Option(
                "lone_seed",
                "store",
                N_("a last seed in an own empty pit facing an empty pit: to the store, or stays"),
                choices=("store", "stay"),
                label=N_("A last seed in an empty pit"),
                choice_labels=(N_("goes to the store"), N_("stays")),
            ),
            Option(
                "max_turns",
                500,
                N_("turns per round after which the round ends"),
                low=1,
                high=100_000,
                label=N_("Turn limit per round"),
            ),
            Option(
                "rounds",
                1,
                N_("rounds in a match (the seed's variant: more than 1)"),
                low=1,
                high=99,
                label=N_("Rounds"),
            ),
            Option(
                "refill",
                "store_end",
                N_("between rounds pits are filled from the store's end, or from pit 1"),
                choices=("store_end", "far_end"),
                label=N_("Refill between rounds"),
                choice_labels=(N_("from the store's end"), N_("from pit 1")),
            ),
            Option(
                "round_starter",
                "winner",
                N_("who starts the next round"),
                choices=("winner", "loser", "alternate"),
                label=N_("Who starts the next round"),
                choice_labels=(N_("the winner"), N_("the loser"), N_("in turn")),
            ),
        )
    )

    def bind_rules(self) -> Rules:
        o = self.options
        return Rules(
            seeds=int(o["seeds"]),
            sow_opponent_store=bool(o["sow_opponent_store"]),
            skip_origin=bool(o["skip_origin"]),
            capture_lone_seed=o["lone_seed"] == "store",
            max_turns=int(o["max_turns"]),
            rounds=int(o["rounds"]),
            refill_far_end=o["refill"] == "far_end",
            round_starter=str(o["round_starter"]),
        )

    @cached_property
    def pits(self) -> int:
        """The pits of a row (option ``pits``)."""
        return int(self.options["pits"])

    def effective_options(self) -> dict[str, OptionValue]:
        """``refill`` and ``round_starter`` act between rounds: idle in a one-round game."""
        chosen = dict(self.options)
        if self.rules.rounds == 1:
            for name in ("refill", "round_starter"):
                chosen[name] = self.schema.get(name).default
        return chosen

    @property
    def num_actions(self) -> int:
        return self.pits

    @property
    def max_actions(self) -> int:
        # Stores never shrink within a round and every extra sowing of a turn adds a seed
        # to the sower's store, so a round has at most max_turns + all seeds sowings.
        return self.rules.rounds * (self.rules.max_turns + 2 * self.pits * self.rules.seeds)

    # ------------------------------------------------------------------ rules
    def initial_state(self) -> GalatjangState:
        row = [self.rules.seeds] * self.pits
        return GalatjangState(
            ring=(*row, 0, *row, 0),
            side=SOUTH if self.options["first"] == "south" else NORTH,
            round=1,
            turns=0,
        )

    def trace(self, state: GalatjangState, action: int) -> tuple[list[rules.Step], GalatjangState]:
        """Every step of a sowing and what follows it, each with the board after it, and
        the state after them all."""
        steps: list[rules.Step] = []
        after = rules.apply(state, action, self.rules, steps)
        return steps, after

    def final_points(self, state: GalatjangState) -> tuple[int, int]:
        """The stores once each player has put the seeds of his pits into his own."""
        ring = rules.sweep(state)
        pits = pit_count(state)
        return ring[store_index(pits, SOUTH)], ring[store_index(pits, NORTH)]

    def winner_of(self, state: GalatjangState, reason: str, points: tuple[int, int]) -> int | None:
        """A match that ends because a player cannot fill a single pit is lost by him (a
        draw if neither can)."""
        if reason == "cannot_fill":
            short = [side for side in (SOUTH, NORTH) if points[side] < self.rules.seeds]
            return 1 - short[0] if len(short) == 1 else None
        return super().winner_of(state, reason, points)

    def phase(self, state: GalatjangState) -> str:
        return "sow"

    def points(self, state: GalatjangState) -> tuple[int, int]:
        pits = pit_count(state)
        return state.ring[store_index(pits, SOUTH)], state.ring[store_index(pits, NORTH)]

    # ------------------------------------------------------------------ position strings
    def format_state(self, state: GalatjangState) -> str:
        pits = pit_count(state)

        def row(side: int) -> str:
            return pits_text([state.ring[k] for k in rules.own_pits(pits, side)])

        south, north = self.points(state)
        return (
            f"{row(SOUTH)}/{row(NORTH)} {south}/{north} {SIDES[state.side]} "
            f"{state.round} {state.turns}"
        )

    def parse_state(self, text: str, check: bool = True) -> GalatjangState:
        """With ``check=False`` only the format is read: a pit or a store may hold any
        count (as the editor writes them), and blocked pits in round 1, the seeds in all
        and a round that is over are not judged."""
        rows, stores, side, round_, turns = split_fields(text, FIELDS, "galatjang")
        most = MOST_SEEDS if check else 10**9
        south, north = read_pits(rows, text, most)
        south_store, north_store = read_pair(stores, "STORES", text, high=most)
        state = GalatjangState(
            ring=(*south, south_store, *north, north_store),
            side=read_choice(side, "SIDE", text, SIDES),
            round=read_int(round_, "ROUND", text, 1, self.rules.rounds),
            turns=read_int(turns, "TURNS", text, 0, 100_000),
        )
        if not check:
            return state
        if state.round == 1 and BLOCKED in state.ring:
            raise InvalidNotationError(
                _(
                    "impossible galatjang position string {text!r}: a pit is blocked (x) in "
                    "round 1; pits are blocked only when a later round cannot fill them"
                ).format(text=clipped(text))
            )
        seeds = sum(n for n in state.ring if n != BLOCKED)
        most = 2 * len(south) * self.rules.seeds
        if seeds > most:
            raise InvalidNotationError(
                _(
                    "impossible galatjang position string {text!r}: {seeds} seeds in pits and "
                    "stores, more than the {most} of a game with {pits} a side "
                    "(option seeds={option})"
                ).format(
                    text=clipped(text),
                    seeds=seeds,
                    most=most,
                    pits=counted(len(south), "{n} pit", "{n} pits"),
                    option=self.rules.seeds,
                )
            )
        if rules.round_over(state, self.rules) and rules.end_reason(state, self.rules) is None:
            raise InvalidNotationError(
                _(
                    "impossible galatjang position string {text!r}: round {round} is over "
                    "and the next one follows at once; give the start of round {next}"
                ).format(text=clipped(text), round=state.round, next=state.round + 1)
            )
        return state

    # ------------------------------------------------------------------ position editor
    def edit_places(self, text: str) -> dict[str, str]:
        fields = self.edit_fields(text)
        pits = len(read_pits(fields[0], text)[0])
        read_pair(fields[1], "STORES", text)
        places: dict[str, str] = {}
        for side, letter in enumerate(SIDES):
            places.update((f"{letter}{pit + 1}", "pit") for pit in range(pits))
            places[present.STORES[side]] = "store"
        return places

    def edit_board(self, fields: list[str], tool: EditTool, place: str, text: str) -> None:
        """A pit or a store may hold any count here (the parser judges them). A blocked
        pit holds no seed: adding or removing one leaves it blocked. Blocking a pit drops
        its seeds; unblocking leaves it empty."""
        rows = read_pits(fields[0], text)
        stores = list(read_pair(fields[1], "STORES", text))
        if place in present.STORES:
            cells, index = stores, present.STORES.index(place)
        else:
            cells, index = rows[SIDES.index(place[0])], int(place[1:]) - 1
        seeds = cells[index]
        if tool.effect == "block":
            cells[index] = 0 if seeds == BLOCKED else BLOCKED
        elif seeds != BLOCKED:
            cells[index] = seeds + 1 if tool.effect == "add" else max(0, seeds - 1)
        fields[0] = "/".join(pits_text(row) for row in rows)
        fields[1] = "/".join(map(str, stores))

    # ------------------------------------------------------------------ action strings
    def format_action(self, state: GalatjangState, action: int) -> str:
        return f"{SIDES[state.side]}{action + 1}"

    def parse_action(self, state: GalatjangState, text: str) -> int:
        word = "".join(text.split()).lower()
        pits = pit_count(state)
        letter, number = (word[0], word[1:]) if word[:1] in ("s", "n") else ("", word)
        if not (number.isascii() and number.isdigit() and len(number) <= 3):
            raise InvalidNotationError(
                _(
                    "invalid galatjang action {text!r}: expected a pit like s3 or n5, "
                    "or a bare pit number 1-{pits} of the side to act"
                ).format(text=clipped(text), pits=pits)
            )
        mover = SIDES[state.side]
        if letter and letter != mover:
            raise IllegalActionError(
                _(
                    "illegal galatjang action {text!r}: {player} is to act "
                    "and sows a pit {mover}1-{mover}{pits}"
                ).format(
                    text=clipped(text),
                    player=Galatjang.side_word(state.side),
                    mover=mover,
                    pits=pits,
                )
            )
        pit = int(number)
        if not 1 <= pit <= pits:
            raise IllegalActionError(
                _("illegal galatjang action {text!r}: the pits are {mover}1-{mover}{pits}").format(
                    text=clipped(text), mover=mover, pits=pits
                )
            )
        return pit - 1

    # ------------------------------------------------------------------ presentation
    def due(self, state: GalatjangState) -> str:
        return _("sow a pit")

    # ------------------------------------------------------------------ drawing
    def render(self, state: GalatjangState) -> str:
        pits = pit_count(state)

        def cell(side: int, pit: int) -> str:
            n = state.ring[pit_index(pits, side, pit)]
            return "  x" if n == BLOCKED else f"{n:>3}"

        width = 4 * pits
        north = [f"n{p + 1:<2}" for p in reversed(range(pits))]
        south = [f"s{p + 1:<2}" for p in range(pits)]
        south_store, north_store = self.points(state)
        lines = [
            ("       " + " ".join(north)).rstrip(),
            "      " + " ".join(cell(NORTH, p) for p in reversed(range(pits))),
            f"N {north_store:>3} " + " " * width + f" {south_store:>3} S",
            "      " + " ".join(cell(SOUTH, p) for p in range(pits)),
            ("       " + " ".join(south)).rstrip(),
        ]
        outcome = self.outcome_of(state)
        if outcome is not None:
            lines.append(self.over_line(outcome))
        else:
            player = self.player_name(state.side)
            if self.rules.rounds > 1:
                status = _("round {round} of {rounds}, turn {turn}: {player} to sow").format(
                    round=state.round, rounds=self.rules.rounds, turn=state.turns + 1, player=player
                )
            else:
                status = _("turn {turn}: {player} to sow").format(
                    turn=state.turns + 1, player=player
                )
            lines.append(status)
        return "\n".join(lines)
