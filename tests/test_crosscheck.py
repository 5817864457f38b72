"""Against datasketch on a 600-document corpus: same error, same finds (PRODUCT.md).

The signatures themselves differ (datasketch hashes with SHA-1 and a 61-bit prime), so the
estimates are compared with exact Jaccard, not with each other.
"""

import math

import numpy as np
import pytest
from datasketch import MinHash, MinHashLSH

import nearsim as ns

K = 128


@pytest.fixture(scope="module")
def corpus():
    texts = ns.example_corpus(600, seed=0)["text"].tolist()
    sets = [ns.shingles(t) for t in texts]
    exact = ns.exact_pairs(sets, 0.3)
    ours = ns.MinHasher(K, seed=1).signatures(sets)
    theirs = MinHash.bulk([[s.encode() for s in d] for d in sets], num_perm=K, seed=1)
    return sets, exact, ours, theirs


def test_both_minhash_errors_match_theory(corpus):
    """RMSE against exact Jaccard is sqrt(mean J(1-J)/k) for both, within 25%.

    Over ~580 pairs the mean squared error has a relative sd near sqrt(2/580) ≈ 6%, so
    25% on the root is about eight standard deviations: a real bias or a hash with
    correlated functions would fail, chance would not.
    """
    _, exact, ours, theirs = corpus
    pairs = exact[["i", "j"]].to_numpy()
    j = exact["jaccard"].to_numpy()
    est_ours = ns.estimate_pairs(ours, pairs)
    est_theirs = np.array([theirs[a].jaccard(theirs[b]) for a, b in pairs])
    theory = math.sqrt(np.mean(j * (1 - j) / K))
    rmse_ours = math.sqrt(np.mean((est_ours - j) ** 2))
    rmse_theirs = math.sqrt(np.mean((est_theirs - j) ** 2))
    assert len(j) > 400
    assert 0.75 * theory <= rmse_ours <= 1.25 * theory
    assert 0.75 * theory <= rmse_theirs <= 1.25 * theory
    assert abs(np.mean(est_ours - j)) < 0.01


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
