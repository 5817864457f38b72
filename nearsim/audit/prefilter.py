"""Which documents of a batch can pair with an anchor: the scan's cheap first look.

The scan (:mod:`nearsim.audit.scan`) compares a document with the anchors before it on
sorted hash sets; sorting every document's hashes was most of the audit's time. This look
needs no sort. For each document x it

1. hashes x's shingles and keeps the distinct hashes (a small hash set, no sort);
2. applies the scan's own filters, which are exact: the prefix filter (x's rarest
   ``|x| − α_x + 1`` hashes in the scan's order, against the index of the anchors'
   prefixes), then the size filter, then the positional filter (PPJoin, Xiao et al.
   2008): x's prefix is taken in the order, so the first hash x shares with a class c is
   their first shared hash, and the overlap is at most the hashes at or after it on either
   side, ``min(|x| − i, |c| − j)`` with i and j the hashes strictly before it;
3. for each candidate anchor class c, counts x's hashes that c's Bloom filter holds
   (:meth:`nearsim.audit.scan.AnchorScan._add_bloom`): a Bloom filter has no false
   negatives, so the count is at least |x ∩ c|, and a count below the overlap the floor
   needs (the scan's own bound) proves J(x, c) below the floor. The count stops as soon
   as too few hashes are left to reach that overlap.

A document is *flagged* when some candidate survives step 3, or when the scan's draw
below the floor picks one of its pairs (the same seeded geometric skip as
:func:`nearsim.audit.scan._probe_doc`). Only flagged documents get sorted hash sets and go
through the scan, which then counts exactly what it would count with every document: an
unflagged document has no pair at or above the floor with an anchor before it and no
drawn pair.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from nearsim.audit.scan import _BITS_LOG, _find, _next_random, _seed_state
from nearsim.audit.tokens import order_keys, shingle_hash
from nearsim.copies import _fmix64
from nearsim.hashing import _one_byte_chars, doc_shingle_spans

__all__ = ["flag_documents"]

_CHUNKS = 16


@njit(cache=True, inline="always")
def _drawn_any(seed, row, before, q):
    """Whether the scan's draw below the floor picks a pair of this document."""
    if q <= 0.0:
        return False
    if q >= 1.0:
        return before > 0
    state = _seed_state(seed, row)
    state, r = _next_random(state)
    return np.int64(math.floor(math.log(r) / math.log1p(-q))) < before


@njit(cache=True, inline="always")
def _distinct(h, count, slots, stamps, stamp, out):
    """The distinct values of ``h[:count]`` into ``out`` (any order); returns how many."""
    size = 16
    while size < 2 * count:
        size *= 2
    mask = size - 1
    n = 0
    for s in range(count):
        v = h[s]
        slot = np.int64((v * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)) & mask
        while stamps[slot] == stamp and slots[slot] != v:
            slot = (slot + 1) & mask
        if stamps[slot] != stamp:
            stamps[slot] = stamp
            slots[slot] = v
            out[n] = v
            n += 1
    return n


@njit(cache=True, inline="always")
def _bloom_may_reach(u, size, bloom, lo, mask, need):
    """False when fewer than ``need`` of ``u[:size]`` are in the Bloom filter."""
    hit = 0
    for t in range(size):
        if size - t + hit < need:
            return False
        b = np.int64((u[t] >> np.uint64(20)) & np.uint64(mask))
        if (bloom[lo + (b >> 6)] >> np.uint64(b & 63)) & np.uint64(1):
            hit += 1
    return hit >= need


@njit(cache=True, inline="always")
def _hashes(buf, lo, hi, word, whole, k, ring, st, en, h):
    """:func:`nearsim.audit.tokens.shingle_hash` of every shingle (with repeats) into
    ``h``; returns the count. Character shingles of an ASCII document (k ≤ 7) are windows
    of k bytes sliding by one: their hash input is kept in one word and shifted."""
    if not word and k <= 7 and hi - lo >= k and _one_byte_chars(buf, lo, hi):
        top = np.uint64(k) << np.uint64(56)
        last = np.uint64(8 * (k - 1))
        w = np.uint64(0)
        for q in range(k - 1):
            w |= np.uint64(buf[lo + q]) << np.uint64(8 * q)
        count = hi - lo - k + 1
        for s in range(count):
            w |= np.uint64(buf[lo + s + k - 1]) << last
            x = _fmix64(top | w)
            h[s] = x if x != 0 else np.uint64(1)
            w >>= np.uint64(8)
        return count
    count = doc_shingle_spans(buf, lo, hi, word, whole, k, ring, st, en)
    for s in range(count):
        h[s] = shingle_hash(buf, st[s], en[s])
    return count


@njit(cache=True, parallel=True)
def _flags(buf, doc_offsets, whole, word, k, rows, classes, bits, alpha, tab_key, tab_head,
           post_cls, post_next, post_pos, post_row, cls_off, anc_row, n_anchors, n_classes,
           bloom, bloom_off, bloom_mask, floor, q, seed, out):  # fmt: skip
    n = rows.shape[0]
    longest = 0
    for d in range(n):
        longest = max(longest, doc_offsets[d + 1] - doc_offsets[d])
    room = 16
    while room < 2 * (longest + 1):
        room *= 2
    for chunk in prange(_CHUNKS):
        ring = np.empty(max(k, 1), dtype=np.int64)
        st = np.empty(longest + 1, dtype=np.int64)
        en = np.empty(longest + 1, dtype=np.int64)
        h = np.empty(longest + 1, dtype=np.uint64)
        u = np.empty(longest + 1, dtype=np.uint64)
        slots = np.empty(room, dtype=np.uint64)
        stamps = np.zeros(room, dtype=np.int64)
        marks = np.zeros(max(n_classes, 1), dtype=np.int64)
        pk = np.empty(longest + 1, dtype=np.uint64)
        ph = np.empty(longest + 1, dtype=np.uint64)
        for d in range(chunk * n // _CHUNKS, (chunk + 1) * n // _CHUNKS):
            row = rows[d]
            out[d] = False
            before = np.searchsorted(anc_row[:n_anchors], row)
            if before == 0:
                continue
            if _drawn_any(seed, row, before, q):
                out[d] = True
                continue
            count = _hashes(buf, doc_offsets[d], doc_offsets[d + 1], word, whole[d], k,
                            ring, st, en, h)  # fmt: skip
            if count == 0:
                continue
            size = _distinct(h, count, slots, stamps, d + 1, u)
            keys = order_keys(classes, u[:size])
            p = size - alpha[size] + 1
            cutoff = np.partition(keys.copy(), p - 1)[p - 1]
            m = 0
            for t in range(size):
                if keys[t] <= cutoff:
                    pk[m] = keys[t]
                    ph[m] = u[t]
                    m += 1
            order = np.argsort(pk[:m])  # the prefix in the order: the positional filter
            rank = 0
            for r in range(m):
                if out[d]:
                    break
                t = order[r]
                if r == 0 or pk[order[r - 1]] != pk[t]:
                    rank = r  # hashes of x strictly before this one
                x = ph[t]
                bit = np.int64(x >> np.uint64(64 - _BITS_LOG))
                if not (bits[bit >> 3] >> (bit & 7)) & 1:
                    continue
                slot = _find(tab_key, x)
                if slot < 0:
                    continue
                e = tab_head[slot]
                while e >= 0:
                    c = post_cls[e]
                    e_here = e
                    e = post_next[e]
                    if post_row[e_here] >= row or marks[c] == d + 1:
                        continue
                    marks[c] = d + 1  # c's first shared hash: none before it is shared
                    c_size = cls_off[c + 1] - cls_off[c]
                    if min(c_size, size) < alpha[max(c_size, size)]:
                        continue
                    need = np.int64(math.floor(floor * (size + c_size) / (1.0 + floor) - 1e-6))
                    if min(size - rank, c_size - post_pos[e_here]) < need:
                        continue  # the hashes left on either side cannot reach it
                    if _bloom_may_reach(u, size, bloom, bloom_off[c], bloom_mask[c], need):
                        out[d] = True
                        break


def flag_documents(scan, flat, rows: np.ndarray) -> np.ndarray:
    """The documents of a batch the scan must see (see the module text).

    Parameters
    ----------
    scan : AnchorScan
        The scan, holding every anchor up to the end of this batch, its order fixed.
    flat : FlatTexts
        The batch's documents (:func:`nearsim.hashing.flatten_texts`).
    rows : ndarray of int64, shape (b,)
        Their rows in the corpus, ascending.

    Returns
    -------
    ndarray of bool, shape (b,)
    """
    out = np.zeros(rows.shape[0], dtype=np.bool_)
    if scan.n_anchors == 0 or rows.shape[0] == 0:
        return out
    scan._ensure_alpha(int(np.diff(flat.doc_offsets).max(initial=0)) + 1)
    _flags(flat.buf, flat.doc_offsets, flat.whole, flat.kind == "word", flat.k,
           np.asarray(rows, dtype=np.int64), scan.pilot.classes, scan._bits, scan._alpha,
           scan._tab_key, scan._tab_head, scan._post_cls.data, scan._post_next.data,
           scan._post_pos.data, scan._post_row.data, scan._cls_off.data, scan._anc_row.data,
           scan.n_anchors, len(scan._cls_last), scan._bloom.data, scan._bloom_off.data,
           scan._bloom_mask.data, scan.floor, scan.q, scan.seed, out)  # fmt: skip
    return out
