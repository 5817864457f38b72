"""The audit's estimates and their 95% intervals.

Precision is a proportion over a simple random sample of the removed documents drawn
without replacement: the Wilson score interval with the sample size inflated by the finite
population correction (``m / (1 − f)``, f the sampled share), which makes the interval a
point when every removed document was checked.

Recall is a ratio over a simple random sample of documents (the *anchors*): each anchor a
brings ``T_a``, the pairs (a, x) with x after a in corpus order and J ≥ t, and ``F_a``, how
many of them the run put in one cluster; every pair of the corpus is counted from its
first document, so ΣF / ΣT over all documents is the recall. The estimate is the ratio
R = ΣF_a / ΣT_a over the anchors; its variance is the ratio estimator's (Cochran 1977,
§6.4): ``(1 − f) / (m · T̄²) · Σ (F_a − R·T_a)² / (m − 1)``. The interval is the Wilson
interval at the *effective* number of pairs ``R(1 − R) / variance`` (at most ΣT), so that
it stays inside [0, 1] (Korn and Graubard 1998); when every sampled pair was found (or
none), each anchor with a true pair counts as one trial, so the interval does not
collapse. Its coverage is measured by simulation in the tests.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["Z95", "ratio_interval", "wilson"]

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


def ratio_interval(found: np.ndarray, true: np.ndarray, population: int):
    """Recall and its 95% interval from per-anchor counts (see the module text).

    Parameters
    ----------
    found, true : ndarray of int64, shape (m,)
        Per anchor, ``F_a`` and ``T_a``.
    population : int
        Documents in the corpus (anchors are a simple random sample of them).

    Returns
    -------
    (estimate, low, high) : tuple of float
        NaN each when no anchor has a true pair.
    """
    found = np.asarray(found, dtype=np.float64)
    true = np.asarray(true, dtype=np.float64)
    m = true.shape[0]
    total = float(true.sum())
    if m == 0 or total == 0:
        return math.nan, math.nan, math.nan
    r = float(found.sum()) / total
    f = m / population if population else 1.0
    if f >= 1.0:
        return r, r, r
    if m < 2:
        return wilson(r * total, total)
    resid = found - r * true
    var = (1.0 - f) / (m * (total / m) ** 2) * float(resid @ resid) / (m - 1)
    if 0 < r < 1 and var > 0:
        effective = min(total, r * (1 - r) / var)
    else:  # every sampled pair found (or none): count each anchor with a pair as one trial
        effective = np.count_nonzero(true) / (1.0 - f)
    effective = max(effective, 1.0)
    return (r, *wilson(r * effective, effective)[1:])
