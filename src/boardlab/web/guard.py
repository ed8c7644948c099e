"""What every answer of the web app carries to protect its pages, and the limits that
keep one client from crowding out the others.

- A strict Content-Security-Policy: scripts, styles and connections only from this
  server (no inline script runs, so an injected ``<script>`` is inert even where escaping
  failed); no framing; forms post only here. The API's documentation page, which loads
  Swagger UI from its CDN, gets a policy that allows just that.
- ``Referrer-Policy: same-origin``: a seat link or an invitation in the address bar is
  never sent to another site.
- A rate limit on making games, by client address.
"""

from __future__ import annotations

import base64
import hashlib
import time
from collections import deque

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from boardlab.ui.svg import STYLE

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

    def allow(self, key: str, now: float | None = None) -> bool:
        """Count an event of ``key``; False when it is over the limit (not counted)."""
        now = time.monotonic() if now is None else now
        times = self.seen.setdefault(key, deque())
        while times and now - times[0] >= self.seconds:
            times.popleft()
        if len(times) >= self.most:
            return False
        times.append(now)
        if len(self.seen) > 10_000:  # forget idle clients
            for idle in [k for k, t in self.seen.items() if not t or now - t[-1] >= self.seconds]:
                del self.seen[idle]
        return True
