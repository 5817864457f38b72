"""Against datasketch on a 600-document corpus: same error, same finds (PRODUCT.md).

The signatures themselves differ (datasketch hashes with SHA-1 and a 61-bit prime), so the
estimates are compared with exact Jaccard, not with each other.
"""

import math

import numpy as np
import pytest
from datasketch import MinHash, MinHashLSH
from support import mse_ratio_sd, one_numba_thread

import nearsim as ns

K = 128
ROUNDS = 4  # independent seeds per pair in the error test


@pytest.fixture(scope="module")
def corpus():
    texts = ns.example_corpus(600, seed=0)["text"].tolist()
    sets = [ns.shingles(t) for t in texts]
    exact = ns.exact_pairs(sets, 0.3)
    ours = ns.MinHasher(K, seed=1).signatures(sets)
    theirs = MinHash.bulk([[s.encode() for s in d] for d in sets], num_perm=K, seed=1)
    return sets, exact, ours, theirs


def test_both_minhash_errors_match_theory(corpus):
    """Both estimators' errors against exact Jaccard have the variance J(1-J)/k of theory
    and no bias, each to within 4 standard deviations.

    One signature per document would give every pair the same hash functions: pairs in a
    cluster share documents, their errors move together, and over 200 seeds the mean
    squared error of the ~580 pairs varied 2x more (sd 11%) than independent errors
    would (sqrt(2/580) = 6%). So here every pair gets its own seed, four times over: m =
    4 x 579 independent estimates per library, each X/k with X ~ Binomial(k, J).
    Spread: R = Σ err² / Σ J(1-J)/k has mean 1 and sd about sqrt(2/m) = 0.031
    (support.mse_ratio_sd); the bound is 1 ± 4 sd, ±0.12. A variance 20% too large gives
    R near 1.2, about 6.5 sd above 1: it fails. Bias: the sum of the errors has sd
    sqrt(Σ J(1-J)/k); the bound is 4 of them.
    """
    sets, exact, _, _ = corpus
    pairs = exact[["i", "j"]].to_numpy()
    assert len(pairs) > 400
    encoded = [[s.encode() for s in d] for d in sets]
    est_ours, est_theirs = [], []
    with one_numba_thread():
        for seed, (a, b) in enumerate(np.tile(pairs, (ROUNDS, 1)).tolist(), start=1):
            sa, sb = ns.MinHasher(K, seed=seed).signatures([sets[a], sets[b]])
            est_ours.append(ns.estimate_jaccard(sa, sb))
            ma, mb = MinHash.bulk([encoded[a], encoded[b]], num_perm=K, seed=seed)
            est_theirs.append(ma.jaccard(mb))
    j = np.tile(exact["jaccard"].to_numpy(), ROUNDS)
    var = j * (1 - j) / K
    ratio_sd = mse_ratio_sd(j, K)
    for name, est in (("nearsim", est_ours), ("datasketch", est_theirs)):
        err = np.asarray(est) - j
        assert abs(np.sum(err**2) / var.sum() - 1) <= 4 * ratio_sd, name
        assert abs(err.sum()) <= 4 * math.sqrt(var.sum()), name


def test_both_lsh_indexes_find_every_pair_above_one_half(corpus):
    """Indexes built for t = 0.3 (tuned 37 × 3: P(0.5) = 0.993) miss no pair at J >= 0.5.

    With 186 such pairs, most far above 0.5, the expected number of misses is about 0.3;
    the seeds are fixed, and both indexes find all of them.
    """
    _, exact, ours, theirs = corpus
    best = ns.tune(0.3, K)[0]
    lsh = MinHashLSH(threshold=0.3, num_perm=K)
    assert (lsh.b, lsh.r) == (best.b, best.r)
    for i, m in enumerate(theirs):
        lsh.insert(i, m)
    found_theirs = {
        (min(i, j), max(i, j)) for i, m in enumerate(theirs) for j in lsh.query(m) if j != i
    }
    found_ours = {tuple(p) for p in ns.candidate_pairs(ours, best.b, best.r).tolist()}
    high = [tuple(p) for p in exact.loc[exact["jaccard"] >= 0.5, ["i", "j"]].to_numpy().tolist()]
    assert len(high) > 100
    assert [p for p in high if p not in found_ours] == []
    assert [p for p in high if p not in found_theirs] == []
