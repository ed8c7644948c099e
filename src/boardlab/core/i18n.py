"""boardlab's words in the reader's language: English (the source) and German.

Every message a person reads goes through the gettext catalogue in ``boardlab/locale``
(``boardlab.po`` made with Babel, compiled to ``.mo``), never through strings patched in
place. The language is a context variable: the command line sets it once from ``--lang``
or the environment, the web app for each request from the visitor's choice, so two
requests in two languages never see each other's words.

- ``_(message)`` translates now, into the current language;
- ``N_(message)`` only marks a message for the catalogue; it is translated where it is
  shown (option descriptions, names in module constants);
- ``ngettext(singular, plural, n)`` chooses the form for ``n``;
- ``counted(n, singular, plural)`` is ``ngettext`` with ``{n}`` filled: "1 seed", "2 seeds";
- ``noun(singular, plural)`` marks a pair of forms kept in a constant; ``ngettext`` picks
  one where it is shown;
- ``Np_(context, message)`` marks such a word kept as data (a player's name inside a
  message, a reason word);
- ``pgettext(context, message)`` tells apart words spelled alike ("draw" the result,
  "draw" the verb).

Placeholders are ``{name}`` fields filled with ``str.format`` after translation, so a
translation may put them in any order. Notation (actions, position strings, option
names) is data and never translated.

>>> from boardlab.core.i18n import counted, pgettext, use_language
>>> with use_language("de"):
...     print(pgettext("result", "draw"), counted(2, "{n} seed", "{n} seeds"))
Unentschieden 2 Bohnen
>>> print(pgettext("result", "draw"))
draw
"""

from __future__ import annotations

import gettext
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from pathlib import Path

from boardlab.core.errors import BoardlabError

#: The languages boardlab speaks, each by its own name.
LANGUAGES: dict[str, str] = {"en": "English", "de": "Deutsch"}
#: The source language: messages are written in it and need no catalogue.
SOURCE = "en"
#: Where the compiled catalogues are: ``locale/<lang>/LC_MESSAGES/boardlab.mo``.
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
DOMAIN = "boardlab"

_language: ContextVar[str | None] = ContextVar("boardlab_language", default=None)


def language() -> str:
    """The current language: the one set for this context, else the environment's."""
    return _language.get() or from_environment()


def set_language(lang: str) -> None:
    """Speak ``lang`` in this context from now on (the command line's ``--lang``)."""
    _language.set(check_language(lang))


@contextmanager
def use_language(lang: str) -> Iterator[None]:
    """Speak ``lang`` inside the ``with`` block (a web request, a test)."""
    token = _language.set(check_language(lang))
    try:
        yield
    finally:
        _language.reset(token)


def check_language(lang: str) -> str:
    """``lang`` as a supported language code (``de_DE.UTF-8`` reads as ``de``), else an
    error that names the languages there are."""
    code = supported(lang)
    if code is None:
        raise BoardlabError(
            _("unknown language {lang!r}: expected one of {choices}").format(
                lang=lang, choices=", ".join(LANGUAGES)
            )
        )
    return code


def supported(tag: str) -> str | None:
    """The supported language a locale or language tag names (``de-AT``, ``de_DE.UTF-8``,
    ``C`` for English), or None."""
    code = tag.strip().replace("-", "_").split(".")[0].split("@")[0].split("_")[0].lower()
    if code in ("c", "posix"):
        return SOURCE
    return code if code in LANGUAGES else None


def from_environment(environ: Mapping[str, str] = os.environ) -> str:
    """The language gettext would choose: the first of ``LANGUAGE`` (a colon-separated
    list), ``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` that is set and supported; English
    when none is."""
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name, "")
        if not value:
            continue
        for tag in value.split(":"):
            code = supported(tag) if tag else None
            if code:
                return code
        if name != "LANGUAGE":
            return SOURCE  # set, but to a language boardlab does not speak
    return SOURCE


def negotiate(accept_language: str) -> str:
    """The best supported language of an HTTP ``Accept-Language`` header, by quality
    and then order; English when none is supported or the header is malformed.

    >>> negotiate("fr-CH, fr;q=0.9, de;q=0.8, en;q=0.5")
    'de'
    >>> negotiate("en-GB,en;q=0.9,de;q=0.8")
    'en'
    """
    ranked: list[tuple[float, int, str]] = []
    for position, part in enumerate(accept_language.split(",")[:32]):
        tag, _sep, params = part.strip().partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                continue
        code = supported(tag) if tag and tag != "*" else None
        if code and quality > 0:
            ranked.append((-quality, position, code))
    return min(ranked)[2] if ranked else SOURCE


@cache
def catalogue(lang: str) -> gettext.NullTranslations:
    """The compiled catalogue of ``lang`` (none for the source language)."""
    if lang == SOURCE:
        return gettext.NullTranslations()
    return gettext.translation(DOMAIN, LOCALE_DIR, [lang], fallback=True)


def _(message: str) -> str:
    """``message`` in the current language."""
    return catalogue(language()).gettext(message)


def N_(message: str) -> str:
    """Mark ``message`` for the catalogue; translate it with ``_`` where it is shown."""
    return message


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of a message for the count ``n`` in the current language."""
    return catalogue(language()).ngettext(singular, plural, n)


def counted(n: int, singular: str, plural: str) -> str:
    """``n`` with its noun in the current language: ``counted(2, "{n} seed", "{n} seeds")``."""
    return ngettext(singular, plural, n).format(n=n)


def noun(singular: str, plural: str) -> tuple[str, str]:
    """Mark both forms of a noun for the catalogue (``point_words``, a tally's words)."""
    return singular, plural


def Np_(context: str, message: str) -> str:
    """Mark ``message`` meant in ``context`` for the catalogue; ``pgettext`` where shown."""
    return message


def pgettext(context: str, message: str) -> str:
    """``message`` as meant in ``context``, in the current language."""
    return catalogue(language()).pgettext(context, message)
