"""Rule-clause tests for Linja: the Linja card and the parts of section 0 it uses.

Every expected value was worked out by hand from the rules (and the rulings the engine is
told to follow where the rules are open), never copied from the engine. A position string
lists the black and the red counts of rows 0..7; Black moves up towards row 7, Red down
towards row 0. Row totals (both colours) are noted in comments where capacity matters.
"""

from __future__ import annotations

import pytest

import boardlab
from boardlab.core.perft import perft
from support import ended, game_helpers, legal

game, at, after = game_helpers("linja")

INITIAL = "6,1,1,1,1,1,1,0/0,1,1,1,1,1,1,6 b o 0 0"

# Black 6 in row 2 and 6 in the goal, Red 6 in row 3 and 6 in its goal: rows 2 and 3 are
# full, so neither side has an opening move (Black 2->3 and Red 3->2 end in a full row).
STUCK = "0,0,6,0,0,0,0,6/6,0,0,6,0,0,0,0"

# A turn that ends with Black entirely past Red: Black 5-6 (row 6 holds one red piece:
# follow-up of 1), 6-7 with exactly one step (bonus), and no bonus move is left.
LAST_PIECE = "0,0,0,0,0,1,0,11/11,0,0,0,0,0,1,0 b o 0 30"

# Black 4-5 (row 5 holds one black: follow-up 1), then 6-7 exactly (bonus). At that moment
# every black piece (rows 5, 7) is above every red piece (rows 0-4).
UNDO = "0,0,0,0,1,1,1,9/8,1,1,1,1,0,0,0 b o 0 40"


# --------------------------------------------------------------------------- setup, options


def test_initial_position_string():
    position = game().initial()
    assert position.position_string() == INITIAL
    assert position.player == "black"


def test_first_red_gives_red_the_first_turn():
    position = game(first="red").initial()
    assert position.position_string() == "6,1,1,1,1,1,1,0/0,1,1,1,1,1,1,6 r o 0 0"
    assert position.player == "red"


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("first", "black"),
        ("first", "red"),
        ("ruleset", "bonus"),
        ("ruleset", "extra-turn"),
        ("bonus_after_opening", False),
        ("bonus_after_opening", True),
        ("goal_step_back", False),
        ("goal_step_back", True),
        ("nasty", False),
        ("nasty", True),
        ("scoring", "signed"),
        ("scoring", "positive"),
        ("max_turns", 1000),
        ("max_turns", 3),
    ],
)
def test_every_documented_option_value_is_accepted(name, value):
    assert game(**{name: value}).options[name] == value
    text = ("true" if value else "false") if isinstance(value, bool) else str(value)
    assert game(**{name: text}).options[name] == value


def test_option_defaults_are_the_documented_ones():
    assert dict(game().options) == {
        "first": "black",
        "ruleset": "bonus",
        "bonus_after_opening": False,
        "goal_step_back": False,
        "nasty": False,
        "scoring": "signed",
        "max_turns": 1000,
    }


# --------------------------------------------------------------------------- opening


def test_opening_moves_one_own_piece_one_row_forward():
    assert legal(game().initial()) == {"0-1", "1-2", "2-3", "3-4", "4-5", "5-6", "6-7"}


def test_red_opens_towards_row_0():
    assert legal(game(first="red").initial()) == {
        "7-6", "6-5", "5-4", "4-3", "3-2", "2-1", "1-0"
    }  # fmt: skip


def test_opening_cannot_end_in_a_full_row_of_both_colours():
    # row 2 holds 3 black + 3 red = 6: full; 1-2 is not an opening, 0-1 and 2-3 are
    position = at("3,1,3,0,0,0,0,5/0,0,3,0,0,0,0,9 b o 0 10")
    assert legal(position) == {"0-1", "2-3"}


def test_pieces_in_the_goal_do_not_open():
    # Black: five in row 0, one in row 1 (row 2 is full with red), six in the goal
    position = at("5,1,0,0,0,0,0,6/0,0,6,0,0,0,0,6 b o 0 10")
    assert position.legal_action_strings() == ["0-1"]


def test_no_opening_move_means_the_only_action_is_pass():
    assert at(f"{STUCK} b o 0 50").legal_action_strings() == ["pass"]
    assert at(f"{STUCK} r o 1 51").legal_action_strings() == ["pass"]


def test_goal_and_start_zone_hold_any_number_of_pieces():
    # eleven black pieces in row 7 do not stop a twelfth; red's row 0 holds eleven
    position = at("0,0,0,0,0,0,1,11/11,0,0,0,0,0,1,0 b o 0 30")
    assert position.legal_action_strings() == ["6-7"]
    position = position.play("6-7")
    assert position.position_string() == "0,0,0,0,0,0,0,12/11,0,0,0,0,0,1,0 r o 0 31"
    # black 12 x 5 = 60; red 11 x 5 and row 6 (red's second row) -3 = 52
    assert ended(position) == ("black", (60, 52), "passed")


# --------------------------------------------------------------------------- follow-up


def test_follow_up_counts_both_colours():
    # row 1 held one black and one red piece before the opening piece came: N = 2
    position = game().initial().play("0-1")
    assert position.position_string() == "5,2,1,1,1,1,1,0/0,1,1,1,1,1,1,6 b f2 0 0"


@pytest.mark.parametrize(
    ("opening", "phase"),
    [
        ("0-1", "f3"),  # row 1: 1 black + 2 red
        ("1-2", "f1"),  # row 2: 1 black
        ("2-3", "f4"),  # row 3: 1 black + 3 red
        ("3-4", "f2"),  # row 4: 1 black + 1 red
        ("4-5", "f3"),  # row 5: 2 black + 1 red
        ("5-6", "f1"),  # row 6: 1 red
    ],
)
def test_follow_up_length_is_what_stood_in_the_row_entered(opening, phase):
    position = at("3,1,1,1,1,2,0,3/0,2,0,3,1,1,1,4 b o 0 6").play(opening)
    assert position.phase == phase
    assert position.player == "black"


def test_follow_up_count_excludes_the_opening_piece_so_an_empty_row_gives_none():
    # row 1 was empty: N = 0, no follow-up, the turn ends
    position = at("5,0,2,1,1,1,1,1/0,0,1,1,1,1,1,7 b o 0 0").play("0-1")
    assert position.position_string() == "4,1,2,1,1,1,1,1/0,0,1,1,1,1,1,7 r o 0 1"


def test_opening_into_the_goal_has_no_follow_up():
    position = game().initial().play("6-7")
    assert position.position_string() == "6,1,1,1,1,1,0,1/0,1,1,1,1,1,1,6 r o 0 1"


def test_follow_up_by_any_own_piece_one_action_per_source_row():
    # N = 2 after 0-1: the start zone, the opening piece's row and every field row may move;
    # 6-7 overshoots into the goal
    position = game().initial().play("0-1")
    assert legal(position) == {"0-2", "1-3", "2-4", "3-5", "4-6", "5-7", "6-7"}
    assert len(position.legal_action_strings()) == 7


def test_follow_up_may_move_the_opening_piece_itself():
    position = game().initial().play_all(["0-1", "1-3"])
    assert position.position_string() == "5,1,1,2,1,1,1,0/0,1,1,1,1,1,1,6 r o 0 1"


def test_follow_up_overshooting_the_goal_ends_in_it_and_loses_the_surplus():
    # 6 + 2 = 8: the piece stops in the goal; surplus steps give no bonus
    position = game().initial().play_all(["0-1", "6-7"])
    assert position.position_string() == "5,2,1,1,1,1,0,1/0,1,1,1,1,1,1,6 r o 0 1"


def test_overshooting_follow_up_is_written_with_its_real_destination():
    position = game().initial().play("0-1")
    assert "6-7" in legal(position)
    with pytest.raises(boardlab.InvalidNotationError):
        position.play("6-8")


def test_follow_up_may_pass_over_a_full_row_but_not_end_in_one():
    # row 2 is full (6 red): 0-2 would end in it, 1-3 passes over it
    position = at("4,1,0,0,0,0,0,7/0,0,6,0,0,0,0,6 b f2 0 10")
    assert position.legal_action_strings() == ["1-3"]
    position = position.play("1-3")
    assert position.position_string() == "4,0,0,1,0,0,0,7/0,0,6,0,0,0,0,6 r o 0 11"


def test_follow_up_is_forfeited_when_every_destination_is_full():
    # 0-1 makes row 1 full (5 black were there: N = 5). Rows 5 and 6 are full of red, so
    # neither 1-6 nor (no piece left in row 0) any other follow-up exists: forfeited
    position = at("1,5,0,0,0,0,0,6/0,0,0,0,0,6,6,0 b o 0 10").play("0-1")
    assert position.position_string() == "0,6,0,0,0,0,0,6/0,0,0,0,0,6,6,0 r o 0 11"


def test_red_follow_up_overshoots_into_row_0():
    position = at("6,0,0,0,0,0,0,6/0,1,0,0,0,0,0,11 r f3 0 5")
    assert legal(position) == {"1-0", "7-4"}
    position = position.play("1-0")  # 1 - 3 < 0: ends in the goal with surplus, no bonus
    assert position.position_string() == "6,0,0,0,0,0,0,6/1,0,0,0,0,0,0,11 b o 0 6"


def test_red_exact_follow_up_into_row_0_earns_a_bonus():
    position = at("6,0,0,0,0,0,0,6/0,0,0,1,0,0,0,11 r f3 0 5").play("3-0")
    assert position.position_string() == "6,0,0,0,0,0,0,6/1,0,0,0,0,0,0,11 r b 0 5"
    assert legal(position) == {"7-6", "pass"}


# --------------------------------------------------------------------------- bonus


EXACT = "5,2,1,1,1,0,1,1/0,1,1,1,1,1,1,6 b b 0 0"  # after 0-1 (f2) and the exact 5-7


def test_exact_follow_up_into_the_goal_earns_a_bonus():
    position = game().initial().play_all(["0-1", "5-7"])
    assert position.position_string() == EXACT
    assert position.player == "black"


def test_bonus_moves_one_own_piece_one_row_forward_or_backward():
    # black pieces in rows 0-4 and 6 (row 7 is the goal); no row is full
    assert legal(at(EXACT)) == {
        "0-1", "1-0", "1-2", "2-1", "2-3", "3-2", "3-4", "4-3", "4-5", "6-5", "6-7", "pass"
    }  # fmt: skip


def test_bonus_backward_at_most_into_the_own_start_zone():
    position = at(EXACT).play("1-0")
    assert position.position_string() == "6,1,1,1,1,0,1,1/0,1,1,1,1,1,1,6 r o 0 1"


def test_bonus_never_moves_into_a_full_row():
    # row 2 holds 6 red: 1-2 is not a bonus move; 1-0 and 0-1 are
    position = at("5,1,0,0,0,0,0,6/0,0,6,0,0,0,0,6 b b 0 10")
    assert legal(position) == {"0-1", "1-0", "pass"}


def test_red_bonus_backward_goes_up_towards_row_7():
    # red in its start zone (7) may go forward only; red in row 6 forward to 5 or back to 7
    position = at("6,0,0,0,0,0,0,6/6,0,0,0,0,0,1,5 r b 0 10")
    assert legal(position) == {"7-6", "6-5", "6-7", "pass"}


def test_declining_the_bonus_with_pass_is_not_a_pass_turn():
    position = game().initial().play_all(["0-1", "5-7", "pass"])
    assert position.position_string() == "5,2,1,1,1,0,1,1/0,1,1,1,1,1,1,6 r o 0 1"


def test_bonus_never_earns_another_bonus():
    # the bonus 6-7 enters the goal with exactly one step: still the turn ends
    position = at(EXACT).play("6-7")
    assert position.position_string() == "5,2,1,1,1,0,0,2/0,1,1,1,1,1,1,6 r o 0 1"


def test_bonus_earned_with_no_bonus_move_still_gives_phase_b_with_pass_only():
    position = at(LAST_PIECE).play("5-6")
    assert position.position_string() == "0,0,0,0,0,0,1,11/11,0,0,0,0,0,1,0 b f1 0 30"
    assert position.legal_action_strings() == ["6-7"]
    position = position.play("6-7")
    assert position.position_string() == "0,0,0,0,0,0,0,12/11,0,0,0,0,0,1,0 b b 0 30"
    assert position.legal_action_strings() == ["pass"]


def test_bonus_cannot_move_a_piece_out_of_the_goal_by_default():
    position = at("0,0,0,0,0,0,0,12/11,0,0,0,0,0,1,0 b b 0 30", goal_step_back=False)
    assert position.legal_action_strings() == ["pass"]


def test_goal_step_back_lets_a_bonus_move_an_own_piece_out_of_the_goal():
    position = at("0,0,0,0,0,0,0,12/11,0,0,0,0,0,1,0 b b 0 30", goal_step_back=True)
    assert legal(position) == {"7-6", "pass"}
    position = position.play("7-6")
    # black 6 and red 6 share row 6: not passed, the game goes on
    assert position.position_string() == "0,0,0,0,0,0,1,11/11,0,0,0,0,0,1,0 r o 0 31"
    assert not position.is_over()


def test_goal_step_back_never_into_a_full_row():
    # row 6 holds 6 red: the piece in the goal may not step back into it
    position = at("0,0,0,0,0,0,0,12/6,0,0,0,0,0,6,0 b b 0 30", goal_step_back=True)
    assert position.legal_action_strings() == ["pass"]


def test_bonus_after_opening_off_an_opening_into_the_goal_ends_the_turn():
    position = game(bonus_after_opening=False).initial().play("6-7")
    assert position.position_string() == "6,1,1,1,1,1,0,1/0,1,1,1,1,1,1,6 r o 0 1"


def test_bonus_after_opening_on_an_opening_into_the_goal_earns_a_bonus():
    position = game(bonus_after_opening=True).initial().play("6-7")
    assert position.position_string() == "6,1,1,1,1,1,0,1/0,1,1,1,1,1,1,6 b b 0 0"
    assert legal(position) == {
        "0-1", "1-0", "1-2", "2-1", "2-3", "3-2", "3-4", "4-3", "4-5", "5-4", "5-6", "pass"
    }  # fmt: skip


NASTY = "5,0,0,0,0,0,0,7/1,1,6,1,0,0,0,3 b b 0 20"  # row 2: 6 red, full


def test_nasty_bonus_may_move_one_opponent_piece_one_row():
    # own: 0-1. Red pieces, red's direction (down is forward): row 0 is red's goal, never
    # left; 1-0 into the goal, 1-2 full; 2-1 and 2-3; 3-2 full, 3-4; 7-6 (row 7 is red's
    # start zone, nothing beyond it)
    position = at(NASTY, nasty=True)
    assert legal(position) == {"0-1", "o1-0", "o2-1", "o2-3", "o3-4", "o7-6", "pass"}


def test_nasty_move_is_written_with_an_o_prefix_and_ends_the_turn():
    position = at(NASTY, nasty=True).play("o2-3")
    assert position.position_string() == "5,0,0,0,0,0,0,7/1,1,5,2,0,0,0,3 r o 0 21"


def test_nasty_off_gives_no_opponent_moves():
    position = at(NASTY)
    assert legal(position) == {"0-1", "pass"}
    with pytest.raises(boardlab.IllegalActionError):
        position.play("o2-3")


def test_nasty_bonus_by_red_moves_black_pieces_in_blacks_direction():
    # black in row 0 (its start zone): 0-1; black in row 5: 5-6 or back 5-4; row 7 is
    # black's goal, never left. Red's own piece in row 1: 1-0 or 1-2 (row 2 is empty).
    position = at("5,0,0,0,0,1,0,6/11,1,0,0,0,0,0,0 r b 0 20", nasty=True)
    assert legal(position) == {"1-0", "1-2", "o0-1", "o5-4", "o5-6", "pass"}


# --------------------------------------------------------------------------- extra-turn


def extra(**options: object) -> boardlab.Game:
    return game(ruleset="extra-turn", **options)


def test_extra_turn_opening_into_the_goal_earns_a_follow_up_of_one():
    position = extra().initial().play("6-7")
    assert position.position_string() == "6,1,1,1,1,1,0,1/0,1,1,1,1,1,1,6 b f1 0 0"
    assert legal(position) == {"0-1", "1-2", "2-3", "3-4", "4-5", "5-6"}
    # row 6 still holds a red piece: not empty, no extra turn
    position = position.play("5-6")
    assert position.position_string() == "6,1,1,1,1,0,1,1/0,1,1,1,1,1,1,6 r o 0 1"


CHAIN = "5,1,1,1,0,0,1,3/0,1,1,1,0,0,2,7 b o 0 4"  # rows 4 and 5 empty


def test_extra_turn_follow_up_of_one_after_a_goal_opening_can_earn_the_extra_turn():
    # 6-7 into the goal: follow-up 1; 3-4 ends in the empty row 4: extra turn
    position = extra().from_position_string(CHAIN).play_all(["6-7", "3-4"])
    assert position.position_string() == "5,1,1,0,1,0,0,4/0,1,1,1,0,0,2,7 b o+ 0 4"


def test_extra_turn_follow_up_into_an_empty_field_row_earns_an_extra_turn():
    position = extra().from_position_string(CHAIN).play("1-2")  # row 2: 1 + 1 = N 2
    assert position.position_string() == "5,0,2,1,0,0,1,3/0,1,1,1,0,0,2,7 b f2 0 4"
    assert legal(position) == {"0-2", "2-4", "3-5", "6-7"}
    position = position.play("2-4")
    # the extra turn is part of the same turn: TURNS unchanged, phase o+
    assert position.position_string() == "5,0,1,1,1,0,1,3/0,1,1,1,0,0,2,7 b o+ 0 4"
    assert legal(position) == {"0-1", "2-3", "3-4", "4-5", "6-7"}


def test_extra_turn_at_most_once_per_turn():
    position = extra().from_position_string(CHAIN).play_all(["1-2", "2-4", "2-3"])
    assert position.position_string() == "5,0,0,2,1,0,1,3/0,1,1,1,0,0,2,7 b f2+ 0 4"
    assert legal(position) == {"0-2", "3-5", "4-6", "6-7"}
    # 3-5 ends in the empty row 5, but a second extra turn is not earned: TURNS + 1 once
    position = position.play("3-5")
    assert position.position_string() == "5,0,0,1,1,1,1,3/0,1,1,1,0,0,2,7 r o 0 5"


@pytest.mark.parametrize(
    ("follow_up", "expected"),
    [
        ("6-7", "5,0,2,1,0,0,0,4/0,1,1,1,0,0,2,7 r o 0 5"),  # the goal is not a field row
        ("0-2", "4,0,3,1,0,0,1,3/0,1,1,1,0,0,2,7 r o 0 5"),  # row 2 was not empty
    ],
)
def test_extra_turn_not_earned_by_a_follow_up_into_the_goal_or_an_occupied_row(follow_up, expected):
    position = extra().from_position_string(CHAIN).play_all(["1-2", follow_up])
    assert position.position_string() == expected


def test_extra_turn_empty_means_empty_just_before_the_follow_up():
    # the opening 1-2 leaves row 1 empty (it held only that piece); N = 1 (row 2 held one
    # black); the follow-up 0-1 enters row 1, empty just before it: extra turn
    start = "5,1,1,1,1,1,1,1/0,0,0,1,1,1,2,7 b o 0 8"
    position = extra().from_position_string(start).play("1-2")
    assert position.position_string() == "5,0,2,1,1,1,1,1/0,0,0,1,1,1,2,7 b f1 0 8"
    position = position.play("0-1")
    assert position.position_string() == "4,1,2,1,1,1,1,1/0,0,0,1,1,1,2,7 b o+ 0 8"


def test_extra_turn_opening_into_the_goal_in_the_extra_turn_gives_f1_plus():
    position = extra().from_position_string("6,1,1,1,1,1,1,0/0,1,1,1,1,1,1,6 b o+ 0 3")
    position = position.play("6-7")
    assert position.position_string() == "6,1,1,1,1,1,0,1/0,1,1,1,1,1,1,6 b f1+ 0 3"
    position = position.play("5-6")
    assert position.position_string() == "6,1,1,1,1,0,1,1/0,1,1,1,1,1,1,6 r o 0 4"


def test_extra_turn_pass_without_opening_ends_the_turn_and_is_not_a_pass_turn():
    position = extra().from_position_string(f"{STUCK} b o+ 0 20")
    assert position.legal_action_strings() == ["pass"]
    position = position.play("pass")
    assert position.position_string() == f"{STUCK} r o 0 21"
    position = position.play("pass")  # a real pass turn: 1
    assert position.position_string() == f"{STUCK} b o 1 22"
    assert not position.is_over()
    position = position.play("pass")
    assert ended(position) == ("red", (18, 36), "passes")


def test_extra_turn_end_check_runs_after_the_extra_turn_only():
    # 2-3 (row 3 held one black: N 1), 3-4 into the empty row 4: extra turn. Black (3, 4, 7)
    # is now past Red (0-2), but no check is made before the extra turn is played.
    start = "0,0,1,1,0,0,0,10/10,1,1,0,0,0,0,0 b o 0 60"
    position = extra().from_position_string(start).play_all(["2-3", "3-4"])
    assert position.position_string() == "0,0,0,1,1,0,0,10/10,1,1,0,0,0,0,0 b o+ 0 60"
    assert not position.is_over()
    # 4-5 into the empty row 5: no follow-up, the turn ends and the check runs.
    # Black: row 3 -1, row 5 +2, 10 x 5 = 51. Red: 10 x 5, row 1 +3, row 2 +2 = 55.
    position = position.play("4-5")
    assert position.position_string() == "0,0,0,1,0,1,0,10/10,1,1,0,0,0,0,0 r o 0 61"
    assert ended(position) == ("red", (51, 55), "passed")


def test_extra_turn_has_no_bonus_and_ignores_the_bonus_options():
    options = {"bonus_after_opening": True, "goal_step_back": True, "nasty": True}
    position = extra(**options).initial().play("6-7")
    assert position.phase == "f1"
    # exact follow-up into the goal: no bonus under extra-turn, and no extra turn either
    position = extra(**options).initial().play_all(["0-1", "5-7"])
    assert position.position_string() == "5,2,1,1,1,0,1,1/0,1,1,1,1,1,1,6 r o 0 1"


def test_extra_turn_forfeited_follow_up_ends_the_turn():
    position = extra().from_position_string("1,5,0,0,0,0,0,6/0,0,0,0,0,6,6,0 b o 0 10")
    position = position.play("0-1")
    assert position.position_string() == "0,6,0,0,0,0,0,6/0,0,0,0,0,6,6,0 r o 0 11"


# --------------------------------------------------------------------------- end


def test_sides_that_have_completely_passed_end_the_game():
    # black 60; red 11 x 5 = 55 and row 6 (red's second row) -3 = 52
    position = at(LAST_PIECE).play_all(["5-6", "6-7", "pass"])
    assert position.position_string() == "0,0,0,0,0,0,0,12/11,0,0,0,0,0,1,0 r o 0 31"
    assert ended(position) == ("black", (60, 52), "passed")


def test_pieces_sharing_a_row_goals_included_have_not_passed():
    # all black in row 7, one red piece still in row 7 (its start zone): not passed
    position = at("0,0,0,0,0,0,0,12/11,0,0,0,0,0,0,1 b o 0 30")
    assert not position.is_over()
    assert position.legal_action_strings() == ["pass"]
    # black and red meeting in a field row have not passed either
    assert not at("0,0,0,0,1,0,0,11/11,0,0,0,1,0,0,0 b o 0 30").is_over()


def test_passed_sides_with_equal_points_are_a_draw():
    position = at("0,0,0,0,0,0,0,12/12,0,0,0,0,0,0,0 b o 0 30")
    assert ended(position) == ("draw", (60, 60), "passed")
    assert position.outcome().winner is None


def test_backward_bonus_can_undo_a_passing_before_it_is_checked():
    position = at(UNDO).play("4-5")
    assert position.position_string() == "0,0,0,0,0,2,1,9/8,1,1,1,1,0,0,0 b f1 0 40"
    position = position.play("6-7")
    assert position.position_string() == "0,0,0,0,0,2,0,10/8,1,1,1,1,0,0,0 b b 0 40"
    assert not position.is_over()
    undone = position.play("5-4")
    assert undone.position_string() == "0,0,0,0,1,1,0,10/8,1,1,1,1,0,0,0 r o 0 41"
    assert not undone.is_over()
    # declining instead: black 2 x 2 + 10 x 5 = 54; red 8 x 5 + 3 + 2 + 1 - 1 = 45
    kept = position.play("pass")
    assert ended(kept) == ("black", (54, 45), "passed")


@pytest.mark.parametrize(
    ("text", "options"),
    [
        ("0,0,0,0,0,2,0,10/8,1,1,1,1,0,0,0 b b 0 40", {}),
        ("0,0,0,0,0,2,0,10/8,1,1,1,1,0,0,0 b f1 0 40", {}),
        ("0,0,0,0,0,0,0,12/12,0,0,0,0,0,0,0 b b 0 30", {}),
        ("0,0,0,1,1,0,0,10/10,1,1,0,0,0,0,0 b o+ 0 60", {"ruleset": "extra-turn"}),
    ],
)
def test_end_is_checked_only_when_a_new_turn_is_due(text, options):
    assert not at(text, **options).is_over()


def test_two_consecutive_pass_turns_end_the_game():
    position = at(f"{STUCK} b o 0 50").play("pass")
    assert position.position_string() == f"{STUCK} r o 1 51"
    assert not position.is_over()
    position = position.play("pass")
    assert position.position_string() == f"{STUCK} b o 2 52"
    # black: 6 x -2 + 6 x 5 = 18; red: 6 x 5 + 6 x 1 (row 3 is red's fourth row) = 36
    assert ended(position) == ("red", (18, 36), "passes")


def test_an_opening_move_resets_passes():
    position = at("5,1,0,0,0,0,0,6/0,0,6,0,0,0,0,6 b o 1 10").play("0-1")
    assert position.position_string() == "4,2,0,0,0,0,0,6/0,0,6,0,0,0,0,6 b f1 0 10"


def test_turn_cap_ends_the_game_after_max_turns():
    # black after 0-1 0-2: 4 x -5, 2 x -3, 2 x -2, -1, +1, +2, +3 = -25; red -30
    position = game(max_turns=1).initial().play("0-1")
    assert not position.is_over()
    position = position.play("0-2")
    assert position.position_string() == "4,2,2,1,1,1,1,0/0,1,1,1,1,1,1,6 r o 0 1"
    assert ended(position) == ("black", (-25, -30), "turn_cap")


def test_turn_cap_waits_for_the_bonus_to_be_played():
    position = game(max_turns=1).initial().play_all(["0-1", "5-7"])
    assert not position.is_over()
    assert ended(position.play("pass"))[2] == "turn_cap"


def test_default_turn_cap_is_1000_turns():
    text = "6,1,1,1,1,1,1,0/0,1,1,1,1,1,1,6 b o 0 1000"
    assert ended(at(text)) == ("draw", (-30, -30), "turn_cap")
    assert not at(text, max_turns=2000).is_over()
    assert not at(text.replace(" 1000", " 999")).is_over()


def test_end_check_order_passed_before_turn_cap():
    position = at(LAST_PIECE, max_turns=31).play_all(["5-6", "6-7", "pass"])
    assert ended(position)[2] == "passed"


def test_end_check_order_passes_before_turn_cap():
    position = at(f"{STUCK} r o 1 51", max_turns=52).play("pass")
    assert ended(position)[2] == "passes"


# --------------------------------------------------------------------------- scoring


def test_signed_scoring_of_the_initial_position():
    # 6 x -5 in the start zone; rows 1-6 give -3 -2 -1 +1 +2 +3 = 0
    assert game().initial().points == (-30, -30)


def test_positive_scoring_of_the_initial_position():
    # 6 x 0; rows 1-6 give 0 0 0 1 2 3 = 6
    assert game(scoring="positive").initial().points == (6, 6)


def test_scoring_counts_rows_from_each_sides_own_start_zone():
    text = "5,1,1,1,1,1,1,1/2,0,1,1,1,1,1,5 b o 0 3"
    # black: 5 x -5 + (-3 -2 -1 +1 +2 +3) + 5 = -20
    # red (row 7 is its 0): 5 x -5 in row 7, row 6 -3, row 5 -2, row 4 -1, row 3 +1,
    # row 2 +2, 2 x 5 in row 0 = -18
    assert at(text).points == (-20, -18)
    # positive: black 1 + 2 + 3 + 5 = 11; red 1 + 2 + 10 = 13
    assert at(text, scoring="positive").points == (11, 13)


def test_positive_scoring_decides_the_winner_at_the_end():
    # passed: black 2 x 2 + 10 x 5 = 54; red 8 x 5 + 3 + 2 + 1 + 0 = 46
    position = at(UNDO, scoring="positive").play_all(["4-5", "6-7", "pass"])
    assert ended(position) == ("black", (54, 46), "passed")


# --------------------------------------------------------------------------- notation


@pytest.mark.parametrize(
    ("start", "lenient", "canonical", "options"),
    [
        (INITIAL, " 0 - 1 ", "0-1", {}),
        (f"{STUCK} b o 0 50", "PASS", "pass", {}),
        (NASTY, "O2-3", "o2-3", {"nasty": True}),
        (NASTY, " o 2 - 3", "o2-3", {"nasty": True}),
    ],
)
def test_action_parser_is_lenient_about_case_and_spaces(start, lenient, canonical, options):
    position = at(start, **options)
    assert position.play(lenient) == position.play(canonical)


@pytest.mark.parametrize(
    ("text", "options"),
    [
        (INITIAL, {}),
        ("6,1,1,1,1,1,1,0/0,1,1,1,1,1,1,6 r o 0 0", {}),
        ("5,2,1,1,1,1,1,0/0,1,1,1,1,1,1,6 b f2 0 0", {}),
        (EXACT, {}),
        (f"{STUCK} r o 1 51", {}),
        ("5,0,1,1,1,0,1,3/0,1,1,1,0,0,2,7 b o+ 0 4", {"ruleset": "extra-turn"}),
        ("5,0,0,2,1,0,1,3/0,1,1,1,0,0,2,7 b f2+ 0 4", {"ruleset": "extra-turn"}),
        ("0,0,0,0,0,0,0,12/12,0,0,0,0,0,0,0 b o 0 30", {}),
        ("3,1,1,1,1,2,0,3/0,2,0,3,1,1,1,4 r f7 0 6", {}),
    ],
)
def test_position_string_round_trips(text, options):
    assert at(text, **options).position_string() == text


def test_position_string_fields_are_read_back():
    position = at("5,2,1,1,1,1,1,0/0,1,1,1,1,1,1,6 b f2 0 7")
    assert (position.to_act, position.player, position.phase, position.turns) == (
        0, "black", "f2", 7
    )  # fmt: skip
    red = extra().from_position_string("5,0,0,2,1,0,1,3/0,1,1,1,0,0,2,7 r f2+ 1 4")
    assert (red.to_act, red.player, red.phase, red.turns) == (1, "red", "f2+", 4)


def test_perft_counts_opening_and_follow_up_as_separate_actions():
    # 7 openings; 0-1 leaves 7 follow-up rows, 1-2 .. 5-6 leave 6 each (the row the opening
    # piece left is empty of black), 6-7 ends the turn and Red has 7 openings: 7 + 5 x 6 + 7
    start = game().initial()
    assert perft(start, 1) == 7
    assert perft(start, 2) == 44


def test_perft_of_a_finished_game_is_zero():
    position = at("0,0,0,0,0,0,0,12/12,0,0,0,0,0,0,0 b o 0 30")
    assert perft(position, 0) == 1
    assert perft(position, 1) == 0


def test_outcome_summary_names_winner_points_and_reason():
    position = at(LAST_PIECE).play_all(["5-6", "6-7", "pass"])
    assert position.outcome().summary() == "winner=black points=60/52 reason=passed"
