"""The law of a sketch's agreement count, and the candidate curve it gives.

Two signatures of a pair agree at C of their k positions. Banding only asks *which*
positions agree, and for both sketches the positions are exchangeable (SuperMinHash draws
a uniformly random permutation per shingle), so given C = m the agreeing positions are a
uniformly random m-subset of the k. Hence, for any sketch,

    P(candidate | s) = Σ_m P(C = m | s) · g(m),

where g(m) = P(some band of b × r is full | m of the k positions agree) depends on
(k, b, r) only and is computed exactly by a dynamic programme over the bands
(:func:`_merge`, see :mod:`nearsim.prediction`). The sketch enters through the law of C:

* ``"minhash"``: the k positions agree independently with probability s, C ~
  Binomial(k, s), and the sum is the textbook 1 − (1 − s^r)^b.
* ``"superminhash"``: C has mean k·s and variance k·s(1 − s)·α(k, u) (u the size of the
  pair's union), and no closed form. Its law is simulated with the sketch's own kernel:
  a trial signs u elements once and records which element wins each position; since the
  elements are exchangeable, labelling the first c of them "shared" gives the agreement
  count of a pair with |A ∩ B| = c, |A ∪ B| = u — every similarity c/u from one trial.
  :data:`TRIALS` trials per (k, u), once, cached in memory and on disk; the law at any s
  interpolates linearly between the simulated similarities. The Monte-Carlo standard
  error of a probability Σ L(m) g(m) is sd(g(C))/√TRIALS, reported beside it.

The law depends on u: it is nearly the same for every u up to about 2k, and tends to the
binomial as u grows past ~20k (α → 1). A curve is computed for one union size
(:data:`DEFAULT_UNION`, pairs of short documents, unless told), rounded to a grid of
sizes a factor √2 apart.
"""

from __future__ import annotations

import functools
import math
import os
import tempfile

import numpy as np
from numba import njit, prange

from nearsim.superminhash import GAMMA, _add, _reset, mix64
from nearsim.utils.validation import check_choice, check_int, check_num_perm

SKETCHES = ("minhash", "superminhash")
TRIALS = 20_000
"""Simulated trials per (k, u): Monte-Carlo errors of a probability below 0.5/√20,000 =
0.0035, and about 0.001 on the steep part of a tuned curve."""
DEFAULT_UNION = 200
"""The union size a SuperMinHash curve is computed for unless told: a pair of short
documents (about 200 characters, or 200 distinct shingles). Shorter ones have nearly the
same curve; for much longer documents it moves towards MinHash's."""
MAX_UNION = 16_384
"""Larger unions use this one's law (α(128, 16,384) = 0.99)."""
GRID_POINTS = 201
_LAW_VERSION = 2
"""2: SuperMinHash's streams start at x ⊕ key (1: at mix64(x ⊕ key)); laws cached under
another version are simulated again."""


@njit(cache=True)
def _log_factorials(k):
    lf = np.zeros(k + 1)
    for i in range(2, k + 1):
        lf[i] = math.lgamma(i + 1.0)
    return lf


@njit(cache=True)
def _log_choose(lf, n, m):
    return lf[n] - lf[m] - lf[n - m]


@njit(cache=True)
def _merge(h, n, add, full, lf):
    """Add ``add`` positions to ``n``: h over n + add positions from h over n.

    For a total of m agreements, x of them fall among the new positions with the
    hypergeometric weight C(add, x)·C(n, m − x)/C(n + add, m); with ``full`` the new
    positions are a band, and x = add fills it (probability 1 of a full band). The weights
    are walked from the mode by their ratios (one exponential per m) and normalised by
    their computed sum, so rounding in the log-factorials cancels.
    """
    total = n + add
    out = np.zeros(total + 1)
    for m in range(total + 1):
        lo = max(0, m - n)
        hi = min(add, m)
        mode = (m + 1) * (add + 1) // (total + 2)
        mode = min(max(mode, lo), hi)
        w0 = math.exp(
            _log_choose(lf, add, mode) + _log_choose(lf, n, m - mode) - (_log_choose(lf, total, m))
        )
        val = 1.0 if (full and mode == add) else h[m - mode]
        acc = w0 * val
        wsum = w0
        w = w0
        for x in range(mode, hi):  # x -> x + 1
            w *= (add - x) / (x + 1.0) * (m - x) / (n - m + x + 1.0)
            if w == 0.0:
                break
            val = 1.0 if (full and x + 1 == add) else h[m - x - 1]
            acc += w * val
            wsum += w
        w = w0
        for x in range(mode, lo, -1):  # x -> x - 1 (never the full band)
            w *= x / (add - x + 1.0) * (n - m + x) / (m - x + 1.0)
            if w == 0.0:
                break
            acc += w * h[m - x + 1]
            wsum += w
        out[m] = acc / wsum
    return out


@njit(cache=True)
def _sums_for_r(k, r, b_lo, b_hi, lf, law, c):
    """For b = b_lo … b_hi: the dot products of g with the laws in ``law``.

    ``law`` is (2, k + 1): all pairs, true pairs. Returns (b_hi − b_lo + 1, 4): candidates,
    found, accepted, found_filtered.
    """
    out = np.zeros((b_hi - b_lo + 1, 4))
    h = np.zeros(1)
    n = 0
    for b in range(1, b_hi + 1):
        h = _merge(h, n, r, True, lf)
        n += r
        if b < b_lo:
            continue
        g = _merge(h, n, k - n, False, lf) if n < k else h
        row = b - b_lo
        for m in range(k + 1):
            out[row, 0] += law[0, m] * g[m]
            out[row, 1] += law[1, m] * g[m]
        for m in range(c, k + 1):
            out[row, 2] += law[0, m] * g[m]
            out[row, 3] += law[1, m] * g[m]
    return out


@njit(cache=True, parallel=True)
def _all_sums(k, lf, law, c, offsets):
    """Every (b, r) with b·r <= k, row ``offsets[b − 1] + r − 1`` (datasketch's order)."""
    out = np.zeros((offsets[k], 4))
    for r0 in prange(k):
        r = r0 + 1
        part = _sums_for_r(k, r, 1, k // r, lf, law, c)
        for b in range(1, k // r + 1):
            out[offsets[b - 1] + r - 1, :] = part[b - 1, :]
    return out


@njit(cache=True)
def _count_law(s, w, true, k, lf):
    """W(m) = Σ w·Binom(m; k, s) over all pairs (row 0) and over the true ones (row 1)."""
    law = np.zeros((2, k + 1))
    pmf = np.zeros(k + 1)
    for q in range(s.shape[0]):
        sq = s[q]
        pmf[:] = 0.0
        if sq <= 0.0:
            pmf[0] = 1.0
        elif sq >= 1.0:
            pmf[k] = 1.0
        else:
            mode = min(int((k + 1) * sq), k)
            p0 = math.exp(
                _log_choose(lf, k, mode) + mode * math.log(sq) + (k - mode) * math.log1p(-sq)
            )
            odds = sq / (1.0 - sq)
            pmf[mode] = p0
            total = p0
            p = p0
            for m in range(mode, k):
                p *= (k - m) / (m + 1.0) * odds
                if p == 0.0:
                    break
                pmf[m + 1] = p
                total += p
            p = p0
            for m in range(mode, 0, -1):
                p *= m / (k - m + 1.0) / odds
                if p == 0.0:
                    break
                pmf[m - 1] = p
                total += p
            for m in range(k + 1):
                pmf[m] /= total
        for m in range(k + 1):
            law[0, m] += w[q] * pmf[m]
            if true[q]:
                law[1, m] += w[q] * pmf[m]
    return law


@njit(cache=True, parallel=True)
def _simulate(m, u, trials, cs, seed):
    """Agreement counts of pairs with union u and intersections ``cs``, over ``trials``
    SuperMinHash trials of k = m positions: ``counts[i, C]`` trials gave C agreements
    for intersection ``cs[i]``."""
    chunks = 64
    counts = np.zeros((chunks, cs.shape[0], m + 1), dtype=np.int64)
    for t0 in prange(chunks):
        h = np.empty(m, dtype=np.uint64)
        p = np.empty(m, dtype=np.int64)
        hist = np.empty(m, dtype=np.int64)
        who = np.empty(m, dtype=np.int64)
        for t in range(t0, trials, chunks):
            key = mix64(np.uint64(seed) * GAMMA + np.uint64(t))
            a = _reset(h, p, hist)
            for e in range(u):
                a = _add(np.uint64(e), e, key, h, p, hist, a, who)
            w = np.sort(who)
            i = 0
            for ci in range(cs.shape[0]):
                while i < m and w[i] < cs[ci]:
                    i += 1
                counts[t0, ci, i] += 1
    return counts.sum(axis=0)


def union_grid(union_size: int) -> int:
    """The simulated union size used for ``union_size``: the nearest of 2, 3, 4, 6, 8,
    11, 16, … (a factor √2 apart, rounded), at most :data:`MAX_UNION`."""
    u = min(max(int(union_size), 2), MAX_UNION)
    step = round(2 * math.log2(u))
    return max(2, min(round(2 ** (step / 2)), MAX_UNION))


def _cache_dir() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "nearsim", "sketch-laws")


def shipped_law_path(k: int, u: int) -> str:
    """Where the package keeps a precomputed law (k = 128 at the default union size: the
    curve ``--sketch superminhash`` tunes with by default, without a first-use simulation
    of a few seconds); other (k, u) are simulated once and cached under the user's cache
    folder."""
    name = f"superminhash-law-k{k}-u{u}-n{TRIALS}-v{_LAW_VERSION}.npz"
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", name)


def simulate_counts(k: int, u: int) -> tuple[np.ndarray, np.ndarray]:
    """The simulated intersections c (int64, shape (g,)) and agreement counts (int64,
    shape (g, k + 1): trials with C = m agreements) for union ``u``: deterministic (fixed
    seed and chunking), the same on every machine and thread count."""
    cs = np.unique(np.round(np.linspace(0.0, 1.0, GRID_POINTS) * u).astype(np.int64))
    return cs, _simulate(k, u, TRIALS, cs, 27)


@functools.lru_cache(maxsize=32)
def simulated_law(k: int, u: int) -> tuple[np.ndarray, np.ndarray]:
    """SuperMinHash's law of the agreement count for union ``u`` (on the grid), cached.

    Returns
    -------
    s : ndarray of float64, shape (g,)
        The simulated similarities c/u, ascending, from 0 to 1.
    law : ndarray of float64, shape (g, k + 1)
        ``law[i, m]`` = P(C = m | s[i]) (each row sums to 1).
    """
    shipped = shipped_law_path(k, u)
    if os.path.exists(shipped):  # the default curve's law ships with the package
        with np.load(shipped) as saved:
            return saved["cs"] / u, saved["counts"] / TRIALS
    path = os.path.join(_cache_dir(), f"superminhash-k{k}-u{u}-n{TRIALS}-v{_LAW_VERSION}.npz")
    try:
        with np.load(path) as saved:
            return saved["s"], saved["law"]
    except (OSError, ValueError, KeyError):
        pass
    cs, counts = simulate_counts(k, u)
    s, law = cs / u, counts / TRIALS
    try:  # whole or not at all; a cache that cannot be written is only slower next time
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), suffix=".npz")
        with os.fdopen(fd, "wb") as f:
            np.savez(f, s=s, law=law)
        os.replace(tmp, path)
    except OSError:
        pass
    return s, law


def _binomial_law(s: np.ndarray, k: int) -> np.ndarray:
    lf = _log_factorials(k)
    out = np.empty((s.shape[0], k + 1))
    for i, si in enumerate(s.tolist()):
        out[i] = _count_law(np.array([si]), np.ones(1), np.zeros(1, np.bool_), k, lf)[0]
    return out


def agreement_law(s, k: int, sketch: str = "minhash", union_size: int | None = None):
    """P(C = m | s) for every similarity in ``s``: shape (len(s), k + 1).

    Parameters
    ----------
    s : ndarray of float64, shape (n,)
        Similarities in [0, 1] (checked by the caller).
    k : int
        Signature length.
    sketch : {"minhash", "superminhash"}
    union_size : int, optional
        SuperMinHash: the pairs' union size (default :data:`DEFAULT_UNION`).

    Returns
    -------
    ndarray of float64, shape (n, k + 1)
    """
    s = np.asarray(s, dtype=np.float64).reshape(-1)
    if sketch == "minhash":
        return _binomial_law(s, k)
    grid, law = simulated_law(k, union_grid(DEFAULT_UNION if union_size is None else union_size))
    hi = np.clip(np.searchsorted(grid, s, side="left"), 1, grid.shape[0] - 1)
    lo = hi - 1
    frac = ((s - grid[lo]) / (grid[hi] - grid[lo])).reshape(-1, 1)
    return law[lo] * (1.0 - frac) + law[hi] * frac


def band_given_count(k: int, b: int, r: int) -> np.ndarray:
    """g(m) = P(some band of b × r is full | m of the k positions agree); shape (k + 1,)."""
    lf = _log_factorials(k)
    h = np.zeros(1)
    n = 0
    for _ in range(b):
        h = _merge(h, n, r, True, lf)
        n += r
    return _merge(h, n, k - n, False, lf) if n < k else h


def check_sketch(sketch, union_size, num_perm=None) -> tuple[str, int | None]:
    """The sketch and union size arguments, validated."""
    sketch = check_choice(sketch, "sketch", SKETCHES)
    if union_size is not None:
        union_size = check_int(union_size, "union_size", low=2)
    if num_perm is not None:
        check_num_perm(num_perm)
    return sketch, union_size


def curve(s, b: int, r: int, k: int, sketch: str, union_size: int | None = None):
    """P(candidate | s) of banding b × r over k positions, and its Monte-Carlo standard
    error (0 for MinHash's exact formula); both of shape (n,)."""
    law = agreement_law(s, k, sketch, union_size)
    g = band_given_count(k, b, r)
    p = law @ g
    if sketch == "minhash":
        return np.clip(p, 0.0, 1.0), np.zeros_like(p)
    var = np.maximum(law @ (g * g) - p * p, 0.0)
    return np.clip(p, 0.0, 1.0), np.sqrt(var / TRIALS)


def weighted_law(s: np.ndarray, w: np.ndarray, k: int, sketch: str, union_size=None):
    """Σ_q w_q · P(C = · | s_q): the law of the agreement count summed over weighted pairs,
    shape (k + 1,). For SuperMinHash each pair's interpolation weights are gathered onto
    the simulated similarities first, so the cost is O(len(s) + grid · k)."""
    s = np.asarray(s, dtype=np.float64).reshape(-1)
    w = np.asarray(w, dtype=np.float64).reshape(-1)
    if sketch == "minhash":
        return _count_law(s, w, np.zeros(s.shape[0], np.bool_), k, _log_factorials(k))[0]
    grid, law = simulated_law(k, union_grid(DEFAULT_UNION if union_size is None else union_size))
    hi = np.clip(np.searchsorted(grid, s, side="left"), 1, grid.shape[0] - 1)
    lo = hi - 1
    frac = (s - grid[lo]) / (grid[hi] - grid[lo])
    at = np.bincount(lo, weights=w * (1.0 - frac), minlength=grid.shape[0])
    at += np.bincount(hi, weights=w * frac, minlength=grid.shape[0])
    return at @ law
