"""Rule-clause tests for Jin Li: the Jin Li card and the parts of section 0 it uses.

Every expected value was worked out by hand from the rules (and the rulings the engine is
told to follow where the rules are open), never copied from the engine. Boards are written in
the position-string notation: ranks 7 down to 1 separated by ``/``, files a-g inside a rank,
``R``/``Y`` koi, ``o`` a stone, a digit a run of empty squares.
"""

from __future__ import annotations

import pytest

import boardlab
from boardlab.core.perft import perft
from support import ended, game_helpers, legal

game, at, after = game_helpers("jinli")

INITIAL = "Y5Y/7/7/7/7/7/R5R r m 10/10 0/0 0 0"
SQUARES = [file + rank for rank in "1234567" for file in "abcdefg"]

# Red koi a1 b1, yellow koi a2 b2, twelve stones fencing them in: no koi of either side can
# swim (every neighbour holds a koi or a stone) or jump (the only stones next to a koi have a
# stone or the board edge beyond them: b1 over c1 -> d1 stone, b1 over c2 -> d3 stone, a2 over
# a3 -> a4, a2 over b3 -> c4, b2 over b3 -> b4, b2 over c3 -> d4, b2 over c2 -> d2 are stones;
# b2 over c1 and b2 over a3 would leave the board; koi cannot be jumped).
STUCK = "7/7/7/oooo3/oooo3/YYoo3/RRoo3"


def moves_from(position: boardlab.Position, square: str) -> set[str]:
    return {a for a in position.legal_action_strings() if a.startswith(square + "-")}


# --------------------------------------------------------------------------- setup, options


def test_initial_position_has_koi_in_the_corners_and_ten_stones_each():
    assert game().initial().position_string() == INITIAL


def test_start_inset_puts_each_koi_one_square_diagonally_inwards():
    # alternate rule 1: Red b2 f2, Yellow b6 f6
    position = game(start="inset").initial()
    assert position.position_string() == "7/1Y3Y1/7/7/7/1R3R1/7 r m 10/10 0/0 0 0"


def test_start_corners_is_the_default():
    assert game(start="corners").initial().position_string() == INITIAL


def test_first_yellow_gives_yellow_the_first_turn():
    position = game(first="yellow").initial()
    assert position.position_string() == "Y5Y/7/7/7/7/7/R5R y m 10/10 0/0 0 0"
    assert position.player == "yellow"
    assert legal(position) == {"a7-a6", "a7-b7", "a7-b6", "g7-f7", "g7-f6", "g7-g6"}


def test_first_red_is_the_default():
    assert game(first="red").initial().player == "red"


@pytest.mark.parametrize("stones", [6, 0, 10, 22])
def test_stones_option_sets_both_supplies(stones):
    expected = f"Y5Y/7/7/7/7/7/R5R r m {stones}/{stones} 0/0 0 0"
    assert game(stones=stones).initial().position_string() == expected


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("start", "corners"),
        ("start", "inset"),
        ("first", "red"),
        ("first", "yellow"),
        ("target", 10),
        ("target", 15),
        ("stones", 10),
        ("stones", 6),
        ("recycle", False),
        ("recycle", True),
        ("no_move", "pass"),
        ("no_move", "lose"),
        ("max_turns", 300),
        ("max_turns", 7),
    ],
)
def test_every_documented_option_value_is_accepted(name, value):
    assert game(**{name: value}).options[name] == value
    text = ("true" if value else "false") if isinstance(value, bool) else str(value)
    assert game(**{name: text}).options[name] == value


def test_option_defaults_are_the_documented_ones():
    assert dict(game().options) == {
        "start": "corners",
        "first": "red",
        "target": 10,
        "stones": 10,
        "recycle": False,
        "no_move": "pass",
        "max_turns": 300,
    }


# --------------------------------------------------------------------------- swim and drop


def test_swim_goes_to_any_empty_neighbouring_square():
    # a1 reaches a2 b1 b2; g1 reaches f1 f2 g2; no stone on the board, so no jump
    assert legal(game().initial()) == {"a1-a2", "a1-b1", "a1-b2", "g1-f1", "g1-f2", "g1-g2"}


def test_inset_koi_have_all_eight_neighbours_to_swim_to():
    position = game(start="inset").initial()
    assert moves_from(position, "b2") == {
        "b2-a1", "b2-b1", "b2-c1", "b2-a2", "b2-c2", "b2-a3", "b2-b3", "b2-c3"
    }  # fmt: skip
    assert len(legal(position)) == 16


def test_swim_cannot_enter_a_stone_or_a_koi_square():
    # red d4 with a stone on d5 and a yellow koi on e4: swims to c3 d3 e3 c4 c5 e5 only,
    # plus the jump over the d5 stone to d6 (the koi on e4 cannot be jumped)
    position = at("6Y/7/3o3/3RY2/7/7/R6 r m 9/10 0/0 0 1")
    assert moves_from(position, "d4") == {
        "d4-c3", "d4-d3", "d4-e3", "d4-c4", "d4-c5", "d4-e5", "d4-d6"
    }  # fmt: skip


def test_swim_makes_a_drop_due_from_the_same_player():
    position = game().initial().play("a1-b2")
    assert position.position_string() == "Y5Y/7/7/7/7/1R5/6R r d 10/10 0/0 0 0"
    assert position.player == "red"
    assert position.phase == "d"
    assert position.turns == 0  # the turn is not complete before the drop


def test_drop_may_go_on_any_empty_square_including_the_one_just_left():
    position = game().initial().play("a1-b2")
    occupied = {"b2", "g1", "a7", "g7"}
    assert legal(position) == {"@" + s for s in SQUARES if s not in occupied}
    assert "@a1" in legal(position)


def test_drop_is_mandatory_no_pass_and_no_koi_move_while_a_drop_is_due():
    position = game().initial().play("a1-b2")
    assert all(a.startswith("@") for a in position.legal_action_strings())
    for action in ("pass", "g1-g2"):
        with pytest.raises(boardlab.IllegalActionError):
            position.play(action)


def test_drop_places_a_stone_takes_it_from_supply_and_completes_the_turn():
    position = game().initial().play("a1-b2").play("@d4")
    assert position.position_string() == "Y5Y/7/7/3o3/7/1R5/6R y m 9/10 0/0 0 1"


def test_drop_on_the_square_just_left():
    position = game().initial().play("a1-b2").play("@a1")
    assert position.position_string() == "Y5Y/7/7/7/7/1R5/o5R y m 9/10 0/0 0 1"


@pytest.mark.parametrize("square", ["b2", "g1", "a7"])
def test_drop_cannot_go_on_a_koi(square):
    with pytest.raises(boardlab.IllegalActionError):
        game().initial().play("a1-b2").play("@" + square)


def test_drop_cannot_go_on_a_stone():
    position = at("Y5Y/7/7/3o3/7/7/R5R r m 9/10 0/0 0 1").play("a1-b2")
    assert "@d4" not in legal(position)
    with pytest.raises(boardlab.IllegalActionError):
        position.play("@d4")


def test_no_drop_follows_a_swim_when_the_supply_is_empty():
    position = at("Y5Y/7/7/7/7/7/R5R r m 0/10 0/0 0 0").play("a1-b2")
    assert position.position_string() == "Y5Y/7/7/7/7/1R5/6R y m 0/10 0/0 0 1"


def test_stones_zero_means_no_drop_ever():
    position = game(stones=0).initial().play("g1-f2")
    assert position.position_string() == "Y5Y/7/7/7/7/5R1/R6 y m 0/0 0/0 0 1"


def test_drop_scores_nothing():
    # d3-d4 lands next to the red koi on c3 (1 point); the stone dropped on e4 adds nothing
    position = after("Y5Y/7/7/7/2RR3/7/7 r m 10/10 0/0 0 0", ["d3-d4", "@e4"])
    assert position.position_string() == "Y5Y/7/7/3Ro2/2R4/7/7 y m 9/10 1/0 0 1"


# --------------------------------------------------------------------------- jump


JUMP = "Y6/7/7/3Y3/7/1o5/R5R r m 9/10 0/0 0 2"  # red a1 g1, yellow a7 d4, stone b2


def test_jump_lands_beyond_exactly_one_stone():
    # a1 swims to a2 b1 (b2 holds a stone) or jumps over b2 to c3; g1 has three swims
    position = at(JUMP)
    assert legal(position) == {"a1-a2", "a1-b1", "a1-c3", "g1-f1", "g1-f2", "g1-g2"}


def test_jump_is_not_followed_by_a_drop_and_completes_the_turn():
    # red still has 9 stones, but after a jump no drop follows; c3 touches d4 (yellow): 1 point
    position = at(JUMP).play("a1-c3")
    assert position.position_string() == "Y6/7/7/3Y3/2R4/1o5/6R y m 9/10 1/0 0 3"


def test_jump_in_all_eight_directions():
    # red d4 ringed by eight stones with every square beyond them empty: eight jumps, no swim
    position = at("Y5Y/7/2ooo2/2oRo2/2ooo2/7/R6 r m 6/6 0/0 0 8")
    assert moves_from(position, "d4") == {
        "d4-b2", "d4-d2", "d4-f2", "d4-b4", "d4-f4", "d4-b6", "d4-d6", "d4-f6"
    }  # fmt: skip


def test_koi_cannot_be_jumped():
    # yellow koi on b2 next to red a1: a1 swims to a2 or b1, no jump over the koi to c3
    position = at("Y6/7/7/7/7/1Y5/R5R r m 10/10 0/0 0 0")
    assert moves_from(position, "a1") == {"a1-a2", "a1-b1"}
    with pytest.raises(boardlab.IllegalActionError):
        position.play("a1-c3")


@pytest.mark.parametrize(
    "board",
    [
        "Y5Y/7/7/7/2o4/1o5/R5R",  # two stones in a row (b2, c3): the landing c3 is not empty
        "Y5Y/7/7/7/2R4/1o5/R6",  # a koi (red, c3) on the landing square
    ],
)
def test_jump_needs_an_empty_landing_square(board):
    position = at(f"{board} r m 8/10 0/0 0 2")
    assert moves_from(position, "a1") == {"a1-a2", "a1-b1"}


def test_jump_cannot_land_off_the_board():
    # red a2 with a stone on a1: the square beyond a1 does not exist
    position = at("Y5Y/7/7/7/7/R6/o5R r m 9/10 0/0 0 2")
    assert moves_from(position, "a2") == {"a2-a3", "a2-b3", "a2-b2", "a2-b1"}


def test_two_square_move_without_a_stone_between_is_not_a_jump():
    with pytest.raises(boardlab.IllegalActionError):
        game().initial().play("a1-c3")


def test_swim_and_jump_are_told_apart_by_the_distance():
    position = at(JUMP)
    swim = position.play("a1-b1")
    assert swim.phase == "d"  # a swim: a drop follows
    jump = position.play("a1-c3")
    assert jump.phase == "m"  # a jump: no drop
    assert jump.player == "yellow"


# --------------------------------------------------------------------------- scoring


def test_landing_scores_one_point_for_an_own_koi_around_it():
    # d3-d4: c3 (red) is a neighbour of d4; the yellow koi on a7 and g7 are far away
    position = at("Y5Y/7/7/7/2RR3/7/7 r m 10/10 0/0 0 0").play("d3-d4")
    assert position.position_string() == "Y5Y/7/7/3R3/2R4/7/7 r d 10/10 1/0 0 0"


def test_landing_scores_one_point_for_an_opponent_koi_around_it():
    # d3-d4: e5 (yellow) is a neighbour of d4; red a1 and yellow a7 are far away
    position = at("Y6/7/4Y2/7/3R3/7/R6 r m 10/10 0/0 0 0").play("d3-d4")
    assert position.position_string() == "Y6/7/4Y2/3R3/7/7/R6 r d 10/10 1/0 0 0"


def test_landing_next_to_all_three_other_koi_scores_three():
    # d3-d4: c3 (red), d5 and e5 (yellow) all touch d4
    position = at("7/7/3YY2/7/2RR3/7/7 r m 10/10 0/0 0 0").play("d3-d4")
    assert position.position_string() == "7/7/3YY2/3R3/2R4/7/7 r d 10/10 3/0 0 0"


def test_jump_landing_scores_too():
    assert at(JUMP).play("a1-c3").points == (1, 0)


def test_yellow_landing_scores_for_yellow():
    # e5-e4: d3 (red) touches e4, c3 does not; the point goes to yellow
    position = at("Y6/7/4Y2/7/2RR3/7/7 y m 10/10 0/0 0 1").play("e5-e4")
    assert position.position_string() == "Y6/7/7/4Y2/2RR3/7/7 y d 10/10 0/1 0 1"


def test_points_are_added_to_the_score_so_far():
    position = at("Y5Y/7/7/7/2RR3/7/7 r m 10/10 4/2 0 6").play("d3-d4")
    assert position.points == (5, 2)


def test_koi_two_squares_away_do_not_score():
    # a1-b2 from the start: the nearest other koi is g1, far away
    assert game().initial().play("a1-b2").points == (0, 0)


# --------------------------------------------------------------------------- target


TARGET = "Y6/7/4Y2/7/2RR3/7/7 r m 10/10 8/0 0 5"  # d3-d4 scores 2 (c3 red, e5 yellow)


def test_reaching_the_target_ends_the_game_at_once_without_the_drop():
    # 8 + 2 = 10: the game ends before the drop (supply stays 10); the turn is closed as
    # usual: TURNS + 1, the opponent to act, phase m
    position = at(TARGET).play("d3-d4")
    assert position.position_string() == "Y6/7/4Y2/3R3/2R4/7/7 y m 10/10 10/0 0 6"
    assert ended(position) == ("red", (10, 0), "target")
    assert position.outcome().winner == 0


def test_passing_the_target_also_wins():
    position = at(TARGET.replace("8/0", "9/0")).play("d3-d4")
    assert ended(position) == ("red", (11, 0), "target")


def test_target_reached_by_a_jump():
    position = at(JUMP.replace("0/0", "9/0")).play("a1-c3")
    assert position.position_string() == "Y6/7/7/3Y3/2R4/1o5/6R y m 9/10 10/0 0 3"
    assert ended(position) == ("red", (10, 0), "target")


def test_target_15_is_not_reached_with_10():
    position = at(TARGET, target=15).play("d3-d4")
    assert not position.is_over()
    assert position.position_string() == "Y6/7/4Y2/3R3/2R4/7/7 r d 10/10 10/0 0 5"


def test_target_15_is_reached_with_15():
    position = at(TARGET.replace("8/0", "13/0"), target=15).play("d3-d4")
    assert ended(position) == ("red", (15, 0), "target")


def test_yellow_reaching_the_target_wins_for_yellow():
    position = at("Y6/7/4Y2/7/2RR3/7/7 y m 10/10 3/9 0 1").play("e5-e4")
    assert position.position_string() == "Y6/7/7/4Y2/2RR3/7/7 r m 10/10 3/10 0 2"
    assert ended(position) == ("yellow", (3, 10), "target")


def test_a_position_string_is_judged_with_the_target_in_force():
    text = "Y5Y/7/7/7/7/7/R5R y m 10/10 12/3 0 20"
    assert ended(at(text)) == ("red", (12, 3), "target")
    assert not at(text, target=15).is_over()


# --------------------------------------------------------------------------- recycle


RECYCLE = "Y5Y/7/4o2/7/7/7/R5R r m 1/10 0/0 0 9"  # red holds its last stone; a stone on e5


def test_recycle_dropping_the_last_stone_makes_the_opponent_give():
    position = after(RECYCLE, ["a1-b2", "@d4"], recycle=True)
    # the turn is complete (TURNS + 1); yellow is to act, giving: any stone on the board
    assert position.position_string() == "Y5Y/7/4o2/3o3/7/1R5/6R y g 0/10 0/0 0 10"
    assert position.player == "yellow"
    assert legal(position) == {"xd4", "xe5"}


def test_recycle_give_returns_the_stone_to_the_droppers_supply():
    position = after(RECYCLE, ["a1-b2", "@d4", "xe5"], recycle=True)
    assert position.position_string() == "Y5Y/7/7/3o3/7/1R5/6R y m 1/10 0/0 0 10"


def test_recycle_give_may_take_the_stone_just_dropped():
    position = after(RECYCLE, ["a1-b2", "@d4", "xd4"], recycle=True)
    assert position.position_string() == "Y5Y/7/4o2/7/7/1R5/6R y m 1/10 0/0 0 10"


def test_recycle_give_does_not_use_the_givers_turn():
    # after the give yellow plays his own turn: swim a7-a6, drop on a7; that turn is TURNS 11
    position = after(RECYCLE, ["a1-b2", "@d4", "xe5"], recycle=True)
    assert position.player == "yellow"
    assert position.phase == "m"
    assert "a7-a6" in legal(position)
    position = position.play_all(["a7-a6", "@a7"])
    assert position.position_string() == "o5Y/Y6/7/3o3/7/1R5/6R r m 1/9 0/0 0 11"


def test_recycle_yellow_dropping_the_last_stone_makes_red_give():
    position = after("Y5Y/7/7/7/7/7/R5R y m 10/1 0/0 0 9", ["a7-a6", "@d4"], recycle=True)
    assert position.position_string() == "6Y/Y6/7/3o3/7/7/R5R r g 10/0 0/0 0 10"
    assert legal(position) == {"xd4"}
    position = position.play("xd4")
    assert position.position_string() == "6Y/Y6/7/7/7/7/R5R r m 10/1 0/0 0 10"


def test_stones_have_no_owner_a_give_may_take_any_stone():
    # the e5 stone was not dropped by red in this turn; yellow may still give it back to red
    position = after(RECYCLE, ["a1-b2", "@d4"], recycle=True)
    assert position.play("xe5").position_string().split()[3] == "1/10"


def test_without_recycle_the_last_stone_leaves_the_supply_empty():
    position = after(RECYCLE, ["a1-b2", "@d4"])
    assert position.position_string() == "Y5Y/7/4o2/3o3/7/1R5/6R y m 0/10 0/0 0 10"
    # red now swims without dropping
    position = position.play_all(["a7-a6", "@a7", "b2-c2"])
    assert position.position_string() == "o5Y/Y6/4o2/3o3/7/2R4/6R y m 0/9 0/0 0 12"


def test_give_is_not_counted_towards_the_turn_cap():
    position = after(RECYCLE, ["a1-b2", "@d4", "xe5"], recycle=True, max_turns=11)
    assert not position.is_over()  # TURNS is 10: the give did not count
    position = position.play_all(["a7-a6", "@a7"])
    assert ended(position) == ("draw", (0, 0), "turn_cap")


def test_turn_cap_reached_by_last_drop_ends_without_give():
    # ruling: the game is over at once, the opponent to act in phase m, no give
    position = after(RECYCLE, ["a1-b2", "@d4"], recycle=True, max_turns=10)
    assert position.position_string() == "Y5Y/7/4o2/3o3/7/1R5/6R y m 0/10 0/0 0 10"
    assert ended(position) == ("draw", (0, 0), "turn_cap")


# --------------------------------------------------------------------------- no move: pass


def test_player_without_swim_or_jump_can_only_pass():
    assert at(f"{STUCK} r m 4/4 3/5 0 20").legal_action_strings() == ["pass"]


def test_pass_is_a_turn_and_counts_as_a_pass():
    position = at(f"{STUCK} r m 4/4 3/5 0 20").play("pass")
    assert position.position_string() == f"{STUCK} y m 4/4 3/5 1 21"
    assert not position.is_over()
    assert position.legal_action_strings() == ["pass"]


def test_two_consecutive_passes_end_the_game_higher_score_wins():
    position = after(f"{STUCK} r m 4/4 3/5 0 20", ["pass", "pass"])
    assert position.position_string() == f"{STUCK} r m 4/4 3/5 2 22"
    assert ended(position) == ("yellow", (3, 5), "passes")
    assert position.outcome().winner == 1


def test_two_passes_with_equal_scores_are_a_draw():
    position = after(f"{STUCK} r m 4/4 4/4 0 20", ["pass", "pass"])
    assert ended(position) == ("draw", (4, 4), "passes")
    assert position.outcome().winner is None


def test_swim_resets_passes():
    position = at("Y5Y/7/7/7/7/7/R5R r m 10/10 0/0 1 7").play("a1-b2")
    assert position.position_string() == "Y5Y/7/7/7/7/1R5/6R r d 10/10 0/0 0 7"
    assert position.play("@d4").position_string() == "Y5Y/7/7/3o3/7/1R5/6R y m 9/10 0/0 0 8"


def test_jump_resets_passes():
    position = at(JUMP.replace(" 0 2", " 1 2")).play("a1-c3")
    assert position.position_string() == "Y6/7/7/3Y3/2R4/1o5/6R y m 9/10 1/0 0 3"


def test_no_move_pass_is_the_default():
    assert not at(f"{STUCK} r m 4/4 3/5 0 20", no_move="pass").is_over()


# --------------------------------------------------------------------------- no move: lose


def test_no_move_lose_the_player_to_move_without_swim_or_jump_loses():
    # red has more points but cannot move: red loses, reason no_moves
    position = at(f"{STUCK} r m 4/4 8/5 0 20", no_move="lose")
    assert ended(position) == ("yellow", (8, 5), "no_moves")


def test_no_move_lose_yellow_stuck_loses():
    position = at(f"{STUCK} y m 4/4 3/5 0 21", no_move="lose")
    assert ended(position) == ("red", (3, 5), "no_moves")


def test_no_move_lose_a_player_who_can_move_plays_on():
    position = at("Y5Y/7/7/7/7/7/R5R r m 0/0 0/0 0 40", no_move="lose")
    assert not position.is_over()


def test_no_move_lose_reached_by_play():
    # yellow a2 b2 fenced by ten stones; only the jump b2 over c3 to d4 is left to yellow.
    # Red swims g7-f7 (no koi near f7) and drops on d4: now yellow, to act, cannot move.
    start = "6R/7/7/ooo4/ooo4/YYoo3/Roo4 r m 5/5 3/5 0 20"
    assert not at(start, no_move="lose").is_over()
    position = after(start, ["g7-f7", "@d4"], no_move="lose")
    assert position.position_string() == "5R1/7/7/oooo3/ooo4/YYoo3/Roo4 y m 4/5 3/5 0 21"
    assert ended(position) == ("red", (3, 5), "no_moves")
    # with the default no_move=pass yellow passes instead
    position = after(start, ["g7-f7", "@d4"])
    assert position.legal_action_strings() == ["pass"]


# --------------------------------------------------------------------------- turn cap


def test_turn_cap_ends_the_game_after_max_turns_higher_score_wins():
    start = "Y5Y/7/7/7/7/7/R5R r m 10/10 2/1 0 4"
    position = at(start, max_turns=5).play("a1-b2")
    assert not position.is_over()  # a started turn is always finished
    position = position.play("@d4")
    assert position.position_string() == "Y5Y/7/7/3o3/7/1R5/6R y m 9/10 2/1 0 5"
    assert ended(position) == ("red", (2, 1), "turn_cap")


def test_turn_cap_counts_passes():
    position = at(f"{STUCK} r m 4/4 3/5 0 20", max_turns=21).play("pass")
    assert position.position_string() == f"{STUCK} y m 4/4 3/5 1 21"
    assert ended(position) == ("yellow", (3, 5), "turn_cap")


def test_turn_cap_with_equal_scores_is_a_draw():
    position = at("Y5Y/7/7/7/7/7/R5R r m 0/0 4/4 0 6", max_turns=7).play("g1-g2")
    assert ended(position) == ("draw", (4, 4), "turn_cap")


def test_default_turn_cap_is_300_turns():
    position = at("Y5Y/7/7/7/7/7/R5R r m 0/0 1/2 0 299").play("a1-b2")
    assert position.position_string() == "Y5Y/7/7/7/7/1R5/6R y m 0/0 1/2 0 300"
    assert ended(position) == ("yellow", (1, 2), "turn_cap")
    assert not at("Y5Y/7/7/7/7/7/R5R r m 0/0 1/2 0 299").is_over()


# --------------------------------------------------------------------------- end check order


def test_end_check_order_target_before_turn_cap():
    position = at(TARGET, max_turns=6).play("d3-d4")
    assert ended(position) == ("red", (10, 0), "target")


def test_end_check_order_passes_before_turn_cap():
    position = at(f"{STUCK} y m 4/4 3/5 1 21", max_turns=22).play("pass")
    assert ended(position) == ("yellow", (3, 5), "passes")


def test_end_check_order_turn_cap_before_no_moves():
    # red is stuck (no_moves would make yellow win) but the cap is reached: higher score wins
    position = at(f"{STUCK} r m 4/4 8/5 0 20", no_move="lose", max_turns=20)
    assert ended(position) == ("red", (8, 5), "turn_cap")


# --------------------------------------------------------------------------- notation


def test_action_strings_are_canonical():
    position = at(JUMP)
    assert sorted(position.legal_action_strings()) == sorted(
        ["a1-a2", "a1-b1", "a1-c3", "g1-f1", "g1-f2", "g1-g2"]
    )
    drops = position.play("a1-b1").legal_action_strings()
    assert "@d3" in drops and "@d4" not in drops  # d4 holds a yellow koi
    gives = after(RECYCLE, ["a1-b2", "@d4"], recycle=True).legal_action_strings()
    assert sorted(gives) == ["xd4", "xe5"]
    assert at(f"{STUCK} r m 4/4 3/5 0 20").legal_action_strings() == ["pass"]


@pytest.mark.parametrize(
    ("start", "lenient", "canonical"),
    [
        (INITIAL, "A1-B2", "a1-b2"),
        (INITIAL, " a1 - b2 ", "a1-b2"),
        ("Y5Y/7/7/7/7/1R5/6R r d 10/10 0/0 0 0", "@D4", "@d4"),
        ("Y5Y/7/7/7/7/1R5/6R r d 10/10 0/0 0 0", " @ d4", "@d4"),
        ("Y5Y/7/4o2/3o3/7/1R5/6R y g 0/10 0/0 0 10", "XE5", "xe5"),
        (f"{STUCK} r m 4/4 3/5 0 20", "PASS", "pass"),
        (f"{STUCK} r m 4/4 3/5 0 20", " Pass ", "pass"),
    ],
)
def test_action_parser_is_lenient_about_case_and_spaces(start, lenient, canonical):
    position = at(start, recycle=" g " in start)  # a give is due only under recycle
    assert position.play(lenient) == position.play(canonical)


@pytest.mark.parametrize(
    "text",
    [
        INITIAL,
        "7/1Y3Y1/7/7/7/1R3R1/7 r m 10/10 0/0 0 0",
        "Y5Y/7/7/7/7/1R5/6R r d 10/10 0/0 0 0",
        "Y5Y/7/4o2/3o3/7/1R5/6R y g 0/10 0/0 0 10",
        f"{STUCK} y m 4/4 3/5 1 21",
        "Y6/7/4Y2/3R3/2R4/7/7 y m 10/10 10/0 0 6",
        "Y5Y/ooooooo/7/7/7/7/R5R r m 3/10 0/0 0 7",
        "o5Y/Y6/7/3o3/7/1R5/6R r m 1/9 12/14 0 299",
    ],
)
def test_position_string_round_trips(text):
    assert at(text, recycle=" g " in text).position_string() == text


def test_position_string_fields_are_read_back():
    position = at("Y5Y/7/4o2/3o3/7/1R5/6R y g 0/10 3/4 0 10", recycle=True)
    assert position.to_act == 1
    assert position.player == "yellow"
    assert position.phase == "g"
    assert position.points == (3, 4)
    assert position.turns == 10
    red = at("Y5Y/7/7/7/7/1R5/6R r d 7/10 2/0 1 3")
    assert (red.to_act, red.player, red.phase, red.points, red.turns) == (0, "red", "d", (2, 0), 3)


def test_position_string_does_not_carry_options():
    text = "Y5Y/7/7/7/7/7/R5R r m 6/6 0/0 0 0"
    assert game(stones=6).initial().position_string() == text
    assert at(text, stones=10).position_string() == text


def test_perft_counts_actions_a_drop_is_an_action_of_its_own():
    # 6 swims, each followed by one of 45 drops (49 squares less 4 koi)
    start = game().initial()
    assert perft(start, 0) == 1
    assert perft(start, 1) == 6
    assert perft(start, 2) == 6 * 45


def test_perft_of_a_finished_game_is_zero():
    position = at(TARGET).play("d3-d4")
    assert perft(position, 0) == 1
    assert perft(position, 1) == 0
    assert perft(position, 2) == 0


def test_outcome_summary_names_winner_points_and_reason():
    position = at(TARGET).play("d3-d4")
    assert position.outcome().summary() == "winner=red points=10/0 reason=target"
    drawn = after(f"{STUCK} r m 4/4 4/4 0 20", ["pass", "pass"])
    assert drawn.outcome().summary() == "winner=draw points=4/4 reason=passes"
