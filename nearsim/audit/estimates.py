"""The audit's estimates and their 95% intervals.

Precision is a proportion over a simple random sample of the removed documents drawn
without replacement: the Wilson score interval with the sample size inflated by the finite
population correction (``m / (1 − f)``, f the sampled share), which makes the interval a
point when every removed document was checked.

Recall is a ratio over the pairs inside a simple random sample S of s documents (drawn
without replacement from the n of the corpus): every pair of the corpus lies in S with the
same probability π₂ = s(s − 1) / (n(n − 1)), so R = F / T (F of the T pairs of S with
J ≥ t that the run put in one cluster) estimates the recall. R − recall ≈ D / T with
D = Σ d_ij over the pairs of S, d_ij = f_ij − R·t_ij; D is a sum over pairs of a sample of
units (a U-statistic), whose variance has a term for each pair, one for two pairs sharing a
document, and one for two disjoint pairs. Its unbiased (Horvitz–Thompson) estimate is

    V = (1 − π₂)·A + (1 − π₂² / π₃)·B + (1 − π₂² / π₄)·C

with A = Σ d_ij² over the pairs of S, B = Σ_i (e_i² − Σ_j d_ij²) over the documents of S
(e_i = Σ_j d_ij, the pairs sharing document i), C = D² − A − B (the disjoint ones), and
π₃, π₄ the probabilities that three, four given documents are all in S. When duplicates
come in pairs, B ≈ 0 and V ≈ A (each pair on its own); when they come in large clusters
the shared documents' term B dominates. The interval is the Wilson interval at the
*effective* number of pairs ``R(1 − R) / (V / T²)`` (at most T / (1 − π₂), the finite
population correction of T pairs), so that it stays inside
[0, 1] (Korn and Graubard 1998); when every sampled pair was found (or none), the effective
number is the documents of S with a true pair, halved, so the interval does not collapse.
Its coverage is measured by simulation in the tests.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["Z95", "pair_ratio_interval", "proportion_interval", "wilson"]

Z95 = 1.959963984540054


def wilson(successes: float, trials: float, z: float = Z95) -> tuple[float, float, float]:
    """The Wilson score interval of a proportion.

    Parameters
    ----------
    successes, trials : float
        Counts (trials may be an effective, non-integer number); ``trials`` ≥ 0.
    z : float
        The normal quantile (1.96 for 95%).

    Returns
    -------
    (estimate, low, high) : tuple of float
        NaN each when ``trials`` is 0; ``(p, p, p)`` when ``trials`` is infinite.

    Examples
    --------
    >>> [round(v, 4) for v in wilson(8, 10)]
    [0.8, 0.4902, 0.9433]
    """
    if trials <= 0:
        return math.nan, math.nan, math.nan
    p = successes / trials
    if math.isinf(trials):
        return p, p, p
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z / (1 + z2 / trials) * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    return p, max(0.0, centre - half), min(1.0, centre + half)


def proportion_interval(successes: int, sample: int, population: int):
    """Wilson interval of a proportion from a simple random sample without replacement.

    Parameters
    ----------
    successes, sample, population : int
        Sampled items that qualify, items sampled, items in the population.

    Returns
    -------
    (estimate, low, high) : tuple of float
    """
    if sample == 0:
        return math.nan, math.nan, math.nan
    f = sample / population if population else 1.0
    effective = math.inf if f >= 1.0 else sample / (1.0 - f)
    p = successes / sample
    if math.isinf(effective):
        return p, p, p
    return wilson(p * effective, effective)


def pair_ratio_interval(found: np.ndarray, true: np.ndarray, sample: int, population: int):
    """Recall and its 95% interval from the pairs inside a sample (see the module text).

    Parameters
    ----------
    found, true : ndarray of int64, shape (s,)
        Per document of the sample S: of its pairs with the other documents of S, how many
        reach t (``true``) and how many of those the run put in one cluster (``found``).
        Each pair is counted at both of its documents.
    sample, population : int
        s and n: S is a simple random sample of s of the corpus's n documents.

    Returns
    -------
    (estimate, low, high) : tuple of float
        NaN each when no pair of S reaches t.

    Examples
    --------
    >>> e, lo, hi = pair_ratio_interval(np.array([1, 1, 0, 0]), np.array([1, 1, 1, 1]), 4, 100)
    >>> round(e, 3), lo < 0.5 < hi
    (0.5, True)
    """
    found = np.asarray(found, dtype=np.float64)
    true = np.asarray(true, dtype=np.float64)
    s, n = int(sample), int(population)
    total = float(true.sum()) / 2.0  # T: each pair is counted at both documents
    if s < 2 or total == 0:
        return math.nan, math.nan, math.nan
    f_pairs = float(found.sum()) / 2.0
    r = f_pairs / total
    if s >= n:
        return r, r, r
    pi2 = s * (s - 1) / (n * (n - 1))
    pi3 = pi2 * (s - 2) / (n - 2)
    pi4 = pi3 * (s - 3) / (n - 3) if n > 3 else 0.0
    # d = 1 − R for a found pair, −R for a missed one; A, B, C as in the module text
    a = f_pairs * (1 - r) ** 2 + (total - f_pairs) * r * r
    e = found - r * true
    own = found * (1 - r) ** 2 + (true - found) * r * r  # Σ_j d_ij² at document i
    b = float(e @ e) - float(own.sum())
    c = -a - b  # D = 0 at R
    var_d = (1 - pi2) * a
    var_d += (1 - pi2 * pi2 / pi3) * b if pi3 > 0 else 0.0
    var_d += (1 - pi2 * pi2 / pi4) * c if pi4 > 0 else 0.0
    var = var_d / (total * total)
    if 0 < r < 1 and var > 0:
        effective = min(total / (1.0 - pi2), r * (1 - r) / var)
    else:  # every sampled pair found (or none): the documents with a pair, halved
        effective = np.count_nonzero(true) / 2.0 / (1.0 - pi2)
    effective = max(effective, 1.0)
    return (r, *wilson(r * effective, effective)[1:])
