"""LSH banding: S-curve, exact areas, the tuner against datasketch, candidate pairs."""

import itertools
import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from datasketch.lsh import _optimal_param
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from support import known_pair

import nearsim as ns
from nearsim.banding import TooManyPairsError, band_keys, candidate_pairs


def exact_areas(t: Fraction, b: int, r: int) -> tuple[Fraction, Fraction]:
    """FP and FN areas in rational arithmetic: (1 - s^r)^b expanded by the binomial theorem."""
    fp = t  # integral of 1 over [0, t] minus integral of (1 - s^r)^b
    fn = Fraction(0)
    for i in range(b + 1):
        c = Fraction(math.comb(b, i) * (-1) ** i)
        e = r * i + 1
        fp -= c * t**e / e
        fn += c * (1 - t**e) / e
    return fp, fn


def test_candidate_probability():
    assert ns.candidate_probability(0.8, 9, 13) == pytest.approx(1 - (1 - 0.8**13) ** 9)
    s = np.linspace(0, 1, 11)
    p = ns.candidate_probability(s, 4, 5)
    assert p.shape == s.shape and p[0] == 0 and p[-1] == 1
    assert (np.diff(p) > 0).all()


def test_s_curve_keeps_precision_beside_s_equal_1():
    """candidate_probability on an array holding 1.0 stays accurate for tiny P elsewhere
    (it used to switch every element to 1 - (1 - s^r)^b, which rounds 7e-9 to 8 digits)."""
    p = ns.candidate_probability(np.array([0.2, 1.0]), 9, 13)
    assert p[1] == 1.0
    assert p[0] == pytest.approx(ns.candidate_probability(0.2, 9, 13), rel=1e-14)


@pytest.mark.parametrize(("b", "r"), [(1, 1), (2, 3), (9, 13), (20, 5), (3, 40), (50, 2)])
@pytest.mark.parametrize("t", ["1/2", "4/5", "1/10", "19/20", "2/3"])
def test_areas_are_exact(t, b, r):
    tf = Fraction(t)
    fp, fn = exact_areas(tf, b, r)
    assert ns.false_positive_area(float(tf), b, r) == pytest.approx(float(fp), abs=1e-13)
    assert ns.false_negative_area(float(tf), b, r) == pytest.approx(float(fn), abs=1e-13)


def test_tuner_areas_match_single_areas():
    for choice in ns.tune(0.7, 64)[::17]:
        assert choice.fp == pytest.approx(
            ns.false_positive_area(0.7, choice.b, choice.r), abs=1e-12
        )
        assert choice.fn == pytest.approx(
            ns.false_negative_area(0.7, choice.b, choice.r), abs=1e-12
        )


@pytest.mark.parametrize(("b", "r"), [(9, 13), (20, 5), (2, 2), (100, 1)])
def test_steepest_point_is_where_the_slope_peaks(b, r):
    s = np.linspace(0, 1, 200_001)
    slope = np.gradient(ns.candidate_probability(s, b, r), s)
    assert ns.steepest_point(b, r) == pytest.approx(s[np.argmax(slope)], abs=1e-4)
    assert ns.effective_threshold(b, r) == pytest.approx((1 / b) ** (1 / r))


def test_default_choice():
    best = ns.tune(0.8, 128)[0]
    assert (best.b, best.r) == (9, 13)
    assert best.error == pytest.approx(0.5 * best.fp + 0.5 * best.fn)


def test_tune_lists_every_choice_ranked():
    choices = ns.tune(0.6, 40, 0.3, 0.7)
    pairs = {(c.b, c.r) for c in choices}
    assert pairs == {(b, r) for b in range(1, 41) for r in range(1, 41) if b * r <= 40}
    assert len(choices) == len(pairs)
    errors = [c.error for c in choices]
    assert errors[1:] == sorted(errors[1:])
    assert errors[0] <= min(errors) + 1e-8


GOLDEN = Path(__file__).resolve().parent / "data" / "datasketch_tune.json"


def _golden_cases() -> list[dict]:
    return json.loads(GOLDEN.read_text())["cases"]


def test_tune_matches_stored_datasketch_sweep():
    """tune(...)[0] is exactly datasketch MinHashLSH's choice on 1,120 stored cases
    (thresholds 0.001 to 1, k from 1 to 256, seven weight pairs; regenerate with
    ``scripts/golden_tune.py``, check live with ``pytest -m live``)."""
    mismatches = []
    for c in _golden_cases():
        best = ns.tune(c["threshold"], c["num_perm"], c["fp_weight"], c["fn_weight"])[0]
        if [best.b, best.r] != [c["b"], c["r"]]:
            mismatches.append((c, (best.b, best.r)))
    assert mismatches == []


@pytest.mark.live
def test_tune_matches_datasketch_sweep_live():
    """The stored sweep, asked of datasketch itself (slow: about 40 s)."""
    mismatches = []
    for c in _golden_cases():
        args = (c["threshold"], c["num_perm"], c["fp_weight"], c["fn_weight"])
        best = ns.tune(*args)[0]
        if (best.b, best.r) != _optimal_param(*args):
            mismatches.append((c, (best.b, best.r)))
    assert mismatches == []


@given(
    st.floats(0.01, 0.99),
    st.integers(1, 160),
    st.floats(0, 1),
)
def test_tune_matches_datasketch_random(t, num_perm, wfp):
    best = ns.tune(t, num_perm, wfp, 1 - wfp)[0]
    assert (best.b, best.r) == _optimal_param(t, num_perm, wfp, 1 - wfp)


# -- candidate pairs ---------------------------------------------------------------------
def brute_candidates(sig, b, r, valid=None):
    out = []
    for i, j in itertools.combinations(range(sig.shape[0]), 2):
        if valid is not None and not (valid[i] and valid[j]):
            continue
        if any((sig[i, x * r : x * r + r] == sig[j, x * r : x * r + r]).all() for x in range(b)):
            out.append((i, j))
    return np.array(out, dtype=np.int64).reshape(-1, 2)


@st.composite
def banded_signatures(draw):
    n = draw(st.integers(0, 25))
    k = draw(st.integers(1, 12))
    sig = draw(hnp.arrays(np.uint32, (n, k), elements=st.integers(0, 2)))
    b = draw(st.integers(1, k))
    r = draw(st.integers(1, k // b))
    valid = draw(st.none() | hnp.arrays(np.bool_, (n,)))
    return sig, b, r, valid


@given(banded_signatures())
def test_candidate_pairs_equal_brute_force(case):
    sig, b, r, valid = case
    got = ns.candidate_pairs(sig, b, r, valid=valid)
    assert got.dtype == np.int64
    assert got.tolist() == brute_candidates(sig, b, r, valid).tolist()


@given(
    st.lists(st.integers(0, 2), min_size=2, max_size=40),
    st.sampled_from([0, 0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF]),
    st.integers(0, 3),
)
@settings(max_examples=150, deadline=None)
def test_buckets_survive_hash_collisions(values, mask, shift):
    """Equal key bits never make a bucket by themselves: every row's packed key is forced to
    the same top 32 bits (one run), and the full keys to ``mask`` of their bits (0: all
    equal, so the rows are told apart by their values alone); the buckets are the groups of
    equal band values, against brute force."""
    from nearsim.banding import _buckets

    n = len(values)
    sig = np.array([[v, (v + shift) % 3] for v in values], dtype=np.uint32)
    rows = np.arange(n, dtype=np.int64)
    packed = np.arange(n, dtype=np.uint64)  # top 32 bits all zero: one run of n rows
    order, se = _buckets(sig, rows, packed, 0, 2, np.uint64(mask))
    got = sorted(sorted(order[a:b].tolist()) for a, b in zip(se[::2], se[1::2], strict=True))
    groups: dict[tuple, list[int]] = {}
    for d in range(n):
        groups.setdefault(tuple(sig[d].tolist()), []).append(d)
    assert got == sorted(g for g in groups.values() if len(g) > 1)


def test_candidate_pairs_read_a_strided_view():
    """A column slice (not C-contiguous) gives the pairs of its copy."""
    rng = np.random.default_rng(4)
    sig = rng.integers(0, 3, size=(60, 10)).astype(np.uint32)
    valid = rng.random(60) < 0.8
    view = sig[:, 2:8]
    assert not view.flags.c_contiguous
    got = ns.candidate_pairs(view, 3, 2, valid=valid)
    assert got.tolist() == brute_candidates(view.copy(), 3, 2, valid).tolist()


def test_band_keys_equal_for_equal_bands():
    sig = np.array([[1, 2, 3, 4], [1, 2, 9, 9], [7, 7, 3, 4]], dtype=np.uint32)
    k0 = band_keys(sig, 0, 2)
    k1 = band_keys(sig, 2, 4)
    assert k0[0] == k0[1] != k0[2]
    assert k1[0] == k1[2] != k1[1]


def test_too_many_pairs_is_a_clear_error():
    sig = np.zeros((2000, 16), dtype=np.uint32)
    with pytest.raises(
        TooManyPairsError, match=r"more than 1,000 candidate pairs.*2,000 documents"
    ):
        ns.candidate_pairs(sig, 4, 4, max_pairs=1000)
    assert issubclass(TooManyPairsError, ValueError)
    assert ns.candidate_pairs(sig[:10], 4, 4, max_pairs=45).shape == (45, 2)


def test_banding_rate_follows_the_s_curve():
    """Candidate rate at each similarity is within 4 binomial standard errors of P(J)."""
    rng = np.random.default_rng(99)
    b, r, per_level = 10, 6, 300
    mh = ns.MinHasher(b * r, seed=4)
    for j in (0.3, 0.5, 0.6, 0.7, 0.8, 0.9):
        docs = []
        truths = []
        for q in range(per_level):
            a, c, jj = known_pair(rng, q, 200, j)
            docs += [a, c]
            truths.append(jj)
        sig = mh.signatures(docs)
        pairs = {tuple(p) for p in ns.candidate_pairs(sig, b, r).tolist()}
        hits = sum((2 * q, 2 * q + 1) in pairs for q in range(per_level))
        p = float(np.mean(ns.candidate_probability(np.array(truths), b, r)))
        se = math.sqrt(max(p * (1 - p), 1e-4) / per_level)
        assert abs(hits / per_level - p) < 4 * se + 1e-9, (j, hits / per_level, p)


# -- bad input ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: ns.tune(0, 128), r"threshold=0 is not accepted; accepted: a number in \(0, 1\]"),
        (lambda: ns.tune(1.5, 128), r"threshold=1.5"),
        (lambda: ns.tune(float("nan"), 128), "threshold=nan"),
        (lambda: ns.tune("0.5", 128), "threshold='0.5'"),
        (lambda: ns.tune(True, 128), "threshold=True"),
        (lambda: ns.tune(0.5, 0), "num_perm=0.*from 1 to 4,096"),
        (lambda: ns.tune(0.5, 65536), "num_perm=65536.*from 1 to 4,096"),
        (lambda: ns.tune(0.5, 128, fp_weight=1.5), "fp_weight=1.5.*from 0 to 1"),
        (lambda: ns.tune(0.5, 128, fn_weight=-0.1), "fn_weight=-0.1"),
        (lambda: ns.tune(0.5, 64, 0, 0), "sum to 1"),
        (lambda: ns.candidate_probability(0.5, 0, 3), "b=0"),
        (lambda: ns.candidate_probability(0.5, 2, 0), "r=0"),
        (lambda: ns.candidate_probability(1.5, 2, 2), "s=1.5"),
        (lambda: ns.candidate_probability("abc", 20, 5), "s='abc'.*accepted: a number"),
        (lambda: ns.candidate_probability(True, 20, 5), "s=True"),
        (lambda: ns.false_positive_area(0.5, 2, -1), "r=-1"),
        (lambda: ns.false_positive_area(0.5, 2**64, 1), "b=18446744073709551616"),
        (lambda: ns.false_positive_area(0.5, 10**9, 1), "b=1000000000"),
        (lambda: ns.false_positive_area(0.5, 100, 100), r"b × r = 100 × 100"),
        (lambda: ns.false_negative_area(2, 2, 2), "t=2"),
        (lambda: ns.candidate_pairs(np.zeros((4, 8), np.uint32), 3, 3), "3 × 3 = 9.*num_perm=8"),
        (lambda: ns.candidate_pairs(np.zeros(8, np.uint32), 2, 2), "signatures=array"),
        (lambda: ns.candidate_pairs(np.zeros((4, 8)), 2, 2), "2-D integer array"),
        (lambda: ns.candidate_pairs(np.zeros((4, 8), np.uint32), 2, 2, valid=[True]), "valid"),
        (
            lambda: ns.candidate_pairs(np.zeros((4, 8), np.uint32), 2, 2, valid=[1, 0, 1, 0]),
            "valid",
        ),
        (lambda: ns.candidate_pairs(np.zeros((4, 8), np.uint32), 2, 2, max_pairs=-1), "max_pairs"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_threshold_one_is_accepted_as_everywhere_else():
    """t = 1 is a valid threshold (exact_pairs accepts it; datasketch's tuner does too)."""
    assert ns.false_negative_area(1.0, 9, 13) == 0.0
    assert ns.false_positive_area(1.0, 9, 13) > 0.0
    assert ns.tune(1.0, 16)[0].fn == 0.0


# -- the bucket limit (nearsim dedup's rule for hot buckets) ---------------------------------
@given(
    st.lists(st.integers(0, 3), min_size=0, max_size=30),
    st.integers(1, 3),
    st.integers(1, 3),
    st.integers(2, 6),
    st.lists(st.booleans(), max_size=30),
)
@settings(max_examples=200, deadline=None)
def test_a_bucket_limit_gives_the_rule_s_pairs(values, b, r, limit, flags):
    """Few distinct values make big buckets: every bucket of more than ``limit`` documents
    gives its first member with every other and each member with the next (brute force)."""
    from garbage_checks import brute_bucket_candidates

    n = len(values)
    rng = np.random.default_rng(n * 31 + b * 7 + r)
    sig = np.array(values, dtype=np.uint32).reshape(n, 1).repeat(b * r, axis=1)
    sig[:, ::2] += rng.integers(0, 2, size=(n, (b * r + 1) // 2), dtype=np.uint32)
    valid = np.array((flags + [True] * n)[:n], dtype=bool)
    got = candidate_pairs(sig, b, r, valid=valid, bucket_limit=limit)
    want = brute_bucket_candidates(sig, b, r, valid, limit)
    assert got.tolist() == want.tolist()
    unlimited = candidate_pairs(sig, b, r, valid=valid)
    assert set(map(tuple, got.tolist())) <= set(map(tuple, unlimited.tolist()))
    # the rule keeps every bucket connected: the same components as all pairs
    assert ns.clusters(n, got).tolist() == ns.clusters(n, unlimited).tolist()


def test_a_hot_bucket_costs_linear_work():
    """100,000 identical signatures: 199,997 pairs under a limit of 100, not 5·10⁹."""
    sig = np.zeros((100_000, 8), dtype=np.uint32)
    pairs = candidate_pairs(sig, 2, 4, bucket_limit=100)
    assert pairs.shape == (2 * 100_000 - 3, 2)
    assert (pairs[:99_999, 0] == 0).all()
    with pytest.raises(TooManyPairsError):
        candidate_pairs(sig, 2, 4)
