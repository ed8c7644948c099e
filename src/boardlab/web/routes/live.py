"""The live connection of a game page: a WebSocket on which the page acts (play, undo,
resign, draw, chat) and hears every change to the game.

The page says which version of the game it holds (``?since=V``); it is sent
``welcome`` (the seats it holds), then the events it missed or the whole state, then
each change as it happens. Each action it sends may carry an ``id``; the answer is an
``ack`` with that id once the change is stored (after the change's own event), or an
``error`` with the id, the HTTP status it would have had and the reason.

What a page is sent goes out at once when its connection takes it, as a frame made
once for all the pages that are sent the same text; else it waits in the page's
``Outbox``, in order. A page too slow to take its messages is closed (it comes back with
its version and misses nothing).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import struct
from collections.abc import Callable
from typing import Any

import orjson
from fastapi import APIRouter, WebSocket

from boardlab.core.errors import BoardlabError
from boardlab.core.i18n import _
from boardlab.web.data import DatabaseAway, RequestError, Viewer, message_text, online
from boardlab.web.deps import Site, site_of, status_of, viewer_of
from boardlab.web.guard import RateLimit, client_key
from boardlab.web.talk import check_line

router = APIRouter()

#: The largest message a page may send, and how many in how many seconds before its
#: socket is closed.
MAX_MESSAGE = 4096
SOCKET_MOST, SOCKET_SECONDS = 60, 10.0
#: Messages that may wait for a page; seconds one may take to send.
OUTBOX_MOST, SEND_SECONDS = 256, 10.0
#: What a page may send: each kind with the fields it needs besides ``type`` (and an
#: optional ``id``, echoed in the answer).
MESSAGES: dict[str, tuple[str, ...]] = {
    "ping": (),
    "chat": (),  # its text is checked as a line of chat (`check_line`)
    "play": ("ply", "action"),
    "undo": ("ply",),
    "resign": ("ply",),
    "draw": ("ply", "answer"),
    "takeback": ("ply", "answer"),
    "claim": ("ply",),
    "abort": ("ply",),
}
#: The scope extension by which the server takes frames the app made itself
#: (``serve.FramedWebSocket``): ``{"write": write}``, ``write(frame)`` False when the
#: connection cannot take it now.
FRAMES = "boardlab.frames"
#: Examples of each, for the message that refuses a bad one.
EXAMPLES = (
    '{"type": "play", "id": 1, "ply": 0, "action": "..."}',
    '{"type": "undo", "id": 2, "ply": 3}',
    '{"type": "resign", "id": 3, "ply": 3}',
    '{"type": "draw", "id": 4, "ply": 3, "answer": "offer"}',
    '{"type": "takeback", "id": 5, "ply": 3, "answer": "offer"}',
    '{"type": "claim", "id": 6, "ply": 3}',
    '{"type": "abort", "id": 7, "ply": 1}',
    '{"type": "chat", "text": "..."}',
    '{"type": "ping"}',
)


class SlowPage(Exception):
    """A page whose messages pile up: it is closed, to come back."""


class Outbox:
    """What waits to be sent to one page, in order. Filling it never waits (a change is
    told to a thousand pages at once); sending is this page's own task."""

    def __init__(self, socket: WebSocket) -> None:
        self.socket = socket
        self.waiting: collections.deque[str] = collections.deque()
        self.ready = asyncio.Event()
        #: the code to close with once what waits is sent, or None while it stays open
        self.closing: int | None = None
        #: writes a frame now, when the server offers it and the connection takes it
        self.write: Callable[[bytes], bool] | None = (
            socket.scope.get("extensions", {}).get(FRAMES, {}).get("write")
        )
        #: whether the outbox's task is sending a message (what comes meanwhile waits)
        self.sending = False

    def __call__(self, text: str) -> None:
        if self.closing is not None:
            return
        if (
            not self.waiting
            and not self.sending
            and self.write is not None
            and self.write(frame_of(text))
        ):
            return
        if len(self.waiting) >= OUTBOX_MOST:
            self.waiting.clear()
            self.finish(1013)  # try again later: it reconnects with its version
            raise SlowPage
        self.waiting.append(text)
        self.ready.set()

    def send(self, data: dict[str, Any]) -> None:
        self(message_text(data))

    def finish(self, code: int) -> None:
        """Close the socket with ``code`` after the messages waiting."""
        self.closing = code
        self.ready.set()

    async def run(self) -> None:
        while True:
            await self.ready.wait()
            self.ready.clear()
            while self.waiting:
                text = self.waiting.popleft()
                self.sending = True
                async with asyncio.timeout(SEND_SECONDS):  # (wait_for would make a task)
                    await self.socket.send_text(text)
                self.sending = False
            if self.closing is not None:
                await self.socket.close(code=self.closing)
                return


@functools.lru_cache(maxsize=8)
def frame_of(text: str) -> bytes:
    """``text`` as one WebSocket text frame from a server (final, unmasked), made once
    for all the pages a change is told to."""
    payload = text.encode()
    size = len(payload)
    if size < 126:
        head = struct.pack("!BB", 0x81, size)
    elif size < 1 << 16:
        head = struct.pack("!BBH", 0x81, 126, size)
    else:
        head = struct.pack("!BBQ", 0x81, 127, size)
    return head + payload


@router.websocket("/ws/games/{game_id}")
async def live(socket: WebSocket, game_id: str) -> None:
    site = site_of(socket)
    client = client_key(socket.scope)
    if site.sockets[client] >= site.limits.sockets:
        await socket.close(code=1008, reason="too many sockets from this address")
        return
    site.sockets[client] += 1
    try:
        await page(site, socket, game_id)
    finally:
        site.sockets[client] -= 1
        if site.sockets[client] <= 0:
            del site.sockets[client]


async def page(site: Site, socket: WebSocket, game_id: str) -> None:
    """One page on the game, from its first message to its last."""
    await socket.accept()
    service = site.service
    viewer = viewer_of(socket, game_id)
    outbox = Outbox(socket)
    since = version_of(socket.query_params.get("since"), outbox)
    try:
        room = await service.watch(game_id, outbox, viewer, since)
        if viewer.seats(room.stored) and online(room.stored):
            outbox.send({"type": "chat", "lines": await service.chat(game_id, viewer)})
    except BoardlabError as error:
        await socket.send_json({"type": "error", "message": str(error)})
        await socket.close(code=1013 if isinstance(error, DatabaseAway) else 4404)
        service.unwatch(game_id, outbox)
        return
    sending = asyncio.create_task(outbox.run())
    reading = asyncio.create_task(read(site, socket, game_id, viewer, outbox))
    try:
        await asyncio.wait({sending, reading}, return_when=asyncio.FIRST_COMPLETED)
        if outbox.closing is not None and not sending.done():  # its last words, the close
            await asyncio.wait({sending}, timeout=SEND_SECONDS)
    finally:
        service.unwatch(game_id, outbox)
        for task in (sending, reading):
            task.cancel()
        with contextlib.suppress(BaseException):
            await asyncio.gather(sending, reading, return_exceptions=True)


def version_of(text: str | None, outbox: Outbox) -> int | None:
    """The version a page says it holds (None: it holds none, or said it badly)."""
    if text is None:
        return None
    if text.isdigit() and len(text) <= 12:
        return int(text)
    outbox.send(
        error(
            _("bad since {text!r}: expected the version the page holds, such as 12").format(
                text=text[:40]
            )
        )
    )
    return None


async def read(site: Site, socket: WebSocket, game_id: str, viewer: Viewer, outbox: Outbox) -> None:
    """The page's messages, each answered in turn, until it goes or floods."""
    flood = RateLimit(SOCKET_MOST, SOCKET_SECONDS)
    while True:
        message = await socket.receive()
        if message["type"] == "websocket.disconnect":
            return
        if not flood.allow(""):
            outbox.send(error(too_fast()))
            outbox.finish(1008)
            return
        text = message.get("text")
        if text is None:
            text = (message.get("bytes") or b"").decode("utf-8", "replace")
        reply = await answer(site, game_id, viewer, text)
        if reply is not None:
            outbox.send(reply)


async def answer(site: Site, game_id: str, viewer: Viewer, text: str) -> dict[str, Any] | None:
    """The answer to one message: a pong, an ack once a change is stored, or an error
    that says why not."""
    ident = None
    try:
        data = read_message(text)
        ident = data.get("id")
        kind = data["type"]
        if kind == "ping":
            return {"type": "pong"}
        service = site.service
        if kind == "chat":
            line = check_line(data.get("text"))
            await service.say(game_id, line, viewer, lambda seat: site.admit_chat(game_id, seat))
            return None if ident is None else {"type": "ack", "id": ident}
        details = [data[name] for name in MESSAGES[kind][1:]]
        room = await service.act(kind, game_id, viewer, data["ply"], *details)
        return {"type": "ack", "id": ident, "v": room.version}
    except BoardlabError as refused:
        return error(str(refused), ident, status_of(refused))


def read_message(message: str) -> dict[str, Any]:
    """A message from a page, checked (``MESSAGES``); anything else is a RequestError
    that says what would do."""
    if len(message) > MAX_MESSAGE:
        raise RequestError(
            _("message too long ({count} characters): at most {most}").format(
                count=len(message), most=MAX_MESSAGE
            )
        )
    try:
        data = orjson.loads(message)
    except ValueError:  # (orjson's error is one)
        raise RequestError(_("not JSON: {text!r}").format(text=message[:80])) from None
    kind = data.get("type") if isinstance(data, dict) else None
    if not isinstance(kind, str) or kind not in MESSAGES:
        raise RequestError(
            _("unknown message {text!r}: this socket takes {examples}").format(
                text=message[:80], examples=", ".join(EXAMPLES)
            )
        )
    ident = data.get("id")
    if ident is not None and (
        isinstance(ident, bool) or not isinstance(ident, int) or not 0 <= ident < 2**53
    ):
        raise RequestError(
            _("bad id {value!r}: expected a whole number that names the message").format(
                value=ident
            )
        )
    missing = [name for name in MESSAGES[kind] if name not in data]
    answers = ("offer", "accept", "decline")
    if missing or (kind in ("draw", "takeback") and data["answer"] not in answers):
        example = next(e for e in EXAMPLES if f'"{kind}"' in e)
        raise RequestError(
            _("bad {kind} message {text!r}: expected {example}").format(
                kind=kind, text=message[:80], example=example
            )
        )
    if kind == "play" and not isinstance(data["action"], str):
        raise RequestError(
            _("bad action {value!r}: expected an action string").format(value=data["action"])
        )
    checked: dict[str, Any] = data
    return checked


def error(text: str, ident: Any = None, status: int = 400) -> dict[str, Any]:
    found: dict[str, Any] = {"type": "error", "message": text, "status": status}
    if ident is not None:
        found["id"] = ident
    return found


def too_fast() -> str:
    return _("too many messages: at most {most} in {seconds} seconds; this socket closes").format(
        most=SOCKET_MOST, seconds=int(SOCKET_SECONDS)
    )
