"""Exact ground truth: exact_pairs, the threshold rule, pair_jaccard and the join funnel."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support import jaccard

import nearsim as ns
from nearsim.hashing import flatten
from nearsim.join import _kernels as _join
from nearsim.join import overlap as _pair_overlap
from nearsim.join._intern import _factorize_part
from nearsim.join.exact import (
    exact_pairs,
    join_funnel,
    overlap_tables,
    pair_jaccard,
    threshold_cut,
    warm_up,
)
from nearsim.join.tokens import TokenSets

METHODS = ("brute", "ppjoin", "auto")


def reference(sets, threshold, valid=None) -> list[tuple[int, int, float]]:
    """Plain Python: every pair sharing a shingle whose float inter/union is >= t."""
    docs = [set(d) if valid is None or valid[k] else set() for k, d in enumerate(sets)]
    out = []
    for i in range(len(docs)):
        for j in range(i + 1, len(docs)):
            s = jaccard(docs[i], docs[j])
            if s > 0 and s >= threshold:
                out.append((i, j, s))
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


@st.composite
def boundary_thresholds(draw):
    """A fraction a/b (b <= 80, so a pair of the families can sit exactly on it) as the
    nearest float, or the float just above or just below it."""
    b = draw(st.integers(1, 80))
    a = draw(st.integers(1, b))
    t = a / b
    step = draw(st.sampled_from([0, 1, -1]))
    if step == 1 and t < 1.0:
        t = math.nextafter(t, 2.0)
    elif step == -1:
        t = math.nextafter(t, 0.0)
    return t


THRESHOLDS = st.one_of(
    st.sampled_from([0.7, 0.6, 0.8, 1 / 3, 0.5, 0.9, 0.75, 1.0, 0.8000001]),
    boundary_thresholds(),
)


# --------------------------------------------------------------------------- the join


@pytest.mark.parametrize("method", METHODS)
def test_small_examples_match_reference(method):
    rng = random.Random(7)
    for _ in range(60):
        sets = family(rng, rng.randint(0, 25), rng.randint(1, 30), (0, 1, 2, 5, 10, 20))
        for t in (0.7, 0.6, 0.8, 1 / 3, 0.5, 1.0, 0.05, 1e-9, 5e-324):
            df = exact_pairs(sets, t, method=method)
            check_frame(df)
            assert rows(df) == reference(sets, t)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sets=set_families(), t=THRESHOLDS)
def test_join_equals_brute_force(sets, t):
    """Brute and PPJoin agree with each other and with Python, at thresholds on, just
    above and just below the fractions the pairs can take."""
    brute = exact_pairs(sets, t, method="brute")
    pp = exact_pairs(sets, t, method="ppjoin")
    pd.testing.assert_frame_equal(brute, pp)
    assert rows(pp) == reference(sets, t)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sets=set_families(), t=THRESHOLDS)
def test_hashed_and_hybrid_paths_equal_brute_force(sets, t):
    """Small alphabets use exact bitsets; force the paths large vocabularies take: the
    hashed bitmap bound in ppjoin, bitsets plus rare-shingle postings in brute."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_join, "_EXACT_VOCAB", 0)
        mp.setattr(_join, "_BRUTE_FREQUENT_BITS", 64)
        mp.setattr(_join, "_HASHED_BITS", 64)
        brute = exact_pairs(sets, t, method="brute")
        pp = exact_pairs(sets, t, method="ppjoin")
    pd.testing.assert_frame_equal(brute, pp)
    assert rows(pp) == reference(sets, t)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sets=set_families(), t=THRESHOLDS, data=st.data())
def test_valid_mask_leaves_documents_out(sets, t, data):
    """Documents outside the mask are in no pair: the same as emptying them."""
    valid = np.array(data.draw(st.lists(st.booleans(), min_size=len(sets), max_size=len(sets))))
    valid = valid.astype(bool).reshape(len(sets))
    want = reference(sets, t, valid)
    tokens = TokenSets.from_shingles(sets)
    for method in ("brute", "ppjoin"):
        assert rows(exact_pairs(tokens, t, method=method, valid=valid)) == want


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sets=set_families(), t=THRESHOLDS)
def test_long_document_layout_equals_brute_force(sets, t):
    """The layout long documents get (the most frequent ids exact, the rest hashed into
    4,096 bits), forced on small sets: exact bits for the 64 most frequent ids only, so an
    alphabet of 65–80 shingles takes both parts."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_join, "_LONG_DOCUMENT", 0)
        mp.setattr(_join, "_EXACT_VOCAB", 0)
        mp.setattr(_join, "_LONG_EXACT_BITS", 64)
        pp = exact_pairs(sets, t, method="ppjoin")
        pairs = pp[["i", "j"]].to_numpy(np.int64)
        again = pair_jaccard(sets, pairs) if len(pairs) else np.empty(0)
    assert rows(pp) == reference(sets, t)
    np.testing.assert_array_equal(again, pp["jaccard"].to_numpy())


def test_long_templated_documents_take_the_long_layout_and_equal_brute_force():
    """Documents of about 600–1,200 distinct shingles, many from a few shared templates (as
    manual pages are) and some edited copies of others, over a vocabulary far above 4,096:
    the join's default layout for them is the long one (shared shingles in both its exact
    and its hashed part), and every method gives the reference's pairs."""
    rng = np.random.default_rng(11)
    templates = [rng.choice(30_000, size=2_000, replace=False) for _ in range(3)]
    docs: list[np.ndarray] = []
    for k in range(160):
        if k > 3 and rng.random() < 0.4:  # an edited copy: its own shingles shared too
            base = docs[int(rng.integers(0, k))]
            kept = base[rng.random(base.size) < rng.uniform(0.7, 1.0)]
            own = rng.integers(30_000, 200_000, size=int(rng.integers(0, 120)))
        else:
            core = templates[k % 3]
            kept = core[rng.random(core.size) < rng.uniform(0.3, 0.45)]
            own = rng.integers(30_000, 200_000, size=int(rng.integers(50, 400)))
        docs.append(np.array(list(dict.fromkeys(np.concatenate([kept, own]).tolist()))))
    sets = [[f"s{x}" for x in d.tolist()] for d in docs]
    tokens = TokenSets.from_shingles(sets)
    assert tokens.lengths.mean() >= _join._LONG_DOCUMENT and tokens.vocab > _join._EXACT_VOCAB
    _, _, fwords, hwords = _join.verification_index(tokens)
    assert (fwords, hwords) == (_join._LONG_EXACT_BITS // 64, _join.MAX_VERIFY_BITS // 64)
    for t in (0.4, 0.5, 0.75):
        want = reference(sets, t)
        assert rows(exact_pairs(tokens, t, method="ppjoin")) == want
        assert rows(exact_pairs(tokens, t, method="brute")) == want
    assert len(reference(sets, 0.5)) > 100  # the templates make many pairs to verify


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
    assert len(set().union(*map(set, sets))) > _join._EXACT_VOCAB
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
        (0.8, 70, 56),  # float(0.8) is a hair above 4/5: the pair is still in
        (0.8, 20, 16),
        (1 / 3, 30, 10),
        (0.5, 20, 10),
        (0.3, 10, 3),
        (0.9, 20, 18),  # float(0.9) is above 9/10 too
    ],
)
@pytest.mark.parametrize("method", METHODS)
def test_pairs_exactly_on_the_threshold_are_kept(t, size, inter, method):
    """A pair whose Jaccard is the threshold's fraction is in; at the next float up, out.

    x and y are equal-size sets; inter/union = t exactly needs union = inter / t.
    """
    union = round(inter / t)
    assert inter / union == t
    own = union - inter  # shingles not shared, split between x and y
    x = [f"c{k}" for k in range(inter)] + [f"x{k}" for k in range(own // 2)]
    y = [f"c{k}" for k in range(inter)] + [f"y{k}" for k in range(own - own // 2)]
    sets = [x, y, x[: len(x) // 2]]
    df = exact_pairs(sets, t, method=method)
    row = df[(df["i"] == 0) & (df["j"] == 1)]
    assert row["jaccard"].tolist() == [inter / union]
    df2 = exact_pairs(sets, math.nextafter(t, 2.0), method=method)
    assert (0, 1) not in set(zip(df2["i"], df2["j"], strict=True))


@pytest.mark.parametrize("method", METHODS)
def test_threshold_is_not_rounded(method):
    """The issue's example: J = 4/5 is in at 0.8, out at 0.8000001 (which a denominator
    limited to 10**6 rounded to 4/5)."""
    sets = [list("abcd"), list("abcde")]
    assert rows(exact_pairs(sets, 0.8, method=method)) == [(0, 1, 0.8)]
    assert len(exact_pairs(sets, 0.8000001, method=method)) == 0
    assert len(exact_pairs(sets, 0.7999999, method=method)) == 1


# --------------------------------------------------------------------------- the rule


@settings(max_examples=300, deadline=None)
@given(
    t=st.one_of(
        st.floats(min_value=0.0, max_value=1.0, exclude_min=True),
        boundary_thresholds(),
    ),
    inter=st.integers(1, 10**6),
    extra=st.integers(0, 10**6),
)
def test_cut_decides_exactly_like_the_float(t, inter, extra):
    """float(J) >= t exactly when J >= cut, for every J the join can see."""
    union = inter + extra
    cut = threshold_cut(t)
    assert (Fraction(inter, union) >= cut) == (inter / union >= t)
    assert Fraction(math.nextafter(t, 0.0)) < cut <= Fraction(t)


@settings(max_examples=200, deadline=None)
@given(t=st.one_of(st.floats(0.0, 1.0, exclude_min=True), boundary_thresholds()))
def test_overlap_tables_are_exact(t):
    """Each table entry against the definition, in Python fractions."""
    cut = threshold_cut(t)
    size = 300
    min_overlap, min_size = overlap_tables(cut, size)
    assert min_overlap.dtype == np.int64 and min_overlap.shape == (2 * size + 2,)
    assert min_size.dtype == np.int64 and min_size.shape == (size + 2,)
    for s in range(2 * size + 2):
        assert min_overlap[s] == max(1, math.ceil(cut * s / (1 + cut))), s
    for length in range(size + 2):
        assert min_size[length] == max(1, math.ceil(cut * length)), length


def test_overlap_tables_for_long_documents():
    """Sizes far beyond the float fast path's easy range stay exact (spot checks)."""
    cut = threshold_cut(0.8)
    size = 200_000
    min_overlap, min_size = overlap_tables(cut, size)
    for s in [*range(0, 50), *range(2 * size - 50, 2 * size + 2), 9 * 12345, 9 * 12345 + 1]:
        assert min_overlap[s] == max(1, math.ceil(cut * s / (1 + cut))), s
    for length in [*range(0, 50), *range(size - 50, size + 2), 5 * 4321]:
        assert min_size[length] == max(1, math.ceil(cut * length)), length
    assert np.all(np.diff(min_overlap) >= 0) and np.all(np.diff(min_overlap) <= 1)


@pytest.mark.parametrize("bad", [0, 0.0, -0.1, 1.5, float("nan"), float("inf"), "0.5", None, True])
def test_bad_thresholds_are_refused(bad):
    with pytest.raises(ValueError, match=r"threshold=.* is not accepted; accepted: .*\(0, 1\]"):
        exact_pairs([["a"], ["a"]], bad)


@pytest.mark.parametrize("bad", ["fast", "", None, "PPJOIN", 1])
def test_bad_methods_are_refused(bad):
    with pytest.raises(ValueError, match=r"method=.* accepted: one of 'auto', 'brute', 'ppjoin'"):
        exact_pairs([["a"], ["a"]], 0.5, method=bad)


@pytest.mark.parametrize(
    ("bad", "match"),
    [
        ("just a string", r"sets='just a string' is not accepted; accepted: a list of shingle"),
        (["abc", "abd"], r"sets\[0\]='abc' is not accepted"),  # texts, not shingle lists
        ([["a"], "ab"], r"sets\[1\]='ab' is not accepted"),
        ([["a"], [1, 2]], r"sets\[1\] holds 1 of type int"),
        ([["a", None]], r"sets\[0\] holds None of type NoneType"),
        ([[b"ab"]], r"sets\[0\] holds b'ab' of type bytes"),
        (5, r"sets=5 is not accepted"),
        ([["a"], 5], r"sets\[1\]=5 is not accepted"),
        ([{"a": 1}], r"sets\[0\]=\{'a': 1\} is not accepted"),
        (np.array([["a", "b"]]), r"sets=array\(shape=\(1, 2\)"),
    ],
)
def test_bad_sets_are_refused(bad, match):
    with pytest.raises(TypeError, match=match):
        exact_pairs(bad, 0.5)
    with pytest.raises(ValueError, match=match):  # ArgumentTypeError is both
        exact_pairs(bad, 0.5)


@pytest.mark.parametrize(
    "bad", [np.ones(2, dtype=int), [True], np.ones(3, dtype=bool), "yes", np.ones((2, 1), bool)]
)
def test_bad_masks_are_refused(bad):
    with pytest.raises(ValueError, match=r"valid=.* accepted: a boolean array of shape \(2,\)"):
        exact_pairs([["a"], ["a"]], 0.5, valid=bad)


@pytest.mark.parametrize("method", METHODS)
def test_empty_documents_are_never_paired(method):
    sets = [[], ["a", "b"], [], ["a", "b"], [], []]
    df = exact_pairs(sets, 0.05, method=method)
    assert rows(df) == [(1, 3, 1.0)]
    assert len(exact_pairs([[], [], []], 0.5, method=method)) == 0
    assert len(exact_pairs([], 0.5, method=method)) == 0
    assert len(exact_pairs([["a"]], 0.5, method=method)) == 0


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
    assert rows(want) == [(0, 1, 0.5)]
    for conv in (tuple, set, frozenset, lambda d: np.array(d, dtype=object), np.array):
        pd.testing.assert_frame_equal(exact_pairs([conv(d) for d in lists], 0.5), want)
    pd.testing.assert_frame_equal(exact_pairs(tuple(lists), 0.5), want)
    pd.testing.assert_frame_equal(exact_pairs(pd.Series(lists), 0.5), want)
    pd.testing.assert_frame_equal(exact_pairs(iter(lists), 0.5), want)


def test_every_input_form_gives_the_same_pairs():
    rng = random.Random(3)
    sets = family(rng, 200, 60, (5, 10, 20))
    sets[5] = []
    sets[17] = ["ünï", "cödé", "x" * 30, *sets[17]]
    flat = flatten(sets)
    tokens = TokenSets.from_shingles(flat)
    for method in METHODS:
        want = exact_pairs(sets, 0.4, method=method)
        assert len(want) > 0
        pd.testing.assert_frame_equal(exact_pairs(flat, 0.4, method=method), want)
        pd.testing.assert_frame_equal(exact_pairs(tokens, 0.4, method=method), want)


def test_one_token_object_serves_every_threshold():
    """Joins at several thresholds from one TokenSets equal joins from the lists."""
    rng = random.Random(8)
    sets = family(rng, 300, 50, (5, 10, 20, 40))
    tokens = TokenSets.from_shingles(sets)
    for t in (0.9, 0.3, 0.6, 0.3):
        pd.testing.assert_frame_equal(
            exact_pairs(tokens, t, method="ppjoin"), exact_pairs(sets, t, method="brute")
        )


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


# --------------------------------------------------------------------------- pair_jaccard


def test_two_empty_documents_give_0_in_the_library_and_in_the_reference():
    """The one rule for two documents with no shingles (tests/support.py's jaccard): 0.0,
    and never a pair."""
    got = pair_jaccard([[], [], ["a"]], np.array([[0, 1], [0, 2], [1, 1]]))
    assert got.tolist() == [0.0, 0.0, 0.0]
    assert [jaccard([], []), jaccard([], ["a"])] == [0.0, 0.0]
    assert ns.exact_pairs([[], [], ["a"]], 0.05).empty


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sets=set_families(), data=st.data())
def test_pair_jaccard_equals_python_sets(sets, data):
    if not sets:
        sets = [[]]
    n = len(sets)
    pairs = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))))
    want = [jaccard(sets[a], sets[b]) for a, b in pairs]
    arr = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    for form in (sets, flatten(sets), TokenSets.from_shingles(sets)):
        got = pair_jaccard(form, arr)
        assert got.dtype == np.float64 and got.shape == (len(pairs),)
        assert got.tolist() == want


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sets=set_families(), data=st.data(), buckets=st.sampled_from([1, 2, 7]))
def test_pair_jaccard_counts_bytes_not_hashes(sets, data, buckets):
    """Shingles not yet interned are matched by hash and then by their bytes: with every
    hash forced into one to seven values (collisions everywhere) and shingles repeated
    inside a document, the answer is still that of Python sets."""
    if not sets:
        sets = [[]]
    rng = random.Random(len(sets) * 31 + buckets)
    sets = [s + [x for x in s if rng.random() < 0.3] for s in sets]  # repeats
    n = len(sets)
    pairs = data.draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1))))
    want = [jaccard(sets[a], sets[b]) for a, b in pairs]
    arr = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    real = _pair_overlap.span_hashes
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_pair_overlap, "span_hashes", lambda flat: real(flat) % np.uint32(buckets))
        for form in (sets, flatten(sets)):
            assert pair_jaccard(form, arr).tolist() == want


def test_pair_jaccard_equals_the_join_and_reads_frames():
    rng = random.Random(12)
    sets = family(rng, 400, 40, (5, 10, 20))
    with pytest.MonkeyPatch.context() as mp:  # hashed bitmaps too
        mp.setattr(_join, "_EXACT_VOCAB", 0)
        df = exact_pairs(sets, 0.3)
        assert len(df) > 50
        np.testing.assert_array_equal(pair_jaccard(sets, df), df["jaccard"].to_numpy())
        tokens = TokenSets.from_shingles(sets)
        np.testing.assert_array_equal(pair_jaccard(tokens, df), df["jaccard"].to_numpy())
    assert pair_jaccard(sets, np.empty((0, 2), np.int64)).shape == (0,)


@pytest.mark.parametrize(
    ("pairs", "match"),
    [
        ([[0, 3]], r"pairs=\[\[0, 3\]\] is not accepted; accepted: .* 0 ≤ i, j < 3"),
        ([[-1, 0]], r"pairs=.* 0 ≤ i, j < 3"),
        ([0, 1], r"shape \(m, 2\)"),
        ([[0.0, 1.0]], "an integer array"),
        ("01", "an integer array"),
    ],
)
def test_pair_jaccard_bad_pairs(pairs, match):
    with pytest.raises(ValueError, match=match):
        pair_jaccard([["a"], ["b"], ["a", "b"]], pairs)


# --------------------------------------------------------------------------- funnel


def _reference_funnel(sets, t):
    """The prefix and length counts, from the definitions, in Python."""
    tokens = TokenSets.from_shingles(sets)
    min_overlap, min_size = overlap_tables(threshold_cut(t), int(tokens.lengths.max(initial=0)))
    ell = _join.ELL
    docs = [d for d in range(tokens.n) if tokens.lengths[d] > 0]
    order = sorted(docs, key=lambda d: tokens.lengths[d])  # stable: ties by index
    prefix = length = 0
    for s, x in enumerate(order):
        lx = int(tokens.lengths[x])
        need = int(min_size[lx])
        probe = set(tokens.document(x)[: min(lx - need + ell, lx)].tolist())
        for y in order[:s]:
            ly = int(tokens.lengths[y])
            indexed = tokens.document(y)[: min(ly - int(min_overlap[2 * ly]) + ell, ly)]
            if probe & set(indexed.tolist()):
                prefix += 1
                length += ly >= need
    return prefix, length


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sets=set_families(), t=THRESHOLDS)
def test_join_funnel_counts(sets, t):
    f = join_funnel(sets, t)
    m = sum(1 for d in sets if d)
    assert f.documents == m and f.all_pairs == m * (m - 1) // 2
    assert (f.prefix, f.length) == _reference_funnel(sets, t)
    assert f.all_pairs >= f.prefix >= f.length >= f.position >= f.verified >= f.result
    assert f.result == len(reference(sets, t))
    table = f.frame()
    assert table["pairs"].tolist()[-1] == f.result
    assert (table["removed"].to_numpy()[1:] == -np.diff(table["pairs"].to_numpy())).all()


def test_join_funnel_on_a_corpus_filters_at_every_step():
    """On news-like text every filter removes pairs, and the counts follow the mask."""
    texts = ns.example_corpus(600, seed=2)["text"].tolist()
    sets = [ns.shingles(x) for x in texts]
    f = join_funnel(sets, 0.6)
    assert f.result == len(exact_pairs(sets, 0.6)) > 20
    assert f.all_pairs > f.prefix > f.length > f.position > f.result
    valid = np.arange(len(sets)) % 2 == 0
    half = join_funnel(TokenSets.from_shingles(sets), 0.6, valid=valid)
    assert half.documents == int(valid.sum())
    assert half.result == len(exact_pairs(sets, 0.6, valid=valid))
    assert ns.JoinFunnel is type(f)


def test_warm_up_compiles_the_kernels():
    warm_up()
    for kernel in (_join._ppjoin_probe, _join._brute_probe, _join._funnel_probe):
        assert kernel.signatures, kernel
    assert _join._pair_overlaps.signatures and _factorize_part.signatures


# -- escapes the garbage test (tests/test_garbage.py) found ------------------------------
def test_a_ragged_mask_is_not_accepted():
    """Was: NumPy's "inhomogeneous shape" ValueError from inside."""
    sets = [["a", "b"], ["a", "b"]]
    for call in (
        lambda v: ns.exact_pairs(sets, 0.5, valid=v),
        lambda v: ns.join_funnel(sets, 0.5, valid=v),
        lambda v: ns.similarity_sample(sets, valid=v),
    ):
        with pytest.raises(TypeError, match=r"valid=\[\[1, 2\], \[3\]\] is not accepted; accepted"):
            call([[1, 2], [3]])


@settings(max_examples=60, deadline=None)
@given(
    sets=st.lists(
        st.sets(st.sampled_from(["a", "bb", "ab", "é", "ba", "ccc", "b", ""]), max_size=6),
        max_size=8,
    ),
    query=st.lists(st.sampled_from(["a", "bb", "ab", "é", "ba", "zz", "b"]), max_size=8),
    buckets=st.sampled_from([1, 2, 2**32]),
)
def test_overlaps_with_one_query_equal_python_sets(sets, query, buckets):
    """One pasted document against every document, from bytes: Python's set overlap,
    also when every hash collides (one bucket) and the query repeats shingles."""
    docs = [sorted(s) for s in sets]
    want = [len(set(query) & set(s)) for s in docs]
    real = _pair_overlap.span_hashes
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_pair_overlap, "span_hashes", lambda flat: real(flat) % np.uint32(buckets)
                   if buckets < 2**32 else real(flat))  # fmt: skip
        got, size = _pair_overlap.overlaps_with(flatten(docs), flatten([query]))
    assert got.tolist() == want
    assert size == len(set(query))
