"""Rule-clause tests for Galatjang: the Galatjang card and the parts of section 0 it uses.

Every expected value was worked out by hand from the rules (and the rulings the engine is
told to follow where the rules are open), never copied from the engine. The sowing ring is
s1..s6, South's store, n1..n6, North's store, s1; the pit opposite s_i is n_(7-i). Comments
trace the seeds where a sowing is not obvious.
"""

from __future__ import annotations

import pytest

import boardlab
from boardlab.core.perft import perft
from support import ended, game_helpers

game, at, after = game_helpers("galatjang")

INITIAL = "6,6,6,6,6,6/6,6,6,6,6,6 0/0 s 1 0"


# --------------------------------------------------------------------------- setup, options


def test_initial_position_six_seeds_in_every_pit_stores_empty():
    position = game().initial()
    assert position.position_string() == INITIAL
    assert position.player == "south"
    assert position.legal_action_strings() == ["s1", "s2", "s3", "s4", "s5", "s6"]


def test_pits_and_seeds_options_shape_the_start():
    assert game(pits=4, seeds=3).initial().position_string() == "3,3,3,3/3,3,3,3 0/0 s 1 0"


def test_first_north_gives_north_the_first_sowing():
    position = game(first="north").initial()
    assert position.position_string() == "6,6,6,6,6,6/6,6,6,6,6,6 0/0 n 1 0"
    assert position.legal_action_strings() == ["n1", "n2", "n3", "n4", "n5", "n6"]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("pits", 6),
        ("pits", 4),
        ("seeds", 6),
        ("seeds", 3),
        ("first", "south"),
        ("first", "north"),
        ("sow_opponent_store", True),
        ("sow_opponent_store", False),
        ("skip_origin", False),
        ("skip_origin", True),
        ("lone_seed", "store"),
        ("lone_seed", "stay"),
        ("max_turns", 500),
        ("max_turns", 5),
        ("rounds", 1),
        ("rounds", 3),
        ("refill", "store_end"),
        ("refill", "far_end"),
        ("round_starter", "winner"),
        ("round_starter", "loser"),
        ("round_starter", "alternate"),
    ],
)
def test_every_documented_option_value_is_accepted(name, value):
    assert game(**{name: value}).options[name] == value
    text = ("true" if value else "false") if isinstance(value, bool) else str(value)
    assert game(**{name: text}).options[name] == value


def test_option_defaults_are_the_documented_ones():
    assert dict(game().options) == {
        "pits": 6,
        "seeds": 6,
        "first": "south",
        "sow_opponent_store": True,
        "skip_origin": False,
        "lone_seed": "store",
        "max_turns": 500,
        "rounds": 1,
        "refill": "store_end",
        "round_starter": "winner",
    }


# --------------------------------------------------------------------------- sowing


def test_last_seed_in_own_store_sows_again_in_the_same_turn():
    # s1: six seeds to s2..s6 and South's store
    position = game().initial().play("s1")
    assert position.position_string() == "0,7,7,7,7,7/6,6,6,6,6,6 1/0 s 1 0"
    assert position.legal_action_strings() == ["s2", "s3", "s4", "s5", "s6"]


def test_relay_from_pit_that_held_seeds_on_both_sides():
    # s6: store 1, n1..n5 -> 7; n5 held 6: relay its 7 to n6, North's store, s1..s5;
    # s5 held 6: relay its 7 to s6 (emptied: 1), store 2, n1..n4 -> 8, n5 (emptied) -> 1;
    # n5 was empty and is North's: the turn ends
    position = game().initial().play("s6")
    assert position.position_string() == "7,7,7,7,0,1/8,8,8,8,1,7 2/1 n 1 1"


def test_relay_ending_in_own_store_sows_again():
    # s4 -> s5 (held 1): relay 2 to s6 and South's store: South sows again
    position = at("0,0,0,1,1,0/1,0,0,0,0,0 0/0 s 1 0").play("s4")
    assert position.position_string() == "0,0,0,0,0,1/1,0,0,0,0,0 1/0 s 1 0"
    assert position.legal_action_strings() == ["s6"]


def test_last_seed_in_opponent_store_ends_the_turn():
    # s6 with 8: South's store, n1..n6, North's store (holding 5 already)
    position = at("1,0,0,0,0,8/1,1,1,1,1,1 0/5 s 1 0").play("s6")
    assert position.position_string() == "1,0,0,0,0,0/2,2,2,2,2,2 1/6 n 1 1"


def test_last_seed_in_empty_opponent_pit_ends_the_turn():
    position = at("0,0,0,0,0,2/0,5,5,5,5,5 0/0 s 1 0").play("s6")
    assert position.position_string() == "0,0,0,0,0,0/1,5,5,5,5,5 1/0 n 1 1"


def test_last_seed_in_own_empty_pit_captures_it_and_the_opposite_pit():
    # s1 -> s2 (empty); opposite n5 holds 4: 1 + 4 to South's store
    position = at("1,0,0,0,0,0/3,0,0,0,4,0 0/0 s 1 0").play("s1")
    assert position.position_string() == "0,0,0,0,0,0/3,0,0,0,0,0 5/0 n 1 1"


@pytest.mark.parametrize(
    ("start", "pit", "expected"),
    [
        ("1,0,0,0,0,0/1,1,1,1,4,1 0/0 s 1 0", "s1", "0,0,0,0,0,0/1,1,1,1,0,1 5/0 n 1 1"),
        ("0,1,0,0,0,0/1,1,1,4,1,1 0/0 s 1 0", "s2", "0,0,0,0,0,0/1,1,1,0,1,1 5/0 n 1 1"),
        ("0,0,1,0,0,0/1,1,4,1,1,1 0/0 s 1 0", "s3", "0,0,0,0,0,0/1,1,0,1,1,1 5/0 n 1 1"),
        ("0,0,0,1,0,0/1,4,1,1,1,1 0/0 s 1 0", "s4", "0,0,0,0,0,0/1,0,1,1,1,1 5/0 n 1 1"),
        ("0,0,0,0,1,0/4,1,1,1,1,1 0/0 s 1 0", "s5", "0,0,0,0,0,0/0,1,1,1,1,1 5/0 n 1 1"),
    ],
    ids=["s2-n5", "s3-n4", "s4-n3", "s5-n2", "s6-n1"],
)
def test_capture_takes_the_pit_opposite_s_i_which_is_n_7_minus_i(start, pit, expected):
    assert at(start).play(pit).position_string() == expected


def test_north_captures_into_its_own_store():
    # n1 -> n2 (empty); n2 faces s5 (4 seeds): 1 + 4 to North's store
    position = at("0,0,0,0,4,1/1,0,0,0,0,0 0/0 n 1 1").play("n1")
    assert position.position_string() == "0,0,0,0,0,1/0,0,0,0,0,0 0/5 s 1 2"


def test_lone_seed_store_default_moves_the_seed_to_the_store_when_opposite_is_empty():
    position = at("1,0,0,0,0,0/3,0,0,0,0,0 0/0 s 1 0", lone_seed="store").play("s1")
    assert position.position_string() == "0,0,0,0,0,0/3,0,0,0,0,0 1/0 n 1 1"


def test_lone_seed_stay_leaves_the_seed_when_opposite_is_empty():
    position = at("1,0,0,0,0,0/3,0,0,0,0,0 0/0 s 1 0", lone_seed="stay").play("s1")
    assert position.position_string() == "0,1,0,0,0,0/3,0,0,0,0,0 0/0 n 1 1"


def test_lone_seed_stay_still_captures_a_non_empty_opposite_pit():
    position = at("1,0,0,0,0,0/3,0,0,0,4,0 0/0 s 1 0", lone_seed="stay").play("s1")
    assert position.position_string() == "0,0,0,0,0,0/3,0,0,0,0,0 5/0 n 1 1"


def test_relay_from_a_pit_filled_earlier_in_the_same_sowing():
    # s1 with 15: one seed each to s2..s6, S, n1..n6, N (13), s1 (14, the origin is not
    # skipped), s2 (15): s2 got a seed on the first lap, so it counts as holding seeds.
    # Relays of 2 follow: s2 -> s3 s4; s4 -> s5 s6; s6 -> S n1; n1 -> n2 n3; n3 -> n4 n5;
    # n5 -> n6 N: the last seed in North's store ends the turn
    position = at("15,0,0,0,0,0/0,0,0,0,0,0 0/0 s 1 0").play("s1")
    assert position.position_string() == "1,0,2,0,2,0/0,2,0,2,0,2 2/2 n 1 1"


def test_origin_pit_is_not_skipped_on_later_laps_by_default():
    # s1 with 14: 13 to s2..N, the 14th back into s1, now empty and South's: capture it
    # with the opposite n6 (1): store 1 + 2
    position = at("14,0,0,0,0,0/0,0,0,0,0,0 0/0 s 1 0").play("s1")
    assert position.position_string() == "0,1,1,1,1,1/1,1,1,1,1,0 3/1 n 1 1"


def test_skip_origin_skips_the_pit_the_seeds_were_taken_from():
    # the 14th seed skips s1 and lands in s2 (holding 1): relays of 2 as above, ending in
    # North's store
    position = at("14,0,0,0,0,0/0,0,0,0,0,0 0/0 s 1 0", skip_origin=True).play("s1")
    assert position.position_string() == "0,0,2,0,2,0/0,2,0,2,0,2 2/2 n 1 1"


def test_relay_pit_is_not_skipped_on_later_laps_by_default():
    # s5 (1) -> s6 holding 13: relay 14 from s6: S, n1..n6, N, s1..s5 (13), s6 (14th):
    # s6 was emptied by the relay, so it is an own empty pit: capture with n1 (1)
    position = at("0,0,0,0,1,13/0,0,0,0,0,0 0/0 s 1 0").play("s5")
    assert position.position_string() == "1,1,1,1,1,0/0,1,1,1,1,1 3/1 n 1 1"


def test_skip_origin_skips_the_relay_pit_too():
    # the 14th seed of the relay skips s6 and falls into South's store: sow again
    position = at("0,0,0,0,1,13/0,0,0,0,0,0 0/0 s 1 0", skip_origin=True).play("s5")
    assert position.position_string() == "1,1,1,1,1,0/1,1,1,1,1,1 2/1 s 1 0"


def test_sow_opponent_store_true_is_the_default():
    position = at("0,0,0,0,0,8/1,1,1,1,1,1 0/0 s 1 0", sow_opponent_store=True).play("s6")
    assert position.position_string() == "0,0,0,0,0,0/2,2,2,2,2,2 1/1 n 1 1"


def test_sow_opponent_store_false_skips_the_opponents_store():
    # s6 with 8: S, n1..n6, (North's store skipped), s1: empty and South's: capture with n6
    position = at("0,0,0,0,0,8/1,1,1,1,1,1 0/0 s 1 0", sow_opponent_store=False).play("s6")
    assert position.position_string() == "0,0,0,0,0,0/2,2,2,2,2,0 4/0 n 1 1"


def test_sow_opponent_store_false_for_north_skips_souths_store():
    # n6 with 8: N, s1..s6, (South's store skipped), n1: empty and North's: capture with s6
    start = "1,1,1,1,1,1/0,0,0,0,0,8 0/0 n 1 1"
    assert at(start).play("n6").position_string() == "2,2,2,2,2,2/0,0,0,0,0,0 1/1 s 1 2"
    position = at(start, sow_opponent_store=False).play("n6")
    assert position.position_string() == "2,2,2,2,2,0/0,0,0,0,0,0 0/4 s 1 2"


def test_must_sow_again_without_seeds_ends_the_turn_not_the_round():
    # s6 (1) -> South's store: sow again, but South has nothing left; North has seeds
    position = at("0,0,0,0,0,1/1,0,0,0,0,0 0/0 s 1 0").play("s6")
    assert position.position_string() == "0,0,0,0,0,0/1,0,0,0,0,0 1/0 n 1 1"
    assert not position.is_over()


def test_empty_pit_cannot_be_sown():
    position = game().initial().play("s1")
    with pytest.raises(boardlab.IllegalActionError):
        position.play("s1")


def test_a_turn_is_all_sowings_of_one_player_turns_count_turns():
    position = game().initial().play("s1")
    assert position.turns == 0
    position = position.play("s6")
    # s6 (7 after s1): S 2, n1..n6 -> 7; n6 held 6: relay 7 to N, s1, s2..s5 -> 8, s6
    # (emptied, South's): capture it with n1 (7): store 2 + 8
    assert position.position_string() == "1,8,8,8,8,0/0,7,7,7,7,0 10/1 n 1 1"
    assert position.turns == 1


# --------------------------------------------------------------------------- pits option


def test_pits_4_opposite_pit_is_n_p_plus_1_minus_i():
    # s1 -> s2 (empty); with 4 pits s2 faces n3 (5 seeds): 1 + 5 to the store
    position = at("1,0,0,0/0,0,5,1 0/0 s 1 0", pits=4).play("s1")
    assert position.position_string() == "0,0,0,0/0,0,0,1 6/0 n 1 1"


def test_position_string_shape_wins_over_the_pits_option():
    # a 4-pit position read with the default pits=6 is still a 4-pit position
    position = at("1,0,0,0/0,0,5,1 0/0 s 1 0")
    assert position.legal_action_strings() == ["s1"]
    assert position.play("s1").position_string() == "0,0,0,0/0,0,0,1 6/0 n 1 1"


def test_pits_4_ring_runs_through_both_stores():
    # s4 with 4: South's store, n1..n3; n3 was empty: turn ends
    position = at("3,3,3,4/3,3,0,3 0/0 s 1 0", pits=4).play("s4")
    assert position.position_string() == "3,3,3,0/4,4,1,3 1/0 n 1 1"


# --------------------------------------------------------------------------- round end


def test_round_ends_when_the_player_to_move_has_no_seeds_and_pits_are_swept():
    # s1 -> s2, opposite n5 empty: the lone seed to the store (11); North has no seeds:
    # the round ends, South's 3 in s6 go to South's store (14)
    position = at("1,0,0,0,0,3/0,0,0,0,0,0 10/20 s 1 30").play("s1")
    assert position.position_string() == "0,0,0,0,0,0/0,0,0,0,0,0 14/20 n 1 31"
    assert ended(position) == ("north", (14, 20), "no_seeds")
    assert position.outcome().winner == 1


def test_round_end_sweeps_each_players_pits_into_his_own_store():
    # n1 -> n2, capture with s5 (4): North 25; South to move has none; North's 5 in n6
    # are swept into North's store
    position = at("0,0,0,0,4,0/1,0,0,0,0,5 10/20 n 1 31").play("n1")
    assert position.position_string() == "0,0,0,0,0,0/0,0,0,0,0,0 10/30 s 1 32"
    assert ended(position) == ("north", (10, 30), "no_seeds")


def test_round_ends_after_sow_again_leaves_both_without_seeds():
    position = at("0,0,0,0,0,1/0,0,0,0,0,0 5/3 s 1 7").play("s6")
    assert position.position_string() == "0,0,0,0,0,0/0,0,0,0,0,0 6/3 n 1 8"
    assert ended(position) == ("south", (6, 3), "no_seeds")


def test_equal_stores_at_the_end_are_a_draw():
    position = at("1,0,0,0,0,0/0,0,0,0,0,0 35/36 s 1 40").play("s1")
    assert ended(position) == ("draw", (36, 36), "no_seeds")
    assert position.outcome().winner is None


def test_parsed_position_whose_player_to_move_has_no_seeds_is_over_after_the_sweep():
    position = at("0,0,0,0,0,0/3,0,0,0,0,0 10/20 s 1 5")
    assert ended(position) == ("north", (10, 23), "no_seeds")


def test_turn_cap_ends_the_round_the_same_way():
    # TURNS 4 -> 5 = max_turns: both sweep (North 1 + 25 = 26)
    position = at("0,0,0,0,0,2/0,5,5,5,5,5 0/0 s 1 4", max_turns=5).play("s6")
    assert position.position_string() == "0,0,0,0,0,0/0,0,0,0,0,0 1/26 n 1 5"
    assert ended(position) == ("north", (1, 26), "turn_cap")


def test_default_turn_cap_is_500_turns_per_round():
    position = at("0,0,0,0,0,2/0,5,5,5,5,5 0/0 s 1 499").play("s6")
    assert ended(position) == ("north", (1, 26), "turn_cap")
    assert not at("0,0,0,0,0,2/0,5,5,5,5,5 0/0 s 1 499").is_over()


# --------------------------------------------------------------------------- blocked pits


def test_blocked_pit_is_skipped_when_sowing():
    # s6 (2): South's store, then n1 and n2 are blocked: the second seed lands in n3
    # (empty, North's): the turn ends
    position = at("0,0,0,0,0,2/x,x,0,5,5,5 0/0 s 2 0", rounds=2).play("s6")
    assert position.position_string() == "0,0,0,0,0,0/x,x,1,5,5,5 1/0 n 2 1"


def test_blocked_pit_on_own_side_is_skipped_too():
    # n6 (3): North's store, s1 blocked, s2, s3 (empty, South's): the turn ends
    position = at("x,0,0,0,0,0/0,0,0,0,0,3 30/20 n 2 5", rounds=2).play("n6")
    assert position.position_string() == "x,1,1,0,0,0/0,0,0,0,0,0 30/21 s 2 6"


def test_blocked_pit_cannot_be_played():
    position = at("x,6,6,6,6,6/6,6,6,6,6,6 0/0 s 2 0", rounds=2)
    assert position.legal_action_strings() == ["s2", "s3", "s4", "s5", "s6"]
    with pytest.raises(boardlab.IllegalActionError):
        position.play("s1")


def test_blocked_opposite_pit_counts_as_empty():
    # s2 -> s3 (empty); s3 faces n4, blocked: the lone seed goes to the store ...
    start = "0,1,0,0,0,0/x,x,x,x,2,2 0/0 s 2 0"
    position = at(start, rounds=2).play("s2")
    assert position.position_string() == "0,0,0,0,0,0/x,x,x,x,2,2 1/0 n 2 1"
    # ... or, with lone_seed=stay, stays
    position = at(start, rounds=2, lone_seed="stay").play("s2")
    assert position.position_string() == "0,0,1,0,0,0/x,x,x,x,2,2 0/0 n 2 1"


# --------------------------------------------------------------------------- rounds


def test_refill_store_end_fills_from_the_pit_next_to_the_store():
    # stores 40/32 after round 1: South fills six pits (36, 4 left); North fills n6..n2
    # (30, 2 left) and n1 is blocked. South won the round and starts round 2.
    position = at("1,0,0,0,0,0/0,0,0,0,0,0 39/32 s 1 40", rounds=2).play("s1")
    assert position.position_string() == "6,6,6,6,6,6/x,6,6,6,6,6 4/2 s 2 0"
    assert not position.is_over()


def test_refill_far_end_fills_from_pit_1():
    position = at("1,0,0,0,0,0/0,0,0,0,0,0 39/32 s 1 40", rounds=2, refill="far_end")
    assert position.play("s1").position_string() == "6,6,6,6,6,6/6,6,6,6,6,x 4/2 s 2 0"


@pytest.mark.parametrize(
    ("refill", "expected"),
    [
        ("store_end", "6,6,6,6,6,6/x,x,x,6,6,6 14/4 s 2 0"),
        ("far_end", "6,6,6,6,6,6/6,6,6,x,x,x 14/4 s 2 0"),
    ],
)
def test_refill_leaves_leftover_seeds_in_the_store_and_blocks_unfilled_pits(refill, expected):
    # stores 50/22: South 36 in pits, 14 left; North fills 3 pits (18), 4 left
    position = at("1,0,0,0,0,0/0,0,0,0,0,0 49/22 s 1 40", rounds=2, refill=refill)
    assert position.play("s1").position_string() == expected


@pytest.mark.parametrize(
    ("refill", "expected"),
    [
        ("store_end", "x,x,x,6,6,6/6,6,6,6,6,6 4/14 n 2 0"),
        ("far_end", "6,6,6,x,x,x/6,6,6,6,6,6 4/14 n 2 0"),
    ],
)
def test_refill_of_a_short_south_blocks_from_the_far_end_of_its_row(refill, expected):
    # n1 -> n2, opposite s5 empty: lone seed to the store (50); stores 22/50: South fills
    # three pits (s6 s5 s4 from the store end, s1 s2 s3 from the far end); North starts
    position = at("0,0,0,0,0,0/1,0,0,0,0,0 22/49 n 1 41", rounds=2, refill=refill)
    assert position.play("n1").position_string() == expected


def test_refill_of_exactly_one_pit_is_not_cannot_fill():
    # stores 66/6: North fills n6 only and has nothing left
    position = at("1,0,0,0,0,0/0,0,0,0,0,0 65/6 s 1 40", rounds=2).play("s1")
    assert position.position_string() == "6,6,6,6,6,6/x,x,x,x,x,6 30/0 s 2 0"


def test_blocked_pits_are_refilled_in_a_later_round_if_seeds_allow():
    # round 2 of 3: s6 -> store, sow again without seeds, North has none: stores 31/41.
    # Round 3: South fills s6..s2 (30, 1 left), s1 blocked; North fills all six (5 left);
    # North won round 2 and starts round 3
    position = at("x,x,x,0,0,1/0,0,0,0,0,0 30/41 s 2 20", rounds=3).play("s6")
    assert position.position_string() == "x,6,6,6,6,6/6,6,6,6,6,6 1/5 n 3 0"


def test_turn_cap_ends_a_round_of_a_match_too():
    # TURNS 5 = max_turns: North sweeps 26 (51), South 21. Round 2: South fills s6 s5 s4
    # (18, 3 left); North fills six (15 left); North won and starts; TURNS starts at 0
    start = "0,0,0,0,0,2/0,5,5,5,5,5 20/25 s 1 4"
    position = at(start, rounds=2, max_turns=5).play("s6")
    assert position.position_string() == "x,x,x,6,6,6/6,6,6,6,6,6 3/15 n 2 0"


def test_cannot_fill_a_single_pit_loses_the_match_at_once():
    # stores 4/68 after round 1 of 2: South cannot fill a pit: North wins; the position
    # shows the swept end of the round
    position = at("0,0,0,0,0,0/1,0,0,0,0,0 4/67 n 1 41", rounds=2).play("n1")
    assert position.position_string() == "0,0,0,0,0,0/0,0,0,0,0,0 4/68 s 1 42"
    assert ended(position) == ("north", (4, 68), "cannot_fill")


def test_cannot_fill_north_loses():
    position = at("1,0,0,0,0,0/0,0,0,0,0,0 67/4 s 1 40", rounds=2).play("s1")
    assert position.position_string() == "0,0,0,0,0,0/0,0,0,0,0,0 68/4 n 1 41"
    assert ended(position) == ("south", (68, 4), "cannot_fill")


def test_cannot_fill_swept_end_keeps_blocked_pits():
    position = at("x,x,x,x,x,1/0,0,0,0,0,0 4/67 s 2 20", rounds=3).play("s6")
    assert position.position_string() == "x,x,x,x,x,0/0,0,0,0,0,0 5/67 n 2 21"
    assert ended(position) == ("north", (5, 67), "cannot_fill")


def test_last_round_attempts_no_refill():
    # round 2 of 2 with 4/68: no cannot_fill, the match simply ends on seeds
    position = at("1,0,0,0,0,0/0,0,0,0,0,0 3/68 s 2 40", rounds=2).play("s1")
    assert position.position_string() == "0,0,0,0,0,0/0,0,0,0,0,0 4/68 n 2 41"
    assert ended(position) == ("north", (4, 68), "no_seeds")


def test_match_ends_after_the_last_round_more_seeds_wins():
    position = at("1,0,0,0,0,0/0,0,0,0,0,0 39/32 s 2 40", rounds=2).play("s1")
    assert position.position_string() == "0,0,0,0,0,0/0,0,0,0,0,0 40/32 n 2 41"
    assert ended(position) == ("south", (40, 32), "no_seeds")


def test_swept_end_of_the_last_round_keeps_blocked_pits_as_x():
    position = at("x,0,0,0,0,1/0,0,0,0,0,0 30/41 s 2 20", rounds=2).play("s6")
    assert position.position_string() == "x,0,0,0,0,0/0,0,0,0,0,0 31/41 n 2 21"
    assert ended(position) == ("north", (31, 41), "no_seeds")


# The starter of a round is the side to act if TURNS is even, else the other side.
# A: South won, South started (TURNS 40, South to act).   Refill: "6,.../x,6,... 4/2".
# B: North won, South started (TURNS 41, North to act).   Refill: "x,x,x,6,6,6/... 4/14".
# C: South won, North started (TURNS 41, South to act).
# D: drawn 36/36, South started.  E: drawn 36/36, North started.
ROUND_ENDS = {
    "A": ("1,0,0,0,0,0/0,0,0,0,0,0 39/32 s 1 40", "s1", "6,6,6,6,6,6/x,6,6,6,6,6 4/2"),
    "B": ("0,0,0,0,0,0/1,0,0,0,0,0 22/49 n 1 41", "n1", "x,x,x,6,6,6/6,6,6,6,6,6 4/14"),
    "C": ("1,0,0,0,0,0/0,0,0,0,0,0 39/32 s 1 41", "s1", "6,6,6,6,6,6/x,6,6,6,6,6 4/2"),
    "D": ("1,0,0,0,0,0/0,0,0,0,0,0 35/36 s 1 40", "s1", "6,6,6,6,6,6/6,6,6,6,6,6 0/0"),
    "E": ("1,0,0,0,0,0/0,0,0,0,0,0 35/36 s 1 41", "s1", "6,6,6,6,6,6/6,6,6,6,6,6 0/0"),
}


@pytest.mark.parametrize(
    ("case", "round_starter", "side"),
    [
        ("A", "winner", "s"),
        ("A", "loser", "n"),
        ("A", "alternate", "n"),
        ("B", "winner", "n"),
        ("B", "loser", "s"),
        ("B", "alternate", "n"),
        ("C", "winner", "s"),
        ("C", "loser", "n"),
        ("C", "alternate", "s"),
        ("D", "winner", "n"),
        ("D", "loser", "n"),
        ("D", "alternate", "n"),
        ("E", "winner", "s"),
        ("E", "loser", "s"),
        ("E", "alternate", "s"),
    ],
)
def test_round_starter_of_the_next_round(case, round_starter, side):
    start, sowing, board = ROUND_ENDS[case]
    position = at(start, rounds=2, round_starter=round_starter).play(sowing)
    assert position.position_string() == f"{board} {side} 2 0"


def test_round_starter_winner_is_the_default():
    start, sowing, board = ROUND_ENDS["B"]
    assert at(start, rounds=2).play(sowing).position_string() == f"{board} n 2 0"


# --------------------------------------------------------------------------- notation


@pytest.mark.parametrize(
    ("start", "lenient", "canonical"),
    [
        (INITIAL, "3", "s3"),
        (INITIAL, "S3", "s3"),
        (INITIAL, " s 3 ", "s3"),
        ("6,6,6,6,6,6/6,6,6,6,6,6 0/0 n 1 0", "5", "n5"),
        ("6,6,6,6,6,6/6,6,6,6,6,6 0/0 n 1 0", "N5", "n5"),
    ],
)
def test_action_parser_bare_number_means_a_pit_of_the_side_to_act(start, lenient, canonical):
    position = at(start)
    assert position.play(lenient) == position.play(canonical)


def test_pit_of_the_other_side_cannot_be_sown():
    with pytest.raises(boardlab.IllegalActionError):
        game().initial().play("n3")


@pytest.mark.parametrize(
    ("text", "options"),
    [
        (INITIAL, {}),
        ("7,7,7,7,0,1/8,8,8,8,1,7 2/1 n 1 1", {}),
        ("0,0,0,0,0,0/0,0,0,0,0,0 14/20 n 1 31", {}),
        ("x,x,x,6,6,6/6,6,6,6,6,6 4/14 n 2 0", {"rounds": 2}),
        ("6,6,6,6,6,6/6,6,6,x,x,x 14/4 s 3 17", {"rounds": 3}),
        ("3,3,3,3/3,3,3,3 0/0 s 1 0", {}),
        ("12,0,1,0,0,0/0,0,0,0,0,0 30/29 s 1 499", {}),
    ],
)
def test_position_string_round_trips(text, options):
    assert at(text, **options).position_string() == text


def test_position_string_fields_are_read_back():
    position = at("x,x,x,6,6,6/6,6,6,6,6,6 4/14 n 2 7", rounds=2)
    assert position.to_act == 1
    assert position.player == "north"
    assert position.points == (4, 14)
    assert position.turns == 7


def test_perft_counts_sowings_not_turns():
    # s1 ends in South's store: South's five further sowings are actions of their own
    assert perft(game().initial(), 1) == 6
    assert perft(game().initial().play("s1"), 1) == 5


def test_perft_of_a_finished_round_is_zero():
    position = at("0,0,0,0,0,0/0,0,0,0,0,0 14/20 n 1 31")
    assert perft(position, 0) == 1
    assert perft(position, 1) == 0


def test_outcome_summary_names_winner_points_and_reason():
    position = at("1,0,0,0,0,3/0,0,0,0,0,0 10/20 s 1 30").play("s1")
    assert position.outcome().summary() == "winner=north points=14/20 reason=no_seeds"
