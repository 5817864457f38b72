"""Exact Jaccard ground truth: every pair at or above a threshold, and a similarity sample.

Two ways to the same answer:

* ``brute`` compares every pair: its overlap is the popcount of the AND of exact bitsets
  of the most frequent shingles (all of them when there are at most 4,096) plus the
  shared rare shingles counted through their inverted index (the upper triangle of the
  sparse product X·Xᵀ of the document × shingle incidence matrix, restricted to them).
* ``ppjoin`` is the exact similarity join of Xiao et al. (PPJoin) in its ell-prefix form:
  shingles are numbered by global frequency (rarest first) and documents taken in order of
  size. A pair needing overlap a shares at least min(ell, a) shingles within the first
  |x| - a + ell shingles of both documents (ell = 1 is the classic prefix filter), so the
  probe only counts shared shingles that lie inside both of those prefixes (a positional
  filter: a shingle counts only where its positions leave room for the required
  overlap), among documents whose size allows J >= t at all (length filter). Documents
  reaching the count are bounded by a 1,024-bit hashed bitmap per document (an exact
  bitset when there are at most 4,096 distinct shingles; a bit set
  on one side only stands for at least one shingle the other lacks, so
  overlap <= (|x| + |y| - popcount(bx XOR by)) / 2), and only if the bound allows it
  counted exactly against a marker array of the probe's shingles. ell = 6 here; the
  running PPJoin bound (count so far + shingles left) pruned nothing beyond that on the
  benchmark corpora, so the count runs branch-free instead.

Shingles are interned exactly (equal ids iff equal strings): the lists are joined in C,
encoded once, and keyed in compiled code by their bytes (up to 15 bytes) or by a 120-bit
hash checked byte by byte (longer ones). Input may also be ``nearsim._hashing.FlatShingles``
spans, which skip the joining.

Both return the same rows with the same float values: Jaccard is computed once, as
``inter / (|x| + |y| - inter)`` in float64 from exact integer counts.

The threshold rule (the same for both methods)
-----------------------------------------------
A float such as 0.7 is not exactly 7/10, and formulas like ``ceil(0.7 * 10)`` give 8
in floating point (0.7 * 10 = 7.000000000000001), which silently drops true pairs. So the
threshold ``t`` is read as the fraction ``P/Q`` nearest to it with ``Q <= 10**6``
(``Fraction(t).limit_denominator(10**6)``): 0.7 is 7/10, 0.8 is 4/5, ``1/3`` is 1/3. A
pair is included iff it shares at least one shingle and ``inter * Q >= P * union`` in
exact integer arithmetic. For a threshold written with at most six decimals, or any
fraction with denominator up to a million, that is exactly "Jaccard >= the intended
value": a pair at exactly 7/10 is in at t = 0.7, one a hair below is out.

All prefix lengths and filters are integer formulas derived from P/Q, so they never lose
a pair to rounding.
"""

from __future__ import annotations

import math
import numbers
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from fractions import Fraction
from itertools import chain, compress

import numba
import numpy as np
import pandas as pd
from numba import njit

from ._arrays import popcount64
from ._hashing import FlatShingles

__all__ = [
    "AUTO_BRUTE_LIMIT",
    "BAND_WIDTH",
    "METHODS",
    "exact_pairs",
    "similarity_band",
    "similarity_sample",
    "threshold_fraction",
    "warm_up",
]

METHODS = ("auto", "brute", "ppjoin")
AUTO_BRUTE_LIMIT = 2500
MAX_DENOMINATOR = 10**6
BAND_WIDTH = 0.05
N_BANDS = 20

# Verification bitsets: with at most this many distinct shingles every shingle gets an
# exact bit; above, all are hashed into _HASHED_BITS bits for an upper bound on the overlap.
_EXACT_VOCAB = 4096
_HASHED_BITS = 1024
# brute: the most frequent shingles counted by bitset AND (the rest through postings)
_BRUTE_FREQUENT_BITS = 1024
# The ell of the ell-prefix filter (see _ppjoin_probe).
_ELL = 6
# Below this many probes the thread pool is not worth starting.
_PARALLEL_MIN_PROBES = 512

_EMPTY_I64 = np.empty(0, np.int64)
_NO_ID = np.uint64(0xFFFFFFFFFFFFFFFF)


# --------------------------------------------------------------------------- validation


def threshold_fraction(threshold, *, name: str = "threshold") -> Fraction:
    """The exact fraction a threshold stands for.

    Parameters
    ----------
    threshold : float
        A number in (0, 1]: 0 excluded, 1 included.
    name : str
        The argument's name, used in the error message.

    Returns
    -------
    fractions.Fraction
        The fraction with denominator at most 10**6 nearest to ``threshold``
        (0.7 -> 7/10). A pair is included iff ``inter / union >= `` this fraction and
        ``inter >= 1``.

    Raises
    ------
    ValueError
        If ``threshold`` is not a real number in (0, 1] (NaN, 0, negative, above 1,
        a bool or a string).
    """
    ok = isinstance(threshold, numbers.Real) and not isinstance(threshold, bool)
    if ok:
        try:
            value = float(threshold)
        except (TypeError, ValueError, OverflowError):
            ok = False
        else:
            ok = math.isfinite(value) and 0.0 < value <= 1.0
    if not ok:
        raise ValueError(
            f"{name}={threshold!r} is not accepted; use a number in (0, 1] "
            "(greater than 0, at most 1)"
        )
    if isinstance(threshold, numbers.Rational):
        exact = Fraction(int(threshold.numerator), int(threshold.denominator))
    else:
        exact = Fraction(float(threshold))
    return exact.limit_denominator(MAX_DENOMINATOR)


def _check_method(method) -> str:
    if not isinstance(method, str) or method not in METHODS:
        raise ValueError(f"method={method!r} is not accepted; use one of {', '.join(METHODS)}")
    return method


# --------------------------------------------------------------------------- numba helpers


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
                    first = _grow1(first)
                    counts = _grow1(counts)
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
def _grow1(arr):
    bigger = np.empty(arr.size * 2, np.int64)
    for k in range(arr.size):
        bigger[k] = arr[k]
    return bigger


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


@njit(cache=True, nogil=True)
def _verify_bits(offsets, tok, base, fwords, hwords):
    """Per document: an exact bitset of its frequent ids (>= base) in ``fwords`` words, then a
    hashed bitmap of its other ids in ``hwords`` words; and where its frequent ids start."""
    n = offsets.size - 1
    bits = np.zeros((n, max(fwords + hwords, 1)), np.uint64)
    split = np.empty(n, np.int64)
    hbits = np.uint64(64 * hwords)
    for d in range(n):
        a = offsets[d]
        b = offsets[d + 1]
        m = b
        while m > a and tok[m - 1] >= base:
            m -= 1
        split[d] = m
        for e in range(m, b):
            v = tok[e] - base
            bits[d, v >> 6] |= np.uint64(1) << np.uint64(v & 63)
        if hwords > 0:
            for e in range(a, m):
                h = (np.uint64(tok[e]) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(32)
                h = h % hbits
                bits[d, fwords + np.int64(h >> np.uint64(6))] |= np.uint64(1) << (h & np.uint64(63))
    return bits, split


@njit(cache=True, nogil=True)
def _mark(mark, stamp, tok, lo, hi):
    """Stamp the ids tok[lo:hi] in the probe's marker array."""
    for e in range(lo, hi):
        mark[tok[e]] = stamp


@njit(cache=True, nogil=True, inline="always")
def _overlap_marked(mark, stamp, tok, offsets, split, bits, fwords, hwords, dx, dy, need):
    """|x ∩ y| where x's rare ids carry ``stamp`` in ``mark``; or a number below ``need``
    as soon as ``need`` cannot be reached.

    Frequent ids: AND of exact bitsets. Rare ids: first the bound
    |X ∩ Y| <= (|X| + |Y| - popcount(hx XOR hy)) / 2 from the hashed bitmaps (a bit set on
    one side only holds at least one id of the symmetric difference), then one marker
    look-up per id of y (independent loads, no merge).
    """
    c = 0
    for w in range(fwords):
        c += np.int64(popcount64(bits[dx, w] & bits[dy, w]))
    j = offsets[dy]
    je = split[dy]
    if hwords > 0:
        x = 0
        for w in range(fwords, fwords + hwords):
            x += np.int64(popcount64(bits[dx, w] ^ bits[dy, w]))
        if c + (split[dx] - offsets[dx] + je - j - x) // 2 < need:
            return -2
    while j < je:
        if c + je - j < need:
            return -1
        stop = j + 32
        if stop > je:
            stop = je
        for e in range(j, stop):
            c += np.int64(mark[tok[e]] == stamp)
        j = stop
    return c


@njit(cache=True, nogil=True)
def _grow(out):
    """The same values in an array twice as long (1-D, explicit loop: quick to compile)."""
    bigger = np.empty(out.size * 2, np.int64)
    for k in range(out.size):
        bigger[k] = out[k]
    return bigger


@njit(cache=True, nogil=True)
def _rows(out, cnt):
    """The first ``cnt`` rows of a flat (x, y, inter, union) buffer as a (cnt, 4) array."""
    rows = np.empty((cnt, 4), np.int64)
    for k in range(cnt):
        for c in range(4):
            rows[k, c] = out[4 * k + c]
    return rows


@njit(cache=True, nogil=True)
def _build_postings(order, offsets, tok, index_len, vocab, p, q, ell):
    """Inverted index of each document's first ``index_len`` tokens.

    An entry is one int64, (position in ``order``) << 32 | tag, sorted by position, so a
    scan reads a single stream. With ``ell`` = 0 the tag is 0. Otherwise it is the
    largest probe size |x| for which the entry lies in the ell-prefix of its document y
    (position j < |y| - alpha(|x|, |y|) + ell): alpha grows with |x|, so that is a bound
    on |x|, computed here once instead of per probe and entry.
    """
    counts = np.zeros(vocab + 1, np.int64)
    for s in range(order.size):
        a = offsets[order[s]]
        for k in range(index_len[s]):
            counts[tok[a + k] + 1] += 1
    start = np.zeros(vocab + 1, np.int64)
    for w in range(vocab):
        start[w + 1] = start[w] + counts[w + 1]
    fill = start[:vocab].copy()
    post = np.empty(start[vocab], np.int64)
    cap = np.int64(0x7FFFFFFF)
    for s in range(order.size):
        d = order[s]
        a = offsets[d]
        ly = offsets[d + 1] - a
        for k in range(index_len[s]):
            tag = np.int64(0)
            if ell > 0:
                if p == 0:
                    tag = cap
                else:
                    # alpha(|x|, ly) <= ly - k + ell - 1  <=>  |x| <= this
                    tag = ((ly - k + ell - 1) * (p + q)) // p - ly
                    if tag > cap:
                        tag = cap
                    if tag < 0:
                        tag = 0
            w = tok[a + k]
            post[fill[w]] = (np.int64(s) << 32) | tag
            fill[w] += 1
    return start, post


@njit(cache=True, nogil=True)
def _first_at_least(arr, lo, hi, value):
    """First index in arr[lo:hi] (sorted) whose value is >= value."""
    while lo < hi:
        mid = (lo + hi) >> 1
        if arr[mid] < value:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True, nogil=True)
def _alpha(p, q, lx, ly):
    """Required overlap for J >= p/q: max(1, ceil(p * (lx + ly) / (p + q)))."""
    a = (p * (lx + ly) + p + q - 1) // (p + q)
    return a if a > 1 else 1


@njit(cache=True, nogil=True)
def _ppjoin_probe(
    probes,
    order,
    slen,
    first_of_len,
    offsets,
    tok,
    split,
    bits,
    fwords,
    hwords,
    post_start,
    post,
    vocab,
    p,
    q,
    ell,
):
    """PPJoin probe for the documents at sorted positions ``probes``.

    Each probe x only meets documents earlier in size order (|y| <= |x|). With required
    overlap a = alpha(|x|, |y|), a true pair shares at least min(ell, a) shingles within
    the first |x| - a + ell shingles of x and the first |y| - a + ell of y (the
    ell-prefix principle; ell = 1 is the classic prefix filter: the first common shingle
    of a true pair lies in both prefixes). So the probe counts, per y, the common
    shingles inside both ell-prefixes: x's prefix positions are scanned in order and
    stop counting for a size of y once they leave its ell-prefix (a window on |y|, as
    the documents are in size order; the length filter is its lower end), and y's side
    is the entry's tag (:func:`_build_postings`). A y with count >= min(ell, a) is
    verified: first the bitmap bound, then an exact count.

    ``first_of_len[L]`` is the first sorted position whose size is >= L.

    Returns rows (doc x, doc y, inter, union) and counters: probes, postings entries
    visited, distinct documents met, candidates verified, pairs found, candidates
    rejected by the bitmap bound alone.
    """
    n = order.size
    acc = np.zeros(n, np.int32)
    touched = np.empty(n + 1, np.int32)
    mark = np.zeros(vocab, np.int32)
    # per shingle: first entry not yet ruled out by the length filter. Probes come in
    # increasing size order, so the smallest admissible size only grows: cursors only
    # move forward (no binary search per shingle and probe).
    cursor = post_start[:vocab].copy()
    max_len = first_of_len.size
    alpha_of = np.empty(max_len + 1, np.int64)
    out = np.empty(4096, np.int64)
    cnt = 0
    stats = np.zeros(6, np.int64)
    for k in range(probes.size):
        s = probes[k]
        dx = order[s]
        lx = slen[s]
        minlen = (p * lx + q - 1) // q
        if minlen < 1:
            minlen = 1
        prefix = lx - minlen + ell
        if prefix > lx:
            prefix = lx
        for ly in range(minlen, lx + 1):
            alpha_of[ly] = _alpha(p, q, lx, ly)
        lo_s = first_of_len[minlen]
        lo_key = np.int64(lo_s) << 32
        top = lx  # largest |y| whose ell-prefix of x still reaches position i
        ntouch = 0
        x0 = offsets[dx]
        stats[0] += 1
        for i in range(prefix):
            while top >= minlen and alpha_of[top] > lx - i + ell - 1:
                top -= 1
            if top < minlen:
                break
            hi_s = first_of_len[top + 1] if top + 1 < max_len else n
            if hi_s > s:
                hi_s = s
            if hi_s <= lo_s:
                continue
            w = tok[x0 + i]
            b = post_start[w + 1]
            e = cursor[w]
            while e < b and post[e] < lo_key:
                e += 1
            cursor[w] = e
            e0 = e
            hi_key = np.int64(hi_s) << 32
            # branch-free count: the conditions here are unpredictable
            while e < b:
                entry = post[e]
                if entry >= hi_key:
                    break
                e += 1
                y = entry >> 32
                inside = np.int32(lx <= (entry & 0xFFFFFFFF))
                av = acc[y]
                touched[ntouch] = y
                ntouch += (av == 0) & (inside == 1)
                acc[y] = av + inside
            stats[1] += e - e0
        stats[2] += ntouch
        # keep the candidates (count >= min(ell, alpha)), reset the counts
        ncand = 0
        for t in range(ntouch):
            y = touched[t]
            av = acc[y]
            acc[y] = 0
            if av >= ell or av >= alpha_of[slen[y]]:
                touched[ncand] = y
                ncand += 1
        stats[3] += ncand
        # touch every candidate's bitmap row first: independent loads overlap their
        # cache misses, so the bound below mostly reads cached lines
        warm = np.uint64(0)
        for t in range(ncand):
            dy = order[touched[t]]
            for w in range(0, fwords + hwords, 8):
                warm ^= bits[dy, w]
        stats[5] += np.int64(warm & np.uint64(0))
        if ncand > 0:
            _mark(mark, k + 1, tok, x0, split[dx])
        for t in range(ncand):
            y = touched[t]
            ly = slen[y]
            alpha = alpha_of[ly]
            dy = order[y]
            inter = _overlap_marked(
                mark, k + 1, tok, offsets, split, bits, fwords, hwords, dx, dy, alpha
            )
            if inter == -2:
                stats[5] += 1
            if inter >= alpha:
                if 4 * cnt + 4 > out.size:
                    out = _grow(out)
                out[4 * cnt] = dx
                out[4 * cnt + 1] = dy
                out[4 * cnt + 2] = inter
                out[4 * cnt + 3] = lx + ly - inter
                cnt += 1
    stats[4] = cnt
    return _rows(out, cnt), stats


@njit(cache=True, nogil=True)
def _brute_probe(lo, hi, lens, offsets, tok, split, bits, fwords, post_start, post, p, q):
    """Every pair (x, y) with lo <= x < hi and y > x, compared exactly.

    The overlap is the popcount of the AND of the exact bitsets of the most frequent
    shingles (those ids are >= the documents' ``split`` points) plus the count of shared
    rare shingles, gathered from an inverted index of the rare ones (the sparse product
    X·Xᵀ restricted to them). Every pair gets the same two terms; rows come out sorted by
    (x, y).

    Returns rows (x, y, inter, union) and counters as :func:`_ppjoin_probe` (every pair is
    counted exactly: "documents met" counts the pairs compared, "verified" the same).
    """
    n = lens.size
    acc = np.zeros(n, np.int32)
    out = np.empty(4096, np.int64)
    cnt = 0
    stats = np.zeros(6, np.int64)
    pq = p + q
    for x in range(lo, hi):
        lx = lens[x]
        if lx == 0:
            continue
        stats[0] += 1
        for m in range(offsets[x], split[x]):
            w = tok[m]
            b = post_start[w + 1]
            e = _first_at_least(post, post_start[w], b, np.int64(x + 1) << 32)
            stats[1] += b - e
            while e < b:
                acc[post[e] >> 32] += 1
                e += 1
        for y in range(x + 1, n):
            ly = lens[y]
            inter = np.int64(acc[y])
            acc[y] = 0
            if ly == 0:
                continue
            for w in range(fwords):
                inter += np.int64(popcount64(bits[x, w] & bits[y, w]))
            alpha = (p * (lx + ly) + pq - 1) // pq
            if alpha < 1:
                alpha = 1
            if inter >= alpha:
                if 4 * cnt + 4 > out.size:
                    out = _grow(out)
                out[4 * cnt] = x
                out[4 * cnt + 1] = y
                out[4 * cnt + 2] = inter
                out[4 * cnt + 3] = lx + ly - inter
                cnt += 1
            stats[2] += 1
    stats[3] = stats[2]
    stats[4] = cnt
    return _rows(out, cnt), stats


@njit(cache=True, nogil=True)
def _pair_overlaps(pi, pj, offsets, tok, split, bits, fwords, hwords, vocab):
    """Exact |x ∩ y| for the given pairs (fastest when equal ``pi`` are adjacent)."""
    out = np.empty(pi.size, np.int64)
    mark = np.zeros(vocab, np.int32)
    stamp = 0
    last = -1
    for k in range(pi.size):
        dx = pi[k]
        if dx != last:
            stamp += 1
            _mark(mark, stamp, tok, offsets[dx], split[dx])
            last = dx
        out[k] = _overlap_marked(
            mark, stamp, tok, offsets, split, bits, fwords, hwords, dx, pj[k], 0
        )
    return out


# --------------------------------------------------------------------------- preparation


@dataclass(frozen=True)
class _Tokens:
    """Documents as sorted, distinct integer token ids (rarest shingle = 0)."""

    offsets: np.ndarray  # int64 (n + 1,)
    tokens: np.ndarray  # int32 (total,), each document's slice strictly increasing
    lengths: np.ndarray  # int64 (n,), distinct shingles per document
    vocab: int

    @property
    def n(self) -> int:
        return self.lengths.size


def _is_doc(d) -> bool:
    """A sized iterable that is not a str, bytes or mapping."""
    if isinstance(d, (str, bytes, bytearray, dict)):
        return False
    return hasattr(d, "__len__") and hasattr(d, "__iter__")


def _documents(sets) -> list:
    """``sets`` as a list of documents, each a sized iterable of shingles (not a str)."""
    if isinstance(sets, (str, bytes, bytearray)) or not hasattr(sets, "__iter__"):
        raise ValueError(
            f"sets must be a sequence of documents, each a list of str shingles; "
            f"got {type(sets).__name__}"
        )
    if isinstance(sets, np.ndarray) and sets.ndim != 1:
        raise ValueError(
            f"sets must be a sequence of documents (one list of str shingles each); "
            f"got an array of shape {sets.shape}"
        )
    docs = sets if isinstance(sets, list) else list(sets)
    bad = next((k for k, d in enumerate(docs) if type(d) is not list and not _is_doc(d)), None)
    if bad is not None:
        raise ValueError(
            f"sets[{bad}] is a {type(docs[bad]).__name__}; each document must be a list "
            "(or tuple, set, array) of str shingles, e.g. the output of nearsim.shingles"
        )
    return docs


def _first_non_str(docs) -> str:
    for k, d in enumerate(docs):
        for s in d:
            if not isinstance(s, str):
                return f"sets[{k}] holds {s!r} of type {type(s).__name__}"
    return "a shingle is not a str"


def _exact_codes(docs, total: int):
    """Fallback interning by Python string hashing (slower, always exact)."""
    flat = np.fromiter(chain.from_iterable(docs), dtype=object, count=total)
    codes, uniques = pd.factorize(flat)
    return codes, np.bincount(codes, minlength=len(uniques))


def _codes_from_keys(k0, k1, hashed, buf, starts, ends):
    """Ids from keys (parts of the key space on different threads), or None if two
    different hashed shingles ever share a key."""
    total = k0.size
    codes = np.empty(total, np.int64)
    nparts = _threads() if total >= 200_000 else 1
    if nparts == 1:
        parts = [_factorize_part(k0, k1, 0, 1, codes)]
    else:
        with ThreadPoolExecutor(max_workers=nparts) as pool:
            parts = list(
                pool.map(lambda k: _factorize_part(k0, k1, k, nparts, codes), range(nparts))
            )
    width = max(f.size for f, _ in parts)
    first = np.full(width * nparts, -1, np.int64)
    counts = np.zeros(width * nparts, np.int64)
    for k, (f, c) in enumerate(parts):
        first[k : k + nparts * f.size : nparts] = f
        counts[k : k + nparts * c.size : nparts] = c
    if hashed and not _verify_codes(buf, starts, ends, codes, first):
        return None
    return codes, counts


def _intern(docs, lengths: np.ndarray, total: int):
    """Ids for the flattened shingles (equal ids iff equal strings) and each id's count.

    The shingles are joined with NUL in C, encoded once as UTF-8 and keyed in compiled
    code: a shingle of up to 15 bytes is its own key; a longer one is hashed and every
    hashed shingle is compared byte by byte with the first one of its id, with a fall
    back to exact Python hashing if two ever differ. Ids may have gaps (count 0).
    """
    try:
        # joining each document first is about twice as fast as one chained join; empty
        # documents are left out (they would add empty pieces)
        big = "\x00".join(map("\x00".join, compress(docs, (lengths > 0).tolist())))
    except TypeError:
        raise ValueError(f"every shingle must be a str; {_first_non_str(docs)}") from None
    buf = np.frombuffer(big.encode("utf-8", "surrogatepass"), np.uint8)
    del big
    sep = np.flatnonzero(buf == 0)
    if sep.size != total - 1:  # a shingle contains NUL: the pieces are ambiguous
        return _exact_codes(docs, total)
    starts = np.empty(total, np.int64)
    starts[0] = 0
    starts[1:] = sep + 1
    ends = np.empty(total, np.int64)
    ends[:-1] = sep
    ends[-1] = buf.size
    del sep
    k0, k1, hashed = _keys(buf, starts, ends)
    result = _codes_from_keys(k0, k1, hashed, buf, starts, ends)
    return result if result is not None else _exact_codes(docs, total)


def _keys(buf, starts, ends):
    """:func:`_span_keys` over halves of the shingles on a few threads."""
    total = starts.size
    threads = _threads()
    if threads == 1 or total < 200_000:
        return _span_keys(buf, starts, ends)
    edges = np.linspace(0, total, threads + 1).astype(np.int64)
    with ThreadPoolExecutor(max_workers=threads) as pool:
        parts = list(
            pool.map(
                lambda k: _span_keys(
                    buf, starts[edges[k] : edges[k + 1]], ends[edges[k] : edges[k + 1]]
                ),
                range(threads),
            )
        )
    k0 = np.concatenate([p[0] for p in parts])
    k1 = np.concatenate([p[1] for p in parts])
    return k0, k1, any(p[2] for p in parts)


def _check_flat(flat):
    """The arrays of a FlatShingles, after checking every span lies in the buffer
    (compiled code does not check bounds)."""
    try:
        buf = np.ascontiguousarray(flat.buf, dtype=np.uint8).reshape(-1)
        starts = np.ascontiguousarray(flat.starts, dtype=np.int64).reshape(-1)
        ends = np.ascontiguousarray(flat.ends, dtype=np.int64).reshape(-1)
        offsets = np.ascontiguousarray(flat.doc_offsets, dtype=np.int64).reshape(-1)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"FlatShingles arrays are not numeric: {exc}") from None
    if starts.size != ends.size:
        raise ValueError(
            f"FlatShingles has {starts.size} span starts but {ends.size} ends; they must match"
        )
    if (
        offsets.size == 0
        or offsets[0] != 0
        or offsets[-1] != starts.size
        or np.any(np.diff(offsets) < 0)
    ):
        raise ValueError(
            "FlatShingles doc_offsets must rise from 0 to the number of shingles "
            f"({starts.size}); got {offsets[:5].tolist()}...{offsets[-3:].tolist()}"
        )
    if starts.size and (starts.min() < 0 or ends.max() > buf.size or np.any(ends < starts)):
        raise ValueError(
            f"FlatShingles has a span outside its buffer of {buf.size} bytes "
            "(each span needs 0 <= start <= end <= len(buf))"
        )
    return buf, starts, ends, offsets


def _intern_flat(buf, starts, ends):
    """As :func:`_intern`, for shingles already given as spans of one UTF-8 buffer."""
    k0, k1, hashed = _keys(buf, starts, ends)
    result = _codes_from_keys(k0, k1, hashed, buf, starts, ends)
    if result is None:  # pragma: no cover - needs a 120-bit hash collision
        flat_obj = np.array(
            [bytes(buf[a:b]) for a, b in zip(starts.tolist(), ends.tolist(), strict=True)],
            dtype=object,
        )
        codes, uniques = pd.factorize(flat_obj)
        result = codes, np.bincount(codes, minlength=len(uniques))
    return result


# The last FlatShingles prepared, and its tokens: the app asks for the exact pairs and for
# the similarity sample of the same shingles one after the other.
_LAST_FLAT: list = []
_LAST_FLAT_LOCK = threading.Lock()


def _cached_tokens(buf, starts, ends, offsets):
    """Tokens of equal FlatShingles prepared last time, if any (same read-only buffer
    object and equal spans), else None."""
    if buf.flags.writeable:
        return None
    with _LAST_FLAT_LOCK:
        if not _LAST_FLAT:
            return None
        old_buf, old_starts, old_ends, old_offsets, tokens = _LAST_FLAT[0]
    same = (
        old_buf is buf
        and np.array_equal(old_offsets, offsets)
        and np.array_equal(old_starts, starts)
        and np.array_equal(old_ends, ends)
    )
    return tokens if same else None


def _prepare(sets) -> _Tokens:
    """Documents as sorted distinct integer ids (see :class:`_Tokens`)."""
    if isinstance(sets, FlatShingles):
        buf, starts, ends, offsets = _check_flat(sets)
        cached = _cached_tokens(sets.buf, starts, ends, offsets)
        if cached is not None:
            return cached
        tokens = _prepare_flat(buf, starts, ends, offsets)
        if not sets.buf.flags.writeable:
            with _LAST_FLAT_LOCK:
                _LAST_FLAT[:] = [(sets.buf, starts, ends, offsets, tokens)]
        return tokens
    return _prepare_lists(sets)


def _prepare_flat(buf, starts, ends, offsets) -> _Tokens:
    """Tokens of checked FlatShingles arrays."""
    n = offsets.size - 1
    if int(offsets[-1]) == 0:
        return _Tokens(offsets, np.empty(0, np.int32), np.zeros(n, np.int64), 0)
    codes, counts = _intern_flat(buf, starts, ends)
    return _ranked(offsets, codes, counts)


def _prepare_lists(sets) -> _Tokens:
    """Tokens of a sequence of shingle lists (validated here)."""
    docs = _documents(sets)
    n = len(docs)
    try:
        lengths = np.fromiter(map(len, docs), np.int64, count=n)
    except TypeError as exc:  # pragma: no cover - guarded by _documents
        raise ValueError(f"each document must be a sized list of str shingles: {exc}") from None
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    total = int(offsets[-1])
    if total == 0:
        return _Tokens(offsets, np.empty(0, np.int32), np.zeros(n, np.int64), 0)
    codes, counts = _intern(docs, lengths, total)
    return _ranked(offsets, codes, counts)


def _ranked(offsets, codes, counts) -> _Tokens:
    """Documents as sorted distinct ids, numbered by frequency (rarest first)."""
    # rank ids by frequency, rarest first; unused ids (count 0) come first and are cut off
    unused = int(np.count_nonzero(counts == 0))
    rank = np.empty(counts.size, np.int32)
    rank[np.argsort(counts, kind="stable")] = np.arange(
        -unused, counts.size - unused, dtype=np.int32
    )
    tok = rank[codes]
    vocab = counts.size - unused
    new_off, tok, sizes = _sorted_sets(offsets, tok, vocab)
    return _Tokens(new_off, tok, sizes, vocab)


def _verification_index(prep: _Tokens, fbits: int | None = None, hbits: int | None = None):
    """Bitsets for :func:`_overlap_marked`: the ``fbits`` most frequent ids exact, the
    others hashed into ``hbits`` bits. Default: every id exact when there are at most
    ``_EXACT_VOCAB`` of them, else all hashed."""
    if fbits is None:
        fbits = prep.vocab if prep.vocab <= _EXACT_VOCAB else 0
    if hbits is None:
        hbits = _HASHED_BITS
    fwords = min(fbits, -(-prep.vocab // 64) * 64) // 64
    base = max(prep.vocab - 64 * fwords, 0)
    hwords = hbits // 64 if base > 0 else 0
    bits, split = _verify_bits(prep.offsets, prep.tokens, np.int32(base), fwords, hwords)
    return bits, split, fwords, hwords


# --------------------------------------------------------------------------- running


def _threads() -> int:
    return max(1, min(numba.get_num_threads(), os.cpu_count() or 1))


def _run(kernel, probes: np.ndarray, args: tuple):
    """Run ``kernel(chunk, *args)`` over interleaved chunks of ``probes`` on a few threads."""
    threads = _threads()
    if threads == 1 or probes.size < _PARALLEL_MIN_PROBES:
        parts = [kernel(probes, *args)]
    else:
        k = threads * 8
        chunks = [np.ascontiguousarray(probes[c::k]) for c in range(k)]
        with ThreadPoolExecutor(max_workers=threads) as pool:
            parts = list(pool.map(lambda c: kernel(c, *args), chunks))
    rows = np.concatenate([r for r, _ in parts]) if parts else np.empty((0, 4), np.int64)
    stats = np.sum([s for _, s in parts], axis=0)
    return rows, stats


def _run_ranges(kernel, n: int, args: tuple):
    """Run ``kernel(lo, hi, *args)`` over ranges of x whose pairs (x, y > x) are about
    equally many, on a few threads; rows stay sorted by (x, y)."""
    threads = _threads()
    pieces = 1 if threads == 1 or n < _PARALLEL_MIN_PROBES else 8 * threads
    # x_k with about k / pieces of the n^2 / 2 pairs before it
    edges = np.unique(
        np.round(n - n * np.sqrt(1.0 - np.arange(pieces + 1) / pieces)).astype(np.int64)
    )
    edges[0], edges[-1] = 0, n
    ranges = list(zip(edges[:-1].tolist(), edges[1:].tolist(), strict=True))
    if len(ranges) == 1:
        parts = [kernel(0, n, *args)]
    else:
        with ThreadPoolExecutor(max_workers=threads) as pool:
            parts = list(pool.map(lambda r: kernel(r[0], r[1], *args), ranges))
    rows = np.concatenate([r for r, _ in parts])
    stats = np.sum([s for _, s in parts], axis=0)
    return rows, stats


def _overlaps(prep: _Tokens, verify, pi: np.ndarray, pj: np.ndarray) -> np.ndarray:
    """|x ∩ y| for the pairs (pi, pj), sorted by pi, in contiguous chunks on a few threads."""
    bits, split, fwords, hwords = verify
    args = (prep.offsets, prep.tokens, split, bits, fwords, hwords, prep.vocab)
    threads = _threads()
    if threads == 1 or pi.size < 50_000:
        return _pair_overlaps(pi, pj, *args)
    edges = np.linspace(0, pi.size, 4 * threads + 1).astype(np.int64)
    with ThreadPoolExecutor(max_workers=threads) as pool:
        parts = list(
            pool.map(
                lambda k: _pair_overlaps(
                    pi[edges[k] : edges[k + 1]], pj[edges[k] : edges[k + 1]], *args
                ),
                range(edges.size - 1),
            )
        )
    return np.concatenate(parts)


def _frame(rows: np.ndarray) -> pd.DataFrame:
    """Rows (x, y, inter, union) as the sorted i, j, jaccard frame."""
    if rows.shape[0] == 0:
        return pd.DataFrame({"i": _EMPTY_I64, "j": _EMPTY_I64, "jaccard": np.empty(0, np.float64)})
    a = rows[:, 0]
    b = rows[:, 1]
    i = np.minimum(a, b)
    j = np.maximum(a, b)
    jac = rows[:, 2].astype(np.float64) / rows[:, 3].astype(np.float64)
    if not _is_sorted(i, j):
        order = np.lexsort((j, i))
        i, j, jac = i[order], j[order], jac[order]
    return pd.DataFrame({"i": i, "j": j, "jaccard": jac})


def _is_sorted(i: np.ndarray, j: np.ndarray) -> bool:
    """True iff the pairs (i, j) are strictly increasing."""
    di = np.diff(i)
    return bool(np.all((di > 0) | ((di == 0) & (np.diff(j) > 0))))


def _join(prep: _Tokens, frac: Fraction, method: str, verify=None, ell: int = _ELL):
    """Rows (x, y, inter, union) of every pair at or above ``frac``, and the counters."""
    p = np.int64(frac.numerator)
    q = np.int64(frac.denominator)
    if method == "auto":
        method = "brute" if prep.n <= AUTO_BRUTE_LIMIT else "ppjoin"
    if prep.vocab == 0 or prep.n < 2:
        return np.empty((0, 4), np.int64), np.zeros(6, np.int64), method
    if method == "brute":
        fbits = prep.vocab if prep.vocab <= _EXACT_VOCAB else _BRUTE_FREQUENT_BITS
        bits, split, fwords, _ = _verification_index(prep, fbits=fbits, hbits=0)
        ident = np.arange(prep.n, dtype=np.int64)
        post_start, post = _build_postings(
            ident,
            prep.offsets,
            prep.tokens,
            split - prep.offsets[:-1],
            prep.vocab,
            p,
            q,
            np.int64(0),
        )
        args = (prep.lengths, prep.offsets, prep.tokens, split, bits, fwords, post_start, post)
        rows, stats = _run_ranges(_brute_probe, prep.n, (*args, p, q))
        return rows, stats, method
    nonempty = np.flatnonzero(prep.lengths > 0)
    order = nonempty[np.argsort(prep.lengths[nonempty], kind="stable")].astype(np.int64)
    slen = prep.lengths[order]
    need = (2 * p * slen + p + q - 1) // (p + q)
    index_len = np.minimum(slen - np.maximum(need, 1) + ell, slen)
    post_start, post = _build_postings(
        order, prep.offsets, prep.tokens, index_len, prep.vocab, p, q, np.int64(ell)
    )
    bits, split, fwords, hwords = verify if verify is not None else _verification_index(prep)
    # first_of_len[L]: first sorted position with size >= L (L = 0 .. max size + 1)
    first_of_len = np.searchsorted(slen, np.arange(int(slen[-1]) + 2), side="left")
    probes = np.arange(order.size, dtype=np.int64)
    rows, stats = _run(
        _ppjoin_probe,
        probes,
        (
            order,
            slen,
            first_of_len,
            prep.offsets,
            prep.tokens,
            split,
            bits,
            fwords,
            hwords,
            post_start,
            post,
            prep.vocab,
            p,
            q,
            np.int64(ell),
        ),
    )
    return rows, stats, method


# --------------------------------------------------------------------------- public API


def exact_pairs(sets, threshold, method: str = "auto") -> pd.DataFrame:
    """Every pair of documents whose exact Jaccard similarity reaches ``threshold``.

    Parameters
    ----------
    sets : sequence of sequences of str, length n, or FlatShingles
        One entry per document: its shingles (as produced by :func:`nearsim.shingles`),
        or the same as ``nearsim._hashing.FlatShingles`` spans. Each entry is treated as
        a set; repeats are ignored. A document with no shingles is never in a pair.
    threshold : float
        In (0, 1]. Read as the fraction P/Q with Q <= 10**6 nearest to it (0.7 is 7/10);
        a pair is included iff it shares a shingle and ``inter * Q >= P * union`` in exact
        integers. See the module docstring.
    method : {"auto", "brute", "ppjoin"}
        ``brute`` compares every pair (bitsets of the frequent shingles plus an inverted
        index of the rare ones), ``ppjoin`` is the exact similarity join with prefix,
        length and positional filtering. ``auto`` uses brute
        for up to 2,500 documents and ppjoin above. All give identical output.

    Returns
    -------
    pandas.DataFrame
        Columns ``i`` (int64), ``j`` (int64), ``jaccard`` (float64), one row per pair,
        ``i < j``, sorted by (i, j), default RangeIndex. ``jaccard`` is
        ``inter / (|x| + |y| - inter)`` in float64.

    Raises
    ------
    ValueError
        If ``threshold`` is not in (0, 1], ``method`` is not one of the three, or ``sets``
        is not a sequence of sequences of str.
    """
    frac = threshold_fraction(threshold)
    method = _check_method(method)
    prep = _prepare(sets)
    rows, _, _ = _join(prep, frac, method)
    return _frame(rows)


def _join_with_stats(sets, threshold, method: str = "auto"):
    """``exact_pairs`` plus the filter counters (for the benchmark)."""
    frac = threshold_fraction(threshold)
    method = _check_method(method)
    prep = _prepare(sets)
    rows, stats, used = _join(prep, frac, method)
    names = ("probes", "entries", "candidates", "verified", "pairs", "bitmap_rejected")
    return _frame(rows), dict(zip(names, stats.tolist(), strict=True)) | {"method": used}


def similarity_band(jaccard) -> np.ndarray:
    """Index of the 0.05-wide similarity band of each Jaccard value.

    Parameters
    ----------
    jaccard : array_like of float, shape (m,)
        Values in [0, 1].

    Returns
    -------
    numpy.ndarray of int64, shape (m,)
        ``k`` for ``k/20 <= J < (k+1)/20``; J = 1 is in band 19. A value that is exactly a
        band edge as a fraction (J = 7/20 computed as 0.35) goes to the upper band, the
        same split :func:`similarity_sample` uses.
    """
    values = np.asarray(jaccard, dtype=np.float64)
    # inter/union with union < 10**7 is never within 1e-9 of a band edge unless it is on it
    band = np.floor(values * N_BANDS + 1e-9).astype(np.int64)
    return np.clip(band, 0, N_BANDS - 1)


def _default_floor(frac: Fraction) -> Fraction:
    """Lowest band edge listed exactly above the all-pairs limit: the band edge at or
    below ``threshold - 0.25`` (where a tuned S-curve starts to rise), but not below 0.5
    (the join's cost grows quickly below it)."""
    edge = math.floor((frac - Fraction(1, 4)) * N_BANDS)
    return Fraction(max(edge, N_BANDS // 2), N_BANDS)


def _pairs_from_linear(k: np.ndarray, m: int):
    """Map linear indices of the pairs (a < b) of m items, in (a, b) order, to (a, b)."""
    a_idx = np.arange(m, dtype=np.int64)
    row_start = a_idx * (2 * m - a_idx - 1) // 2
    a = np.searchsorted(row_start, k, side="right") - 1
    b = k - row_start[a] + a + 1
    return a, b


def similarity_sample(
    sets,
    *,
    threshold,
    seed: int = 0,
    all_pairs_limit: int = AUTO_BRUTE_LIMIT,
    sample_size: int = 300_000,
    floor=None,
) -> pd.DataFrame:
    """Pairs with their exact Jaccard over the whole range, for candidate rates per band.

    The measured-rate chart needs, for each 0.05 band of similarity, the share of pairs
    in the band that became LSH candidates. This returns the pairs to count.

    * Up to ``all_pairs_limit`` documents: every pair of non-empty documents. Pairs that
      share no shingle (Jaccard 0) are not listed; their number is in
      ``attrs["zero_pairs"]`` (they belong to band 0, and are never candidates unless
      two disjoint sets collide on a whole band of MinHash values). ``sampled`` is False.
    * Above: every pair with Jaccard >= ``floor`` from the exact join (``sampled`` False),
      plus a uniform random sample without replacement of ``sample_size`` pairs of
      non-empty documents, of which the ones with Jaccard < ``floor`` are kept
      (``sampled`` True). ``floor`` is a band edge, so each band is either complete or
      sampled, never mixed. Within a sampled band the kept pairs are a uniform random
      sample of the band's pairs, so the share of candidates among them is an unbiased
      estimate of the band's rate; ``attrs["sample_fraction"]`` scales sampled counts
      back to the population. Sampled pairs with Jaccard 0 are counted in
      ``attrs["zero_pairs"]`` instead of listed.

    Parameters
    ----------
    sets : sequence of sequences of str, length n, or FlatShingles
        Documents as shingle lists, as for :func:`exact_pairs`.
    threshold : float
        The detection threshold in (0, 1]; sets the default ``floor``.
    seed : int
        Seed of the pair sample (same seed, same rows).
    all_pairs_limit : int
        Up to this many documents every pair is listed.
    sample_size : int
        Pairs drawn above the limit (all of them if there are fewer).
    floor : float, optional
        Band edge (a multiple of 0.05 in (0, 1]) from which pairs are listed completely
        above the limit. Default: the band edge at or below ``threshold - 0.25`` (where
        a tuned S-curve starts to rise), but at least 0.5, because the join's cost grows
        quickly below that (on 20,000 news-like texts: about 0.4 s at 0.7, 1.8 s at 0.5,
        8 s at 0.3). Bands below the floor rest on the sample alone: with 300,000 pairs
        drawn, bands with few pairs in the corpus get few rows, and their rate a wide
        error bar.

    Returns
    -------
    pandas.DataFrame
        Columns ``i`` (int64), ``j`` (int64), ``jaccard`` (float64), ``sampled`` (bool),
        ``i < j``, sorted by (i, j), default RangeIndex. ``attrs``: ``mode`` ("all" or
        "sampled"), ``population`` (pairs of non-empty documents), ``zero_pairs``,
        ``floor`` (float, or None in mode "all"), ``sample_fraction`` (drawn pairs /
        population; 1.0 in mode "all"), ``sampled_pairs`` (pairs drawn).

    Raises
    ------
    ValueError
        For a bad ``threshold``, ``floor``, ``seed``, ``all_pairs_limit``, ``sample_size``
        or ``sets``.
    """
    frac = threshold_fraction(threshold)
    for name, value, low in (
        ("seed", seed, 0),
        ("all_pairs_limit", all_pairs_limit, 0),
        ("sample_size", sample_size, 1),
    ):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
            raise ValueError(f"{name}={value!r} is not accepted; use an integer >= {low}")
    if floor is None:
        floor_frac = _default_floor(frac)
    else:
        floor_frac = threshold_fraction(floor, name="floor")
        if floor_frac == 0 or floor_frac * N_BANDS != round(floor_frac * N_BANDS):
            raise ValueError(
                f"floor={floor!r} is not accepted; use a band edge, a multiple of 0.05 in (0, 1]"
            )
    prep = _prepare(sets)
    nonempty = np.flatnonzero(prep.lengths > 0)
    m = nonempty.size
    population = m * (m - 1) // 2
    if len(prep.lengths) <= all_pairs_limit:
        rows, _, _ = _join(prep, Fraction(0), "brute")
        df = _frame(rows)
        df["sampled"] = np.zeros(len(df), dtype=bool)
        df.attrs.update(
            mode="all",
            population=population,
            zero_pairs=population - len(df),
            floor=None,
            sample_fraction=1.0,
            sampled_pairs=population,
        )
        return df
    verify = _verification_index(prep)
    rows, _, _ = _join(prep, floor_frac, "ppjoin", verify=verify)
    drawn = min(int(sample_size), population)
    rng = np.random.default_rng(int(seed))
    if drawn == population:
        lin = np.arange(population, dtype=np.int64)
    else:
        lin = np.sort(rng.choice(population, size=drawn, replace=False)).astype(np.int64)
    a, b = _pairs_from_linear(lin, m)
    pi = nonempty[a].astype(np.int64)
    pj = nonempty[b].astype(np.int64)
    inter = _overlaps(prep, verify, pi, pj)
    union = prep.lengths[pi] + prep.lengths[pj] - inter
    below = inter * floor_frac.denominator < floor_frac.numerator * union
    keep = below & (inter > 0)
    i = np.concatenate([np.minimum(rows[:, 0], rows[:, 1]), pi[keep]])
    j = np.concatenate([np.maximum(rows[:, 0], rows[:, 1]), pj[keep]])
    inter_all = np.concatenate([rows[:, 2], inter[keep]]).astype(np.float64)
    union_all = np.concatenate([rows[:, 3], union[keep]]).astype(np.float64)
    sampled = np.concatenate([np.zeros(rows.shape[0], bool), np.ones(int(keep.sum()), bool)])
    order = np.lexsort((j, i))
    df = pd.DataFrame(
        {
            "i": i[order],
            "j": j[order],
            "jaccard": inter_all[order] / union_all[order],
            "sampled": sampled[order],
        }
    )
    df.attrs.update(
        mode="sampled",
        population=population,
        zero_pairs=int(np.count_nonzero(inter == 0)),
        floor=float(floor_frac),
        sample_fraction=drawn / population if population else 1.0,
        sampled_pairs=drawn,
    )
    return df


def warm_up() -> None:
    """Compile (or load from numba's on-disk cache) every kernel of this module.

    The first call in a fresh environment compiles them (some seconds; the numbers are in
    ``benchmarks/RESULTS.md``); later processes load the cached machine code in a fraction
    of a second. Call it from a set-up step or a background thread at start-up so the
    first real request does not pay for it.
    """
    sets = [["abcde", "bcdef", "cdefg"], ["abcde", "bcdef", "xyz"], [], ["é" * 20, "q"]] * 3
    exact_pairs(sets, 0.5, method="brute")
    exact_pairs(sets, 0.5, method="ppjoin")
    similarity_sample(sets, threshold=0.5, all_pairs_limit=2, sample_size=10)
    buf = np.frombuffer(b"abcdeabcdfxyz", dtype=np.uint8)
    flat = FlatShingles(buf, np.array([0, 5, 10]), np.array([5, 10, 13]), np.array([0, 2, 3]))
    exact_pairs(flat, 0.5, method="ppjoin")
