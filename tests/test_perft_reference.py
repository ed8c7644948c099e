"""The perft tables (tests/data/perft/*.perft) are written by the engine; each case's
note says to which depth the reference implementation (tests/reference, written apart
from the engine) agrees. Here the reference counts every case to its noted depth, so a
table can pin no count the reference disputes. Depths deeper than the notes are the
engine's own (tests/test_perft.py keeps the engine to them)."""

from __future__ import annotations

import re
from types import ModuleType
from typing import Any

import pytest

import boardlab
from reference import galatjang, jinli, linja
from support import PERFT_DATA, perft_cases

REFERENCES: dict[str, ModuleType] = {"jinli": jinli, "linja": linja, "galatjang": galatjang}
NOTE = re.compile(r"^# the reference implementation agrees to depth (\d+)$", re.MULTILINE)


def noted_cases() -> list[Any]:
    """(game, case name, options, position, depth -> count, noted depth) of every case;
    a case without exactly one note fails here."""
    cases = []
    for game_id in REFERENCES:
        text = (PERFT_DATA / f"{game_id}.perft").read_text()
        blocks = [b for b in text.split("\n\n") if re.search(r"^perft ", b, re.MULTILINE)]
        table = perft_cases(game_id)
        assert len(blocks) == len(table), game_id
        for block, (name, options, position, counts) in zip(blocks, table, strict=True):
            notes = [int(depth) for depth in NOTE.findall(block)]
            assert len(notes) == 1, f"{name}: {len(notes)} notes of the reference's depth"
            cases.append(pytest.param(game_id, options, position, counts, notes[0], id=name))
    return cases


def reference_counts(ref: ModuleType, options: dict[str, Any], text: str, depth: int) -> list[int]:
    """The number of action sequences of each length 1..``depth`` from the position
    ``text``, by the reference's ``legal`` and ``play`` alone; counted once for each
    position and depth (the position string is all the reference reads)."""
    memo: dict[tuple[str, int], list[int]] = {}

    def counts(text: str, depth: int) -> list[int]:
        if (text, depth) not in memo:
            legal = ref.legal(options, text)
            total = [len(legal)] + [0] * (depth - 1)
            if depth > 1:
                for action in legal:
                    for i, n in enumerate(counts(ref.play(options, text, action), depth - 1)):
                        total[i + 1] += n
            memo[text, depth] = total
        return memo[text, depth]

    return counts(text, depth)


@pytest.mark.parametrize(("game_id", "options", "position", "counts", "noted"), noted_cases())
def test_the_reference_agrees_to_the_noted_depth(
    game_id: str, options: dict[str, str], position: str, counts: dict[int, int], noted: int
) -> None:
    assert 1 <= noted <= max(counts)
    assignments = [f"{name}={value}" for name, value in options.items()]
    typed = boardlab.game_class(game_id).schema.parse_assignments(assignments)
    theirs = reference_counts(REFERENCES[game_id], typed, position, noted)
    assert theirs == [counts[depth] for depth in range(1, noted + 1)]
