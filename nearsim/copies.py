"""Exact copies: documents whose text is the same after the shingling's normalisation.

Real corpora hold many: cookie notices, error pages, licence files and empty templates
copied thousands of times (NeMo Curator reports about 40% of the duplicates in web data
as exact). Two such documents have the same shingles, hence Jaccard 1 and equal
signatures, and they land in the same bucket of every band. ``nearsim dedup`` therefore
groups them before banding: each later copy is linked to its first occurrence, and only
that first occurrence enters banding.

The key of a document is MurmurHash3 x64_128 (seed 0) of its normalised text: the UTF-8
bytes the shingles are cut from (lower-cased, punctuation removed, white space collapsed
as the settings say; for word shingles, the words joined by single spaces). Equal keys mean
equal normalised texts up to a 128-bit hash collision (for 10⁹ distinct documents, a
chance of about 10⁻²¹). It is computed from the laid-out texts the signature kernel reads,
so it costs one pass over the bytes and no extra normalisation.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from numba import njit, prange

from nearsim.hashing import FlatTexts, flatten_texts
from nearsim.utils.arrays import HIGH32, LOW32, load_le64, run_end
from nearsim.utils.validation import ArgumentTypeError
from nearsim.utils.validation_arrays import check_mask

_C1 = np.uint64(0x87C37B91114253D5)
_C2 = np.uint64(0x4CF5AD432745937F)


@njit(cache=True, inline="always")
def _rotl64(x, r):
    return (x << np.uint64(r)) | (x >> np.uint64(64 - r))


@njit(cache=True, inline="always")
def _fmix64(k):
    k ^= k >> np.uint64(33)
    k *= np.uint64(0xFF51AFD7ED558CCD)
    k ^= k >> np.uint64(33)
    k *= np.uint64(0xC4CEB9FE1A85EC53)
    k ^= k >> np.uint64(33)
    return k


@njit(cache=True)
def murmur3_x64_128(buf, start, end, seed):
    """MurmurHash3 x64_128 of ``buf[start:end]`` (uint8 array): ``(h1, h2)`` as uint64.

    Equals ``mmh3.hash_bytes(data, seed, x64arch=True)`` read as two little-endian uint64.
    """
    h1 = np.uint64(seed)
    h2 = np.uint64(seed)
    n = end - start
    nblocks = n // 16
    for blk in range(nblocks):
        p = start + 16 * blk
        k1 = load_le64(buf, p)
        k2 = load_le64(buf, p + 8)
        k1 *= _C1
        k1 = _rotl64(k1, 31)
        k1 *= _C2
        h1 ^= k1
        h1 = _rotl64(h1, 27)
        h1 += h2
        h1 = h1 * np.uint64(5) + np.uint64(0x52DCE729)
        k2 *= _C2
        k2 = _rotl64(k2, 33)
        k2 *= _C1
        h2 ^= k2
        h2 = _rotl64(h2, 31)
        h2 += h1
        h2 = h2 * np.uint64(5) + np.uint64(0x38495AB5)
    tail = start + 16 * nblocks
    rem = n & 15
    k1 = np.uint64(0)
    k2 = np.uint64(0)
    for q in range(rem - 1, 7, -1):  # bytes 8..14 of the tail go to k2
        k2 ^= np.uint64(buf[tail + q]) << np.uint64(8 * (q - 8))
    if rem > 8:
        k2 *= _C2
        k2 = _rotl64(k2, 33)
        k2 *= _C1
        h2 ^= k2
    for q in range(min(rem, 8) - 1, -1, -1):  # bytes 0..7 go to k1
        k1 ^= np.uint64(buf[tail + q]) << np.uint64(8 * q)
    if rem > 0:
        k1 *= _C1
        k1 = _rotl64(k1, 31)
        k1 *= _C2
        h1 ^= k1
    h1 ^= np.uint64(n)
    h2 ^= np.uint64(n)
    h1 += h2
    h2 += h1
    h1 = _fmix64(h1)
    h2 = _fmix64(h2)
    h1 += h2
    h2 += h1
    return h1, h2


@njit(cache=True, parallel=True)
def _keys(buf, doc_offsets, out):
    for d in prange(doc_offsets.shape[0] - 1):
        h1, h2 = murmur3_x64_128(buf, doc_offsets[d], doc_offsets[d + 1], 0)
        out[d, 0] = h1
        out[d, 1] = h2


def flat_text_keys(flat: FlatTexts) -> np.ndarray:
    """The copy key of every document laid out by :func:`nearsim.hashing.flatten_texts`.

    Parameters
    ----------
    flat : FlatTexts

    Returns
    -------
    ndarray of uint64, shape (n, 2)
    """
    out = np.empty((flat.doc_offsets.shape[0] - 1, 2), dtype=np.uint64)
    _keys(flat.buf, flat.doc_offsets, out)
    return out


def copy_keys(
    texts: Iterable[str],
    *,
    kind: str = "char",
    k: int = 5,
    lowercase: bool = True,
    remove_punctuation: bool = False,
    collapse_whitespace: bool = True,
) -> np.ndarray:
    """A 128-bit key of each document's normalised text: equal keys, equal shingles.

    Parameters
    ----------
    texts : iterable of str, length n
        Raw documents.
    kind, k, lowercase, remove_punctuation, collapse_whitespace
        The shingling options, as in :func:`nearsim.shingles`: they decide the
        normalisation, hence which texts count as copies.

    Returns
    -------
    ndarray of uint64, shape (n, 2)
        MurmurHash3 x64_128 of each normalised text (for word shingles, its words joined
        by single spaces).

    Examples
    --------
    >>> keys = copy_keys(["Cookie  notice", "cookie notice", "Cookie notices"])
    >>> bool((keys[0] == keys[1]).all()), bool((keys[0] == keys[2]).all())
    (True, False)
    """
    return flat_text_keys(
        flatten_texts(
            texts,
            kind=kind,
            k=k,
            lowercase=lowercase,
            remove_punctuation=remove_punctuation,
            collapse_whitespace=collapse_whitespace,
        )
    )


def copy_pairs(keys: np.ndarray, valid: np.ndarray | None = None) -> np.ndarray:
    """Each later copy with its first occurrence: pairs (first, copy) of equal keys.

    Parameters
    ----------
    keys : ndarray of uint64, shape (n, 2)
        :func:`copy_keys`.
    valid : ndarray of bool, shape (n,), optional
        Documents that may be paired (enough shingles for a signature); the others are
        never a copy nor a first occurrence.

    Returns
    -------
    ndarray of int64, shape (c, 2)
        One row per document that has an earlier valid document with the same key:
        (smallest such row, the document), sorted by (first, copy). ``c`` is the number of
        exact copies; a group of m identical documents gives m − 1 rows, not m(m − 1)/2.

    Examples
    --------
    >>> keys = copy_keys(["a b c d e", "x y z w v", "A b c d e", "a  b c d e"])
    >>> copy_pairs(keys).tolist()
    [[0, 2], [0, 3]]
    """
    if not isinstance(keys, np.ndarray) or keys.dtype != np.uint64:
        raise ArgumentTypeError(
            f"keys={type(keys).__name__} is not accepted; accepted: a uint64 array of shape "
            "(n, 2) from copy_keys"
        )
    if keys.ndim != 2 or keys.shape[1] != 2:
        raise ValueError(
            f"keys has shape {keys.shape}, which is not accepted; accepted: shape (n, 2) "
            "from copy_keys"
        )
    n = keys.shape[0]
    if valid is None:
        rows = np.arange(n, dtype=np.int64)
    else:
        rows = np.flatnonzero(check_mask(valid, n, "valid")).astype(np.int64)
    if rows.shape[0] < 2:
        return np.empty((0, 2), dtype=np.int64)
    if rows.shape[0] >= 1 << 32:
        raise ValueError(
            f"keys has {rows.shape[0]:,} rows, which is not accepted; accepted: fewer than "
            "2**32 per call"
        )
    # The top 32 bits of each key and the row's position, packed into one integer and
    # sorted in place: runs of equal top bits hold every group of equal keys, in row order
    # (a plain sort, 8 bytes a document: 0.2 s and 80 MB at 10 million documents).
    packed = np.empty(rows.shape[0], dtype=np.uint64)
    _pack(keys, rows, packed)
    packed.sort()
    links = np.empty((_link_count(keys, rows, packed), 2), dtype=np.int64)
    _links(keys, rows, packed, links)
    return links[np.lexsort((links[:, 1], links[:, 0]))] if links.shape[0] else links


@njit(cache=True, parallel=True)
def _pack(keys, rows, out):
    for t in prange(rows.shape[0]):
        out[t] = (keys[rows[t], 0] & HIGH32) | np.uint64(t)


@njit(cache=True)
def _run_groups(keys, rows, packed, s, e, first_of):
    """For the run ``packed[s:e]`` (equal top bits, rows ascending): each member's first
    occurrence — the smallest row with the same whole key — in ``first_of[0:e - s]``."""
    cnt = e - s
    members = np.empty(cnt, np.int64)
    for x in range(cnt):
        members[x] = rows[np.int64(packed[s + x] & LOW32)]
    same = True
    for x in range(1, cnt):
        if keys[members[x], 0] != keys[members[0], 0] or keys[members[x], 1] != keys[members[0], 1]:
            same = False
            break
    if same:  # the usual case: one text copied cnt times
        for x in range(cnt):
            first_of[x] = members[0]
        return members
    # Keys that share 32 bits: sorted by their first half (stably: rows still ascend within
    # equal keys); within equal first halves, second halves compared one to the earlier ones
    # (unequal ones there: about one pair in 2**64).
    k0 = np.empty(cnt, np.uint64)
    for x in range(cnt):
        k0[x] = keys[members[x], 0]
    by_k0 = np.argsort(k0, kind="mergesort")
    a = 0
    while a < cnt:
        b = a + 1
        while b < cnt and k0[by_k0[b]] == k0[by_k0[a]]:
            b += 1
        for x in range(a, b):
            mx = members[by_k0[x]]
            first_of[by_k0[x]] = mx
            for y in range(a, x):
                my = members[by_k0[y]]
                if keys[my, 1] == keys[mx, 1]:
                    first_of[by_k0[x]] = first_of[by_k0[y]]
                    break
        a = b
    return members


@njit(cache=True)
def _link_count(keys, rows, packed):
    m = packed.shape[0]
    first_of = np.empty(m, np.int64)
    total = 0
    s = 0
    while s < m:
        e = run_end(packed, s)
        if e - s >= 2:
            members = _run_groups(keys, rows, packed, s, e, first_of)
            for x in range(e - s):
                total += first_of[x] != members[x]
        s = e
    return total


@njit(cache=True)
def _links(keys, rows, packed, out):
    m = packed.shape[0]
    first_of = np.empty(m, np.int64)
    pos = 0
    s = 0
    while s < m:
        e = run_end(packed, s)
        if e - s >= 2:
            members = _run_groups(keys, rows, packed, s, e, first_of)
            for x in range(e - s):
                if first_of[x] != members[x]:
                    out[pos, 0] = first_of[x]
                    out[pos, 1] = members[x]
                    pos += 1
        s = e
