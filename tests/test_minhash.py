"""MinHash: hashing equals the reference arithmetic; the estimator matches theory."""

import math

import mmh3
import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import known_pair, mse_ratio_sd, one_numba_thread

import nearsim as ns
from nearsim.minhash import MERSENNE_P, correct_one_byte

K = 128
P = 2**31 - 1


def reference_signature(mh: ns.MinHasher, shingles: list[str]) -> list[int]:
    """The definition, in Python integers."""
    if not shingles:
        return [2**32 - 1] * mh.num_perm
    xs = [mmh3.hash(s.encode("utf-8"), 0, signed=False) for s in shingles]
    return [min((int(a) * x + int(b)) % P for x in xs) for a, b in zip(mh.a, mh.b, strict=True)]


# -- hashing --------------------------------------------------------------------------
def test_parameters_are_in_range_and_seeded():
    mh = ns.MinHasher(num_perm=K, seed=7)
    assert mh.a.dtype == np.uint64 and mh.b.dtype == np.uint64
    assert mh.a.shape == mh.b.shape == (K,)
    assert ((mh.a >= 1) & (mh.a < P)).all() and (mh.b < P).all()
    again = ns.MinHasher(num_perm=K, seed=7)
    assert (again.a == mh.a).all() and (again.b == mh.b).all()
    other = ns.MinHasher(num_perm=K, seed=8)
    assert (other.a != mh.a).any()


@given(st.lists(st.text(max_size=12), max_size=20))
def test_base_hash_is_mmh3(shingles):
    got = ns.MinHasher(8).base_hash(shingles)
    assert got.dtype == np.uint32
    assert got.tolist() == [mmh3.hash(s.encode("utf-8"), 0, signed=False) for s in shingles]


@given(
    st.lists(st.lists(st.text(max_size=8), max_size=15), max_size=6),
    st.integers(0, 2**32),
    st.integers(1, 40),
)
def test_signatures_equal_python_integer_arithmetic(docs, seed, num_perm):
    mh = ns.MinHasher(num_perm=num_perm, seed=seed)
    sig = mh.signatures(docs)
    assert sig.dtype == np.uint32 and sig.shape == (len(docs), num_perm)
    for row, doc in zip(sig, docs, strict=True):
        assert row.tolist() == reference_signature(mh, doc)


def test_extreme_hash_values_reduce_correctly():
    """a, b and x at their maxima exercise the Mersenne folds' carries."""
    mh = ns.MinHasher(num_perm=4, seed=0)
    mh.a[:] = [P - 1, P - 1, 1, 2**30]
    mh.b[:] = [P - 1, 0, P - 1, 12345]
    mh._a32, mh._b32 = mh.a.astype(np.uint32), mh.b.astype(np.uint32)
    # find shingles whose base hash is large, near 2**32 - 1 and near multiples of p
    pool = [f"s{i}" for i in range(200_000)]
    xs = mh.base_hash(pool).astype(np.int64)
    picks = [pool[int(np.argmax(xs))], pool[int(np.argmin(np.abs(xs - P)))], "x"]
    for s in picks:
        assert mh.signature([s]).tolist() == reference_signature(mh, [s])


def test_no_shingles_gives_all_max():
    mh = ns.MinHasher(16)
    assert (mh.signature([]) == 2**32 - 1).all()
    assert (mh.text_signatures(["", "   "]) == 2**32 - 1).all()


def test_signature_is_a_row_of_signatures():
    mh = ns.MinHasher(32, seed=3)
    docs = [["a", "b"], [], ["ccc", "a"]]
    sigs = mh.signatures(docs)
    for d, doc in enumerate(docs):
        assert (mh.signature(doc) == sigs[d]).all()


UNICODE_TEXTS = [
    "Café crème, naïve façade — déjà vu.",
    "東京都の新しい図書館が本日開館しました。",
    "Launch day 🚀🚀 with emoji 👩‍👩‍👧 and flags 🇳🇱",
    "שלום עולם, مرحبا بالعالم",
    "ΟΔΟΣ Σίσυφος",
    "",
    "   ",
    "short",
    "Zero\u200bwidth and\u00a0non-breaking\u2003spaces",
    "a\x00b nul byte",
]


@pytest.mark.parametrize("kind", ["char", "word"])
@pytest.mark.parametrize("k", [1, 2, 3, 5, 9])
@pytest.mark.parametrize(
    "norm",
    [
        {},
        {"lowercase": False},
        {"remove_punctuation": True},
        {"collapse_whitespace": False},
        {"lowercase": False, "remove_punctuation": True, "collapse_whitespace": False},
    ],
)
def test_text_signatures_equal_slow_path_on_unicode(kind, k, norm):
    mh = ns.MinHasher(64, seed=11)
    opts = {"kind": kind, "k": k, **norm}
    slow = mh.signatures([ns.shingles(t, **opts) for t in UNICODE_TEXTS])
    fast = mh.text_signatures(UNICODE_TEXTS, **opts)
    assert fast.dtype == np.uint32
    assert (fast == slow).all()


@given(
    st.lists(st.text(max_size=40), max_size=8),
    st.sampled_from(["char", "word"]),
    st.integers(1, 6),
    st.booleans(),
    st.booleans(),
    st.booleans(),
)
def test_text_signatures_equal_slow_path_property(texts, kind, k, lower, punct, collapse):
    mh = ns.MinHasher(16, seed=5)
    opts = {
        "kind": kind,
        "k": k,
        "lowercase": lower,
        "remove_punctuation": punct,
        "collapse_whitespace": collapse,
    }
    slow = mh.signatures([ns.shingles(t, **opts) for t in texts])
    assert (mh.text_signatures(texts, **opts) == slow).all()


def test_one_byte_signatures_are_low_bytes():
    mh = ns.MinHasher(64, seed=2)
    docs = [ns.shingles(t) for t in UNICODE_TEXTS]
    full = mh.signatures(docs)
    small = mh.signatures(docs, one_byte=True)
    assert small.dtype == np.uint8 and small.nbytes == len(docs) * 64
    assert (small == (full & 0xFF)).all()
    assert (mh.text_signatures(UNICODE_TEXTS, one_byte=True) == small).all()


def test_winners_explain_the_signature():
    mh = ns.MinHasher(K, seed=1)
    doc = ns.shingles("the quick brown fox jumps over the lazy dog")
    table = mh.winners(doc, positions=16)
    assert list(table.columns) == ["position", "shingle", "index", "hash", "value"]
    sig = mh.signature(doc)
    assert (table["value"].to_numpy() == sig[:16]).all()
    for _, row in table.iterrows():
        assert doc[row["index"]] == row["shingle"]
        x = mmh3.hash(row["shingle"].encode(), 0, signed=False)
        a, b = int(mh.a[row["position"]]), int(mh.b[row["position"]])
        assert (a * x + b) % MERSENNE_P == row["value"]
    assert mh.winners([], 4).empty


# -- the estimator ----------------------------------------------------------------------
def test_estimator_3000_pairs_fresh_seeds():
    """Seed 002's test (600 pairs: mean error < 0.01, spread at most 30% above
    sqrt(J(1-J)/k)), made sharp enough to fail for an estimator whose variance is 20% too
    large: 3,000 pairs of known J (0.1 to 0.95), each with its own hash seed, so the
    errors are independent, each Ĵ = X/k with X ~ Binomial(k, J).

    Bias: the sum of the errors has sd sqrt(Σ J(1-J)/k), so the mean error's sd is that
    over m (0.0007 here; seed 002's 0.01 is 14 of them) and the bound is 4 sd.
    Spread: R = Σ err² / Σ J(1-J)/k has mean 1 and sd about sqrt(2/m) = 0.026
    (support.mse_ratio_sd, from the binomial's fourth moment); the bound is 1 ± 4 sd,
    ±0.11. A variance 20% too large gives R near 1.2, about 7.5 sd above 1: it fails.
    """
    rng = np.random.default_rng(2024)
    est, truth = [], []
    with one_numba_thread():
        for i in range(3000):
            union, j = int(rng.integers(60, 400)), float(rng.uniform(0.1, 0.95))
            a, b, j = known_pair(rng, i, union, j)
            sa, sb = ns.MinHasher(K, seed=10_000 + i).signatures([a, b])
            est.append(ns.estimate_jaccard(sa, sb))
            truth.append(j)
    truth = np.asarray(truth)
    err = np.asarray(est) - truth
    var = truth * (1 - truth) / K
    assert abs(err.mean()) <= 4 * math.sqrt(var.sum()) / len(err)
    assert abs(np.sum(err**2) / var.sum() - 1) <= 4 * mse_ratio_sd(truth, K)


@pytest.mark.parametrize("j", [0.2, 0.5, 0.8])
def test_estimator_5000_seeds_fixed_pair(j):
    """One pair over m = 5,000 hash seeds: each estimate is X/k with X ~ Binomial(k, J).

    Mean: J within 4 standard errors of a mean of m estimates, 4 sqrt(J(1-J)/k) / sqrt(m).
    Variance: R = mean((Ĵ − J)²) / (J(1-J)/k), J known, has mean 1 and sd about
    sqrt(2/m) = 0.020 (support.mse_ratio_sd: a variance estimate's relative standard
    error, with the binomial's small excess kurtosis); the bound is 1 ± 4 sd, ±0.08.
    A variance 20% too large gives R near 1.2, about 10 sd above 1: it fails.
    (The old 200 seeds and sd within 30% of theory let a variance 69% too large pass.)
    """
    rng = np.random.default_rng(int(j * 100))
    a, b, jj = known_pair(rng, 0, 300, j)
    ests = []
    with one_numba_thread():
        for seed in range(5000):
            sa, sb = ns.MinHasher(K, seed=seed).signatures([a, b])
            ests.append(ns.estimate_jaccard(sa, sb))
    err = np.asarray(ests) - jj
    theory = ns.standard_error(jj, K)
    assert abs(err.mean()) < 4 * theory / math.sqrt(len(err))
    assert abs(np.mean(err**2) / theory**2 - 1) <= 4 * mse_ratio_sd(np.full(len(err), jj), K)


@pytest.mark.parametrize("j", [0.1, 0.3, 0.6])
def test_one_byte_estimator_is_unbiased(j):
    """The corrected 1-byte estimate has mean J within 4 of its standard errors.

    1,000 seeds × 1,024 positions make the standard error of the mean about 0.0005, small
    enough that the uncorrected share — biased upwards by (1 − J)/256 ≥ 0.0016 — fails the
    same test, so the test has the power to see the correction.
    """
    k, seeds = 1024, 1000
    rng = np.random.default_rng(7 + int(j * 10))
    a, b, jj = known_pair(rng, 1, 300, j)
    ests = np.empty(seeds)
    for seed in range(seeds):
        sa, sb = ns.MinHasher(k, seed=seed).signatures([a, b], one_byte=True)
        ests[seed] = ns.estimate_jaccard(sa, sb)
    tol = 4 * ns.standard_error(jj, k, one_byte=True) / math.sqrt(seeds)
    assert abs(ests.mean() - jj) < tol
    raw = ests * (1 - 1 / 256) + 1 / 256  # undo the correction (no clipping at these J)
    assert abs(raw.mean() - jj) > tol


def test_one_byte_correction_formula():
    assert correct_one_byte(1.0) == 1.0
    assert correct_one_byte(1 / 256) == 0.0
    assert correct_one_byte(0.0) == 0.0  # clipped
    assert correct_one_byte(0.5 + 0.5 / 256) == pytest.approx(0.5)


def test_estimate_pairs_matches_single_estimates():
    rng = np.random.default_rng(0)
    sig = rng.integers(0, 4, size=(30, 64)).astype(np.uint32)
    pairs = np.array([[0, 1], [2, 29], [5, 5]])
    got = ns.estimate_pairs(sig, pairs)
    assert got.tolist() == [ns.estimate_jaccard(sig[i], sig[j]) for i, j in pairs]


def test_standard_error():
    assert ns.standard_error(0.5, 100) == pytest.approx(0.05)
    assert ns.standard_error(0.0, 128) == 0.0
    assert ns.standard_error(np.array([0.36, 1.0]), 64).tolist() == pytest.approx([0.06, 0.0])


# -- bad input --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"num_perm": 0}, "num_perm=0.*from 1 to 4,096"),
        ({"num_perm": -5}, "num_perm=-5"),
        ({"num_perm": 2.0}, "num_perm=2.0"),
        ({"num_perm": 10**9}, "num_perm=1000000000"),
        ({"seed": -1}, "seed=-1.*an integer ≥ 0"),
        ({"seed": "x"}, "seed='x'"),
    ],
)
def test_bad_minhasher_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ns.MinHasher(**kwargs)


def test_bad_inputs_name_the_problem():
    mh = ns.MinHasher(8)
    with pytest.raises(ValueError, match=r"shingle_lists\[1\]='not a list' is not accepted"):
        mh.signatures([["a"], "not a list"])
    with pytest.raises(ValueError, match=r"shingle_lists\[0\] holds 3 of type int"):
        mh.signatures([["a", 3]])
    with pytest.raises(ValueError, match="texts='one text'.*accepted: a list of str"):
        mh.text_signatures("one text")
    with pytest.raises(ValueError, match=r"texts\[0\] is a bytes"):
        mh.text_signatures([b"x"])
    with pytest.raises(ValueError, match="lone surrogate"):
        mh.text_signatures(["bad \ud800 text"])
    with pytest.raises(ValueError, match="lengths 8 and 9"):
        ns.estimate_jaccard(np.zeros(8, np.uint32), np.zeros(9, np.uint32))
    with pytest.raises(ValueError, match="shingles=None is not accepted; accepted: a list of str"):
        mh.winners(None)
    with pytest.raises(ValueError, match="pairs=inf.*accepted: an integer array"):
        ns.estimate_pairs(np.zeros((3, 8), np.uint32), float("inf"))
    with pytest.raises(ValueError, match="pairs=None"):
        ns.estimate_pairs(np.zeros((3, 8), np.uint32), None)
    with pytest.raises(ValueError, match="pairs='abc'"):
        ns.estimate_pairs(np.zeros((3, 8), np.uint32), "abc")
    with pytest.raises(ValueError, match="pairs=.*0.9, 1.7"):
        ns.estimate_pairs(np.zeros((3, 8), np.uint32), [[0.9, 1.7]])
    with pytest.raises(ValueError, match="j={}"):
        ns.standard_error({}, 128)
    with pytest.raises(ValueError, match="j='0.5'"):
        ns.standard_error("0.5", 128)
    with pytest.raises(ValueError, match="one_byte='yes'"):
        mh.signatures([["a"]], one_byte="yes")
    with pytest.raises(ValueError, match="j=1.5"):
        ns.standard_error(1.5, 8)
    with pytest.raises(ValueError, match="num_perm=0"):
        ns.standard_error(0.5, 0)
    with pytest.raises(ValueError, match="kind='x'"):
        mh.text_signatures(["a"], kind="x")


def test_kernel_reduction_at_the_edges():
    """The vectorised reduction equals (a·x + b) mod p at every boundary of its folds.

    Both folds: one base hash a pass (``_update``) and two (``_update2``, which the
    signing kernels use for all but an odd last shingle), over every pair of edges.
    """
    from nearsim.minhash import _update, _update2

    edges = [0, 1, P - 1, P, P + 1, 2**31, 2 * P - 1, 2 * P, 2**32 - 2, 2**32 - 1]
    a = np.array([1, 2, P - 2, P - 1, 2**30, 12345], dtype=np.uint32)
    b = np.array([0, P - 1, 1, P - 1, 2**30, 0], dtype=np.uint32)

    def reduced(x):
        return [(int(ai) * x + int(bi)) % P for ai, bi in zip(a, b, strict=True)]

    for x in edges:
        mins = np.full(a.shape[0], 2**32 - 1, dtype=np.uint32)
        _update(mins, a, b, np.uint32(x))
        assert mins.tolist() == reduced(x)
        for y in edges:
            mins = np.full(a.shape[0], 2**32 - 1, dtype=np.uint32)
            _update2(mins, a, b, np.uint32(x), np.uint32(y))
            assert mins.tolist() == [min(u, v) for u, v in zip(reduced(x), reduced(y), strict=True)]


# -- escapes the garbage test (tests/test_garbage.py) found ------------------------------
def test_standard_error_rejects_a_signature_length_past_the_limit():
    """Was: OverflowError from float(10**400) inside NumPy."""
    with pytest.raises(ValueError, match=r"num_perm=1000.* accepted: an integer from 1 to 4,096"):
        ns.standard_error(0.5, 10**400)
    assert ns.standard_error(0.5, 4096) == math.sqrt(0.25 / 4096)


@pytest.mark.parametrize(
    ("shingles", "match"),
    [
        (None, r"shingles=None is not accepted; accepted: a list of str"),
        (3, r"shingles=3 is not accepted; accepted: a list of str"),
        ("abc", r"shingles='abc' is not accepted; accepted: a list of str"),
        (["a", 3], r"shingles holds 3 of type int, which is not accepted"),
    ],
)
def test_one_documents_shingles_are_checked_with_the_argument_named(shingles, match):
    """Was: "document 0 is a NoneType, not a list of shingles" (no argument, no 'accepted')."""
    mh = ns.MinHasher(8)
    for method in (mh.base_hash, mh.signature, mh.winners):
        with pytest.raises(ValueError, match=match):
            method(shingles)


def test_a_dataframe_is_not_one_documents_shingles():
    """Was: accepted with len() = its rows while its column names were hashed: 1 hash of 3."""
    frame = pd.DataFrame({"i": [1], "j": [0], "jaccard": [0.9]})
    with pytest.raises(TypeError, match=r"shingles=DataFrame\(.* is not accepted"):
        ns.MinHasher(8).base_hash(frame)
    with pytest.raises(TypeError, match=r"shingle_lists\[0\]=DataFrame\(.* is not accepted"):
        ns.MinHasher(8).signatures([frame])


def test_winners_of_no_shingles_keep_their_column_types():
    table = ns.MinHasher(8).winners([])
    assert len(table) == 0
    assert [table[c].dtype.kind for c in ("position", "index", "hash", "value")] == list("iiuu")


def test_shingle_lists_errors_name_the_argument():
    mh = ns.MinHasher(8)
    with pytest.raises(TypeError, match=r"shingle_lists=None is not accepted; accepted: a list"):
        mh.signatures(None)
    with pytest.raises(ValueError, match=r"shingle_lists holds a lone surrogate .*accepted"):
        mh.signatures([["ok"], ["a\ud800"]])
    with pytest.raises(TypeError, match=r"texts=array\(shape=\(\).* is not accepted"):
        mh.text_signatures(np.array(3))


def test_numpy_shingle_options_are_python_values_inside():
    """k=np.uint8(5) made numba compile a new kernel (seconds) and then gave the same rows."""
    mh = ns.MinHasher(16)
    texts = ["the cat sat on the mat", "a dog"]
    np.testing.assert_array_equal(
        mh.text_signatures(texts, k=np.uint8(5), lowercase=np.True_), mh.text_signatures(texts)
    )


@pytest.mark.parametrize("num_perm", [16, 128])
def test_text_signatures_with_and_without_the_distinct_step(num_perm):
    """Documents on either side of DEDUPE_MIN_SHINGLES, with many repeats, equal the
    shingle lists' signatures (which hash each distinct shingle once)."""
    from nearsim.minhash import DEDUPE_MIN_SHINGLES

    rng = np.random.default_rng(4)
    words = ["alpha", "beta", "gamma", "delta", "épsilon", "zeta 😀", "eta"]
    texts = [" ".join(rng.choice(words, size=n)) for n in
             (1, 10, DEDUPE_MIN_SHINGLES // 6, DEDUPE_MIN_SHINGLES // 5, DEDUPE_MIN_SHINGLES,
              5 * DEDUPE_MIN_SHINGLES)]  # fmt: skip
    mh = ns.MinHasher(num_perm, seed=8)
    for opts in ({}, {"k": 9}, {"kind": "word", "k": 2}):
        slow = mh.signatures([ns.shingles(t, **opts) for t in texts])
        assert (mh.text_signatures(texts, **opts) == slow).all()
