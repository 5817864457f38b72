"""Prepared tokens: interning, ranking, the input forms, and no hidden cache."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import nearsim as ns
import nearsim.join.exact as exact_module
from nearsim.hashing import FlatShingles, flatten, text_shingles
from nearsim.join import _intern
from nearsim.join.tokens import TokenSets, as_token_sets

shingle_text = st.one_of(
    # any code points, NUL and lone surrogates included (st.text leaves surrogates out
    # unless told: exclude_categories=() keeps category Cs in)
    st.text(st.characters(exclude_categories=()), max_size=20),
    st.sampled_from(["a", "b", "ab", "x" * 16, "x" * 17, "é" * 9, "long shingle " * 3, "\udc80"]),
)
documents = st.lists(st.lists(shingle_text, max_size=12), max_size=12)


def check_tokens(ts: TokenSets, sets) -> None:
    """Ids are exact (equal iff equal strings: every pair of documents shares as many ids
    as shingles), ranked by frequency (rarest = 0), sorted and distinct per document."""
    distinct = [set(d) for d in sets]
    assert ts.n == len(sets)
    assert ts.lengths.tolist() == [len(d) for d in distinct]
    assert ts.offsets.dtype == np.int64 and ts.tokens.dtype == np.int32
    assert ts.lengths.dtype == np.int64
    assert ts.vocab == len(set().union(*distinct)) if sets else ts.vocab == 0
    ids = [ts.document(k).tolist() for k in range(ts.n)]
    for k, d in enumerate(ids):
        assert d == sorted(set(d))
        for m in range(k, ts.n):
            assert len(set(d) & set(ids[m])) == len(distinct[k] & distinct[m]), (k, m)
    freq = np.bincount(ts.tokens, minlength=ts.vocab)
    assert freq.tolist() == sorted(freq.tolist()) and (freq > 0).all()
    want = sorted(Counter(s for d in distinct for s in d).values())
    assert freq.tolist() == want


@settings(max_examples=300, deadline=None)  # about half hold a lone surrogate
@given(documents)
def test_interning_is_exact_from_lists_and_spans(sets):
    """Lists of str are interned exactly whatever they hold; the same documents as UTF-8
    spans give the same tokens, and documents holding a lone surrogate (no UTF-8 form)
    are refused by flatten with the error that says so."""
    ts = TokenSets.from_shingles(sets)
    check_tokens(ts, sets)
    if any(0xD800 <= ord(c) <= 0xDFFF for d in sets for s in d for c in s):
        event("a lone surrogate: flatten refuses")
        with pytest.raises(ValueError, match="shingle_lists holds a lone surrogate code point"):
            flatten(sets)
    else:
        event("valid Unicode: spans equal lists")
        tf = TokenSets.from_shingles(flatten(sets))
        np.testing.assert_array_equal(tf.offsets, ts.offsets)
        np.testing.assert_array_equal(tf.tokens, ts.tokens)
        np.testing.assert_array_equal(tf.lengths, ts.lengths)
        assert tf.vocab == ts.vocab


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from([f"s{k}" for k in range(40)] + ["x" * 20, "é" * 9]),
                      max_size=30), min_size=1, max_size=25),
    st.integers(1, 3),
)
def test_partitioned_interning_gives_the_one_table_tokens(sets, workers):
    """Large inputs are interned in many small hash partitions on a few threads: the
    tokens are exactly those of one partition (same thread count), and exact."""
    flat = flatten(sets)

    def tokens(part_rows):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(_intern, "_PARALLEL_MIN_SHINGLES", 1)
            mp.setattr(_intern, "threads", lambda: workers)
            mp.setattr(_intern, "_PART_ROWS", part_rows)
            return TokenSets.from_shingles(flat)

    many, one = tokens(2), tokens(10**9)
    check_tokens(many, sets)
    np.testing.assert_array_equal(many.tokens, one.tokens)
    np.testing.assert_array_equal(many.offsets, one.offsets)


def test_hash_collision_fallback_gives_the_same_tokens():
    """If the compiled keys ever disagreed with the bytes, Python hashing takes over."""
    sets = [["a long shingle number one", "x"], ["a long shingle number two", "x"], ["x"]]
    want = TokenSets.from_shingles(sets)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_intern, "_verify_codes", lambda *args: False)
        got = TokenSets.from_shingles(sets)
    np.testing.assert_array_equal(got.tokens, want.tokens)
    np.testing.assert_array_equal(got.offsets, want.offsets)
    assert want.tokens.tolist() == [0, 2, 1, 2, 2]


def test_tokens_are_read_only_and_pass_through():
    ts = TokenSets.from_shingles([["a", "b"], ["b"]])
    for arr in (ts.offsets, ts.tokens, ts.lengths):
        with pytest.raises(ValueError, match="read-only"):
            arr[0] = 1
    assert TokenSets.from_shingles(ts) is ts and as_token_sets(ts) is ts
    assert len(ts) == 2 and ts != TokenSets.from_shingles([["a", "b"], ["b"]])
    assert ns.TokenSets is TokenSets


def test_verification_index_is_made_once_per_object():
    ts = TokenSets.from_shingles([["a", "b"], ["b", "c"], ["c"]])
    first = ts.verification()
    assert ts.verification() is first
    assert ts.verification(fbits=64, hbits=0) is not first


def test_no_module_level_cache():
    """Changing a buffer after a join changes the next join's answer: nothing is kept
    between calls (the old exact._LAST_FLAT is gone)."""
    assert not hasattr(exact_module, "_LAST_FLAT")
    texts = ["the cat sat on the mat", "the cat sat on a mat", "dogs bark"]
    flat = text_shingles(texts)
    buf = np.frombuffer(flat.buf.tobytes(), dtype=np.uint8)  # read-only, as the app's
    ro = FlatShingles(buf, flat.starts, flat.ends, flat.doc_offsets)
    assert len(ns.exact_pairs(ro, 0.4)) == 1
    wbuf = flat.buf.copy()
    rw = FlatShingles(wbuf, flat.starts, flat.ends, flat.doc_offsets)
    assert len(ns.exact_pairs(rw, 0.4)) == 1
    wbuf[:] = ord("z")  # every shingle of the same length is now the same
    assert len(ns.exact_pairs(rw, 0.4)) == 3


@pytest.mark.parametrize(
    ("change", "match"),
    [
        ({"ends": lambda f: f.ends + 100}, "span outside its buffer"),
        ({"doc_offsets": lambda f: np.array([0, 1, 7])}, "doc_offsets rising from 0"),
        ({"ends": lambda f: f.ends[:-1]}, "span starts but"),
        ({"buf": lambda f: np.array(["x"], dtype=object)}, "numeric arrays"),
    ],
)
def test_flat_shingles_with_bad_spans_are_refused(change, match):
    flat = flatten([["ab", "cd"], ["ab"]])
    parts = {"buf": flat.buf, "starts": flat.starts, "ends": flat.ends}
    parts["doc_offsets"] = flat.doc_offsets
    for key, fn in change.items():
        parts[key] = fn(flat)
    bad = FlatShingles(parts["buf"], parts["starts"], parts["ends"], parts["doc_offsets"])
    with pytest.raises(ValueError, match=f"sets=FlatShingles.*{match}"):
        TokenSets.from_shingles(bad)


def test_bad_shingles_name_the_document():
    with pytest.raises(TypeError, match=r"sets\[1\] holds 3 of type int"):
        TokenSets.from_shingles([["a"], ["b", 3]])
    with pytest.raises(ValueError, match=r"sets=None is not accepted"):
        TokenSets.from_shingles(None)


# -- escapes the garbage test (tests/test_garbage.py) found ------------------------------
@pytest.mark.parametrize(
    ("d", "match"),
    [
        (-1, r"d=-1 is not accepted; accepted: an integer from 0 to 2"),  # was: []
        (3, r"d=3 is not accepted"),  # was: IndexError inside
        (1.0, r"d=1.0 is not accepted"),  # was: IndexError
        (2**63, r"d=9223372036854775808 is not accepted"),  # was: OverflowError
        (None, r"d=None is not accepted"),  # was: TypeError from +
    ],
)
def test_document_takes_a_row_number(d, match):
    tokens = TokenSets.from_shingles([["a", "b"], ["b"], []])
    with pytest.raises(ValueError, match=match):
        tokens.document(d)
    assert tokens.document(np.int64(1)).tolist() == tokens.document(1).tolist()


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"hbits": 2**31}, r"hbits=2147483648 is not accepted; accepted: an integer from 0 to"),
        ({"hbits": 2**63}, r"hbits=9223372036854775808 is not accepted"),  # was: MemoryError
        ({"fbits": 0.5}, r"fbits=0.5 is not accepted"),  # was: numba TypingError
        ({"fbits": float("nan")}, r"fbits=nan is not accepted"),
    ],
)
def test_verification_bits_are_bounded(kwargs, match):
    tokens = TokenSets.from_shingles([["a", "b"], ["b"]])
    with pytest.raises(ValueError, match=match):
        tokens.verification(**kwargs)
