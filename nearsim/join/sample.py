"""The similarity sample: pairs over the whole similarity range, with what each stands for.

The measured-rate chart (:func:`nearsim.scoring.rate_by_band`) needs, for each 0.05-wide
range of similarity (a "band" here), the share of the corpus' pairs in it that became LSH
candidates; a corpus-aware predictor needs the similarity of the corpus' pairs, each with
how many pairs of the corpus it stands for. Listing every pair is quadratic, and nearly
all pairs of a real corpus share almost nothing; so :func:`similarity_sample` lists every
pair above a fixed floor (the exact join) and a seeded uniform sample of the pairs below
it. It does not depend on the detection threshold: compute it once per set of documents
(and validity mask), and every threshold, band and row setting reads the same frame.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from nearsim.join import _kernels as _join
from nearsim.join.exact import AUTO_BRUTE_LIMIT, join_rows, threshold_cut
from nearsim.join.tokens import as_token_sets
from nearsim.utils.validation import MAX_PAIRS, check_int, check_threshold
from nearsim.utils.validation_arrays import check_mask

if TYPE_CHECKING:  # pandas is loaded only where a frame is made
    import pandas as pd

__all__ = [
    "BAND_WIDTH",
    "DEFAULT_FLOOR",
    "MIN_BAND_ROWS",
    "N_BANDS",
    "listed_pairs",
    "similarity_band",
    "similarity_sample",
]

BAND_WIDTH = 0.05
N_BANDS = 20
DEFAULT_FLOOR = 0.5
"""Similarity from which :func:`similarity_sample` lists every pair: the join's cost grows
quickly below it (on 20,000 news-like texts from prepared tokens, on two cores, about
0.1 s at 0.8, 0.3 s at 0.7, 1.2 s at 0.5), and a tuned S-curve for thresholds of 0.75 and
up starts to rise above it."""
MIN_BAND_ROWS = 400
"""Drawn pairs a band must hold before ``max_listed`` lets the floor rise above it: the
band's measured rate (a share p of candidates among its rows) then has a standard error
of √(p(1 − p) / 400), at most 0.5 / √400 = 0.025 (4σ = 0.1) and 0.011 where the S-curve
is at 0.05 or 0.95, and its estimated number of pairs a relative standard error of about
1 / √400 = 5%. On 12,000 installed documents (2,610 shingles each on average) 300,000
drawn pairs hold 458 in the band [0.65, 0.7) and 853 in [0.6, 0.65): with 1,000 here the
floor stopped at 0.6 and the join listed 436,000 pairs (5.0 CPU s); at 400 it stops at
0.7 (112,000 pairs, 1.9 CPU s)."""


def similarity_band(jaccard) -> np.ndarray:
    """Index of the 0.05-wide similarity band of each Jaccard value.

    Parameters
    ----------
    jaccard : array_like of float, shape (m,)
        Values in [0, 1].

    Returns
    -------
    numpy.ndarray of int64, shape (m,)
        ``k`` for ``k/20 <= J < (k+1)/20``; J = 1 is in band 19. A value that is exactly a
        band edge as a fraction (J = 7/20 computed as 0.35) goes to the upper band, the
        same split :func:`similarity_sample` uses.

    Examples
    --------
    >>> similarity_band([0.0, 7 / 20, 0.3499, 1.0]).tolist()
    [0, 7, 6, 19]
    """
    values = np.asarray(jaccard, dtype=np.float64)
    # inter/union with union < 10**7 is never within 1e-9 of a band edge unless it is on it
    band = np.floor(values * N_BANDS + 1e-9).astype(np.int64)
    return np.clip(band, 0, N_BANDS - 1)


def _pairs_from_linear(k: np.ndarray, m: int):
    """Map linear indices of the pairs (a < b) of m items, in (a, b) order, to (a, b)."""
    a_idx = np.arange(m, dtype=np.int64)
    row_start = a_idx * (2 * m - a_idx - 1) // 2
    a = np.searchsorted(row_start, k, side="right") - 1
    b = k - row_start[a] + a + 1
    return a, b


def _check_floor(floor) -> float:
    value = check_threshold(floor, "floor")
    edge = round(value * N_BANDS)
    if abs(value * N_BANDS - edge) > 1e-9:
        raise ValueError(
            f"floor={floor!r} is not accepted; accepted: a band edge, a multiple of 0.05 in (0, 1]"
        )
    return edge / N_BANDS


def _raised_floor(inter, union, floor: float, max_listed: int, weight: float) -> float:
    """The lowest band edge from ``floor`` up at which the pairs to list fit ``max_listed``
    (estimated from the drawn pairs), without leaving a band of fewer than
    :data:`MIN_BAND_ROWS` drawn pairs to the sample."""
    jac = inter.astype(np.float64) / np.maximum(union, 1)
    per_band = np.bincount(similarity_band(jac[inter > 0]), minlength=N_BANDS)
    edge = round(floor * N_BANDS)
    while edge < N_BANDS - 1:
        listed = per_band[edge:].sum() * weight
        if listed <= max_listed or per_band[edge] < MIN_BAND_ROWS:
            break
        edge += 1
    return edge / N_BANDS


def similarity_sample(
    sets,
    *,
    seed: int = 0,
    floor: float = DEFAULT_FLOOR,
    all_pairs_limit: int = AUTO_BRUTE_LIMIT,
    sample_size: int = 300_000,
    valid=None,
    max_listed: int | None = None,
) -> pd.DataFrame:
    """Pairs with their exact Jaccard over the whole range, each with the pairs it stands for.

    * Up to ``all_pairs_limit`` documents: every pair of documents that shares a
      shingle (mode "all"), each standing for itself (``weight`` 1). Pairs that share no
      shingle (Jaccard 0) are not listed; their number is ``attrs["zero_pairs"]``.
    * Above: every pair with Jaccard ``>= floor`` from the exact join (``sampled`` False,
      ``weight`` 1), plus a uniform random sample without replacement of
      ``sample_size`` pairs of the documents, of which those with Jaccard below ``floor``
      are listed (``sampled`` True, ``weight`` population / pairs drawn) and those sharing
      no shingle counted in ``attrs["zero_pairs"]`` (mode "sampled"). ``floor`` is a band
      edge, so each 0.05 band is either complete or sampled, never mixed: within a sampled
      band the listed pairs are a uniform random sample of the band's pairs, and the share
      of candidates among them an unbiased estimate of the band's rate.

    The sample does not depend on any detection threshold: the same documents, mask and
    seed give the same frame.

    Parameters
    ----------
    sets : sequence of sequences of str, length n, or FlatShingles, or TokenSets
        Documents as for :func:`nearsim.exact_pairs` (TokenSets: interned once, reused).
    seed : int
        Seed of the pair sample (same seed, same rows), ≥ 0.
    floor : float
        Band edge (a multiple of 0.05 in (0, 1]) from which every pair is listed, above
        the limit. Below it the bands rest on the sample alone: with 300,000 pairs drawn,
        bands with few pairs in the corpus get few rows, and their rate a wide error bar.
    all_pairs_limit : int
        Up to this many documents (n, all of them) every pair is listed.
    sample_size : int
        Pairs drawn above the limit (all of them if there are fewer), ≥ 1.
    valid : ndarray of bool, shape (n,), optional
        Documents to use; one outside the mask is in no pair and in no count (as if it
        had no shingles). Default: all.
    max_listed : int, optional
        Above the limit, a bound on the pairs listed in full. When the drawn pairs say that
        more than this many pairs have J ≥ ``floor`` (their count in the sample times
        population / drawn), the floor rises by one band at a time while that estimate is
        still above ``max_listed`` and the band it leaves behind holds at least
        :data:`MIN_BAND_ROWS` drawn pairs; the bands left behind are then sampled, never
        thin. The exact join's cost grows with the pairs it lists: on 12,000 installed
        documents (manual pages of one templated family among them) 1.3 million pairs
        have J ≥ 0.5 and 0.1 million J ≥ 0.7. Default None: the floor stays at ``floor``.
        ``attrs["floor"]`` is the floor used.

    Returns
    -------
    pandas.DataFrame
        Columns ``i`` (int64), ``j`` (int64), ``jaccard`` (float64), ``sampled`` (bool),
        ``weight`` (float64: how many pairs of the corpus the row stands for), ``i < j``,
        sorted by (i, j), default RangeIndex. ``attrs``: ``mode`` ("all" or "sampled"),
        ``population`` (pairs of documents with shingles inside the mask),
        ``zero_pairs`` (pairs sharing no shingle: all of them in mode "all", those drawn
        in mode "sampled" — counted like the sampled rows, so they add to band 0 as
        rows do), ``zero_weight`` (how many pairs of the corpus ``zero_pairs`` stand
        for), ``floor`` (float, or None in mode "all"), ``sample_fraction`` (pairs drawn /
        population; 1.0 in mode "all"), ``sampled_pairs`` (pairs drawn). The weights and
        ``zero_weight`` add up to ``population`` in mode "all", and to an unbiased
        estimate of it in mode "sampled".

    Raises
    ------
    ValueError
        For a bad ``floor``, ``seed``, ``all_pairs_limit``, ``sample_size``, ``valid`` or
        ``sets`` or ``max_listed``.

    Examples
    --------
    >>> df = similarity_sample([list("abcd"), list("abcde"), list("cdxy")])
    >>> df[["i", "j", "jaccard", "weight"]].round(3)
       i  j  jaccard  weight
    0  0  1    0.800     1.0
    1  0  2    0.333     1.0
    2  1  2    0.286     1.0
    >>> df.attrs["mode"], df.attrs["zero_pairs"]
    ('all', 0)
    """
    seed = check_int(seed, "seed", low=0)
    floor = _check_floor(floor)
    all_pairs_limit = check_int(all_pairs_limit, "all_pairs_limit", low=0)
    sample_size = check_int(sample_size, "sample_size", low=1, high=MAX_PAIRS)
    if max_listed is not None:
        max_listed = check_int(max_listed, "max_listed", low=0)
    tokens = as_token_sets(sets)
    mask = None if valid is None else check_mask(valid, tokens.n, "valid")
    used = tokens.lengths > 0 if mask is None else (tokens.lengths > 0) & mask
    members = np.flatnonzero(used)
    m = members.size
    population = m * (m - 1) // 2
    if tokens.n <= all_pairs_limit:
        rows, _ = join_rows(tokens, Fraction(0), "brute", mask)  # every pair sharing a shingle
        df = _join.frame(rows, sampled=np.zeros(len(rows), bool), weight=np.ones(len(rows)))
        zero = population - len(df)
        df.attrs.update(
            mode="all",
            population=population,
            zero_pairs=zero,
            zero_weight=float(zero),
            floor=None,
            sample_fraction=1.0,
            sampled_pairs=population,
        )
        return df
    drawn = min(sample_size, population)
    rng = np.random.default_rng(seed)
    if drawn == population:
        lin = np.arange(population, dtype=np.int64)
    else:
        lin = np.sort(rng.choice(population, size=drawn, replace=False)).astype(np.int64)
    a, b = _pairs_from_linear(lin, m)
    pi = members[a].astype(np.int64)
    pj = members[b].astype(np.int64)
    inter = _join.overlaps(tokens, tokens.verification(), pi, pj)
    union = tokens.lengths[pi] + tokens.lengths[pj] - inter
    if max_listed is not None and drawn:
        floor = _raised_floor(inter, union, floor, max_listed, population / drawn)
    rows, _ = join_rows(tokens, threshold_cut(floor), "ppjoin", mask)
    # the join's rule: listed completely iff float(inter / union) >= floor
    keep = (inter > 0) & (inter.astype(np.float64) / np.maximum(union, 1) < floor)
    picked = np.stack([pi[keep], pj[keep], inter[keep], union[keep]], axis=1)
    weight = population / drawn if drawn else 1.0
    n_done, n_picked = rows.shape[0], picked.shape[0]
    df = _join.frame(
        np.concatenate([rows, picked]),
        sampled=np.repeat([False, True], [n_done, n_picked]),
        weight=np.repeat([1.0, weight], [n_done, n_picked]),
    )
    zero = int(np.count_nonzero(inter == 0))
    df.attrs.update(
        mode="sampled",
        population=population,
        zero_pairs=zero,
        zero_weight=zero * weight,
        floor=floor,
        sample_fraction=drawn / population if population else 1.0,
        sampled_pairs=drawn,
    )
    return df


def listed_pairs(sample: pd.DataFrame, threshold: float) -> pd.DataFrame | None:
    """The pairs with Jaccard ≥ ``threshold`` read from a similarity sample, when it lists
    every one of them; else None.

    A sample of mode "all" lists every pair that shares a shingle, and one of mode
    "sampled" every pair with J ≥ its floor (by the exact join's threshold rule); so at
    a threshold from its floor up, the rows not drawn with ``jaccard >= threshold`` are
    exactly :func:`nearsim.exact_pairs` of the same sets and mask at that threshold, and
    the explorer need not join again.

    Parameters
    ----------
    sample : pandas.DataFrame
        A frame returned by :func:`similarity_sample` (its ``attrs`` are read).
    threshold : float
        In (0, 1].

    Returns
    -------
    pandas.DataFrame or None
        Columns ``i`` (int64), ``j`` (int64), ``jaccard`` (float64), sorted by (i, j),
        default RangeIndex, no attrs: equal to ``exact_pairs(sets, threshold, valid=valid)``;
        None when ``threshold`` is below the sample's floor.

    Raises
    ------
    ValueError
        If ``threshold`` is not in (0, 1] or ``sample`` has no ``mode`` attribute.

    Examples
    --------
    >>> sample = similarity_sample([list("abcd"), list("abcde"), list("cdxy")])
    >>> listed_pairs(sample, 0.8)
       i  j  jaccard
    0  0  1      0.8
    """
    threshold = check_threshold(threshold, "threshold")
    mode = sample.attrs.get("mode")
    if mode not in ("all", "sampled"):
        raise ValueError(
            f"sample has mode {mode!r}; accepted: a frame from similarity_sample "
            "(attrs['mode'] 'all' or 'sampled')"
        )
    if mode == "sampled" and threshold < sample.attrs["floor"]:
        return None
    jac = sample["jaccard"].to_numpy()
    keep = ~sample["sampled"].to_numpy() & (jac >= threshold)
    import pandas as pd

    return pd.DataFrame(
        {
            "i": sample["i"].to_numpy()[keep],
            "j": sample["j"].to_numpy()[keep],
            "jaccard": jac[keep],
        }
    )
