"""Interning shingles: equal strings get equal integer ids, in compiled code.

Shingles are interned exactly (equal ids iff equal strings): the lists are joined in C,
encoded once, and keyed in compiled code by their bytes (up to 15 bytes) or by a 120-bit
hash checked byte by byte (longer ones), with a fall back to Python's own hashing if two
different strings ever share a key. The keys are copied into about 16,384-shingle hash
partitions, each interned with a table small enough for the cache (partitions spread over
a few threads), and numbered as one table per thread would number them (the same ids
as before partitioning). ``FlatShingles`` spans skip the joining. The ids are
then renumbered by global frequency (rarest = 0) and each document's ids sorted and made
distinct: the form the exact join reads (:class:`nearsim.join.tokens.TokenSets`).

Private: :mod:`nearsim.join.tokens` validates the input and calls :func:`intern_lists` or
:func:`intern_spans`.
"""

from __future__ import annotations

from itertools import chain, compress

import numpy as np
from numba import njit

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


# Above this many shingles per partition a table no longer fits a core's cache.
_PART_ROWS = 16_384
_MAX_PART_BITS = 12


@njit(cache=True, nogil=True, inline="always")
def _slot_hash(a, b):
    """64-bit hash of the key (a, b): its top bits pick the partition, its low bits the
    table row."""
    return _mix64(a ^ (b * np.uint64(0x9E3779B97F4A7C15)))


@njit(cache=True, nogil=True)
def _span_parts(buf, starts, ends, pmask):
    """The partition of each shingle buf[starts[t] : ends[t]] (its key's hash, top bits
    ``& pmask``; keys: see :func:`_key`), the partitions' sizes and whether any key is a
    hash. The keys themselves are not kept: :func:`_scatter` makes them again, which
    costs less than writing and reading them back."""
    total = starts.size
    pid = np.empty(total, np.uint16)
    hist = np.zeros(pmask + 1, np.int64)
    hashed = False
    for t in range(total):
        a, b, h = _key(buf, starts[t], ends[t])
        p = np.int64((_slot_hash(a, b) >> np.uint64(48)) & np.uint64(pmask))
        pid[t] = p
        hist[p] += 1
        hashed |= h
    return pid, hist, hashed


@njit(cache=True, nogil=True)
def _scatter(buf, starts, ends, pid, lo, cursor, pk0, pk1, pt):
    """The keys of one contiguous chunk (shingles lo, lo + 1, ...) into their partitions'
    rows, in order: ``cursor[p]`` is the chunk's first row in partition p."""
    for i in range(pid.size):
        p = pid[i]
        r = cursor[p]
        pk0[r], pk1[r], _ = _key(buf, starts[i], ends[i])
        pt[r] = lo + i
        cursor[p] = r + 1


@njit(cache=True, nogil=True)
def _factorize_part(pk0, pk1, bounds, p_lo, p_hi, local, dfirst, dcount, nd):
    """Distinct keys of partitions p_lo..p_hi - 1 (rows bounds[p]:bounds[p + 1]).

    Per partition, in first-occurrence order: local[r] = the local id of row r's key,
    dfirst[bounds[p] + id] = the id's first row, dcount[...] = its rows, nd[p] = the
    number of ids. Open addressing with linear probing on a table of ids small enough
    for the cache (a partition holds about ``_PART_ROWS`` rows).
    """
    for p in range(p_lo, p_hi):
        lo = bounds[p]
        m = bounds[p + 1] - lo
        cap = 16
        while cap < 2 * m:
            cap *= 2
        mask = np.uint64(cap - 1)
        table = np.full(cap, -1, np.int64)
        nu = 0
        for r in range(lo, lo + m):
            a = pk0[r]
            b = pk1[r]
            s = _slot_hash(a, b) & mask
            while True:
                g = table[s]
                if g < 0:
                    table[s] = nu
                    dfirst[lo + nu] = r
                    dcount[lo + nu] = 1
                    local[r] = nu
                    nu += 1
                    break
                q = dfirst[lo + g]
                if pk0[q] == a and pk1[q] == b:
                    local[r] = g
                    dcount[lo + g] += 1
                    break
                s = (s + np.uint64(1)) & mask
        nd[p] = nu


@njit(cache=True, nogil=True)
def _numbering(bounds, nd, dfirst, dcount, pk0, pk1, pt, nparts):
    """Each distinct key's code, as one table per thread numbered them: keys fall in
    ``nparts`` parts by hash bits 40+ (``% nparts``), each part numbers its keys by first
    occurrence (0, 1, ...) and code = number * nparts + part. Returns the partitions'
    first global ids ``base``, the codes ``cmap`` (by global id) and, per code, its first
    shingle and count (-1 and 0 in the gaps)."""
    nparts_u = np.uint64(nparts)
    P = nd.size
    base = np.zeros(P + 1, np.int64)
    for p in range(P):
        base[p + 1] = base[p] + nd[p]
    nu = base[P]
    total = pt.size
    seen = np.empty_like(pt)
    seen[:] = -1
    part = np.empty(nu, np.int64)
    for p in range(P):
        for u in range(nd[p]):
            r = dfirst[bounds[p] + u]
            part[base[p] + u] = np.int64((_slot_hash(pk0[r], pk1[r]) >> np.uint64(40)) % nparts_u)
            seen[pt[r]] = base[p] + u
    cmap = np.empty(nu, np.int64)
    nxt = np.zeros(nparts, np.int64)
    for t in range(total):
        g = seen[t]
        if g >= 0:
            q = part[g]
            cmap[g] = nxt[q] * nparts + q
            nxt[q] += 1
    width = nxt.max()
    first = np.full(width * nparts, -1, np.int64)
    counts = np.zeros(width * nparts, np.int64)
    for p in range(P):
        for u in range(nd[p]):
            c = cmap[base[p] + u]
            first[c] = pt[dfirst[bounds[p] + u]]
            counts[c] = dcount[bounds[p] + u]
    return base, cmap, first, counts


@njit(cache=True, nogil=True)
def _codes_back(pt, local, bounds, base, cmap, p_lo, p_hi, codes):
    """codes[t] = the code of shingle t, for the rows of partitions p_lo..p_hi - 1."""
    for p in range(p_lo, p_hi):
        b = base[p]
        for r in range(bounds[p], bounds[p + 1]):
            codes[pt[r]] = cmap[b + local[r]]


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
    import pandas as pd

    codes, uniques = pd.factorize(objects)
    return codes, np.bincount(codes, minlength=len(uniques))


def _part_bits(total: int) -> int:
    """log2 of the number of partitions: about ``_PART_ROWS`` shingles in each."""
    bits = 0
    while bits < _MAX_PART_BITS and (total >> bits) > _PART_ROWS:
        bits += 1
    return bits


def _split(bounds: np.ndarray, workers: int) -> np.ndarray:
    """Partition edges giving each worker about the same number of rows."""
    goals = np.linspace(0, bounds[-1], workers + 1)
    edges = np.searchsorted(bounds, goals).astype(np.int64)
    edges[0], edges[-1] = 0, bounds.size - 1
    return np.maximum.accumulate(edges)


def _codes_from_spans(buf, starts, ends):
    """Ids for the shingles buf[starts[t]:ends[t]] and each id's count; None if two
    different hashed shingles share a key.

    The keys are split by hash into partitions of about ``_PART_ROWS`` shingles (copied
    in order, so each partition's table stays in the cache) and each partition is
    interned on its own, partitions spread over a few threads; the codes are then
    numbered as one table per thread numbers them (see :func:`_numbering`).
    """
    total = starts.size
    workers = threads() if total >= _PARALLEL_MIN_SHINGLES else 1
    pmask = (1 << _part_bits(total)) - 1
    edges = np.linspace(0, total, workers + 1).astype(np.int64)
    part = [slice(edges[k], edges[k + 1]) for k in range(workers)]
    chunks = pool_map(
        lambda k: _span_parts(buf, starts[part[k]], ends[part[k]], pmask), range(workers), workers
    )
    hashed = any(c[2] for c in chunks)
    hist = np.stack([c[1] for c in chunks])
    bounds = np.zeros(pmask + 2, np.int64)
    np.cumsum(hist.sum(axis=0), out=bounds[1:])
    cursors = bounds[:-1] + np.cumsum(hist, axis=0) - hist
    pk0 = np.empty(total, np.uint64)
    pk1 = np.empty(total, np.uint64)
    # row numbers in 32 bits when they fit: less memory to fill and read
    index = np.int32 if total < 2**31 else np.int64
    pt = np.empty(total, index)
    pool_map(
        lambda k: _scatter(
            buf, starts[part[k]], ends[part[k]], chunks[k][0], edges[k], cursors[k], pk0, pk1, pt
        ),
        range(workers),
        workers,
    )
    chunks = None
    local = np.empty(total, index)
    dfirst = np.empty(total, index)
    dcount = np.empty(total, index)
    nd = np.zeros(pmask + 1, np.int64)
    groups = _split(bounds, workers)
    pool_map(
        lambda k: _factorize_part(
            pk0, pk1, bounds, groups[k], groups[k + 1], local, dfirst, dcount, nd
        ),
        range(workers),
        workers,
    )
    base, cmap, first, counts = _numbering(bounds, nd, dfirst, dcount, pk0, pk1, pt, workers)
    pk0 = pk1 = dfirst = dcount = None
    codes = np.empty(total, np.int64)
    pool_map(
        lambda k: _codes_back(pt, local, bounds, base, cmap, groups[k], groups[k + 1], codes),
        range(workers),
        workers,
    )
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
