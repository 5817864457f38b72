"""Sizing: memory formulas, the scaling model of candidate pairs, time from throughput."""

import numpy as np
import pytest

import nearsim as ns
from nearsim.explore.sizing import Throughput, measure_throughput, sizing

S = np.array([0.0, 0.05, 0.2, 0.45, 0.5, 0.7, 0.85, 0.95, 1.0])
W = np.array([1e7, 5e6, 1e5, 900.0, 50.0, 20.0, 10.0, 5.0, 3.0])
ARGS = {"corpus_docs": 10_000, "num_perm": 128, "b": 9, "r": 13, "threshold": 0.8}


def test_memory_formulas():
    table = sizing([10**6, 10**10], S, W, **ARGS)
    assert table["documents"].tolist() == [10**6, 10**10]
    assert table["signature_bytes"].tolist() == [4 * 128 * 10**6, 4 * 128 * 10**10]
    assert table["band_key_bytes_peak"].tolist() == [8 * 10**6, 8 * 10**10]
    assert table["band_key_bytes_all"].tolist() == [8 * 9 * 10**6, 8 * 9 * 10**10]
    assert (table["candidate_bytes"] == 16 * table["candidates"]).all()
    assert table.dtypes["signature_bytes"] == np.int64
    assert table["signature_seconds"].isna().all()


def test_at_the_loaded_size_it_is_the_prediction():
    """At N = n nothing is scaled: the candidates are predict's, the true pairs too."""
    table = sizing(10_000, S, W, **ARGS)
    p = ns.predict(S, W, 0.8, 9, 13, 128)
    assert table["candidates"].iloc[0] == pytest.approx(p.candidates, rel=1e-12)
    assert table["true_pairs"].iloc[0] == pytest.approx(p.true_pairs, rel=1e-12)


def test_scaling_model():
    """Near duplicates (s >= floor) scale with N / n, background pairs with N(N-1)/(n(n-1))."""
    n = ARGS["corpus_docs"]
    big = 10**8
    table = sizing([n, big], S, W, floor=0.5, **ARGS)
    near0, back0 = table[["candidates_near", "candidates_background"]].iloc[0]
    near1, back1 = table[["candidates_near", "candidates_background"]].iloc[1]
    curve = ns.candidate_probability(S, 9, 13)
    assert near0 == pytest.approx(W[S >= 0.5] @ curve[S >= 0.5], rel=1e-12)
    assert back0 == pytest.approx(W[S < 0.5] @ curve[S < 0.5], rel=1e-12)
    assert near1 == pytest.approx(near0 * big / n, rel=1e-12)
    assert back1 == pytest.approx(back0 * big * (big - 1) / (n * (n - 1)), rel=1e-12)
    # a lower floor moves the 0.45 pairs to the linear part
    low = sizing(big, S, W, floor=0.4, **ARGS)
    assert low["candidates_background"].iloc[0] < back1
    assert low["candidates_near"].iloc[0] > near1


def test_time_from_throughput():
    speeds = Throughput(2e4, 5e6, 1e7)
    table = sizing(10**9, S, W, throughput=speeds, **ARGS)
    row = table.iloc[0]
    assert row.signature_seconds == pytest.approx(10**9 / 2e4)
    assert row.band_seconds == pytest.approx(10**9 * 9 / 5e6)
    assert row.verify_seconds == pytest.approx(row.candidates / 1e7)
    assert row.total_seconds == pytest.approx(
        row.signature_seconds + row.band_seconds + row.verify_seconds
    )


def test_measure_throughput():
    speeds = measure_throughput(300, num_perm=32, b=4, r=8, repeats=1)
    assert isinstance(speeds, Throughput)
    assert all(np.isfinite(v) and v > 0 for v in speeds)


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"documents": 1}, "documents=1"),
        ({"documents": 10**13}, "documents=10000000000000"),
        ({"documents": 1.5e9}, "documents=1500000000.0"),
        ({"documents": [10**6, 0]}, r"documents\[1\]=0"),
        ({"documents": []}, "documents=\\[\\]"),
        ({"similarity": [1.2]}, "similarity="),
        ({"weight": [1.0, 2.0]}, "weight="),
        ({"corpus_docs": 1}, "corpus_docs=1"),
        ({"num_perm": 0}, "num_perm=0"),
        ({"b": 20}, "b × r = 20 × 13"),
        ({"threshold": 0}, "threshold=0"),
        ({"floor": 1.5}, "floor=1.5"),
        ({"throughput": (1, 2, 3)}, "throughput=\\(1, 2, 3\\)"),
        ({"throughput": Throughput(1.0, 0.0, 1.0)}, "throughput.band_keys_per_second=0.0"),
    ],
)
def test_bad_input(change, match):
    args = {"documents": 10**6, "similarity": [0.5], "weight": None} | ARGS | change
    with pytest.raises(ValueError, match=match):
        sizing(args.pop("documents"), args.pop("similarity"), args.pop("weight"), **args)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_docs": 100}, "n_docs=100"),
        ({"b": 20, "r": 13}, "b × r"),
        ({"repeats": 0}, "repeats=0"),
        ({"seed": -1}, "seed=-1"),
    ],
)
def test_measure_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        measure_throughput(**kwargs)


# -- escapes the garbage test (tests/test_garbage.py) found ------------------------------
def test_ragged_documents_are_not_accepted():
    """Was: NumPy's "inhomogeneous shape" ValueError from inside."""
    with pytest.raises(TypeError, match=r"documents\[0\]=\[1, 2\] is not accepted; accepted"):
        sizing([[1, 2], [3]], [0.9], None, corpus_docs=10, num_perm=16, b=4, r=4, threshold=0.8)
