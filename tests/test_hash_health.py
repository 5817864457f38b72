"""Hash health and seed 000's broken hash: test the hash, not only the dedupe.

Seed 000: a SimHash whose 64 bits were really 31 (``i % 31``), many of them stuck, made a
"within 12 bits" filter keep 8 of 174 job posts. These tests reproduce that hash exactly
(against a line-by-line port of the JavaScript), replay a scan of job posts through it and
through ours, and check the health report. Bounds on our hash come from an exact model of an
ideal shingle hash (``simhash_support.differ_probabilities``); see each docstring.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from scipy.stats import binom, poisson
from simhash_support import (
    differ_probabilities,
    job_posts,
    mean_distance_and_error,
    random_documents,
)

from nearsim.explore.hash_health import broken_simhash, hash_health
from nearsim.hamming import replay
from nearsim.shingling import shingles
from nearsim.simhash import SimHasher, hamming_distance


def js_reference(text):
    """Seed 000's JavaScript, line by line, in Python ints."""
    js_space = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
    tokens = re.split(f"[{js_space}]+", text.lower())
    v = [0] * 64
    for tok in tokens:
        units = tok.encode("utf-16-le", "surrogatepass")
        h = 0
        for q in range(0, len(units), 2):
            h = (h * 31 + int.from_bytes(units[q : q + 2], "little")) % 2**32
        for i in range(64):
            v[i] += 1 if h & (1 << (i % 31)) else -1
    return sum(1 << i for i in range(64) if v[i] >= 0)


# --------------------------------------------------------------------------- broken hash
def test_broken_simhash_small_cases_by_hand():
    # "a": h = 97 = 0b1100001: bits i with i % 31 in {0, 5, 6}.
    a = sum(1 << i for i in (0, 5, 6, 31, 36, 37, 62))
    # "a b": 97 and 98 = 0b1100010 tie (0 >= 0 is a 1 bit) on bits 0 and 1.
    ab = sum(1 << i for i in (0, 1, 5, 6, 31, 32, 36, 37, 62, 63))
    out = broken_simhash(["a", "A B", "", "   "])
    assert out.dtype == np.uint64
    assert out.tolist() == [a, ab, 0, 0]


def test_broken_simhash_equals_the_javascript():
    texts = [
        *job_posts(20, seed=3),
        " leading space",
        "trailing space ",
        "tabs\tand\nnew lines\r\nand\u00a0nbsp\u2003em space",
        "\x1cnot js white space\x1d",
        "emoji 😀 counts two code units",
        "ΣΊΣΥΦΟΣ final sigma",
        "İstanbul",
        "lone \ud800 surrogate",
        "",
        "x" * 500,
    ]
    got = broken_simhash(texts)
    assert [int(v) for v in got] == [js_reference(t) for t in texts]
    # Bug 1 of seed 000: bit 31 + i is a copy of bit i.
    for fp in got.tolist():
        for i in range(33):
            assert (fp >> (31 + i)) & 1 == (fp >> (i % 31)) & 1


def _bit_shares(fps):
    return ((fps[:, None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)).mean(axis=0)


def test_seed_000_broken_hash_on_174_job_posts():
    """Seed 000's hash on 174 job posts: 31 real bits at most, posts that look alike.

    Nothing here is random: the broken hash has no seed and the posts are seeded, so each
    number is one exact computation (mean distance 14.6, 16 stuck bits, 25 copies, 18 of 174
    kept). What is asserted is where each bound comes from:

    - ``i % 31`` makes bit 31 + i a copy of bit i (or both stuck), so at most 31 bits carry
      information and stuck + copied = 64 − informative >= 33: an identity, asserted exactly.
      That is more than ``hash_health``'s 8 defects for "broken".
    - The mean pairwise distance is exactly the sum over bits of k_b (k − k_b) / C(k, 2)
      (``mean_distance_and_error``), asserted to 1e-9; with every copied bit counted twice
      and the stuck ones at 0 it must lie below the 28 at which ``hash_health`` starts to
      call a hash healthy (32 minus one standard deviation, 4, of Binomial(64, 1/2)); seed
      000 measured 11.1.
    - Seed 000's consequence, "inserting them one by one kept 8": most posts are dropped,
      i.e. fewer than half (87) are kept by a within-12 replay.
    """
    posts = job_posts(174, seed=0)
    broken = broken_simhash(posts)
    bad = hash_health(broken, sample=174)
    assert bad.documents == 174
    assert bad.informative_bits <= 31
    assert len(bad.stuck_bits) + len(bad.copied_bits) == 64 - bad.informative_bits
    assert bad.status == "broken" and bad.verdict.startswith("Broken hash")
    mean, _ = mean_distance_and_error(broken)
    assert bad.mean_distance == pytest.approx(mean, abs=1e-9)
    assert bad.mean_distance < 28
    np.testing.assert_array_equal(bad.bit_share, _bit_shares(broken))
    assert len(replay(broken, 12)) < 174 / 2


def test_seed_000_our_hash_on_the_same_posts():
    """Our SimHash on the same 174 posts: the distances the model predicts, nearly all kept.

    - Mean distance: job posts share template phrases, so the expected mean is below 32. It
      is computed exactly under the ideal-hash model (``differ_probabilities``: each bit of a
      pair differs with a probability P given by the two shingle sets): E = 64 · mean(P) ≈
      29.26 over the 15,051 pairs. The observed mean is a sum of 64 independent per-bit
      shares with standard error SE (≈ 0.52) estimated from them; 4 SE: (M − E) / SE is
      Student-t with 63 degrees of freedom, false failure P(|t| > 4) ≈ 1.7e-4.
    - Replay at d = 3: a post is dropped only when some pair is within 3 bits. Under the
      model a pair's distance is Binomial(64, P), so the expected number N3 of pairs within 3
      is sum P(Binomial(64, P) <= 3) ≈ 2.5e-6, asserted < 1e-4; by Markov's inequality all
      174 are kept except with probability <= E[N3].
    - Replay at d = 12: each dropped post has a stored partner within 12 bits, so dropped
      <= N12, E[N12] ≈ 0.94. The pairs are nearly independent rare events (only pairs that
      share a post are dependent), so N12 is about Poisson(0.94) and P(N12 >= 7) ≈ 6e-5:
      at least 168 of 174 are kept.
    - Stuck or copied bits: a moving fair bit stays put over 174 posts with probability
      about 2 · 2**−174, and two moving bits agree on all 174 with about 2**−174 · (the
      posts' correlation makes that larger, but not near 1e-9): none is allowed.
    """
    posts = job_posts(174, seed=0)
    lists = [shingles(p) for p in posts]
    ours = SimHasher(seed=1).fingerprints(lists)
    good = hash_health(ours, sample=174)
    p = differ_probabilities(lists)
    expected = 64 * float(p.mean())
    mean, se = mean_distance_and_error(ours)
    assert good.mean_distance == pytest.approx(mean, abs=1e-9)
    assert abs(good.mean_distance - expected) <= 4 * se
    assert good.stuck_bits == [] and good.copied_bits == [] and good.informative_bits == 64
    n3 = float(binom.cdf(3, 64, p).sum())
    n12 = float(binom.cdf(12, 64, p).sum())
    assert n3 < 1e-4 and poisson.sf(6, n12) < 1e-4
    assert len(replay(ours, 3)) == 174
    assert len(replay(ours, 12)) >= 174 - 6


# --------------------------------------------------------------------------- hash health
def test_hash_health_on_unrelated_documents_is_ok():
    """100 unrelated documents: the report's numbers are the direct ones, and the verdict
    is "ok" (``test_simhash`` checks the mean against the model: 31.99 ± 4 · 0.064, well
    inside hash_health's 28 to 36)."""
    lists = [shingles(t) for t in random_documents(100, seed=11)]
    fps = SimHasher(seed=1).fingerprints(lists)
    health = hash_health(fps, sample=100)
    mean, _ = mean_distance_and_error(fps)
    i, j = np.triu_indices(100, k=1)
    assert health.documents == 100
    assert health.mean_distance == pytest.approx(mean, abs=1e-9)
    assert health.median_distance == float(np.median(hamming_distance(fps[i], fps[j])))
    assert health.bit_share.shape == (64,) and health.bit_share.dtype == np.float64
    np.testing.assert_array_equal(health.bit_share, _bit_shares(fps))
    assert health.stuck_bits == [] and health.copied_bits == [] and health.informative_bits == 64
    assert health.status == "ok" and health.verdict.startswith("Healthy")


def test_hash_health_small_samples_and_close_documents():
    """Too few documents, and documents that share most of their text.

    Close documents: 60 copies of one 200-word text, each with 40 words replaced. Under the
    ideal-hash model the expected mean distance is E = 64 · mean(P) ≈ 20.4 (the copies share
    most shingles), with standard error SE ≈ 1.2 from the 64 per-bit shares: the mean is
    asserted within 4 SE of E (Student-t, 63 degrees of freedom: false failure ≈ 1.7e-4),
    and E + 4 SE is below the 28 where hash_health starts to call a hash healthy, so the
    status cannot be "ok" (whether a few bits also stay put over 60 near-copies is left
    open: the copies vote alike on most shingles, so stuck bits are not rare here).
    """
    fps = SimHasher(1).fingerprints([shingles(t) for t in random_documents(10, seed=4)])
    h = hash_health(fps)
    assert h.documents == 10 and h.stuck_bits == [] and "can't be judged" in h.verdict
    one = hash_health(fps[:1])
    assert one.status == "suspect" and math.isnan(one.mean_distance)
    base = random_documents(1, seed=9, words=(200, 201))[0].split()
    rng = np.random.default_rng(0)
    near = []
    for _ in range(60):
        w = list(base)
        for q in rng.choice(len(w), size=40, replace=False):
            w[q] = "zz" + str(rng.integers(10**6))
        near.append(" ".join(w))
    lists = [shingles(t) for t in near]
    close_fps = SimHasher(1).fingerprints(lists)
    close = hash_health(close_fps)
    expected = 64 * float(differ_probabilities(lists).mean())
    mean, se = mean_distance_and_error(close_fps)
    assert close.mean_distance == pytest.approx(mean, abs=1e-9)
    assert abs(close.mean_distance - expected) <= 4 * se
    assert expected + 4 * se < 28
    assert close.status != "ok" and f"{close.mean_distance:.1f} bits apart" in close.verdict


def test_hash_health_sample_is_seeded():
    fps = SimHasher(1).fingerprints([shingles(t) for t in random_documents(300, seed=8)])
    a = hash_health(fps, sample=50, seed=1)
    b = hash_health(fps, sample=50, seed=1)
    c = hash_health(fps, sample=50, seed=2)
    assert a.documents == 50 and a.mean_distance == b.mean_distance
    assert a.mean_distance != c.mean_distance


def test_hash_health_valid_leaves_out_empty_documents():
    lists = [shingles(t) for t in random_documents(60, seed=6)] + [[]] * 60
    fps = SimHasher(1).fingerprints(lists)
    valid = np.array([bool(s) for s in lists])
    assert hash_health(fps, sample=120).status != "ok"  # 60 zeros in the sample
    healthy = hash_health(fps, sample=120, valid=valid)
    assert healthy.documents == 60 and healthy.status == "ok"


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"sample": 1}, "sample=1 is not accepted"),
        ({"sample": 2.5}, "sample=2.5 is not accepted"),
        ({"seed": -1}, "seed=-1 is not accepted"),
        ({"seed": "0"}, "seed='0' is not accepted"),
        ({"valid": [True]}, r"valid=\[True\] is not accepted"),
        ({"valid": np.ones(5)}, "valid=.*boolean array of shape"),
    ],
)
def test_hash_health_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        hash_health(np.zeros(5, dtype=np.uint64), **kwargs)


@pytest.mark.parametrize(
    ("texts", "match"), [("one text", "texts='one text'"), ([1, "a"], r"texts\[0\] is a int")]
)
def test_broken_simhash_bad_texts(texts, match):
    with pytest.raises(ValueError, match=match):
        broken_simhash(texts)
