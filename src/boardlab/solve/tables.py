"""Table files: a JSON header in a fixed 4 KiB block, then one signed byte per entry,
either flat or in compressed blocks.

The header names the game, the kind of table, the rules that decide its values (only the
options that change them), the number of entries and the SHA-256 of the data, so a
table is never used under rules it was not built for and a damaged file is caught by
``verify``. Files are written to a temporary name and renamed, so a build that is cut
short leaves no table behind. Reading maps the file: opening a table is instant.

**Flat** (``write_table``, ``read_table``): the values as they are, one byte each; a
lookup is one read of the mapped file. **Blocks** (``write_blocks``, ``open_table``):
the values cut into blocks of ``block`` entries, each compressed with zlib (the
standard library's: no new dependency, and a block of 50 KB decodes in about 0.1 ms),
behind an index of ``blocks + 1`` offsets; a block of zeros only (the unsolved levels
of a partial table) is stored as nothing. A lookup decodes its block, and the last
``CACHED_BLOCKS`` blocks decoded are kept, so that a caller whose lookups stay in few
blocks pays a decode per block, not per lookup. The SHA-256 is that of the values, the
same as the flat file's, so a conversion proves itself by its checksum; zlib's own
checksum catches a damaged block when it is read.
"""

from __future__ import annotations

import hashlib
import json
import os
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from boardlab.core.errors import BoardlabError
from boardlab.core.files import atomic_file
from boardlab.core.i18n import _

MAGIC = b"BOARDLAB-TABLE 1\n"
HEADER_SIZE = 4096
CHUNK = 1 << 26  # bytes hashed and written at a time
BLOCKS = "zlib-blocks"  # the header's ``layout`` of a table in compressed blocks
CACHED_BLOCKS = 64  # decoded blocks a reader keeps (blocks of 50 KB: 3.2 MB)
LEVEL = 6  # zlib's default: level 9 saves 3 % more and compresses 5 times slower
BATCH = 256  # blocks compressed at a time, on as many threads as there are cores


class TableError(BoardlabError):
    """A table file that is missing, damaged or built for other rules."""


def table_dir() -> Path:
    """Where tables live: ``$BOARDLAB_TABLES`` if set, else the user's data directory."""
    chosen = os.environ.get("BOARDLAB_TABLES")
    if chosen:
        return Path(chosen)
    from platformdirs import user_data_path

    return user_data_path("boardlab") / "tables"


@dataclass(frozen=True)
class StoredTable:
    """A table file read from ``path``: its header."""

    path: Path
    header: dict[str, Any]

    def require(self, expect: Mapping[str, Any]) -> None:
        """Raise TableError naming the first key of ``expect`` the header differs on."""
        for key, value in expect.items():
            if self.header.get(key) != value:
                raise TableError(
                    _("table {path} was built for {key}={built}, not {wanted}").format(
                        path=self.path,
                        key=key,
                        built=_shown(self.header.get(key)),
                        wanted=_shown(value),
                    )
                )

    def verify(self, progress: Callable[[int, int], None] | None = None) -> None:
        """Recompute the checksum of the data; raise TableError if it differs."""
        digest = _digest(self._parts(), int(self.header["entries"]), progress)
        if digest != self.header["sha256"]:
            raise TableError(
                _(
                    "table {path} is damaged: its data hashes to {digest}..., the header "
                    "says {expected}...; build it again"
                ).format(path=self.path, digest=digest[:16], expected=self.header["sha256"][:16])
            )

    def _parts(self) -> Iterator[np.ndarray]:
        raise NotImplementedError


@dataclass(frozen=True)
class Table(StoredTable):
    """A flat table: its values (``int8``, read-only, mapped)."""

    values: np.ndarray

    def _parts(self) -> Iterator[np.ndarray]:
        return _chunks(self.values)


@dataclass(frozen=True)
class BlockTable(StoredTable):
    """A table in compressed blocks: ``values[i]`` reads entry i (see ``BlockValues``)."""

    values: BlockValues

    def _parts(self) -> Iterator[np.ndarray]:
        return self.values.blocks()


class BlockValues:
    """The values of a table in blocks, read one entry at a time (``values[i]``) or a
    block at a time (``block(k)``, entries ``k * size`` on). Safe to share between
    threads: the cache of decoded blocks is ``functools.lru_cache``'s."""

    def __init__(self, path: Path, data: np.ndarray, offsets: np.ndarray, size: int, entries: int):
        self.path = path
        self.size = size  # entries a block
        self.entries = entries
        self._data = data
        self._offsets = offsets
        self.block = lru_cache(maxsize=CACHED_BLOCKS)(self._decode)

    def __len__(self) -> int:
        return self.entries

    def __getitem__(self, index: int) -> int:
        if not 0 <= index < self.entries:
            raise IndexError(index)
        block, inside = divmod(index, self.size)
        return int(self.block(block)[inside])

    def stored_size(self, k: int) -> int:
        """Bytes block ``k`` takes in the file (0: all zeros)."""
        return int(self._offsets[k + 1] - self._offsets[k])

    def blocks(self) -> Iterator[np.ndarray]:
        """Every block in order, decoded once each (not kept)."""
        for k in range(len(self._offsets) - 1):
            yield self._decode(k)

    def _decode(self, k: int) -> np.ndarray:
        start, end = int(self._offsets[k]), int(self._offsets[k + 1])
        length = min(self.size, self.entries - k * self.size)
        if start == end:
            return np.zeros(length, dtype=np.int8)
        try:
            raw = zlib.decompress(self._data[start:end].data)
        except zlib.error:
            raw = b""
        if len(raw) != length:
            raise TableError(
                _("table {path} is damaged: block {block} does not decode; build it again").format(
                    path=self.path, block=k
                )
            )
        return np.frombuffer(raw, dtype=np.int8)


def _chunks(values: np.ndarray) -> Iterator[np.ndarray]:
    flat = values.reshape(-1)
    for start in range(0, flat.size, CHUNK):
        yield flat[start : start + CHUNK]


def _digest(
    parts: Iterable[np.ndarray], total: int, progress: Callable[[int, int], None] | None = None
) -> str:
    sha = hashlib.sha256()
    done = 0
    for part in parts:
        sha.update(part.view(np.uint8).data)
        done += part.size
        if progress:
            progress(done, total)
    return sha.hexdigest()


def _header_block(header: Mapping[str, Any]) -> bytes:
    block = MAGIC + json.dumps(header, sort_keys=True).encode() + b"\n"
    if len(block) > HEADER_SIZE:
        raise TableError(
            _("table header too long ({size} bytes, at most {most})").format(
                size=len(block), most=HEADER_SIZE
            )
        )
    return block.ljust(HEADER_SIZE, b" ")


def write_table(
    path: str | os.PathLike[str], header: Mapping[str, Any], values: np.ndarray
) -> Path:
    """Write ``values`` (int8) with ``header`` (JSON-able; entries and sha256 are added)."""
    flat = np.ascontiguousarray(values.reshape(-1), dtype=np.int8)
    full = {**header, "entries": int(flat.size), "sha256": _digest(_chunks(flat), flat.size)}
    block = _header_block(full)
    with atomic_file(path) as out:
        out.write(block)
        write_sparse(out, flat)
    return Path(path)


def write_sparse(out: BinaryIO, values: np.ndarray) -> None:
    """Write ``values`` (contiguous) at ``out``'s position, a chunk of zeros only as a
    hole: sparse on disk, read back as zeros (a partial table is mostly zeros)."""
    raw = values.reshape(-1).view(np.uint8)
    end = out.tell() + raw.size
    for start in range(0, raw.size, CHUNK):
        part = raw[start : start + CHUNK]
        if part.any():
            out.write(part.data)
        else:
            out.seek(part.size, os.SEEK_CUR)
    out.truncate(end)


def write_blocks(
    path: str | os.PathLike[str],
    header: Mapping[str, Any],
    values: np.ndarray,
    size: int,
    progress: Callable[[int, int], None] | None = None,
    sha256: str | None = None,
) -> Path:
    """Write ``values`` (int8) in compressed blocks of ``size`` entries with ``header``
    (layout, sizes and sha256 are added). With ``sha256`` (a conversion: the source's
    checksum) a digest that differs raises TableError and writes nothing."""
    flat = np.ascontiguousarray(values.reshape(-1), dtype=np.int8)
    count = -(-flat.size // size)
    offsets = np.zeros(count + 1, dtype="<u8")
    sha = hashlib.sha256()
    index_at = HEADER_SIZE
    data_at = index_at + offsets.nbytes
    with atomic_file(path) as out, ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        out.seek(data_at)
        for first in range(0, count, BATCH):
            parts = [
                flat[k * size : (k + 1) * size] for k in range(first, min(first + BATCH, count))
            ]
            for k, packed in enumerate(pool.map(_packed, parts), start=first):
                sha.update(parts[k - first].view(np.uint8).data)
                out.write(packed)
                offsets[k + 1] = offsets[k] + len(packed)
            if progress:
                progress(min(first + BATCH, count), count)
        digest = sha.hexdigest()
        if sha256 is not None and digest != sha256:
            raise TableError(
                _(
                    "table {path} is damaged: its data hashes to {digest}..., the header "
                    "says {expected}...; build it again"
                ).format(path=path, digest=digest[:16], expected=sha256[:16])
            )
        full = {
            **header,
            "entries": int(flat.size),
            "sha256": digest,
            "layout": BLOCKS,
            "block": size,
            "stored": int(offsets.nbytes + offsets[-1]),
        }
        out.seek(0)
        out.write(_header_block(full))
        out.write(offsets.tobytes())
    return Path(path)


def _packed(part: np.ndarray) -> bytes:
    """A block compressed, or nothing for a block of zeros (zlib releases the GIL)."""
    return zlib.compress(part.data, LEVEL) if part.any() else b""


def read_header(path: str | os.PathLike[str]) -> dict[str, Any]:
    source = Path(path)
    try:
        with source.open("rb") as handle:
            block = handle.read(HEADER_SIZE)
    except FileNotFoundError:
        raise TableError(_("no table at {path}").format(path=source)) from None
    if not block.startswith(MAGIC):
        raise TableError(
            _("{path} is not a boardlab table (it does not start with {magic!r})").format(
                path=source, magic=MAGIC
            )
        )
    try:
        header: dict[str, Any] = json.loads(block[len(MAGIC) :].split(b"\n", 1)[0])
    except ValueError:
        raise TableError(_("{path} has a damaged header").format(path=source)) from None
    stored = header.get("stored") if header.get("layout") == BLOCKS else header.get("entries")
    expected = HEADER_SIZE + int(stored if stored is not None else -1)
    if source.stat().st_size != expected:
        raise TableError(
            _(
                "{path} is truncated or damaged: {size} bytes, the header promises "
                "{expected}; build it again"
            ).format(path=source, size=source.stat().st_size, expected=expected)
        )
    return header


def read_table(path: str | os.PathLike[str], expect: Mapping[str, Any] | None = None) -> Table:
    """Map the flat table at ``path``; with ``expect``, every key must match the header."""
    table = open_table(path, expect)
    if not isinstance(table, Table):
        raise TableError(
            _("table {path} is stored in blocks ({layout}); this reader needs a flat one").format(
                path=path, layout=table.header.get("layout")
            )
        )
    return table


def open_table(
    path: str | os.PathLike[str], expect: Mapping[str, Any] | None = None
) -> Table | BlockTable:
    """Map the table at ``path``, flat or in blocks; with ``expect``, every key must
    match the header."""
    header = read_header(path)
    source = Path(path)
    table: Table | BlockTable
    if header.get("layout") == BLOCKS:
        size = int(header["block"])
        count = -(-int(header["entries"]) // size)
        raw = np.memmap(source, dtype=np.uint8, mode="r", offset=HEADER_SIZE)
        offsets = raw[: 8 * (count + 1)].view("<u8")
        data = raw[8 * (count + 1) :]
        if (
            offsets[0] != 0
            or offsets[-1] != data.size
            or (np.diff(offsets.astype(np.int64)) < 0).any()
        ):
            raise TableError(_("{path} has a damaged header").format(path=source))
        values = BlockValues(source, data, offsets, size, int(header["entries"]))
        table = BlockTable(source, header, values)
    else:
        table = Table(
            source, header, np.memmap(source, dtype=np.int8, mode="r", offset=HEADER_SIZE)
        )
    table.require(expect or {})
    return table


def _shown(value: Any) -> str:
    """An option value as the command line writes it (``false``, not ``False``)."""
    if isinstance(value, dict):
        return "(" + " ".join(f"{k}={_shown(v)}" for k, v in sorted(value.items())) + ")"
    return str(value).lower() if isinstance(value, bool) else str(value)
