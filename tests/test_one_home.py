"""Every fact about a game lives in the game's own package: outside it, no file of the
library names a game (its id, or its class, module or name), so the tools serve any
registered game and a new game changes nothing outside its package. The code is read,
and so are the pages' templates, scripts and styles: a page that names the games in a
sentence, or a script with a special case for one, is a fact outside its home too."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import boardlab

PACKAGE = Path(boardlab.__file__).parent
#: The one file outside the games' packages that must name them: it registers them.
REGISTRATION = PACKAGE / "games" / "__init__.py"
#: The kinds of file read: code, templates, scripts and styles.
READ = (".py", ".html", ".js", ".css")


def game_words() -> dict[str, re.Pattern[str]]:
    """For each game: its id, its class name and its display name, as whole words."""
    words = {}
    for game_id in boardlab.game_ids():
        cls = boardlab.game_class(game_id)
        names = {game_id, cls.__name__, cls.name, *cls.name.split()[:1]}
        alternatives = "|".join(sorted(map(re.escape, names), key=len, reverse=True))
        words[game_id] = re.compile(rf"(?<![A-Za-z0-9])(?:{alternatives})(?![A-Za-z0-9])", re.I)
    return words


def files_read(folder: Path) -> list[Path]:
    """Every file below ``folder`` of a kind read (``READ``)."""
    return sorted(path for path in folder.rglob("*") if path.suffix in READ)


@cache
def own_files(game_id: str) -> frozenset[Path]:
    """A game's package."""
    return frozenset(files_read(PACKAGE / "games" / game_id))


def names_in(path: Path, words: dict[str, re.Pattern[str]], root: Path = PACKAGE) -> list[str]:
    """The lines of ``path`` that name a game whose package it is not in."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found = []
    for game_id, pattern in words.items():
        if path in own_files(game_id):
            continue
        for number, line in enumerate(lines, 1):
            if pattern.search(line):
                found.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
    return found


def test_no_file_outside_a_games_package_names_a_game() -> None:
    words = game_words()
    found = []
    for path in files_read(PACKAGE):
        if path != REGISTRATION:
            found.extend(names_in(path, words))
    assert found == [], "\n".join(found)


def test_the_check_finds_a_game_named_in_a_file(tmp_path: Path) -> None:
    pattern = game_words()[boardlab.game_ids()[0]]
    cls = boardlab.game_class(boardlab.game_ids()[0])
    assert pattern.search(f'if game.id == "{cls.id}":')
    assert pattern.search(f"from boardlab.games.{cls.id}.rules import X")
    assert pattern.search(f"a docstring about {cls.name} rules")
    assert not pattern.search(f"{cls.id}x_and_more")
    # a page's sentence, a script's special case and a style, each in its own kind of file
    named = {
        "page.html": f'<p>{{{{ _("Play {cls.name} against an AI") }}}}</p>',
        "board.js": f'if (view.game === "{cls.id}") drawPits();',
        "app.css": f".board.{cls.id} .pit {{ fill: brown }}",
    }
    for name, line in named.items():
        (tmp_path / name).write_text(f"/* before */\n{line}\n", encoding="utf-8")
    found = [hit for path in files_read(tmp_path) for hit in names_in(path, game_words(), tmp_path)]
    assert sorted(found) == sorted(f"{name}:2: {line}" for name, line in named.items())


def test_the_pages_templates_scripts_and_styles_are_read() -> None:
    read = {path.relative_to(PACKAGE).as_posix() for path in files_read(PACKAGE)}
    assert {"web/templates/base.html", "web/static/board.js", "web/static/app.css"} <= read
    assert "ui/svg.py" in read
