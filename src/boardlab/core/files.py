"""Files written so that a crash never leaves a half-written one behind."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from boardlab.core.i18n import _


@contextmanager
def atomic_file(path: str | os.PathLike[str]) -> Iterator[BinaryIO]:
    """A binary file to write that appears at ``path`` only once complete and on disk:
    until then ``path`` keeps its old content, and an error leaves no trace. A symbolic
    link is followed (its target is written, the link stays); a new file gets the
    permissions the user's umask gives, an existing one keeps its own."""
    target = Path(os.path.realpath(path))
    if target.parent.exists() and not target.parent.is_dir():
        raise NotADirectoryError(20, _("a part of the path is a file, not a folder"), str(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        os.chmod(temporary, _mode(target))
        with os.fdopen(handle, "wb") as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _mode(target: Path) -> int:
    """The permissions for ``target``: its own if it exists, else 0o666 less the umask."""
    if target.exists():
        return target.stat().st_mode & 0o7777
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_atomic(path: str | os.PathLike[str], text: str) -> Path:
    """Write ``text`` to ``path``: the file is either the old one or the complete new one."""
    with atomic_file(path) as out:
        out.write(text.encode("utf-8"))
    return Path(path)


def append_line(path: str | os.PathLike[str], line: str) -> None:
    """Add one line to a log of results (a tournament's, a study's): on disk before the
    caller goes on, so a crash loses at most the line being written."""
    with open(path, "a", encoding="utf-8") as stream:
        stream.write(line + "\n")
        stream.flush()
        os.fsync(stream.fileno())


def cut_short(path: str | os.PathLike[str]) -> None:
    """Drop a last line that a stop left unfinished, so that new lines start clean."""
    target = Path(path)
    if not target.exists():
        return
    data = target.read_bytes()
    if data and not data.endswith(b"\n"):
        with target.open("r+b") as stream:
            stream.truncate(data.rfind(b"\n") + 1)


@contextmanager
def locked(path: str | os.PathLike[str], wait: bool = True) -> Iterator[bool]:
    """Hold the lock of ``path`` (a file lock, created if missing) while the block runs;
    whether it was had (False: another process holds it and ``wait`` is off). The
    kernel lets go when the holder dies, so a crash never leaves it held. Windows has
    no such locks: there every caller has it."""
    if sys.platform == "win32":
        yield True
        return
    import fcntl

    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def games_dir() -> Path:
    """Where games and tournament results go when no file is named: ``$BOARDLAB_GAMES``,
    else a games folder in the user's data directory (never the folder the command runs
    in)."""
    chosen = os.environ.get("BOARDLAB_GAMES")
    if chosen:
        return Path(chosen)
    from platformdirs import user_data_path

    return user_data_path("boardlab") / "games"
