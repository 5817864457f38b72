"""The shared shingle walk (nearsim.shingle_walk) against the shingle lists, value by
value, for both sketches: ASCII runs broken by characters of 2 to 4 bytes at every place."""

import mmh3
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from superminhash_reference import value

from nearsim.hashing import flatten_texts
from nearsim.shingle_walk import shingle_values


def _walk(texts, kind, k, sketch_values):
    flat = flatten_texts(texts, kind=kind, k=k)
    out = []
    for d in range(len(texts)):
        lo, hi = int(flat.doc_offsets[d]), int(flat.doc_offsets[d + 1])
        xs = np.zeros(hi - lo + 1, dtype=np.uint64 if sketch_values else np.uint32)
        n = shingle_values(flat.buf, lo, hi, kind == "word", flat.whole[d], k, xs, sketch_values)
        out.append(xs[:n].tolist())
    return out


def _expected(texts, kind, k, sketch_values):
    # every shingle in order, repeats included: ns.shingles keeps the distinct ones
    out = []
    for text in texts:
        shingles = _all_shingles(text, kind, k)
        out.append([value(s) if sketch_values else mmh3.hash(s.encode(), 0, signed=False)
                    for s in shingles])  # fmt: skip
    return out


def _all_shingles(text, kind, k):
    from nearsim.shingling import normalize

    text = normalize(text)
    if kind == "word":
        words = text.split()
        return [" ".join(words[i : i + k]) for i in range(len(words) - k + 1)] if len(words) >= k \
            else ([text] if text else [])  # fmt: skip
    if not text:
        return []
    if len(text) < k:
        return [text]
    return [text[i : i + k] for i in range(len(text) - k + 1)]


_PIECES = ["abcdefghijklmnop", "xy", " ", "é", "€", "😀", "Ω", "q"]


@pytest.mark.parametrize("sketch_values", [False, True])
@pytest.mark.parametrize("k", [1, 2, 3, 5, 7, 8, 9])
def test_runs_broken_at_every_place(k, sketch_values):
    texts = [
        "abcdefghijklmnopqrstuvwxyz"[:place] + wide + "abcdefghijklmnopqrstuvwxyz"[place:] + tail
        for wide in ("é", "€", "😀", "éé", "é€😀")
        for place in range(0, 20)
        for tail in ("", "Ω", " the end")
    ] + ["", "a", "é", "abcdefg", "é" * 9, "ab é", "😀" * 3]
    assert _walk(texts, "char", k, sketch_values) == _expected(texts, "char", k, sketch_values)


@given(st.lists(st.lists(st.sampled_from(_PIECES), max_size=12).map("".join), max_size=6),
       st.integers(1, 9), st.booleans(), st.booleans())  # fmt: skip
def test_walk_equals_every_shingle(texts, k, word, sketch_values):
    kind = "word" if word else "char"
    assert _walk(texts, kind, k, sketch_values) == _expected(texts, kind, k, sketch_values)
