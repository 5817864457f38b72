"""The exact similarity join's compiled kernels and the code that runs them.

Two ways to the same answer (the choice and the threshold rule are in
:mod:`nearsim.join.exact`):

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
  bitset when there are at most 4,096 distinct shingles; a bit set on one side only
  stands for at least one shingle the other lacks, so
  overlap <= (|x| + |y| - popcount(bx XOR by)) / 2), and only if the bound allows it
  counted exactly against a marker array of the probe's shingles. ell = 6 here; the
  running PPJoin bound (count so far + shingles left) pruned nothing beyond that on the
  benchmark corpora, so the count runs branch-free instead.

The threshold reaches the kernels only as two integer tables, computed exactly once per
call (:func:`nearsim.join.exact.overlap_tables`): ``min_overlap[s]``, the smallest overlap a
pair with |x| + |y| = s needs, and ``min_size[l]``, the smallest size a partner of a
document of size l may have. Every filter is a look-up in them, so no filter can lose a
pair to rounding.

Kernels take the token arrays of :class:`nearsim.join.tokens.TokenSets` (offsets int64,
tokens int32, each document's ids strictly increasing) and return rows
(x, y, inter, union) plus counters.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from nearsim.utils.arrays import grow, popcount64
from nearsim.utils.threads import pool_map, threads

if TYPE_CHECKING:  # pandas is loaded only where a frame is made
    import pandas as pd

# Verification bitsets: with at most this many distinct shingles every shingle gets an
# exact bit; above, all are hashed into _HASHED_BITS bits for an upper bound on the overlap.
_EXACT_VOCAB = 4096
_HASHED_BITS = 1024
# Long documents (a mean of at least _LONG_DOCUMENT distinct shingles: web pages, manual
# pages, source files) fill 1,024 hashed bits and the bound prunes nothing; and templated
# families share many of the corpus's commonest shingles. For them the _EXACT_VOCAB most
# frequent ids get exact bits (counted by popcount, not one look-up each) and the rest are
# hashed into MAX_VERIFY_BITS bits. On 12,000 installed documents (2,610 shingles on average)
# the join at t = 0.5 went from 20.7 s to 3.8 s with the same rows; on 20,000 short news
# items (184) the short layout stays faster (1.1 s against 1.6 s at t = 0.5).
_LONG_DOCUMENT = 500
_LONG_EXACT_BITS = 4096
# Largest exact or hashed part of a bitset a caller may ask for (bits per document).
MAX_VERIFY_BITS = 4096
# brute: the most frequent shingles counted by bitset AND (the rest through postings)
_BRUTE_FREQUENT_BITS = 1024
# The ell of the ell-prefix filter (see _ppjoin_probe).
ELL = 6
# Below this many probes the thread pool is not worth starting.
_PARALLEL_MIN_PROBES = 512
# Counters every kernel returns (the funnel kernel fills the last two).
STATS = ("probes", "entries", "met", "candidates", "pairs", "bitmap_rejected", "prefix", "length")


# --------------------------------------------------------------------------- verification


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
def _mark(mark, tok, lo, hi):
    """Set the bits of the ids tok[lo:hi] in the probe's marker bitset (uint64 words, one
    bit per id: vocab / 8 bytes, so it stays in cache where an int32 per id did not; the
    pair overlaps of the similarity sample on long documents took 1.5x less time)."""
    for e in range(lo, hi):
        t = tok[e]
        mark[t >> 6] |= np.uint64(1) << np.uint64(t & 63)


@njit(cache=True, nogil=True)
def _unmark(mark, tok, lo, hi):
    """Clear the words :func:`_mark` set for tok[lo:hi] (the bitset is all zeros again)."""
    for e in range(lo, hi):
        mark[tok[e] >> 6] = np.uint64(0)


@njit(cache=True, nogil=True, inline="always")
def _overlap_marked(mark, tok, offsets, split, bits, fwords, hwords, dx, dy, need):
    """|x ∩ y| where x's rare ids are set in the bitset ``mark``; or a number below ``need``
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
            t = tok[e]
            c += np.int64((mark[t >> 6] >> np.uint64(t & 63)) & np.uint64(1))
        j = stop
    return c


@njit(cache=True, nogil=True, inline="always")
def _put(out, cnt, x, y, inter, union):
    """Row ``cnt`` of a flat (x, y, inter, union) buffer set, the buffer grown if full."""
    if 4 * cnt + 4 > out.size:
        out = grow(out)
    out[4 * cnt] = x
    out[4 * cnt + 1] = y
    out[4 * cnt + 2] = inter
    out[4 * cnt + 3] = union
    return out


@njit(cache=True, nogil=True)
def _rows(out, cnt):
    """The first ``cnt`` rows of a flat (x, y, inter, union) buffer as a (cnt, 4) array."""
    rows = np.empty((cnt, 4), np.int64)
    for k in range(cnt):
        for c in range(4):
            rows[k, c] = out[4 * k + c]
    return rows


# --------------------------------------------------------------------------- kernels


@njit(cache=True, nogil=True)
def _build_postings(order, offsets, tok, index_len, vocab, last_sum, ell):
    """Inverted index of each document's first ``index_len`` tokens.

    An entry is one int64, (position in ``order``) << 32 | tag, sorted by position, so a
    scan reads a single stream. With ``ell`` = 0 the tag is 0. Otherwise it is the
    largest probe size |x| for which the entry lies in the ell-prefix of its document y
    (position k < |y| - min_overlap[|x| + |y|] + ell): the overlap needed grows with |x|,
    so that is a bound on |x|, computed here once instead of per probe and entry.
    ``last_sum[v]`` is the largest s with min_overlap[s] <= v.
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
                # min_overlap[|x| + ly] <= ly - k + ell - 1  <=>  |x| <= this
                tag = last_sum[ly - k + ell - 1] - ly
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


@njit(cache=True, nogil=True, inline="always")
def _probe(s, order, slen, min_size, ell):
    """The probe at sorted position s: its document, size, smallest partner size (the
    length filter) and how many of its shingles it looks up, min(|x| - min_size + ell, |x|)."""
    dx = order[s]
    lx = slen[s]
    minlen = min_size[lx]
    prefix = lx - minlen + ell
    return dx, lx, minlen, prefix if prefix < lx else lx


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
    min_overlap,
    min_size,
    ell,
):
    """PPJoin probe for the documents at sorted positions ``probes``.

    Each probe x only meets documents earlier in size order (|y| <= |x|). With required
    overlap a = min_overlap[|x| + |y|], a true pair shares at least min(ell, a) shingles
    within the first |x| - a + ell shingles of x and the first |y| - a + ell of y (the
    ell-prefix principle; ell = 1 is the classic prefix filter: the first common shingle
    of a true pair lies in both prefixes). So the probe counts, per y, the common
    shingles inside both ell-prefixes: x's prefix positions are scanned in order and
    stop counting for a size of y once they leave its ell-prefix (a window on |y|, as
    the documents are in size order; the length filter, |y| >= min_size[|x|], is its
    lower end), and y's side is the entry's tag (:func:`_build_postings`). A y with
    count >= min(ell, a) is verified: first the bitmap bound, then an exact count.

    ``first_of_len[L]`` is the first sorted position whose size is >= L.

    Returns rows (doc x, doc y, inter, union) and the counters of :data:`STATS`:
    probes, postings entries visited, distinct documents met, candidates verified, pairs
    found, candidates rejected by the bitmap bound alone (the last two stay 0).
    """
    n = order.size
    acc = np.zeros(n, np.int32)
    touched = np.empty(n + 1, np.int32)
    mark = np.zeros((vocab >> 6) + 1, np.uint64)
    # per shingle: first entry not yet ruled out by the length filter. Probes come in
    # increasing size order, so the smallest admissible size only grows: cursors only
    # move forward (no binary search per shingle and probe).
    cursor = post_start[:vocab].copy()
    max_len = first_of_len.size
    out = np.empty(4096, np.int64)
    cnt = 0
    stats = np.zeros(8, np.int64)
    for k in range(probes.size):
        s = probes[k]
        dx, lx, minlen, prefix = _probe(s, order, slen, min_size, ell)
        lo_s = first_of_len[minlen]
        lo_key = np.int64(lo_s) << 32
        top = lx  # largest |y| whose ell-prefix of x still reaches position i
        ntouch = 0
        x0 = offsets[dx]
        stats[0] += 1
        for i in range(prefix):
            while top >= minlen and min_overlap[lx + top] > lx - i + ell - 1:
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
            if av >= ell or av >= min_overlap[lx + slen[y]]:
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
            _mark(mark, tok, x0, split[dx])
        for t in range(ncand):
            y = touched[t]
            ly = slen[y]
            alpha = min_overlap[lx + ly]
            dy = order[y]
            inter = _overlap_marked(mark, tok, offsets, split, bits, fwords, hwords, dx, dy, alpha)
            if inter == -2:
                stats[5] += 1
            if inter >= alpha:
                out = _put(out, cnt, dx, dy, inter, lx + ly - inter)
                cnt += 1
        if ncand > 0:
            _unmark(mark, tok, x0, split[dx])
    stats[4] = cnt
    return _rows(out, cnt), stats


@njit(cache=True, nogil=True)
def _funnel_probe(probes, order, slen, offsets, tok, post_start, post, min_size, ell):
    """For the join funnel: per probe x (as in :func:`_ppjoin_probe`), the documents
    earlier in size order that share a shingle of x's prefix in their own indexed prefix,
    and how many of those pass the length filter (|y| >= min_size[|x|]).

    Returns no rows and the counters of :data:`STATS`; only "prefix" and "length" filled.
    """
    n = order.size
    seen = np.full(n, -1, np.int64)
    stats = np.zeros(8, np.int64)
    for s in probes:
        dx, _, minlen, prefix = _probe(s, order, slen, min_size, ell)
        x0 = offsets[dx]
        hi_key = s << 32
        for i in range(prefix):
            w = tok[x0 + i]
            for e in range(post_start[w], post_start[w + 1]):
                entry = post[e]
                if entry >= hi_key:
                    break
                y = entry >> 32
                if seen[y] != s:
                    seen[y] = s
                    stats[6] += 1
                    stats[7] += np.int64(slen[y] >= minlen)
    return np.empty((0, 4), np.int64), stats


@njit(cache=True, nogil=True)
def _brute_probe(lo, hi, lens, offsets, tok, split, bits, fwords, post_start, post, min_overlap):
    """Every pair (x, y) with lo <= x < hi and y > x, compared exactly.

    The overlap is the popcount of the AND of the exact bitsets of the most frequent
    shingles (those ids are >= the documents' ``split`` points) plus the count of shared
    rare shingles, gathered from an inverted index of the rare ones (the sparse product
    X·Xᵀ restricted to them). Every pair gets the same two terms; rows come out sorted by
    (x, y). A document with ``lens`` 0 is left out.

    Returns rows (x, y, inter, union) and counters as :func:`_ppjoin_probe` (every pair is
    counted exactly: "documents met" counts the pairs compared, "verified" the same).
    """
    n = lens.size
    acc = np.zeros(n, np.int32)
    out = np.empty(4096, np.int64)
    cnt = 0
    stats = np.zeros(8, np.int64)
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
            if inter >= min_overlap[lx + ly]:
                out = _put(out, cnt, x, y, inter, lx + ly - inter)
                cnt += 1
            stats[2] += 1
    stats[3] = stats[2]
    stats[4] = cnt
    return _rows(out, cnt), stats


@njit(cache=True, nogil=True)
def _pair_overlaps(pi, pj, offsets, tok, split, bits, fwords, hwords, vocab):
    """Exact |x ∩ y| for the given pairs (fastest when equal ``pi`` are adjacent)."""
    out = np.empty(pi.size, np.int64)
    mark = np.zeros((vocab >> 6) + 1, np.uint64)
    last = -1
    for k in range(pi.size):
        dx = pi[k]
        if dx != last:
            if last >= 0:
                _unmark(mark, tok, offsets[last], split[last])
            _mark(mark, tok, offsets[dx], split[dx])
            last = dx
        out[k] = _overlap_marked(mark, tok, offsets, split, bits, fwords, hwords, dx, pj[k], 0)
    return out


# --------------------------------------------------------------------------- running


def verification_index(tokens, fbits: int | None = None, hbits: int | None = None):
    """Bitsets for :func:`_overlap_marked`: the ``fbits`` most frequent ids exact, the
    others hashed into ``hbits`` bits. Default: every id exact when there are at most
    ``_EXACT_VOCAB`` of them; else, for long documents (a mean of ``_LONG_DOCUMENT``
    distinct shingles or more), the ``_LONG_EXACT_BITS`` most frequent exact and the rest in
    ``MAX_VERIFY_BITS`` hashed bits; else all hashed into ``_HASHED_BITS``.

    Returns ``(bits, split, fwords, hwords)``; see :func:`_verify_bits`.
    """
    used = tokens.lengths[tokens.lengths > 0]
    long = used.size > 0 and float(used.mean()) >= _LONG_DOCUMENT
    if fbits is None:
        fbits = tokens.vocab if tokens.vocab <= _EXACT_VOCAB else (_LONG_EXACT_BITS if long else 0)
    if hbits is None:
        hbits = MAX_VERIFY_BITS if long else _HASHED_BITS
    fwords = min(fbits, -(-tokens.vocab // 64) * 64) // 64
    base = max(tokens.vocab - 64 * fwords, 0)
    hwords = hbits // 64 if base > 0 else 0
    bits, split = _verify_bits(tokens.offsets, tokens.tokens, np.int32(base), fwords, hwords)
    return bits, split, fwords, hwords


def _collect(parts: list):
    rows = np.concatenate([r for r, _ in parts]) if parts else np.empty((0, 4), np.int64)
    stats = np.sum([s for _, s in parts], axis=0) if parts else np.zeros(8, np.int64)
    return rows, stats


def _run(kernel, probes: np.ndarray, args: tuple):
    """Run ``kernel(chunk, *args)`` over interleaved chunks of ``probes`` on a few threads."""
    workers = threads() if probes.size >= _PARALLEL_MIN_PROBES else 1
    k = 1 if workers == 1 else 8 * workers
    chunks = [np.ascontiguousarray(probes[c::k]) for c in range(k)]
    return _collect(pool_map(lambda c: kernel(c, *args), chunks, workers))


def _run_ranges(kernel, n: int, args: tuple):
    """Run ``kernel(lo, hi, *args)`` over ranges of x whose pairs (x, y > x) are about
    equally many, on a few threads; rows stay sorted by (x, y)."""
    workers = threads() if n >= _PARALLEL_MIN_PROBES else 1
    pieces = 1 if workers == 1 else 8 * workers
    # x_k with about k / pieces of the n^2 / 2 pairs before it
    edges = np.unique(
        np.round(n - n * np.sqrt(1.0 - np.arange(pieces + 1) / pieces)).astype(np.int64)
    )
    edges[0], edges[-1] = 0, n
    ranges = list(zip(edges[:-1].tolist(), edges[1:].tolist(), strict=True))
    return _collect(pool_map(lambda r: kernel(r[0], r[1], *args), ranges, workers))


def overlaps(tokens, verify, pi: np.ndarray, pj: np.ndarray) -> np.ndarray:
    """|x ∩ y| for the pairs (pi, pj), best sorted by pi, in contiguous chunks on a few
    threads; ``verify`` is :func:`verification_index` of ``tokens``."""
    bits, split, fwords, hwords = verify
    args = (tokens.offsets, tokens.tokens, split, bits, fwords, hwords, tokens.vocab)
    workers = threads() if pi.size >= 50_000 else 1
    edges = np.linspace(0, pi.size, (4 * workers if workers > 1 else 1) + 1).astype(np.int64)
    parts = pool_map(
        lambda k: _pair_overlaps(pi[edges[k] : edges[k + 1]], pj[edges[k] : edges[k + 1]], *args),
        range(edges.size - 1),
        workers,
    )
    return np.concatenate(parts) if parts else np.empty(0, np.int64)


def _last_sum(min_overlap: np.ndarray, count: int) -> np.ndarray:
    """``last[v]``: the largest s with ``min_overlap[s] <= v``, for v = 0 .. count - 1
    (``min_overlap`` does not decrease)."""
    return np.searchsorted(min_overlap, np.arange(count), side="right").astype(np.int64) - 1


def _brute(tokens, lens, min_overlap):
    fbits = tokens.vocab if tokens.vocab <= _EXACT_VOCAB else _BRUTE_FREQUENT_BITS
    bits, split, fwords, _ = tokens.verification(fbits=fbits, hbits=0)
    index_len = np.where(lens > 0, split - tokens.offsets[:-1], 0)
    ident = np.arange(tokens.n, dtype=np.int64)
    one = np.zeros(1, np.int64)
    post_start, post = _build_postings(
        ident, tokens.offsets, tokens.tokens, index_len, tokens.vocab, one, np.int64(0)
    )
    args = (lens, tokens.offsets, tokens.tokens, split, bits, fwords, post_start, post)
    return _run_ranges(_brute_probe, tokens.n, (*args, min_overlap))


def _ppjoin_setup(tokens, lens, min_overlap, ell: int):
    """Documents in size order and the postings of their indexed prefixes."""
    nonempty = np.flatnonzero(lens > 0)
    order = nonempty[np.argsort(lens[nonempty], kind="stable")].astype(np.int64)
    slen = lens[order]
    index_len = np.minimum(slen - min_overlap[2 * slen] + ell, slen)
    last = _last_sum(min_overlap, int(slen[-1]) + ell + 1)
    post_start, post = _build_postings(
        order, tokens.offsets, tokens.tokens, index_len, tokens.vocab, last, np.int64(ell)
    )
    return order, slen, post_start, post


def join(tokens, min_overlap, min_size, method: str, valid=None, *, funnel: bool = False):
    """Rows (x, y, inter, union) of every pair of documents with overlap at least
    ``min_overlap[|x| + |y|]``, and the counters of :data:`STATS`.

    Parameters
    ----------
    tokens : TokenSets
    min_overlap : ndarray of int64, shape (2 * max_size + 2,)
        Smallest overlap per size sum, at least 1, not decreasing.
    min_size : ndarray of int64, shape (max_size + 2,)
        Smallest partner size per size (the length filter), at least 1, not decreasing.
    method : {"brute", "ppjoin"}
    valid : ndarray of bool, shape (n,), optional
        Documents outside the mask are never in a pair.
    funnel : bool
        Also count, for ppjoin, the pairs sharing a prefix shingle before and after the
        length filter (a second, slower pass).
    """
    lens = tokens.lengths if valid is None else np.where(valid, tokens.lengths, 0)
    if tokens.vocab == 0 or np.count_nonzero(lens) < 2:
        return np.empty((0, 4), np.int64), np.zeros(8, np.int64)
    if method == "brute":
        return _brute(tokens, lens, min_overlap)
    order, slen, post_start, post = _ppjoin_setup(tokens, lens, min_overlap, ELL)
    bits, split, fwords, hwords = tokens.verification()
    # first_of_len[L]: first sorted position with size >= L (L = 0 .. max size + 1)
    first_of_len = np.searchsorted(slen, np.arange(int(slen[-1]) + 2), side="left")
    probes = np.arange(order.size, dtype=np.int64)
    args = (order, slen, first_of_len, tokens.offsets, tokens.tokens, split, bits, fwords)
    rest = (hwords, post_start, post, tokens.vocab, min_overlap, min_size, np.int64(ELL))
    rows, stats = _run(_ppjoin_probe, probes, (*args, *rest))
    if funnel:
        fargs = (order, slen, tokens.offsets, tokens.tokens, post_start, post, min_size)
        stats = stats + _run(_funnel_probe, probes, (*fargs, np.int64(ELL)))[1]
    return rows, stats


def frame(rows: np.ndarray, **extra: np.ndarray) -> pd.DataFrame:
    """Rows (x, y, inter, union) as the frame of pairs: ``i < j`` (int64), ``jaccard``
    (float64, inter / union correctly rounded), sorted by (i, j), a default RangeIndex;
    ``extra`` columns (one value per row of ``rows``) follow in the same order."""
    i = np.minimum(rows[:, 0], rows[:, 1]).astype(np.int64, copy=False)
    j = np.maximum(rows[:, 0], rows[:, 1]).astype(np.int64, copy=False)
    jac = rows[:, 2].astype(np.float64) / np.maximum(rows[:, 3], 1).astype(np.float64)
    cols = {"i": i, "j": j, "jaccard": jac, **extra}
    di = np.diff(i)
    if not np.all((di > 0) | ((di == 0) & (np.diff(j) > 0))):
        order = np.lexsort((j, i))
        cols = {k: v[order] for k, v in cols.items()}
    import pandas as pd

    return pd.DataFrame(cols)
