"""How good are the candidates? Recall and precision against exact ground truth.

Ground truth is a DataFrame of pairs with their exact Jaccard similarity (columns i, j,
jaccard — what :func:`nearsim.exact_pairs` returns). Candidates are LSH band pairs; their
estimates are MinHash estimates. The usual pipeline keeps a candidate only when its
estimate reaches the threshold (the "second step"); both stages are scored.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ._arrays import as_pairs
from .lsh import _check_threshold, candidate_probability
from .sample import BAND_WIDTH, N_BANDS, similarity_band


def _frame_pairs(df: pd.DataFrame, name: str) -> tuple[np.ndarray, np.ndarray]:
    if not isinstance(df, pd.DataFrame) or not {"i", "j", "jaccard"} <= set(df.columns):
        raise ValueError(f"{name} must be a DataFrame with columns i, j, jaccard")
    pairs = np.stack([df["i"].to_numpy(np.int64), df["j"].to_numpy(np.int64)], axis=1)
    return pairs, df["jaccard"].to_numpy(np.float64)


def pair_codes(pairs: np.ndarray, n: int) -> np.ndarray:
    """Encode pairs (i, j) as ``i * n + j`` (int64), which sorts like the pairs do."""
    pairs = as_pairs(pairs, "pairs")
    return pairs[:, 0] * np.int64(n) + pairs[:, 1]


def _member(codes: np.ndarray, sorted_codes: np.ndarray) -> np.ndarray:
    """Which of ``codes`` occur in the sorted array ``sorted_codes``."""
    if sorted_codes.shape[0] == 0:
        return np.zeros(codes.shape[0], dtype=bool)
    pos = np.searchsorted(sorted_codes, codes)
    pos[pos == sorted_codes.shape[0]] = 0
    return sorted_codes[pos] == codes


def _ratio(num: int, den: int) -> float:
    return num / den if den else float("nan")


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


def evaluate(
    exact: pd.DataFrame,
    candidates: np.ndarray,
    estimates: np.ndarray,
    threshold: float,
) -> Evaluation:
    """Score candidates, and candidates filtered by their estimate, against exact pairs.

    Parameters
    ----------
    exact : pandas.DataFrame
        Columns i, j, jaccard: at least every pair with exact Jaccard >= ``threshold``
        (pairs below it are ignored, so a join at a lower threshold works too).
    candidates : ndarray of int64, shape (m, 2)
        Candidate pairs, i < j.
    estimates : ndarray of float64, shape (m,)
        MinHash estimate of each candidate.
    threshold : float
        Jaccard threshold t, strictly between 0 and 1.

    Returns
    -------
    Evaluation
    """
    t = _check_threshold(threshold)
    cand = as_pairs(candidates, "candidates")
    est = np.asarray(estimates, dtype=np.float64).reshape(-1)
    if est.shape[0] != cand.shape[0]:
        raise ValueError(
            f"estimates has {est.shape[0]} values but there are {cand.shape[0]} candidates"
        )
    truth, jac = _frame_pairs(exact, "exact")
    keep = jac >= t
    truth, jac = truth[keep], jac[keep]
    n = int(max(cand.max(initial=-1), truth.max(initial=-1))) + 1
    truth_codes = pair_codes(truth, n)
    order = np.argsort(truth_codes)
    truth_codes, truth, jac = truth_codes[order], truth[order], jac[order]
    cand_codes = pair_codes(cand, n)
    cand_true = _member(cand_codes, truth_codes)
    found = _member(truth_codes, np.sort(cand_codes))
    accepted = est >= t
    n_true = int(truth.shape[0])
    n_cand = int(cand.shape[0])
    n_tc = int(cand_true.sum())
    n_acc = int(accepted.sum())
    n_ta = int((cand_true & accepted).sum())
    missed = pd.DataFrame({"i": truth[~found, 0], "j": truth[~found, 1], "jaccard": jac[~found]})
    false = ~cand_true
    false_cands = pd.DataFrame({"i": cand[false, 0], "j": cand[false, 1], "estimate": est[false]})
    table = pd.DataFrame(
        {"i": cand[:, 0], "j": cand[:, 1], "estimate": est, "true": cand_true, "accepted": accepted}
    )
    return Evaluation(
        threshold=t,
        true_pairs=n_true,
        candidates=n_cand,
        true_candidates=n_tc,
        recall=_ratio(n_tc, n_true),
        precision=_ratio(n_tc, n_cand),
        accepted=n_acc,
        true_accepted=n_ta,
        recall_filtered=_ratio(n_ta, n_true),
        precision_filtered=_ratio(n_ta, n_acc),
        missed=missed.reset_index(drop=True),
        false_candidates=false_cands.reset_index(drop=True),
        candidate_table=table,
        true_table=pd.DataFrame(
            {"i": truth[:, 0], "j": truth[:, 1], "jaccard": jac, "found": found}
        ),
    )


def rate_by_band(
    pairs: pd.DataFrame,
    candidates: np.ndarray,
    b: int | None = None,
    r: int | None = None,
) -> pd.DataFrame:
    """Measured share of pairs that became candidates in each 0.05 band of similarity.

    Parameters
    ----------
    pairs : pandas.DataFrame
        Columns i, j, jaccard and optionally ``sampled`` (bool): pairs with their exact
        similarity (all pairs, or a sample, e.g. from ``nearsim.exact.similarity_sample``).
        Pairs that share no shingle may be left out and counted in
        ``pairs.attrs["zero_pairs"]``: they join the first band. When the frame lists
        every pair that shares a shingle (``attrs["mode"] == "all"``), a candidate that is
        not listed is one of them and counts as a hit there.
    candidates : ndarray of int64, shape (m, 2)
        Candidate pairs, i < j.
    b, r : int, optional
        When given, the S-curve's expected rate for the pairs actually in each band
        (the mean of P(J) over them) and its binomial standard error are added.

    Returns
    -------
    pandas.DataFrame
        One row per band (20): ``lo``, ``hi`` (float64 band edges), ``pairs`` (int64),
        ``candidates`` (int64), ``rate`` (float64, NaN for an empty band), ``sampled``
        (bool: some of the band's pairs come from a random sample), and with b, r:
        ``expected`` and ``expected_se`` (float64).
    """
    pr, jac = _frame_pairs(pairs, "pairs")
    cand = as_pairs(candidates, "candidates")
    n = int(max(pr.max(initial=-1), cand.max(initial=-1))) + 1
    is_cand = _member(pair_codes(pr, n), np.sort(pair_codes(cand, n)))
    band = similarity_band(jac)
    total = np.bincount(band, minlength=N_BANDS)
    hits = np.bincount(band, weights=is_cand, minlength=N_BANDS).astype(np.int64)
    zero = int(pairs.attrs.get("zero_pairs", 0) or 0)
    if zero:
        total[0] += zero
        if pairs.attrs.get("mode") == "all":
            listed = np.sort(pair_codes(pr, n))
            hits[0] += int((~_member(pair_codes(cand, n), listed)).sum())
    if "sampled" in pairs.columns:
        samp = np.bincount(band, weights=pairs["sampled"].to_numpy(bool), minlength=N_BANDS) > 0
    else:
        samp = np.zeros(N_BANDS, dtype=bool)
    lo = np.arange(N_BANDS) * BAND_WIDTH
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.where(total > 0, hits / np.maximum(total, 1), np.nan)
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
    if b is not None and r is not None:
        p = candidate_probability(np.clip(jac, 0.0, 1.0), b, r)
        p_sum = np.bincount(band, weights=p, minlength=N_BANDS)
        p2_sum = np.bincount(band, weights=p * (1 - p), minlength=N_BANDS)
        with np.errstate(invalid="ignore", divide="ignore"):
            out["expected"] = np.where(total > 0, p_sum / np.maximum(total, 1), np.nan)
            out["expected_se"] = np.where(total > 0, np.sqrt(p2_sum) / np.maximum(total, 1), np.nan)
    return out
