"""Corpus-aware prediction: expected candidates, recall and precision of a banding on *this*
corpus, before and after the estimate filter, and the tuner that reaches a recall target
with the fewest candidates.

The model
---------
A pair of Jaccard similarity s has a signature of k = ``num_perm`` positions, each of which
agrees independently with probability s. Banding b × r uses positions 0 … b·r − 1 (band i
is positions i·r … i·r + r − 1); the u = k − b·r others are unused by the bands. The pair
is a *candidate* when all r positions of some band agree, and it is *accepted* (kept by the
filter) when it is a candidate and its estimate C/k ≥ t, where C is the number of agreeing
positions among all k (the same float comparison the pipeline makes).

That is classic MinHash (``sketch="minhash"``). For SuperMinHash the positions are
exchangeable but not independent: C is not Binomial(k, s) but has the sketch's own law,
simulated once (:mod:`nearsim.sketch_law`); everything below holds for it unchanged,
with that law in place of the binomial.

How the joint law is computed
-----------------------------
"Candidate" and "C/k ≥ t" are far from independent (a full band adds r agreements), so
their joint probability is computed exactly. Given C = m, the set of agreeing positions is
a uniformly random m-subset of the k positions whatever s is, so

    P(candidate and C ≥ c | s) = Σ_{m ≥ c} Binom(m; k, s) · g(m),

where g(m) = P(some band is full | m of the k positions agree) depends only on (k, b, r).
g comes from a dynamic programme over bands: the state after n positions is h_n(m), the
probability that a full band has been seen given m agreements among those n; adding r
positions mixes h_n with hypergeometric weights (x of the m agreements fall in the new
band; x = r fills it), and the u unused positions are merged at the end the same way
without the "full" case. Every step is a convex combination of non-negative numbers, so
nothing cancels and nothing overflows, for any k up to 4096.

The corpus enters only through two vectors of length k + 1: the weighted law of C over all
pairs, W(m) = Σ w·Binom(m; k, s), and the same over the true pairs (s ≥ t). Each quantity
is then one dot product with g, so a prediction costs O(distinct s · k + k²) and the tuner,
which runs the programme once per r and reads every b off it, O(distinct s · k + k³·ln k)
— no binning of similarities and no approximation beyond float rounding.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from nearsim.sketch_law import (
    _all_sums,
    _count_law,
    _log_factorials,
    _sums_for_r,
    check_sketch,
    weighted_law,
)
from nearsim.utils.validation import (
    check_banding,
    check_float,
    check_instance,
    check_num_perm,
    check_threshold,
    check_weight,
    fail,
)
from nearsim.utils.validation_arrays import (
    check_pair_similarity,
    check_pair_weights,
    check_similarity,
)


@dataclass(frozen=True)
class Prediction:
    """Expected outcome of banding b × r on a corpus, under the MinHash model.

    All counts are expected values (floats) in pairs of the corpus, each listed pair
    counting ``weight`` times. Ratios are ratios of expectations (E[found] / E[true
    pairs], not E[found / true pairs]); NaN when their denominator is 0.

    Attributes
    ----------
    b, r : int
        Bands and rows per band.
    candidates : float
        Σ w · P(candidate | s) over all pairs.
    true_pairs : float
        Σ w over the pairs with s ≥ threshold (not random).
    found : float
        Σ w · P(candidate | s) over the true pairs.
    recall, precision : float
        ``found / true_pairs`` and ``found / candidates``.
    accepted : float
        Σ w · P(candidate and estimate ≥ threshold | s) over all pairs.
    found_filtered : float
        The same over the true pairs.
    recall_filtered, precision_filtered : float
        ``found_filtered / true_pairs`` and ``found_filtered / accepted``.
    """

    b: int
    r: int
    candidates: float
    true_pairs: float
    found: float
    recall: float
    precision: float
    accepted: float
    found_filtered: float
    recall_filtered: float
    precision_filtered: float


# -- the public edge -------------------------------------------------------------------
class _Corpus:
    """The validated inputs reduced to what every prediction needs."""

    def __init__(self, similarity, weight, threshold, num_perm, sketch="minhash",
                 union_size=None):  # fmt: skip
        s = check_pair_similarity(similarity)
        w = check_pair_weights(weight, s.shape[0], "weight")
        self.t = check_threshold(threshold)
        self.k = check_num_perm(num_perm)
        sketch, union_size = check_sketch(sketch, union_size)
        values, inverse = np.unique(s, return_inverse=True)
        sums = np.bincount(inverse.reshape(-1), weights=w, minlength=values.shape[0])
        true = values >= self.t
        self.true_pairs = float(sums[true].sum())
        self.lf = _log_factorials(self.k)
        self.law = np.stack([
            _all_pairs_law(values, sums, self.k, self.lf, sketch, union_size),
            _law(values[true], sums[true], self.k, self.lf, sketch, union_size),
        ])  # fmt: skip
        # smallest count m whose estimate m / k passes the filter (the pipeline's float test)
        self.c = int(np.argmax(np.arange(self.k + 1) / self.k >= self.t))


def _law(values, sums, k: int, lf, sketch: str, union_size) -> np.ndarray:
    """W(m) = Σ w·P(m agreements of k | s) over the given distinct similarities (shape
    (k + 1,)): the binomial for MinHash, the sketch's own law otherwise
    (:mod:`nearsim.sketch_law`). Summed in the order given, so a subset in order gives
    the same floats as summing only its members of the whole."""
    if sketch == "minhash":
        return _count_law(values, sums, np.ones(values.shape[0], np.bool_), k, lf)[0]
    return weighted_law(values, sums, k, sketch, union_size)


_ALL_PAIRS_LAWS: OrderedDict = OrderedDict()
_ALL_PAIRS_KEEP = 4


def _all_pairs_law(values, sums, k: int, lf, sketch: str, union_size) -> np.ndarray:
    """:func:`_law` over every pair, kept for the last few corpora: it does not depend on
    the threshold, and a threshold step (a prediction and the tuners' rankings) read it
    three times; on 330,000 distinct similarities each sum took 0.3 CPU s. Keyed by a
    hash of the values and weights themselves, so equal inputs give the same law."""
    digest = hashlib.blake2b(values.tobytes(), digest_size=16)
    digest.update(sums.tobytes())
    key = (digest.hexdigest(), values.shape[0], k, sketch, union_size)
    law = _ALL_PAIRS_LAWS.get(key)
    if law is None:
        law = _law(values, sums, k, lf, sketch, union_size)
        law.setflags(write=False)
        _ALL_PAIRS_LAWS[key] = law
        while len(_ALL_PAIRS_LAWS) > _ALL_PAIRS_KEEP:
            _ALL_PAIRS_LAWS.popitem(last=False)
    else:
        _ALL_PAIRS_LAWS.move_to_end(key)
    return law


def _ratio(num: float, den: float) -> float:
    return num / den if den > 0 else float("nan")


def _prediction(b: int, r: int, true_pairs: float, sums) -> Prediction:
    cand, found, acc, found_f = (float(v) for v in sums)
    return Prediction(
        b=b,
        r=r,
        candidates=cand,
        true_pairs=true_pairs,
        found=found,
        recall=_ratio(found, true_pairs),
        precision=_ratio(found, cand),
        accepted=acc,
        found_filtered=found_f,
        recall_filtered=_ratio(found_f, true_pairs),
        precision_filtered=_ratio(found_f, acc),
    )


def predict(
    similarity, weight, threshold, b, r, num_perm, *, sketch="minhash", union_size=None
) -> Prediction:
    """Expected candidates, true pairs found, recall and precision of banding b × r.

    Parameters
    ----------
    similarity : array_like of float, shape (m,)
        Exact Jaccard similarity of a set of document pairs (e.g. the ``jaccard`` column of
        :func:`nearsim.similarity_sample` or of :func:`nearsim.exact_pairs`).
    weight : array_like of float, shape (m,), or None
        How many pairs of the corpus each listed pair stands for: 1 in a complete join,
        1/rate for a pair drawn at that rate (``None``: 1 for every pair). Finite, ≥ 0.
    threshold : float
        Jaccard threshold t in (0, 1]: true pairs have s ≥ t; the filter keeps candidates
        whose estimate (share of agreeing positions among all ``num_perm``) is ≥ t.
    b, r : int
        Bands and rows per band, b·r ≤ num_perm.
    num_perm : int
        Signature length k, 1 to 4096.
    sketch : {"minhash", "superminhash"}
        The signature's sketch. SuperMinHash's positions are not independent: its own
        law of the agreement count is used (:mod:`nearsim.sketch_law`, simulated once and
        cached), with the same exact treatment of bands and the filter.
    union_size : int, optional
        SuperMinHash only: the pairs' typical union size (default 200, short documents).

    Returns
    -------
    Prediction
        Expected values under the model in the module docstring. The joint law of
        "candidate" and "estimate ≥ t" is exact (not a product of the two probabilities).

    Raises
    ------
    ValueError
        Naming the argument, for a similarity outside [0, 1] or not 1-D, a weight of the
        wrong shape or negative, a bad threshold, banding or num_perm.

    Examples
    --------
    One pair at 0.9, ten at 0.5 and a thousand at 0.1:

    >>> p = predict([0.9, 0.5, 0.1], [1, 10, 1000], 0.8, 9, 13, 128)
    >>> p.true_pairs, round(p.recall, 4), round(p.candidates, 4)
    (1.0, 0.9286, 0.9396)
    >>> round(p.recall_filtered, 4), round(p.accepted, 4)
    (0.9285, 0.9285)
    """
    corpus = _Corpus(similarity, weight, threshold, num_perm, sketch, union_size)
    b, r = check_banding(b, r, corpus.k)
    sums = _sums_for_r(corpus.k, r, b, b, corpus.lf, corpus.law, corpus.c)[0]
    return _prediction(b, r, corpus.true_pairs, sums)


def tune_for(
    similarity, weight, threshold, num_perm, *, min_recall=0.95, sketch="minhash", union_size=None
) -> list[Prediction]:
    """Every banding b·r ≤ num_perm, ranked for "reach recall ≥ R with the fewest candidates".

    Parameters
    ----------
    similarity, weight, threshold, num_perm
        As for :func:`predict`.
    min_recall : float
        Recall target R, 0 to 1, for the candidates (``.recall``, before the filter).
    sketch, union_size
        As for :func:`predict`.

    Returns
    -------
    list of Prediction
        One per (b, r) with b·r ≤ num_perm. First those with ``.recall >= min_recall``,
        fewest expected candidates first (ties: higher recall, then b, then r); then the
        rest, highest expected recall first (ties: fewer candidates, then b, then r). With
        no true pairs every recall is NaN, nothing reaches the target, and the list is by
        fewest candidates. Each entry equals ``predict(..., b, r, num_perm, sketch=...)``.

    Notes
    -----
    The whole search costs one pass over the distinct similarities (O(distinct · k)) and
    one dynamic programme per r reused for every b (O(k³·ln k) in all, compiled, parallel
    over r); see ``benchmarks/bench_predict.py`` for timings.

    Examples
    --------
    >>> best = tune_for([0.9, 0.85, 0.5, 0.1], [1, 1, 10, 1000], 0.8, 128)[0]
    >>> (best.b, best.r), round(best.recall, 3), round(best.candidates, 3)
    ((11, 10), 0.951, 2.008)
    """
    corpus = _Corpus(similarity, weight, threshold, num_perm, sketch, union_size)
    target = check_float(min_recall, "min_recall", low=0.0, high=1.0)
    k = corpus.k
    r_max = k // np.arange(1, k + 1)
    offsets = np.concatenate([[0], np.cumsum(r_max)]).astype(np.int64)
    bands = np.repeat(np.arange(1, k + 1), r_max)
    rows = np.arange(bands.shape[0]) - np.repeat(offsets[:-1], r_max) + 1
    sums = _all_sums(k, corpus.lf, corpus.law, corpus.c, offsets)
    cand = sums[:, 0]
    recall = sums[:, 1] / corpus.true_pairs if corpus.true_pairs > 0 else np.full_like(cand, np.nan)
    enum = np.arange(cand.shape[0])
    good = recall >= target  # NaN compares False
    rec_key = np.where(np.isnan(recall), np.inf, -recall)  # higher recall first, NaN last
    first = np.flatnonzero(good)
    first = first[np.lexsort((enum[first], rec_key[first], cand[first]))]
    rest = np.flatnonzero(~good)
    rest = rest[np.lexsort((enum[rest], cand[rest], rec_key[rest]))]
    order = np.concatenate([first, rest])
    return [_prediction(int(bands[i]), int(rows[i]), corpus.true_pairs, sums[i]) for i in order]


@dataclass(frozen=True)
class TunerComparison:
    """The area tuner's choice next to the recall tuner's, predicted on one corpus.

    Attributes
    ----------
    areas : Prediction
        ``nearsim.tune(threshold, num_perm, fp_weight, 1 − fp_weight)[0]``, predicted.
    recall : list of Prediction
        ``tune_for(..., min_recall)``'s best eight.
    low_share : float
        Share of the corpus's pairs (by weight) with similarity below ``low``: pairs that
        no sensible banding makes candidates, yet that the false-positive area counts as
        much as the pairs just below t.
    near_share : float
        Share of the pairs with similarity within 0.1 of the threshold (either side):
        where the two tuners' choices differ in what they catch.
    low : float
    """

    areas: Prediction
    recall: list[Prediction]
    low_share: float
    near_share: float
    low: float


def compare_tuners(
    similarity,
    weight,
    threshold,
    num_perm,
    fp_weight=0.5,
    *,
    min_recall=0.95,
    low=0.3,
    sketch="minhash",
    union_size=None,
) -> TunerComparison:
    """What the area tuner and the recall tuner choose on this corpus, and why they differ.

    Parameters
    ----------
    similarity, weight, threshold, num_perm
        As for :func:`predict`.
    fp_weight : float
        The area tuner's false-positive weight (0 to 1).
    min_recall : float
        The recall tuner's target R.
    low : float
        Similarity below which a pair counts as "far from t", in (0, threshold).
    sketch, union_size
        As for :func:`predict` (the area tuner uses the same sketch's curve).

    Returns
    -------
    TunerComparison

    Examples
    --------
    >>> c = compare_tuners([0.9, 0.85, 0.5, 0.1], [1, 1, 10, 1000], 0.8, 128)
    >>> (c.areas.b, c.areas.r), (c.recall[0].b, c.recall[0].r), round(c.low_share, 3)
    ((9, 13), (11, 10), 0.988)
    """
    from nearsim.lsh import tune

    t = check_threshold(threshold)
    k = check_num_perm(num_perm)
    w_fp = check_weight(fp_weight, "fp_weight")
    low = check_float(low, "low", low=0.0, high=t, low_open=True, high_open=True)
    s = check_pair_similarity(similarity)
    w = check_pair_weights(weight, s.shape[0])
    sk = {"sketch": sketch, "union_size": union_size}
    best = tune(t, k, w_fp, 1.0 - w_fp, **sk)[0]
    total = float(w.sum())
    share = (lambda mask: float(w[mask].sum()) / total) if total > 0 else (lambda _: float("nan"))
    return TunerComparison(
        areas=predict(s, w, t, best.b, best.r, k, **sk),
        recall=tune_for(s, w, t, k, min_recall=min_recall, **sk)[:8],
        low_share=share(s < low),
        near_share=share(np.abs(s - t) <= 0.1),
        low=low,
    )


def prediction_table(predictions) -> pd.DataFrame:
    """Predictions as a table, one row each, in the given order.

    Parameters
    ----------
    predictions : iterable of Prediction

    Returns
    -------
    pandas.DataFrame
        Columns b, r (int64) and every float field of :class:`Prediction` (float64), a
        default RangeIndex.

    Examples
    --------
    >>> table = prediction_table(tune_for([0.9, 0.5], [1, 10], 0.8, 16)[:3])
    >>> list(table.columns[:4]), len(table)
    (['b', 'r', 'candidates', 'true_pairs'], 3)
    """
    accepted = "an iterable of Prediction (predict, tune_for)"
    if isinstance(predictions, str | bytes | Mapping) or not isinstance(predictions, Iterable):
        raise fail("predictions", predictions, accepted, wrong_type=True)
    try:
        rows = list(predictions)
    except TypeError:  # iterable in name only (a 0-d array)
        raise fail("predictions", predictions, accepted, wrong_type=True) from None
    for i, p in enumerate(rows):
        check_instance(p, f"predictions[{i}]", Prediction, "a Prediction (predict, tune_for)")
    columns = list(Prediction.__dataclass_fields__)
    table = pd.DataFrame([asdict(p) for p in rows], columns=columns)
    return table.astype({"b": np.int64, "r": np.int64}).astype({c: np.float64 for c in columns[2:]})


def similarity_weights(pairs: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The (similarity, weight) arrays :func:`predict` takes, from a frame of pairs.

    Parameters
    ----------
    pairs : pandas.DataFrame
        A column ``jaccard`` (exact similarity, 0 to 1) and optionally ``weight`` (how many
        corpus pairs each row stands for, ≥ 0; 1 for every row when absent) — e.g. the
        similarity sample, or an exact join.

    Returns
    -------
    (ndarray of float64, ndarray of float64), each of shape (m,)

    Examples
    --------
    >>> s, w = similarity_weights(pd.DataFrame({"jaccard": [0.9, 0.2]}))
    >>> s.tolist(), w.tolist()
    ([0.9, 0.2], [1.0, 1.0])
    """
    if not isinstance(pairs, pd.DataFrame) or "jaccard" not in pairs.columns:
        raise ValueError(
            f"pairs={type(pairs).__name__} is not accepted; accepted: a pandas DataFrame "
            "with a column jaccard (and optionally weight)"
        )
    s = check_similarity(pairs["jaccard"].to_numpy(), "pairs['jaccard']")
    w = pairs["weight"].to_numpy() if "weight" in pairs.columns else None
    return s, check_pair_weights(w, s.shape[0], "pairs['weight']")
