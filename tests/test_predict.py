"""Corpus-aware prediction: against brute force, against real MinHash over many seeds, the
tuner's ordering, and bad input."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import known_pair

import nearsim as ns
from nearsim.utils.validation import ArgumentTypeError


# -- brute force ---------------------------------------------------------------------------
def brute(s, w, t, b, r, k):
    """The four expected sums by enumerating all 2^k agreement patterns."""
    pats = np.array(list(itertools.product([0, 1], repeat=k)), dtype=np.int64)
    agree = pats.sum(axis=1)
    cand = np.zeros(pats.shape[0], dtype=bool)
    for band in range(b):
        cand |= pats[:, band * r : band * r + r].all(axis=1)
    passes = agree / k >= t  # the pipeline's float comparison
    s = np.asarray(s, dtype=np.float64)[:, None]
    prob = s**agree * (1 - s) ** (k - agree)  # (pairs, patterns); 0**0 == 1
    w = np.asarray(w, dtype=np.float64)
    true = s[:, 0] >= t
    per = np.stack([prob @ cand, prob @ (cand & passes)], axis=1)  # (pairs, 2)
    return {
        "candidates": w @ per[:, 0],
        "found": w[true] @ per[true, 0],
        "accepted": w @ per[:, 1],
        "found_filtered": w[true] @ per[true, 1],
        "true_pairs": w[true].sum(),
    }


@st.composite
def cases(draw):
    k = draw(st.integers(1, 10))
    r = draw(st.integers(1, k))
    b = draw(st.integers(1, k // r))
    t = draw(st.sampled_from([0.05, 0.2, 1 / 3, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]))
    grid = st.one_of(st.sampled_from([0.0, 1.0, t]), st.floats(0, 1))
    s = draw(st.lists(grid, min_size=1, max_size=6))
    w = draw(st.lists(st.floats(0, 1000), min_size=len(s), max_size=len(s)))
    return s, w, t, b, r, k


@given(cases())
def test_equals_brute_force(case):
    s, w, t, b, r, k = case
    p = ns.predict(s, w, t, b, r, k)
    want = brute(s, w, t, b, r, k)
    for name, value in want.items():
        assert getattr(p, name) == pytest.approx(value, rel=1e-9, abs=1e-12), name
    assert (p.b, p.r) == (b, r)


@pytest.mark.parametrize("k", [16, 128, 1024])
def test_candidates_follow_the_s_curve(k):
    """Without the filter, the prediction is Σ w·(1 − (1 − s^r)^b), to rounding, even where
    the S-curve is 1e-30 (relative accuracy, not only absolute)."""
    s = np.array([0.0, 1e-3, 0.02, 0.3, 0.5, 0.8, 0.95, 1.0])
    w = np.array([5.0, 1e6, 1e4, 100.0, 10.0, 2.0, 1.0, 1.0])
    for b, r in [(1, 1), (2, k // 2), (k // 8, 8), (k, 1), (3, 5)]:
        p = ns.predict(s, w, 0.8, b, r, k)
        curve = ns.candidate_probability(s, b, r)
        assert p.candidates == pytest.approx(w @ curve, rel=1e-11)
        assert p.found == pytest.approx(w[s >= 0.8] @ curve[s >= 0.8], rel=1e-11)
        single = ns.predict([1e-3], None, 0.8, b, r, k).candidates
        assert single == pytest.approx(ns.candidate_probability(1e-3, b, r), rel=1e-9)


@given(st.floats(0.01, 0.99), st.sampled_from([(4, 4, 20), (9, 13, 128), (2, 30, 64)]))
def test_filter_and_bands_are_positively_associated(s, banding):
    """Both events grow with the agreement pattern, so by Harris' inequality
    P(candidate and estimate ≥ t) ≥ P(candidate)·P(estimate ≥ t); the joint law is not the
    product (which an independent-events shortcut would give), and never exceeds either."""
    b, r, k = banding
    t = 0.7
    p = ns.predict([s], None, t, b, r, k)
    c = int(np.argmax(np.arange(k + 1) / k >= t))
    tail = sum(math.comb(k, m) * s**m * (1 - s) ** (k - m) for m in range(c, k + 1))
    assert p.accepted >= p.candidates * tail * (1 - 1e-9)
    assert p.accepted <= min(p.candidates, tail) * (1 + 1e-9)


def test_strictly_not_the_product():
    p = ns.predict([0.6], None, 0.7, 4, 8, 64)
    c = int(np.argmax(np.arange(65) / 64 >= 0.7))
    tail = sum(math.comb(64, m) * 0.6**m * 0.4 ** (64 - m) for m in range(c, 65))
    assert p.accepted > 1.5 * p.candidates * tail


def test_empty_and_unweighted():
    p = ns.predict([], [], 0.8, 9, 13, 128)
    assert (p.candidates, p.true_pairs, p.found, p.accepted) == (0.0, 0.0, 0.0, 0.0)
    assert math.isnan(p.recall) and math.isnan(p.precision) and math.isnan(p.recall_filtered)
    s = np.array([0.9, 0.9, 0.5, 0.81])
    assert ns.predict(s, None, 0.8, 9, 13, 128) == ns.predict(s, np.ones(4), 0.8, 9, 13, 128)
    # repeated similarities are merged with summed weights: the same prediction
    assert ns.predict(s, [1, 2, 3, 4], 0.8, 5, 10, 128) == pytest.approx(
        ns.predict([0.9, 0.5, 0.81], [3, 3, 4], 0.8, 5, 10, 128)
    )
    ones = ns.predict([1.0], None, 1.0, 2, 3, 10)
    assert ones.recall == ones.precision == ones.recall_filtered == 1.0


# -- real MinHash over many seeds ------------------------------------------------------------
def test_prediction_matches_real_minhash_over_seeds():
    """Over 200 hash seeds, the measured counts average to the prediction.

    Fixed documents: 64 pairs of known Jaccard (8 at each of 0.5 … 0.95, 100 shingles in
    each union, tokens never shared between pairs, so every other pair has J = 0 and under
    the model is never a candidate). For each seed, banding 8 × 8 of 64 positions and the
    estimate filter at t = 0.8 give four counts: candidates, true pairs found (J ≥ t),
    accepted, accepted true pairs. Under the model each count is a sum of independent
    Bernoulli(p_i) over the pairs, so its variance is Σ p_i(1 − p_i); the mean over N seeds
    has standard error sqrt(Σ p_i(1 − p_i) / N). Each mean must be within 4 standard errors
    (two-sided chance 6e-5 per count if the model holds), with a floor of 0.5/N where the
    variance is tiny. Recall is found / true pairs with a fixed denominator, so it passes
    exactly when found does.
    """
    rng = np.random.default_rng(12)
    levels = [0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95]
    docs, truth = [], []
    for q, j in enumerate(levels * 8):
        a, c, jj = known_pair(rng, q, 100, j)
        docs += [a, c]
        truth.append(jj)
    truth = np.array(truth)
    b, r, k, t = 8, 8, 64, 0.8
    seeds = 200
    measured = np.zeros((seeds, 4))
    true_codes = {(2 * q, 2 * q + 1) for q in np.flatnonzero(truth >= t)}
    for seed in range(seeds):
        sig = ns.MinHasher(k, seed).signatures(docs)
        cand = ns.candidate_pairs(sig, b, r)
        est = ns.estimate_pairs(sig, cand)
        is_true = np.array([tuple(p) in true_codes for p in cand.tolist()], dtype=bool)
        acc = est >= t
        measured[seed] = [len(cand), is_true.sum(), acc.sum(), (acc & is_true).sum()]
    p = ns.predict(truth, None, t, b, r, k)
    expected = np.array([p.candidates, p.found, p.accepted, p.found_filtered])
    # per-pair probabilities, for the variance
    each = [ns.predict([s], None, t, b, r, k) for s in truth]
    pc = np.array([e.candidates for e in each])
    pa = np.array([e.accepted for e in each])
    real = truth >= t
    var = np.array(
        [
            (pc * (1 - pc)).sum(),
            (pc * (1 - pc))[real].sum(),
            (pa * (1 - pa)).sum(),
            (pa * (1 - pa))[real].sum(),
        ]
    )
    se = np.sqrt(var / seeds)
    mean = measured.mean(axis=0)
    assert np.all(np.abs(mean - expected) <= np.maximum(4 * se, 0.5 / seeds)), (
        mean,
        expected,
        se,
    )
    assert mean[1] / real.sum() == pytest.approx(p.recall, abs=4 * se[1] / real.sum() + 1e-3)


# -- the tuner -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def corpus():
    rng = np.random.default_rng(3)
    s = np.concatenate([rng.beta(0.6, 8, 2000), rng.uniform(0.6, 1.0, 200)])
    w = np.concatenate([np.full(2000, 500.0), np.ones(200)])
    return s, w


@pytest.mark.parametrize("min_recall", [0.0, 0.9, 0.99, 1.0])
def test_tune_for_ordering(corpus, min_recall):
    s, w = corpus
    k = 48
    ranked = ns.tune_for(s, w, 0.8, k, min_recall=min_recall)
    assert {(p.b, p.r) for p in ranked} == {
        (b, r) for b in range(1, k + 1) for r in range(1, k + 1) if b * r <= k
    }
    assert len(ranked) == sum(k // b for b in range(1, k + 1))
    ok = [p.recall >= min_recall for p in ranked]
    n_ok = sum(ok)
    assert ok == [True] * n_ok + [False] * (len(ranked) - n_ok)  # reaching ones first
    head, tail = ranked[:n_ok], ranked[n_ok:]
    assert [p.candidates for p in head] == sorted(p.candidates for p in head)
    assert [p.recall for p in tail] == sorted((p.recall for p in tail), reverse=True)
    if min_recall == 0.0:
        assert n_ok == len(ranked) and (ranked[0].b, ranked[0].r) == (1, k)  # fewest
    for p in ranked[:: max(1, len(ranked) // 12)]:
        assert p == pytest.approx(ns.predict(s, w, 0.8, p.b, p.r, k))


def test_tune_for_ties_and_no_true_pairs():
    ranked = ns.tune_for([0.1, 0.3], [10, 1], 0.8, 12)
    assert all(math.isnan(p.recall) for p in ranked)
    cands = [p.candidates for p in ranked]
    assert cands == sorted(cands)
    # a single pair at J = 1: every banding finds it for sure (recall 1), so ranking is by
    # candidates alone, all equal, then datasketch's order b, r
    ranked = ns.tune_for([1.0], None, 0.5, 6)
    assert [(p.b, p.r) for p in ranked][:4] == [(1, 1), (1, 2), (1, 3), (1, 4)]


def test_tune_for_reaches_recall_with_fewer_candidates_than_the_area_tuner(corpus):
    """The reason for the second tuner: on a corpus the area rule's choice can cost more."""
    s, w = corpus
    best = ns.tune_for(s, w, 0.8, 128, min_recall=0.95)[0]
    area = ns.tune(0.8, 128)[0]
    theirs = ns.predict(s, w, 0.8, area.b, area.r, 128)
    assert best.recall >= 0.95
    if theirs.recall >= 0.95:
        assert best.candidates <= theirs.candidates


def test_table_and_frame():
    table = ns.prediction_table(ns.tune_for([0.9, 0.5], [1, 10], 0.8, 16))
    assert table.dtypes["b"] == np.int64 and table.dtypes["recall"] == np.float64
    assert len(table) == sum(16 // b for b in range(1, 17))
    s, w = ns.similarity_weights(pd.DataFrame({"jaccard": [0.5, 0.9], "weight": [3, 1]}))
    assert s.tolist() == [0.5, 0.9] and w.tolist() == [3.0, 1.0]
    with pytest.raises(ValueError, match=r"pairs\['weight'\]"):
        ns.similarity_weights(pd.DataFrame({"jaccard": [0.5], "weight": [-1.0]}))
    with pytest.raises(ValueError, match="column jaccard"):
        ns.similarity_weights(pd.DataFrame({"j": [0.5]}))
    with pytest.raises(ValueError, match=r"predictions\[0\]"):
        ns.prediction_table([1])


# -- bad input -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: ns.predict([1.5], None, 0.8, 2, 2, 8), r"similarity=\[1.5\]"),
        (lambda: ns.predict([np.nan], None, 0.8, 2, 2, 8), "similarity="),
        (lambda: ns.predict([[0.5]], None, 0.8, 2, 2, 8), r"similarity has shape \(1, 1\)"),
        (lambda: ns.predict(0.5, None, 0.8, 2, 2, 8), r"similarity has shape \(\)"),
        (lambda: ns.predict(["a"], None, 0.8, 2, 2, 8), "similarity="),
        (lambda: ns.predict([0.5], [-1], 0.8, 2, 2, 8), r"weight=\[-1\]"),
        (lambda: ns.predict([0.5], [1, 2], 0.8, 2, 2, 8), "weight=.*array of 1 finite"),
        (lambda: ns.predict([0.5], [np.inf], 0.8, 2, 2, 8), "weight="),
        (lambda: ns.predict([0.5], None, 0, 2, 2, 8), "threshold=0"),
        (lambda: ns.predict([0.5], None, 1.2, 2, 2, 8), "threshold=1.2"),
        (lambda: ns.predict([0.5], None, 0.8, 0, 2, 8), "b=0"),
        (lambda: ns.predict([0.5], None, 0.8, 2, 0, 8), "r=0"),
        (lambda: ns.predict([0.5], None, 0.8, 3, 3, 8), "b × r = 3 × 3 = 9"),
        (lambda: ns.predict([0.5], None, 0.8, 2, 2, 0), "num_perm=0"),
        (lambda: ns.predict([0.5], None, 0.8, 2, 2, 5000), "num_perm=5000"),
        (lambda: ns.tune_for([0.5], None, 0.8, 8, min_recall=1.5), "min_recall=1.5"),
        (lambda: ns.tune_for([0.5], None, 0.8, 8, min_recall=np.nan), "min_recall=nan"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: ns.predict([0.5], None, "0.8", 2, 2, 8), "threshold='0.8'"),
        (lambda: ns.predict([0.5], None, 0.8, 2.0, 2, 8), "b=2.0"),
        (lambda: ns.predict([0.5], None, 0.8, 2, 2, True), "num_perm=True"),
        (lambda: ns.predict([0.5], "1", 0.8, 2, 2, 8), "weight='1'"),
        (lambda: ns.tune_for([0.5], None, 0.8, 8, min_recall=True), "min_recall=True"),
    ],
)
def test_wrong_types(call, match):
    with pytest.raises(ArgumentTypeError, match=match):
        call()


def test_compare_tuners_puts_each_tuners_choice_side_by_side():
    s = np.array([0.95, 0.9, 0.82, 0.78, 0.5, 0.2, 0.05])
    w = np.array([1.0, 2.0, 3.0, 3.0, 50.0, 400.0, 5000.0])
    c = ns.compare_tuners(s, w, 0.8, 64, 0.5, min_recall=0.9, low=0.3)
    best = ns.tune(0.8, 64)[0]
    assert (c.areas.b, c.areas.r) == (best.b, best.r)
    assert c.areas == ns.predict(s, w, 0.8, best.b, best.r, 64)
    assert c.recall == ns.tune_for(s, w, 0.8, 64, min_recall=0.9)[:8]
    assert c.low_share == pytest.approx((400 + 5000) / w.sum())
    # within 0.1 of t = 0.8: 0.9, 0.82 and 0.78 (0.95 is 0.15 away)
    assert c.near_share == pytest.approx((2 + 3 + 3) / w.sum())
    with pytest.raises(ValueError, match="low=0.9 is not accepted"):
        ns.compare_tuners(s, w, 0.8, 64, low=0.9)


# -- escapes the garbage test (tests/test_garbage.py) found ------------------------------
@pytest.mark.parametrize("predictions", [None, 3, "abc", {"b": 1}])
def test_prediction_table_names_its_argument(predictions):
    """Was: "'NoneType' object is not iterable" from inside."""
    with pytest.raises(ArgumentTypeError, match=r"predictions=.* is not accepted; accepted: an"):
        ns.prediction_table(predictions)


def test_the_kept_all_pairs_law_follows_the_values_not_the_array():
    """The law over all pairs is kept between calls (a threshold step reads it three
    times); an array changed in place between two calls must not be answered from the
    law kept for its old values: every prediction equals one computed afresh."""
    from nearsim import prediction as P

    rng = np.random.default_rng(3)
    s = rng.uniform(0, 1, 2000)
    w = rng.uniform(1, 50, 2000)
    first = P.predict(s, w, 0.8, 9, 13, 128)
    w *= 2.0  # in place: same array object, new values
    kept = P.predict(s, w, 0.7, 9, 13, 128)
    P._ALL_PAIRS_LAWS.clear()
    fresh = P.predict(s, w, 0.7, 9, 13, 128)
    assert repr(kept) == repr(fresh)
    assert kept.candidates != first.candidates
