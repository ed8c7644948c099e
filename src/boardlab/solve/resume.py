"""A table built in steps that survives a stop: what is done is kept in a folder and a
build started again goes on from there (the server's background builds, docs/web.md).

A build whose steps each depend only on steps done before (the levels of a game solved
whole, from the top; an endgame table's seed counts, from 0) keeps its values in memory
as usual and, at most every ``every`` seconds after a step, copies them to
``values.bin`` in the folder with the steps done and what the build is of in
``state.json``; each is replaced whole (written aside, then renamed), the values first,
so a build killed at any moment leaves a copy whose values hold at least the steps its
state says (steps done again give the same values). The next build of the same table
reads the copy back and starts at the next step: the table it writes is the one a build
in one go writes, byte for byte. Copying now and then rather than mapping the file
keeps the build in memory at its speed (a mapped file would be written back over and
over as every step touches the whole of it); what a stop loses is at most ``every``
seconds of work, and a copy costs a scan of the values (2.5 GB for the largest table:
2-9 s here, as busy as the machine is).
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from boardlab.core.files import atomic_file, write_atomic
from boardlab.solve.tables import write_sparse

#: Seconds between two copies of a build's values: a copy of 2.5 GB takes seconds on an
#: idle machine and minutes on a busy one, where a builder at nice 10 waits for the cores.
EVERY = 300.0
CHUNK = 1 << 26  # bytes written at a time


class Checkpoint:
    """What a build of ``what`` (its kind, rules, reach: anything JSON that names the
    table) has done, kept in ``folder``."""

    def __init__(self, folder: Path, what: Mapping[str, Any], every: float | None = None) -> None:
        self.folder = Path(folder)
        self.what = json.loads(json.dumps(dict(what), sort_keys=True))
        self.every = EVERY if every is None else every
        self._saved = time.monotonic()

    @property
    def _state(self) -> Path:
        return self.folder / "state.json"

    @property
    def _values(self) -> Path:
        return self.folder / "values.bin"

    def restore(self, values: np.ndarray) -> int:
        """The steps done by an earlier build of the same table, their values copied
        into ``values``; 0 (and ``values`` untouched) when there is none, or one of
        another table or another size."""
        try:
            state = json.loads(self._state.read_text())
        except (OSError, ValueError):
            return 0
        raw = values.reshape(-1).view(np.uint8)
        if state.get("what") != self.what or state.get("bytes") != raw.size:
            return 0
        try:
            with self._values.open("rb") as source:
                if os.fstat(source.fileno()).st_size != raw.size:
                    return 0
                for start, stop in _data(source.fileno(), raw.size):
                    source.seek(start)
                    for at in range(start, stop, CHUNK):
                        source.readinto(raw[at : min(at + CHUNK, stop)].data)
        except OSError:
            return 0
        self._saved = time.monotonic()
        return int(state["done"])

    def keep(self, values: np.ndarray, done: int, force: bool = False) -> bool:
        """Copy ``values`` with ``done`` steps done, if ``every`` seconds have passed
        since the last copy (or ``force``); whether it copied."""
        if not force and time.monotonic() - self._saved < self.every:
            return False
        with atomic_file(self._values) as out:
            write_sparse(out, values)
        state = {"what": self.what, "bytes": int(values.nbytes), "done": int(done)}
        write_atomic(self._state, json.dumps(state, sort_keys=True))
        self._saved = time.monotonic()
        return True

    def clear(self) -> None:
        """Forget the copy: the table is written."""
        self._state.unlink(missing_ok=True)
        self._values.unlink(missing_ok=True)
        if self.folder.is_dir() and not any(self.folder.iterdir()):
            shutil.rmtree(self.folder, ignore_errors=True)


def _data(handle: int, size: int) -> list[tuple[int, int]]:
    """The stretches of a sparse file that hold data (the holes read as zeros, and
    need not be read: a partial table's copy is mostly holes); the whole file where the
    system cannot tell."""
    if not hasattr(os, "SEEK_DATA"):
        return [(0, size)]
    found, at = [], 0
    while at < size:
        try:
            start = os.lseek(handle, at, os.SEEK_DATA)
        except OSError:  # no data after ``at`` (ENXIO)
            break
        stop = os.lseek(handle, start, os.SEEK_HOLE)
        found.append((start, min(stop, size)))
        at = stop
    return found


__all__ = ["EVERY", "Checkpoint"]
