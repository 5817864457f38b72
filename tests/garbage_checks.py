"""The good calls' data and the checks of a normal return, for tests/test_garbage.py.

:func:`fx` builds small documents and everything computed from them once per process: the
good arguments of every public name. A check ``check(result, arguments)`` asserts what
the name documents: the type and shape, and where the answer is cheap to know, the answer
itself — from a brute-force oracle written straight from /work/shared/API.md's wording and
computed from the arguments actually passed (garbage that was accepted included).
"""

from __future__ import annotations

import functools
import itertools
import tempfile
import unicodedata
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy.integrate import quad
from support import jaccard

import nearsim as ns

P = (1 << 31) - 1


# -- the good calls' data ------------------------------------------------------------------
@functools.cache
def fx() -> SimpleNamespace:
    """Small documents and everything computed from them: the good arguments."""
    f = SimpleNamespace()
    f.texts = [
        "The cat sat on the mat.",
        "The cat sat on the mat!",
        "the  cat sat on the mat.",
        "the cat sat on a mat today",
        "A dog barked at the moon all night",
        "a dog barked at the moon all night long",
        "",
        "x",
    ]
    f.sets = [ns.shingles(t) for t in f.texts]
    f.n = len(f.sets)
    f.mh = ns.MinHasher(16, seed=1)
    f.sig = f.mh.signatures(f.sets)
    f.exact = ns.exact_pairs(f.sets, 0.3)
    f.cands = ns.candidate_pairs(f.sig, 4, 4)
    f.est = ns.estimate_pairs(f.sig, f.cands)
    f.sh = ns.SimHasher(1)
    f.fps = f.sh.fingerprints(f.sets)
    f.sample = ns.similarity_sample(f.sets)
    f.labels = ns.clusters(f.n, f.cands)
    f.keys = ns.copy_keys(f.texts)
    f.tokens = ns.TokenSets.from_shingles(f.sets)
    f.settings = ns.Settings()
    f.choice_settings = ns.Settings(auto_tune=False, bands=4, rows=4, num_perm=16)
    f.label_table = pd.DataFrame(
        {
            "i": [0, 1, 2, 3, 4],
            "j": [1, 2, 3, 4, 5],
            "jaccard": [0.9, 0.74, 0.6, 0.5, 0.3],
            "label": ["duplicate", "duplicate", "not a duplicate", "unsure", "not a duplicate"],
        }
    )
    f.label_csv = ns.labels_to_csv(f.label_table)
    f.csv = b"id,text\n1,The cat sat on the mat\n2,A dog barked at the moon\n3,the end\n"
    f.html = "<html><body><nav>menu</nav><p>The cat sat.</p><script>x()</script></body></html>"
    folder = Path(tempfile.mkdtemp(prefix="nearsim-garbage-"))
    f.corpus = folder / "corpus.jsonl"
    f.corpus.write_text('{"id": 1, "text": "the cat sat"}\n{"id": 2, "text": "a dog"}\n')
    f.folder = folder
    f.index_path = folder / "index"
    f.index = ns.Index.create(f.index_path, f.choice_settings, keep_texts=True)
    f.index.add(f.texts)
    f.evaluation = ns.evaluate(f.exact, f.cands, f.est, 0.5)
    f.funnel = ns.join_funnel(f.sets, 0.5)
    reader = ns.iter_corpus(f.corpus)
    list(reader)
    f.report = reader.report
    f.preset = ns.preset("datatrove")
    f.predictions = ns.tune_for(f.sample.jaccard, f.sample.weight, 0.5, 16)
    f.throughput = ns.Throughput(1e4, 1e6, 1e6)
    for arr in (f.sig, f.cands, f.est, f.fps, f.labels):
        arr.setflags(write=False)  # a public name that writes into its input fails loudly
    return f


# -- brute-force oracles ---------------------------------------------------------------------
def brute_shingles(text, *, kind, k, lowercase, remove_punctuation, collapse_whitespace):
    """API.md's normalisation, then k-grams, distinct in order of first appearance."""
    if lowercase:
        text = text.lower()
    if remove_punctuation:
        text = "".join(c for c in text if not unicodedata.category(c).startswith("P"))
    if collapse_whitespace:
        text = " ".join(text.split())
    if kind == "word":
        words = text.split()
        if not words:
            return []
        grams = [" ".join(words[i : i + k]) for i in range(max(1, len(words) - k + 1))]
    else:
        if not text:
            return []
        grams = [text[i : i + k] for i in range(max(1, len(text) - k + 1))]
    return list(dict.fromkeys(grams))


def brute_exact(sets, threshold, valid=None) -> list[tuple[tuple[int, int], float]]:
    """Every pair i < j of non-empty documents (inside ``valid``) with J ≥ t, compared in
    exact arithmetic on the float given."""
    docs = [set(s) for s in sets]
    keep = [True] * len(docs) if valid is None else [bool(v) for v in valid]
    cut = Fraction(float(threshold))
    out = []
    for i in range(len(docs)):
        for j in range(i + 1, len(docs)):
            x, y = docs[i], docs[j]
            if not (x and y and keep[i] and keep[j]):
                continue
            if Fraction(len(x & y), len(x | y)) >= cut:
                out.append(((i, j), jaccard(x, y)))
    return out


def brute_candidates(signatures, b, r, valid=None) -> np.ndarray:
    """Pairs i < j (inside ``valid``) equal on every column of some band."""
    sig = np.asarray(signatures)
    n = sig.shape[0]
    keep = np.ones(n, bool) if valid is None else np.asarray(valid, bool)
    found = [
        (i, j)
        for i in range(n)
        for j in range(i + 1, n)
        if keep[i]
        and keep[j]
        and any((sig[i, x * r : x * r + r] == sig[j, x * r : x * r + r]).all() for x in range(b))
    ]
    return np.array(found, dtype=np.int64).reshape(-1, 2)


def _rows(pairs) -> list[tuple[int, int]]:
    if isinstance(pairs, pd.DataFrame):
        pairs = pairs[["i", "j"]].to_numpy()
    return [(int(i), int(j)) for i, j in np.asarray(pairs).reshape(-1, 2)]


def brute_bucket_candidates(signatures, b, r, valid=None, bucket_limit=None) -> np.ndarray:
    """API.md's banding with nearsim dedup's bucket rule, pair by pair: the documents equal
    on a band form a bucket; a bucket of at most ``bucket_limit`` documents (any, without
    a limit) gives all its pairs, a larger one its smallest row with every other and each
    row with the next larger one."""
    sig = np.asarray(signatures)
    n = sig.shape[0]
    keep = np.ones(n, bool) if valid is None else np.asarray(valid, bool)
    found = set()
    for x in range(b):
        buckets: dict[tuple, list[int]] = {}
        for d in range(n):
            if keep[d]:
                buckets.setdefault(tuple(sig[d, x * r : x * r + r].tolist()), []).append(d)
        for members in buckets.values():
            if bucket_limit is None or len(members) <= bucket_limit:
                found |= {(i, j) for i in members for j in members if i < j}
            else:
                found |= {(members[0], j) for j in members[1:]}
                found |= set(itertools.pairwise(members))
    return np.array(sorted(found), dtype=np.int64).reshape(-1, 2)


def brute_copy_pairs(keys, valid=None) -> list[tuple[int, int]]:
    """(first valid row with the same key, row) for every valid row that has one."""
    rows = [tuple(k) for k in np.asarray(keys).tolist()]
    keep = [True] * len(rows) if valid is None else [bool(v) for v in valid]
    first: dict[tuple, int] = {}
    out = []
    for d, key in enumerate(rows):
        if not keep[d]:
            continue
        if key in first:
            out.append((first[key], d))
        else:
            first[key] = d
    return sorted(out)


def brute_kept_check(n, pairs, similarity, threshold):
    """check_against_kept cluster by cluster: compare with the smallest member, the leavers
    grouped by the pairs among them, again, until nobody leaves."""
    pairs = _rows(pairs)
    labels = brute_clusters(n, pairs)
    groups: dict[int, list[int]] = {}
    for d, lab in enumerate(labels):
        groups.setdefault(lab, []).append(d)
    todo = [m for m in groups.values() if len(m) > 1]
    final = {d: d for d in range(n)}  # each document's kept document
    sim, left = [1.0] * n, [False] * n
    while todo:
        members = todo.pop()
        kept = min(members)
        for d in members:
            final[d] = kept
        others = [d for d in members if d != kept]
        values = np.asarray(similarity(np.array([kept] * len(others)), np.array(others)))
        leave = []
        for d, v in zip(others, values.tolist(), strict=True):
            sim[d] = v
            if threshold is not None and v < threshold:
                leave.append(d)
        for d in leave:
            left[d], sim[d], final[d] = True, 1.0, d
        inner = [(i, j) for i, j in pairs if i in leave and j in leave]
        sub = brute_clusters(n, inner)
        regroup: dict[int, list[int]] = {}
        for d in leave:
            regroup.setdefault(sub[d], []).append(d)
        todo.extend(m for m in regroup.values() if len(m) > 1)
    names: dict[int, int] = {}
    numbered = [names.setdefault(final[d], len(names)) for d in range(n)]
    return numbered, sim, left


def brute_clusters(n, pairs) -> list[int]:
    """Connected components by union-find, numbered in order of their smallest member."""
    parent = list(range(n))

    def root(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, j in _rows(pairs):
        parent[root(i)] = root(j)
    names: dict[int, int] = {}
    return [names.setdefault(root(d), len(names)) for d in range(n)]


def brute_hamming(fingerprints, max_distance, valid=None) -> list[list[int]]:
    """[i, j, distance] for every pair i < j (inside ``valid``) within ``max_distance``."""
    fp = [int(x) for x in np.asarray(fingerprints, dtype=object).reshape(-1)]
    keep = [True] * len(fp) if valid is None else [bool(v) for v in valid]
    out = []
    for i in range(len(fp)):
        for j in range(i + 1, len(fp)):
            d = bin(fp[i] ^ fp[j]).count("1")
            if keep[i] and keep[j] and d <= max_distance:
                out.append([i, j, d])
    return out


def quad_area(kind: str, t: float, b: int, r: int) -> float:
    """∫₀ᵗ P(s) ds ("fp") or ∫ₜ¹ 1 − P(s) ds ("fn") by adaptive quadrature."""

    def p(s):
        return 1.0 - (1.0 - s**r) ** b

    if kind == "fp":
        return quad(p, 0.0, t, epsabs=1e-13, limit=200)[0]
    return quad(lambda s: 1.0 - p(s), t, 1.0, epsabs=1e-13, limit=200)[0]


# -- checks of a normal return ---------------------------------------------------------------
def frame_of(columns: dict[str, str], rows: Callable[[dict], int] | None = None):
    """A check: a DataFrame with exactly these columns and dtype kinds (and row count)."""

    def check(out, kw):
        assert isinstance(out, pd.DataFrame), type(out)
        assert list(out.columns) == list(columns), list(out.columns)
        for c, kinds in columns.items():
            assert out[c].dtype.kind in kinds, (c, out[c].dtype)
        if rows is not None:
            assert len(out) == rows(kw), (len(out), rows(kw))

    return check


def instance_of(cls: type | str):
    """A check: the result is an instance of ``cls`` (or of a class of that name)."""

    def check(out, kw):
        if isinstance(cls, str):
            assert type(out).__name__ == cls, type(out)
        else:
            assert isinstance(out, cls), type(out)

    return check


def array_of(dtype, shape: Callable[[dict], tuple]):
    """A check: an ndarray of this dtype and shape."""

    def check(out, kw):
        assert isinstance(out, np.ndarray), type(out)
        assert out.dtype == dtype, out.dtype
        assert out.shape == shape(kw), (out.shape, shape(kw))

    return check


def pairs_like(expected: Callable[[dict], np.ndarray]):
    """A check: pairs (int64, (m, 2), sorted, i < j) equal to a brute-force answer."""

    def check(out, kw):
        assert isinstance(out, np.ndarray) and out.dtype == np.int64 and out.ndim == 2
        np.testing.assert_array_equal(out.reshape(-1, 2), expected(kw).reshape(-1, 2))

    return check


def satisfies(predicate: Callable[[Any, dict], bool]):
    """A check: ``predicate(result, arguments)`` holds."""

    def check(out, kw):
        assert predicate(out, kw), out

    return check


def check_evaluation(out, kw):
    """Recall and precision counted by hand from the pairs given."""
    assert isinstance(out, ns.Evaluation)
    ex = kw["exact"]
    t = kw["threshold"]
    true = {(int(i), int(j)) for i, j, s in ex[["i", "j", "jaccard"]].itertuples(index=False)
            if s >= t}  # fmt: skip
    cands = [tuple(map(int, p)) for p in np.asarray(kw["candidates"]).reshape(-1, 2)]
    hits = sum(p in true for p in cands)
    assert (out.true_pairs, out.candidates, out.true_candidates) == (len(true), len(cands), hits)


def list_of_str(out, kw):
    assert isinstance(out, list) and all(isinstance(x, str) for x in out), out


def check_minhasher(out, kw):
    assert isinstance(out, ns.MinHasher)
    k = kw["num_perm"]
    assert out.a.dtype == out.b.dtype == np.uint64 and out.a.shape == out.b.shape == (k,)
    assert out.a.min() >= 1 and out.a.max() < P and out.b.max() < P


def signature_oracle(mh, shingles) -> np.ndarray:
    """min over shingles of (a·x + b) mod p, in Python integers; 2**32 − 1 when empty."""
    xs = [int(x) for x in mh.base_hash(list(dict.fromkeys(shingles)))]
    a, b = mh.a.tolist(), mh.b.tolist()
    if not xs:
        return np.full(len(a), 2**32 - 1, dtype=np.uint32)
    values = [min((ai * x + bi) % P for x in xs) for ai, bi in zip(a, b, strict=True)]
    return np.array(values, dtype=np.uint32)


def check_signature(out, kw):
    np.testing.assert_array_equal(out, signature_oracle(fx().mh, kw["shingles"]))
    assert out.dtype == np.uint32


def check_signatures(out, kw):
    assert out.dtype == (np.uint8 if kw["one_byte"] else np.uint32)
    lists = list(kw["shingle_lists"])
    assert out.shape == (len(lists), fx().mh.num_perm)
    if not kw["one_byte"]:
        for row, s in zip(out, lists, strict=True):
            np.testing.assert_array_equal(row, signature_oracle(fx().mh, s))


def check_text_signatures(out, kw):
    opts = {k: kw[k] for k in ("kind", "k", "lowercase", "remove_punctuation")}
    opts["collapse_whitespace"] = kw["collapse_whitespace"]
    lists = [brute_shingles(t, **opts) for t in kw["texts"]]
    assert out.dtype == (np.uint8 if kw["one_byte"] else np.uint32)
    assert out.shape == (len(lists), fx().mh.num_perm)
    if not kw["one_byte"]:
        for row, s in zip(out, lists, strict=True):
            np.testing.assert_array_equal(row, signature_oracle(fx().mh, s))


def check_estimate_jaccard(out, kw):
    a, b = np.asarray(kw["sig1"]), np.asarray(kw["sig2"])
    assert isinstance(out, float) and out == pytest.approx(float(np.mean(a == b)), abs=1e-12)


def check_standard_error(out, kw):
    j = np.asarray(kw["j"], dtype=np.float64)
    k = kw["num_perm"]
    if kw["one_byte"]:
        p = j + (1 - j) / 256
        want = np.sqrt(p * (1 - p) / k) / (1 - 1 / 256)
    else:
        want = np.sqrt(j * (1 - j) / k)
    assert isinstance(out, float) if j.ndim == 0 else out.shape == j.shape
    np.testing.assert_allclose(out, want, rtol=1e-12, atol=0)


def check_probability(out, kw):
    s = np.asarray(kw["s"], dtype=np.float64)
    b, r = kw["b"], kw["r"]
    want = [1 - (1 - float(x) ** r) ** b for x in s.reshape(-1)]
    assert np.shape(out) == s.shape
    np.testing.assert_allclose(np.reshape(out, -1), want, rtol=1e-9, atol=1e-12)


def check_area(kind: str):
    def check(out, kw):
        assert isinstance(out, float)
        assert out == pytest.approx(quad_area(kind, kw["t"], kw["b"], kw["r"]), abs=1e-9)

    return check


def check_tune(out, kw):
    k = kw["num_perm"]
    assert isinstance(out, list) and all(isinstance(c, ns.Choice) for c in out)
    assert len(out) == sum(k // b for b in range(1, k + 1))
    assert all(c.b * c.r <= k for c in out)
    errors = [c.error for c in out]
    assert errors == sorted(errors)


def check_exact(out, kw):
    frame_of({"i": "i", "j": "i", "jaccard": "f"})(out, kw)
    want = brute_exact(kw["sets"], kw["threshold"], kw["valid"])
    assert out[["i", "j"]].values.tolist() == [list(p) for p, _ in want]
    np.testing.assert_allclose(out["jaccard"], [j for _, j in want], rtol=0, atol=1e-15)


def check_pair_jaccard(out, kw):
    pairs = kw["pairs"]
    rows = pairs[["i", "j"]].to_numpy() if isinstance(pairs, pd.DataFrame) else np.asarray(pairs)
    want = [jaccard(kw["sets"][int(i)], kw["sets"][int(j)]) for i, j in rows.reshape(-1, 2)]
    assert out.dtype == np.float64 and out.shape == (len(want),)
    np.testing.assert_allclose(out, want, rtol=0, atol=1e-15)


def check_fingerprints(out, kw):
    lists = list(kw["shingle_lists"])
    assert out.dtype == np.uint64 and out.shape == (len(lists),)
    assert out.tolist() == [fx().sh.fingerprint(s) for s in lists]


def check_hamming_pairs(out, kw):
    frame_of({"i": "i", "j": "i", "distance": "i"})(out, kw)
    want = brute_hamming(kw["fingerprints"], kw["max_distance"], kw["valid"])
    assert out.values.tolist() == want


def check_hamming_distance(out, kw):
    a = np.asarray(kw["a"], dtype=object)
    b = np.asarray(kw["b"], dtype=object)
    want = np.vectorize(lambda x, y: bin(int(x) ^ int(y)).count("1"), otypes=[np.int64])(a, b)
    if a.ndim == b.ndim == 0:
        assert isinstance(out, int) and out == int(want)
    else:
        np.testing.assert_array_equal(out, want)


def check_clusters(out, kw):
    assert out.dtype == np.int64 and out.shape == (kw["n"],)
    assert out.tolist() == brute_clusters(kw["n"], kw["pairs"])


def check_settings(out, kw):
    assert isinstance(out, ns.Settings)
    assert ns.Settings.from_query(out.to_query()) == out


def check_parse_query(out, kw):
    assert isinstance(out, tuple) and len(out) == 2
    check_settings(out[0], kw)
    assert isinstance(out[1], list) and all(isinstance(m, str) for m in out[1])


def check_query(out, kw):
    assert isinstance(out, dict) and all(isinstance(k, str) and isinstance(v, str)
                                         for k, v in out.items())  # fmt: skip


def check_shingles(out, kw):
    opts = {k: kw[k] for k in ("kind", "k", "lowercase", "remove_punctuation")}
    assert out == brute_shingles(kw["text"], **opts, collapse_whitespace=kw["collapse_whitespace"])


def check_reader(out, kw):
    assert all(frame.columns.tolist() == ["id", "text"] for frame in out)


def check_estimate_pairs(out, kw):
    sig = kw["signatures"]
    pairs = kw["pairs"]
    rows = pairs[["i", "j"]].to_numpy() if isinstance(pairs, pd.DataFrame) else np.asarray(pairs)
    want = [float(np.mean(sig[i] == sig[j])) for i, j in rows.reshape(-1, 2)]
    assert out.dtype == np.float64 and out.shape == (len(want),)
    np.testing.assert_allclose(out, want, rtol=0, atol=1e-12)


def nothing(out, kw):
    """No check beyond "it returned" (a method whose result is checked by its own tests)."""


def check_copy_keys(out, kw):
    """Equal keys exactly when the texts' normalised forms are equal (up to a 128-bit hash
    collision): compared here through the shingle lists, which equal normalised texts
    share."""
    texts = list(kw["texts"])
    assert out.dtype == np.uint64 and out.shape == (len(texts), 2)
    opts = {k: kw[k] for k in ("kind", "k", "lowercase", "remove_punctuation",
                               "collapse_whitespace")}  # fmt: skip
    opts["k"] = int(opts["k"])  # a NumPy integer the library accepted
    shingled = [brute_shingles(t, **opts) for t in texts]
    for i in range(len(texts)):
        for j in range(len(texts)):
            if (out[i] == out[j]).all():
                assert shingled[i] == shingled[j]


def check_copy_pairs(out, kw):
    assert out.dtype == np.int64 and out.ndim == 2 and out.shape[1] == 2
    assert _rows(out) == brute_copy_pairs(kw["keys"], kw["valid"])


def jaccard_of(sets):
    """A similarity(kept, member) callable: exact Jaccard of the documents' shingle sets."""

    def similarity(a, b):
        return np.array([jaccard(sets[i], sets[j]) for i, j in zip(a, b, strict=True)])

    return similarity


def check_kept(out, kw):
    labels, sim, left = brute_kept_check(kw["n"], kw["pairs"], kw["similarity"], kw["threshold"])
    assert out.labels.dtype == np.int64 and out.labels.tolist() == labels
    np.testing.assert_allclose(out.similarity, sim, rtol=0, atol=1e-12)
    assert out.split_off.tolist() == left
