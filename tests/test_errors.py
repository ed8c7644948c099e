"""Errors: bad options, malformed and impossible position strings, malformed and illegal
action strings, for each game.

Every error is a ``boardlab.BoardlabError`` (a ``ValueError``) of the right subclass, and its
message quotes the refused input and says what would have been valid.
"""

from __future__ import annotations

import pytest

import boardlab

INITIAL = {
    "jinli": "Y5Y/7/7/7/7/7/R5R r m 10/10 0/0 0 0",
    "linja": "6,1,1,1,1,1,1,0/0,1,1,1,1,1,1,6 b o 0 0",
    "galatjang": "6,6,6,6,6,6/6,6,6,6,6,6 0/0 s 1 0",
}


def message(excinfo: pytest.ExceptionInfo[BaseException]) -> str:
    error = excinfo.value
    assert isinstance(error, boardlab.BoardlabError)
    assert isinstance(error, ValueError)
    return str(error)


# --------------------------------------------------------------------------- games, options


def test_unknown_game_is_refused_and_the_games_are_listed():
    with pytest.raises(boardlab.UnknownGameError) as excinfo:
        boardlab.new_game("chess")
    text = message(excinfo)
    assert "'chess'" in text
    for game_id in ("jinli", "linja", "galatjang"):
        assert game_id in text


@pytest.mark.parametrize(
    ("game_id", "name", "known"),
    [
        ("jinli", "colour", ["start", "first", "target", "stones", "recycle", "no_move"]),
        ("linja", "variant", ["ruleset", "bonus_after_opening", "goal_step_back", "nasty"]),
        ("galatjang", "houses", ["pits", "seeds", "skip_origin", "refill", "round_starter"]),
        ("jinli", "Target", ["target"]),
    ],
)
def test_unknown_option_name_is_refused_and_the_options_are_listed(game_id, name, known):
    with pytest.raises(boardlab.OptionError) as excinfo:
        boardlab.new_game(game_id, **{name: 1})
    text = message(excinfo)
    assert repr(name) in text
    for option in known:
        assert option in text


@pytest.mark.parametrize(
    ("game_id", "name", "value", "valid"),
    [
        ("jinli", "start", "middle", "corners|inset"),
        ("jinli", "first", "blue", "red|yellow"),
        ("jinli", "no_move", "stay", "pass|lose"),
        ("jinli", "target", 0, "integer"),
        ("jinli", "max_turns", 0, "integer"),
        ("linja", "ruleset", "extra_turn", "bonus|extra-turn"),
        ("linja", "first", "white", "black|red"),
        ("linja", "scoring", "negative", "signed|positive"),
        ("linja", "max_turns", -1, "integer"),
        ("galatjang", "first", "east", "south|north"),
        ("galatjang", "lone_seed", "capture", "store|stay"),
        ("galatjang", "refill", "near_end", "store_end|far_end"),
        ("galatjang", "round_starter", "random", "winner|loser|alternate"),
        ("galatjang", "rounds", 0, "integer"),
        ("galatjang", "pits", 0, "integer"),
        ("galatjang", "seeds", 0, "integer"),
    ],
)
def test_bad_option_value_is_refused_with_the_allowed_values(game_id, name, value, valid):
    with pytest.raises(boardlab.OptionError) as excinfo:
        boardlab.new_game(game_id, **{name: value})
    text = message(excinfo)
    assert repr(str(value)) in text
    assert repr(name) in text
    assert valid in text


@pytest.mark.parametrize(
    ("game_id", "name", "value", "valid"),
    [
        ("jinli", "recycle", "maybe", "true|false"),
        ("jinli", "recycle", 1, "true|false"),
        ("jinli", "target", True, "integer"),
        ("jinli", "target", 10.5, "integer"),
        ("jinli", "stones", "many", "integer"),
        ("jinli", "start", 3, "corners|inset"),
        ("linja", "nasty", "sometimes", "true|false"),
        ("linja", "goal_step_back", None, "true|false"),
        ("linja", "first", 1, "black|red"),
        ("galatjang", "sow_opponent_store", "2", "true|false"),
        ("galatjang", "skip_origin", 0.0, "true|false"),
        ("galatjang", "pits", "six", "integer"),
        ("galatjang", "rounds", [2], "integer"),
    ],
)
def test_option_value_of_the_wrong_type_is_refused(game_id, name, value, valid):
    with pytest.raises(boardlab.OptionError) as excinfo:
        boardlab.new_game(game_id, **{name: value})
    text = message(excinfo)
    assert repr(str(value)) in text
    assert valid in text


@pytest.mark.parametrize("game_id", ["jinli", "linja", "galatjang"])
def test_options_given_as_a_mapping_are_checked_the_same_way(game_id):
    with pytest.raises(boardlab.OptionError):
        boardlab.new_game(game_id, {"no_such_option": "1"})


# --------------------------------------------------------------------------- position strings


MALFORMED_POSITIONS = [
    # (game, options, text, quoted part, what the message must name as valid)
    ("jinli", {}, "Y5Y/7/7/7/7/7/R5R r m 10/10 0/0 0", None, "BOARD SIDE PHASE"),
    ("jinli", {}, "Y5Y/7/7/7/7/R5R r m 10/10 0/0 0 0", "Y5Y/7/7/7/7/R5R", "7 ranks"),
    ("jinli", {}, "Y5Y/7/7/7/7/7/R5Q r m 10/10 0/0 0 0", "R5Q", "R, Y, o"),
    ("jinli", {}, "Y5Y/7/7/7/7/7/R6R r m 10/10 0/0 0 0", "R6R", "7"),
    ("jinli", {}, "Y5Y/7/7/7/7/7/R4R r m 10/10 0/0 0 0", "R4R", "7"),
    ("jinli", {}, "Y5Y/7/7/7/7/7/R5R b m 10/10 0/0 0 0", "b", "r, y"),
    ("jinli", {}, "Y5Y/7/7/7/7/7/R5R r x 10/10 0/0 0 0", "x", "m, d, g"),
    ("jinli", {}, "Y5Y/7/7/7/7/7/R5R r m 10 0/0 0 0", "10", "a/b"),
    ("jinli", {}, "Y5Y/7/7/7/7/7/R5R r m 10/10 0/-1 0 0", "-1", "integer"),
    ("jinli", {}, "Y5Y/7/7/7/7/7/R5R r m 10/10 0/0 one 0", "one", "integer"),
    ("linja", {}, "6,1,1,1,1,1,1,0/0,1,1,1,1,1,1,6 b o 0", None, "BLACK/RED SIDE PHASE"),
    ("linja", {}, "6,1,1,1,1,1,1/0,1,1,1,1,1,1,6 b o 0 0", "6,1,1,1,1,1,1/", "rows 0-7"),
    ("linja", {}, "6,1,1,1,1,1,1,a/0,1,1,1,1,1,1,6 b o 0 0", "a", "integer"),
    ("linja", {}, "6,1,1,1,1,1,1,0/0,1,1,1,1,1,1,6 w o 0 0", "w", "b, r"),
    ("linja", {}, "6,1,1,1,1,1,1,0/0,1,1,1,1,1,1,6 b f0 0 0", "f0", "fN"),
    ("linja", {}, "6,1,1,1,1,1,1,0/0,1,1,1,1,1,1,6 b x 0 0", "x", "o+"),
    ("galatjang", {}, "6,6,6,6,6,6/6,6,6,6,6,6 0/0 s 1", None, "SOUTH/NORTH STORES SIDE"),
    ("galatjang", {}, "6,6,6,6,6,6/6,6,6,6,6 0/0 s 1 0", "6,6,6,6,6,6/6,6,6,6,6", "same"),
    ("galatjang", {}, "6,6,6,6,6,y/6,6,6,6,6,6 0/0 s 1 0", "y", "integer"),
    ("galatjang", {}, "6,6,6,6,6,6/6,6,6,6,6,6 0-0 s 1 0", "0-0", "a/b"),
    ("galatjang", {}, "6,6,6,6,6,6/6,6,6,6,6,6 0/0 e 1 0", "e", "s, n"),
    ("galatjang", {}, "6,6,6,6,6,6/6,6,6,6,6,6 0/0 s 0 0", "0", "integer"),
    ("galatjang", {}, "6,6,6,6,6,6/6,6,6,6,6,6 0/0 s 2 0", "2", "integer from 1 to 1"),
]


@pytest.mark.parametrize(("game_id", "options", "text", "quoted", "valid"), MALFORMED_POSITIONS)
def test_malformed_position_string_is_refused(game_id, options, text, quoted, valid):
    game = boardlab.new_game(game_id, **options)
    with pytest.raises(boardlab.InvalidNotationError) as excinfo:
        game.from_position_string(text)
    found = message(excinfo)
    assert repr(text) in found
    if quoted is not None:
        assert repr(quoted) in found or quoted in found
    assert valid in found


IMPOSSIBLE_POSITIONS = [
    # a give is due but there is no stone to give
    ("jinli", {}, "Y5Y/7/7/7/7/7/R5R y g 0/10 0/0 0 1"),
    # a drop is due but no square is empty
    ("jinli", {}, "YoooooY/ooooooo/ooooooo/ooooooo/ooooooo/ooooooo/RoooooR r d 1/0 0/0 0 40"),
    # row 2 holds 1 black + 6 red: more than 6
    ("linja", {}, "6,1,1,1,1,1,1,0/0,1,6,1,1,1,1,1 b o 0 0"),
    # a bonus never happens inside an extra turn
    ("linja", {"ruleset": "extra-turn"}, "6,1,1,1,1,1,1,0/0,1,1,1,1,1,1,6 b b+ 0 0"),
    # an extra turn exists only under ruleset=extra-turn
    ("linja", {}, "6,1,1,1,1,1,1,0/0,1,1,1,1,1,1,6 b o+ 0 0"),
    ("linja", {}, "6,1,1,1,1,1,1,0/0,1,1,1,1,1,1,6 b f2+ 0 0"),
    # no bonus under ruleset=extra-turn
    ("linja", {"ruleset": "extra-turn"}, "6,1,1,1,1,1,1,0/0,1,1,1,1,1,1,6 b b 0 0"),
    # a follow-up nobody can make is forfeited, never due (rows 5 and 6 full)
    ("linja", {}, "0,6,0,0,0,0,0,6/0,0,0,0,0,6,6,0 b f5 0 10"),
    # round 1 of 2 is over: the string would show the start of round 2 instead
    ("galatjang", {"rounds": 2}, "0,0,0,0,0,0/0,0,0,0,0,0 36/36 s 1 10"),
]


@pytest.mark.parametrize(("game_id", "options", "text"), IMPOSSIBLE_POSITIONS)
def test_impossible_position_string_is_refused(game_id, options, text):
    game = boardlab.new_game(game_id, **options)
    with pytest.raises(boardlab.InvalidNotationError) as excinfo:
        game.from_position_string(text)
    assert repr(text) in message(excinfo)


@pytest.mark.parametrize(
    "text",
    [
        "RR5/7/7/7/7/7/R5R r m 10/10 0/0 0 0",  # four red koi, no yellow koi
        "Y6/7/7/7/7/7/R5R r m 10/10 0/0 0 0",  # one yellow koi
    ],
)
def test_jinli_position_without_two_koi_each_is_impossible(text):
    # the Jin Li card: "Each has 2 koi"; no rule adds or removes a koi
    with pytest.raises(boardlab.InvalidNotationError) as excinfo:
        boardlab.new_game("jinli").from_position_string(text)
    assert repr(text) in message(excinfo)


@pytest.mark.parametrize(
    "text",
    [
        "6,1,1,1,1,1,1,1/0,1,1,1,1,1,1,6 b o 0 0",  # 13 black pieces
        "6,1,1,1,1,1,1,0/0,1,1,1,1,1,1,5 b o 0 0",  # 11 red pieces
    ],
)
def test_linja_position_without_twelve_pieces_each_is_impossible(text):
    # the Linja card: 6 + 6 x 1 pieces each at the start; no rule removes a piece
    with pytest.raises(boardlab.InvalidNotationError) as excinfo:
        boardlab.new_game("linja").from_position_string(text)
    assert repr(text) in message(excinfo)


@pytest.mark.parametrize(
    ("game_id", "options", "text", "why"),
    [
        # 10 stones each by default: 11 in one supply, or 21 on the board and in supply
        ("jinli", {}, "Y5Y/7/7/7/7/7/R5R r m 11/9 0/0 0 0", "11 stones in supply, more than"),
        ("jinli", {}, "Y5Y/7/7/3o3/7/7/R5R r m 10/10 0/0 0 1", "more than the 20 of the game"),
        # blocked pits arise only when a later round cannot be filled
        ("galatjang", {"rounds": 2}, "6,6,6,6,6,x/6,6,6,6,6,6 0/6 s 1 0", "blocked (x) in round 1"),
        # 6 pits x 6 seeds x 2 = 72 seeds in the game
        ("galatjang", {}, "6,6,6,6,6,6/6,6,6,6,6,6 1/0 s 1 0", "73 seeds in pits and stores"),
        ("galatjang", {"seeds": 2}, "2,2,2/2,2,2 1/0 s 1 0", "13 seeds in pits and stores"),
        # a bonus is earned by entering the goal: black has no piece in row 7
        ("linja", {}, "6,1,1,1,1,1,1,0/0,1,1,1,1,1,1,6 b b 0 5", "no piece in the goal"),
        # TURNS 0 and a follow-up due, but no opening has been made
        ("linja", {}, "6,1,1,1,1,1,1,0/0,1,1,1,1,1,1,6 b f2 0 0", "first turn"),
        # an opening into the goal earns a bonus only with bonus_after_opening
        ("linja", {}, "6,1,1,1,1,1,0,1/0,1,1,1,1,1,1,6 b b 0 0", "first turn"),
        ("linja", {"ruleset": "extra-turn"}, "6,1,1,1,1,1,1,0/0,1,1,1,1,1,1,6 b o+ 0 0", "first"),
    ],
)
def test_a_position_no_game_can_reach_is_refused_with_the_reason(game_id, options, text, why):
    with pytest.raises(boardlab.InvalidNotationError) as excinfo:
        boardlab.new_game(game_id, **options).from_position_string(text)
    assert repr(text) in message(excinfo) and why in message(excinfo)


@pytest.mark.parametrize(
    ("game_id", "options", "text"),
    [
        # fewer pieces than the game has is a study, not an impossibility
        ("jinli", {}, "Y5Y/7/7/3o3/7/7/R5R r m 3/2 0/0 0 1"),
        ("galatjang", {}, "0,0,3,0,0,0/0,1,0,0,0,0 0/0 s 1 30"),
        # a blocked pit in a later round; the first turn's own steps
        ("galatjang", {"rounds": 2}, "6,6,6,6,6,x/6,6,6,6,6,6 0/6 s 2 0"),
        ("linja", {}, "5,2,1,1,1,1,1,0/0,1,1,1,1,1,1,6 b f2 0 0"),
        ("linja", {"bonus_after_opening": True}, "6,1,1,1,1,1,0,1/0,1,1,1,1,1,1,6 b b 0 0"),
        ("linja", {"first": "red"}, "6,1,1,1,1,1,1,0/0,1,1,1,1,1,2,5 r f2 0 0"),
    ],
)
def test_a_position_a_game_or_a_study_can_reach_is_accepted(game_id, options, text):
    position = boardlab.new_game(game_id, **options).from_position_string(text)
    assert position.position_string() == text


def test_every_step_of_the_first_turn_is_a_position_string_that_reads_back() -> None:
    for options in ({}, {"bonus_after_opening": True}, {"ruleset": "extra-turn", "first": "red"}):
        game = boardlab.new_game("linja", **options)
        todo, seen = [game.initial()], 0
        while todo:
            position = todo.pop()
            if position.state.turns == 0:
                text = position.position_string()
                assert game.from_position_string(text).position_string() == text
                seen += 1
                todo.extend(position.play(a) for a in position.legal_action_strings())
        assert seen > 5


def test_finished_single_round_is_a_possible_galatjang_position():
    # the same swept board is fine when it is the end of the match
    game = boardlab.new_game("galatjang")
    assert game.from_position_string("0,0,0,0,0,0/0,0,0,0,0,0 36/36 s 1 10").is_over()


# --------------------------------------------------------------------------- action strings


MALFORMED_ACTIONS = [
    ("jinli", ["a1b2", "a1-h1", "a1-b2-c3", "@h8", "x", "", "swim", "a0-a1", "e5x"]),
    ("linja", ["0-8", "01", "a-b", "o", "pass!", "x1-2", "0--1", "8-7"]),
    ("galatjang", ["s", "sx", "x3", "3s", "", "s-1", "pass"]),
]


@pytest.mark.parametrize(
    ("game_id", "text"),
    [(game_id, text) for game_id, texts in MALFORMED_ACTIONS for text in texts],
)
def test_malformed_action_string_is_refused_with_the_forms_expected(game_id, text):
    position = boardlab.new_game(game_id).from_position_string(INITIAL[game_id])
    with pytest.raises(boardlab.InvalidNotationError) as excinfo:
        position.play(text)
    found = message(excinfo)
    assert repr(text) in found
    assert "expected" in found
    assert INITIAL[game_id] in found


ILLEGAL_ACTIONS = [
    # (game, options, position, action, legal actions the message must list)
    ("jinli", {}, INITIAL["jinli"], "a1-a3", ["a1-a2", "a1-b1", "a1-b2", "g1-f1"]),
    ("jinli", {}, INITIAL["jinli"], "a1-c3", ["a1-a2"]),  # a jump needs a stone
    ("jinli", {}, INITIAL["jinli"], "a7-a6", ["a1-a2"]),  # not red's koi
    ("jinli", {}, INITIAL["jinli"], "@d4", ["a1-a2"]),  # no drop is due
    ("jinli", {}, INITIAL["jinli"], "xe5", ["a1-a2"]),  # no give is due
    ("jinli", {}, INITIAL["jinli"], "pass", ["a1-a2"]),  # a move exists
    ("jinli", {}, "Y5Y/7/7/7/7/1R5/6R r d 10/10 0/0 0 0", "@b2", ["@a1", "@d4"]),
    ("linja", {}, INITIAL["linja"], "0-2", ["0-1", "6-7"]),
    ("linja", {}, INITIAL["linja"], "7-6", ["0-1"]),  # red's piece
    ("linja", {}, INITIAL["linja"], "1-0", ["0-1"]),  # backward outside a bonus
    ("linja", {}, INITIAL["linja"], "pass", ["0-1"]),
    ("linja", {}, INITIAL["linja"], "o1-2", ["0-1"]),  # a nasty move outside a bonus
    ("linja", {}, "5,2,1,1,1,1,1,0/0,1,1,1,1,1,1,6 b f2 0 0", "0-1", ["0-2", "1-3"]),
    ("galatjang", {}, "0,7,7,7,7,7/6,6,6,6,6,6 1/0 s 1 0", "s1", ["s2", "s6"]),  # empty
    ("galatjang", {"rounds": 2}, "x,6,6,6,6,6/6,6,6,6,6,6 0/0 s 2 0", "s1", ["s2"]),
]


@pytest.mark.parametrize(("game_id", "options", "start", "text", "legal"), ILLEGAL_ACTIONS)
def test_illegal_action_is_refused_and_the_legal_actions_are_listed(
    game_id, options, start, text, legal
):
    position = boardlab.new_game(game_id, **options).from_position_string(start)
    with pytest.raises(boardlab.IllegalActionError) as excinfo:
        position.play(text)
    found = message(excinfo)
    assert repr(text) in found
    assert start in found
    for action in legal:
        assert action in found


@pytest.mark.parametrize(
    ("game_id", "text", "valid"),
    [
        ("jinli", "a1-d4", "jumps two"),  # a koi never moves three squares
        ("galatjang", "n3", "s1-s6"),  # South is to act
        ("galatjang", "s7", "s1-s6"),  # there are six pits
        ("galatjang", "0", "s1-s6"),
    ],
)
def test_action_that_cannot_exist_here_is_illegal_and_says_what_is_valid(game_id, text, valid):
    position = boardlab.new_game(game_id).from_position_string(INITIAL[game_id])
    with pytest.raises(boardlab.IllegalActionError) as excinfo:
        position.play(text)
    found = message(excinfo)
    assert repr(text) in found
    assert valid in found


@pytest.mark.parametrize(
    ("game_id", "start", "text"),
    [
        ("jinli", "Y6/7/4Y2/3R3/2R4/7/7 y m 10/10 10/0 0 6", "e5-e4"),
        ("linja", "0,0,0,0,0,0,0,12/12,0,0,0,0,0,0,0 b o 0 30", "pass"),
        ("galatjang", "0,0,0,0,0,0/0,0,0,0,0,0 14/20 n 1 31", "n1"),
    ],
)
def test_any_action_in_a_finished_game_is_illegal(game_id, start, text):
    position = boardlab.new_game(game_id).from_position_string(start)
    assert position.is_over()
    with pytest.raises(boardlab.IllegalActionError) as excinfo:
        position.play(text)
    found = message(excinfo)
    assert repr(text) in found
    assert "over" in found


@pytest.mark.parametrize("game_id", ["jinli", "linja", "galatjang"])
def test_illegal_action_code_is_refused(game_id):
    position = boardlab.new_game(game_id).initial()
    with pytest.raises(boardlab.IllegalActionError):
        position.play(-1)


@pytest.mark.parametrize(
    ("text", "options", "why"),
    [
        ("Y5Y/7/7/7/7/1R5/6R r d 0/10 0/0 0 0", {}, "a drop is due but red has no stone"),
        ("Y5Y/7/4o2/3o3/7/1R5/6R y g 0/10 0/0 0 10", {}, "a give is due only with recycle"),
        ("Y5Y/7/4o2/3o3/7/1R5/6R y g 3/10 0/0 0 10", {"recycle": True}, "a give is due only"),
        ("Y5Y/7/7/7/7/7/R5R r m 10/10 0/0 3 0", {}, "PASSES"),
        ("Y5Y/7/7/7/7/7/R5R r m 10/10 0/0 0 99999999999", {}, "TURNS"),
    ],
)
def test_jinli_position_with_an_impossible_phase_or_count_is_refused(text, options, why):
    with pytest.raises(boardlab.InvalidNotationError, match=why):
        boardlab.new_game("jinli", **options).from_position_string(text)


@pytest.mark.parametrize(
    ("game_id", "text"),
    [
        ("jinli", "Y5Y/7/7/7/7/7/R5R r m 10/10 0/0 1 0"),
        ("linja", "6,1,1,1,1,1,1,0/0,1,1,1,1,1,1,6 b o 2 1"),
    ],
)
def test_more_passes_than_turns_cannot_arise(game_id: str, text: str) -> None:
    with pytest.raises(boardlab.InvalidNotationError, match="passes in a row but only"):
        boardlab.new_game(game_id).from_position_string(text)
