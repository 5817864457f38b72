"""Search at small Hamming distances: every pair within d bits, and one-by-one insertion.

:func:`hamming_pairs` finds every pair of fingerprints within ``max_distance`` bits, either
by the permuted-table method of Manku, Jain and Das Sarma (2007) (:func:`table_scheme`
says how the 64 bits are cut) or by comparing all pairs in compiled code; both give
identical output. :func:`replay` inserts fingerprints one by one into an empty store, as a
dedup filter in front of a database does (a job board's filter: "174 in, 8 out").
:func:`distance_histogram` counts all n(n − 1)/2 distances without listing the pairs, and
:func:`distance_vs_jaccard` puts each pair's distance next to its exact Jaccard.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from numba import njit, prange

from nearsim.banding import DEFAULT_MAX_PAIRS, TooManyPairsError
from nearsim.simhash import (
    BITS,
    PARALLEL_MIN_PAIRS,
    as_fingerprints,
    bit_distance,
    pair_distances,
    thread_chunks,
)
from nearsim.utils.arrays import code_rows, popcount64
from nearsim.utils.validation import MAX_PAIRS, check_choice, check_int, check_n
from nearsim.utils.validation_arrays import check_mask, check_pair_frame

METHODS = ("tables", "brute")
MAX_TABLE_DISTANCE = 8
"""Largest ``max_distance`` accepted by ``method="tables"``.

Beyond it the pigeonhole blocks get so short (64 / (d + 1) bits) that each table sorts on a
handful of bits and the method does as much work as comparing all pairs, or needs hundreds
of tables; use ``method="brute"`` instead (any distance 0 to 64).
"""
MAX_TABLES = 200
"""Largest number of tables a table scheme may use."""


# =========================================================================== kernels
# --------------------------------------------------------------------------- all pairs
@njit(cache=True, inline="always")
def _row_count(fp, i, d):
    x = fp[i]
    c = 0
    for j in range(i + 1, fp.shape[0]):
        c += bit_distance(x, fp[j]) <= d
    return c


@njit(cache=True, inline="always")
def _row_fill(fp, i, d, offsets, out_j, out_d):
    """Write row i's partners; stops as soon as the counted number is found."""
    pos = offsets[i]
    end = offsets[i + 1]
    x = fp[i]
    j = i + 1
    while pos < end:
        dd = bit_distance(x, fp[j])
        if dd <= d:
            out_j[pos] = j
            out_d[pos] = dd
            pos += 1
        j += 1


@njit(cache=True)
def _brute_count_serial(fp, d, counts):
    for i in range(fp.shape[0]):
        counts[i] = _row_count(fp, i, d)


@njit(cache=True, parallel=True)
def _brute_count_parallel(fp, d, counts, chunks):
    # Row k has n - 1 - k partners; rows k and n - 1 - k together have n - 1, so equal
    # ranges of folded rows are equal work.
    n = fp.shape[0]
    half = (n + 1) // 2
    for c in prange(chunks):
        for k in range(c * half // chunks, (c + 1) * half // chunks):
            counts[k] = _row_count(fp, k, d)
            r = n - 1 - k
            if r != k:
                counts[r] = _row_count(fp, r, d)


@njit(cache=True)
def _brute_fill_serial(fp, d, offsets, out_j, out_d):
    for i in range(fp.shape[0]):
        _row_fill(fp, i, d, offsets, out_j, out_d)


@njit(cache=True, parallel=True)
def _brute_fill_parallel(fp, d, offsets, out_j, out_d, chunks):
    n = fp.shape[0]
    half = (n + 1) // 2
    for c in prange(chunks):
        for k in range(c * half // chunks, (c + 1) * half // chunks):
            _row_fill(fp, k, d, offsets, out_j, out_d)
            r = n - 1 - k
            if r != k:
                _row_fill(fp, r, d, offsets, out_j, out_d)


@njit(cache=True)
def _hist_rows(fp, k0, k1):
    """Distance histogram of rows k0 .. k1 − 1, each folded with row n − 1 − k.

    Rows k and n − 1 − k together have n − 1 partners, so equal ranges of k are equal
    work. Four interleaved sub-histograms keep consecutive increments from waiting on each
    other.
    """
    n = fp.shape[0]
    sub = np.zeros((4, 65), dtype=np.int64)
    for k in range(k0, k1):
        for t in range(2):
            i = k if t == 0 else n - 1 - k
            if t == 1 and i == k:
                break
            x = fp[i]
            j = i + 1
            while j + 4 <= n:
                sub[0, popcount64(x ^ fp[j])] += 1
                sub[1, popcount64(x ^ fp[j + 1])] += 1
                sub[2, popcount64(x ^ fp[j + 2])] += 1
                sub[3, popcount64(x ^ fp[j + 3])] += 1
                j += 4
            while j < n:
                sub[0, popcount64(x ^ fp[j])] += 1
                j += 1
    hist = np.zeros(65, dtype=np.int64)
    for b in range(65):
        hist[b] = sub[0, b] + sub[1, b] + sub[2, b] + sub[3, b]
    return hist


@njit(cache=True)
def _histogram_serial(fp):
    return _hist_rows(fp, 0, (fp.shape[0] + 1) // 2)


@njit(cache=True, parallel=True)
def _histogram_parallel(fp, chunks):
    half = (fp.shape[0] + 1) // 2
    parts = np.zeros((chunks, 65), dtype=np.int64)
    for c in prange(chunks):
        parts[c, :] = _hist_rows(fp, c * half // chunks, (c + 1) * half // chunks)
    hist = np.zeros(65, dtype=np.int64)
    for c in range(chunks):
        for b in range(65):
            hist[b] += parts[c, b]
    return hist


# --------------------------------------------------------------------------- tables
@njit(cache=True, inline="always")
def _first_blocks(x, block_masks, need):
    """Bit set of the first ``need`` blocks on which ``x`` (a XOR) is zero; -1 if fewer."""
    sel = 0
    c = 0
    for b in range(block_masks.shape[0]):
        if (x & block_masks[b]) == 0:
            sel |= 1 << b
            c += 1
            if c == need:
                return sel
    return -1


@njit(cache=True)
def _table_pairs(fp, order, keys, d, block_masks, need, table, emit, out_i, out_j):
    """Pairs within ``d`` in runs of equal ``keys`` (sorted; ``order`` maps to rows).

    A pair is reported only by its canonical table: the one whose blocks are the first
    ``need`` blocks on which the pair agrees. Tables are enumerated as lexicographic
    combinations, so that is the first table that can see the pair, and every pair within
    ``d`` is reported exactly once over all tables.
    """
    n = order.shape[0]
    cnt = 0
    s = 0
    while s < n:
        e = s + 1
        while e < n and keys[e] == keys[s]:
            e += 1
        for p in range(s, e - 1):
            a = order[p]
            xa = fp[a]
            for q in range(p + 1, e):
                b = order[q]
                x = np.uint64(xa ^ fp[b])
                if np.int64(popcount64(x)) <= d and _first_blocks(x, block_masks, need) == table:
                    if emit:
                        out_i[cnt] = min(a, b)
                        out_j[cnt] = max(a, b)
                    cnt += 1
        s = e
    return cnt


# --------------------------------------------------------------------------- replay
@njit(cache=True, inline="always")
def _mix(x):
    x ^= x >> np.uint64(33)
    x *= np.uint64(0xFF51AFD7ED558CCD)
    x ^= x >> np.uint64(33)
    return x


@njit(cache=True)
def _replay_tables(fp, d, shifts, masks, bucket_bits):
    """Greedy insert with d + 1 pigeonhole block tables of chained buckets."""
    n = fp.shape[0]
    t_count = shifts.shape[0]
    size = 1 << bucket_bits
    bmask = np.uint64(size - 1)
    head = np.full((t_count, size), -1, dtype=np.int32)
    nxt = np.full((t_count, n), -1, dtype=np.int32)
    slot = np.empty(t_count, dtype=np.int64)
    kept = np.empty(n, dtype=np.int64)
    nk = 0
    for idx in range(n):
        x = fp[idx]
        dup = False
        for t in range(t_count):
            key = (x >> shifts[t]) & masks[t]
            b = np.int64(_mix(key) & bmask)
            slot[t] = b
            p = head[t, b]
            while p >= 0:
                if bit_distance(x, fp[p]) <= d:
                    dup = True
                    break
                p = nxt[t, p]
            if dup:
                break
        if not dup:
            kept[nk] = idx
            nk += 1
            for t in range(t_count):
                nxt[t, idx] = head[t, slot[t]]
                head[t, slot[t]] = idx
    return kept[:nk]


@njit(cache=True)
def _replay_scan(fp, d):
    """Greedy insert, checking every stored fingerprint (early exit on the first hit)."""
    n = fp.shape[0]
    stored = np.empty(n, dtype=np.uint64)
    kept = np.empty(n, dtype=np.int64)
    nk = 0
    for idx in range(n):
        x = fp[idx]
        dup = False
        for s in range(nk):
            if bit_distance(x, stored[s]) <= d:
                dup = True
                break
        if not dup:
            stored[nk] = x
            kept[nk] = idx
            nk += 1
    return kept[:nk]


# =========================================================================== table scheme
@dataclass(frozen=True)
class TableScheme:
    """How :func:`hamming_pairs` cuts the 64 bits for ``method="tables"``.

    Attributes
    ----------
    max_distance : int
        d.
    blocks : int
        B > d contiguous blocks of bits, sizes as equal as possible (block 0 is the lowest
        bits).
    tables : tuple of tuple of int
        The block combinations, one table each: every choice of B − d blocks, in
        lexicographic order. A pair within d bits differs in at most d blocks, so it agrees
        on all blocks of at least one table.
    key_bits : tuple of int
        Bits in each table's sort key.
    """

    max_distance: int
    blocks: int
    tables: tuple
    key_bits: tuple
    block_masks: np.ndarray = field(repr=False, compare=False)

    def key_masks(self) -> list[np.uint64]:
        """The sort key of each table: the OR of its blocks' bit masks (uint64 each)."""
        return [np.uint64(np.bitwise_or.reduce(self.block_masks[list(t)])) for t in self.tables]


def _block_sizes(blocks: int) -> list[int]:
    """Bits in each of ``blocks`` contiguous blocks covering the 64, as equal as possible."""
    return [BITS // blocks + (1 if b < BITS % blocks else 0) for b in range(blocks)]


def _block_masks(blocks: int) -> np.ndarray:
    masks = []
    lo = 0
    for s in _block_sizes(blocks):
        masks.append(((1 << s) - 1) << lo)
        lo += s
    return np.array(masks, dtype=np.uint64)


# Relative costs in the scheme chooser: sorting one fingerprint into one table (argsort and
# gathers, ~tens of ns) against checking one candidate pair (a few ns).
_SORT_COST = 25.0
_CHECK_COST = 1.0
_MAX_BLOCKS = 62  # the kernels hold a table's blocks as an int64 bit set


def table_scheme(max_distance: int, n: int = 20_000) -> TableScheme:
    """The table scheme :func:`hamming_pairs` uses for ``max_distance`` and n fingerprints.

    B runs from d + 1 up while C(B, d) <= ``MAX_TABLES``; the chosen B minimises the
    expected work for n random fingerprints: C(B, d) sorts of n keys plus, per table, the
    n(n − 1)/2 · 2^−(key bits) pairs that share a key and must be checked. More blocks
    means longer keys (fewer chance candidates) but more tables, so small n favours
    B = d + 1 (Manku et al.'s simplest scheme) and large n more blocks.

    Parameters
    ----------
    max_distance : int
        0 to ``MAX_TABLE_DISTANCE``.
    n : int
        Number of fingerprints.

    Returns
    -------
    TableScheme
    """
    d = check_int(max_distance, "max_distance", low=0, high=BITS)
    if d > MAX_TABLE_DISTANCE:
        raise ValueError(
            f"max_distance={d} is too large for method='tables' (accepted: 0 to "
            f"{MAX_TABLE_DISTANCE}): at that distance the pigeonhole blocks are only "
            f"{BITS // (d + 1)} bits, so the tables do as much work as all pairs or need "
            "hundreds of tables; use method='brute', which handles any distance 0 to 64"
        )
    n = max(check_n(n), 2)
    all_pairs = n * (n - 1) / 2
    best = None
    for blocks in range(d + 1, _MAX_BLOCKS + 1):
        count = math.comb(blocks, d)
        if count > MAX_TABLES:
            break
        need = blocks - d
        sizes = _block_sizes(blocks)
        combos = list(itertools.combinations(range(blocks), need))
        bits = [sum(sizes[b] for b in c) for c in combos]
        cost = count * n * _SORT_COST + sum(all_pairs * 2.0**-k * _CHECK_COST for k in bits)
        if best is None or cost < best[0]:
            best = (cost, blocks, combos, bits)
        if d == 0:
            break  # one table on all 64 bits whatever B is
    _, blocks, combos, bits = best
    return TableScheme(d, blocks, tuple(combos), tuple(bits), _block_masks(blocks))


def _empty_pairs() -> pd.DataFrame:
    e = np.empty(0, dtype=np.int64)
    return pd.DataFrame({"i": e, "j": e.copy(), "distance": e.copy()})


def _too_many(found: int, max_pairs: int, d: int) -> TooManyPairsError:
    return TooManyPairsError(
        f"{found:,} pairs are within max_distance={d} bits, more than max_pairs="
        f"{max_pairs:,}; lower max_distance, leave out documents with no shingles "
        "(their fingerprint is 0), or raise max_pairs"
    )


def _tables(fp: np.ndarray, d: int, max_pairs: int) -> tuple[np.ndarray, np.ndarray]:
    n = fp.shape[0]
    scheme = table_scheme(d, n)
    need = scheme.blocks - d
    runs = []
    total = 0
    empty = np.empty(0, dtype=np.int64)
    for tmask, key_mask in zip(
        (sum(1 << b for b in t) for t in scheme.tables), scheme.key_masks(), strict=True
    ):
        keys = fp & key_mask
        order = np.argsort(keys, kind="stable")
        sk = keys[order]
        args = (fp, order, sk, d, scheme.block_masks, need, tmask)
        cnt = _table_pairs(*args, False, empty, empty)
        total += cnt
        if total > max_pairs:
            raise _too_many(total, max_pairs, d)
        if cnt:
            out_i = np.empty(cnt, dtype=np.int64)
            out_j = np.empty(cnt, dtype=np.int64)
            _table_pairs(*args, True, out_i, out_j)
            runs.append(out_i * np.int64(n) + out_j)
    if not runs:
        return empty, empty
    return code_rows(np.sort(np.concatenate(runs)), n)


def _brute(fp: np.ndarray, d: int, max_pairs: int):
    n = fp.shape[0]
    par = n * (n - 1) // 2 >= PARALLEL_MIN_PAIRS
    counts = np.empty(n, dtype=np.int64)
    if par:
        _brute_count_parallel(fp, d, counts, max(16, thread_chunks(n)))
    else:
        _brute_count_serial(fp, d, counts)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    total = int(offsets[-1])
    if total > max_pairs:
        raise _too_many(total, max_pairs, d)
    out_j = np.empty(total, dtype=np.int64)
    out_d = np.empty(total, dtype=np.int64)
    if par and total >= PARALLEL_MIN_PAIRS // 4:
        _brute_fill_parallel(fp, d, offsets, out_j, out_d, max(16, thread_chunks(n)))
    else:
        _brute_fill_serial(fp, d, offsets, out_j, out_d)
    out_i = np.repeat(np.arange(n, dtype=np.int64), counts)
    return out_i, out_j, out_d


def hamming_pairs(
    fingerprints,
    max_distance: int,
    method: str = "tables",
    *,
    valid=None,
    max_pairs: int = DEFAULT_MAX_PAIRS,
) -> pd.DataFrame:
    """Every pair of fingerprints within ``max_distance`` bits.

    Parameters
    ----------
    fingerprints : array_like of uint64, shape (n,)
        See :func:`nearsim.simhash.as_fingerprints` for what is accepted.
    max_distance : int
        d, 0 to 64 (``"tables"``: 0 to ``MAX_TABLE_DISTANCE`` = 8).
    method : {"tables", "brute"}
        ``"tables"``: the permuted-table method (Manku, Jain, Das Sarma 2007, "Detecting
        near-duplicates for web crawling"). The 64 bits are cut into B > d blocks
        (:func:`table_scheme`); for every choice of B − d blocks the fingerprints are
        sorted on those blocks' bits (the fingerprint masked to them — the same order as
        the paper's permuting those blocks to the top) and each run of equal keys is
        checked pair by pair
        (full Hamming distance <= d). A pair within d differs in at most d blocks, so some
        table sees it: the search is exact. Each pair is reported only by the first table
        that can see it, so nothing needs deduplicating. ``"brute"``: every pair's
        popcount(a XOR b) in compiled code (on all cores for large n) — any d, O(n²).
        Both give identical output.
    valid : ndarray of bool, shape (n,), optional
        Documents that may be paired (e.g. those with shingles); the others never are.
    max_pairs : int
        Limit on the pairs returned (each row is 24 bytes). More raises
        :class:`nearsim.TooManyPairsError` (a ``ValueError``) before the rows are allocated.

    Returns
    -------
    pandas.DataFrame
        Columns i, j, distance (int64 each), i < j, sorted by (i, j), a default RangeIndex.

    Raises
    ------
    ValueError
        Bad fingerprints, ``max_distance`` outside 0 to 64 (0 to 8 for tables), an unknown
        method, or too many pairs.
    """
    fp = as_fingerprints(fingerprints)
    method = check_choice(method, "method", METHODS)
    d = check_int(max_distance, "max_distance", low=0, high=BITS)
    if method == "tables":
        table_scheme(d, fp.shape[0])  # raises for d > MAX_TABLE_DISTANCE
    max_pairs = check_int(max_pairs, "max_pairs", low=0, high=MAX_PAIRS)
    v = None if valid is None else check_mask(valid, fp.shape[0])
    rows = None
    if v is not None:
        rows = np.flatnonzero(v).astype(np.int64)
        fp = fp[rows]
    if fp.shape[0] < 2:
        return _empty_pairs()
    fp = np.ascontiguousarray(fp)
    if method == "tables":
        i, j = _tables(fp, d, max_pairs)
        dist = pair_distances(fp, i, j)
    else:
        i, j, dist = _brute(fp, d, max_pairs)
    if rows is not None:
        i, j = rows[i], rows[j]
    return pd.DataFrame({"i": i, "j": j, "distance": dist})


def replay(fingerprints, max_distance: int) -> np.ndarray:
    """Insert fingerprints one by one into an empty store, as a dedup filter would.

    A document is kept (stored) only if no stored fingerprint is within ``max_distance``
    bits of it; otherwise it is dropped as a duplicate. This is the job board's "174 in, 8 out".

    For d <= 9 stored fingerprints are indexed by d + 1 pigeonhole blocks in chained hash
    buckets, so each document is checked only against stored ones that agree on a whole
    block; for larger d, where blocks are too short to help, every stored fingerprint is
    checked (with an early exit). Both are exact.

    Parameters
    ----------
    fingerprints : array_like of uint64, shape (n,)
        In arrival order.
    max_distance : int
        0 to 64.

    Returns
    -------
    ndarray of int64, shape (kept,)
        Indices of the kept documents, ascending.
    """
    fp = np.ascontiguousarray(as_fingerprints(fingerprints))
    d = check_int(max_distance, "max_distance", low=0, high=BITS)
    n = fp.shape[0]
    if n == 0:
        return np.empty(0, dtype=np.int64)
    blocks = d + 1
    if blocks <= 10 and n >= 64:
        if n >= 2**31 - 1:
            raise ValueError(f"replay handles at most {2**31 - 2} fingerprints, got {n}")
        masks = _block_masks(blocks)
        sizes = _block_sizes(blocks)
        shifts = np.array(np.cumsum([0, *sizes[:-1]]), dtype=np.uint64)
        key_masks = (masks >> shifts).astype(np.uint64)
        bucket_bits = max(10, min(24, (2 * n - 1).bit_length()))
        return _replay_tables(fp, d, shifts, key_masks, bucket_bits)
    return _replay_scan(fp, d)


# =========================================================================== all distances
def distance_histogram(fingerprints, *, valid=None) -> np.ndarray:
    """How many of all pairs are at each Hamming distance, without listing the pairs.

    Parameters
    ----------
    fingerprints : array_like of uint64, shape (n,)
    valid : ndarray of bool, shape (n,), optional
        Only pairs of valid documents are counted.

    Returns
    -------
    ndarray of int64, shape (65,)
        Entry d is the number of pairs i < j at distance exactly d; the sum is
        n'(n' − 1)/2 for n' valid documents.
    """
    fp = as_fingerprints(fingerprints)
    v = None if valid is None else check_mask(valid, fp.shape[0])
    if v is not None:
        fp = fp[v]
    fp = np.ascontiguousarray(fp)
    n = fp.shape[0]
    if n * (n - 1) // 2 >= PARALLEL_MIN_PAIRS:
        return _histogram_parallel(fp, max(16, thread_chunks(n)))
    return _histogram_serial(fp)


def distance_vs_jaccard(fingerprints, pairs) -> pd.DataFrame:
    """SimHash distance of each pair, next to its exact Jaccard (for a scatter plot).

    Parameters
    ----------
    fingerprints : array_like of uint64, shape (n,)
    pairs : pandas.DataFrame
        Columns i, j, jaccard (e.g. ``exact_pairs(...)`` or a similarity sample); other
        columns are kept.

    Returns
    -------
    pandas.DataFrame
        A copy of ``pairs`` (default RangeIndex) with an int64 column ``distance``.
    """
    fp = np.ascontiguousarray(as_fingerprints(fingerprints))
    df = check_pair_frame(pairs, "pairs", columns=("i", "j", "jaccard"), n=fp.shape[0])
    out = df.reset_index(drop=True).copy()
    out["distance"] = pair_distances(fp, df["i"].to_numpy(np.int64), df["j"].to_numpy(np.int64))
    return out
