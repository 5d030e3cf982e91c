"""R's default uniform generator (``set.seed``, ``runif``), so that tables sdcMicro's tests draw can be drawn here.

R's default is the Mersenne Twister (MT19937) seeded by R's own rule: the
seed is scrambled by 50 steps of the congruential generator
``seed = 69069 * seed + 1`` (32-bit), and each of the 625 seed words (the
position, then the 624 words of the state) takes the next step; the position
is then set to 624, so the first draw regenerates the whole state.  A draw is
the tempered 32-bit word times 2^-32, kept inside (0, 1).  ``runif(n, a, b)``
is ``a + (b - a) * u`` per draw.  This is the algorithm R documents (?RNG);
the draws of ``set.seed(3); runif(3)`` are 0.1680415, 0.8075164, 0.3849424,
as R prints them.
"""

from __future__ import annotations

import numpy as np

__all__ = ["RRandom"]

_N, _M = 624, 397
_MATRIX_A, _UPPER, _LOWER = 0x9908B0DF, 0x80000000, 0x7FFFFFFF
_MASK = 0xFFFFFFFF


class RRandom:
    """The stream of ``set.seed(seed)`` in R (kind Mersenne-Twister)."""

    def __init__(self, seed: int) -> None:
        s = seed & _MASK
        for _ in range(50):
            s = (69069 * s + 1) & _MASK
        words = []
        for _ in range(_N + 1):
            s = (69069 * s + 1) & _MASK
            words.append(s)
        self._state = words[1:]
        self._position = _N

    def _word(self) -> int:
        mt = self._state
        if self._position >= _N:
            for i in range(_N):
                y = (mt[i] & _UPPER) | (mt[(i + 1) % _N] & _LOWER)
                mt[i] = mt[(i + _M) % _N] ^ (y >> 1) ^ (_MATRIX_A if y & 1 else 0)
            self._position = 0
        y = mt[self._position]
        self._position += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        y ^= y >> 18
        return y & _MASK

    def unif(self) -> float:
        """One draw in (0, 1), as R's ``unif_rand``."""
        u = self._word() * 2.3283064365386963e-10
        if u <= 0.0:
            return 0.5 * 2.328306437080797e-10
        if 1.0 - u <= 0.0:
            return 1.0 - 0.5 * 2.328306437080797e-10
        return u

    def runif(self, n: int, low: float = 0.0, high: float = 1.0) -> np.ndarray:
        """``runif(n, low, high)``."""
        return np.array([low + (high - low) * self.unif() for _ in range(n)])
