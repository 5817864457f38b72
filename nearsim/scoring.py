"""How good are the found pairs? Recall and precision against exact ground truth.

Ground truth is a DataFrame of pairs with their exact Jaccard similarity (columns i, j,
jaccard — what :func:`nearsim.exact_pairs` returns); a true pair has Jaccard >= the
threshold t. Everything here is scored by one rule, :func:`score_codes`: given the sorted
distinct codes (``i * n + j``) of the pairs found and of the true pairs, it counts the hits
and gives recall (hits / true) and precision (hits / found), NaN for an empty denominator.

- :func:`evaluate`: LSH band candidates, and the candidates whose MinHash estimate reaches t
  (the usual "second step").
- :func:`rate_by_band`: the measured share of pairs that became candidates in each 0.05
  range of similarity, next to the S-curve's expectation.
- :func:`lsh_scores`, :func:`compare_table`, :func:`compare_simhash`: MinHash LSH and
  SimHash at every Hamming distance against the same truth (the Compare view).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import pandas as pd

from nearsim.hamming import distance_histogram
from nearsim.join.sample import BAND_WIDTH, N_BANDS, similarity_band
from nearsim.lsh import candidate_probability
from nearsim.simhash import BITS, as_fingerprints, pair_distances
from nearsim.utils.arrays import is_member, pair_codes, sorted_codes
from nearsim.utils.validation import check_int, check_n, check_threshold
from nearsim.utils.validation_arrays import (
    check_estimates,
    check_mask,
    check_pair_frame,
    check_pairs,
    check_similarity,
)


# =========================================================================== the scorer
class Score(NamedTuple):
    """Pairs found scored against true pairs.

    Attributes
    ----------
    found, true, hits : int
        Distinct pairs found, true pairs, and found pairs that are true.
    recall, precision : float
        hits / true and hits / found; NaN when the denominator is 0.
    """

    found: int
    true: int
    hits: int
    recall: float
    precision: float


def _share(num, den) -> np.ndarray:
    """num / den elementwise as float64; NaN where den is 0."""
    num, den = np.asarray(num, dtype=np.float64), np.asarray(den, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.maximum(den, 1), np.nan)


def _ratios(hits, found, true) -> tuple[np.ndarray, np.ndarray]:
    """Recall hits / true and precision hits / found, elementwise; NaN for a 0 denominator."""
    return _share(hits, true), _share(hits, found)


def score_codes(found: np.ndarray, true: np.ndarray) -> tuple[Score, np.ndarray]:
    """Score found pairs against true pairs, both as sorted distinct pair codes.

    Parameters
    ----------
    found, true : ndarray of int64, shapes (f,) and (t,)
        Sorted, distinct codes ``i * n + j`` (``nearsim.utils.arrays.sorted_codes``).

    Returns
    -------
    (Score, ndarray of bool of shape (f,))
        The counts and ratios, and which of ``found`` are true.

    Examples
    --------
    >>> s, hit = score_codes(np.array([1, 5, 7]), np.array([5, 8]))
    >>> s.hits, s.recall, round(s.precision, 3), hit.tolist()
    (1, 0.5, 0.333, [False, True, False])
    """
    hit = is_member(found, true)
    hits = int(np.count_nonzero(hit))
    recall, precision = _ratios(hits, found.shape[0], true.shape[0])
    return Score(
        int(found.shape[0]), int(true.shape[0]), hits, float(recall), float(precision)
    ), hit


def _pair_frame(value, name: str, n: int | None = None):
    """Pairs and their jaccard from a frame with columns i, j, jaccard, validated.

    Rows must be integers ``0 <= i < j`` (``< n`` when given) without repeats, jaccard
    finite and from 0 to 1. Frames sorted by (i, j), as the library writes them, are
    checked for repeats in one pass; others are sorted once.

    Returns
    -------
    pairs : ndarray of int64, shape (m, 2)
        In the frame's order.
    jaccard : ndarray of float64, shape (m,)
    order : ndarray of int64, shape (m,), or None
        The order that sorts the rows by (i, j); None when they already are.
    """
    if not isinstance(value, pd.DataFrame) or "jaccard" not in value.columns:
        check_pair_frame(value, name, columns=("i", "j", "jaccard"), n=n)  # raises
    pairs = check_pairs(value, name, n=n, unique=False)
    jac = check_similarity(value["jaccard"].to_numpy(), f"{name}['jaccard']").reshape(-1)
    codes = pair_codes(pairs, _rows_bound(pairs))
    if np.all(codes[1:] > codes[:-1]):
        return pairs, jac, None
    check_pairs(pairs, name)  # raises for a repeated pair
    return pairs, jac, np.argsort(codes, kind="stable")


def _truth(exact, threshold: float, n: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The true pairs of ``exact`` (jaccard >= threshold), validated (rows below ``n``).

    Returns the pairs, shape (k, 2), sorted by (i, j) — so their codes are sorted for any
    n — and their jaccard, shape (k,).
    """
    pairs, jac, order = _pair_frame(exact, "exact", n)
    if order is not None:
        pairs, jac = pairs[order], jac[order]
    keep = jac >= threshold
    return pairs[keep], jac[keep]


def _rows_bound(*arrays: np.ndarray) -> int:
    """Largest row number in the pair arrays, plus one (0 when all are empty)."""
    return max((int(a.max(initial=-1)) for a in arrays), default=-1) + 1


# =========================================================================== candidates
@dataclass
class Evaluation:
    """Scores of LSH candidates against exact ground truth at one threshold.

    Attributes
    ----------
    threshold : float
        Jaccard threshold t.
    true_pairs : int
        Pairs with exact J >= t.
    candidates : int
        Candidate pairs from banding.
    true_candidates : int
        Candidates that are true pairs.
    recall, precision : float
        Of the candidates (NaN when the denominator is 0).
    accepted : int
        Candidates whose MinHash estimate is >= t (the second step).
    true_accepted : int
        Accepted candidates that are true pairs.
    recall_filtered, precision_filtered : float
        Of the accepted candidates.
    missed : pandas.DataFrame
        True pairs that did not become candidates: i, j, jaccard.
    false_candidates : pandas.DataFrame
        Candidates that are not true pairs: i, j, estimate.
    candidate_table : pandas.DataFrame
        Every candidate: i, j, estimate, true (bool), accepted (bool).
    true_table : pandas.DataFrame
        Every true pair: i, j, jaccard, found (bool: it became a candidate).
    """

    threshold: float
    true_pairs: int
    candidates: int
    true_candidates: int
    recall: float
    precision: float
    accepted: int
    true_accepted: int
    recall_filtered: float
    precision_filtered: float
    missed: pd.DataFrame = field(repr=False)
    false_candidates: pd.DataFrame = field(repr=False)
    candidate_table: pd.DataFrame = field(repr=False)
    true_table: pd.DataFrame = field(repr=False)

    def summary(self) -> dict[str, float]:
        """The scalar scores as a dict."""
        keys = [
            "threshold",
            "true_pairs",
            "candidates",
            "true_candidates",
            "recall",
            "precision",
            "accepted",
            "true_accepted",
            "recall_filtered",
            "precision_filtered",
        ]
        return {k: getattr(self, k) for k in keys}


def evaluate(exact: pd.DataFrame, candidates, estimates, threshold: float) -> Evaluation:
    """Score candidates, and candidates filtered by their estimate, against exact pairs.

    Parameters
    ----------
    exact : pandas.DataFrame
        Columns i, j, jaccard: at least every pair with exact Jaccard >= ``threshold``
        (pairs below it are ignored, so a join at a lower threshold works too).
    candidates : array_like of int, shape (m, 2)
        Candidate pairs, ``0 <= i < j``, no repeats (any order of rows).
    estimates : array_like of float, shape (m,)
        MinHash estimate of each candidate: finite, from 0 to 1.
    threshold : float
        Jaccard threshold t, in (0, 1].

    Returns
    -------
    Evaluation

    Examples
    --------
    >>> exact = pd.DataFrame({"i": [0, 2], "j": [1, 3], "jaccard": [0.9, 0.8]})
    >>> ev = evaluate(exact, [[0, 1], [1, 2]], [0.95, 0.4], 0.8)
    >>> ev.recall, ev.precision, ev.recall_filtered, ev.precision_filtered
    (0.5, 0.5, 0.5, 1.0)
    """
    t = check_threshold(threshold)
    cand = check_pairs(candidates, "candidates")
    est = check_estimates(estimates, cand.shape[0])
    truth, jac = _truth(exact, t)
    n = _rows_bound(cand, truth)
    truth_codes = pair_codes(truth, n)
    cand_codes = pair_codes(cand, n)
    order = np.argsort(cand_codes)
    in_order = cand_codes[order]
    accepted = est >= t
    before, hit = score_codes(in_order, truth_codes)
    after, _ = score_codes(in_order[accepted[order]], truth_codes)
    cand_true = np.empty(cand.shape[0], dtype=bool)
    cand_true[order] = hit
    found = is_member(truth_codes, in_order)
    false = ~cand_true
    return Evaluation(
        threshold=t,
        true_pairs=before.true,
        candidates=before.found,
        true_candidates=before.hits,
        recall=before.recall,
        precision=before.precision,
        accepted=after.found,
        true_accepted=after.hits,
        recall_filtered=after.recall,
        precision_filtered=after.precision,
        missed=pd.DataFrame({"i": truth[~found, 0], "j": truth[~found, 1], "jaccard": jac[~found]}),
        false_candidates=pd.DataFrame(
            {"i": cand[false, 0], "j": cand[false, 1], "estimate": est[false]}
        ),
        candidate_table=pd.DataFrame(
            {
                "i": cand[:, 0],
                "j": cand[:, 1],
                "estimate": est,
                "true": cand_true,
                "accepted": accepted,
            }
        ),
        true_table=pd.DataFrame(
            {"i": truth[:, 0], "j": truth[:, 1], "jaccard": jac, "found": found}
        ),
    )


def rate_by_band(
    pairs: pd.DataFrame,
    candidates,
    b: int | None = None,
    r: int | None = None,
    *,
    sketch: str = "minhash",
    num_perm: int | None = None,
) -> pd.DataFrame:
    """Measured share of pairs that became candidates in each 0.05 band of similarity.

    Parameters
    ----------
    pairs : pandas.DataFrame
        Columns i, j, jaccard and optionally ``sampled`` (bool): pairs (``0 <= i < j``, no
        repeats) with their exact
        similarity (all pairs, or a sample, e.g. from ``nearsim.similarity_sample``).
        Pairs that share no shingle may be left out and counted in
        ``pairs.attrs["zero_pairs"]``: they join the first band. When the frame lists
        every pair that shares a shingle (``attrs["mode"] == "all"``), a candidate that is
        not listed is one of them and counts as a hit there.
    candidates : array_like of int, shape (m, 2)
        Candidate pairs, ``0 <= i < j``, no repeats.
    b, r : int, optional
        Both or neither. When given, the S-curve's expected rate for the pairs actually in each band
        (the mean of P(J) over them) and its binomial standard error are added.
    sketch, num_perm
        Whose S-curve gives the expectation (:func:`nearsim.candidate_probability`):
        ``"superminhash"`` has its own, which depends on the signature length ``num_perm``
        (default b·r).

    Returns
    -------
    pandas.DataFrame
        One row per band (20): ``lo``, ``hi`` (float64 band edges), ``pairs`` (int64),
        ``candidates`` (int64), ``rate`` (float64, NaN for an empty band), ``sampled``
        (bool: some of the band's pairs come from a random sample), and with b, r:
        ``expected`` and ``expected_se`` (float64).
    """
    pr, jac, _ = _pair_frame(pairs, "pairs")
    frame = pairs
    cand = check_pairs(candidates, "candidates")
    if (b is None) != (r is None):
        raise ValueError(
            f"b={b!r} and r={r!r} are not accepted; accepted: both (bands and rows per band) "
            "or neither"
        )
    zero = check_int(frame.attrs.get("zero_pairs", 0), "pairs.attrs['zero_pairs']", low=0)
    n = _rows_bound(pr, cand)
    cand_set = sorted_codes(cand, n)
    is_cand = is_member(pair_codes(pr, n), cand_set)
    band = similarity_band(jac)
    total = np.bincount(band, minlength=N_BANDS)
    hits = np.bincount(band, weights=is_cand, minlength=N_BANDS).astype(np.int64)
    if zero:
        total[0] += zero
        if frame.attrs.get("mode") == "all":
            hits[0] += int(np.count_nonzero(~is_member(cand_set, sorted_codes(pr, n))))
    if "sampled" in frame.columns:
        samp = np.bincount(band, weights=frame["sampled"].to_numpy(bool), minlength=N_BANDS) > 0
    else:
        samp = np.zeros(N_BANDS, dtype=bool)
    lo = np.arange(N_BANDS) * BAND_WIDTH
    rate = _share(hits, total)
    out = pd.DataFrame(
        {
            "lo": lo,
            "hi": lo + BAND_WIDTH,
            "pairs": total.astype(np.int64),
            "candidates": hits,
            "rate": rate,
            "sampled": samp,
        }
    )
    if b is not None:
        p = candidate_probability(jac, b, r, sketch=sketch, num_perm=num_perm)
        p_sum = np.bincount(band, weights=p, minlength=N_BANDS)
        p2_sum = np.bincount(band, weights=p * (1 - p), minlength=N_BANDS)
        out["expected"] = _share(p_sum, total)
        out["expected_se"] = _share(np.sqrt(p2_sum), total)
    return out


# =========================================================================== Compare view
def compare_table(
    fingerprints, exact, threshold, *, max_distance: int = 24, valid=None
) -> pd.DataFrame:
    """SimHash at every distance d, scored against exact ground truth.

    Parameters
    ----------
    fingerprints : array_like of uint64, shape (n,)
    exact : pandas.DataFrame
        Columns i, j, jaccard: at least every pair with exact Jaccard >= ``threshold``
        (what :func:`nearsim.exact_pairs` returns; rows below the threshold are ignored),
        ``0 <= i < j < n``, no repeats, jaccard from 0 to 1.
    threshold : float
        Jaccard threshold t, in (0, 1].
    max_distance : int
        Last d in the table, 0 to 64.
    valid : ndarray of bool, shape (n,), optional
        Documents SimHash may pair (e.g. those with shingles — every empty document has
        fingerprint 0). Invalid documents are never within any distance; true pairs
        involving them still count in the recall's denominator, as missed.

    Returns
    -------
    pandas.DataFrame
        One row per d = 0 .. max_distance with columns

        - d (int64)
        - pairs_within (int64): pairs (of all n(n − 1)/2) with distance <= d
        - true_within (int64): of those, pairs with exact Jaccard >= t
        - recall (float64): true_within / true pairs (NaN when there are none)
        - precision (float64): true_within / pairs_within (NaN when pairs_within is 0)

    Notes
    -----
    ``pairs_within`` comes from a histogram of all n(n − 1)/2 distances computed in
    compiled code (2·10⁸ popcounts at n = 20,000,
    :func:`nearsim.hamming.distance_histogram`), not from a list of pairs; recall and
    precision at every d come from the same ratio rule as :func:`score_codes`.
    """
    fp = np.ascontiguousarray(as_fingerprints(fingerprints))
    t = check_threshold(threshold)
    dmax = check_int(max_distance, "max_distance", low=0, high=BITS)
    n = fp.shape[0]
    v = None if valid is None else check_mask(valid, n)
    truth, _ = _truth(exact, t, n)
    i, j = truth[:, 0], truth[:, 1]
    if v is not None:
        ok = v[i] & v[j]
        i, j = i[ok], j[ok]
    within = np.cumsum(distance_histogram(fp, valid=v))[: dmax + 1]
    true_hist = np.bincount(pair_distances(fp, i, j), minlength=BITS + 1)
    true_within = np.cumsum(true_hist)[: dmax + 1]
    recall, precision = _ratios(true_within, within, truth.shape[0])
    return pd.DataFrame(
        {
            "d": np.arange(dmax + 1, dtype=np.int64),
            "pairs_within": within.astype(np.int64),
            "true_within": true_within.astype(np.int64),
            "recall": recall,
            "precision": precision,
        }
    )


def lsh_scores(lsh_pairs, exact, threshold, n: int | None = None) -> dict:
    """MinHash LSH candidates scored against the same truth as :func:`compare_table`.

    Parameters
    ----------
    lsh_pairs : array_like of int, shape (m, 2), or DataFrame with columns i, j
        Candidate pairs, ``0 <= i < j < n``, no repeats (e.g.
        ``nearsim.candidate_pairs(signatures, b, r)``).
    exact : pandas.DataFrame
        Columns i, j, jaccard, as in :func:`compare_table`.
    threshold : float
        Jaccard threshold t, in (0, 1].
    n : int, optional
        Number of documents (for range checks); by default the largest row number + 1.

    Returns
    -------
    dict
        ``pairs`` (distinct candidates), ``true_found`` (candidates that are true pairs),
        ``true_pairs``, ``recall`` (true_found / true_pairs) and ``precision``
        (true_found / pairs); NaN for a ratio whose denominator is 0.
    """
    t = check_threshold(threshold)
    if n is None:
        n = _rows_bound(check_pairs(lsh_pairs, "lsh_pairs"), _truth(exact, t)[0])
    n = check_n(n)
    found = sorted_codes(check_pairs(lsh_pairs, "lsh_pairs", n=n), n)
    s, _ = score_codes(found, pair_codes(_truth(exact, t, n)[0], n))
    return {
        "pairs": s.found,
        "true_found": s.hits,
        "true_pairs": s.true,
        "recall": s.recall,
        "precision": s.precision,
    }


@dataclass
class SimHashComparison:
    """SimHash against exact truth at every distance, and LSH at its current b × r.

    Attributes
    ----------
    table : pandas.DataFrame
        :func:`compare_table`'s rows.
    lsh : dict or None
        :func:`lsh_scores` of the LSH candidates, when given.
    true_pairs : int
        Pairs with exact Jaccard >= threshold.
    total_pairs : int
        n(n − 1)/2 (over valid documents, when ``valid`` is given).
    """

    table: pd.DataFrame
    lsh: dict | None
    true_pairs: int
    total_pairs: int


def compare_simhash(
    fingerprints,
    exact,
    threshold,
    lsh_pairs=None,
    max_distance: int = 24,
    *,
    valid=None,
) -> SimHashComparison:
    """The Compare view's data: :func:`compare_table` plus :func:`lsh_scores`.

    Parameters
    ----------
    fingerprints, exact, threshold, max_distance, valid
        As in :func:`compare_table`.
    lsh_pairs : ndarray of int, shape (m, 2), optional
        MinHash LSH candidate pairs at the current bands × rows.

    Returns
    -------
    SimHashComparison
    """
    fp = as_fingerprints(fingerprints)
    table = compare_table(fp, exact, threshold, max_distance=max_distance, valid=valid)
    n = fp.shape[0]
    lsh = None if lsh_pairs is None else lsh_scores(lsh_pairs, exact, threshold, n)
    n_valid = n if valid is None else int(np.count_nonzero(valid))
    true_pairs = _truth(exact, check_threshold(threshold), n)[0].shape[0]
    return SimHashComparison(table, lsh, int(true_pairs), n_valid * (n_valid - 1) // 2)
