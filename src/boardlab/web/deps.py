"""What every router of the web app shares: the site (its service, limits and templates,
one per app), who asks (their seat secrets and browser cookie), the cookies the app
sets, and how a refusal becomes an HTTP status.
"""

from __future__ import annotations

import collections
import contextlib
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from fastapi import Request, WebSocket
from fastapi.responses import RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from boardlab.ai import level_name
from boardlab.core.errors import BoardlabError, UnknownGameError, clipped
from boardlab.core.game import Game
from boardlab.core.i18n import _, language, ngettext
from boardlab.web import pages
from boardlab.web.accounts import (
    SESSION_COOKIE,
    SESSION_DAYS,
    Account,
    Accounts,
    NotSignedIn,
    SignInRefused,
    Throttled,
)
from boardlab.web.data import (
    DatabaseAway,
    NotFound,
    NotYourSeat,
    RequestError,
    SeatTaken,
    StaleError,
    StoredGame,
    Viewer,
    key_of,
)
from boardlab.web.guard import Limits, RateLimit, TooLarge, TooSlow, client_key
from boardlab.web.language import format_number, format_when, script_catalogue, switch_links
from boardlab.web.queue import QueueFullError
from boardlab.web.service import GameService
from boardlab.web.talk import CHAT_LINES, CHAT_SECONDS, check_name

HERE = Path(__file__).parent
COOKIE = "boardlab_browser"
#: The cookie of the name a player last gave.
NAME = "boardlab_name"
#: The cookie of a browser's seat in a game (its secret) and of an invitation it made.
SEAT, INVITATION = "seat", "invite"
#: The header a program sends a seat's secret in, instead of the cookie.
SEAT_HEADER = "x-boardlab-seat"
#: The paths that carry a secret (kept out of the logs).
SECRET_PATH = re.compile(r"^/(seat|join)/([^/]+)/[^/]+")
#: Seconds a client is asked to wait while the database is away.
RETRY_SECONDS = 5


class TooMany(BoardlabError):
    """A client over a rate limit."""


@dataclass
class Site:
    """What the routers of one app share: its games, the limits on each client and the
    counts kept for them, its templates."""

    service: GameService
    limits: Limits
    secure_cookies: bool
    templates: Jinja2Templates
    creations: RateLimit = field(init=False)
    uploads: RateLimit = field(init=False)
    chatter: RateLimit = field(default_factory=lambda: RateLimit(CHAT_LINES, CHAT_SECONDS))
    #: WebSockets open now, by client
    sockets: collections.Counter[str] = field(default_factory=collections.Counter)
    accounts: Accounts = field(init=False)

    def __post_init__(self) -> None:
        self.creations = RateLimit(self.limits.games, 60.0)
        self.uploads = RateLimit(self.limits.uploads, 60.0)
        from boardlab.web.store import Store

        self.accounts = Accounts(self.store if isinstance(self.store, Store) else None)

    @property
    def store(self) -> Any:
        return self.service.store

    def count_creation(self, request: Request) -> None:
        """Count a new game (or rematch) of the asker's, refused over ``limits.games``."""
        if not self.creations.allow(client_key(request.scope)):
            raise TooMany(
                _("too many new games from your address: at most {most} a minute").format(
                    most=self.limits.games
                )
            )

    def count_upload(self, request: Request) -> None:
        if not self.uploads.allow(client_key(request.scope)):
            raise TooMany(
                _("too many uploads from your address: at most {most} a minute").format(
                    most=self.limits.uploads
                )
            )

    def admit_chat(self, game_id: str, seat: int) -> None:
        """Count a line of chat of a seat, refused over ``CHAT_LINES``."""
        if not self.chatter.allow(f"{game_id}:{seat}"):
            raise TooMany(
                _("too many chat lines: at most {most} in {seconds} seconds").format(
                    most=CHAT_LINES, seconds=int(CHAT_SECONDS)
                )
            )

    def check_length(self, game: Game[Any]) -> None:
        """Refuse options under which a game could outgrow ``limits.actions``."""
        if game.max_actions > self.limits.actions:
            raise RequestError(
                _(
                    "these options ({options}) allow games of up to {count} actions; this "
                    "server keeps games of up to {most}: choose options for a shorter game"
                ).format(
                    options=clipped(" ".join(game.option_assignments())),
                    count=format_number(game.max_actions),
                    most=format_number(self.limits.actions),
                )
            )


def new_templates() -> Jinja2Templates:
    templates = Jinja2Templates(directory=HERE / "templates")
    templates.env.auto_reload = False  # the templates are the package's: read once
    templates.env.globals["games"] = pages.catalogue
    templates.env.filters["prose"] = pages.prose
    templates.env.add_extension("jinja2.ext.i18n")
    templates.env.install_gettext_callables(  # type: ignore[attr-defined]
        gettext=_, ngettext=ngettext, newstyle=True
    )
    templates.env.globals.update(
        language=language,
        languages=switch_links,
        level_name=level_name,
        script_messages=script_catalogue,
        number=format_number,
        when=format_when,
        remembered=remembered,
        signed_in=signed_in,
    )
    return templates


def site_of(connection: Request | WebSocket) -> Site:
    site: Site = connection.app.state.site
    return site


def service_of(connection: Request | WebSocket) -> GameService:
    return site_of(connection).service


# ---------------------------------------------------------------------- answers
def page(
    request: Request,
    name: str,
    code: int = 200,
    headers: Mapping[str, str] | None = None,
    **context: Any,
) -> Response:
    """The template ``name`` filled with ``context``, the browser's cookie given."""
    response = site_of(request).templates.TemplateResponse(
        request, name, context, status_code=code, headers=headers
    )
    browser(request, response)
    return response


def redirect(request: Request, url: str) -> Response:
    response = RedirectResponse(url, status_code=303)
    browser(request, response)
    return response


def status_of(error: BoardlabError) -> int:
    """The HTTP status that refuses a request for ``error``."""
    for kinds, status in (
        (NotFound | UnknownGameError, 404),
        (StaleError | SeatTaken, 409),
        (NotYourSeat, 403),
        (SignInRefused | NotSignedIn, 401),
        (TooMany | QueueFullError | Throttled, 429),
        (TooLarge, 413),
        (TooSlow, 408),
        (DatabaseAway, 503),
    ):
        if isinstance(error, kinds):
            return status
    return 400


def headers_of(error: BoardlabError) -> dict[str, str] | None:
    """The headers that go with the refusal: when to try again, for what passes."""
    if isinstance(error, Throttled):
        return {"Retry-After": str(error.retry)}
    if isinstance(error, DatabaseAway | TooMany | QueueFullError):
        return {"Retry-After": str(RETRY_SECONDS)}
    return None


# ---------------------------------------------------------------------- who asks
def viewer_of(request: Request | WebSocket, game_id: str) -> Viewer:
    """Who asks about a game: the secrets it sent for it, cookie or header."""
    sent = [request.cookies.get(f"{SEAT}-{game_id}", ""), request.headers.get(SEAT_HEADER, "")]
    bot = request.scope.get("state", {}).get("bot")  # a bot's token (web/bots.py)
    return Viewer(tuple(secret for secret in sent if 16 <= len(secret) <= 64), bot)


def browser_id(request: Request) -> str:
    """The browser's id from its cookie (a new one if it has none yet)."""
    known = request.cookies.get(COOKIE, "")
    if 16 <= len(known) <= 64 and known.replace("-", "").replace("_", "").isalnum():
        return known
    if not hasattr(request.state, "browser"):
        request.state.browser = secrets.token_urlsafe(18)
    browser: str = request.state.browser
    return browser


def browser(request: Request, response: Response) -> None:
    """Give a browser its id cookie: its games are listed under it."""
    if request.cookies.get(COOKIE) != browser_id(request):
        set_cookie(request, response, COOKIE, browser_id(request), 10)


def links(request: Request, stored: StoredGame, viewer: Viewer) -> dict[str, str]:
    """The links only this browser may see: its own seat link (to play on another
    device) and, while the opponent's seat is open, the invitation it made."""
    base = str(request.base_url).rstrip("/")
    found = {}
    secret = request.cookies.get(f"{SEAT}-{stored.id}", "")
    if secret and viewer.seats(stored) and stored.seat_keys is not None:
        found["seat_link"] = f"{base}/seat/{stored.id}/{secret}"
    invitation = request.cookies.get(f"{INVITATION}-{stored.id}", "")
    keys, seat = stored.seat_keys, stored.open_seat
    if invitation and keys is not None and seat is not None and keys[seat] == key_of(invitation):
        found["invitation"] = f"{base}/join/{stored.id}/{invitation}"
    return found


def redacted(path: str) -> str:
    """A path as the log may show it: without the secret of a seat or an invitation."""
    return SECRET_PATH.sub(r"/\1/\2/…", path)


# ---------------------------------------------------------------------- accounts
def session_of(request: Request) -> str | None:
    """The session id the browser sent (None for none)."""
    return request.cookies.get(SESSION_COOKIE) or None


async def account_of(request: Request) -> Account | None:
    """Who the browser is signed in as (None: a guest), asked once per request."""
    if not hasattr(request.state, "account"):
        accounts = site_of(request).accounts
        request.state.account = await accounts.account_of(session_of(request))
    account: Account | None = request.state.account
    return account


async def signed_in_account(request: Request) -> Account:
    """The signed-in account, or a refusal (401) for a guest."""
    account = await account_of(request)
    if account is None:
        raise NotSignedIn(_("sign in first: this needs an account"))
    return account


def signed_in(request: Request) -> Account | None:
    """The account a page shows in its header (its request's, read before)."""
    return getattr(request.state, "account", None)


def begin_session(request: Request, response: Response, token: str) -> None:
    """The browser's new session id (a sign-in's: never one it had before)."""
    set_cookie(request, response, SESSION_COOKIE, token, seconds=SESSION_DAYS * 86400)


def end_session(request: Request, response: Response) -> None:
    """The session cookie gone, and a new browser id: the next guest of this browser
    does not see the account's games under the old one."""
    secure = request.url.scheme == "https" or site_of(request).secure_cookies
    response.delete_cookie(SESSION_COOKIE, httponly=True, samesite="lax", secure=secure)
    set_cookie(request, response, COOKIE, secrets.token_urlsafe(18), 10)


# ---------------------------------------------------------------------- cookies
def set_cookie(
    request: Request,
    response: Response,
    name: str,
    value: str,
    years: int = 1,
    seconds: int | None = None,
) -> None:
    """A cookie no script reads, sent to this site alone, and only over HTTPS when the
    request came so (or the server is told the site is HTTPS only); it lasts ``years``,
    or ``seconds``."""
    secure = request.url.scheme == "https" or site_of(request).secure_cookies
    age = seconds if seconds is not None else years * 365 * 86400
    response.set_cookie(name, value, max_age=age, httponly=True, samesite="lax", secure=secure)


def keep(request: Request, response: Response, kind: str, game_id: str, secret: str) -> None:
    set_cookie(request, response, f"{kind}-{game_id}", secret, 1)


def hold(request: Request, response: Response, game_id: str, secret: str) -> None:
    """Let this browser act for the seats ``secret`` holds in the game."""
    keep(request, response, SEAT, game_id, secret)


def remember(request: Request, response: Response, name: str | None) -> None:
    """Keep the name a player gave, to fill it in on the next form (quoted: a cookie
    holds ASCII only)."""
    if name is not None:
        set_cookie(request, response, NAME, quote(name), 1)


def remembered(request: Request) -> str:
    """The name this browser's player gave last ('' for none or one no longer valid);
    a signed-in player's account name."""
    account = signed_in(request)
    if account is not None:
        return account.name
    with contextlib.suppress(BoardlabError):
        return check_name(unquote(request.cookies.get(NAME, ""))) or ""
    return ""
