"""SuperMinHash written from the paper, slowly and literally, for the tests.

O. Ertl, "SuperMinHash – A New Minwise Hashing Algorithm for Jaccard Similarity
Estimation", arXiv:1706.05698: Algorithm 1 (:func:`algorithm1`) with Python floats and
lists, and the same random numbers without the early stop (:func:`full_permutations`:
every element's whole permutation, each position the minimum of j + r over the
elements), which shows that stopping at j > a changes nothing. :func:`alpha` is the
paper's variance factor α(m, u) in exact rational arithmetic.

The random numbers are nearsim's choice (``nearsim/superminhash.py``'s docstring): a
shingle's value x (:func:`value`: its bytes when there are at most 7, a chain of mix64
over its 8-byte chunks otherwise); element x's stream is SplitMix64 from x ⊕ key,
key = mix64(seed ⊕ tweak); step j takes one output z, r = (z >> 32) / 2³², and the
Fisher–Yates index
j + ⌊(z mod 2³²)·(m − j) / 2³²⌋. A value j + r is written j·2³² + r·2³² for the
signature: mix64 of that integer, mod 2³¹ − 1.
"""

from __future__ import annotations

import math
from fractions import Fraction

MASK64 = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15
TWEAK = 0x5355504552D1A5E5
P = (1 << 31) - 1
EMPTY = (1 << 32) - 1


def mix64(z: int) -> int:
    z &= MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def value(shingle: str) -> int:
    """The shingle's 64-bit value x, from its UTF-8 bytes."""
    data = shingle.encode("utf-8")
    n = len(data)
    if n <= 7:
        return int.from_bytes(data, "little") | n << 56
    h = n
    for t in range(0, n, 8):
        h = mix64(h ^ int.from_bytes(data[t : t + 8], "little"))
    return h


def stream(x: int, seed: int):
    """Element x's random numbers: (r, z mod 2³²) for steps j = 0, 1, …"""
    state = x ^ mix64(seed ^ TWEAK)
    while True:
        state = (state + GAMMA) & MASK64
        z = mix64(state)
        yield (z >> 32) / 2**32, z & 0xFFFFFFFF


def _index(low: int, j: int, m: int) -> int:
    """A uniform integer in {j, …, m − 1} from 32 random bits."""
    return j + ((low * (m - j)) >> 32)


def _value(h: float) -> int:
    return EMPTY if h == math.inf else mix64(round(h * 2**32)) % P


def algorithm1(xs: list[int], m: int, seed: int) -> list[int]:
    """Algorithm 1 of the paper, line by line; ``xs`` are the elements' values
    (repeats allowed: each occurrence is its own element d, identified by its place)."""
    h = [math.inf] * m
    p = [0] * m
    q = [-1] * m
    b = [0] * (m - 1) + [m]
    a = m - 1
    for d, x in enumerate(xs):
        rand = stream(x, seed)
        j = 0
        while j <= a:
            r, low = next(rand)
            k = _index(low, j, m)
            if q[k] != d:
                q[k] = d
                p[k] = k
            if q[j] != d:
                q[j] = d
                p[j] = j
            p[j], p[k] = p[k], p[j]
            if r + j < h[p[j]]:
                j2 = m - 1 if h[p[j]] == math.inf else min(math.floor(h[p[j]]), m - 1)
                h[p[j]] = r + j
                if j < j2:
                    b[j2] -= 1
                    b[j] += 1
                    while b[a] == 0:
                        a -= 1
            j += 1
    return [_value(v) for v in h]


def full_permutations(xs: list[int], m: int, seed: int) -> list[int]:
    """The same random numbers without the early stop: every element draws its whole
    permutation π (Fisher–Yates) and gives position π(j) the value j + r_j; each position
    keeps the minimum over the elements (the first on a tie)."""
    h = [math.inf] * m
    for x in xs:
        rand = stream(x, seed)
        perm = list(range(m))
        for j in range(m):
            r, low = next(rand)
            k = _index(low, j, m)
            perm[j], perm[k] = perm[k], perm[j]
            h[perm[j]] = min(h[perm[j]], r + j)
    return [_value(v) for v in h]


def alpha(m: int, u: int) -> Fraction:
    """α(m, u) = 1 − Σ_{q=1}^{m−1} q^u ((q+1)^u + (q−1)^u − 2q^u) / ((m−1)^(u−1) m^u (u−1)),
    exactly (the paper's Var(Ĵ) = J(1 − J)/m · α(m, u), u = |A ∪ B| ≥ 2)."""
    s = sum(q**u * ((q + 1) ** u + (q - 1) ** u - 2 * q**u) for q in range(1, m))
    return 1 - Fraction(s, (m - 1) ** (u - 1) * m**u * (u - 1))
