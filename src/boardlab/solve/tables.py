"""Table files: a JSON header in a fixed 4 KiB block, then one signed byte per entry.

The header names the game, the kind of table, the rules that decide its values (only the
options that change them), the number of entries and the SHA-256 of the data, so a
table is never used under rules it was not built for and a damaged file is caught by
``verify``. Files are written to a temporary name and renamed, so a build that is cut
short leaves no table behind. Reading maps the file: opening a 2.5 GB table is instant.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from boardlab.core.errors import BoardlabError
from boardlab.core.files import atomic_file
from boardlab.core.i18n import _

MAGIC = b"BOARDLAB-TABLE 1\n"
HEADER_SIZE = 4096
CHUNK = 1 << 26  # bytes hashed and written at a time


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
class Table:
    """A table read from ``path``: its header and its values (``int8``, read-only)."""

    path: Path
    header: dict[str, Any]
    values: np.ndarray

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
        digest = _digest(self.values, progress)
        if digest != self.header["sha256"]:
            raise TableError(
                _(
                    "table {path} is damaged: its data hashes to {digest}..., the header "
                    "says {expected}...; build it again"
                ).format(path=self.path, digest=digest[:16], expected=self.header["sha256"][:16])
            )


def _digest(values: np.ndarray, progress: Callable[[int, int], None] | None = None) -> str:
    flat = values.reshape(-1).view(np.uint8)
    sha = hashlib.sha256()
    for start in range(0, flat.size, CHUNK):
        sha.update(flat[start : start + CHUNK].data)
        if progress:
            progress(min(start + CHUNK, flat.size), flat.size)
    return sha.hexdigest()


def write_table(
    path: str | os.PathLike[str], header: Mapping[str, Any], values: np.ndarray
) -> Path:
    """Write ``values`` (int8) with ``header`` (JSON-able; entries and sha256 are added)."""
    flat = np.ascontiguousarray(values.reshape(-1), dtype=np.int8)
    full = {**header, "entries": int(flat.size), "sha256": _digest(flat)}
    block = MAGIC + json.dumps(full, sort_keys=True).encode() + b"\n"
    if len(block) > HEADER_SIZE:
        raise TableError(
            _("table header too long ({size} bytes, at most {most})").format(
                size=len(block), most=HEADER_SIZE
            )
        )
    with atomic_file(path) as out:
        out.write(block.ljust(HEADER_SIZE, b" "))
        raw = flat.view(np.uint8)
        for start in range(0, raw.size, CHUNK):
            part = raw[start : start + CHUNK]
            if part.any():
                out.write(part.data)
            else:  # a hole: sparse on disk, read back as zeros
                out.seek(part.size, os.SEEK_CUR)
        out.truncate(HEADER_SIZE + raw.size)
    return Path(path)


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
    expected = HEADER_SIZE + int(header.get("entries", -1))
    if source.stat().st_size != expected:
        raise TableError(
            _(
                "{path} is truncated or damaged: {size} bytes, the header promises "
                "{expected}; build it again"
            ).format(path=source, size=source.stat().st_size, expected=expected)
        )
    return header


def read_table(path: str | os.PathLike[str], expect: Mapping[str, Any] | None = None) -> Table:
    """Map the table at ``path``; with ``expect``, every key must match the header."""
    header = read_header(path)
    values = np.memmap(path, dtype=np.int8, mode="r", offset=HEADER_SIZE)
    table = Table(Path(path), header, values)
    table.require(expect or {})
    return table


def _shown(value: Any) -> str:
    """An option value as the command line writes it (``false``, not ``False``)."""
    if isinstance(value, dict):
        return "(" + " ".join(f"{k}={_shown(v)}" for k, v in sorted(value.items())) + ")"
    return str(value).lower() if isinstance(value, bool) else str(value)
