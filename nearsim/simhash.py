"""SimHash fingerprints: 64 real bits per document, and the Hamming distance between them.

Every shingle gets a 64-bit hash made of two independent 32-bit MurmurHash3 values (x86_32
over the shingle's UTF-8 bytes, with two different seeds drawn from
``numpy.random.default_rng(seed)``): the first is the high 32 bits, the second the low 32.
Bit b of a document's fingerprint is the sign of the vote of its distinct shingles: each
shingle adds +1 if its hash has bit b set and −1 if not. A positive sum gives 1; a negative
sum *or a tie* gives 0. A document with no shingles has the fingerprint 0. Repeated
shingles in a list count once (they are deduplicated by their 64-bit hash).

A job board's broken filter is why this module insists on 64 *real* bits: a ``h * 31 + c``
string hash spread over 64 positions with ``i % 31`` has only 31 distinct bits, many of
which never move on English text, so unrelated documents sit ~11 bits apart and a "within
12 bits" filter throws most of them away (:mod:`nearsim.explore.hash_health` reproduces that hash
and measures both). Search at small distances is in :mod:`nearsim.hamming`; SimHash scored
against exact Jaccard is in :func:`nearsim.hamming.distance_vs_jaccard`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numba
import numpy as np
import pandas as pd
from numba import njit, prange

from nearsim.hashing import FlatShingles, doc_shingle_spans, flatten, flatten_texts, murmur3_32
from nearsim.utils.arrays import popcount64
from nearsim.utils.validation import check_int
from nearsim.utils.validation_arrays import (
    check_fingerprint,
    check_fingerprints,
    check_shingle_list,
)

BITS = 64
"""Bits in a fingerprint."""

PARALLEL_MIN_PAIRS = 4_000_000
"""Below this many pairs the all-pairs kernels run on one thread (prange costs more)."""
_PARALLEL_MIN_SHINGLES = 200_000


def thread_chunks(n: int) -> int:
    """Pieces of work for a prange loop over n items: a few per thread, at most one per item."""
    return max(1, min(n, 4 * numba.get_num_threads()))


# =========================================================================== kernels
@njit(cache=True, inline="always")
def bit_distance(a, b):
    return np.int64(popcount64(np.uint64(a ^ b)))


_LANES = np.uint64(0x0101010101010101)


@njit(cache=True)
def _flush(acc, ones):
    """Add the eight byte-lane counters into ``ones`` and clear them."""
    for j in range(8):
        a = acc[j]
        for k in range(8):
            ones[8 * k + j] += np.int64((a >> np.uint64(8 * k)) & np.uint64(0xFF))
        acc[j] = np.uint64(0)


@njit(cache=True)
def _vote(hashes, m, table, used):
    """Fingerprint from the 64-bit hashes ``hashes[:m]``; repeated values count once.

    Repeats are dropped with an open-addressing set in the scratch arrays ``table`` and
    ``used`` (length >= 2m; the hashes are uniform, so their low bits index it). Votes are
    counted eight bits at a time: counter j holds, in byte k, how many hashes have bit
    8k + j set; the bytes are flushed into 64 int64 counts every 255 hashes, before they
    can overflow.
    """
    if m == 0:
        return np.uint64(0)
    size = 16
    while size < 2 * m:
        size *= 2
    used[:size] = False
    acc = np.zeros(8, dtype=np.uint64)
    ones = np.zeros(64, dtype=np.int64)
    distinct = 0
    pending = 0
    for q in range(m):
        x = hashes[q]
        slot = np.int64(x & np.uint64(size - 1))
        seen = False
        while used[slot]:
            if table[slot] == x:
                seen = True
                break
            slot = (slot + 1) & (size - 1)
        if seen:
            continue
        used[slot] = True
        table[slot] = x
        distinct += 1
        for j in range(8):
            acc[j] += (x >> np.uint64(j)) & _LANES
        pending += 1
        if pending == 255:
            _flush(acc, ones)
            pending = 0
    _flush(acc, ones)
    fp = np.uint64(0)
    for b in range(64):
        if 2 * ones[b] > distinct:  # sum of ±1 votes > 0; a tie gives 0
            fp |= np.uint64(1) << np.uint64(b)
    return fp


@njit(cache=True, inline="always")
def _hash64(buf, start, end, s_hi, s_lo):
    hi = np.uint64(murmur3_32(buf, start, end, s_hi))
    lo = np.uint64(murmur3_32(buf, start, end, s_lo))
    return (hi << np.uint64(32)) | lo


@njit(cache=True)
def _fp_range(buf, starts, ends, doc_offsets, d0, d1, s_hi, s_lo, out):
    """Fingerprints of documents d0 .. d1 − 1 from their shingle spans."""
    m_max = 0
    for d in range(d0, d1):
        m_max = max(m_max, doc_offsets[d + 1] - doc_offsets[d])
    size = 16
    while size < 2 * m_max:
        size *= 2
    hashes = np.empty(m_max, dtype=np.uint64)
    table = np.empty(size, dtype=np.uint64)
    used = np.empty(size, dtype=np.bool_)
    for d in range(d0, d1):
        lo = doc_offsets[d]
        m = doc_offsets[d + 1] - lo
        for s in range(m):
            hashes[s] = _hash64(buf, starts[lo + s], ends[lo + s], s_hi, s_lo)
        out[d] = _vote(hashes, m, table, used)


@njit(cache=True)
def _fingerprints_serial(buf, starts, ends, doc_offsets, s_hi, s_lo, out):
    _fp_range(buf, starts, ends, doc_offsets, 0, doc_offsets.shape[0] - 1, s_hi, s_lo, out)


@njit(cache=True, parallel=True)
def _fingerprints_parallel(buf, starts, ends, doc_offsets, s_hi, s_lo, out, chunks):
    n = doc_offsets.shape[0] - 1
    for c in prange(chunks):
        _fp_range(
            buf, starts, ends, doc_offsets, c * n // chunks, (c + 1) * n // chunks, s_hi, s_lo, out
        )


@njit(cache=True)
def _fp_text_range(buf, doc_offsets, whole, word, k_sh, d0, d1, s_hi, s_lo, out):
    """Fingerprints of documents d0 .. d1 − 1 cut from laid-out text."""
    len_max = 0
    for d in range(d0, d1):
        len_max = max(len_max, doc_offsets[d + 1] - doc_offsets[d])
    size = 16
    while size < 2 * (len_max + 1):
        size *= 2
    ring = np.empty(k_sh, dtype=np.int64)
    st = np.empty(len_max + 1, dtype=np.int64)
    en = np.empty(len_max + 1, dtype=np.int64)
    hashes = np.empty(len_max + 1, dtype=np.uint64)
    table = np.empty(size, dtype=np.uint64)
    used = np.empty(size, dtype=np.bool_)
    for d in range(d0, d1):
        lo = doc_offsets[d]
        hi = doc_offsets[d + 1]
        cnt = doc_shingle_spans(buf, lo, hi, word, whole[d], k_sh, ring, st, en)
        for s in range(cnt):
            hashes[s] = _hash64(buf, st[s], en[s], s_hi, s_lo)
        out[d] = _vote(hashes, cnt, table, used)


@njit(cache=True, parallel=True)
def _fingerprints_text(buf, doc_offsets, whole, word, k_sh, s_hi, s_lo, out, chunks):
    n = doc_offsets.shape[0] - 1
    for c in prange(chunks):
        d0 = c * n // chunks
        d1 = (c + 1) * n // chunks
        _fp_text_range(buf, doc_offsets, whole, word, k_sh, d0, d1, s_hi, s_lo, out)


# --------------------------------------------------------------------------- distances
@njit(cache=True)
def pair_distances(fp, left, right):
    """Distances of the pairs (left[t], right[t]) of fingerprints ``fp``."""
    out = np.empty(left.shape[0], dtype=np.int64)
    for t in range(left.shape[0]):
        out[t] = bit_distance(fp[left[t]], fp[right[t]])
    return out


@njit(cache=True)
def popcount_array(x):
    """Set bits of each value of a 1-D uint64 array."""
    out = np.empty(x.shape[0], dtype=np.int64)
    for t in range(x.shape[0]):
        out[t] = np.int64(popcount64(x[t]))
    return out


# =========================================================================== fingerprints
def _draw_seeds(seed: int) -> tuple[np.uint32, np.uint32]:
    rng = np.random.default_rng(seed)
    while True:
        a, b = rng.integers(0, 1 << 32, size=2, dtype=np.uint64)
        if a != b:
            return np.uint32(a), np.uint32(b)


class SimHasher:
    """64-bit SimHash of shingle sets, from two independent 32-bit MurmurHash3 hashes.

    Parameters
    ----------
    seed : int
        Seed (>= 0) of ``numpy.random.default_rng``, which draws the two different
        MurmurHash3 seeds (``hash_seeds``).

    Attributes
    ----------
    hash_seeds : tuple of int
        ``(high, low)``: MurmurHash3 seeds of the high and low 32 bits of each shingle's
        64-bit hash. Always different.

    Notes
    -----
    Bit b of a fingerprint is 1 when more of the document's distinct shingles have bit b
    set in their 64-bit hash than not (a majority vote of ±1); a tie gives 0. A document
    with no shingles gets the fingerprint 0 — which is also within a few bits of any other
    document whose votes lean to 0, so leave such documents out of pair searches (the
    ``valid`` arguments of :func:`nearsim.hamming.hamming_pairs` and
    :func:`nearsim.scoring.compare_table`).

    Examples
    --------
    >>> sh = SimHasher(seed=1)
    >>> fps = sh.fingerprints([["abcde", "bcdef"], []])
    >>> fps.dtype, int(fps[1])
    (dtype('uint64'), 0)
    """

    def __init__(self, seed: int = 1):
        self.seed = check_int(seed, "seed", low=0)
        self._s_hi, self._s_lo = _draw_seeds(self.seed)
        self.hash_seeds = (int(self._s_hi), int(self._s_lo))

    def __repr__(self) -> str:
        return f"SimHasher(seed={self.seed})"

    def shingle_hashes(self, shingles: Sequence[str]) -> np.ndarray:
        """The 64-bit hash of each shingle that votes on the fingerprint.

        ``(mmh3(s, high) << 32) | mmh3(s, low)`` with ``(high, low) = hash_seeds``, where
        ``mmh3(s, seed) = mmh3.hash(s.encode("utf-8"), seed, signed=False)``.

        Parameters
        ----------
        shingles : sequence of str, length m

        Returns
        -------
        ndarray of uint64, shape (m,)
        """
        flat = flatten([check_shingle_list(shingles)], "shingles")
        hi = flat.hashes(int(self._s_hi)).astype(np.uint64)
        lo = flat.hashes(int(self._s_lo)).astype(np.uint64)
        return (hi << np.uint64(32)) | lo

    def fingerprint(self, shingles: Sequence[str]) -> int:
        """Fingerprint of one document, as a Python int (0 to 2**64 − 1)."""
        return int(self.fingerprints([check_shingle_list(shingles)])[0])

    def fingerprints(self, shingle_lists: Iterable[Sequence[str]]) -> np.ndarray:
        """Fingerprints of many documents from their shingle lists.

        Computed in one compiled pass over all shingles' UTF-8 bytes (no Python work per
        shingle).

        Parameters
        ----------
        shingle_lists : iterable of sequences of str, length n
            Each document's shingles (``nearsim.shingles(text)``), or the
            ``FlatShingles`` that ``nearsim.hashing.text_shingles`` cuts from raw texts.

        Returns
        -------
        ndarray of uint64, shape (n,)
            0 for a document with no shingles.
        """
        flat = shingle_lists if isinstance(shingle_lists, FlatShingles) else flatten(shingle_lists)
        out = np.empty(flat.n_docs, dtype=np.uint64)
        args = (flat.buf, flat.starts, flat.ends, flat.doc_offsets, self._s_hi, self._s_lo, out)
        if flat.starts.shape[0] >= _PARALLEL_MIN_SHINGLES:
            _fingerprints_parallel(*args, thread_chunks(out.shape[0]))
        else:
            _fingerprints_serial(*args)
        return out

    def text_fingerprints(
        self,
        texts: Iterable[str],
        *,
        kind: str = "char",
        k: int = 5,
        lowercase: bool = True,
        remove_punctuation: bool = False,
        collapse_whitespace: bool = True,
    ) -> np.ndarray:
        """Fingerprints straight from raw texts, without a Python object per shingle.

        Equal to ``fingerprints([shingles(t, ...) for t in texts])``.

        Parameters
        ----------
        texts : iterable of str, length n
        kind, k, lowercase, remove_punctuation, collapse_whitespace
            Shingling options, as in :func:`nearsim.shingles`.

        Returns
        -------
        ndarray of uint64, shape (n,)
        """
        flat = flatten_texts(
            texts,
            kind=kind,
            k=k,
            lowercase=lowercase,
            remove_punctuation=remove_punctuation,
            collapse_whitespace=collapse_whitespace,
        )
        out = np.empty(flat.doc_offsets.shape[0] - 1, dtype=np.uint64)
        args = (flat.buf, flat.doc_offsets, flat.whole, flat.kind == "word", flat.k)
        seeds = (self._s_hi, self._s_lo, out)
        if flat.buf.shape[0] >= _PARALLEL_MIN_SHINGLES:
            _fingerprints_text(*args, *seeds, thread_chunks(out.shape[0]))
        else:
            _fp_text_range(*args, 0, out.shape[0], *seeds)
        return out


def as_fingerprints(fingerprints, name: str = "fingerprints") -> np.ndarray:
    """Validate fingerprints and return them as a 1-D uint64 array.

    Accepted: a 1-D array (or Series, or sequence) of unsigned integers of any width,
    converted to uint64 (a uint64 array is returned as it is); signed integers when none is
    negative; a list of Python ints from 0 to 2**64 − 1. 64-bit fingerprints stored as int64
    (databases, Parquet) can have negative values: pass ``values.view(np.uint64)`` to
    reinterpret their bits.

    Parameters
    ----------
    fingerprints : array_like of int, shape (n,)
    name : str
        Name used in error messages.

    Returns
    -------
    ndarray of uint64, shape (n,)

    Examples
    --------
    >>> as_fingerprints([0, 2**64 - 1]).tolist()
    [0, 18446744073709551615]
    """
    return check_fingerprints(fingerprints, name)


def _as_u64(x, name: str) -> np.ndarray:
    """A scalar or array (any shape) of fingerprints as a uint64 array (0-d for a scalar)."""
    if np.ndim(x) == 0:
        return np.array(check_fingerprint(x, name), dtype=np.uint64)
    if isinstance(x, np.ndarray | pd.Series):
        arr = np.asarray(x)
        return check_fingerprints(arr.reshape(-1), name).reshape(arr.shape)
    obj = np.asarray(x, dtype=object)
    return check_fingerprints(list(obj.reshape(-1)), name).reshape(obj.shape)


def popcount(values) -> np.ndarray:
    """Number of set bits of each value.

    Parameters
    ----------
    values : int or array_like of unsigned int, any shape
        Integers from 0 to 2**64 − 1.

    Returns
    -------
    ndarray of int64, same shape as ``values``

    Examples
    --------
    >>> popcount([0, 7, 2**64 - 1]).tolist()
    [0, 3, 64]
    """
    arr = _as_u64(values, "values")
    return popcount_array(np.ascontiguousarray(arr).reshape(-1)).reshape(arr.shape)


def hamming_distance(a, b):
    """Hamming distance between 64-bit fingerprints.

    Parameters
    ----------
    a, b : int or array_like of uint64
        Fingerprints (Python ints 0 to 2**64 − 1, or arrays that broadcast together).

    Returns
    -------
    int or ndarray of int64
        Number of differing bits (0 to 64); a Python int when both are scalars.
    """
    x = _as_u64(a, "a")
    y = _as_u64(b, "b")
    try:
        z = np.bitwise_xor(x, y)
    except ValueError:
        raise ValueError(
            f"a and b with shapes {x.shape} and {y.shape} are not accepted; accepted: "
            "fingerprints whose shapes broadcast together"
        ) from None
    out = popcount_array(np.ascontiguousarray(z).reshape(-1)).reshape(z.shape)
    return int(out) if out.ndim == 0 else out
