"""Exact copies: the 128-bit key of a normalised text, and each copy's link to its first
occurrence — against MurmurHash3's reference implementation and brute force."""

from __future__ import annotations

import unicodedata

import mmh3
import numpy as np
from garbage_checks import brute_copy_pairs, brute_shingles
from hypothesis import given, settings
from hypothesis import strategies as st

import nearsim as ns
from nearsim.copies import murmur3_x64_128


@given(st.binary(max_size=300), st.integers(0, 2**32 - 1))
@settings(max_examples=200, deadline=None)
def test_the_key_hash_is_murmurhash3_x64_128(data, seed):
    buf = np.frombuffer(data, dtype=np.uint8)
    h1, h2 = murmur3_x64_128(buf, 0, len(data), seed)
    want = mmh3.hash_bytes(data, seed, x64arch=True)
    assert int(h1).to_bytes(8, "little") + int(h2).to_bytes(8, "little") == want


TEXTS = st.lists(
    st.sampled_from(["The cat sat.", "the  cat sat.", "THE CAT SAT!", "a dog", "A dog ",
                     "", "   ", "x", "Café, naïve", "café,  NAÏVE", "one two three"]),
    max_size=12,
)  # fmt: skip


@given(TEXTS, st.sampled_from(["char", "word"]), st.integers(1, 4), st.booleans(), st.booleans())
@settings(max_examples=150, deadline=None)
def test_equal_keys_exactly_for_equal_normalised_texts(texts, kind, k, lower, punct):
    opts = {"kind": kind, "k": k, "lowercase": lower, "remove_punctuation": punct,
            "collapse_whitespace": True}  # fmt: skip
    keys = ns.copy_keys(texts, **opts)
    assert keys.dtype == np.uint64 and keys.shape == (len(texts), 2)
    normal = [ns.shingles(t, **opts) for t in texts]  # the shingles of the normalised text
    for i in range(len(texts)):
        for j in range(len(texts)):
            same_key = bool((keys[i] == keys[j]).all())
            assert same_key == (_normalised(texts[i], opts) == _normalised(texts[j], opts))
            if same_key:
                assert normal[i] == normal[j] == brute_shingles(texts[j], **opts)


def _normalised(text: str, opts: dict) -> str:
    """API.md's normalisation (white space collapsed here, so word shingles read the same
    text: its words joined by one space)."""
    text = text.lower() if opts["lowercase"] else text
    if opts["remove_punctuation"]:
        text = "".join(c for c in text if not unicodedata.category(c).startswith("P"))
    return " ".join(text.split())


@given(st.lists(st.integers(0, 3), max_size=40), st.lists(st.booleans(), max_size=40))
@settings(max_examples=200, deadline=None)
def test_each_copy_is_linked_to_its_first_occurrence(groups, flags):
    n = len(groups)
    keys = np.array([[g, 7 * g] for g in groups], dtype=np.uint64).reshape(n, 2)
    valid = np.array((flags + [True] * n)[:n], dtype=bool)
    got = ns.copy_pairs(keys, valid)
    assert got.dtype == np.int64 and got.shape[1] == 2
    assert [tuple(p) for p in got.tolist()] == brute_copy_pairs(keys, valid)
    assert got.shape[0] == valid.sum() - len({g for g, v in zip(groups, valid, strict=False) if v})


@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 2)), max_size=30))
@settings(max_examples=150, deadline=None)
def test_keys_equal_in_one_half_only_are_not_copies(halves):
    """Rows whose first 64 bits agree and last 64 differ are different texts (the fast sort
    by the first half must notice)."""
    keys = np.array(halves, dtype=np.uint64).reshape(-1, 2)
    got = ns.copy_pairs(keys)
    assert [tuple(p) for p in got.tolist()] == brute_copy_pairs(keys)
