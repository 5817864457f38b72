"""Candidate pairs: documents equal on at least one whole band of their signatures.

A signature of k values is cut into b bands of r rows (band i is columns i·r … i·r + r − 1).
For each band, every document's r values are hashed to 64 bits (:func:`band_keys`), and
documents with equal values form a *bucket*; every pair inside a bucket is a candidate.

How a band is bucketed, with no Python loop over documents and no index array beyond one
``uint64`` a document: the top 32 bits of each key and the document's position are packed
into one integer and sorted in place (a plain sort of integers is 2–3 times faster than an
``argsort``); runs of equal top bits are buckets once the members' values are compared
(a run whose members differ — keys that share 32 bits — is split by the full key, then by
the values), so a hash collision never makes a pair. Each band's pairs are coded
``i · n + j`` and merged into the sorted distinct codes found so far.

With a ``bucket_limit``, a bucket of more than that many documents gives only 2m − 3 of its
m(m − 1)/2 pairs (its smallest row with every other, each member with the next by row),
which keeps hot buckets — boilerplate shared by thousands of documents — linear.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from nearsim.utils.arrays import HIGH32, LOW32, run_end, unique_int
from nearsim.utils.validation import MAX_PAIRS, check_banding, check_int
from nearsim.utils.validation_arrays import check_mask, check_signatures

DEFAULT_MAX_PAIRS = 20_000_000
"""Default limit on distinct candidate pairs (320 MB as int64 pairs)."""

_ALL_BITS = np.uint64(0xFFFFFFFFFFFFFFFF)


class TooManyPairsError(ValueError):
    """Banding would produce more candidate pairs than the limit allows."""


@njit(cache=True, inline="always")
def _band_key(sig, d, lo, hi):
    h = np.uint64(0x9E3779B97F4A7C15)
    mul = np.uint64(0xBF58476D1CE4E5B9)
    for c in range(lo, hi):
        h = (h ^ np.uint64(sig[d, c])) * mul
        h ^= h >> np.uint64(29)
    return h


@njit(cache=True)
def band_keys(sig, lo, hi):
    """A 64-bit hash of each row's columns lo..hi-1 (equal bands give equal keys)."""
    n = sig.shape[0]
    keys = np.empty(n, dtype=np.uint64)
    for d in range(n):
        keys[d] = _band_key(sig, d, lo, hi)
    return keys


@njit(cache=True, parallel=True)
def _packed_keys(sig, rows, lo, hi, out):
    """``out[t]``: the top 32 bits of row ``rows[t]``'s band key, and t in the low 32."""
    for t in prange(rows.shape[0]):
        out[t] = (_band_key(sig, rows[t], lo, hi) & HIGH32) | np.uint64(t)


@njit(cache=True)
def _same_band(sig, i, j, lo, hi):
    for c in range(lo, hi):
        if sig[i, c] != sig[j, c]:
            return False
    return True


@njit(cache=True)
def _split_run(sig, rows, packed, s, e, lo, hi, order, se, pos, ng, key_mask):
    """Buckets of a run of equal top bits whose members' values differ: sorted by the full
    key (its ``key_mask`` bits: all of them, but for the tests that force collisions), then
    grouped by value (members of equal full keys compared pairwise: a 64-bit collision,
    practically never). Writes into ``order``/``se``; returns (pos, ng)."""
    cnt = e - s
    members = np.empty(cnt, np.int64)
    full = np.empty(cnt, np.uint64)
    for x in range(cnt):
        members[x] = np.int64(rows[np.int64(packed[s + x] & LOW32)])
        full[x] = _band_key(sig, members[x], lo, hi) & key_mask
    by_key = np.argsort(full)
    a = 0
    while a < cnt:
        b = a + 1
        while b < cnt and full[by_key[b]] == full[by_key[a]]:
            b += 1
        taken = np.zeros(b - a, np.bool_)
        for x in range(a, b):
            if taken[x - a]:
                continue
            start = pos
            ra = members[by_key[x]]
            order[pos] = ra
            pos += 1
            for y in range(x + 1, b):
                if not taken[y - a] and _same_band(sig, ra, members[by_key[y]], lo, hi):
                    taken[y - a] = True
                    order[pos] = members[by_key[y]]
                    pos += 1
            if pos - start >= 2:
                se[2 * ng] = start
                se[2 * ng + 1] = pos
                ng += 1
            else:
                pos = start
        a = b
    return pos, ng


@njit(cache=True)
def _run_members(packed):
    """How many rows lie in runs of two or more equal top bits (an upper bound on the rows
    of the band's buckets, and twice one on their number)."""
    m = packed.shape[0]
    total = 0
    s = 0
    while s < m:
        e = run_end(packed, s)
        if e - s >= 2:
            total += e - s
        s = e
    return total


@njit(cache=True)
def _buckets(sig, rows, packed, lo, hi, key_mask):
    """The buckets of one band from its sorted packed keys: ``order`` holds the rows of every
    bucket of two or more, bucket g being ``order[se[2g]:se[2g + 1]]``."""
    m = packed.shape[0]
    room = _run_members(packed)
    order = np.empty(room, np.int64)
    se = np.empty(room + 1, np.int64)
    pos = 0
    ng = 0
    s = 0
    while s < m:
        e = run_end(packed, s)
        if e - s >= 2:
            first = np.int64(rows[np.int64(packed[s] & LOW32)])
            same = True
            for x in range(s + 1, e):
                if not _same_band(sig, rows[np.int64(packed[x] & LOW32)], first, lo, hi):
                    same = False
                    break
            if same:
                se[2 * ng] = pos
                for x in range(s, e):
                    order[pos] = np.int64(rows[np.int64(packed[x] & LOW32)])
                    pos += 1
                se[2 * ng + 1] = pos
                ng += 1
            else:
                pos, ng = _split_run(sig, rows, packed, s, e, lo, hi, order, se, pos, ng,
                                     key_mask)  # fmt: skip
        s = e
    return order[:pos], se[: 2 * ng]


@njit(cache=True)
def _common(a, b):
    """How many values two sorted distinct int64 arrays share."""
    i = j = common = 0
    while i < a.shape[0] and j < b.shape[0]:
        if a[i] < b[j]:
            i += 1
        elif b[j] < a[i]:
            j += 1
        else:
            common += 1
            i += 1
            j += 1
    return common


@njit(cache=True)
def merge_distinct(a, b):
    """The sorted distinct values of two sorted distinct int64 arrays (a merge, O(a + b),
    into an array of exactly the merged size)."""
    out = np.empty(a.shape[0] + b.shape[0] - _common(a, b), np.int64)
    i = j = k = 0
    while i < a.shape[0] and j < b.shape[0]:
        if a[i] < b[j]:
            out[k] = a[i]
            i += 1
        elif b[j] < a[i]:
            out[k] = b[j]
            j += 1
        else:
            out[k] = a[i]
            i += 1
            j += 1
        k += 1
    while i < a.shape[0]:
        out[k] = a[i]
        i += 1
        k += 1
    while j < b.shape[0]:
        out[k] = b[j]
        j += 1
        k += 1
    return out


@njit(cache=True, parallel=True)
def code_pairs(codes, n):
    """Pair codes ``i · n + j`` as rows (i, j); int64, shape (m, 2)."""
    out = np.empty((codes.shape[0], 2), np.int64)
    for t in prange(codes.shape[0]):
        out[t, 0] = codes[t] // n
        out[t, 1] = codes[t] % n
    return out


def candidate_pairs(
    signatures: np.ndarray,
    b: int,
    r: int,
    *,
    valid: np.ndarray | None = None,
    max_pairs: int = DEFAULT_MAX_PAIRS,
    bucket_limit: int | None = None,
) -> np.ndarray:
    """Pairs of documents equal on at least one whole band.

    Band i is columns ``i*r .. i*r + r - 1``; columns from ``b*r`` on are unused. Each
    band's slices are hashed and sorted (compiled code, no Python loop over documents);
    equal hashes are checked value by value, so a hash collision never makes a pair.

    Parameters
    ----------
    signatures : ndarray of uint32 or uint8, shape (n, k)
        MinHash signatures.
    b : int
        Number of bands, b·r <= k.
    r : int
        Rows per band.
    valid : ndarray of bool, shape (n,), optional
        Rows that may be paired (e.g. documents with enough shingles); others never are.
    max_pairs : int
        Limit on the number of distinct candidate pairs (and on the pairs of any single
        band). Banding that would exceed it raises :class:`TooManyPairsError` (a
        ``ValueError``) saying how many pairs and why, before the memory is allocated.
    bucket_limit : int, optional
        A bucket (documents equal on one band) of more than ``bucket_limit`` documents
        gives only 2m − 3 of its m(m − 1)/2 pairs: its first member (smallest row) with
        every other, and each member with the next one by row. Every member is still
        linked to the bucket, so the buckets' connected components stay the same, and the
        work is linear in the bucket's size (``nearsim dedup`` sets it; the README
        measures what it changes). Default: every pair of every bucket.

    Returns
    -------
    ndarray of int64, shape (m, 2)
        Pairs (i, j) with i < j, sorted lexicographically, no repeats.

    Examples
    --------
    >>> sig = np.zeros((5, 4), dtype=np.uint32)  # five documents in one bucket
    >>> len(candidate_pairs(sig, 2, 2)), len(candidate_pairs(sig, 2, 2, bucket_limit=3))
    (10, 7)
    """
    codes = candidate_codes(
        signatures, b, r, valid=valid, max_pairs=max_pairs, bucket_limit=bucket_limit
    )
    return code_pairs(codes, np.int64(max(len(signatures), 1)))


def candidate_codes(
    signatures: np.ndarray,
    b: int,
    r: int,
    *,
    valid: np.ndarray | None = None,
    max_pairs: int = DEFAULT_MAX_PAIRS,
    bucket_limit: int | None = None,
) -> np.ndarray:
    """:func:`candidate_pairs` as sorted pair codes ``i · n + j`` (n = len(signatures)):
    half the memory of the pairs, for a run that keeps millions of candidates only long
    enough to verify them.

    Returns
    -------
    ndarray of int64, shape (m,)
        Sorted, distinct.
    """
    sig = check_signatures(signatures)
    n, k = sig.shape
    b, r = check_banding(b, r, k)
    max_pairs = check_int(max_pairs, "max_pairs", low=0, high=MAX_PAIRS)
    limit = n if bucket_limit is None else check_int(bucket_limit, "bucket_limit", low=2)
    # The valid rows are read in place, not copied out: a copy was a second set of
    # signatures at the peak of a run (512 MB at a million documents, k = 128).
    sig = np.ascontiguousarray(sig)
    # int32 rows while they fit: 4 bytes a document less at the run's peak
    index = np.int32 if n < 1 << 31 else np.int64
    if valid is None:
        rows = np.arange(n, dtype=index)
    else:
        rows = np.flatnonzero(check_mask(valid, n, "valid")).astype(index)
    if rows.shape[0] < 2:
        return np.empty(0, dtype=np.int64)
    if rows.shape[0] >= 1 << 32:  # positions are packed into 32 bits beside the keys
        raise ValueError(
            f"signatures has {rows.shape[0]:,} rows to band, which is not accepted; accepted: "
            "fewer than 2**32 per call (band a larger corpus with nearsim dedup --engine dask)"
        )
    found = np.empty(0, dtype=np.int64)  # distinct pairs so far, as i * n + j
    packed = np.empty(rows.shape[0], dtype=np.uint64)
    for band in range(b):
        lo, hi = band * r, band * r + r
        _packed_keys(sig, rows, lo, hi, packed)
        packed.sort()
        order, se = _buckets(sig, rows, packed, lo, hi, _ALL_BITS)
        sizes = se[1::2] - se[::2]
        count = bucket_pair_count(sizes, limit)
        if count == 0:
            continue
        if count > max_pairs:
            raise _too_many(b, r, band, int(sizes.max()), max_pairs)
        codes = np.empty(count, dtype=np.int64)
        emit_buckets(order, se, n, codes, 0, limit)
        del order
        # a band's pairs may repeat earlier ones: the limit is on distinct pairs
        codes.sort()
        found = merge_distinct(found, unique_int(codes, presorted=True))
        del codes
        if found.shape[0] > max_pairs:
            raise _too_many(b, r, band, int(sizes.max()), max_pairs)
    return found


def bucket_pair_count(sizes: np.ndarray, limit: int) -> int:
    """How many pairs buckets of these sizes give under :func:`candidate_pairs`'s rule.

    Parameters
    ----------
    sizes : ndarray of int64, shape (g,)
        Bucket sizes, each >= 2.
    limit : int
        The bucket limit (a bucket of more documents gives 2m − 3 pairs).

    Returns
    -------
    int
    """
    sizes = sizes.astype(np.int64)
    small = sizes <= limit
    return int((sizes[small] * (sizes[small] - 1) // 2).sum() + (2 * sizes[~small] - 3).sum())


def _too_many(b: int, r: int, band: int, biggest: int, max_pairs: int) -> TooManyPairsError:
    return TooManyPairsError(
        f"banding b={b}, r={r} would give more than {max_pairs:,} candidate pairs (the "
        f"limit was passed at band {band + 1} of {b}, where {biggest:,} documents share one "
        "bucket). Many documents are identical on a whole band: use more rows per band "
        "(a higher effective threshold), set a bucket_limit, or raise max_pairs"
    )


@njit(cache=True)
def emit_buckets(order, se, n, out, pos, limit):
    """Write the pair codes ``i * n + j`` (i < j) of the buckets ``order[se[2g]:se[2g+1]]``
    into ``out`` from ``pos``: every pair of a bucket of at most ``limit`` documents; of a
    larger one, its smallest row with every other and each member with the next by row.
    Returns the position after the last code."""
    for g in range(se.shape[0] // 2):
        s = se[2 * g]
        e = se[2 * g + 1]
        if e - s > limit:
            members = np.sort(order[s:e])
            first = members[0]
            for x in range(1, e - s):
                out[pos] = first * n + members[x]
                pos += 1
            for x in range(1, e - s - 1):
                out[pos] = members[x] * n + members[x + 1]
                pos += 1
            continue
        for x in range(s, e):
            i = order[x]
            for y in range(x + 1, e):
                j = order[y]
                if i < j:
                    out[pos] = i * n + j
                else:
                    out[pos] = j * n + i
                pos += 1
    return pos
