"""The lessons of every game: each is written in both languages, plays legally from its
position through every accepted action, produces the narration it claims, and together
they teach every rule the game lists."""

from __future__ import annotations

from typing import Any

import pytest

import boardlab
from boardlab.core.game import Position
from boardlab.lessons import Lesson, Step, lessons, rules_taught

LANGUAGES = ("en", "de")
GAMES = boardlab.game_ids()


def all_lessons() -> list[tuple[str, Lesson]]:
    return [(game_id, one) for game_id in GAMES for one in lessons(game_id)]


@pytest.mark.parametrize("game_id", GAMES)
def test_every_game_has_six_to_ten_lessons_teaching_every_rule(game_id: str) -> None:
    found = lessons(game_id)
    assert 6 <= len(found) <= 10, [k.id for k in found]
    assert len({k.id for k in found}) == len(found)
    rules = set(rules_taught(game_id))
    assert len(rules) >= 4, rules
    taught = {topic for k in found for topic in k.teaches}
    assert rules <= taught, rules - taught
    assert taught <= rules | {"goal", "other"}, taught - rules


@pytest.mark.parametrize(("game_id", "lesson"), all_lessons(), ids=lambda x: getattr(x, "id", x))
def test_a_lesson_is_written_in_both_languages(game_id: str, lesson: Lesson) -> None:
    texts: list[dict[str, str]] = [lesson.title]
    for step in lesson.steps:
        texts += [step.ask, step.explain] + ([step.wrong] if step.wrong else [])
    if lesson.intro:
        texts.append(lesson.intro)
    for text in texts:
        assert set(text) == set(LANGUAGES), text
        assert all(value.strip() for value in text.values()), text


@pytest.mark.parametrize(("game_id", "lesson"), all_lessons(), ids=lambda x: getattr(x, "id", x))
def test_a_lesson_plays_legally_through_every_accepted_action(game_id: str, lesson: Lesson) -> None:
    walk(lesson.start(game_id), lesson.steps)


def walk(position: Position[Any], steps: tuple[Step, ...]) -> None:
    """Every step from ``position``: its actions legal, its narration as claimed, and the
    steps after it playable whichever accepted action was played."""
    if not steps:
        return
    step, rest = steps[0], steps[1:]
    text = position.position_string()
    assert not position.is_over(), text
    # a page holds the position as its string, and the server reads it back
    assert position.game.from_position_string(text) == position, text
    legal = position.legal_action_strings()
    accepted = step.accept or tuple(legal)
    for text in accepted:
        action = position.parse_action(text)  # raises for a malformed or illegal action
        assert position.action_string(action) == text, (text, legal)
        kinds = {note.kind for note in position.game.narrate(position.state, action)}
        assert set(step.shows) <= kinds, (text, step.shows, kinds)
        after = position.play(action)
        for reply in step.reply:
            after = after.play(reply)
        shown = after.position_string()
        assert after.game.from_position_string(shown) == after, shown
        walk(after, rest)
    if step.accept and len(accepted) < len(legal):
        assert step.wrong, f"a step accepting {accepted} must say why other actions are not asked"
