"""xoshiro256** with splitmix64 seeding, and Lemire's unbiased bounded choice: the same
generator and choice rule as the C baseline, so random playouts are comparable."""

from __future__ import annotations

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


@njit(cache=True)
def next_u64(g: np.ndarray) -> np.uint64:
    """The next 64 random bits (advances ``g`` in place)."""
    result = _rotl(g[1] * uint64(5), 7) * uint64(9)
    t = g[1] << uint64(17)
    g[2] ^= g[0]
    g[3] ^= g[1]
    g[1] ^= g[2]
    g[0] ^= g[3]
    g[2] ^= t
    g[3] = _rotl(g[3], 45)
    return result


@njit(cache=True)
def below(g: np.ndarray, n: int) -> int:
    """A uniform integer in [0, n), 1 <= n < 2**32, without bias."""
    bound = uint64(n)
    m = (next_u64(g) >> uint64(32)) * bound
    low = m & uint64(0xFFFFFFFF)
    if low < bound:
        threshold = (uint64(0x100000000) - bound) % bound
        while low < threshold:
            m = (next_u64(g) >> uint64(32)) * bound
            low = m & uint64(0xFFFFFFFF)
    return int(m >> uint64(32))
