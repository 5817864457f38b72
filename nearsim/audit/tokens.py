"""Documents as sets of 64-bit shingle hashes.

The audit compares documents of its samples exactly (:mod:`nearsim.audit.measure`,
:mod:`nearsim.audit.pairs`). Each document becomes the sorted set of the 64-bit hashes of
its shingles, cut from the same normalised text as the run's shingles; two documents'
exact Jaccard is then the overlap of two sorted arrays.

The hash (:func:`shingle_hash`): a shingle of at most 7 bytes is read as one 64-bit number
(its bytes and, in the top byte, its length) and mixed by MurmurHash3's 64-bit finaliser, a
bijection: two distinct shingles of up to 7 bytes (character 5-grams of ASCII text, many
5-grams of accented Latin) never share a hash. Longer shingles fold 8 bytes at a time into
the state, each through the same finaliser; two of them share a hash with probability
about 2⁻⁶⁴, so over a corpus of 10⁸ distinct long shingles the chance that any two
collide is about 3·10⁻⁴, and a collision moves one overlap by one.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from nearsim.copies import _fmix64
from nearsim.hashing import FlatTexts, doc_shingle_spans
from nearsim.utils.arrays import pack_segments

__all__ = ["flat_tokens", "shingle_hash"]

_MULT = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True, inline="always")
def shingle_hash(buf, start, end):
    """The 64-bit hash of ``buf[start:end]`` (see the module text); never 0."""
    n = end - start
    if n <= 7:  # the bytes and the length in one number, through a bijection
        word = np.uint64(n) << np.uint64(56)
        for q in range(n):
            word |= np.uint64(buf[start + q]) << np.uint64(8 * q)
        h = _fmix64(word)
    else:
        h = np.uint64(n) * _MULT
        for p in range(start, end, 8):
            word = np.uint64(0)
            for q in range(p, min(p + 8, end)):
                word |= np.uint64(buf[q]) << np.uint64(8 * (q - p))
            h = _fmix64(h ^ word) * _MULT
        h = _fmix64(h)
    return h if h != 0 else np.uint64(1)


@njit(cache=True, parallel=True)
def _tokens(buf, doc_offsets, whole, word, k, docs, starts, out, sizes):
    """The distinct shingle hashes, sorted, of each document ``docs[i]``, written from
    ``starts[i]`` in ``out`` (a document has at most as many shingles as bytes, plus one)."""
    for i in prange(docs.shape[0]):
        d = docs[i]
        lo = doc_offsets[d]
        hi = doc_offsets[d + 1]
        ring = np.empty(k, dtype=np.int64)
        st = np.empty(hi - lo + 1, dtype=np.int64)
        en = np.empty(hi - lo + 1, dtype=np.int64)
        count = doc_shingle_spans(buf, lo, hi, word, whole[d], k, ring, st, en)
        h = np.empty(count, dtype=np.uint64)
        for s in range(count):
            h[s] = shingle_hash(buf, st[s], en[s])
        h.sort()
        w = starts[i]
        for s in range(count):
            if s == 0 or h[s] != h[s - 1]:
                out[w] = h[s]
                w += 1
        sizes[i] = w - starts[i]


def flat_tokens(flat: FlatTexts, docs: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Every document's distinct shingle hashes, sorted (or those of ``docs`` only).

    Parameters
    ----------
    flat : FlatTexts
        The documents laid out by :func:`nearsim.hashing.flatten_texts` with the run's
        shingle options.
    docs : ndarray of int64, shape (m,), optional
        The documents wanted (positions in ``flat``); default: all of them.

    Returns
    -------
    tokens : ndarray of uint64, shape (t,)
        The i-th wanted document's hashes are ``tokens[offsets[i]:offsets[i + 1]]``,
        ascending, distinct, never 0.
    offsets : ndarray of int64, shape (m + 1,)
    """
    n = flat.doc_offsets.shape[0] - 1
    docs = np.arange(n, dtype=np.int64) if docs is None else np.asarray(docs, dtype=np.int64)
    m = docs.shape[0]
    starts = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(flat.doc_offsets[docs + 1] - flat.doc_offsets[docs] + 1, out=starts[1:])
    room = np.empty(int(starts[-1]), dtype=np.uint64)
    sizes = np.empty(m, dtype=np.int64)
    _tokens(flat.buf, flat.doc_offsets, flat.whole, flat.kind == "word", flat.k, docs, starts,
            room, sizes)  # fmt: skip
    offsets = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    return pack_segments(room, starts[:-1], offsets), offsets
