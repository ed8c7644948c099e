"""Every fact about a game lives in the game's own package: outside it, no file of the
library names a game (its id, or its class, module or name), so the tools serve any
registered game and a new game changes nothing outside its package."""

from __future__ import annotations

import re
from pathlib import Path

import boardlab

PACKAGE = Path(boardlab.__file__).parent
#: The one file outside the games' packages that must name them: it registers them.
REGISTRATION = PACKAGE / "games" / "__init__.py"


def game_words() -> dict[str, re.Pattern[str]]:
    """For each game: its id, its class name and its display name, as whole words."""
    words = {}
    for game_id in boardlab.game_ids():
        cls = boardlab.game_class(game_id)
        names = {game_id, cls.__name__, cls.name, *cls.name.split()[:1]}
        alternatives = "|".join(sorted(map(re.escape, names), key=len, reverse=True))
        words[game_id] = re.compile(rf"(?<![A-Za-z0-9])(?:{alternatives})(?![A-Za-z0-9])", re.I)
    return words


def own_files(game_id: str) -> set[Path]:
    """A game's package."""
    return set((PACKAGE / "games" / game_id).rglob("*.py"))


def test_no_file_outside_a_games_package_names_a_game() -> None:
    words = game_words()
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == REGISTRATION:
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        for game_id, pattern in words.items():
            if path in own_files(game_id):
                continue
            for number, line in enumerate(lines, 1):
                if pattern.search(line):
                    found.append(f"{path.relative_to(PACKAGE)}:{number}: {line.strip()}")
    assert found == [], "\n".join(found)


def test_the_check_finds_a_game_named_in_a_file() -> None:
    pattern = game_words()[boardlab.game_ids()[0]]
    cls = boardlab.game_class(boardlab.game_ids()[0])
    assert pattern.search(f'if game.id == "{cls.id}":')
    assert pattern.search(f"from boardlab.games.{cls.id}.rules import X")
    assert pattern.search(f"a docstring about {cls.name} rules")
    assert not pattern.search(f"{cls.id}x_and_more")
