"""The message catalogue's upkeep, with Babel: find every marked message in the code,
the page templates and the page scripts, merge them into each translation, compile, and
check that nothing is missing.

    python -m boardlab.messages update   # after changing messages (``make messages``)
    python -m boardlab.messages check    # what the tests assert: every message translated

A translation must keep the message's placeholders (``{name}`` and ``%(name)s``): the
code fills them by name, so a missing or misspelt one would fail at run time.
"""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from boardlab.core.i18n import DOMAIN, LANGUAGES, LOCALE_DIR, SOURCE
from boardlab.extras import require

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog

PACKAGE = Path(__file__).resolve().parent
#: Where messages are and how to read them (paths relative to the package).
METHODS = [
    ("**.py", "python"),
    ("web/templates/**.html", "jinja2"),
    ("web/static/**.js", "javascript"),
]
#: The functions that mark messages, in Babel's notation (argument positions of the
#: singular and plural; ``c`` marks a context).
KEYWORDS: dict[str, Any] = {
    "_": None,
    "N_": None,
    "ngettext": (1, 2),
    "pgettext": ((1, "c"), 2),
    "Np_": ((1, "c"), 2),
    "counted": (2, 3),
    "noun": (1, 2),
    "Tally": (2, 3),
}
#: A placeholder: ``{name}``, ``{name!r}``, ``{n:,}`` or ``%(name)s``.
FIELD = re.compile(r"\{\w*(?:![rsa])?(?::[^{}]*)?\}|%\(\w+\)[sdfr]")


def extract() -> Catalog:
    """Every marked message of the package, as a template catalogue."""
    require("web", "the message catalogue's upkeep")
    from babel.messages.catalog import Catalog
    from babel.messages.extract import extract_from_dir

    template = Catalog(project="boardlab", domain=DOMAIN)
    for path, _line, message, comments, context in extract_from_dir(
        str(PACKAGE), METHODS, {}, KEYWORDS, strip_comment_tags=True
    ):
        template.add(
            message,
            None,
            [(f"src/boardlab/{path}", 0)],
            auto_comments=comments,
            context=context,
        )
    return template


def po_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def read(lang: str) -> Catalog:
    from babel.messages.pofile import read_po

    with po_path(lang).open("rb") as handle:
        return read_po(handle, locale=lang, domain=DOMAIN)


def update() -> None:
    """Merge the messages found into each translation (new ones empty, gone ones
    dropped) and compile it."""
    from babel.messages.catalog import Catalog
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import write_po

    template = extract()
    for lang in LANGUAGES:
        if lang == SOURCE:
            continue
        path = po_path(lang)
        if path.exists():
            catalogue = read(lang)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            catalogue = Catalog(locale=lang, domain=DOMAIN, project="boardlab")
        template.creation_date = catalogue.creation_date  # no churn from the date alone
        catalogue.update(template, no_fuzzy_matching=True, update_header_comment=False)
        catalogue.obsolete.clear()
        catalogue.project, catalogue.version = "boardlab", ""
        catalogue.copyright_holder = catalogue.msgid_bugs_address = catalogue.last_translator = ""
        catalogue.language_team = LANGUAGES[lang]
        catalogue.header_comment = (
            f"# {LANGUAGES[lang]} messages of boardlab; English is the source.\n"
            "# python -m boardlab.messages update (make messages) merges new messages in."
        )
        with path.open("wb") as handle:
            write_po(handle, catalogue, width=100, include_previous=False)
        with path.with_suffix(".mo").open("wb") as handle:
            write_mo(handle, catalogue)
        done = sum(
            1
            for m in catalogue
            if m.id and all(m.string if isinstance(m.string, tuple) else (m.string,))
        )
        print(f"{lang}: {done} of {len(catalogue)} messages translated")


def problems(lang: str) -> list[str]:
    """What is wrong with a translation: messages found in the code but missing there or
    untranslated, fuzzy ones, placeholders that differ, a compiled file out of date."""
    from babel.messages.mofile import write_mo

    catalogue = read(lang)
    found: list[str] = []
    for message in extract():
        if not message.id:
            continue
        have = catalogue.get(message.id, message.context)
        if have is None:
            found.append(f"not in the catalogue: {message.id!r}")
    for message in catalogue:
        if not message.id:
            continue
        ids = [
            str(part)
            for part in (message.id if isinstance(message.id, tuple | list) else [message.id])
        ]
        given = message.string if isinstance(message.string, tuple | list) else [message.string]
        strings = [str(part or "") for part in given]
        if not all(strings):
            found.append(f"untranslated: {ids[0]!r}")
            continue
        if message.fuzzy:
            found.append(f"fuzzy: {ids[0]!r}")
        wanted = sorted(FIELD.findall(ids[-1]))
        for text in strings:
            if sorted(FIELD.findall(text)) != wanted:
                found.append(f"placeholders differ: {ids[0]!r} -> {text!r}")
    compiled = io.BytesIO()
    write_mo(compiled, catalogue)
    if po_path(lang).with_suffix(".mo").read_bytes() != compiled.getvalue():
        found.append(f"{po_path(lang).with_suffix('.mo').name} is out of date: run make messages")
    return found


def main(argv: list[str]) -> int:
    if argv == ["update"]:
        update()
        return 0
    if argv == ["check"]:
        wrong = [f"{lang}: {p}" for lang in LANGUAGES if lang != SOURCE for p in problems(lang)]
        print("\n".join(wrong) or "every message is translated")
        return 1 if wrong else 0
    print("usage: python -m boardlab.messages update|check", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
