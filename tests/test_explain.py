"""The "Choosing k" profile (nearsim.explore.explain.shingle_length_profile) against brute force."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from support import jaccard

import nearsim as ns
from nearsim.explore import explain


def brute_profile(texts, ks, pairs, kind="char"):
    """Python sets of ``nearsim.shingles``: per k, the share of distinct shingles in exactly
    one document and the mean Jaccard of the given pairs below 0.5."""
    rows = []
    for k in ks:
        sets = [set(ns.shingles(t, kind=kind, k=k)) for t in texts]
        counts: dict[str, int] = {}
        for s in sets:
            for x in s:
                counts[x] = counts.get(x, 0) + 1
        one = np.mean([c == 1 for c in counts.values()]) if counts else np.nan
        jac = [jaccard(sets[i], sets[j]) for i, j in pairs]
        low = [x for x in jac if x < 0.5]
        rows.append((k, len(counts), one, np.mean(low) if low else np.nan))
    return rows


def drawn_pairs(n: int, pairs: int, seed: int) -> np.ndarray:
    """The pairs the profile draws when it measures every document (n ≤ sample)."""
    return explain._random_pairs(n, pairs, np.random.default_rng(seed))


texts_strategy = st.lists(st.text(alphabet="ab c.", max_size=25), min_size=2, max_size=8)


@given(texts=texts_strategy, seed=st.integers(0, 3))
def test_the_profile_equals_python_sets(texts, seed):
    """Exact equality: the profile tells shingles apart by 32-bit hashes, and a collision
    among the few hundred distinct shingles here has a chance of about 1e-5."""
    ks = [1, 2, 4, 7]
    got = explain.shingle_length_profile(texts, ks=ks, pairs=50, seed=seed)
    want = brute_profile(texts, ks, drawn_pairs(len(texts), 50, seed))
    assert got["k"].tolist() == ks
    assert got["documents"].tolist() == [len(texts)] * len(ks)
    for (_, row), (k, shingles, one, mean) in zip(got.iterrows(), want, strict=True):
        assert row["shingles"] == shingles, k
        np.testing.assert_allclose(row["share_in_one_document"], one, rtol=1e-12)
        np.testing.assert_allclose(row["mean_jaccard_unrelated"], mean, rtol=1e-12)


def test_the_profile_on_real_documents_matches_the_exact_join():
    """On 300 Example documents the hashed Jaccard equals nearsim.pair_jaccard's exact one
    (no two of their shingles share a 32-bit hash)."""
    texts = ns.example_corpus(300, seed=4)["text"].tolist()
    got = explain.shingle_length_profile(texts, ks=[3, 5, 9], pairs=400, seed=1)
    pairs = drawn_pairs(300, 400, 1)
    for (_, row), k in zip(got.iterrows(), [3, 5, 9], strict=True):
        jac = ns.pair_jaccard([ns.shingles(t, k=k) for t in texts], pairs)
        np.testing.assert_allclose(row["mean_jaccard_unrelated"], jac[jac < 0.5].mean())


def test_a_large_corpus_is_sampled_and_says_how_many():
    texts = ns.example_corpus(500, seed=0)["text"].tolist()
    got = explain.shingle_length_profile(texts, ks=[5], sample=100)
    assert got["documents"].tolist() == [100]
    # Longer shingles are rarer: the share in one document grows with k.
    grow = explain.shingle_length_profile(texts, ks=[2, 5, 10], sample=100)
    assert grow["share_in_one_document"].is_monotonic_increasing


def test_long_documents_are_measured_within_the_character_budget():
    """Documents of 1,000 characters and a budget of 20,000: a random 20 of the 100 (their
    lengths add up to exactly the budget), every k; under the budget nothing changes."""
    texts = [(t * 10)[:1000] for t in ns.example_corpus(300, seed=3)["text"].tolist()[:100]]
    got = explain.shingle_length_profile(texts, ks=[3, 5], max_characters=20_000)
    assert got["documents"].tolist() == [20, 20]
    whole = explain.shingle_length_profile(texts, ks=[3, 5], seed=2)
    assert whole["documents"].tolist() == [100, 100]
    short = explain.shingle_length_profile(texts[:10], ks=[3], max_characters=10_000)
    assert short["documents"].tolist() == [10]
    two = explain.shingle_length_profile(texts[:10], ks=[3], max_characters=1_000)
    assert two["documents"].tolist() == [2]  # never fewer than two


@pytest.mark.parametrize(
    ("kwargs", "word"),
    [({"sample": 1}, "sample"), ({"max_characters": 999}, "max_characters"),
     ({"pairs": 0}, "pairs"), ({"ks": [0]}, "ks"), ({"kind": "byte"}, "kind")],
)  # fmt: skip
def test_bad_arguments_name_themselves(kwargs, word):
    with pytest.raises(ValueError, match=word):
        explain.shingle_length_profile(["a b c", "b c d"], **kwargs)


def test_one_document_is_not_enough():
    with pytest.raises(ValueError, match="at least 2"):
        explain.shingle_length_profile(["only one"])


def test_the_worked_example_is_the_books():
    """Mining of Massive Datasets §3.3: rows a … e numbered 0 … 4, h1 = x + 1 mod 5 and
    h2 = 3x + 1 mod 5 (Fig. 3.4), and the signature matrix of Fig. 3.5."""
    ex = explain.book_example()
    assert ex.matrix.index.tolist() == ["a", "b", "c", "d", "e"]
    assert ex.matrix.to_numpy().tolist() == [
        [1, 0, 0, 1],
        [0, 0, 1, 0],
        [0, 1, 0, 1],
        [1, 0, 1, 1],
        [0, 0, 1, 0],
    ]  # fmt: skip  (Fig. 3.2)
    assert ex.hashes["h1"].tolist() == [1, 2, 3, 4, 0]
    assert ex.hashes["h2"].tolist() == [1, 4, 2, 0, 3]
    assert ex.signatures.tolist() == [[1, 3, 0, 1], [0, 2, 0, 0]]


@pytest.mark.parametrize("seed", range(5))
def test_the_worked_example_never_repeats_a_function(seed):
    """At 8 functions h4 was h2 and h8 was h1 (drawn with replacement)."""
    ex = explain.book_example(8, seed)
    columns = [tuple(ex.hashes[h]) for h in ex.hashes.columns]
    assert len(set(columns)) == 8 and ex.params[:2] == [(1, 1), (3, 1)]
