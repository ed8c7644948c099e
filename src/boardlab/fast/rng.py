"""xoshiro256** with splitmix64 seeding, and Lemire's unbiased bounded choice: the same
generator and choice rule as the C baseline, so random playouts are comparable.

Compiled with numba; with ``NUMBA_DISABLE_JIT=1`` the same numbers come from plain
Python integers (numpy's uint64 arithmetic would warn about the intended wrap-around)."""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
from numba import njit, uint64

MASK = (1 << 64) - 1


def seeded(seed: int) -> np.ndarray:
    """A generator state (4 uint64) from an integer seed, by splitmix64."""
    state = np.zeros(4, dtype=np.uint64)
    x = seed & MASK
    for i in range(4):
        x = (x + 0x9E3779B97F4A7C15) & MASK
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        state[i] = z ^ (z >> 31)
    return state


@njit(cache=True)
def _rotl(x: np.uint64, k: int) -> np.uint64:
    return (x << uint64(k)) | (x >> uint64(64 - k))


@njit(cache=True, inline="always")
def step(
    g0: np.uint64, g1: np.uint64, g2: np.uint64, g3: np.uint64
) -> tuple[np.uint64, np.uint64, np.uint64, np.uint64, np.uint64]:
    """One xoshiro256** step on a generator held in four locals (registers, in a compiled
    loop): the 64 output bits and the new state. The only copy of the step."""
    out = _rotl(g1 * uint64(5), 7) * uint64(9)
    t = g1 << uint64(17)
    g2 ^= g0
    g3 ^= g1
    g1 ^= g2
    g0 ^= g3
    g2 ^= t
    g3 = _rotl(g3, 45)
    return out, g0, g1, g2, g3


@njit(cache=True, inline="always")
def below_held(
    g0: np.uint64, g1: np.uint64, g2: np.uint64, g3: np.uint64, n: int
) -> tuple[int, np.uint64, np.uint64, np.uint64, np.uint64]:
    """Lemire's unbiased choice in [0, n) on a generator held in locals: the same draws
    as ``below``; the choice and the new state."""
    bound = uint64(n)
    r, g0, g1, g2, g3 = step(g0, g1, g2, g3)
    m = (r >> uint64(32)) * bound
    low = m & uint64(0xFFFFFFFF)
    if low < bound:
        threshold = (uint64(0x100000000) - bound) % bound
        while low < threshold:
            r, g0, g1, g2, g3 = step(g0, g1, g2, g3)
            m = (r >> uint64(32)) * bound
            low = m & uint64(0xFFFFFFFF)
    return int(np.int64(m >> uint64(32))), g0, g1, g2, g3


@njit(cache=True)
def _next_u64_compiled(g: np.ndarray) -> np.uint64:
    out, g0, g1, g2, g3 = step(g[0], g[1], g[2], g[3])
    g[0], g[1], g[2], g[3] = g0, g1, g2, g3
    return out


@njit(cache=True)
def _below_compiled(g: np.ndarray, n: int) -> int:
    value, g0, g1, g2, g3 = below_held(g[0], g[1], g[2], g[3], n)
    g[0], g[1], g[2], g[3] = g0, g1, g2, g3
    return value


def _next_u64_python(g: np.ndarray) -> np.uint64:
    s0, s1, s2, s3 = (int(v) for v in g)
    five = (s1 * 5) & MASK
    result = (((five << 7) | (five >> 57)) & MASK) * 9 & MASK
    t = (s1 << 17) & MASK
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = ((s3 << 45) | (s3 >> 19)) & MASK
    g[:] = np.array([s0, s1, s2, s3], dtype=np.uint64)
    return np.uint64(result)


def _below_python(g: np.ndarray, n: int) -> int:
    m = (int(_next_u64_python(g)) >> 32) * n
    if (m & 0xFFFFFFFF) < n:
        threshold = ((1 << 32) - n) % n
        while (m & 0xFFFFFFFF) < threshold:
            m = (int(_next_u64_python(g)) >> 32) * n
    return m >> 32


_PLAIN = bool(getattr(numba.config, "DISABLE_JIT", False))

#: The next 64 random bits (advances the state ``g`` in place).
next_u64: Any = _next_u64_python if _PLAIN else _next_u64_compiled
#: A uniform integer in [0, n), 1 <= n < 2**32, without bias (advances ``g``).
below: Any = _below_python if _PLAIN else _below_compiled
