"""Search at small Hamming distances: table search equals all pairs, replay equals naive.

The permuted-table method (Manku et al.) must give exactly the pairs that comparing all
pairs gives — a hypothesis property test against a Python reference, plus larger fixed
cases — and one-by-one insertion (seed 000's replay) must equal the naive loop.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from simhash_support import naive_pairs, planted

from nearsim.banding import TooManyPairsError
from nearsim.hamming import (
    MAX_TABLE_DISTANCE,
    distance_histogram,
    distance_vs_jaccard,
    hamming_pairs,
    replay,
    table_scheme,
)
from nearsim.simhash import popcount

HYP = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)


def naive_replay(fps, d):
    kept = []
    for idx, x in enumerate(fps):
        if all(bin(int(x) ^ int(fps[k])).count("1") > d for k in kept):
            kept.append(idx)
    return kept


# --------------------------------------------------------------------------- pair search
@HYP
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(0, 60),
    d=st.integers(0, 6),
)
def test_tables_equal_brute_equal_naive(seed, n, d):
    fps = planted(seed, n, d)
    expected = naive_pairs(fps, d)
    tables = hamming_pairs(fps, d, method="tables")
    brute = hamming_pairs(fps, d, method="brute")
    pd.testing.assert_frame_equal(tables, expected)
    pd.testing.assert_frame_equal(brute, expected)


@pytest.mark.parametrize("d", [0, 1, 3, 5, MAX_TABLE_DISTANCE])
def test_tables_equal_brute_larger(d):
    fps = planted(100 + d, 1500, d, extra=3)
    tables = hamming_pairs(fps, d)
    brute = hamming_pairs(fps, d, method="brute")
    pd.testing.assert_frame_equal(tables, brute)
    assert len(tables) > 100


@pytest.mark.parametrize("d", range(1, MAX_TABLE_DISTANCE + 1))
def test_tables_with_more_blocks_than_the_distance_needs(monkeypatch, d):
    """Schemes for huge n use B > d + 1 blocks (C(B, d) tables, each pair seen by several):
    every pair must still come out exactly once."""
    import nearsim.hamming as hamming

    real = hamming.table_scheme
    monkeypatch.setattr(hamming, "table_scheme", lambda dd, n=0: real(dd, 10**8))
    assert hamming.table_scheme(d).blocks > d + 1 or d <= 2
    fps = planted(d, 600, d, extra=3)
    pd.testing.assert_frame_equal(hamming_pairs(fps, d), hamming_pairs(fps, d, "brute"))


def test_brute_any_distance_and_table_scheme():
    fps = planted(5, 40, 20, extra=10)
    pd.testing.assert_frame_equal(hamming_pairs(fps, 20, method="brute"), naive_pairs(fps, 20))
    assert len(hamming_pairs(fps, 64, method="brute")) == len(fps) * (len(fps) - 1) // 2
    for d in range(MAX_TABLE_DISTANCE + 1):
        for n in (100, 20_000, 10**7):
            sch = table_scheme(d, n)
            assert sch.blocks > d
            assert len(sch.tables) == math.comb(sch.blocks, sch.blocks - d) <= 200
            assert len(set(sch.tables)) == len(sch.tables)
            masks = sch.block_masks
            assert np.bitwise_or.reduce(masks) == np.uint64(2**64 - 1)
            assert sum(popcount(masks)) == 64
    assert table_scheme(3, 20_000).blocks == 4  # Manku et al.'s simplest: d + 1 blocks
    with pytest.raises(ValueError, match="brute"):
        hamming_pairs(fps, MAX_TABLE_DISTANCE + 1, method="tables")


def test_brute_on_all_cores_equals_numpy():
    """n = 3000 (4.5 million pairs) runs the parallel count and, at d = 30, the parallel
    fill (about 1.4 million pairs)."""
    fps = np.random.default_rng(12).integers(0, 2**64, size=3000, dtype=np.uint64)
    i, j = np.triu_indices(len(fps), k=1)
    dist = popcount(fps[i] ^ fps[j])
    for d in (3, 30):
        out = hamming_pairs(fps, d, "brute")
        keep = dist <= d
        np.testing.assert_array_equal(out["i"].to_numpy(), i[keep])
        np.testing.assert_array_equal(out["j"].to_numpy(), j[keep])
        np.testing.assert_array_equal(out["distance"].to_numpy(), dist[keep])
    assert len(out) > 1_000_000


def test_hamming_pairs_output_contract():
    fps = planted(1, 200, 3)
    out = hamming_pairs(fps, 3)
    assert list(out.columns) == ["i", "j", "distance"]
    assert all(out[c].dtype == np.int64 for c in out.columns)
    assert isinstance(out.index, pd.RangeIndex) and out.index.start == 0
    assert (out["i"] < out["j"]).all()
    assert out.equals(out.sort_values(["i", "j"]).reset_index(drop=True))
    assert (out["distance"] <= 3).all()
    empty = hamming_pairs(np.array([], dtype=np.uint64), 3)
    assert list(empty.columns) == ["i", "j", "distance"] and len(empty) == 0
    assert all(empty[c].dtype == np.int64 for c in empty.columns)


def test_hamming_pairs_valid_and_inputs_accepted():
    fps = np.array([0, 1, 3, 0, 2**64 - 1], dtype=np.uint64)
    valid = np.array([False, True, True, True, True])
    out = hamming_pairs(fps, 2, valid=valid)
    assert out[["i", "j"]].to_numpy().tolist() == [[1, 2], [1, 3], [2, 3]]
    pd.testing.assert_frame_equal(out, hamming_pairs(fps, 2, "brute", valid=valid))
    # Other unsigned widths, non-negative signed ints, lists of Python ints.
    small = fps[:4].astype(np.uint8)
    pd.testing.assert_frame_equal(hamming_pairs(small, 1), hamming_pairs(fps[:4], 1))
    pd.testing.assert_frame_equal(
        hamming_pairs(fps[:4].astype(np.int64), 1), hamming_pairs(fps[:4], 1)
    )
    assert len(hamming_pairs([0, 2**64 - 1, 2**63], 1)) == 1
    assert len(hamming_pairs(pd.Series(fps), 0)) == 1


def test_too_many_pairs():
    fps = np.zeros(50, dtype=np.uint64)
    for method in ("tables", "brute"):
        with pytest.raises(TooManyPairsError, match="max_pairs"):
            hamming_pairs(fps, 0, method, max_pairs=100)
        assert len(hamming_pairs(fps, 0, method, max_pairs=1225)) == 1225


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (([1, 2], 3, "fast"), r"method='fast'.*'tables', 'brute'"),
        (([1, 2], 3, None), "method=None"),
        (([1, 2], -1), "max_distance=-1"),
        (([1, 2], 65, "brute"), "max_distance=65.*0 to 64"),
        (([1, 2], 2.0), "max_distance=2.0"),
        (([1, 2], True), "max_distance=True"),
        (([1, 2], 2**70), "max_distance=118"),
        ((np.zeros((2, 2), dtype=np.uint64), 3), "1-D"),
        ((np.array([1.0, 2.0]), 3), "float64"),
        (([1, 2], 3, "tables", None, -1), "max_pairs=-1"),
        (([1, 2], 3, "tables", None, 2**64), "max_pairs=1844"),
    ],
)
def test_hamming_pairs_bad_input(args, match):
    fps, d, *rest = args
    kwargs = dict(zip(("method", "valid", "max_pairs"), rest, strict=False))
    with pytest.raises(ValueError, match=match):
        hamming_pairs(fps, d, **kwargs)


@pytest.mark.parametrize("valid", [[True, False], [1, 0, 1], "yes", np.array([1.0, 0.0, 1.0])])
def test_hamming_pairs_bad_valid(valid):
    with pytest.raises(ValueError, match=r"valid=.*accepted: a boolean array of shape \(3,\)"):
        hamming_pairs([1, 2, 3], 1, valid=valid)


# --------------------------------------------------------------------------- replay
@HYP
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 150), d=st.integers(0, 14))
def test_replay_equals_naive(seed, n, d):
    fps = planted(seed, n, d)
    assert replay(fps, d).tolist() == naive_replay(fps, d)


def test_replay_contract():
    fps = np.array([5, 5, 4, 2**64 - 1], dtype=np.uint64)
    kept = replay(fps, 1)
    assert kept.dtype == np.int64 and kept.tolist() == [0, 3]
    assert replay(fps, 0).tolist() == [0, 2, 3]
    assert replay(fps, 64).tolist() == [0]
    assert replay([], 3).tolist() == []
    with pytest.raises(ValueError, match="max_distance"):
        replay(fps, 65)


@pytest.mark.parametrize("d", [-1, 65, 1.0, None])
def test_replay_bad_distance(d):
    with pytest.raises(ValueError, match=f"max_distance={d}"):
        replay([1, 2], d)


def test_table_scheme_bad_arguments():
    with pytest.raises(ValueError, match="max_distance=9 is too large for method='tables'"):
        table_scheme(9)
    with pytest.raises(ValueError, match="n=-1 is not accepted"):
        table_scheme(3, -1)


# --------------------------------------------------------------------------- all distances
def test_distance_histogram_equals_all_pairs():
    fps = planted(3, 50, 3)
    hist = distance_histogram(fps)
    n = len(fps)
    assert hist.shape == (65,) and hist.dtype == np.int64 and hist.sum() == n * (n - 1) // 2
    naive = np.bincount(naive_pairs(fps, 64)["distance"], minlength=65)
    np.testing.assert_array_equal(hist, naive)
    big = planted(4, 3000, 3)  # the parallel kernel
    assert distance_histogram(big).sum() == len(big) * (len(big) - 1) // 2
    np.testing.assert_array_equal(
        np.cumsum(distance_histogram(big))[:4],
        [len(hamming_pairs(big, d, "brute")) for d in range(4)],
    )
    valid = np.arange(n) % 3 > 0
    kept = fps[valid]
    np.testing.assert_array_equal(
        distance_histogram(fps, valid=valid),
        np.bincount(naive_pairs(kept, 64)["distance"], minlength=65),
    )


def test_distance_vs_jaccard_keeps_the_frame_and_adds_distances():
    fps = np.array([0, 1, 3, 2**64 - 1], dtype=np.uint64)
    pairs = pd.DataFrame(
        {"i": [0, 1, 2], "j": [1, 3, 3], "jaccard": [0.9, 0.5, 0.1], "sampled": [0, 1, 0]},
        index=[5, 6, 7],
    )
    out = distance_vs_jaccard(fps, pairs)
    assert out["distance"].tolist() == [1, 63, 62] and out["distance"].dtype == np.int64
    assert isinstance(out.index, pd.RangeIndex)
    pd.testing.assert_frame_equal(out.drop(columns="distance"), pairs.reset_index(drop=True))


@pytest.mark.parametrize(
    ("pairs", "match"),
    [
        (pd.DataFrame({"i": [1], "j": [0], "jaccard": [0.5]}), r"row 0 is \(1, 0\)"),
        (pd.DataFrame({"i": [0], "j": [9], "jaccard": [0.5]}), r"0 ≤ i < j < 4"),
        (pd.DataFrame({"i": [0], "j": [1]}), "columns i, j, jaccard"),
        ([[0, 1]], "pandas DataFrame"),
    ],
)
def test_distance_vs_jaccard_bad_pairs(pairs, match):
    with pytest.raises(ValueError, match=match):
        distance_vs_jaccard(np.zeros(4, dtype=np.uint64), pairs)
