"""``boardlab serve``: the web app on uvicorn, with the address printed first, and the
bounds on connections that only the HTTP server can keep: a client's open connections,
and the time it may take to send a request's headers. Its server processes, when it
starts several, stop when it is gone (``app_of_process``)."""

from __future__ import annotations

import asyncio
import collections
import contextlib
import errno
import functools
import os
import shutil
import signal
import socket
import tempfile
import threading
import time
from collections.abc import Callable
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from boardlab.core.errors import BoardlabError
from boardlab.core.i18n import _
from boardlab.web.guard import Limits, client_key
from boardlab.web.handoff import FOLDER_VARIABLE, WORKERS_VARIABLE, Handoff
from boardlab.web.routes.live import FRAMES


class GuardedHTTP(H11Protocol):
    """uvicorn's HTTP/1.1 connection, bounded: a client (not a named proxy) holds at most
    ``Limits.connections`` at once, and a connection that has not sent a whole request's
    headers within ``Limits.request_seconds`` of opening, or of its last answer, is
    closed (half-sent requests would otherwise stay open for ever)."""

    #: connections open in this process, by client
    open: ClassVar[collections.Counter[str]] = collections.Counter()
    limits: ClassVar[Limits | None] = None
    #: this process's part in handing each game's connections to its process
    #: (``handoff.py``): None with one process, unset until it listens
    handoff: ClassVar[Handoff | bool | None] = False
    #: how uvicorn makes this process's connections (``ServerLoop``), for those handed here
    made: ClassVar[Callable[[], GuardedHTTP] | None] = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: bytes another process read from this connection before it handed it here
        self.initial = b""
        if GuardedHTTP.handoff is False:  # every slot was held: tried again
            take_slot(self.loop)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if GuardedHTTP.limits is None:
            GuardedHTTP.limits = Limits.from_environment()
        self.counted: str | None = None
        self.headers_due: asyncio.TimerHandle | None = None
        host = self.client[0] if self.client else "?"
        if not proxy(host, self.config.forwarded_allow_ips if self.config.proxy_headers else []):
            self.counted = client_key({"client": self.client})
            GuardedHTTP.open[self.counted] += 1
            if GuardedHTTP.open[self.counted] > GuardedHTTP.limits.connections:
                transport.close()
                return
        self._expect_headers()
        if self.initial:  # before anything more is read from the socket
            initial, self.initial = self.initial, b""
            self.data_received(initial)

    def data_received(self, data: bytes) -> None:
        handoff = GuardedHTTP.handoff
        if (
            isinstance(handoff, Handoff)
            and self.conn.their_state is h11.IDLE
            and not self.conn.trailing_data[0]
        ):
            slot = handoff.owner(data)
            if slot is not None:
                deadline = time.monotonic() + OWNER_WAIT_SECONDS
                if self._hand(handoff, slot, data, deadline):
                    return
        super().data_received(data)

    def _hand(self, handoff: Handoff, slot: int, data: bytes, deadline: float) -> bool:
        """Send the connection to the process of ``slot``, which owns its game. While
        that process has not yet started (the server is starting), wait for it, reading
        nothing more, until ``deadline``: were the game's first pages answered here, they
        would stay in a room of their own once it has. False: it is answered here."""
        connection = self.transport.get_extra_info("socket")
        if connection is None:
            return False
        if handoff.send(slot, connection.fileno(), data):
            self.transport.abort()  # this process's copy; the owner holds its own
            return True
        if handoff.started(slot) or time.monotonic() > deadline:
            return False  # gone (its games' rooms agree through the database) or late
        self.transport.pause_reading()

        def again() -> None:
            if self.transport.is_closing() or self._hand(handoff, slot, data, deadline):
                return
            self.transport.resume_reading()
            H11Protocol.data_received(self, data)

        self.loop.call_later(OWNER_POLL_SECONDS, again)
        return True

    def _expect_headers(self) -> None:
        assert GuardedHTTP.limits is not None
        if self.headers_due is not None:
            self.headers_due.cancel()
        self.headers_due = self.loop.call_later(
            GuardedHTTP.limits.request_seconds, self._headers_overdue
        )

    def _headers_overdue(self) -> None:
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()

    def _forget(self) -> None:
        if self.headers_due is not None:
            self.headers_due.cancel()
        if self.counted is not None:
            GuardedHTTP.open[self.counted] -= 1
            if GuardedHTTP.open[self.counted] <= 0:
                del GuardedHTTP.open[self.counted]
            self.counted = None

    def connection_lost(self, exc: Exception | None) -> None:
        self._forget()
        super().connection_lost(exc)

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self._forget()  # a WebSocket is counted by the app, under ``Limits.sockets``
        super().handle_websocket_upgrade(event)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._expect_headers()


#: Messages from a page that may wait for the app before its connection is not read
#: (each at most ``ws_max_size``).
QUEUED_MOST = 8


class FramedWebSocket(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket connection, which also takes a frame the app made itself
    (the ``FRAMES`` extension of its scope): a change is told to every page of a game as
    the same bytes, written to each connection at once, not passed down the ASGI layers
    and framed again for each page. It reads on while a few messages wait."""

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None:
            scope["extensions"][FRAMES] = {"write": self.write_frame}

    def send_receive_event_to_app(self) -> None:
        """Queue a message for the app. uvicorn stops reading the connection until the
        app has taken each one (two system calls a message); here it stops only once
        ``QUEUED_MOST`` wait, which bounds a connection's memory as well."""
        paused = self.read_paused
        self.read_paused = True  # so that uvicorn does not pause: decided below
        super().send_receive_event_to_app()
        self.read_paused = paused
        # (once the close is sent, reading goes on until the page's close reply)
        if not paused and not self.close_sent and self.queue.qsize() >= QUEUED_MOST:
            self.read_paused = True
            self.transport.pause_reading()

    def write_frame(self, frame: bytes) -> bool:
        """Write a whole frame now, if the connection is open and takes it without
        waiting; else False, and the app sends it the ASGI way, which waits."""
        if (
            not self.handshake_complete
            or self.close_sent
            or self.disconnected
            or not self.writable.is_set()
            or self.transport.is_closing()
        ):
            return False
        self.transport.write(frame)
        return True


#: Seconds a connection for a game whose process has not yet started waits for it (less
#: than ``Limits.request_seconds``, after which a connection with no request is closed),
#: and between two tries.
OWNER_WAIT_SECONDS = 15.0
OWNER_POLL_SECONDS = 0.05


class ServerLoop(asyncio.SelectorEventLoop):
    """The event loop of a server process (uvicorn's ``loop``). As uvicorn starts to
    listen, the process takes its slot among several (``handoff.py``), and reads the
    connections the others hand it from then on, made as uvicorn makes its own: taken at
    the first connection, a slot would wait for one, and meanwhile the others would
    answer its games themselves."""

    async def create_server(  # type: ignore[override]
        self, protocol_factory: Callable[[], GuardedHTTP], *args: Any, **kwargs: Any
    ) -> asyncio.Server:
        GuardedHTTP.made = protocol_factory
        take_slot(self)
        return await super().create_server(protocol_factory, *args, **kwargs)


def take_slot(loop: asyncio.AbstractEventLoop) -> None:
    """This process's slot, when ``serve`` runs several, with its inbox read on ``loop``;
    while every slot is held (a process replacing another), tried again at the next
    connection."""
    made = GuardedHTTP.made
    handoff = None if made is None else Handoff.from_environment()
    if handoff is not None and made is not None:
        receive = functools.partial(handoff.receive, functools.partial(adopt, loop, made))
        loop.add_reader(handoff.inbox, receive)
    if handoff is not None or not Handoff.wanted():
        GuardedHTTP.handoff = handoff


def adopt(
    loop: asyncio.AbstractEventLoop,
    made: Callable[[], GuardedHTTP],
    connection: socket.socket,
    data: bytes,
) -> None:
    """Go on with a connection another process of the server handed here, as if it had
    been accepted here, from the bytes that process read of it."""

    def protocol() -> GuardedHTTP:
        adopted = made()
        adopted.initial = data
        return adopted

    async def serve() -> None:
        with contextlib.suppress(OSError):  # the client went meanwhile
            await loop.connect_accepted_socket(protocol, connection)

    task = loop.create_task(serve())
    ADOPTING.add(task)
    task.add_done_callback(ADOPTING.discard)


#: Connections being taken over (kept until they are).
ADOPTING: set[asyncio.Task[None]] = set()


def proxy(host: str, trusted: Any) -> bool:
    """Whether ``host`` is one of the proxies named to the server."""
    if isinstance(trusted, str):
        trusted = [part.strip() for part in trusted.split(",")]
    return "*" in trusted or host in trusted


def serve(
    host: str,
    port: int,
    db: str | None,
    ai_workers: int,
    workers: int = 1,
    limits: Limits | None = None,
    proxies: str | None = None,
    secure_cookies: bool = False,
) -> int:
    """Serve the web app on ``host:port`` in ``workers`` processes that share the
    listening socket and the database (PostgreSQL when more than one: they tell each
    other of every change), the AI searching in ``ai_workers`` processes beside each.
    ``proxies`` are the addresses whose ``X-Forwarded-For`` and ``X-Forwarded-Proto``
    the server believes (none by default: a client cannot choose its own address);
    ``secure_cookies`` marks every cookie Secure (also done for requests that came over
    HTTPS)."""
    import uvicorn
    from uvicorn.supervisors import Multiprocess

    from boardlab.web.memory import MEMORY_URL
    from boardlab.web.store import Store, default_url, safe_url

    url = db or default_url()
    announces = False
    if url != MEMORY_URL:
        # the schema brought to the newest once, here, before any server process starts
        # (a database that cannot be opened is said now, in one line)
        store = Store(url)
        store.close()
        announces = store.announces
    if workers > 1 and not announces:
        raise BoardlabError(
            _(
                "--workers {workers} needs PostgreSQL (--db postgresql+psycopg://...): "
                "processes on SQLite or in memory would not learn of each other's moves"
            ).format(workers=workers)
        )
    listener = bind(host, port)
    os.environ["BOARDLAB_DB"] = url  # for the processes of the app (and only them)
    os.environ["BOARDLAB_AI_WORKERS"] = str(ai_workers)
    os.environ["BOARDLAB_LIMITS"] = (limits or Limits()).to_environment()
    os.environ["BOARDLAB_SECURE_COOKIES"] = "1" if secure_cookies else ""
    os.environ[SUPERVISOR_VARIABLE] = str(os.getpid()) if workers > 1 else ""
    shown = f"[{host}]" if ":" in host else host
    address = f"http://{shown}:{listener.getsockname()[1]}/"
    print(_("boardlab: playing at {address}").format(address=address), flush=True)
    kept = (
        _("  games are kept in memory and lost when the server stops; Ctrl-C stops it")
        if url == MEMORY_URL
        else _("  games are kept in {url}; Ctrl-C stops the server").format(url=safe_url(url))
    )
    print(kept, flush=True)
    config = uvicorn.Config(
        "boardlab.web.serve:app_of_process",
        factory=True,
        workers=workers,
        # asyncio's loop, which every test and benchmark measures: uvicorn would take
        # uvloop when it is installed (the test tools bring it, for the load generator),
        # which served no action for less CPU here (2.69 ms against 2.72 at 1,000 games)
        loop="boardlab.web.serve:ServerLoop",
        log_level="warning",
        ws_max_size=1 << 16,
        # a change is encoded once and the same text goes to every page: compressed, it
        # would be compressed again for each connection (a thousand spectators, a
        # thousand times)
        ws_per_message_deflate=False,
        ws=FramedWebSocket,
        http=GuardedHTTP,
        proxy_headers=bool(proxies),
        forwarded_allow_ips=proxies or "",
        server_header=False,
    )
    if workers > 1:
        # each game's connections go to one process (``handoff.py``), which finds the
        # others by their slots in this folder
        folder = tempfile.mkdtemp(prefix="boardlab-workers-")
        os.environ[FOLDER_VARIABLE], os.environ[WORKERS_VARIABLE] = folder, str(workers)
        try:
            Multiprocess(config, sockets=[listener]).run()
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    else:
        uvicorn.Server(config).run(sockets=[listener])
    return 0


#: The process id of ``serve`` when it supervises several server processes.
SUPERVISOR_VARIABLE = "BOARDLAB_SUPERVISOR"
#: Seconds between a server process's looks at whether its supervisor still runs.
SUPERVISOR_CHECK_SECONDS = 0.5
#: Seconds a server process whose supervisor is gone gives itself to stop.
STOP_SECONDS = 10.0


def app_of_process() -> Any:
    """The app of one of ``serve``'s processes (``app_from_environment``). With several,
    each stops (as on SIGTERM: its changes under way finished, its AI workers ended)
    once ``serve``, which started them, is gone, also after ``kill -9`` of it alone: they
    would go on serving, each with its AI workers, with nothing left to stop them."""
    from boardlab.web.app import app_from_environment

    supervisor = os.environ.get(SUPERVISOR_VARIABLE)
    if supervisor:
        threading.Thread(
            target=stop_without, args=(int(supervisor),), name="stop-without", daemon=True
        ).start()
    return app_from_environment()


def stop_without(supervisor: int) -> None:
    """In a server process: once ``supervisor``, its parent, is gone, stop as uvicorn
    does on SIGTERM, and end at once if that takes over ``STOP_SECONDS``."""
    while os.getppid() == supervisor:
        time.sleep(SUPERVISOR_CHECK_SECONDS)
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(STOP_SECONDS)
    os._exit(1)


def bind(host: str, port: int) -> socket.socket:
    """The listening socket, or a clear error when the port is taken or the host is not
    an address of this machine."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # named TCP, so that asyncio sets TCP_NODELAY on each connection: without it an answer
    # on a kept-alive connection waits for the client's delayed ACK (about 40 ms)
    listener = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind((host, port))
    except OSError as error:
        listener.close()
        if error.errno == errno.EADDRINUSE:
            raise BoardlabError(
                _(
                    "port {port} on {host} is in use: stop what uses it or choose another "
                    "with --port"
                ).format(port=port, host=host)
            ) from None
        raise BoardlabError(
            _("cannot listen on {host!r} port {port}: {why}").format(
                host=host, port=port, why=error.strerror
            )
        ) from None
    listener.listen(128)
    listener.set_inheritable(True)
    return listener
