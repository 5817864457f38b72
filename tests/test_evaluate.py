"""Evaluation of candidates against exact pairs."""

import math

import numpy as np
import pandas as pd
import pytest

import nearsim as ns
from nearsim.evaluate import similarity_band


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
    with pytest.raises(ValueError, match="estimates has 1 values but there are 2"):
        ns.evaluate(frame([]), np.array([[0, 1], [1, 2]]), np.array([0.5]), 0.5)
    with pytest.raises(ValueError, match="columns i, j, jaccard"):
        ns.evaluate(pd.DataFrame({"a": [1]}), np.empty((0, 2)), np.empty(0), 0.5)
    with pytest.raises(ValueError, match="threshold=1.5"):
        ns.evaluate(frame([]), np.empty((0, 2), np.int64), np.empty(0), 1.5)
    with pytest.raises(ValueError, match="shape"):
        ns.evaluate(frame([]), np.zeros((2, 3), np.int64), np.empty(2), 0.5)


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
