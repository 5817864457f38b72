"""Shingles as UTF-8 bytes, hashed with MurmurHash3 in compiled code.

Private helpers shared by MinHash and SimHash. The trick that keeps the Python cost low
is to never touch shingles one by one in Python: all shingles of all documents are
joined into one ``str``, encoded once, and cut back into shingles by offsets computed
from ``map(len, ...)`` (C speed). The compiled kernels then read the bytes directly.

``murmur3_32`` is MurmurHash3 x86_32 and equals ``mmh3.hash(data, seed, signed=False)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import chain

import numpy as np
from numba import njit, prange

# raw texts laid out for the kernels: there, re-exported here
from nearsim.text_layout import FlatTexts, _encode, flatten_texts  # noqa: F401
from nearsim.utils.arrays import pack_segments
from nearsim.utils.validation import ArgumentTypeError
from nearsim.utils.validation_arrays import check_shingle_sets

_U32 = np.uint32
_U64 = np.uint64


@njit(cache=True, inline="always")
def _rotl32(x, r):
    return _U32((x << _U32(r)) | (x >> _U32(32 - r)))


@njit(cache=True, inline="always")
def _mix_block(h, k):
    """One 4-byte block of MurmurHash3 x86_32 folded into ``h``."""
    k = _U32(k * _U32(0xCC9E2D51))
    k = _rotl32(k, 15)
    k = _U32(k * _U32(0x1B873593))
    h ^= k
    h = _rotl32(h, 13)
    return _U32(h * _U32(5) + _U32(0xE6546B64))


@njit(cache=True, inline="always")
def _mix_tail(h, k):
    """The last 1–3 bytes (little-endian in ``k``) folded into ``h``."""
    k = _U32(k * _U32(0xCC9E2D51))
    k = _rotl32(k, 15)
    k = _U32(k * _U32(0x1B873593))
    return _U32(h ^ k)


@njit(cache=True, inline="always")
def _finish(h, n):
    h ^= _U32(n)
    h ^= h >> _U32(16)
    h = _U32(h * _U32(0x85EBCA6B))
    h ^= h >> _U32(13)
    h = _U32(h * _U32(0xC2B2AE35))
    h ^= h >> _U32(16)
    return h


@njit(cache=True, inline="always")
def murmur3_32(buf, start, end, seed):
    """MurmurHash3 x86_32 of ``buf[start:end]`` (uint8 array) with a uint32 seed."""
    h = _U32(seed)
    p = start
    while p + 4 <= end:
        h = _mix_block(
            h,
            _U32(buf[p])
            | (_U32(buf[p + 1]) << _U32(8))
            | (_U32(buf[p + 2]) << _U32(16))
            | (_U32(buf[p + 3]) << _U32(24)),
        )
        p += 4
    rem = end - p
    if rem > 0:
        k = _U32(buf[p])
        if rem >= 2:
            k |= _U32(buf[p + 1]) << _U32(8)
        if rem == 3:
            k |= _U32(buf[p + 2]) << _U32(16)
        h = _mix_tail(h, k)
    return _finish(h, end - start)


@njit(cache=True, inline="always")
def murmur3_word(w, n):
    """MurmurHash3 x86_32 (seed 0) of ``n`` ≤ 8 bytes held little-endian in the low bytes
    of the uint64 ``w`` (its higher bytes are ignored): equal to :func:`murmur3_32` of
    those bytes, without loading them one by one."""
    h = _U32(0)
    if n >= 4:
        h = _mix_block(h, _U32(w & _U64(0xFFFFFFFF)))
        if n == 8:
            h = _mix_block(h, _U32(w >> _U64(32)))
        elif n > 4:
            h = _mix_tail(h, _U32((w >> _U64(32)) & ((_U64(1) << _U64(8 * (n - 4))) - _U64(1))))
    elif n > 0:
        h = _mix_tail(h, _U32(w & ((_U64(1) << _U64(8 * n)) - _U64(1))))
    return _finish(h, n)


@njit(cache=True)
def _cp_to_byte_offsets(buf, cp_offsets):
    """Byte offsets of the given (non-decreasing) code-point offsets in UTF-8 ``buf``."""
    out = np.empty(cp_offsets.shape[0], dtype=np.int64)
    pos = 0  # byte position of code point `cp`
    cp = 0
    nbuf = buf.shape[0]
    for t in range(cp_offsets.shape[0]):
        target = cp_offsets[t]
        while cp < target:
            b0 = buf[pos]
            if b0 < 0x80:
                pos += 1
            elif b0 < 0xE0:
                pos += 2
            elif b0 < 0xF0:
                pos += 3
            else:
                pos += 4
            cp += 1
        out[t] = min(pos, nbuf)
    return out


@njit(cache=True, parallel=True)
def _hash_spans(buf, starts, ends, seed):
    """MurmurHash3 of every span ``buf[starts[i]:ends[i]]``; uint32, shape (m,)."""
    m = starts.shape[0]
    out = np.empty(m, dtype=np.uint32)
    for i in prange(m):
        out[i] = murmur3_32(buf, starts[i], ends[i], seed)
    return out


@njit(cache=True)
def _split_pieces(buf, counts, starts, ends):
    """Cut a NUL-separated buffer into shingle spans; False if the pieces do not add up.

    Each document contributes ``max(count, 1)`` pieces (an empty document leaves one empty
    piece). A shingle that itself contains U+0000 adds a piece, which this detects.
    """
    pos = 0
    s = 0
    nbuf = buf.shape[0]
    for d in range(counts.shape[0]):
        c = counts[d]
        pieces = c if c > 0 else 1
        for _ in range(pieces):
            if pos > nbuf:
                return False
            st = pos
            while pos < nbuf and buf[pos] != 0:
                pos += 1
            if c > 0:
                starts[s] = st
                ends[s] = pos
                s += 1
            pos += 1
    return pos == nbuf + 1 and s == starts.shape[0]


class FlatShingles:
    """All shingles of all documents as one UTF-8 buffer plus spans.

    Attributes
    ----------
    buf : ndarray of uint8, shape (total_bytes,)
        The shingles' UTF-8 bytes.
    starts, ends : ndarray of int64, shape (m,)
        Shingle s is ``buf[starts[s]:ends[s]]``.
    doc_offsets : ndarray of int64, shape (n + 1,)
        Shingles of document d are ``doc_offsets[d]:doc_offsets[d + 1]``.
    """

    __slots__ = ("buf", "doc_offsets", "ends", "starts")

    def __init__(self, buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, doc_offsets):
        self.buf = buf
        self.starts = starts
        self.ends = ends
        self.doc_offsets = doc_offsets

    @property
    def n_docs(self) -> int:
        return self.doc_offsets.shape[0] - 1

    def hashes(self, seed: int = 0) -> np.ndarray:
        """MurmurHash3 (32-bit, unsigned) of every shingle; uint32, shape (m,)."""
        return _hash_spans(self.buf, self.starts, self.ends, np.uint32(seed))


SHINGLE_LISTS = "a list of shingle lists, one list of str per document"


def _bad_shingle(lists, name: str) -> ValueError:
    """The error for a shingle that is not a str (found by one pass over them)."""
    try:
        check_shingle_sets(lists, name, accepted=SHINGLE_LISTS, strings=True)
    except ValueError as exc:
        return exc
    return ArgumentTypeError(f"{name} holds a shingle that is not a str; accepted: {SHINGLE_LISTS}")


def flatten(shingle_lists: Iterable[Sequence[str]], name: str = "shingle_lists") -> FlatShingles:
    """Flatten a list of shingle lists into one UTF-8 buffer with spans.

    All shingles are joined with NUL separators by C-level ``str.join`` calls, encoded
    once, and cut apart by a compiled scan, so the Python cost per shingle is one
    pointer copy. A shingle containing U+0000 is detected and handled by a slower path
    that measures every shingle.

    Parameters
    ----------
    shingle_lists : iterable of sequences of str, length n
        Each document's shingles.
    name : str
        The argument's name, for messages.

    Returns
    -------
    FlatShingles
    """
    lists = check_shingle_sets(shingle_lists, name, accepted=SHINGLE_LISTS)
    counts = np.fromiter(map(len, lists), dtype=np.int64, count=len(lists))
    doc_offsets = np.zeros(len(lists) + 1, dtype=np.int64)
    np.cumsum(counts, out=doc_offsets[1:])
    m = int(doc_offsets[-1])
    try:
        joined = "\x00".join(map("\x00".join, lists))
    except TypeError:
        raise _bad_shingle(lists, name) from None
    buf = np.frombuffer(_encode(joined, name), dtype=np.uint8)
    starts = np.empty(m, dtype=np.int64)
    ends = np.empty(m, dtype=np.int64)
    if _split_pieces(buf, counts, starts, ends):
        return FlatShingles(buf, starts, ends, doc_offsets)
    # Some shingle contains U+0000: measure every shingle instead.
    joined = "".join(chain.from_iterable(lists))
    cp = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(
        np.fromiter(map(len, chain.from_iterable(lists)), dtype=np.int64, count=m),
        out=cp[1:],
    )
    buf = np.frombuffer(_encode(joined, name), dtype=np.uint8)
    if buf.shape[0] != cp[-1]:
        cp = _cp_to_byte_offsets(buf, cp)
    return FlatShingles(buf, cp[:-1].copy(), cp[1:].copy(), doc_offsets)


@njit(cache=True, inline="always")
def _utf8_step(b0):
    if b0 < 0x80:
        return 1
    if b0 < 0xE0:
        return 2
    if b0 < 0xF0:
        return 3
    return 4


@njit(cache=True)
def doc_shingle_spans(buf, lo, hi, word, whole, k, ring, out_starts, out_ends):
    """Byte spans of every shingle (with repeats) of one laid-out document.

    ``ring`` is scratch of length >= k. Writes into ``out_starts``/``out_ends`` (length >=
    the number of code points or words, plus one) and returns the count.
    """
    if lo == hi:
        return 0
    if whole:
        out_starts[0] = lo
        out_ends[0] = hi
        return 1
    count = 0
    units = 0
    pos = lo
    if word:
        # words are separated by exactly one space (0x20)
        while pos < hi:
            ring[units % k] = pos
            units += 1
            while pos < hi and buf[pos] != 0x20:
                pos += 1
            if units >= k:
                out_starts[count] = ring[(units - k) % k]
                out_ends[count] = pos
                count += 1
            pos += 1  # skip the space
    else:
        while pos < hi:
            ring[units % k] = pos
            units += 1
            pos += _utf8_step(buf[pos])
            if units >= k:
                out_starts[count] = ring[(units - k) % k]
                out_ends[count] = pos
                count += 1
        if units < k:
            out_starts[0] = lo
            out_ends[0] = hi
            count = 1
    return count


@njit(cache=True, inline="always")
def _one_byte_chars(buf, lo, hi):
    """Whether ``buf[lo:hi]`` is ASCII: every character one byte."""
    acc = np.uint8(0)
    for x in range(lo, hi):
        acc |= buf[x]
    return acc < 0x80


def doc_chunks(doc_offsets: np.ndarray, target_bytes: int = 1 << 20) -> np.ndarray:
    """Boundaries of runs of consecutive documents of about ``target_bytes`` each (at
    least one document a run), for kernels that reuse their scratch across a run's
    documents and run the runs in parallel.

    Returns
    -------
    ndarray of int64, shape (c + 1,)
        Run t is documents ``bounds[t]:bounds[t + 1]``.
    """
    n = doc_offsets.shape[0] - 1
    if n == 0:
        return np.zeros(1, dtype=np.int64)
    total = int(doc_offsets[-1])
    runs = max(1, min(n, total // target_bytes, 4096))
    runs = max(runs, min(n, 64))  # enough runs for every thread, even on small inputs
    bounds = np.searchsorted(doc_offsets[:-1], np.linspace(0, total, runs + 1)[1:-1])
    return np.unique(np.concatenate([[0], bounds, [n]])).astype(np.int64)


@njit(cache=True, parallel=True)
def _count_text_shingles(buf, doc_offsets, whole, word, k):
    n = doc_offsets.shape[0] - 1
    counts = np.empty(n, dtype=np.int64)
    for d in prange(n):
        lo = doc_offsets[d]
        hi = doc_offsets[d + 1]
        ring = np.empty(k, dtype=np.int64)
        st = np.empty(hi - lo + 1, dtype=np.int64)
        en = np.empty(hi - lo + 1, dtype=np.int64)
        counts[d] = doc_shingle_spans(buf, lo, hi, word, whole[d], k, ring, st, en)
    return counts


@njit(cache=True, nogil=True)
def same_bytes(buf_a, sa, ea, buf_b, sb, eb):
    """Whether ``buf_a[sa:ea]`` and ``buf_b[sb:eb]`` hold the same bytes (the two buffers
    may be one)."""
    if ea - sa != eb - sb:
        return False
    for q in range(ea - sa):
        if buf_a[sa + q] != buf_b[sb + q]:
            return False
    return True


@njit(cache=True, parallel=True)
def _distinct_text_shingles(buf, doc_offsets, whole, word, k, out_offsets, starts, ends, sizes):
    """Each document's distinct shingle spans in order of first appearance."""
    n = doc_offsets.shape[0] - 1
    for d in prange(n):
        lo = doc_offsets[d]
        hi = doc_offsets[d + 1]
        ring = np.empty(k, dtype=np.int64)
        st = np.empty(hi - lo + 1, dtype=np.int64)
        en = np.empty(hi - lo + 1, dtype=np.int64)
        cnt = doc_shingle_spans(buf, lo, hi, word, whole[d], k, ring, st, en)
        # open-addressing set of span indices; equal spans are found by their bytes
        size = 16
        while size < 2 * cnt:
            size *= 2
        table = np.full(size, -1, dtype=np.int64)
        dup = np.zeros(cnt, dtype=np.bool_)
        for x in range(cnt):
            slot = np.int64(murmur3_32(buf, st[x], en[x], np.uint32(0))) & (size - 1)
            while True:
                y = table[slot]
                if y < 0:
                    table[slot] = x
                    break
                if same_bytes(buf, st[x], en[x], buf, st[y], en[y]):
                    dup[x] = True
                    break
                slot = (slot + 1) & (size - 1)
        pos = out_offsets[d]
        for s in range(cnt):
            if not dup[s]:
                starts[pos] = st[s]
                ends[pos] = en[s]
                pos += 1
        sizes[d] = pos - out_offsets[d]


_BATCH_SHINGLES = 1 << 22


def text_shingles(
    texts: Iterable[str],
    *,
    kind: str = "char",
    k: int = 5,
    lowercase: bool = True,
    remove_punctuation: bool = False,
    collapse_whitespace: bool = True,
) -> FlatShingles:
    """Every document's distinct shingles as spans of one UTF-8 buffer, from raw texts.

    Byte for byte the same shingles, in the same order, as ``[shingles(t, ...) for t in
    texts]``, but cut in compiled code: no Python object per shingle.

    Parameters
    ----------
    texts : iterable of str, length n
    kind, k, lowercase, remove_punctuation, collapse_whitespace
        As in :func:`nearsim.shingles`.

    Returns
    -------
    FlatShingles
        ``buf`` is the normalised texts' bytes; spans point into it.
    """
    ft = flatten_texts(
        texts,
        kind=kind,
        k=k,
        lowercase=lowercase,
        remove_punctuation=remove_punctuation,
        collapse_whitespace=collapse_whitespace,
    )
    word = ft.kind == "word"
    n = ft.doc_offsets.shape[0] - 1
    counts = _count_text_shingles(ft.buf, ft.doc_offsets, ft.whole, word, ft.k)
    # Batches of documents with about _BATCH_SHINGLES shingles, whose spans (before
    # dropping repeats) go to scratch reused from batch to batch: one buffer for all of
    # them was 16 bytes per shingle of the corpus written once (1.4 GB on 92 MB of
    # manual pages), and its page faults cost more than cutting the shingles.
    cum = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=cum[1:])
    bounds = np.unique(
        np.concatenate([[0], np.searchsorted(cum, np.arange(1, cum[-1] // _BATCH_SHINGLES + 1)
                                             * _BATCH_SHINGLES), [n]])
    )  # fmt: skip
    scratch = np.empty(2 * int(np.max(np.diff(cum[bounds]), initial=0)), dtype=np.int64)
    sizes = np.empty(n, dtype=np.int64)
    parts: list[tuple[np.ndarray, np.ndarray]] = []
    for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        cap = cum[lo : hi + 1] - cum[lo]
        room = int(cap[-1])
        starts, ends = scratch[:room], scratch[room : 2 * room]
        _distinct_text_shingles(
            ft.buf, ft.doc_offsets[lo : hi + 1], ft.whole[lo:hi], word, ft.k, cap, starts, ends,
            sizes[lo:hi],
        )  # fmt: skip
        offsets = np.zeros(hi - lo + 1, dtype=np.int64)
        np.cumsum(sizes[lo:hi], out=offsets[1:])
        # each document's distinct spans, from cap[d] (room for all its shingles) packed
        parts.append(tuple(pack_segments(x, cap[:-1], offsets) for x in (starts, ends)))
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    if not parts:
        return FlatShingles(ft.buf, np.empty(0, np.int64), np.empty(0, np.int64), offsets)
    starts = parts[0][0] if len(parts) == 1 else np.concatenate([p[0] for p in parts])
    ends = parts[0][1] if len(parts) == 1 else np.concatenate([p[1] for p in parts])
    return FlatShingles(ft.buf, starts, ends, offsets)


def take_documents(flat: FlatShingles, docs: np.ndarray) -> FlatShingles:
    """Some documents' shingles, over the same buffer (no byte is copied).

    Parameters
    ----------
    flat : FlatShingles
    docs : ndarray of int, shape (m,)
        Documents of ``flat`` (0 to n − 1), in the order wanted.

    Returns
    -------
    FlatShingles
        m documents: document k holds the spans of ``docs[k]``, in their order.

    Examples
    --------
    >>> flat = text_shingles(["abcd", "xyz", "abcde"], k=3)
    >>> sub = take_documents(flat, np.array([2, 0]))
    >>> [decode(sub, d) for d in range(2)]
    [['abc', 'bcd', 'cde'], ['abc', 'bcd']]
    """
    docs = np.asarray(docs, dtype=np.int64)
    offsets = np.asarray(flat.doc_offsets, dtype=np.int64)
    if docs.ndim != 1 or (docs.size and (docs.min() < 0 or docs.max() >= flat.n_docs)):
        raise ValueError(
            f"docs of shape {docs.shape} is not accepted; accepted: a 1-d array of "
            f"documents from 0 to {flat.n_docs - 1}"
        )
    lo, size = offsets[docs], offsets[docs + 1] - offsets[docs]
    base = np.zeros(docs.shape[0] + 1, np.int64)
    np.cumsum(size, out=base[1:])
    # each kept shingle's position in the full arrays: its document's first + its rank
    take = np.repeat(lo - base[:-1], size) + np.arange(int(base[-1]))
    return FlatShingles(flat.buf, flat.starts[take], flat.ends[take], base)


def decode(flat: FlatShingles, doc: int) -> list[str]:
    """The shingles of one document as Python strings."""
    lo, hi = flat.doc_offsets[doc], flat.doc_offsets[doc + 1]
    raw = flat.buf
    return [
        bytes(raw[s:e]).decode("utf-8")
        for s, e in zip(flat.starts[lo:hi].tolist(), flat.ends[lo:hi].tolist(), strict=True)
    ]
