"""Scoring against exact pairs: LSH candidates, rates by similarity, SimHash in Compare.

Every score goes through one rule (``score_codes``); the pairs given are checked: integer,
0 <= i < j, no repeats, thresholds in (0, 1], estimates finite numbers from 0 to 1.
"""

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from simhash_support import planted, random_words
from support import jaccard

import nearsim as ns
from nearsim.hamming import distance_histogram, distance_vs_jaccard
from nearsim.scoring import (
    compare_simhash,
    compare_table,
    lsh_scores,
    score_codes,
    similarity_band,
)
from nearsim.shingling import shingles
from nearsim.simhash import SimHasher, hamming_distance


def frame(rows):
    return pd.DataFrame(rows, columns=["i", "j", "jaccard"]).astype(
        {"i": "int64", "j": "int64", "jaccard": "float64"}
    )


def test_scores_before_and_after_the_estimate_filter():
    exact = frame([(0, 1, 0.9), (0, 2, 0.85), (3, 4, 0.8), (5, 6, 0.5)])
    cand = np.array([[0, 1], [0, 2], [1, 2], [5, 6]])
    est = np.array([0.92, 0.75, 0.81, 0.55])
    ev = ns.evaluate(exact, cand, est, 0.8)
    assert ev.true_pairs == 3  # (5, 6) is below t
    assert ev.candidates == 4
    assert ev.true_candidates == 2
    assert ev.recall == pytest.approx(2 / 3)
    assert ev.precision == pytest.approx(2 / 4)
    assert ev.accepted == 2  # (0, 1) and (1, 2)
    assert ev.true_accepted == 1
    assert ev.recall_filtered == pytest.approx(1 / 3)
    assert ev.precision_filtered == pytest.approx(1 / 2)
    assert ev.missed[["i", "j"]].values.tolist() == [[3, 4]]
    assert ev.false_candidates[["i", "j"]].values.tolist() == [[1, 2], [5, 6]]
    assert ev.candidate_table["true"].tolist() == [True, True, False, False]


def test_empty_inputs_give_nan_not_errors():
    ev = ns.evaluate(frame([]), np.empty((0, 2), np.int64), np.empty(0), 0.5)
    assert ev.true_pairs == ev.candidates == 0
    assert math.isnan(ev.recall) and math.isnan(ev.precision)


def test_bad_arguments():
    with pytest.raises(ValueError, match=r"estimates=array\(shape=\(1,\).*accepted: an array of 2"):
        ns.evaluate(frame([]), np.array([[0, 1], [1, 2]]), np.array([0.5]), 0.5)
    with pytest.raises(ValueError, match="columns i, j, jaccard"):
        ns.evaluate(pd.DataFrame({"a": [1]}), np.empty((0, 2)), np.empty(0), 0.5)
    with pytest.raises(ValueError, match="threshold=1.5"):
        ns.evaluate(frame([]), np.empty((0, 2), np.int64), np.empty(0), 1.5)
    with pytest.raises(ValueError, match="shape"):
        ns.evaluate(frame([]), np.zeros((2, 3), np.int64), np.empty(2), 0.5)


EXACT = frame([(0, 1, 0.9), (2, 3, 1.0)])


@pytest.mark.parametrize(
    ("candidates", "match"),
    [
        ([[1, -1]], r"candidates=\[\[1, -1\]\] is not accepted; accepted: .*0 ≤ i < j"),
        ([[-1, 1]], r"candidates=\[\[-1, 1\]\] is not accepted"),
        ([[1, 0]], r"candidates row 0 is \(1, 0\), which is not accepted"),
        ([[2, 2]], r"candidates row 0 is \(2, 2\)"),
        ([[0, 1], [0, 1]], "candidates holds a pair twice"),
        ([[0.0, 1.0]], r"candidates=\[\[0.0, 1.0\]\] is not accepted; accepted: an integer"),
        ([[True, False]], "candidates=.*accepted: an integer array"),
        ("01", "candidates='01' is not accepted"),
    ],
)
def test_evaluate_rejects_bad_candidates(candidates, match):
    """Before: (1, -1) was scored as the true pair (0, 1) with recall 1.0, and (1, 0)
    passed."""
    with pytest.raises(ValueError, match=match):
        ns.evaluate(EXACT, candidates, [0.9] * len(candidates), 0.5)


@pytest.mark.parametrize(
    ("estimates", "match"),
    [
        ([float("nan")], r"estimates=\[nan\] is not accepted; accepted: an array of 1 number"),
        ([float("inf")], r"estimates=\[inf\] is not accepted"),
        ([None], r"estimates=\[None\] is not accepted"),
        (["0.9"], r"estimates=\['0.9'\] is not accepted"),
        ("0.9", r"estimates='0.9' is not accepted"),
        (None, "estimates=None is not accepted"),
        ([1.5], r"estimates=\[1.5\] is not accepted; accepted: .*from 0 to 1"),
        ([-0.1], r"estimates=\[-0.1\] is not accepted"),
        ([0.9, 0.8], r"estimates=\[0.9, 0.8\] is not accepted; accepted: an array of 1 "),
        ([[0.9]], r"estimates=\[\[0.9\]\] is not accepted"),
    ],
)
def test_evaluate_rejects_bad_estimates(estimates, match):
    with pytest.raises(ValueError, match=match):
        ns.evaluate(EXACT, [[0, 1]], estimates, 0.5)


@pytest.mark.parametrize(
    ("threshold", "match"),
    [
        (0, "threshold=0 is not accepted; accepted: a number in \\(0, 1\\]"),
        (1.0000001, "threshold=1.0000001"),
        (float("nan"), "threshold=nan"),
        ("0.5", "threshold='0.5'"),
        (True, "threshold=True"),
        (None, "threshold=None"),
    ],
)
def test_evaluate_rejects_bad_thresholds(threshold, match):
    with pytest.raises(ValueError, match=match):
        ns.evaluate(EXACT, [[0, 1]], [0.9], threshold)


def test_threshold_one_is_accepted_like_exact_pairs():
    """exact_pairs(..., 1.0) works, so evaluate and rate_by_band at 1.0 must too."""
    exact = ns.exact_pairs([list("abcd"), list("abcd"), list("abce")], 1.0)
    assert exact[["i", "j"]].to_numpy().tolist() == [[0, 1]]
    ev = ns.evaluate(exact, [[0, 1], [1, 2]], [1.0, 0.6], 1.0)
    assert (ev.true_pairs, ev.true_candidates, ev.accepted, ev.true_accepted) == (1, 1, 1, 1)
    assert (ev.recall, ev.precision, ev.precision_filtered) == (1.0, 0.5, 1.0)
    cmp = compare_table(np.array([0, 0, 7], dtype=np.uint64), exact, 1.0, max_distance=3)
    assert cmp["true_within"].tolist() == [1, 1, 1, 1]


@pytest.mark.parametrize(
    ("pairs", "match"),
    [
        (frame([(1, 0, 0.9)]), r"pairs row 0 is \(1, 0\)"),
        (frame([(0, -1, 0.9)]), r"pairs=DataFrame.* is not accepted; accepted: .*0 ≤ i < j"),
        (frame([(0, 1, 0.9), (0, 1, 0.8)]), "pairs holds a pair twice"),
        (frame([(0, 1, float("nan"))]), r"pairs\['jaccard'\]=.* is not accepted"),
        (frame([(0, 1, 1.2)]), r"pairs\['jaccard'\]=.*each from 0 to 1"),
        ([[0, 1, 0.9]], "pairs=.*accepted: a pandas DataFrame with columns i, j, jaccard"),
    ],
)
def test_rate_by_band_rejects_bad_pairs(pairs, match):
    with pytest.raises(ValueError, match=match):
        ns.rate_by_band(pairs, np.array([[0, 1]]))


@pytest.mark.parametrize(
    ("candidates", "match"),
    [
        ([[1, -1]], r"candidates=\[\[1, -1\]\] is not accepted"),
        ([[1, 0]], r"candidates row 0 is \(1, 0\)"),
        ([[0, 1], [0, 1]], "candidates holds a pair twice"),
    ],
)
def test_rate_by_band_rejects_bad_candidates(candidates, match):
    """Before: (1, -1) counted as a hit on the pair (0, 1)."""
    with pytest.raises(ValueError, match=match):
        ns.rate_by_band(frame([(0, 1, 0.9)]), candidates)


def test_rate_by_band_needs_both_b_and_r():
    with pytest.raises(ValueError, match="b=9 and r=None are not accepted"):
        ns.rate_by_band(frame([(0, 1, 0.9)]), [[0, 1]], 9)
    with pytest.raises(ValueError, match="b=0 is not accepted"):
        ns.rate_by_band(frame([(0, 1, 0.9)]), [[0, 1]], 0, 5)


def test_bands_put_boundary_values_where_they_name():
    j = np.array([0.0, 0.049, 0.05, 0.15, 3 / 20, 0.7, 0.95, 1.0])
    assert similarity_band(j).tolist() == [0, 0, 1, 3, 3, 14, 19, 19]


def test_rate_by_band_counts_and_expectation():
    pairs = pd.DataFrame(
        {
            "i": [0, 0, 1, 2, 3],
            "j": [1, 2, 2, 3, 4],
            "jaccard": [0.82, 0.81, 0.12, 0.97, 0.83],
            "sampled": [False, False, True, False, False],
        }
    )
    cand = np.array([[0, 1], [2, 3]])
    table = ns.rate_by_band(pairs, cand, 9, 13)
    assert len(table) == 20
    row = table.iloc[16]  # [0.80, 0.85)
    assert (row["pairs"], row["candidates"]) == (3, 1)
    assert row["rate"] == pytest.approx(1 / 3)
    assert not row["sampled"]
    assert table.iloc[2]["sampled"]
    assert table.iloc[19]["rate"] == 1.0
    assert math.isnan(table.iloc[0]["rate"])
    expected = np.mean(ns.candidate_probability(np.array([0.82, 0.81, 0.83]), 9, 13))
    assert row["expected"] == pytest.approx(expected)


def test_rate_by_band_counts_pairs_that_share_nothing():
    pairs = pd.DataFrame(
        {"i": [0, 1], "j": [1, 2], "jaccard": [0.9, 0.02], "sampled": [False, False]}
    )
    pairs.attrs.update(mode="all", zero_pairs=4)  # (0, 2), (0, 3), (1, 3), (2, 3)
    cand = np.array([[0, 1], [2, 3]])  # (2, 3) shares nothing but collided on a band
    table = ns.rate_by_band(pairs, cand)
    assert table.iloc[0]["pairs"] == 5
    assert table.iloc[0]["candidates"] == 1
    assert table.iloc[18]["candidates"] == 1


# --------------------------------------------------------------------------- the scorer
def test_score_codes_counts_and_nan():
    s, hit = score_codes(np.array([1, 4, 9]), np.array([4, 9, 12, 20]))
    assert (s.found, s.true, s.hits) == (3, 4, 2) and hit.tolist() == [False, True, True]
    assert (s.recall, s.precision) == (0.5, 2 / 3)
    empty = np.empty(0, dtype=np.int64)
    none, _ = score_codes(empty, empty)
    assert none.hits == 0 and math.isnan(none.recall) and math.isnan(none.precision)
    only_true, _ = score_codes(empty, np.array([3]))
    assert only_true.recall == 0.0 and math.isnan(only_true.precision)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    n=st.integers(2, 12),
    data=st.data(),
    t=st.sampled_from([0.3, 0.5, 0.8, 1.0]),
)
def test_evaluate_equals_counting_by_hand(n, data, t):
    """evaluate against sets of pairs counted in Python (any order of candidate rows)."""
    all_pairs = list(itertools.combinations(range(n), 2))
    truth = data.draw(st.lists(st.sampled_from(all_pairs), unique=True))
    jac = data.draw(st.lists(st.floats(0, 1), min_size=len(truth), max_size=len(truth)))
    cand = data.draw(st.lists(st.sampled_from(all_pairs), unique=True))
    est = data.draw(st.lists(st.floats(0, 1), min_size=len(cand), max_size=len(cand)))
    exact = frame(sorted((i, j, x) for (i, j), x in zip(truth, jac, strict=True)))
    ev = ns.evaluate(exact, np.array(cand, dtype=np.int64).reshape(-1, 2), est, t)
    true = {(i, j) for (i, j), x in zip(truth, jac, strict=True) if x >= t}
    acc = {p for p, e in zip(cand, est, strict=True) if e >= t}
    assert ev.true_pairs == len(true) and ev.candidates == len(cand)
    assert ev.true_candidates == len(true & set(cand)) and ev.accepted == len(acc)
    assert ev.true_accepted == len(true & acc)
    for got, num, den in [
        (ev.recall, len(true & set(cand)), len(true)),
        (ev.precision, len(true & set(cand)), len(cand)),
        (ev.recall_filtered, len(true & acc), len(true)),
        (ev.precision_filtered, len(true & acc), len(acc)),
    ]:
        assert math.isnan(got) if den == 0 else got == pytest.approx(num / den)
    assert ev.candidate_table["true"].tolist() == [tuple(p) in true for p in cand]
    assert set(map(tuple, ev.missed[["i", "j"]].to_numpy().tolist())) == true - set(cand)


# --------------------------------------------------------------------------- Compare
def edited_corpus(n_orig=40, copies=40, seed=0):
    """Originals of random words and copies with a few words changed."""
    rng = np.random.default_rng(seed)
    docs = [random_words(rng, int(rng.integers(20, 40))) for _ in range(n_orig)]
    for _ in range(copies):
        w = list(docs[int(rng.integers(len(docs)))])
        for q in rng.choice(len(w), size=int(rng.integers(0, 6)), replace=False):
            w[q] = random_words(rng, 1)[0]
        docs.append(w)
    return [" ".join(w) for w in docs]


def _exact_frame(lists, floor):
    rows = [
        (i, j, jaccard(lists[i], lists[j]))
        for i, j in itertools.combinations(range(len(lists)), 2)
    ]
    rows = [r for r in rows if r[2] >= floor]
    return pd.DataFrame(rows, columns=["i", "j", "jaccard"]).astype({"i": np.int64, "j": np.int64})


def test_compare_table_equals_brute_force_counting():
    texts = edited_corpus()
    texts += ["", ""]  # two empty documents: fingerprint 0, never a true pair
    lists = [shingles(t) for t in texts]
    fps = SimHasher(seed=1).fingerprints(lists)
    t = 0.6
    exact = _exact_frame(lists, 0.3)  # rows below t must be ignored
    truth = {(i, j) for i, j, jac in exact.itertuples(index=False) if jac >= t}
    assert len(truth) > 10
    dist = {
        (i, j): hamming_distance(fps[i], fps[j])
        for i, j in itertools.combinations(range(len(fps)), 2)
    }
    table = compare_table(fps, exact, t, max_distance=30)
    assert list(table.columns) == ["d", "pairs_within", "true_within", "recall", "precision"]
    assert table["d"].tolist() == list(range(31))
    for row in table.itertuples(index=False):
        within = sum(1 for v in dist.values() if v <= row.d)
        true_within = sum(1 for p in truth if dist[p] <= row.d)
        assert row.pairs_within == within
        assert row.true_within == true_within
        assert row.recall == pytest.approx(true_within / len(truth))
        if within:
            assert row.precision == pytest.approx(true_within / within)
        else:
            assert math.isnan(row.precision)
    # Leaving out the empty documents removes their pair at distance 0 and nothing true.
    valid = np.array([bool(s) for s in lists])
    v_table = compare_table(fps, exact, t, max_distance=30, valid=valid)
    assert (table["pairs_within"] - v_table["pairs_within"]).min() >= 1
    pd.testing.assert_series_equal(v_table["true_within"], table["true_within"])
    # distance_vs_jaccard gives the same distances
    scatter = distance_vs_jaccard(fps, exact)
    assert scatter["distance"].tolist() == [
        dist[(i, j)] for i, j in zip(exact["i"], exact["j"], strict=True)
    ]
    assert scatter["distance"].dtype == np.int64
    pd.testing.assert_frame_equal(scatter[["i", "j", "jaccard"]], exact)


def test_compare_table_with_exact_pairs():
    """The ground truth the app uses (nearsim.join.exact.exact_pairs) plugs straight in."""
    from nearsim.join.exact import exact_pairs

    texts = edited_corpus(seed=3)
    lists = [shingles(t) for t in texts]
    fps = SimHasher(seed=1).fingerprints(lists)
    exact = exact_pairs(lists, 0.5)
    mine = _exact_frame(lists, 0.5)
    pd.testing.assert_frame_equal(
        compare_table(fps, exact, 0.7), compare_table(fps, mine, 0.7), check_exact=False
    )
    scatter = distance_vs_jaccard(fps, exact)
    assert len(scatter) == len(exact) and scatter["distance"].dtype == np.int64


def test_compare_table_without_truth():
    fps = planted(3, 50, 3)
    empty = pd.DataFrame({"i": [], "j": [], "jaccard": []})
    table = compare_table(fps, empty, 0.8, max_distance=5)
    assert table["recall"].isna().all() and (table["true_within"] == 0).all()
    np.testing.assert_array_equal(table["pairs_within"], np.cumsum(distance_histogram(fps))[:6])


def test_lsh_scores_and_compare_simhash():
    exact = pd.DataFrame({"i": [0, 1, 2, 0], "j": [1, 2, 3, 3], "jaccard": [0.9, 0.85, 0.5, 0.8]})
    lsh = np.array([[0, 1], [1, 3], [2, 3]])
    s = lsh_scores(lsh, exact, 0.8)
    assert s == {
        "pairs": 3,
        "true_found": 1,
        "true_pairs": 3,
        "recall": pytest.approx(1 / 3),
        "precision": pytest.approx(1 / 3),
    }
    none = lsh_scores(np.empty((0, 2), dtype=np.int64), exact, 0.8)
    assert none["recall"] == 0 and math.isnan(none["precision"])
    fps = np.array([0, 1, 3, 2**64 - 1], dtype=np.uint64)
    cmp = compare_simhash(fps, exact, 0.8, lsh_pairs=lsh, max_distance=3)
    assert cmp.lsh == s and cmp.true_pairs == 3 and cmp.total_pairs == 6
    pd.testing.assert_frame_equal(cmp.table, compare_table(fps, exact, 0.8, max_distance=3))
    assert compare_simhash(fps, exact, 0.8).lsh is None


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"threshold": 0}, "threshold=0"),
        ({"threshold": 1.5}, "threshold=1.5"),
        ({"max_distance": 65}, "max_distance"),
        ({"exact": pd.DataFrame({"i": [0]})}, "columns"),
        ({"threshold": "0.8"}, "threshold='0.8'"),
        ({"max_distance": 2.0}, "max_distance=2.0"),
        ({"exact": pd.DataFrame({"i": [0], "j": [9], "jaccard": [1.0]})}, "0 ≤ i < j < 4"),
        ({"exact": pd.DataFrame({"i": [1], "j": [1], "jaccard": [1.0]})}, r"row 0 is \(1, 1\)"),
        ({"exact": pd.DataFrame({"i": [1], "j": [0], "jaccard": [1.0]})}, r"row 0 is \(1, 0\)"),
        ({"exact": pd.DataFrame({"i": [0, 0], "j": [1, 1], "jaccard": [1.0, 1.0]})}, "twice"),
        ({"exact": pd.DataFrame({"i": [0], "j": [1], "jaccard": [1.5]})}, "jaccard"),
        ({"exact": [[0, 1]]}, "DataFrame"),
        ({"valid": [True]}, "valid"),
    ],
)
def test_compare_table_bad_input(kwargs, match):
    args = {
        "fingerprints": np.zeros(4, dtype=np.uint64),
        "exact": pd.DataFrame({"i": [0], "j": [1], "jaccard": [0.9]}),
        "threshold": 0.8,
    }
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        compare_table(**args)


def test_lsh_scores_bad_pairs():
    exact = pd.DataFrame({"i": [0], "j": [1], "jaccard": [0.9]})
    with pytest.raises(ValueError, match=r"shape \(m, 2\)"):
        lsh_scores(np.array([1, 2, 3]), exact, 0.8)
    with pytest.raises(ValueError, match="0 ≤ i < j < 4"):
        lsh_scores(np.array([[0, 7]]), exact, 0.8, n=4)
    with pytest.raises(ValueError, match=r"row 1 is \(1, 0\)"):
        lsh_scores(np.array([[0, 1], [1, 0]]), exact, 0.8)
    with pytest.raises(ValueError, match="twice"):
        lsh_scores(np.array([[0, 1], [0, 1]]), exact, 0.8)
    with pytest.raises(ValueError, match="n=-1"):
        lsh_scores(np.array([[0, 1]]), exact, 0.8, n=-1)
