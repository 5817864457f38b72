"""SimHash fingerprints: 64 real bits equal to the definition, popcount, Hamming distance.

Seed 000 is why: a SimHash whose 64 bits are really 31 made a "within 12 bits" filter keep 8
of 174 job posts. Here the fingerprints are checked against a Python reference built with
mmh3 and, statistically, as 64 fair and independent bits on unrelated documents.
"""

from __future__ import annotations

import math
import re

import mmh3
import numpy as np
import pytest
from simhash_support import differ_probabilities, mean_distance_and_error, random_documents

from nearsim.hashing import text_shingles
from nearsim.shingling import shingles
from nearsim.simhash import SimHasher, as_fingerprints, hamming_distance, popcount


def reference_fingerprint(doc_shingles, seeds):
    """Python-int SimHash straight from the definition, with mmh3."""
    hi_seed, lo_seed = seeds
    hashes = {
        (mmh3.hash(s.encode("utf-8"), hi_seed, signed=False) << 32)
        | mmh3.hash(s.encode("utf-8"), lo_seed, signed=False)
        for s in doc_shingles
    }
    fp = 0
    for b in range(64):
        vote = sum(1 if (h >> b) & 1 else -1 for h in hashes)
        if vote > 0:
            fp |= 1 << b
    return fp


def test_fingerprints_equal_the_definition():
    sh = SimHasher(seed=7)
    texts = random_documents(30, seed=1, words=(1, 30))
    texts += ["", "x", "日本語のテキスト 😀 emoji", "same same same same same"]
    lists = [shingles(t) for t in texts]
    lists.append(["repeat", "repeat", "other"])  # repeats count once
    lists.append(["word"] * 5)
    fps = sh.fingerprints(lists)
    assert fps.dtype == np.uint64 and fps.shape == (len(lists),)
    for doc, fp in zip(lists, fps, strict=True):
        assert int(fp) == reference_fingerprint(doc, sh.hash_seeds)
    assert sh.fingerprint(lists[3]) == int(fps[3])
    assert sh.fingerprints([lists[-2]])[0] == sh.fingerprints([["other", "repeat"]])[0]


def test_empty_document_has_fingerprint_zero_and_ties_give_zero():
    sh = SimHasher(seed=1)
    assert sh.fingerprints([[]])[0] == 0
    assert sh.fingerprints([]).shape == (0,)
    # Two shingles: a bit is 1 only where both hashes have it (a 1/-1 tie gives 0).
    h = sh.shingle_hashes(["alpha", "beta"])
    assert sh.fingerprint(["alpha", "beta"]) == int(h[0] & h[1])


def test_shingle_hashes_are_two_independent_murmur3():
    sh = SimHasher(seed=3)
    hi, lo = sh.hash_seeds
    assert hi != lo
    s = "héllo wörld"
    h = int(sh.shingle_hashes([s])[0])
    assert h >> 32 == mmh3.hash(s.encode(), hi, signed=False)
    assert h & 0xFFFFFFFF == mmh3.hash(s.encode(), lo, signed=False)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"kind": "word", "k": 2},
        {"kind": "char", "k": 9, "remove_punctuation": True},
        {"kind": "word", "k": 3, "lowercase": False},
    ],
)
def test_text_fingerprints_equal_fingerprints_of_shingles(options):
    texts = [*random_documents(20, seed=5, words=(1, 12)), "", "Ab", "Don't stop! Ça va?"]
    sh = SimHasher(seed=2)
    expected = sh.fingerprints([shingles(t, **options) for t in texts])
    np.testing.assert_array_equal(sh.text_fingerprints(texts, **options), expected)
    np.testing.assert_array_equal(sh.fingerprints(text_shingles(texts, **options)), expected)


def test_seed_changes_fingerprints():
    docs = [shingles(t) for t in random_documents(20, seed=2)]
    a = SimHasher(seed=1).fingerprints(docs)
    b = SimHasher(seed=2).fingerprints(docs)
    np.testing.assert_array_equal(a, SimHasher(seed=1).fingerprints(docs))
    assert np.all(a != b)


@pytest.mark.parametrize("seed", [-1, 1.5, "1", True, None])
def test_bad_seed(seed):
    with pytest.raises(ValueError, match=re.escape(f"seed={seed!r} is not accepted")):
        SimHasher(seed=seed)


def _p_one(m):
    """P(bit = 1) for m distinct shingles: more +1 than -1 votes; a tie gives 0."""
    return sum(math.comb(m, k) for k in range(m // 2 + 1, m + 1)) / 2**m


def test_64_fair_independent_bits_on_unrelated_documents():
    """Seed 000's check: 100 unrelated documents, mean pairwise distance near 32 of 64.

    Theory (``simhash_support.differ_probabilities``): with an ideal shingle hash each
    fingerprint bit of a pair differs with a probability P computed exactly from the two
    shingle sets (ties give 0, so P is a little under 1/2 for short documents); the expected
    mean distance over the 4,950 pairs is 64 · mean(P) ≈ 31.99. The mean is the sum of 64
    independent, identically distributed per-bit shares, so its standard error is estimated
    from the 64 values (``mean_distance_and_error``, ≈ 0.064 here). The test allows 4
    standard errors: (M − E) / SE is Student-t with 63 degrees of freedom, P(|t| > 4) ≈
    1.7e-4. A hash with one stuck or copied bit moves the mean by about 0.5 (8 SE) and fails.

    Each bit's share of ones is a Poisson-binomial count over 100 documents / 100, standard
    deviation at most sqrt(p̄(1 − p̄)/100); 4.5 sd on each of 64 bits gives a false failure
    probability below 64 · 6.8e-6 ≈ 4e-4.
    """
    texts = random_documents(100, seed=11)
    lists = [shingles(t) for t in texts]
    fps = SimHasher(seed=1).fingerprints(lists)
    expected = 64 * float(differ_probabilities(lists).mean())
    assert 31.0 < expected < 32.0
    mean, se = mean_distance_and_error(fps)
    i, j = np.triu_indices(100, k=1)
    assert mean == pytest.approx(float(np.mean(hamming_distance(fps[i], fps[j]))), abs=1e-9)
    assert abs(mean - expected) <= 4 * se
    assert se < 0.1  # about 8 · sqrt(2)/2 · 1/100 for fair bits
    share = ((fps[:, None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)).mean(axis=0)
    p_bar = float(np.mean([_p_one(len(s)) for s in lists]))
    tol = 4.5 * math.sqrt(p_bar * (1 - p_bar) / 100)
    assert np.all(np.abs(share - p_bar) <= tol)


# --------------------------------------------------------------------------- distance
@pytest.mark.parametrize(
    ("value", "match"),
    [
        (np.zeros((2, 2), dtype=np.uint64), "1-D"),
        (np.array([1.0, 2.0]), "float64"),
        (np.array([-1, 2]), "negative.*view"),
        ([-1, 2], r"0 to 2\*\*64 - 1"),
        ([2**64], r"0 to 2\*\*64 - 1"),
        ("abc", "1-D array"),
        (np.array([True, False]), "bool"),
        (None, "fingerprints=None"),
        ([1, None], "fingerprints=\\[1, None\\]"),
    ],
)
def test_bad_fingerprints(value, match):
    with pytest.raises(ValueError, match=match):
        as_fingerprints(value)


def test_hamming_distance_and_popcount():
    assert hamming_distance(0, 2**64 - 1) == 64
    assert isinstance(hamming_distance(np.uint64(5), 3), int)
    assert hamming_distance(5, 3) == 2
    a = np.array([0, 1, 2**63], dtype=np.uint64)
    np.testing.assert_array_equal(hamming_distance(a, 0), [0, 1, 1])
    np.testing.assert_array_equal(hamming_distance(a[:, None], a[None, :]).diagonal(), 0)
    assert hamming_distance(a[:, None], a[None, :]).shape == (3, 3)
    np.testing.assert_array_equal(popcount(a), [0, 1, 1])
    assert popcount(np.array([255], dtype=np.uint8)).dtype == np.int64
    with pytest.raises(ValueError, match="a=-1"):
        hamming_distance(-1, 0)
    with pytest.raises(ValueError, match="broadcast"):
        hamming_distance(a, np.zeros(2, dtype=np.uint64))
    with pytest.raises(ValueError, match="integers"):
        popcount([1.5])


def test_as_fingerprints_passes_uint64_through():
    x = np.arange(5, dtype=np.uint64)
    assert as_fingerprints(x) is x


# -- escapes the garbage test (tests/test_garbage.py) found ------------------------------
def test_one_documents_shingles_are_checked_with_the_argument_named():
    """Was: "document 0 is a NoneType, not a list of shingles" (no argument, no 'accepted')."""
    sh = SimHasher(1)
    for method in (sh.shingle_hashes, sh.fingerprint):
        with pytest.raises(TypeError, match=r"shingles=None is not accepted; accepted: a list"):
            method(None)
    with pytest.raises(TypeError, match=r"shingle_lists=7 is not accepted; accepted: a list"):
        sh.fingerprints(7)


def test_a_set_of_fingerprints_has_no_order():
    """Was: accepted (fingerprints are per document, in document order)."""
    with pytest.raises(TypeError, match=r"fingerprints=\{1, 2\} is not accepted"):
        as_fingerprints({1, 2})


def test_a_long_list_of_python_ints_is_checked_in_one_pass():
    """10**6 Python ints: converted and range-checked by NumPy, not one by one."""
    big = list(range(10**6))
    assert as_fingerprints(big)[-1] == 10**6 - 1
    with pytest.raises(ValueError, match=r"fingerprints=\[0, .* is not accepted"):
        as_fingerprints([*big, -1])
    with pytest.raises(ValueError, match=r"is not accepted; accepted: a 1-D array of integers"):
        as_fingerprints([0, 2**64])
