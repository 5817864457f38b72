"""Interning shingles: equal strings get equal integer ids, in compiled code.

Shingles are interned exactly (equal ids iff equal strings): the lists are joined in C,
encoded once, and keyed in compiled code by their bytes (up to 15 bytes) or by a 120-bit
hash checked byte by byte (longer ones), with a fall back to Python's own hashing if two
different strings ever share a key. ``FlatShingles`` spans skip the joining. The ids are
then renumbered by global frequency (rarest = 0) and each document's ids sorted and made
distinct: the form the exact join reads (:class:`nearsim.join.tokens.TokenSets`).

Private: :mod:`nearsim.join.tokens` validates the input and calls :func:`intern_lists` or
:func:`intern_spans`.
"""

from __future__ import annotations

from itertools import chain, compress

import numpy as np
import pandas as pd
from numba import njit

from nearsim.utils.arrays import grow
from nearsim.utils.threads import pool_map, threads

_NO_ID = np.uint64(0xFFFFFFFFFFFFFFFF)
# Below this many shingles one thread does the keying.
_PARALLEL_MIN_SHINGLES = 200_000


@njit(cache=True, nogil=True)
def _mix64(x):
    """MurmurHash3's 64-bit finaliser."""
    x ^= x >> np.uint64(33)
    x *= np.uint64(0xFF51AFD7ED558CCD)
    x ^= x >> np.uint64(33)
    x *= np.uint64(0xC4CEB9FE1A85EC53)
    x ^= x >> np.uint64(33)
    return x


@njit(cache=True, nogil=True, inline="always")
def _key(buf, a, m):
    """128-bit key of the bytes buf[a:m], and whether it is a hash.

    Up to 15 bytes the key is the bytes themselves (packed, length in the top byte), so
    equal keys are equal strings. Longer: two 64-bit hashes with top byte 0xFF, to be
    checked by :func:`_verify_codes`.
    """
    length = m - a
    if length <= 15:
        w0 = np.uint64(0)
        w1 = np.uint64(0)
        for e in range(a, m):
            if e - a < 8:
                w0 = (w0 << np.uint64(8)) | np.uint64(buf[e])
            else:
                w1 = (w1 << np.uint64(8)) | np.uint64(buf[e])
        return w0, w1 | (np.uint64(length) << np.uint64(56)), False
    h0 = np.uint64(0xCBF29CE484222325)
    h1 = np.uint64(0x84222325CBF29CE4)
    for e in range(a, m):
        c = np.uint64(buf[e])
        h0 = (h0 ^ c) * np.uint64(0x100000001B3)
        h1 = (h1 ^ c) * np.uint64(0x9E3779B97F4A7C15)
        h1 ^= h1 >> np.uint64(29)
    return (
        _mix64(h0 ^ np.uint64(length)),
        (h1 >> np.uint64(8)) | (np.uint64(0xFF) << np.uint64(56)),
        True,
    )


@njit(cache=True, nogil=True)
def _span_keys(buf, starts, ends):
    """Keys (see :func:`_key`) of the shingles buf[starts[t] : ends[t]]."""
    total = starts.size
    k0 = np.empty(total, np.uint64)
    k1 = np.empty(total, np.uint64)
    hashed = False
    for t in range(total):
        k0[t], k1[t], h = _key(buf, starts[t], ends[t])
        hashed |= h
    return k0, k1, hashed


@njit(cache=True, nogil=True)
def _table_insert(table, mask, a, b, ident):
    """Put key (a, b) with id ``ident`` in the first free row of its probe sequence."""
    s = _mix64(a ^ (b * np.uint64(0x9E3779B97F4A7C15))) & mask
    while table[4 * s + 2] != _NO_ID:
        s = (s + np.uint64(1)) & mask
    table[4 * s] = a
    table[4 * s + 1] = b
    table[4 * s + 2] = ident


@njit(cache=True, nogil=True)
def _factorize_part(k0, k1, part, nparts, codes):
    """Ids for the distinct keys whose hash falls in ``part`` of ``nparts``.

    Writes codes[t] = local_id * nparts + part for those keys (so the parts, run on
    different threads, never collide) and returns, per local id, the first t and the
    count. Open addressing with linear probing; a row is (key0, key1, id, unused).
    """
    n = k0.size
    cap = 1024
    while cap < 2 * min(n // nparts + 1, 1 << 17):
        cap *= 2
    mask = np.uint64(cap - 1)
    table = np.full(4 * cap, _NO_ID, np.uint64)
    first = np.empty(1024, np.int64)
    counts = np.empty(1024, np.int64)
    nu = 0
    want = np.uint64(part)
    parts = np.uint64(nparts)
    for t in range(n):
        a = k0[t]
        b = k1[t]
        h = _mix64(a ^ (b * np.uint64(0x9E3779B97F4A7C15)))
        if (h >> np.uint64(40)) % parts != want:
            continue
        s = h & mask
        while True:
            sid = table[4 * s + 2]
            if sid == _NO_ID:
                table[4 * s] = a
                table[4 * s + 1] = b
                table[4 * s + 2] = np.uint64(nu)
                if nu == first.size:
                    first = grow(first)
                    counts = grow(counts)
                first[nu] = t
                counts[nu] = 1
                codes[t] = nu * nparts + part
                nu += 1
                break
            if table[4 * s] == a and table[4 * s + 1] == b:
                codes[t] = np.int64(sid) * nparts + part
                counts[sid] += 1
                break
            s = (s + np.uint64(1)) & mask
        if 2 * nu > cap:
            cap *= 2
            mask = np.uint64(cap - 1)
            bigger = np.full(4 * cap, _NO_ID, np.uint64)
            for r in range(table.size // 4):
                if table[4 * r + 2] != _NO_ID:
                    _table_insert(bigger, mask, table[4 * r], table[4 * r + 1], table[4 * r + 2])
            table = bigger
    return first[:nu].copy(), counts[:nu].copy()


@njit(cache=True, nogil=True)
def _verify_codes(buf, starts, ends, codes, first):
    """True iff every shingle longer than 15 bytes equals the first one with its id."""
    for t in range(codes.size):
        length = ends[t] - starts[t]
        if length <= 15:
            continue
        r = first[codes[t]]
        if r == t:
            continue
        a = starts[r]
        b = starts[t]
        if ends[r] - a != length:
            return False
        for m in range(length):
            if buf[a + m] != buf[b + m]:
                return False
    return True


@njit(cache=True, nogil=True)
def _sorted_sets(offsets, tok, vocab):
    """Each document's ids sorted and distinct, by two counting-sort passes.

    Pass 1 lists the documents of each id (the transpose); pass 2 walks the ids in
    increasing order and appends each to its documents, dropping repeats (a repeat shows
    as the same document twice in a row). Returns new offsets, ids and sizes.
    """
    n = offsets.size - 1
    total = tok.size
    start = np.zeros(vocab + 1, np.int64)
    for e in range(total):
        start[tok[e] + 1] += 1
    for w in range(vocab):
        start[w + 1] += start[w]
    fill = start[:vocab].copy()
    docs = np.empty(total, np.int32)
    for d in range(n):
        for e in range(offsets[d], offsets[d + 1]):
            w = tok[e]
            docs[fill[w]] = d
            fill[w] += 1
    pos = offsets[:n].copy()
    out = np.empty(total, np.int32)
    for w in range(vocab):
        prev = -1
        for e in range(start[w], start[w + 1]):
            d = docs[e]
            if d != prev:
                out[pos[d]] = w
                pos[d] += 1
                prev = d
    sizes = pos - offsets[:n]
    new_off = np.zeros(n + 1, np.int64)
    for d in range(n):
        new_off[d + 1] = new_off[d] + sizes[d]
    if new_off[n] == total:
        return new_off, out, sizes
    packed = np.empty(new_off[n], np.int32)
    for d in range(n):
        a = offsets[d]
        c = new_off[d]
        for k in range(sizes[d]):
            packed[c + k] = out[a + k]
    return new_off, packed, sizes


# --------------------------------------------------------------------------- Python side


def _exact_codes(objects: np.ndarray):
    """Fallback interning by Python hashing (slower, always exact): ids and counts."""
    codes, uniques = pd.factorize(objects)
    return codes, np.bincount(codes, minlength=len(uniques))


def _keys(buf, starts, ends):
    """:func:`_span_keys` over contiguous parts of the shingles on a few threads."""
    total = starts.size
    workers = threads() if total >= _PARALLEL_MIN_SHINGLES else 1
    edges = np.linspace(0, total, workers + 1).astype(np.int64)
    parts = pool_map(
        lambda k: _span_keys(buf, starts[edges[k] : edges[k + 1]], ends[edges[k] : edges[k + 1]]),
        range(workers),
        workers,
    )
    if len(parts) == 1:
        return parts[0]
    k0 = np.concatenate([p[0] for p in parts])
    k1 = np.concatenate([p[1] for p in parts])
    return k0, k1, any(p[2] for p in parts)


def _codes_from_spans(buf, starts, ends):
    """Ids for the shingles buf[starts[t]:ends[t]] (parts of the key space on different
    threads) and each id's count; None if two different hashed shingles share a key."""
    k0, k1, hashed = _keys(buf, starts, ends)
    total = k0.size
    codes = np.empty(total, np.int64)
    nparts = threads() if total >= _PARALLEL_MIN_SHINGLES else 1
    parts = pool_map(lambda k: _factorize_part(k0, k1, k, nparts, codes), range(nparts), nparts)
    width = max(f.size for f, _ in parts)
    first = np.full(width * nparts, -1, np.int64)
    counts = np.zeros(width * nparts, np.int64)
    for k, (f, c) in enumerate(parts):
        first[k : k + nparts * f.size : nparts] = f
        counts[k : k + nparts * c.size : nparts] = c
    if hashed and not _verify_codes(buf, starts, ends, codes, first):
        return None
    return codes, counts


def _rank(counts: np.ndarray) -> np.ndarray:
    """New id of each id: by count, rarest first (ties keep their order); ids with count
    0 get negative numbers (they occur nowhere)."""
    unused = int(np.count_nonzero(counts == 0))
    rank = np.empty(counts.size, np.int32)
    rank[np.argsort(counts, kind="stable")] = np.arange(
        -unused, counts.size - unused, dtype=np.int32
    )
    return rank


def _ranked(offsets, codes, counts):
    """Documents as sorted distinct ids, numbered by the number of documents holding
    them (rarest first)."""
    vocab = int(np.count_nonzero(counts))
    new_off, tok, sizes = _sorted_sets(offsets, _rank(counts)[codes], vocab)
    if new_off[-1] < codes.size:
        # repeats within documents inflated some counts: rank again by documents
        df = np.bincount(tok, minlength=vocab)
        new_off, tok, sizes = _sorted_sets(new_off, _rank(df)[tok], vocab)
    return new_off, tok, sizes, vocab


def _no_tokens(offsets):
    n = offsets.size - 1
    return np.zeros(n + 1, np.int64), np.empty(0, np.int32), np.zeros(n, np.int64), 0


def intern_lists(docs: list):
    """Interned, ranked token sets of a list of documents (each a sized iterable of str).

    The shingles are joined with NUL in C, encoded once as UTF-8 (lone surrogates kept by
    ``surrogatepass``) and keyed in compiled code; a shingle holding NUL itself makes the
    pieces ambiguous, and then Python's hashing interns them instead.

    Returns
    -------
    offsets : ndarray of int64, shape (n + 1,)
    tokens : ndarray of int32, shape (total,)
        Each document's ids, strictly increasing; rarest shingle = 0.
    lengths : ndarray of int64, shape (n,)
        Distinct shingles per document.
    vocab : int
        Distinct shingles in all documents.

    Raises
    ------
    TypeError
        If a shingle is not a str (from ``str.join``; the caller reports which).
    """
    n = len(docs)
    lengths = np.fromiter(map(len, docs), np.int64, count=n)
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    total = int(offsets[-1])
    if total == 0:
        return _no_tokens(offsets)
    # joining each document first is about twice as fast as one chained join; empty
    # documents are left out (they would add empty pieces)
    big = "\x00".join(map("\x00".join, compress(docs, (lengths > 0).tolist())))
    buf = np.frombuffer(big.encode("utf-8", "surrogatepass"), np.uint8)
    del big
    sep = np.flatnonzero(buf == 0)
    result = None
    if sep.size == total - 1:  # else a shingle contains NUL: the pieces are ambiguous
        starts = np.empty(total, np.int64)
        starts[0] = 0
        starts[1:] = sep + 1
        ends = np.empty(total, np.int64)
        ends[:-1] = sep
        ends[-1] = buf.size
        del sep
        result = _codes_from_spans(buf, starts, ends)
    if result is None:
        result = _exact_codes(np.fromiter(chain.from_iterable(docs), dtype=object, count=total))
    return _ranked(offsets, *result)


def intern_spans(buf, starts, ends, offsets):
    """As :func:`intern_lists`, for shingles given as checked spans of one UTF-8 buffer
    (``buf`` uint8, ``starts``/``ends``/``offsets`` int64, contiguous)."""
    if int(offsets[-1]) == 0:
        return _no_tokens(offsets)
    result = _codes_from_spans(buf, starts, ends)
    if result is None:  # pragma: no cover - needs a 120-bit hash collision
        pieces = [bytes(buf[a:b]) for a, b in zip(starts.tolist(), ends.tolist(), strict=True)]
        result = _exact_codes(np.array(pieces, dtype=object))
    return _ranked(offsets, *result)
