"""LSH banding's arithmetic: the S-curve, its false-positive and false-negative areas, and
the b × r tuner (the candidate pairs themselves: :mod:`nearsim.banding`).

A signature of k values is cut into b bands of r rows each (band i is columns
i·r … i·r + r − 1; k − b·r columns are left unused). Two documents become a candidate pair
when all r values of at least one band are equal. For Jaccard similarity s that happens
with probability P(s) = 1 − (1 − s^r)^b.

The areas ∫₀ᵗ P(s) ds and ∫ₜ¹ (1 − P(s)) ds have polynomial integrands of degree b·r, so
Gauss–Legendre quadrature with ⌊b·r/2⌋ + 1 nodes is exact (up to rounding).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np
from numba import njit

from nearsim.utils.validation import (
    check_banding,
    check_bool,
    check_num_perm,
    check_threshold,
    check_weight,
)
from nearsim.utils.validation_arrays import check_similarity


# -- the S-curve -----------------------------------------------------------------------
def candidate_probability(
    s, b: int, r: int, *, sketch: str = "minhash", num_perm=None, union_size=None,
    with_error: bool = False,
):  # fmt: skip
    """Probability that a pair of Jaccard similarity ``s`` becomes a candidate.

    Parameters
    ----------
    s : float or array_like of float
        Jaccard similarity, 0 to 1.
    b : int
        Number of bands (>= 1).
    r : int
        Rows per band (>= 1), with b·r at most 4,096 (at most ``num_perm`` when given).
    sketch : {"minhash", "superminhash"}
        ``"minhash"``: independent positions, ``1 - (1 - s**r)**b`` exactly.
        ``"superminhash"``: the sketch's own curve (:mod:`nearsim.sketch_law`): its law of
        the agreement count, simulated once per (k, union size) and cached, through the
        exact band arithmetic. Its positions are negatively correlated, so it differs from
        the formula by up to about a point.
    num_perm : int, optional
        Signature length k (SuperMinHash's curve depends on it); default b·r.
    union_size : int, optional
        SuperMinHash: the pair's union size (default 200, pairs of short documents).
    with_error : bool
        Also return the Monte-Carlo standard error of each probability (0 for MinHash).

    Returns
    -------
    float or ndarray of float64
        Same shape as ``s``; with ``with_error``, a tuple (probability, standard error).

    Examples
    --------
    >>> round(candidate_probability(0.8, 9, 13), 4)
    0.3988
    """
    from nearsim.sketch_law import check_sketch, curve

    sketch, union_size = check_sketch(sketch, union_size)
    with_error = check_bool(with_error, "with_error")
    if num_perm is not None:
        b, r = check_banding(b, r, check_num_perm(num_perm))
    else:
        b, r = check_banding(b, r)
    ss = check_similarity(s, "s")
    if sketch == "minhash":
        # -expm1(b·log1p(-s^r)) keeps full relative precision where P is tiny; at s = 1 the
        # log is -inf and the result exactly 1 (no fallback formula that loses it elsewhere)
        with np.errstate(divide="ignore"):
            p = -np.expm1(b * np.log1p(-(ss**r)))
        err = np.zeros_like(p)
    else:
        k = b * r if num_perm is None else num_perm
        p, err = curve(np.reshape(ss, -1), b, r, k, sketch, union_size)
        p, err = p.reshape(np.shape(ss)), err.reshape(np.shape(ss))
    if np.ndim(p) == 0:
        p, err = float(p), float(err)
    return (p, err) if with_error else p


def steepest_point(b: int, r: int) -> float:
    """Similarity where the S-curve rises fastest.

    Setting P''(s) = 0 gives s* = ((r − 1)/(b·r − 1))^(1/r) (0 when r = 1 or b·r = 1,
    where the curve is concave). The popular approximation (1/b)^(1/r) is
    :func:`effective_threshold`.

    Returns
    -------
    float
    """
    b, r = check_banding(b, r)
    if r == 1 or b * r == 1:
        return 0.0
    return ((r - 1) / (b * r - 1)) ** (1.0 / r)


def effective_threshold(b: int, r: int) -> float:
    """The usual approximation of where the S-curve crosses: (1/b)^(1/r)."""
    b, r = check_banding(b, r)
    return (1.0 / b) ** (1.0 / r)


@functools.cache
def _gauss_legendre(n: int) -> tuple[np.ndarray, np.ndarray]:
    return np.polynomial.legendre.leggauss(n)


def _areas(t: float, b: int, r: int) -> tuple[float, float]:
    """Exact FP and FN areas of one banding by Gauss–Legendre quadrature."""
    x, w = _gauss_legendre((b * r) // 2 + 1)
    s_fp = (x + 1.0) * (t / 2.0)
    s_fn = t + (x + 1.0) * ((1.0 - t) / 2.0)
    fp = float(-np.expm1(b * np.log1p(-(s_fp**r))) @ w) * (t / 2.0)
    fn = float(np.power(1.0 - s_fn**r, b) @ w) * ((1.0 - t) / 2.0)
    return fp, fn


@njit(cache=True)
def _all_areas(t, k, x, w):
    """FP and FN areas of every (b, r) with b·r <= k, in datasketch's order.

    Order: b = 1..k, and for each b, r = 1..k // b. Only multiplications: for each r the
    nodes' s^r is one product away from s^(r-1), and (1 - s^r)^b one product away from
    (1 - s^r)^(b-1), so no power or exponential is evaluated (relative rounding error
    grows like b·r·eps, far below what ranking needs).
    """
    n_nodes = x.shape[0]
    offsets = np.zeros(k + 1, dtype=np.int64)  # first index of each b
    for b in range(1, k + 1):
        offsets[b] = offsets[b - 1] + k // b
    fp = np.empty(offsets[k], dtype=np.float64)
    fn = np.empty(offsets[k], dtype=np.float64)
    hf = t / 2.0
    hn = (1.0 - t) / 2.0
    s_fp = (x + 1.0) * hf
    s_fn = t + (x + 1.0) * hn
    pow_fp = np.ones(n_nodes)  # s^r
    pow_fn = np.ones(n_nodes)
    q_fp = np.empty(n_nodes)  # 1 - s^r
    q_fn = np.empty(n_nodes)
    cur_fp = np.empty(n_nodes)  # (1 - s^r)^b
    cur_fn = np.empty(n_nodes)
    for r in range(1, k + 1):
        for j in range(n_nodes):
            pow_fp[j] *= s_fp[j]
            pow_fn[j] *= s_fn[j]
            q_fp[j] = 1.0 - pow_fp[j]
            q_fn[j] = 1.0 - pow_fn[j]
            cur_fp[j] = 1.0
            cur_fn[j] = 1.0
        for b in range(1, k // r + 1):
            a_fp = 0.0
            a_fn = 0.0
            for j in range(n_nodes):
                cur_fp[j] *= q_fp[j]
                cur_fn[j] *= q_fn[j]
                a_fp += w[j] * (1.0 - cur_fp[j])
                a_fn += w[j] * cur_fn[j]
            idx = offsets[b - 1] + r - 1
            fp[idx] = a_fp * hf
            fn[idx] = a_fn * hn
    return fp, fn


def false_positive_area(t: float, b: int, r: int) -> float:
    """Area under the S-curve left of the threshold, ∫₀ᵗ P(s) ds.

    Parameters
    ----------
    t : float
        Threshold, in (0, 1].
    b, r : int
        Bands and rows per band, b·r at most 4,096.

    Returns
    -------
    float
    """
    t = check_threshold(t, "t")
    b, r = check_banding(b, r)
    return _areas(t, b, r)[0]


def false_negative_area(t: float, b: int, r: int) -> float:
    """Area above the S-curve right of the threshold, ∫ₜ¹ (1 − P(s)) ds.

    Parameters
    ----------
    t : float
        Threshold, in (0, 1].
    b, r : int
        Bands and rows per band, b·r at most 4,096.

    Returns
    -------
    float
    """
    t = check_threshold(t, "t")
    b, r = check_banding(b, r)
    return _areas(t, b, r)[1]


# -- the tuner -------------------------------------------------------------------------
class Choice(NamedTuple):
    """One banding choice considered by :func:`tune`.

    Attributes
    ----------
    b : int
        Bands.
    r : int
        Rows per band.
    fp : float
        False-positive area ∫₀ᵗ P.
    fn : float
        False-negative area ∫ₜ¹ (1 − P).
    error : float
        ``fp_weight * fp + fn_weight * fn``.
    """

    b: int
    r: int
    fp: float
    fn: float
    error: float


# Choices whose exact error is this close to the best are re-scored the way datasketch
# scores them (scipy.integrate.quad of the same lambdas), so near-ties break the same way.
_TIE_WINDOW = 1e-8


def _datasketch_error(t: float, b: int, r: int, wfp: float, wfn: float) -> float:
    from scipy.integrate import quad

    def prob_fp(s):
        return 1 - (1 - s ** float(r)) ** float(b)

    def prob_fn(s):
        return 1 - (1 - (1 - s ** float(r)) ** float(b))

    fp = quad(prob_fp, 0.0, t)[0]
    fn = quad(prob_fn, t, 1.0)[0]
    return fp * wfp + fn * wfn


def _sketch_areas(t: float, k: int, sketch: str, union_size) -> tuple[np.ndarray, np.ndarray]:
    """FP and FN areas of every (b, r) under a simulated sketch's curve, in datasketch's
    order: the curve is piecewise linear between the simulated similarities, so the
    trapezoid rule on them (and on t) integrates it exactly."""
    from nearsim.sketch_law import (
        DEFAULT_UNION,
        _all_sums,
        _log_factorials,
        simulated_law,
        union_grid,
        weighted_law,
    )

    grid = simulated_law(k, union_grid(DEFAULT_UNION if union_size is None else union_size))[0]
    laws, widths = [], []
    for lo, hi in ((0.0, t), (t, 1.0)):
        x = np.unique(np.concatenate([[lo, hi], grid[(grid > lo) & (grid < hi)]]))
        w = np.zeros_like(x)
        w[:-1] += np.diff(x) / 2
        w[1:] += np.diff(x) / 2
        laws.append(weighted_law(x, w, k, sketch, union_size))
        widths.append(hi - lo)
    r_max = k // np.arange(1, k + 1)
    offsets = np.concatenate([[0], np.cumsum(r_max)]).astype(np.int64)
    sums = _all_sums(k, _log_factorials(k), np.stack(laws), k + 1, offsets)
    return sums[:, 0], widths[1] - sums[:, 1]


def tune(
    threshold: float,
    num_perm: int,
    fp_weight: float = 0.5,
    fn_weight: float = 0.5,
    *,
    sketch: str = "minhash",
    union_size=None,
) -> list[Choice]:
    """Every banding b × r <= num_perm, ranked by weighted false-positive and -negative area.

    Parameters
    ----------
    threshold : float
        Jaccard threshold t, in (0, 1].
    num_perm : int
        Signature length k, 1 to 4,096.
    fp_weight, fn_weight : float
        Weights (0 to 1, summing to 1) of the false-positive and false-negative areas.
    sketch : {"minhash", "superminhash"}
        Whose curve the areas are taken under: SuperMinHash's own, simulated
        (:func:`candidate_probability`), integrated exactly as the piecewise-linear curve
        it is; its near-ties are broken by enumeration order.
    union_size : int, optional
        SuperMinHash: the pairs' union size (default 200).

    Returns
    -------
    list of Choice
        All (b, r) with b·r <= num_perm, best first, ordered by error and then by
        datasketch's enumeration order (b ascending, then r ascending), so that
        ``tune(...)[0]`` is what ``datasketch.MinHashLSH(threshold, num_perm,
        weights=(fp_weight, fn_weight))`` picks. Errors are computed exactly; choices
        within 1e-8 of the best are re-scored with datasketch's own quadrature so that its
        rounding decides near-ties exactly as it does.

    Examples
    --------
    >>> best = tune(0.8, 128)[0]
    >>> (best.b, best.r)
    (9, 13)
    """
    t = check_threshold(threshold)
    k = check_num_perm(num_perm)
    wfp = check_weight(fp_weight, "fp_weight")
    wfn = check_weight(fn_weight, "fn_weight")
    if abs(wfp + wfn - 1.0) > 1e-9:
        raise ValueError(
            f"fp_weight + fn_weight = {wfp:g} + {wfn:g} = {wfp + wfn:g} is not accepted; "
            "accepted: weights that sum to 1 (as datasketch requires)"
        )
    # datasketch's enumeration order: b = 1..k, r = 1..k // b
    r_max = k // np.arange(1, k + 1)
    b = np.repeat(np.arange(1, k + 1), r_max)
    starts = np.cumsum(r_max) - r_max
    r = np.arange(b.shape[0]) - np.repeat(starts, r_max) + 1
    from nearsim.sketch_law import check_sketch

    sketch, union_size = check_sketch(sketch, union_size)
    if sketch == "minhash":
        x, w = _gauss_legendre(k // 2 + 1)
        fp, fn = _all_areas(t, k, x, w)
    else:
        fp, fn = _sketch_areas(t, k, sketch, union_size)
    error = fp * wfp + fn * wfn
    order = np.lexsort((np.arange(error.shape[0]), error))
    near = order[error[order] <= error[order[0]] + _TIE_WINDOW]
    if near.shape[0] > 1 and sketch == "minhash":
        ds = np.array([_datasketch_error(t, int(b[i]), int(r[i]), wfp, wfn) for i in near])
        near = near[np.lexsort((near, ds))]
        order = np.concatenate([near, order[near.shape[0] :]])
    return list(
        map(
            Choice,
            b[order].tolist(),
            r[order].tolist(),
            fp[order].tolist(),
            fn[order].tolist(),
            error[order].tolist(),
        )
    )
