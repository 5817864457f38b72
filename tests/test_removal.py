"""Removal rate against threshold: against clusters of the pairs at each threshold."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import nearsim as ns
from nearsim.explore.removal import removal_curve, removal_rates


def direct(n, pairs, grid):
    """Clusters of the pairs with J >= t, one threshold at a time."""
    out = []
    for t in grid:
        keep = pairs[pairs["jaccard"] >= t]
        sizes = np.bincount(ns.clusters(n, keep), minlength=1) if n else np.zeros(0, int)
        big = sizes[sizes >= 2]
        out.append((len(keep), len(big), n - len(sizes), int(big.max()) if big.size else 0))
    return out


@st.composite
def graphs(draw):
    n = draw(st.integers(0, 25))
    possible = [(i, j) for i in range(n) for j in range(i + 1, n)]
    chosen = draw(st.lists(st.sampled_from(possible), unique=True, max_size=40)) if possible else []
    jac = draw(
        st.lists(
            st.sampled_from([0.5, 0.6, 0.7, 0.75, 0.8, 0.9, 1.0]) | st.floats(0.5, 1.0),
            min_size=len(chosen),
            max_size=len(chosen),
        )
    )
    chosen.sort()
    pairs = pd.DataFrame(
        {
            "i": np.array([p[0] for p in chosen], dtype=np.int64),
            "j": np.array([p[1] for p in chosen], dtype=np.int64),
            "jaccard": np.array(jac, dtype=np.float64),
        }
    )
    return n, pairs


@given(graphs())
def test_equals_clusters_at_each_threshold(graph):
    n, pairs = graph
    grid = np.array([0.5, 0.55, 0.6, 0.7, 0.75, 0.8, 0.9, 0.99, 1.0])
    curve = removal_curve(n, pairs, grid, join_threshold=0.5)
    got = list(
        zip(curve["pairs"], curve["clusters"], curve["removed"], curve["largest"], strict=True)
    )
    assert got == direct(n, pairs, grid)
    if n:
        assert np.allclose(curve["removed_share"], curve["removed"] / n)
    assert (np.diff(curve["removed"]) <= 0).all()  # fewer removed as t rises


def test_removal_rates_on_a_corpus():
    texts = ns.example_corpus(400, seed=3)["text"].tolist()
    sets = [ns.shingles(t) for t in texts]
    grid = np.array([0.5, 0.6, 0.7, 0.8, 0.9])
    curve = removal_rates(sets, grid)
    assert list(curve.columns) == [
        "threshold",
        "pairs",
        "clusters",
        "removed",
        "removed_share",
        "largest",
    ]
    for row in curve.itertuples():  # each row against its own join
        exact = ns.exact_pairs(sets, row.threshold)
        assert row.pairs == len(exact)
        labels = ns.clusters(len(sets), exact)
        assert row.removed == len(sets) - labels.max() - 1
    assert curve["removed"].iloc[0] > 0


def test_default_grid_and_dtypes():
    pairs = pd.DataFrame({"i": [0], "j": [1], "jaccard": [0.72]})
    curve = removal_curve(3, pairs, join_threshold=0.7)
    assert curve["threshold"].iloc[0] == 0.7 and curve["threshold"].iloc[-1] == 0.99
    assert curve["removed"].tolist() == [1, 1, 1] + [0] * 27
    assert curve.dtypes.to_dict() == {
        "threshold": np.float64,
        "pairs": np.int64,
        "clusters": np.int64,
        "removed": np.int64,
        "removed_share": np.float64,
        "largest": np.int64,
    }
    empty = removal_curve(0, pairs.iloc[:0], [0.8], join_threshold=0.8)
    assert empty["removed"].tolist() == [0] and np.isnan(empty["removed_share"].iloc[0])


@pytest.mark.parametrize(
    ("args", "kwargs", "match"),
    [
        ((3, pd.DataFrame({"i": [0], "j": [1], "jaccard": [0.8]}), [0.6]), {}, "thresholds=0.6"),
        ((3, pd.DataFrame({"i": [0], "j": [1]}), None), {}, "pairs="),
        ((3, pd.DataFrame({"i": [0], "j": [5], "jaccard": [0.8]}), None), {}, "pairs="),
        ((3, pd.DataFrame({"i": [0, 0], "j": [1, 1], "jaccard": [0.8] * 2}), None), {}, "twice"),
        ((3, pd.DataFrame({"i": [0], "j": [1], "jaccard": [1.8]}), None), {}, "jaccard"),
        ((-1, pd.DataFrame({"i": [0], "j": [1], "jaccard": [0.8]}), None), {}, "n=-1"),
        ((3, pd.DataFrame({"i": [0], "j": [1], "jaccard": [0.8]}), [0.9, 0.8]), {}, "thresholds="),
    ],
)
def test_bad_input(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        removal_curve(*args, join_threshold=0.7, **kwargs)
    with pytest.raises(ValueError, match="join_threshold=0"):
        removal_curve(3, args[1], None, join_threshold=0)


def test_removal_rates_bad_input():
    with pytest.raises(ValueError, match="method='fast'"):
        removal_rates([["a"]], method="fast")
    with pytest.raises(ValueError, match="thresholds="):
        removal_rates([["a"]], [])


# -- escapes the garbage test (tests/test_garbage.py) found ------------------------------
def test_the_curve_costs_the_pairs_not_the_documents():
    """Was: a cluster labelling of all n documents per threshold (MemoryError at 10**9)."""
    pairs = pd.DataFrame({"i": [0, 5], "j": [5, 10**9 - 1], "jaccard": [0.9, 0.95]})
    table = removal_curve(10**9, pairs, [0.9, 0.95], join_threshold=0.5)
    assert table["removed"].tolist() == [2, 1]
    assert table["largest"].tolist() == [3, 2]
    assert table["removed_share"].tolist() == [2e-9, 1e-9]


def test_removal_rates_reads_a_generator_of_documents_once():
    """Was: "object of type 'generator' has no len()" after the join had read it."""
    docs = [["a", "b", "c", "d"], ["a", "b", "c", "e"], ["x"]]
    table = removal_rates((d for d in docs), [0.5])
    assert table["removed"].tolist() == [1]
