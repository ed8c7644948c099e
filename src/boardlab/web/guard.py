"""What every answer of the web app carries to protect its pages, and the limits that
keep one client from crowding out the others.

- A strict Content-Security-Policy: scripts, styles and connections only from this
  server (no inline script runs, so an injected ``<script>`` is inert even where escaping
  failed); no framing; forms post only here. The API's documentation page, which loads
  Swagger UI from its CDN, gets a policy that allows just that.
- ``Referrer-Policy: same-origin``: a seat link or an invitation in the address bar is
  never sent to another site.
- Requests that change something, and WebSockets, only from this server's own pages
  (``SameOrigin``): another site's page cannot act with a visitor's cookies.
- Every bound on what one client can make the server do (``Limits``): the size and the
  time of a request body (``BodyLimit``), and rates by client (``RateLimit``), a client
  being the address the server itself saw (``client_key``).
"""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import hashlib
import ipaddress
import json
import os
import time
from collections import deque
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from boardlab.core.errors import BoardlabError
from boardlab.core.i18n import _, use_language
from boardlab.ui.svg import STYLE
from boardlab.web.language import chosen
from boardlab.web.queue import CLIENT

#: The boards' style sheet (inline in each board's SVG), allowed by its hash alone.
BOARD_STYLE = f"'sha256-{base64.b64encode(hashlib.sha256(STYLE.encode()).digest()).decode()}'"
POLICY = (
    f"default-src 'self'; script-src 'self'; style-src 'self' {BOARD_STYLE}; "
    "img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
    "form-action 'self'; object-src 'none'"
)
#: FastAPI's /api/docs page: Swagger UI's script and style from its CDN, one inline
#: script that starts it.
DOCS_POLICY = (
    "default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' https://cdn.jsdelivr.net; img-src 'self' data: "
    "https://fastapi.tiangolo.com; frame-ancestors 'none'; base-uri 'none'"
)
HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
    (b"x-frame-options", b"DENY"),
]


class SecurityHeaders:
    """Add the protective headers to every HTTP answer."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        policy = DOCS_POLICY if scope["path"] == "/api/docs" else POLICY

        async def send_guarded(message: Message) -> None:
            if message["type"] == "http.response.start":
                extra = [(b"content-security-policy", policy.encode()), *HEADERS]
                message = dict(message, headers=[*message.get("headers", []), *extra])
            await send(message)

        await self.app(scope, receive, send_guarded)


class RateLimit:
    """At most ``most`` events per ``seconds`` for each key (a client's address): a
    sliding window, kept in this process."""

    def __init__(self, most: int, seconds: float) -> None:
        self.most, self.seconds = most, seconds
        self.seen: dict[str, deque[float]] = {}
        self.purged = 0.0

    def allow(self, key: str, now: float | None = None) -> bool:
        """Count an event of ``key``; False when it is over the limit (not counted)."""
        now = time.monotonic() if now is None else now
        times = self.seen.setdefault(key, deque())
        while times and now - times[0] >= self.seconds:
            times.popleft()
        if len(times) >= self.most:
            return False
        times.append(now)
        if len(self.seen) > 10_000 and now - self.purged >= self.seconds:  # forget idle clients
            self.purged = now
            for idle in [k for k, t in self.seen.items() if not t or now - t[-1] >= self.seconds]:
                del self.seen[idle]
        return True


@dataclass(frozen=True)
class Limits:
    """The bounds on what one client may make the server do (a client: the address the
    server saw, see ``client_key``), each set by ``boardlab serve --limit NAME=VALUE``."""

    #: requests a client may send in 10 seconds (the static files not counted)
    requests: int = 200
    #: bytes of a request body (an uploaded record is the largest)
    body: int = 1 << 20
    #: actions a game may hold: longer records are not uploaded, and options that allow
    #: longer games are refused (a long game costs every request that reads it)
    actions: int = 5_000
    #: new games (and rematches) a client may make in a minute
    games: int = 30
    #: records a client may upload in a minute
    uploads: int = 10
    #: WebSockets a client may hold open at once
    sockets: int = 32
    #: HTTP connections a client may hold open at once (not counted for named proxies)
    connections: int = 64
    #: AI searches (moves, hints, parts of a review) a client may have waiting at once
    searches: int = 32
    #: seconds a client may take to send a request's headers, and then its body
    request_seconds: float = 20.0

    def __post_init__(self) -> None:
        for field in dataclasses.fields(self):
            if getattr(self, field.name) <= 0:
                raise BoardlabError(
                    _("bad limit {name}={value}: expected a number above 0").format(
                        name=field.name, value=getattr(self, field.name)
                    )
                )

    @classmethod
    def parse(cls, items: list[str]) -> Limits:
        """Limits from ``NAME=VALUE`` words, the others at their defaults."""
        fields = {field.name: field for field in dataclasses.fields(cls)}
        values: dict[str, Any] = {}
        for item in items:
            name, _sep, text = item.partition("=")
            field = fields.get(name.strip())
            try:
                if field is None:
                    raise ValueError
                values[field.name] = type(getattr(cls, field.name))(text.strip())  # int, float
            except ValueError:
                raise BoardlabError(
                    _("bad limit {item!r}: expected NAME=NUMBER, the names being {names}").format(
                        item=item[:60], names=", ".join(fields)
                    )
                ) from None
        return cls(**values)

    def to_environment(self) -> str:
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def from_environment(cls) -> Limits:
        """The limits ``boardlab serve`` gave its server processes (the defaults if none)."""
        text = os.environ.get("BOARDLAB_LIMITS")
        return cls(**json.loads(text)) if text else cls()


def client_key(scope: Scope) -> str:
    """Who a request comes from, for its limits: the address the server saw (a named
    proxy's ``X-Forwarded-For`` already applied by uvicorn), an IPv6 client by its /64,
    the block one subscriber gets."""
    client = scope.get("client")
    host = client[0] if client else "?"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if address.version == 6 and address.ipv4_mapped is None:
        return str(ipaddress.ip_network(f"{host}/64", strict=False))
    return str(address.ipv4_mapped or address) if address.version == 6 else host


class TooLarge(BoardlabError):
    """A request body over ``Limits.body``."""


class TooSlow(BoardlabError):
    """A request body not sent within ``Limits.request_seconds``."""


def too_large(limit: int) -> TooLarge:
    return TooLarge(
        _("the request is too large: at most {size} KB are taken").format(size=limit // 1024)
    )


def too_slow(seconds: float) -> TooSlow:
    return TooSlow(
        _("the request was not sent within {seconds} seconds: send it again").format(
            seconds=int(seconds)
        )
    )


async def refuse(scope: Scope, send: Send, status: int, message: str, **headers: str) -> None:
    """Answer an HTTP request with ``{"error": message}`` before it reaches the app."""
    body = json.dumps({"error": message}, ensure_ascii=False).encode()
    extra = [(name.replace("_", "-").encode(), value.encode()) for name, value in headers.items()]
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
                *extra,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class BodyLimit:
    """Take at most ``limits.body`` bytes of a request body, sent within
    ``limits.request_seconds``: the read of a body declared or grown larger, or come too
    slowly, fails (``TooLarge``, ``TooSlow``, which the app answers 413 and 408, as a
    page or JSON), so nothing larger is ever held."""

    def __init__(self, app: ASGIApp, limits: Limits) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit, seconds = self.limits.body, self.limits.request_seconds
        declared = Headers(scope=scope).get("content-length", "0")
        oversize = not declared.isdigit() or int(declared) > limit
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        received, complete = 0, False

        async def limited() -> Message:
            nonlocal received, complete
            if complete:  # the body is in: what follows is the disconnect, whenever
                return await receive()
            if oversize:
                raise too_large(limit)
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
            except TimeoutError:
                raise too_slow(seconds) from None
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                complete = not message.get("more_body", False)
                if received > limit:
                    raise too_large(limit)
            return message

        await self.app(scope, limited, send)


#: Requests that only read: any page may send them.
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


def same_origin(headers: Headers) -> bool:
    """Whether a request comes from this server's own pages, or from no page at all (a
    program, which sends no cookie of a visitor's): the browser's ``Sec-Fetch-Site``
    where it sends one, else its ``Origin`` against the address it asked."""
    site = headers.get("sec-fetch-site")
    if site is not None:
        return site in ("same-origin", "none")
    origin = headers.get("origin")
    if origin is None:
        return True
    return origin != "null" and urlsplit(origin).netloc.lower() == headers.get("host", "").lower()


class SameOrigin:
    """Refuse a request that changes something, and a WebSocket, sent by another site's
    page (a forged form, a socket opened with the visitor's seat cookie): 403 before the
    app sees it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        checked = kind == "websocket" or (kind == "http" and scope["method"] not in SAFE_METHODS)
        headers = Headers(scope=scope) if checked else Headers()
        if not checked or same_origin(headers):
            await self.app(scope, receive, send)
            return
        if kind == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return

        with use_language(chosen(headers)):
            message = _(
                "refused: this request comes from another site's page ({origin}); "
                "act on boardlab from its own pages"
            ).format(origin=(headers.get("origin") or headers.get("sec-fetch-site", ""))[:60])
        await refuse(scope, send, 403, message)


#: The window of ``Limits.requests``, in seconds.
REQUEST_SECONDS = 10.0


class ClientGate:
    """Name the client of each request and socket (``queue.CLIENT``) for the work it
    causes, the AI's searches above all; a client over ``Limits.requests`` is refused
    (429) before the app sees the request."""

    def __init__(self, app: ASGIApp, limits: Limits) -> None:
        self.app = app
        self.requests = RateLimit(limits.requests, REQUEST_SECONDS)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        client = client_key(scope)
        if not scope["path"].startswith("/static/") and not self.requests.allow(client):
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
                return
            with use_language(chosen(Headers(scope=scope))):
                message = _(
                    "too many requests from your address: at most {most} in {seconds} seconds"
                ).format(most=self.requests.most, seconds=int(REQUEST_SECONDS))
            await refuse(scope, send, 429, message, retry_after=str(int(REQUEST_SECONDS)))
            return
        token = CLIENT.set(client)
        try:
            await self.app(scope, receive, send)
        finally:
            CLIENT.reset(token)
