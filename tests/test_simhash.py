"""SimHash: real 64-bit fingerprints, table search = all pairs, replay, health, Compare data.

Seed 000 is the model for several tests: a SimHash whose 64 bits are really 31 (``i % 31``)
and partly stuck made a "within 12 bits" filter keep 8 of 174 job posts. These tests check
the hash itself (mean pairwise distance near 32, every bit a fair coin), reproduce the
broken hash exactly, and replay a scan of job posts through both.
"""

from __future__ import annotations

import itertools
import math
import re

import mmh3
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nearsim._hashing import text_shingles
from nearsim.lsh import TooManyPairsError
from nearsim.shingles import shingles
from nearsim.simhash import (
    MAX_TABLE_DISTANCE,
    SimHasher,
    as_fingerprints,
    broken_simhash,
    compare_simhash,
    compare_table,
    distance_histogram,
    distance_vs_jaccard,
    hamming_distance,
    hamming_pairs,
    hash_health,
    lsh_scores,
    popcount,
    replay,
    table_scheme,
)

HYP = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)


# --------------------------------------------------------------------------- helpers
def random_words(rng, count, *, lo=3, hi=9):
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    return ["".join(rng.choice(letters, size=int(rng.integers(lo, hi + 1)))) for _ in range(count)]


def random_documents(n, seed, words=(40, 80)):
    """Unrelated documents: random letter strings as words."""
    rng = np.random.default_rng(seed)
    return [" ".join(random_words(rng, int(rng.integers(*words)))) for _ in range(n)]


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


def naive_pairs(fps, d):
    rows = [
        (i, j, bin(int(fps[i]) ^ int(fps[j])).count("1"))
        for i, j in itertools.combinations(range(len(fps)), 2)
    ]
    rows = [r for r in rows if r[2] <= d]
    return pd.DataFrame(rows, columns=["i", "j", "distance"], dtype=np.int64)


def naive_replay(fps, d):
    kept = []
    for idx, x in enumerate(fps):
        if all(bin(int(x) ^ int(fps[k])).count("1") > d for k in kept):
            kept.append(idx)
    return kept


def planted(seed, n, d, extra=2):
    """Random fingerprints plus copies at distances 0 .. d + extra, and a few repeats."""
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 2**64, size=max(n, 1), dtype=np.uint64)
    out = list(base[:n])
    for t in range(n):
        if rng.random() < 0.6:
            x = int(out[int(rng.integers(len(out)))])
            k = int(rng.integers(0, d + extra + 1))
            for b in rng.choice(64, size=k, replace=False):
                x ^= 1 << int(b)
            out.append(np.uint64(x))
        if t % 7 == 0 and out:
            out.append(out[int(rng.integers(len(out)))])
    arr = np.array(out, dtype=np.uint64)
    return arr[rng.permutation(arr.shape[0])]


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


# Job posts like those in seed 000: varied phrasing over one realistic vocabulary.
ROLES = [
    "Python developer", "React engineer", "full stack developer", "backend engineer",
    "data engineer", "DevOps engineer", "iOS developer", "Android developer",
    "machine learning engineer", "frontend developer", "Go developer", "Rust engineer",
    "WordPress developer", "Shopify expert", "QA automation engineer",
    "site reliability engineer", "Node.js developer", "Django developer",
    "Laravel developer", "Flutter developer",
]  # fmt: skip
LEVELS = ["Senior", "Junior", "Mid-level", "Lead", "Freelance", "Contract", "Part-time"]
TECH = [
    "Python", "Django", "Flask", "FastAPI", "React", "TypeScript", "Node.js", "PostgreSQL",
    "MySQL", "Redis", "AWS", "GCP", "Docker", "Kubernetes", "Terraform", "GraphQL",
    "REST APIs", "Next.js", "Vue", "Tailwind", "Swift", "Kotlin", "Go", "Rust", "Kafka",
    "Airflow", "Spark", "Snowflake", "dbt", "PyTorch", "pandas", "Stripe", "MongoDB",
]  # fmt: skip
TASKS = [
    "build a dashboard for our sales team", "migrate our monolith to microservices",
    "fix performance issues in the checkout flow",
    "write integration tests for the billing API",
    "design a data pipeline for event analytics", "add OAuth login and user roles",
    "ship a mobile app for booking appointments", "set up CI/CD and staging environments",
    "clean up our legacy PHP codebase", "build a scraper that collects product prices",
    "integrate Stripe payments and invoices", "optimise slow SQL queries on large tables",
    "create an admin panel for content moderation",
    "train a model to classify support tickets", "port our web app to a progressive web app",
    "automate deployment to Kubernetes", "implement real-time chat with websockets",
    "write a Chrome extension for our CRM",
    "refactor the React frontend into reusable components",
    "build a REST API for inventory management",
]  # fmt: skip
COMPANIES = [
    "a fintech startup", "an e-commerce brand", "a small agency", "a healthcare company",
    "a logistics platform", "an edtech startup", "a SaaS company", "a nonprofit",
    "a travel marketplace", "a gaming studio", "a real estate portal", "a media company",
    "a climate tech startup", "a recruiting platform", "a food delivery app",
]  # fmt: skip
PLACES = [
    "Remote, worldwide", "Remote, US time zones", "Remote, Europe only", "Berlin or remote",
    "London, hybrid", "New York, on site", "Toronto or remote", "San Francisco, hybrid",
]  # fmt: skip
EXTRAS = [
    "You will work directly with the founder.", "We move fast and ship every week.",
    "Clear specs and a friendly team.", "Long-term work for the right person.",
    "Please include links to similar projects.", "Code review is part of the job.",
    "Async communication, no meetings.", "Start as soon as possible.",
    "Tell us about a bug you are proud of fixing.", "Good English is required.",
    "Equity available for the right candidate.", "We pay weekly via bank transfer.",
]  # fmt: skip
INTRO = [
    "{L} {r} needed at {c}.", "{c} is hiring a {l} {r}.",
    "Looking for a {l} {r} to join {c}.", "Hiring: {r} ({l}) for {c}.",
    "We are {c} and we need a {r}.", "{r} wanted, {l} level.",
    "Gig: {l} {r} for a short project.", "Our team at {c} needs help from a {r}.",
]  # fmt: skip
TASK = [
    "We need someone to {t}.", "The job: {t}.", "You will {t}.", "Main goal is to {t}.",
    "Scope of work: {t}, then hand over.", "First milestone: {t}.", "Help us {t}.",
    "Your task is to {t} before the next release.",
]  # fmt: skip
STACK = [
    "Stack: {x}.", "We use {x}.", "Must know {x}.", "Experience with {x} is a plus.",
    "Tech: {x}.", "You should be comfortable with {x}.",
]  # fmt: skip
PAY = [
    "Budget ${p} fixed.", "Pays ${p} for the whole job.", "${h}/hour, about {w} weeks.",
    "Fixed price ${p}, paid on delivery.", "Rate: ${h} per hour.", "${p} budget, {w} weeks max.",
]  # fmt: skip


def job_posts(n=174, seed=0):
    rng = np.random.default_rng(seed)

    def pick(xs):
        return xs[int(rng.integers(len(xs)))]

    posts = []
    for _ in range(n):
        level = pick(LEVELS)
        slots = {
            "L": level,
            "l": level.lower(),
            "r": pick(ROLES),
            "c": pick(COMPANIES),
            "t": pick(TASKS),
            "x": ", ".join(rng.choice(TECH, size=int(rng.integers(2, 5)), replace=False)),
            "p": int(rng.integers(3, 120)) * 50,
            "h": int(rng.integers(20, 150)),
            "w": int(rng.integers(1, 12)),
        }
        rest = [pick(TASK), pick(STACK), pick(PAY)]
        if rng.random() < 0.6:
            rest.append(f"Location: {pick(PLACES)}.")
        rest += list(rng.choice(EXTRAS, size=int(rng.integers(0, 3)), replace=False))
        rest = [s.format(**slots) for s in rest]
        rng.shuffle(rest)
        posts.append(" ".join([pick(INTRO).format(**slots), *rest]))
    return posts


# --------------------------------------------------------------------------- fingerprints
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
    with pytest.raises(ValueError, match="seed"):
        SimHasher(seed=seed)


def _p_one(m):
    """P(bit = 1) for m distinct shingles: more +1 than -1 votes; a tie gives 0."""
    return sum(math.comb(m, k) for k in range(m // 2 + 1, m + 1)) / 2**m


def test_64_fair_independent_bits_on_unrelated_documents():
    """Seed 000's check: 100 unrelated documents, mean pairwise distance near 32 of 64.

    For independent fair bits the distance of two documents is Binomial(64, 1/2) (sd 4).
    The mean over the 4,950 pairs is a degenerate U-statistic (given one document the
    expected distance to another is exactly 32), so its sd is about 4 / sqrt(4950) ≈ 0.06;
    ±1.5 is a safe margin that still fails for any hash with a few bits missing (every
    stuck or copied bit costs about 0.5). Ties make a bit 1 slightly less often than 1/2;
    the centre is computed from each document's shingle count.
    """
    texts = random_documents(100, seed=11)
    lists = [shingles(t) for t in texts]
    fps = SimHasher(seed=1).fingerprints(lists)
    p = np.array([_p_one(len(s)) for s in lists])
    pairs = np.array(list(itertools.combinations(range(100), 2)))
    pa, pb = p[pairs[:, 0]], p[pairs[:, 1]]
    expected = 64 * float(np.mean(pa * (1 - pb) + pb * (1 - pa)))
    assert 31.0 < expected < 32.0
    health = hash_health(fps, sample=100)
    assert health.documents == 100
    assert abs(health.mean_distance - expected) <= 1.5
    assert health.stuck_bits == [] and health.copied_bits == []
    assert health.informative_bits == 64
    assert health.status == "ok" and health.verdict.startswith("Healthy")
    # Each bit's share of ones: Binomial(100, p̄)/100; 4.5 sd for 64 bits tested at once.
    p_bar = float(p.mean())
    tol = 4.5 * math.sqrt(p_bar * (1 - p_bar) / 100)
    assert health.bit_share.shape == (64,) and health.bit_share.dtype == np.float64
    assert np.all(np.abs(health.bit_share - p_bar) <= tol)


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


def test_seed_000_replay_174_job_posts():
    """174 job posts into an empty store, duplicates within 12 bits dropped.

    With seed 000's hash the posts look alike (mean distance far below 32) and most are
    dropped; with ours nearly all are kept.
    """
    posts = job_posts(174, seed=0)
    broken = broken_simhash(posts)
    ours = SimHasher(seed=1).fingerprints([shingles(p) for p in posts])

    bad = hash_health(broken, sample=174)
    assert bad.mean_distance < 20
    assert bad.status == "broken"
    assert bad.informative_bits <= 31
    assert len(bad.stuck_bits) + len(bad.copied_bits) >= 33
    kept_broken = replay(broken, 12)
    assert len(kept_broken) <= 40

    good = hash_health(ours, sample=174)
    assert good.mean_distance > 27
    assert good.stuck_bits == [] and good.copied_bits == []
    assert len(replay(ours, 12)) >= 170
    assert len(replay(ours, 3)) == 174


# --------------------------------------------------------------------------- hash health
def test_hash_health_small_samples_and_close_documents():
    fps = SimHasher(1).fingerprints([shingles(t) for t in random_documents(10, seed=4)])
    h = hash_health(fps)
    assert h.documents == 10 and h.stuck_bits == [] and "can't be judged" in h.verdict
    one = hash_health(fps[:1])
    assert one.status == "suspect" and math.isnan(one.mean_distance)
    # Documents that share most of their text: low mean, every bit moving.
    base = random_documents(1, seed=9, words=(200, 201))[0].split()
    rng = np.random.default_rng(0)
    near = []
    for _ in range(60):
        w = list(base)
        for q in rng.choice(len(w), size=40, replace=False):
            w[q] = "zz" + str(rng.integers(10**6))
        near.append(" ".join(w))
    close = hash_health(SimHasher(1).fingerprints([shingles(t) for t in near]))
    assert close.mean_distance < 28
    assert close.status in {"suspect", "broken"}


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
    [({"sample": 1}, "sample"), ({"seed": -1}, "seed"), ({"valid": [True]}, "valid")],
)
def test_hash_health_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        hash_health(np.zeros(5, dtype=np.uint64), **kwargs)


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
    import nearsim.simhash as simhash

    real = simhash.table_scheme
    monkeypatch.setattr(simhash, "table_scheme", lambda dd, n=0: real(dd, 10**8))
    assert simhash.table_scheme(d).blocks > d + 1 or d <= 2
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
        ((np.zeros((2, 2), dtype=np.uint64), 3), "1-D"),
        ((np.array([1.0, 2.0]), 3), "float64"),
        ((np.array([-1, 2]), 3), "negative.*view"),
        (([-1, 2], 3), "0 to 2\\*\\*64 - 1"),
        (([2**64], 3), "0 to 2\\*\\*64 - 1"),
        (("abc", 3), "1-D array"),
        ((np.array([True, False]), 3), "bool"),
    ],
)
def test_hamming_pairs_bad_input(args, match):
    with pytest.raises(ValueError, match=match):
        hamming_pairs(*args)


def test_hamming_pairs_bad_valid():
    with pytest.raises(ValueError, match="valid"):
        hamming_pairs([1, 2, 3], 1, valid=[True, False])


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


# --------------------------------------------------------------------------- compare
def _jaccard(a, b):
    a, b = set(a), set(b)
    return len(a & b) / len(a | b) if a | b else 0.0


def edited_corpus(n_orig=40, copies=40, seed=0):
    """Originals of random words and copies with a few words changed."""
    rng = np.random.default_rng(seed)
    docs = [random_words(rng, int(rng.integers(20, 40))) for _ in range(n_orig)]
    for _ in range(copies):
        w = list(docs[int(rng.integers(len(docs)))])
        for q in rng.choice(len(w), size=int(rng.integers(0, 6)), replace=False):
            w[q] = random_words(rng, 1)[0]
        docs.append(w)
    return [" ".join(w) for w in docs]


def _exact_frame(lists, floor):
    rows = [
        (i, j, _jaccard(lists[i], lists[j]))
        for i, j in itertools.combinations(range(len(lists)), 2)
    ]
    rows = [r for r in rows if r[2] >= floor]
    return pd.DataFrame(rows, columns=["i", "j", "jaccard"]).astype({"i": np.int64, "j": np.int64})


def test_compare_table_equals_brute_force_counting():
    texts = edited_corpus()
    texts += ["", ""]  # two empty documents: fingerprint 0, never a true pair
    lists = [shingles(t) for t in texts]
    fps = SimHasher(seed=1).fingerprints(lists)
    t = 0.6
    exact = _exact_frame(lists, 0.3)  # rows below t must be ignored
    truth = {(i, j) for i, j, jac in exact.itertuples(index=False) if jac >= t}
    assert len(truth) > 10
    dist = {
        (i, j): hamming_distance(fps[i], fps[j])
        for i, j in itertools.combinations(range(len(fps)), 2)
    }
    table = compare_table(fps, exact, t, max_distance=30)
    assert list(table.columns) == ["d", "pairs_within", "true_within", "recall", "precision"]
    assert table["d"].tolist() == list(range(31))
    for row in table.itertuples(index=False):
        within = sum(1 for v in dist.values() if v <= row.d)
        true_within = sum(1 for p in truth if dist[p] <= row.d)
        assert row.pairs_within == within
        assert row.true_within == true_within
        assert row.recall == pytest.approx(true_within / len(truth))
        if within:
            assert row.precision == pytest.approx(true_within / within)
        else:
            assert math.isnan(row.precision)
    # Leaving out the empty documents removes their pair at distance 0 and nothing true.
    valid = np.array([bool(s) for s in lists])
    v_table = compare_table(fps, exact, t, max_distance=30, valid=valid)
    assert (table["pairs_within"] - v_table["pairs_within"]).min() >= 1
    pd.testing.assert_series_equal(v_table["true_within"], table["true_within"])
    # distance_vs_jaccard gives the same distances
    scatter = distance_vs_jaccard(fps, exact)
    assert scatter["distance"].tolist() == [
        dist[(i, j)] for i, j in zip(exact["i"], exact["j"], strict=True)
    ]
    assert scatter["distance"].dtype == np.int64
    pd.testing.assert_frame_equal(scatter[["i", "j", "jaccard"]], exact)


def test_compare_table_with_exact_pairs():
    """The ground truth the app uses (nearsim.exact.exact_pairs) plugs straight in."""
    from nearsim.exact import exact_pairs

    texts = edited_corpus(seed=3)
    lists = [shingles(t) for t in texts]
    fps = SimHasher(seed=1).fingerprints(lists)
    exact = exact_pairs(lists, 0.5)
    mine = _exact_frame(lists, 0.5)
    pd.testing.assert_frame_equal(
        compare_table(fps, exact, 0.7), compare_table(fps, mine, 0.7), check_exact=False
    )
    scatter = distance_vs_jaccard(fps, exact)
    assert len(scatter) == len(exact) and scatter["distance"].dtype == np.int64


def test_compare_table_no_truth_and_histogram():
    fps = planted(3, 50, 3)
    empty = pd.DataFrame({"i": [], "j": [], "jaccard": []})
    table = compare_table(fps, empty, 0.8, max_distance=5)
    assert table["recall"].isna().all() and (table["true_within"] == 0).all()
    hist = distance_histogram(fps)
    n = len(fps)
    assert hist.shape == (65,) and hist.sum() == n * (n - 1) // 2
    naive = np.bincount(naive_pairs(fps, 64)["distance"], minlength=65)
    np.testing.assert_array_equal(hist, naive)
    big = planted(4, 3000, 3)  # parallel kernel
    assert distance_histogram(big).sum() == len(big) * (len(big) - 1) // 2
    np.testing.assert_array_equal(
        np.cumsum(distance_histogram(big))[:4],
        [len(hamming_pairs(big, d, "brute")) for d in range(4)],
    )


def test_lsh_scores_and_compare_simhash():
    exact = pd.DataFrame({"i": [0, 1, 2, 0], "j": [1, 2, 3, 3], "jaccard": [0.9, 0.85, 0.5, 0.8]})
    lsh = np.array([[0, 1], [1, 3], [2, 3], [1, 0]])  # a repeat in the other order
    s = lsh_scores(lsh, exact, 0.8)
    assert s == {
        "pairs": 3,
        "true_found": 1,
        "true_pairs": 3,
        "recall": pytest.approx(1 / 3),
        "precision": pytest.approx(1 / 3),
    }
    none = lsh_scores(np.empty((0, 2), dtype=np.int64), exact, 0.8)
    assert none["recall"] == 0 and math.isnan(none["precision"])
    fps = np.array([0, 1, 3, 2**64 - 1], dtype=np.uint64)
    cmp = compare_simhash(fps, exact, 0.8, lsh_pairs=lsh, max_distance=3)
    assert cmp.lsh == s and cmp.true_pairs == 3 and cmp.total_pairs == 6
    pd.testing.assert_frame_equal(cmp.table, compare_table(fps, exact, 0.8, max_distance=3))
    assert compare_simhash(fps, exact, 0.8).lsh is None


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"threshold": 0}, "threshold=0"),
        ({"threshold": 1.5}, "threshold=1.5"),
        ({"max_distance": 65}, "max_distance"),
        ({"exact": pd.DataFrame({"i": [0]})}, "columns"),
        ({"exact": pd.DataFrame({"i": [0], "j": [9], "jaccard": [1.0]})}, "document 9"),
        ({"exact": pd.DataFrame({"i": [1], "j": [1], "jaccard": [1.0]})}, "itself"),
        ({"exact": [[0, 1]]}, "DataFrame"),
        ({"valid": [True]}, "valid"),
    ],
)
def test_compare_table_bad_input(kwargs, match):
    args = {
        "fingerprints": np.zeros(4, dtype=np.uint64),
        "exact": pd.DataFrame({"i": [0], "j": [1], "jaccard": [0.9]}),
        "threshold": 0.8,
    }
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        compare_table(**args)


def test_lsh_scores_bad_pairs():
    exact = pd.DataFrame({"i": [0], "j": [1], "jaccard": [0.9]})
    with pytest.raises(ValueError, match=r"shape \(m, 2\)"):
        lsh_scores(np.array([1, 2, 3]), exact, 0.8)
    with pytest.raises(ValueError, match="document 7"):
        lsh_scores(np.array([[0, 7]]), exact, 0.8, n=4)
