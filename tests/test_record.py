"""Game records: play and undo, headers, the text format's strict writer and tolerant
reader, JSON, and saving that never leaves a half-written file."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import boardlab
from boardlab.core.record import GameRecord, RecordError

OPENING = ["a1-b2", "@d4", "g7-f6", "@c3"]


def jinli_record() -> GameRecord:
    record = GameRecord(boardlab.new_game("jinli", stones=6), headers={"Date": "2026.11.21"})
    record.headers["Red"] = "Ann"
    record.play_all(OPENING)
    return record


def test_play_appends_actions_and_positions() -> None:
    record = jinli_record()
    assert len(record) == 4
    assert record.action_strings() == OPENING
    assert record.position.position_string() == "Y6/5Y1/7/3o3/2o4/1R5/6R r m 5/5 0/0 0 2"
    assert record.positions[0] == record.game.initial()


def test_play_refuses_illegal_actions_and_keeps_the_record() -> None:
    record = jinli_record()
    with pytest.raises(boardlab.IllegalActionError, match="'a1-a3'"):
        record.play("a1-a3")
    with pytest.raises(boardlab.InvalidNotationError, match="'zz'"):
        record.play("zz")
    assert len(record) == 4 and record.action_strings() == OPENING


def test_undo_goes_back_to_any_earlier_point() -> None:
    record = jinli_record()
    record.comments[3] = "a quiet move"
    record.undo()
    assert record.action_strings() == OPENING[:3] and 3 in record.comments
    record.undo_to(1)
    assert record.action_strings() == OPENING[:1] and record.comments == {}
    assert record.position == record.game.initial().play("a1-b2")
    record.undo_to(0)
    assert record.position == record.game.initial()
    with pytest.raises(boardlab.BoardlabError, match="cannot undo 1"):
        record.undo()


def test_turns_group_consecutive_actions_of_one_player() -> None:
    turns = list(jinli_record().turns())
    assert [(t.number, t.player, t.actions) for t in turns] == [
        (1, 0, ("a1-b2", "@d4")),
        (2, 1, ("g7-f6", "@c3")),
    ]


def test_writer_puts_tags_then_numbered_turns() -> None:
    record = jinli_record()
    record.comments[2] = "central stone"
    assert record.to_text() == (
        '[Game "jinli"]\n[Options "stones=6"]\n[Red "Ann"]\n[Yellow "?"]\n'
        '[Date "2026.11.21"]\n[Result "*"]\n\n'
        "1. a1-b2 @d4 {central stone} 2. g7-f6 @c3 *\n"
    )


def test_reader_tolerates_case_missing_numbers_comments_and_spacing() -> None:
    text = (
        '[game "JINLI"]\n[options "stones=6"]\n; a line comment\n\n'
        "1.A1 - B2 @ d4 {why not}\n g7-f6\n@C3 *"
    )
    record = GameRecord.from_text(text)
    assert record.action_strings() == OPENING
    assert record.comments == {0: "a line comment", 2: "why not"}
    assert record.game == boardlab.new_game("jinli", stones=6)


def test_reader_takes_a_bare_list_of_actions() -> None:
    record = GameRecord.from_text("s1 s2\nn6", game="galatjang")
    assert record.action_strings() == ["s1", "s2", "n6"]


def test_reader_reports_line_and_token_of_an_illegal_action() -> None:
    text = '[Game "linja"]\n\n1. 0-1 1-3\n2. 7-3 *\n'
    with pytest.raises(RecordError) as caught:
        GameRecord.from_text(text)
    assert caught.value.line == 4 and caught.value.token == "7-3" and caught.value.index == 3
    assert "line 4, action 3 '7-3': illegal action" in str(caught.value)


def test_reader_reports_malformed_tags_and_results() -> None:
    with pytest.raises(RecordError, match="line 1, '\\[Game jinli\\]': malformed tag"):
        GameRecord.from_text("[Game jinli]\n1. a1-b2")
    with pytest.raises(RecordError, match="claims the result 'red'"):
        GameRecord.from_text('[Game "jinli"]\n1. a1-b2 @d4 red')
    with pytest.raises(RecordError, match="no Game tag"):
        GameRecord.from_text("1. a1-b2")
    with pytest.raises(RecordError, match="a game of 'linja', not 'jinli'"):
        GameRecord.from_text('[Game "linja"]', game="jinli")


def test_reader_applies_a_start_position_and_option_overrides() -> None:
    text = '[Game "galatjang"]\n[Position "0,0,1/1,0,0 8/8 s 1 3"]\n1. s3 *'
    record = GameRecord.from_text(text, options={"lone_seed": "stay"})
    assert record.start.position_string() == "0,0,1/1,0,0 8/8 s 1 3"
    assert record.game.options["lone_seed"] == "stay"
    assert "[Position " in record.to_text()


def test_finished_game_records_result_points_and_reason() -> None:
    game = boardlab.new_game("jinli", stones=0, no_move="lose", max_turns=3)
    record = GameRecord(game)
    record.play_all(["a1-a2", "a7-a6", "a2-a3"])
    text = record.to_text()
    assert '[Result "draw"]\n[Points "0/0"]\n[Reason "turn_cap"]' in text
    assert text.rstrip().endswith("3. a2-a3 draw")
    assert GameRecord.from_text(text).result() == "draw"


def test_json_round_trip_and_validation() -> None:
    record = jinli_record()
    data = json.loads(record.to_json())
    assert data["format"] == "boardlab-record" and data["actions"] == OPENING
    copy = GameRecord.from_json(record.to_json())
    assert copy.positions == record.positions and copy.headers["Red"] == "Ann"
    data["actions"][2] = "g7-g5"
    with pytest.raises(RecordError, match="action 3 'g7-g5'"):
        GameRecord.from_dict(data)
    with pytest.raises(RecordError, match="malformed JSON"):
        GameRecord.from_json("{not json")
    with pytest.raises(RecordError, match="not a boardlab JSON record"):
        GameRecord.from_json('{"format": "pgn"}')


def test_save_and_load_in_both_formats(tmp_path: Path) -> None:
    record = jinli_record()
    for name in ("game.txt", "game.json"):
        path = record.save(tmp_path / name)
        assert GameRecord.load(path).positions == record.positions
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.json", "game.txt"]


def test_save_failure_keeps_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "game.txt"
    jinli_record().save(path)
    before = path.read_text()
    record = jinli_record()
    record.play("a2-a3") if record.position.is_legal(0) else None

    def explode(self: GameRecord) -> str:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(GameRecord, "to_text", explode)
    with pytest.raises(RuntimeError):
        record.save(path)
    assert path.read_text() == before
    assert [p.name for p in tmp_path.iterdir()] == ["game.txt"]


def test_resignation_ends_the_game_and_survives_both_formats() -> None:
    record = jinli_record()
    record.resign()
    assert record.is_over() and record.result() == "yellow"
    outcome = record.outcome()
    assert outcome is not None and outcome.reason == "resign"
    with pytest.raises(boardlab.BoardlabError, match="red resigned"):
        record.play("a1-a2")
    assert '[Reason "resign"]' in record.to_text()
    for copy in (GameRecord.from_text(record.to_text()), GameRecord.from_json(record.to_json())):
        assert copy.resigned == 0 and copy.result() == "yellow"
    record.undo()
    assert record.resigned is None and not record.is_over()


def test_last_turn_is_the_last_run_of_one_players_actions() -> None:
    record = jinli_record()
    assert [(p.to_act, p.action_string(a)) for p, a in record.last_turn()] == [
        (1, "g7-f6"),
        (1, "@c3"),
    ]
    record.undo()
    assert [p.action_string(a) for p, a in record.last_turn()] == ["g7-f6"]
    record.undo_to(0)
    assert record.last_turn() == []


TAG_NAMES = st.from_regex(r"[A-Z][a-z]{1,8}", fullmatch=True).filter(
    lambda name: name not in ("Game", "Options", "Position", "Result", "Points", "Reason", "Fen")
)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(TAG_NAMES, st.text(max_size=40), max_size=4),
    st.dictionaries(st.integers(0, 3), st.text(min_size=1, max_size=40), max_size=4),
)
def test_every_header_value_and_comment_written_reads_back(
    headers: dict[str, str], comments: dict[int, str]
) -> None:
    """Any Unicode (brackets, quotes, backslashes, line breaks, controls, spaces at the
    ends) survives the text format and JSON exactly: a saved game is never lost."""
    record = GameRecord(boardlab.new_game("linja"), headers=headers)
    record.play_all(["0-1", "1-3", "7-6"])
    wanted = {ply: note for ply, note in comments.items() if note.strip()}
    record.comments.update(wanted)
    for back in (GameRecord.from_text(record.to_text()), GameRecord.from_json(record.to_json())):
        assert {k: back.headers[k] for k in headers} == headers
        assert dict(back.comments) == wanted
        assert back.action_strings() == record.action_strings()


def test_a_header_value_with_brackets_is_saved_and_loaded(tmp_path: Path) -> None:
    record = GameRecord(boardlab.new_game("jinli"), headers={"Event": "Club [B] night"})
    record.play("a1-b2")
    loaded = GameRecord.load(record.save(tmp_path / "g.txt"))
    assert loaded.headers["Event"] == "Club [B] night" and loaded.action_strings() == ["a1-b2"]


def test_a_header_name_that_cannot_be_written_is_refused_before_saving(tmp_path: Path) -> None:
    record = GameRecord(boardlab.new_game("jinli"), headers={"my tag": "x"})
    with pytest.raises(RecordError, match="header name 'my tag' cannot be written"):
        record.save(tmp_path / "g.txt")
    assert not (tmp_path / "g.txt").exists()


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (bytes(range(256)) * 4, "is not UTF-8 text (byte 0x80 at offset 128)"),
        (b"[" * 200_000, "malformed tag"),
        (b"{" + b'"a":{' * 100_000 + b"}" * 100_001, "nested too deeply"),
        (b'{"format": "boardlab-record", "version": 1, "game": 3}', '"game" must be a game id'),
        (
            b'{"format": "boardlab-record", "version": 1, "game": "linja", "actions": "0-1"}',
            '"actions" must be a list of action strings',
        ),
        (
            b'{"format": "boardlab-record", "version": 1, "game": "linja", '
            + b'"options": {"max_turns": '
            + b"9" * 5000
            + b"}}",
            "Exceeds the limit",
        ),
        (
            b'{"format": "boardlab-record", "version": 1, "game": "linja", "comments": {"x": 1}}',
            "comment 'x' is not a string",
        ),
    ],
)
def test_a_file_that_is_not_a_record_says_so_in_one_line(
    content: bytes, said: str, tmp_path: Path
) -> None:
    path = tmp_path / "bad.txt"
    path.write_bytes(content)
    with pytest.raises(RecordError, match=re.escape(said)) as refused:
        GameRecord.load(path)
    assert len(str(refused.value)) < 300


def test_reading_stops_at_a_size_limit(tmp_path: Path) -> None:
    from boardlab.core.record import MAX_RECORD_BYTES

    path = tmp_path / "huge.txt"
    path.write_bytes(b"0-1 " * (MAX_RECORD_BYTES // 4 + 1))
    with pytest.raises(RecordError, match="larger than 16 MB"):
        GameRecord.load(path)


def test_a_json_record_is_checked_against_the_game_named() -> None:
    record = GameRecord(boardlab.new_game("jinli"))
    record.play("a1-b2")
    with pytest.raises(RecordError, match="the record is a game of 'jinli', not 'linja'"):
        GameRecord.read(record.to_json(), game="linja")
    assert GameRecord.read(record.to_json(), game="jinli").action_strings() == ["a1-b2"]


def test_more_actions_than_a_game_can_have_are_refused_before_playing() -> None:
    game = boardlab.new_game("jinli", max_turns=1)
    with pytest.raises(RecordError, match="more than a game of jinli"):
        GameRecord.read("a1-b2 @d4 " * 10, game=game)


def test_saving_follows_a_link_and_keeps_the_umask(tmp_path: Path) -> None:
    import os

    record = GameRecord(boardlab.new_game("linja"))
    record.play("0-1")
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    record.save(link)
    assert link.is_symlink() and GameRecord.load(real).action_strings() == ["0-1"]
    old = os.umask(0o027)
    try:
        made = record.save(tmp_path / "new.txt")
    finally:
        os.umask(old)
    assert made.stat().st_mode & 0o777 == 0o640
    (tmp_path / "file").write_text("x")
    with pytest.raises(NotADirectoryError, match="a part of the path is a file"):
        record.save(tmp_path / "file" / "g.txt")


@pytest.mark.parametrize("game_id", boardlab.game_ids())
def test_a_loss_on_time_and_a_draw_agreed_survive_both_formats(game_id: str) -> None:
    """Online play ends games two more ways than the rules: a clock that runs out (the
    player loses, reason ``time``) and a draw both agree to (reason ``agreement``)."""
    game = boardlab.new_game(game_id)
    for end in ("time", "agreement"):
        record = GameRecord(game)
        record.play(record.position.legal_actions()[0])
        if end == "time":
            record.resign(record.position.to_act, "time")
            expected = (1 - record.position.to_act, "time")
        else:
            record.agree_draw()
            expected = (None, "agreement")
        for copy in (GameRecord.read(record.to_text()), GameRecord.from_json(record.to_json())):
            outcome = copy.outcome()
            assert outcome is not None and (outcome.winner, outcome.reason) == expected
            assert copy.is_over() and len(copy) == 1
            with pytest.raises(boardlab.BoardlabError, match="over"):
                copy.play(copy.position.legal_actions()[0])
        record.undo(0)
        assert not record.is_over() and record.outcome() is None
    finished = GameRecord(game)
    finished.agree_draw()
    with pytest.raises(boardlab.BoardlabError, match="already over"):
        finished.agree_draw()


def test_a_copy_goes_on_alone() -> None:
    """The web app keeps records and hands out copies: playing, undoing or resigning in
    a copy leaves the record it came from as it was."""
    record = GameRecord(boardlab.new_game("jinli"), headers={"Event": "x"})
    record.play("a1-b2")
    before = (record.action_strings(), record.position.position_string(), dict(record.headers))
    twin = record.copy()
    twin.play("@d4")
    twin.headers["Event"] = "y"
    twin.resign(1)
    assert (
        record.action_strings(),
        record.position.position_string(),
        dict(record.headers),
    ) == before
    assert record.resigned is None and twin.resigned == 1
    assert twin.copy().to_text() == twin.to_text()


@pytest.mark.parametrize("game_id", boardlab.game_ids())
def test_a_record_resumed_from_a_snapshot_is_the_record_replayed(game_id: str) -> None:
    """A record resumed from the position where its last turn began (and the first ply
    of each turn) answers as the record played from the start: its position, turns,
    last turn, undo points, strings, copies, and its positions once asked for."""
    import random

    game = boardlab.new_game(game_id)
    for seed in range(6):
        rng = random.Random(seed)
        played = GameRecord(game)
        while not played.is_over() and len(played) < 150:
            played.play(rng.choice(played.position.legal_actions()))
            turns = [turn.first_ply for turn in played.turns()]
            snapshot = game.from_position_string(played.positions[turns[-1]].position_string())
            resumed = GameRecord.resumed(
                game, game.initial(), played.action_strings(), turns, snapshot
            )
            assert len(resumed) == len(played) and resumed.position == played.position
            assert list(resumed.turns()) == list(played.turns())
            assert resumed.last_turn() == played.last_turn()
            assert resumed.action_strings() == played.action_strings()
            human = resumed.turn_start(lambda player: player == 1)
            assert human == played.turn_start(lambda player: player == 1)
            twin = resumed.copy()
            twin.undo_to(len(twin) // 2)
            assert twin.positions == played.positions[: len(twin) + 1]
            assert resumed.positions == played.positions
            assert resumed.actions == played.actions


def test_a_snapshot_that_does_not_fit_the_actions_is_refused() -> None:
    game = boardlab.new_game("linja")
    played = GameRecord(game)
    for _ in range(6):
        played.play(played.position.legal_actions()[0])
    turns = [turn.first_ply for turn in played.turns()]
    texts = played.action_strings()
    right = played.positions[turns[-1]]
    wrong = played.positions[turns[-1] - 1]
    for bad in ((texts, turns, wrong), (texts, [1, *turns[1:]], right), (texts[:-3], turns, right)):
        with pytest.raises(boardlab.BoardlabError):
            GameRecord.resumed(game, game.initial(), *bad).positions  # noqa: B018
