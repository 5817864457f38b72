"""Exact ground truth: nearsim.exact.exact_pairs and similarity_sample."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nearsim.exact as exact_module
from nearsim.exact import (
    exact_pairs,
    similarity_band,
    similarity_sample,
    threshold_fraction,
    warm_up,
)

METHODS = ("brute", "ppjoin", "auto")


def reference(sets, threshold) -> list[tuple[int, int, float]]:
    """Plain Python: every pair with inter/union >= the threshold's decimal value."""
    t = threshold if isinstance(threshold, Fraction) else Fraction(repr(float(threshold)))
    docs = [set(d) for d in sets]
    out = []
    for i in range(len(docs)):
        for j in range(i + 1, len(docs)):
            inter = len(docs[i] & docs[j])
            if inter == 0:
                continue
            union = len(docs[i] | docs[j])
            if Fraction(inter, union) >= t:
                out.append((i, j, inter / union))
    return out


def rows(df: pd.DataFrame) -> list[tuple[int, int, float]]:
    return list(zip(df["i"].tolist(), df["j"].tolist(), df["jaccard"].tolist(), strict=True))


def check_frame(df: pd.DataFrame) -> None:
    assert list(df.columns[:3]) == ["i", "j", "jaccard"]
    assert df["i"].dtype == np.int64 and df["j"].dtype == np.int64
    assert df["jaccard"].dtype == np.float64
    assert isinstance(df.index, pd.RangeIndex) and df.index.start == 0
    assert (df["i"] < df["j"]).all()
    keys = list(zip(df["i"], df["j"], strict=True))
    assert keys == sorted(set(keys))


def family(rng: random.Random, n: int, alphabet: int, sizes) -> list[list[str]]:
    letters = [f"s{k}" for k in range(alphabet)]
    return [rng.sample(letters, min(rng.choice(sizes), alphabet)) for _ in range(n)]


# --------------------------------------------------------------------------- the join


@pytest.mark.parametrize("method", METHODS)
def test_small_examples_match_reference(method):
    rng = random.Random(7)
    for _ in range(60):
        sets = family(rng, rng.randint(0, 25), rng.randint(1, 30), (0, 1, 2, 5, 10, 20))
        for t in (0.7, 0.6, 0.8, 1 / 3, 0.5, 1.0, 0.05, 1e-9):
            df = exact_pairs(sets, t, method=method)
            check_frame(df)
            assert rows(df) == reference(sets, t)


@st.composite
def set_families(draw):
    alphabet = draw(st.integers(1, 80))
    sizes = draw(st.lists(st.sampled_from([1, 3, 7, 10, 20, 30, 70]), min_size=1, max_size=4))
    n = draw(st.integers(0, 30))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = random.Random(seed)
    sets = family(rng, n, alphabet, sizes)
    # near copies: drop or swap a few shingles of an earlier document, so pairs land on
    # and around the threshold's exact fraction
    for k in range(1, n):
        if rng.random() < 0.5:
            base = list(sets[rng.randrange(k)])
            for _ in range(rng.randint(0, 3)):
                if base and rng.random() < 0.5:
                    base.pop(rng.randrange(len(base)))
                else:
                    base.append(f"s{rng.randrange(alphabet)}")
            sets[k] = list(dict.fromkeys(base))
    return sets


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sets=set_families(), t=st.sampled_from([0.7, 0.6, 0.8, 1 / 3, 0.5, 0.9, 0.75, 1.0]))
def test_join_equals_brute_force(sets, t):
    brute = exact_pairs(sets, t, method="brute")
    pp = exact_pairs(sets, t, method="ppjoin")
    pd.testing.assert_frame_equal(brute, pp)
    assert rows(pp) == reference(sets, t)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sets=set_families(), t=st.sampled_from([0.7, 0.6, 0.8, 1 / 3, 0.5, 0.9]))
def test_hashed_and_hybrid_paths_equal_brute_force(sets, t):
    """Small alphabets use exact bitsets; force the paths large vocabularies take: the
    hashed bitmap bound in ppjoin, bitsets plus rare-shingle postings in brute."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(exact_module, "_EXACT_VOCAB", 0)
        mp.setattr(exact_module, "_BRUTE_FREQUENT_BITS", 64)
        mp.setattr(exact_module, "_HASHED_BITS", 64)
        brute = exact_pairs(sets, t, method="brute")
        pp = exact_pairs(sets, t, method="ppjoin")
    pd.testing.assert_frame_equal(brute, pp)
    assert rows(pp) == reference(sets, t)


def test_large_vocabulary_paths():
    rng = np.random.default_rng(5)
    vocab = np.array([f"t{k}" for k in range(20000)])
    weights = 1.0 / np.arange(1, 20001)
    weights /= weights.sum()
    sets = []
    for k in range(600):
        if k > 5 and rng.random() < 0.4:
            d = list(sets[int(rng.integers(0, k))])
            for _ in range(int(rng.integers(0, 8))):
                d[int(rng.integers(0, len(d)))] = str(rng.choice(vocab, p=weights))
        else:
            d = rng.choice(vocab, size=int(rng.integers(20, 80)), p=weights).tolist()
        sets.append(list(dict.fromkeys(d)))
    assert len(set().union(*map(set, sets))) > exact_module._EXACT_VOCAB
    for t in (0.3, 0.6):
        want = reference(sets, t)
        for method in METHODS:
            assert rows(exact_pairs(sets, t, method=method)) == want


@pytest.mark.parametrize(
    ("t", "size", "inter"),
    [
        (0.7, 10, 7),  # 0.7 * 10 = 7.000000000000001 in floats
        (0.7, 20, 14),
        (0.6, 10, 6),
        (0.6, 30, 18),
        (0.8, 70, 56),
        (0.8, 20, 16),
        (1 / 3, 30, 10),
        (0.5, 20, 10),
        (0.3, 10, 3),
    ],
)
@pytest.mark.parametrize("method", METHODS)
def test_pairs_exactly_on_the_threshold_are_kept(t, size, inter, method):
    """A pair whose inter/union is exactly the threshold's decimal value is included.

    x and y are equal-size sets; inter/union = t exactly needs union = inter / t.
    """
    union = Fraction(inter) / Fraction(repr(t)) if t != 1 / 3 else Fraction(inter * 3)
    assert union.denominator == 1
    union = int(union)
    own = union - inter  # shingles not shared, split between x and y
    x = [f"c{k}" for k in range(inter)] + [f"x{k}" for k in range(own // 2)]
    y = [f"c{k}" for k in range(inter)] + [f"y{k}" for k in range(own - own // 2)]
    sets = [x, y, x[: len(x) // 2]]
    df = exact_pairs(sets, t, method=method)
    assert (0, 1) in set(zip(df["i"], df["j"], strict=True))
    row = df[(df["i"] == 0) & (df["j"] == 1)]
    assert row["jaccard"].iloc[0] == inter / union
    # just above the fraction, the pair is gone
    above = math.nextafter(float(Fraction(inter, union)), 2.0)
    if above <= 1.0 and threshold_fraction(above) > Fraction(inter, union):
        df2 = exact_pairs(sets, above, method=method)
        assert (0, 1) not in set(zip(df2["i"], df2["j"], strict=True))


def test_threshold_fraction_reads_decimals_exactly():
    assert threshold_fraction(0.7) == Fraction(7, 10)
    assert threshold_fraction(0.8) == Fraction(4, 5)
    assert threshold_fraction(1 / 3) == Fraction(1, 3)
    assert threshold_fraction(1) == Fraction(1)
    assert threshold_fraction(np.float32(0.7)) == Fraction(7, 10)
    assert threshold_fraction(Fraction(2, 7)) == Fraction(2, 7)


@pytest.mark.parametrize("method", METHODS)
def test_empty_documents_are_never_paired(method):
    sets = [[], ["a", "b"], [], ["a", "b"], [], []]
    df = exact_pairs(sets, 0.05, method=method)
    assert rows(df) == [(1, 3, 1.0)]
    assert len(exact_pairs([[], [], []], 0.5, method=method)) == 0
    assert len(exact_pairs([], 0.5, method=method)) == 0
    assert len(exact_pairs([["a"]], 0.5, method=method)) == 0


@pytest.mark.parametrize("bad", [0, 0.0, -0.1, 1.5, float("nan"), float("inf"), "0.5", None, True])
def test_bad_thresholds_are_refused(bad):
    with pytest.raises(ValueError, match="threshold") as info:
        exact_pairs([["a"], ["a"]], bad)
    assert "(0, 1]" in str(info.value)
    assert repr(bad) in str(info.value)


@pytest.mark.parametrize("bad", ["fast", "", None, "PPJOIN", 1])
def test_bad_methods_are_refused(bad):
    with pytest.raises(ValueError, match="method") as info:
        exact_pairs([["a"], ["a"]], 0.5, method=bad)
    assert "auto" in str(info.value) and "ppjoin" in str(info.value)


@pytest.mark.parametrize(
    "bad",
    [
        "just a string",
        ["abc", "abd"],  # texts instead of shingle lists
        [["a"], "ab"],
        [["a"], [1, 2]],
        [["a", None]],
        [[b"ab"]],
        5,
        [["a"], 5],
        [{"a": 1}],
    ],
)
def test_bad_sets_are_refused(bad):
    with pytest.raises(ValueError):
        exact_pairs(bad, 0.5)


@pytest.mark.parametrize("method", METHODS)
def test_threshold_one_finds_exact_duplicates(method):
    sets = [["a", "b", "c"], ["c", "b", "a"], ["a", "b"], ["a", "b", "c", "d"], ["b", "a"]]
    df = exact_pairs(sets, 1.0, method=method)
    assert rows(df) == [(0, 1, 1.0), (2, 4, 1.0)]


@pytest.mark.parametrize("method", METHODS)
def test_repeated_shingles_count_once(method):
    sets = [["a", "a", "b"], ["a", "b", "b", "b"], ["a", "c", "c"]]
    df = exact_pairs(sets, 0.3, method=method)
    assert rows(df) == [(0, 1, 1.0), (0, 2, 1 / 3), (1, 2, 1 / 3)]


UNICODE = ["naïve", "café ", "日本語テキ", "😀😀😀", "über", "ℌ𝔢𝔩𝔩𝔬", "", "x" * 40, "\ud800z"]


@pytest.mark.parametrize("nul", [False, True])
@pytest.mark.parametrize("method", METHODS)
def test_unicode_and_long_shingles(method, nul):
    """Non-ASCII, lone surrogates, long (hashed) shingles; with a NUL the slow path."""
    base = [*UNICODE, "a\x00b"] if nul else list(UNICODE)
    long = [f"a long word shingle number {k}" for k in range(12)]
    sets = [base + long, base + long[:6], base[:5], list(reversed(base)), ["😀😀😀", "über"]]
    want = reference(sets, 0.3)
    df = exact_pairs(sets, 0.3, method=method)
    assert rows(df) == want
    assert (0, 1) in {(a, b) for a, b, _ in want}


def test_tuples_sets_and_arrays_are_accepted():
    lists = [["a", "b", "c"], ["a", "b", "d"], ["x"]]
    want = exact_pairs(lists, 0.5)
    for conv in (tuple, set, frozenset, lambda d: np.array(d, dtype=object), np.array):
        pd.testing.assert_frame_equal(exact_pairs([conv(d) for d in lists], 0.5), want)
    pd.testing.assert_frame_equal(exact_pairs(tuple(lists), 0.5), want)
    pd.testing.assert_frame_equal(exact_pairs(pd.Series(lists), 0.5), want)


def test_flat_shingles_input_gives_the_same_pairs():
    hashing = pytest.importorskip("nearsim._hashing")
    rng = random.Random(3)
    sets = family(rng, 200, 60, (5, 10, 20))
    sets[5] = []
    sets[17] = ["ünï", "cödé", "x" * 30] + sets[17]
    flat = hashing.flatten(sets)
    for method in METHODS:
        pd.testing.assert_frame_equal(
            exact_pairs(flat, 0.4, method=method), exact_pairs(sets, 0.4, method=method)
        )


def test_repeated_flat_shingles_reuse_their_tokens_safely():
    hashing = pytest.importorskip("nearsim._hashing")
    rng = random.Random(4)
    sets = family(rng, 120, 50, (5, 10, 20))
    flat = hashing.flatten(sets)
    buf = np.frombuffer(flat.buf.tobytes(), dtype=np.uint8)  # read-only: may be reused
    ro = hashing.FlatShingles(buf, flat.starts, flat.ends, flat.doc_offsets)
    first = exact_pairs(ro, 0.4)
    again = exact_pairs(hashing.FlatShingles(buf, ro.starts.copy(), ro.ends, ro.doc_offsets), 0.4)
    pd.testing.assert_frame_equal(first, exact_pairs(sets, 0.4))
    pd.testing.assert_frame_equal(again, first)
    # other spans over the same buffer are not mistaken for the cached ones
    fewer = hashing.FlatShingles(buf, ro.starts[:-1], ro.ends[:-1], ro.doc_offsets.copy())
    fewer.doc_offsets[-1] -= 1
    last = len(sets) - 1
    want = exact_pairs([*sets[:last], sets[last][:-1]], 0.4)
    pd.testing.assert_frame_equal(exact_pairs(fewer, 0.4), want)
    # a writable buffer is never reused: change it and the answer follows
    wbuf = flat.buf.copy()
    rw = hashing.FlatShingles(wbuf, flat.starts, flat.ends, flat.doc_offsets)
    exact_pairs(rw, 0.4)
    wbuf[:] = ord("z")
    zs = [["z" * len(s) for s in d] for d in sets]
    pd.testing.assert_frame_equal(exact_pairs(rw, 0.4), exact_pairs(zs, 0.4))


def test_larger_corpus_both_methods_agree():
    rng = np.random.default_rng(11)
    words = [f"w{k}" for k in range(400)]
    sets = []
    for k in range(3000):
        if k > 5 and rng.random() < 0.4:
            d = list(sets[int(rng.integers(0, k))])
            for _ in range(int(rng.integers(0, 6))):
                d[int(rng.integers(0, len(d)))] = str(rng.choice(words))
            sets.append(list(dict.fromkeys(d)))
        else:
            sets.append(list(dict.fromkeys(rng.choice(words, size=int(rng.integers(5, 60))))))
    for t in (0.5, 0.8):
        brute = exact_pairs(sets, t, method="brute")
        pp = exact_pairs(sets, t, method="ppjoin")
        pd.testing.assert_frame_equal(brute, pp)
        pd.testing.assert_frame_equal(exact_pairs(sets, t), pp)
        assert len(pp) > 100


# --------------------------------------------------------------------------- the sample


def _sets_for_sample(n: int, seed: int = 5) -> list[list[str]]:
    rng = random.Random(seed)
    sets = family(rng, n, 120, (4, 8, 16, 30))
    for k in range(1, n, 3):  # near copies so every band has pairs
        base = list(sets[rng.randrange(k)])
        for _ in range(rng.randint(0, 6)):
            base[rng.randrange(len(base))] = f"s{rng.randrange(120)}"
        sets[k] = list(dict.fromkeys(base))
    sets[2] = []
    return sets


def _jaccard(a, b) -> float:
    a, b = set(a), set(b)
    return len(a & b) / len(a | b)


def test_sample_lists_every_pair_below_the_limit():
    sets = _sets_for_sample(150)
    df = similarity_sample(sets, threshold=0.8)
    check_frame(df)
    assert df["sampled"].dtype == bool and not df["sampled"].any()
    full = reference(sets, Fraction(1, 10**9))
    assert rows(df[["i", "j", "jaccard"]]) == full
    m = sum(1 for d in sets if d)
    assert df.attrs["mode"] == "all"
    assert df.attrs["population"] == m * (m - 1) // 2
    assert df.attrs["zero_pairs"] == df.attrs["population"] - len(df)
    assert 2 not in set(df["i"]) | set(df["j"])


def test_sample_above_the_limit():
    sets = _sets_for_sample(400)
    df = similarity_sample(sets, threshold=0.8, all_pairs_limit=100, sample_size=5000, seed=3)
    check_frame(df)
    assert df.attrs["mode"] == "sampled" and df.attrs["floor"] == 0.55
    # exact Jaccard values are right
    for i, j, jac in rows(df[["i", "j", "jaccard"]]):
        assert jac == _jaccard(sets[i], sets[j])
    # every pair at or above the floor is listed, not sampled; below it only sampled rows
    floor = Fraction(11, 20)
    exact = [(i, j) for i, j, _ in reference(sets, floor)]
    listed = df[~df["sampled"]]
    assert list(zip(listed["i"], listed["j"], strict=True)) == exact
    samp = df[df["sampled"]]
    assert (samp["jaccard"] < 0.55).all() and (samp["jaccard"] > 0).all()
    bands = similarity_band(df["jaccard"].to_numpy())
    assert set(bands[df["sampled"].to_numpy()]).isdisjoint(set(bands[~df["sampled"].to_numpy()]))
    m = sum(1 for d in sets if d)
    assert df.attrs["population"] == m * (m - 1) // 2
    assert df.attrs["sampled_pairs"] == 5000
    assert df.attrs["sample_fraction"] == 5000 / df.attrs["population"]
    assert len(samp) + df.attrs["zero_pairs"] <= 5000
    assert 2 not in set(df["i"]) | set(df["j"])


def test_sample_is_deterministic_for_a_seed():
    sets = _sets_for_sample(300)
    kw = {"threshold": 0.6, "all_pairs_limit": 50, "sample_size": 3000}
    a = similarity_sample(sets, seed=1, **kw)
    b = similarity_sample(sets, seed=1, **kw)
    c = similarity_sample(sets, seed=2, **kw)
    pd.testing.assert_frame_equal(a, b)
    assert a.attrs == b.attrs
    assert not a[a["sampled"]].reset_index(drop=True).equals(c[c["sampled"]].reset_index(drop=True))


def test_sample_is_uniform_over_pairs():
    """The sampled share of each band matches the band's share of all pairs."""
    sets = _sets_for_sample(300, seed=9)
    full = similarity_sample(sets, threshold=0.9)  # all pairs (300 <= limit)
    assert full.attrs["mode"] == "all"
    drawn = similarity_sample(
        sets, threshold=0.9, all_pairs_limit=10, sample_size=20000, floor=0.95, seed=4
    )
    f = drawn.attrs["sample_fraction"]
    counts_all = np.bincount(similarity_band(full["jaccard"].to_numpy()), minlength=20)
    samp = drawn[drawn["sampled"]]
    counts_s = np.bincount(similarity_band(samp["jaccard"].to_numpy()), minlength=20)
    for band in range(19):
        expect = counts_all[band] * f
        if expect > 50:
            assert abs(counts_s[band] - expect) < 5 * math.sqrt(expect), band


def test_sample_takes_every_pair_when_asked_for_more():
    sets = _sets_for_sample(60)
    df = similarity_sample(sets, threshold=0.5, all_pairs_limit=10, sample_size=10**6)
    full = similarity_sample(sets, threshold=0.5)
    assert df.attrs["sample_fraction"] == 1.0
    pd.testing.assert_frame_equal(df[["i", "j", "jaccard"]], full[["i", "j", "jaccard"]])


@pytest.mark.parametrize(
    ("kwargs", "word"),
    [
        ({"threshold": 0}, "threshold"),
        ({"threshold": 0.5, "seed": -1}, "seed"),
        ({"threshold": 0.5, "sample_size": 0}, "sample_size"),
        ({"threshold": 0.5, "all_pairs_limit": 2.5}, "all_pairs_limit"),
        ({"threshold": 0.5, "floor": 0.33}, "floor"),
        ({"threshold": 0.5, "floor": 0}, "floor"),
        ({"threshold": 0.5, "floor": 1e-9}, "floor"),
    ],
)
def test_sample_bad_arguments(kwargs, word):
    with pytest.raises(ValueError, match=word):
        similarity_sample([["a"], ["a", "b"]], **kwargs)


def test_sample_with_too_few_documents():
    sets = [[], ["a", "b"], [], []]
    df = similarity_sample(sets, threshold=0.5, all_pairs_limit=2)
    assert len(df) == 0 and df.attrs["population"] == 0
    assert list(df.columns) == ["i", "j", "jaccard", "sampled"]
    df = similarity_sample([[], []], threshold=0.5)
    assert len(df) == 0 and df.attrs["zero_pairs"] == 0


def test_flat_shingles_with_bad_spans_are_refused():
    hashing = pytest.importorskip("nearsim._hashing")
    flat = hashing.flatten([["ab", "cd"], ["ab"]])
    bad = hashing.FlatShingles(flat.buf, flat.starts, flat.ends + 100, flat.doc_offsets)
    with pytest.raises(ValueError, match="span"):
        exact_pairs(bad, 0.5)
    bad = hashing.FlatShingles(flat.buf, flat.starts, flat.ends, np.array([0, 1, 7]))
    with pytest.raises(ValueError, match="offsets"):
        exact_pairs(bad, 0.5)


def test_similarity_band_edges():
    j = np.array([0.0, 0.049, 0.05, 7 / 20, 0.35, 0.3499, 0.5, 0.99, 1.0])
    assert similarity_band(j).tolist() == [0, 0, 1, 7, 7, 6, 10, 19, 19]


def test_warm_up_runs():
    warm_up()
