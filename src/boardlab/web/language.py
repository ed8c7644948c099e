"""Which language a visitor reads, for every request and WebSocket: the one chosen on a
page (``?lang=de``, remembered in a cookie), else the browser's ``Accept-Language``.

The middleware sets boardlab's language (a context variable) around the request, so
everything made for it (pages, errors, narration, the JSON of a game) is in that
language, and tells caches that the answer depends on it.
"""

from __future__ import annotations

import datetime
import json
from functools import cache
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode

from markupsafe import Markup
from starlette.datastructures import Headers
from starlette.responses import RedirectResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from boardlab.core.i18n import (
    LANGUAGES,
    catalogue,
    check_language,
    language,
    negotiate,
    supported,
    use_language,
)

COOKIE = "boardlab_lang"
#: The answer depends on these request headers (for caches).
VARY = b"Accept-Language, Cookie"
#: The scripts whose messages pages need (their ``_("...")`` calls).
STATIC = Path(__file__).parent / "static"


def chosen(headers: Headers) -> str:
    """The language of a request: its cookie if it names one we speak, else the best
    of its ``Accept-Language``."""
    cookie = SimpleCookie()
    try:
        cookie.load(headers.get("cookie", ""))
    except Exception:  # a malformed cookie header chooses nothing
        cookie = SimpleCookie()
    remembered = cookie.get(COOKIE)
    code = supported(remembered.value) if remembered is not None else None
    return code or negotiate(headers.get("accept-language", ""))


class LanguageMiddleware:
    """Speak the visitor's language inside the app; ``?lang=xx`` on any page switches
    and remembers it (a redirect to the same page without the parameter)."""

    def __init__(self, app: ASGIApp, secure: bool = False) -> None:
        self.app = app
        self.secure = secure

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        lang = chosen(headers)
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
        asked = [value for key, value in query if key == "lang" and value]
        if scope["type"] == "http" and asked and scope["method"] in ("GET", "HEAD"):
            code = supported(asked[-1])
            if code is not None:
                rest = urlencode([(k, v) for k, v in query if k != "lang"])
                # one leading slash: "//host/..." would be another site's address
                path = "/" + (scope.get("root_path", "") + scope["path"]).lstrip("/\\")
                response = RedirectResponse(path + (f"?{rest}" if rest else ""), status_code=303)
                secure = self.secure or scope.get("scheme") == "https"
                response.set_cookie(
                    COOKIE, code, max_age=365 * 86400, samesite="lax", secure=secure
                )
                await response(scope, receive, send)
                return
            # an unknown one goes on to the app, which refuses it (``check_query``)

        async def send_with_language(message: Message) -> None:
            if message["type"] == "http.response.start":
                extra = [(b"content-language", lang.encode()), (b"vary", VARY)]
                message = dict(message, headers=[*message.get("headers", []), *extra])
            await send(message)

        with use_language(lang):
            await self.app(scope, receive, send_with_language)


@cache
def _script_messages() -> tuple[tuple[str, str | None], ...]:
    """The messages the page scripts ask for, found as the catalogue's extractor finds
    them: (singular, plural or None)."""
    from babel.messages.extract import extract_javascript

    found: dict[tuple[str, str | None], None] = {}
    for script in sorted(STATIC.glob("*.js")):
        with script.open("rb") as handle:
            for _line, function, message, _comments in extract_javascript(
                handle, {"_": None, "ngettext": (1, 2)}, [], {}
            ):
                # the raw arguments: a string for each string, None for anything else
                parts = message if isinstance(message, tuple | list) else (message,)
                if function == "ngettext":
                    found[(str(parts[0]), str(parts[1]))] = None
                elif parts[0] is not None:
                    found[(str(parts[0]), None)] = None
    return tuple(found)


@cache
def script_catalogue(lang: str) -> str:
    """The page scripts' messages in ``lang`` as JSON: a string for each message, the
    two forms (one, many) for each counted one."""
    translations = catalogue(lang)
    table: dict[str, Any] = {}
    for singular, plural in _script_messages():
        if plural is None:
            table[singular] = translations.gettext(singular)
        else:
            table[singular] = [
                translations.ngettext(singular, plural, 1),
                translations.ngettext(singular, plural, 2),
            ]
    return json.dumps(table, ensure_ascii=False, sort_keys=True)


def switch_links(path: str, query: str) -> list[dict[str, Any]]:
    """A link to this page in each language, the current one marked."""
    rest = [(k, v) for k, v in parse_qsl(query, keep_blank_values=True) if k != "lang"]
    current = language()
    return [
        {
            "code": code,
            "name": name,
            "href": f"{path}?{urlencode([*rest, ('lang', code)])}",
            "current": code == current,
        }
        for code, name in LANGUAGES.items()
    ]


def format_number(value: float, digits: int = 0) -> str:
    """``1,234.5`` or ``1.234,5``: a number as the current language writes it."""
    from babel.numbers import format_decimal

    pattern = "#,##0" + ("." + "0" * digits if digits else "")
    return str(format_decimal(value, format=pattern, locale=language()))


def format_when(moment: datetime.datetime) -> str:
    """A date and time as the current language writes it (``25 Nov 2026, 08:12``)."""
    from babel.dates import format_datetime

    return str(format_datetime(moment, format="medium", locale=language()))


def time_tag(moment: datetime.datetime) -> Markup:
    """A moment on a page: ``<time>`` with the moment in UTC, written by the server in
    UTC and saying so, and by ``static/times.js`` in the reader's own time zone, which
    only the browser knows (times kept without a zone are UTC)."""
    aware = moment if moment.tzinfo else moment.replace(tzinfo=datetime.UTC)
    utc = aware.astimezone(datetime.UTC)
    return Markup('<time datetime="{}">{} UTC</time>').format(
        utc.isoformat(timespec="seconds"), format_when(utc)
    )


def check_query(lang: str | None = None) -> None:
    """Every route's ``lang`` parameter: a language we speak (the middleware has
    switched to it), else a clear error in the visitor's language."""
    if lang:  # empty: no choice, as if it were not there
        check_language(lang)
