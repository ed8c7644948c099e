"""One process for each game: with several server processes (``serve --workers N``), a
connection that asks about a game (its page, its socket, its API) is handed to the
process that owns the game, so that the game lives in one room, described once for all
its pages, with its players' presence counted in one place.

The processes share one listening socket, and the kernel gives a new connection to any
of them. Each process takes a slot, 0 to N-1 (a lock file in the server's folder, let go
by the kernel when the process dies), as it starts to listen, and listens on a Unix
datagram socket named after it. A game belongs to slot ``crc32(id) % N``. A process that
reads a request for a game of another slot, as the first request of a connection or
between two on a kept-alive one, sends that slot the connection's socket (``SCM_RIGHTS``)
with the bytes read so far, and forgets it; the owner goes on with it as with a
connection it accepted itself. While no process has yet taken the slot (the server is
starting), the connection waits for one. When the owner cannot take it (killed, starting
again), the process that read the request answers it: rooms in two processes still
agree, through the database's announcements (``GameService.listen``), as they always
have.
"""

from __future__ import annotations

import array
import contextlib
import fcntl
import os
import re
import socket
import zlib
from collections.abc import Callable
from pathlib import Path

#: The paths that name a game by its id (``/new/KIND`` and ``/rules/KIND`` name a kind
#: of game; every other route with a game's id is here, as a test checks).
GAME_PATH = re.compile(
    rb"[A-Z]+ /(?:api/games|ws/games|play|seat|join|lobby|rematch|review)/([A-Za-z0-9_-]{1,64})"
    rb"(?:[/? ])"
)
#: The most bytes of a request that travel with its connection (a request's line and
#: headers come in one read; a larger first read is answered where it was read).
MOST_BYTES = 60_000
#: The server's folder for its processes' slots (set by ``serve`` for ``--workers`` > 1).
FOLDER_VARIABLE = "BOARDLAB_SLOTS"
WORKERS_VARIABLE = "BOARDLAB_WORKERS"


def slot_of(game_id: bytes, workers: int) -> int:
    """The slot of the process that owns the game."""
    return zlib.crc32(game_id) % workers


class Handoff:
    """This process's slot, the socket on which it takes connections from the others,
    and the one on which it sends them theirs."""

    def __init__(self, folder: Path, workers: int, slot: int, lock: int) -> None:
        self.folder, self.workers, self.slot = folder, workers, slot
        self.lock = lock  # held while the process lives
        path = self.address(slot)
        with contextlib.suppress(FileNotFoundError):
            path.unlink()  # left by the process that held the slot before
        self.inbox = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.inbox.bind(str(path))
        self.inbox.setblocking(False)
        self.outbox = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.outbox.setblocking(False)
        #: connections sent to their owners, and taken from the others (for the tests)
        self.sent = self.taken = 0

    @staticmethod
    def wanted() -> bool:
        """Whether ``serve`` runs several processes that hand each other connections."""
        return bool(os.environ.get(FOLDER_VARIABLE)) and int(os.environ[WORKERS_VARIABLE]) > 1

    @classmethod
    def from_environment(cls) -> Handoff | None:
        """This process's part, when ``serve`` runs several: the first free slot (None:
        one process, or every slot held, as while a process replaces another)."""
        if not cls.wanted():
            return None
        folder, workers = os.environ[FOLDER_VARIABLE], os.environ[WORKERS_VARIABLE]
        for slot in range(int(workers)):
            lock = os.open(Path(folder) / f"slot-{slot}.lock", os.O_CREAT | os.O_RDWR, 0o600)
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(lock)
                continue
            return cls(Path(folder), int(workers), slot, lock)
        return None  # every slot held: this process answers what it reads

    def address(self, slot: int) -> Path:
        return self.folder / f"slot-{slot}"

    def owner(self, data: bytes) -> int | None:
        """The slot to send a connection whose next request begins with ``data`` to, or
        None when this process answers it (not a game's, or the game is its own)."""
        found = GAME_PATH.match(data)
        if found is None or len(data) > MOST_BYTES:
            return None
        slot = slot_of(found.group(1), self.workers)
        return None if slot == self.slot else slot

    def started(self, slot: int) -> bool:
        """Whether a process has taken ``slot`` since the server started (it may have
        gone since)."""
        return self.address(slot).exists()

    def send(self, slot: int, connection: int, data: bytes) -> bool:
        """Send the connection (its file descriptor) and the bytes read from it to the
        process of ``slot``; False when that process cannot take it."""
        try:
            # (socket.send_fds would not send to an address)
            rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [connection]))]
            self.outbox.sendmsg([data], rights, 0, str(self.address(slot)))
        except OSError:  # not there, or too busy to read its inbox: answered here
            return False
        self.sent += 1
        return True

    def receive(self, adopt: Callable[[socket.socket, bytes], None]) -> None:
        """Take the connections the other processes sent (called when the inbox is
        readable): each is given to ``adopt`` with the bytes read from it."""
        while True:
            try:
                data, fds, _flags, _address = socket.recv_fds(self.inbox, MOST_BYTES, 1)
            except (BlockingIOError, InterruptedError):
                return
            for fd in fds:
                self.taken += 1
                adopt(socket.socket(fileno=fd), data)
