"""What the whole machine did, for benchmarks that say how busy it was beside them
(Linux: from /proc/stat)."""

from __future__ import annotations

import os
from pathlib import Path


def clock_ticks() -> int:
    """The kernel's ticks a second, the unit of /proc's CPU times."""
    return os.sysconf("SC_CLK_TCK")


def machine_busy() -> float:
    """CPU seconds the whole machine has been busy (every process, the kernel)."""
    fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return (sum(fields[:8]) - idle) / clock_ticks()
