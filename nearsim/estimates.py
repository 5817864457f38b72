"""Estimating Jaccard similarity from MinHash (or SuperMinHash) signatures: the share
of equal positions, its correction for 1-byte signatures, and its standard error.

Both sketches' estimates are the share of positions where two signatures agree; the
functions here read signatures of either (``nearsim.minhash`` re-exports them).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from nearsim.utils.validation import ArgumentTypeError, check_bool, check_num_perm
from nearsim.utils.validation_arrays import check_pairs, check_signatures, check_similarity

ONE_BYTE_CHANCE = 1.0 / 256.0
"""Chance that two different 1-byte values agree: the collision rate the estimator removes."""


@njit(cache=True, inline="always")
def _agreeing(signatures, i, j):
    """How many positions of rows i and j of ``signatures`` are equal."""
    same = 0
    for c in range(signatures.shape[1]):
        same += signatures[i, c] == signatures[j, c]
    return same


@njit(cache=True, parallel=True)
def _agreement_counts(signatures, codes, n):
    """How many positions agree, for each pair coded ``i · n + j`` (uint16: k ≤ 4,096)."""
    m = codes.shape[0]
    out = np.empty(m, dtype=np.uint16)
    for t in prange(m):
        out[t] = _agreeing(signatures, codes[t] // n, codes[t] % n)
    return out


@njit(cache=True, parallel=True)
def _agreement(signatures, left, right):
    m = left.shape[0]
    k = signatures.shape[1]
    out = np.empty(m, dtype=np.float64)
    for t in prange(m):
        out[t] = _agreeing(signatures, left[t], right[t]) / k
    return out


def _as_signature_pair(sig1, sig2) -> tuple[np.ndarray, np.ndarray]:
    accepted = "two 1-D integer arrays of the same length (signatures of one MinHasher)"
    pair = []
    for name, sig in (("sig1", sig1), ("sig2", sig2)):
        if not isinstance(sig, np.ndarray) or sig.dtype.kind not in "iu":
            raise ArgumentTypeError(
                f"{name}={type(sig).__name__} is not accepted; accepted: {accepted}"
            )
        if sig.ndim != 1 or sig.size == 0:
            raise ValueError(
                f"{name} has shape {sig.shape}, which is not accepted; accepted: {accepted}"
            )
        pair.append(sig)
    if pair[0].shape != pair[1].shape:
        raise ValueError(
            f"sig1 and sig2 have lengths {pair[0].shape[0]} and {pair[1].shape[0]}, which is "
            f"not accepted; accepted: {accepted}"
        )
    return pair[0], pair[1]


def correct_one_byte(agreement):
    """Jaccard estimate from the agreement rate of 1-byte signatures.

    Two different minima agree in their lowest 8 bits by chance with probability
    c = 1/256, so the agreement rate E has expectation J + (1 − J)·c and

        Ĵ = (E − c) / (1 − c),

    clipped to [0, 1] (unbiased for J well above 0; Li & König, b-bit minwise hashing).

    Parameters
    ----------
    agreement : float or ndarray of float64
        Share of equal positions.

    Returns
    -------
    float or ndarray of float64
    """
    est = (np.asarray(agreement, dtype=np.float64) - ONE_BYTE_CHANCE) / (1.0 - ONE_BYTE_CHANCE)
    est = np.clip(est, 0.0, 1.0)
    return float(est) if est.ndim == 0 else est


def estimate_jaccard(sig1: np.ndarray, sig2: np.ndarray) -> float:
    """Estimated Jaccard similarity of two signatures: the share of equal positions.

    Parameters
    ----------
    sig1, sig2 : ndarray of uint32 (or uint8), shape (k,)
        Signatures from the same :class:`MinHasher`.

    Returns
    -------
    float
        Share of positions where the signatures agree. For 1-byte (uint8) signatures the
        share is corrected for chance agreements, see :func:`correct_one_byte`.
    """
    s1, s2 = _as_signature_pair(sig1, sig2)
    share = float(np.count_nonzero(s1 == s2)) / s1.shape[0]
    if s1.dtype == np.uint8 and s2.dtype == np.uint8:
        return correct_one_byte(share)
    return share


def estimate_pairs(signatures: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """Estimated Jaccard similarity of many pairs of rows.

    Parameters
    ----------
    signatures : ndarray of uint32 (or uint8), shape (n, k)
    pairs : ndarray of int, shape (m, 2)
        Row indices, 0 <= i, j < n and i != j (repeats allowed).

    Returns
    -------
    ndarray of float64, shape (m,)
        As :func:`estimate_jaccard` for each pair (corrected for uint8 signatures).
    """
    sig = check_signatures(signatures)
    pr = check_pairs(pairs, "pairs", n=sig.shape[0], ordered=False, unique=False, distinct=False)
    share = _agreement(np.ascontiguousarray(sig), pr[:, 0].copy(), pr[:, 1].copy())
    if sig.dtype == np.uint8:
        return correct_one_byte(share)
    return share


def agreement_counts(signatures: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Agreeing positions of pairs coded ``i · n + j`` (n = len(signatures)), as a corpus
    run holds its candidates: 2 bytes a candidate, where the estimates take 8.
    ``counts / k`` is :func:`estimate_pairs` of uint32 signatures, exactly.

    Parameters
    ----------
    signatures : ndarray of uint32, shape (n, k), C-contiguous
    codes : ndarray of int64, shape (m,)
        Checked by the caller: every code below n².

    Returns
    -------
    ndarray of uint16, shape (m,)
    """
    return _agreement_counts(signatures, codes, np.int64(max(signatures.shape[0], 1)))


def reaching(counts: np.ndarray, num_perm: int, threshold: float) -> np.ndarray:
    """Which agreement counts give an estimate ``count / num_perm`` at or above
    ``threshold``, decided exactly as ``estimate >= threshold`` is on the float64 estimates
    (a table of the k + 1 possible answers).

    Returns
    -------
    ndarray of bool, shape (m,)
    """
    table = np.arange(num_perm + 1, dtype=np.float64) / num_perm >= threshold
    return table[counts]


def standard_error(j, num_perm: int, *, one_byte: bool = False):
    """Standard error of the MinHash estimate, sqrt(J(1 − J)/k).

    Parameters
    ----------
    j : float or array_like
        Jaccard similarity, 0 to 1.
    num_perm : int
        Signature length k, 1 to 4,096 (``MAX_PERM``).
    one_byte : bool
        For 1-byte signatures: the agreement rate P = J + (1 − J)/256 has standard error
        sqrt(P(1 − P)/k), and the corrected estimate sqrt(P(1 − P)/k) / (1 − 1/256).

    Returns
    -------
    float or ndarray of float64
    """
    num_perm = check_num_perm(num_perm)
    jj = check_similarity(j, "j")
    if check_bool(one_byte, "one_byte"):
        p = jj + (1 - jj) * ONE_BYTE_CHANCE
        se = np.sqrt(p * (1 - p) / num_perm) / (1 - ONE_BYTE_CHANCE)
    else:
        se = np.sqrt(jj * (1 - jj) / num_perm)
    return float(se) if se.ndim == 0 else se
