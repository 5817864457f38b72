"""Shingles: normalisation order, char and word k-grams, edge cases."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import nearsim as ns
from nearsim.shingling import normalize


def test_char_shingles_distinct_in_first_appearance_order():
    assert ns.shingles("abcabc", k=3) == ["abc", "bca", "cab"]


def test_default_normalisation_lowercases_and_collapses():
    assert ns.shingles("  Hello \t\n World ", k=20) == ["hello world"]


def test_punctuation_removal_uses_unicode_categories():
    assert normalize("Don't stop!", remove_punctuation=True) == "dont stop"
    # «», ¿, 「」 and the Arabic comma are all category P*
    assert normalize("«¿Qué?» 「引用」،", remove_punctuation=True) == "qué 引用"


def test_order_lowercase_then_punctuation_then_whitespace():
    # removing the dash leaves two spaces, which collapsing then merges
    assert normalize("A - B", remove_punctuation=True) == "a b"
    assert normalize("A - B", remove_punctuation=True, collapse_whitespace=False) == "a  b"


def test_text_shorter_than_k_is_one_shingle():
    assert ns.shingles("abc", k=5) == ["abc"]
    assert ns.shingles("one two", kind="word", k=3) == ["one two"]


@pytest.mark.parametrize("text", ["", "   ", "\n\t", "!!!"])
def test_empty_after_normalisation_gives_nothing(text):
    assert ns.shingles(text, remove_punctuation=True) == []


def test_whitespace_only_kept_when_not_collapsing():
    assert ns.shingles("   ", k=2, collapse_whitespace=False) == ["  "]


def test_word_shingles_join_with_one_space():
    text = "To be,  or not\tto be"
    expected = ["to be,", "be, or", "or not", "not to", "to be"]
    assert ns.shingles(text, kind="word", k=2) == expected
    assert ns.shingles(text, kind="word", k=2, collapse_whitespace=False) == expected


def test_case_kept_when_asked():
    assert ns.shingles("AbC", k=2, lowercase=False) == ["Ab", "bC"]


def test_final_sigma_lowercases_per_python():
    assert ns.shingles("ΟΔΟΣ", k=10) == ["οδος"]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"kind": "line"}, "kind='line'.*'char', 'word'"),
        ({"kind": np.array([])}, "kind=array.*accepted: one of 'char', 'word'"),
        ({"k": 0}, "k=0.*from 1 to 1,000"),
        ({"k": -3}, "k=-3"),
        ({"k": 2.5}, "k=2.5"),
        ({"k": True}, "k=True"),
        ({"lowercase": "false"}, "lowercase='false'.*True or False"),
        ({"remove_punctuation": float("nan")}, "remove_punctuation=nan"),
        ({"collapse_whitespace": 1}, "collapse_whitespace=1"),
    ],
)
def test_bad_options(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ns.shingles("text", **kwargs)


def test_non_text_rejected():
    with pytest.raises(ValueError, match="text=bytes is not accepted; accepted: a str"):
        ns.shingles(b"bytes")


@given(st.text(max_size=60), st.integers(1, 8), st.sampled_from(["char", "word"]))
def test_properties(text, k, kind):
    sh = ns.shingles(text, kind=kind, k=k)
    norm = normalize(text)
    assert len(sh) == len(set(sh))
    if not norm:
        assert sh == []
        return
    units = norm if kind == "char" else norm.split()
    if len(units) <= k:
        assert sh == [norm]
        return
    for s in sh:
        assert s in norm
        assert len(s if kind == "char" else s.split(" ")) == k
    # first appearance order: each shingle's first occurrence is after the previous one's
    firsts = [norm.find(s) for s in sh] if kind == "char" else None
    if firsts is not None:
        assert firsts == sorted(firsts)


def test_punctuation_table_covers_every_punctuation_code_point():
    """The table searches the first two planes only; no code point above them may be
    punctuation in this Python's Unicode database (else it would be kept)."""
    import sys
    import unicodedata

    from nearsim.shingling import PUNCTUATION_PLANES, _punctuation_table

    table = _punctuation_table()
    above = [cp for cp in range(PUNCTUATION_PLANES, sys.maxunicode + 1)
             if unicodedata.category(chr(cp)).startswith("P")]  # fmt: skip
    assert above == []
    assert len(table) == sum(
        unicodedata.category(chr(cp)).startswith("P") for cp in range(sys.maxunicode + 1)
    )
    assert 0x1E95F in table and ord("!") in table and ord("a") not in table
