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
the shared documents' term B dominates.

When pairs are on their own or in small clusters, the interval is the Wilson interval
at the *effective* number of pairs ``R(1 − R) / (V / T²)`` (at most T / (1 − π₂), the
finite population correction of T pairs), so that it stays inside [0, 1] (Korn and
Graubard 1998); when every sampled pair was found (or none), the effective number is the
documents of S with a true pair, halved, so the interval does not collapse.

When one cluster may hold most of the sampled true pairs (a document of S has w true pairs
with w(w + 1) / 2 ≥ T / 2: its cluster has at least w + 1 sampled members), V(R) misleads
in two ways, and the interval is built differently:

* R is then a curved function of how the cluster's sampled members fell, and a sample
  with a low R also shows a small V(R): the Wilson interval above is too short on the side
  of the truth (coverage 0.90–0.94 in the tests' simulations). The interval takes in
  every R₀ that Fieller's test for a ratio does not reject, D(R₀)² ≤ z²·V(R₀) with
  d_ij = f_ij − R₀·t_ij: the spread judged at R₀, not at R;
* a sample that catches none of a large cluster's few strays (the members the run left
  apart) shows V near zero (coverage 0.82 in the simulations). The interval also takes in
  Wilson's interval at m = (documents of S with a true pair) / 2 / (1 − π₂) pairs: a
  sample sees a cluster through its documents, and a clique of k sampled documents is worth
  about k / 2 independent pairs when few of its members were left apart (the variance of
  its recall is then 4q / k, q the share left apart, against R(1 − R) ≈ 2q).

The union of the two is conservative (coverage 0.97–1.0 in the simulations) — a sample
cannot tell a giant cluster with no strays from one with a few it missed. Coverage in both
regimes is measured by simulation in the tests.
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
    parts = _variance_parts(found, true, f_pairs, total, pi2, pi3, pi4)
    var = float(np.polyval(parts[1][::-1], r)) / (total * total)  # V(R) / T²
    docs = max(np.count_nonzero(true) / 2.0 / (1.0 - pi2), 1.0)  # documents, halved
    widest = int(true.max())  # the most true pairs of one document
    if widest * (widest + 1) / 2 >= total / 2:  # one cluster may hold most pairs
        _r, low, high = wilson(r * docs, docs)
        if 0 < r < 1:  # (every pair found, or none: V(R₀) ∝ (R₀ − R)², no information)
            fieller = _fieller(*parts)
            if fieller is not None:
                low, high = min(low, fieller[0]), max(high, fieller[1])
        return r, low, high
    if 0 < r < 1 and var > 0:
        effective = max(min(total / (1.0 - pi2), r * (1 - r) / var), 1.0)
    else:  # every sampled pair found (or none)
        effective = docs
    return (r, *wilson(r * effective, effective)[1:])


def _variance_parts(found, true, f_pairs, total, pi2, pi3, pi4):
    """D(R₀)² and V(R₀) as coefficients of (1, R₀, R₀²) (see :func:`_fieller`)."""
    k_a = 1 - pi2
    k_b = 1 - pi2 * pi2 / pi3 if pi3 > 0 else 0.0
    k_c = 1 - pi2 * pi2 / pi4 if pi4 > 0 else 0.0
    f, t = f_pairs, total
    a = np.array([f, -2 * f, t])
    e2 = np.array([found @ found, -2 * float(found @ true), true @ true])
    d2 = np.array([f * f, -2 * f * t, t * t])
    return d2, (k_a - k_c) * a + (k_b - k_c) * (e2 - 2 * a) + k_c * d2


def _fieller(d2, var, z: float = Z95):
    """The R₀ with D(R₀)² ≤ z²·V(R₀) (see the module text), or None when that set is empty
    (a negative variance estimate at R). Each part of V(R₀) is a quadratic in R₀:
    A = F − 2F·R₀ + T·R₀², B = Σ e_i² − 2A with Σ e_i² = Σf_i² − 2R₀·Σf_i t_i + R₀²·Σt_i², and
    C = D² − A − B, so V = (k_A − k_C)·A + (k_B − k_C)·B + k_C·D² with k the three
    coefficients (1 − π₂, 1 − π₂²/π₃, 1 − π₂²/π₄)."""
    q0, q1, q2 = d2 - z * z * var
    if q2 <= 0:  # too few pairs to bound R₀ on at least one side
        return 0.0, 1.0
    disc = q1 * q1 - 4 * q2 * q0
    if disc < 0:
        return None
    root = math.sqrt(disc)
    return max(0.0, (-q1 - root) / (2 * q2)), min(1.0, (-q1 + root) / (2 * q2))
