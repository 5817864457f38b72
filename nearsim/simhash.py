"""SimHash: 64-bit fingerprints, Hamming search, a hash-health check and Compare data.

Fingerprints
------------
Every shingle gets a 64-bit hash made of two independent 32-bit MurmurHash3 values (x86_32
over the shingle's UTF-8 bytes, with two different seeds drawn from
``numpy.random.default_rng(seed)``): the first is the high 32 bits, the second the low 32.
Bit b of a document's fingerprint is the sign of the vote of its distinct shingles: each
shingle adds +1 if its hash has bit b set and −1 if not. A positive sum gives 1; a negative
sum *or a tie* gives 0. A document with no shingles has the fingerprint 0. Repeated
shingles in a list count once (they are deduplicated by their 64-bit hash).

Seed 000 is why this module insists on 64 *real* bits: a ``h * 31 + c`` string hash spread
over 64 positions with ``i % 31`` has only 31 distinct bits, many of which never move on
English text, so unrelated documents sit ~11 bits apart and a "within 12 bits" filter
throws most of them away. :func:`broken_simhash` reproduces that hash exactly and
:func:`hash_health` measures both.

Search
------
:func:`hamming_pairs` finds every pair within ``max_distance`` bits, either by the
permuted-table method of Manku, Jain and Das Sarma (2007) or by comparing all pairs in
compiled code; both give identical output.

Compare
-------
:func:`compare_table` counts, for each distance d, how many of *all* pairs are within d
bits and how many of those are true pairs (exact Jaccard >= t) — from a histogram of all
pairwise distances computed in compiled code, never materialising the pairs.
:func:`lsh_scores` scores MinHash LSH candidates against the same truth, and
:func:`compare_simhash` bundles both.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numba
import numpy as np
import pandas as pd
from numba import njit, prange

from ._arrays import as_pairs, popcount64
from ._hashing import FlatShingles, doc_shingle_spans, flatten, flatten_texts, murmur3_32
from .lsh import DEFAULT_MAX_PAIRS, TooManyPairsError
from .shingles import as_text_list

BITS = 64
METHODS = ("tables", "brute")
MAX_TABLE_DISTANCE = 8
"""Largest ``max_distance`` accepted by ``method="tables"``.

Beyond it the pigeonhole blocks get so short (64 / (d + 1) bits) that each table sorts on a
handful of bits and the method does as much work as comparing all pairs, or needs hundreds
of tables; use ``method="brute"`` instead (any distance 0 to 64).
"""
MAX_TABLES = 200
"""Largest number of tables a table scheme may use."""

_PARALLEL_MIN_PAIRS = 4_000_000
"""Below this many pairs the all-pairs kernels run on one thread (prange costs more)."""
_PARALLEL_MIN_SHINGLES = 200_000


def _chunks(n: int) -> int:
    """Pieces of work for a prange loop: a few per thread, at most one per item."""
    return max(1, min(n, 4 * numba.get_num_threads()))


# =========================================================================== numba helpers
@njit(cache=True, inline="always")
def _dist(a, b):
    return np.int64(popcount64(np.uint64(a ^ b)))


# --------------------------------------------------------------------------- fingerprints
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


# --------------------------------------------------------------------------- all pairs
@njit(cache=True, inline="always")
def _row_count(fp, i, d):
    x = fp[i]
    c = 0
    for j in range(i + 1, fp.shape[0]):
        c += _dist(x, fp[j]) <= d
    return c


@njit(cache=True, inline="always")
def _row_fill(fp, i, d, offsets, out_j, out_d):
    """Write row i's partners; stops as soon as the counted number is found."""
    pos = offsets[i]
    end = offsets[i + 1]
    x = fp[i]
    j = i + 1
    while pos < end:
        dd = _dist(x, fp[j])
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


@njit(cache=True)
def _pair_distances(fp, left, right):
    out = np.empty(left.shape[0], dtype=np.int64)
    for t in range(left.shape[0]):
        out[t] = _dist(fp[left[t]], fp[right[t]])
    return out


@njit(cache=True)
def _popcount_array(x):
    out = np.empty(x.shape[0], dtype=np.int64)
    for t in range(x.shape[0]):
        out[t] = np.int64(popcount64(x[t]))
    return out


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
                if _dist(x, fp[p]) <= d:
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
            if _dist(x, stored[s]) <= d:
                dup = True
                break
        if not dup:
            stored[nk] = x
            kept[nk] = idx
            nk += 1
    return kept[:nk]


# --------------------------------------------------------------------------- broken hash
@njit(cache=True, inline="always")
def _js_space(c):
    """ECMAScript WhiteSpace or LineTerminator (what ``/\\s/`` matches), a UTF-16 unit."""
    return (
        (c >= 9 and c <= 13)
        or c == 32
        or c == 0xA0
        or c == 0x1680
        or (c >= 0x2000 and c <= 0x200A)
        or c == 0x2028
        or c == 0x2029
        or c == 0x202F
        or c == 0x205F
        or c == 0x3000
        or c == 0xFEFF
    )


@njit(cache=True, inline="always")
def _broken_vote(v, h):
    for i in range(64):
        if (h >> (i % 31)) & 1:
            v[i] += 1
        else:
            v[i] -= 1


@njit(cache=True)
def _broken_kernel(units, offsets, out):
    for d in range(offsets.shape[0] - 1):
        lo = offsets[d]
        hi = offsets[d + 1]
        v = np.zeros(64, dtype=np.int64)
        h = np.int64(0)
        pos = lo
        while True:
            if pos == hi:  # the last token (possibly "")
                _broken_vote(v, h)
                break
            c = np.int64(units[pos])
            if _js_space(c):
                _broken_vote(v, h)
                h = np.int64(0)
                while pos < hi and _js_space(np.int64(units[pos])):
                    pos += 1
                continue
            h = (h * 31 + c) & 0xFFFFFFFF
            pos += 1
        fp = np.uint64(0)
        for i in range(64):
            if v[i] >= 0:
                fp |= np.uint64(1) << np.uint64(i)
        out[d] = fp


# =========================================================================== validation
def _check_int(name: str, value, low: int, high: int | None = None) -> int:
    ok = not isinstance(value, bool) and isinstance(value, (int, np.integer))
    if ok and value >= low and (high is None or value <= high):
        return int(value)
    accepted = f"{low} to {high}" if high is not None else f">= {low}"
    raise ValueError(f"{name}={value!r} is not accepted; use an integer {accepted}")


def as_fingerprints(fingerprints, name: str = "fingerprints") -> np.ndarray:
    """Validate fingerprints and return them as a 1-D uint64 array.

    Accepted: a 1-D array (or Series, or sequence) of unsigned integers of any width,
    converted to uint64; signed integers when none is negative; a list of Python ints from
    0 to 2**64 − 1. 64-bit fingerprints stored as int64 (databases, Parquet) can have
    negative values: pass ``values.view(np.uint64)`` to reinterpret their bits.

    Parameters
    ----------
    fingerprints : array_like of int, shape (n,)
    name : str
        Name used in error messages.

    Returns
    -------
    ndarray of uint64, shape (n,)
    """
    x = fingerprints
    if isinstance(x, (pd.Series, pd.Index)):
        x = x.to_numpy()
    if not isinstance(x, np.ndarray):
        if isinstance(x, (str, bytes)) or not hasattr(x, "__iter__"):
            raise ValueError(
                f"{name} must be a 1-D array of unsigned 64-bit integers, got {type(x).__name__}"
            )
        seq = list(x)
        if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in seq):
            try:
                x = np.array(seq, dtype=np.uint64).reshape(len(seq))
            except OverflowError:
                raise ValueError(
                    f"{name} must hold integers from 0 to 2**64 - 1; a value is out of range"
                ) from None
        else:
            x = np.asarray(seq)
    if x.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array (one per document), got shape {x.shape}")
    if x.dtype.kind == "u":
        return x.astype(np.uint64, copy=False)
    if x.dtype.kind == "i":
        if x.size and x.min() < 0:
            raise ValueError(
                f"{name} has negative values (dtype {x.dtype}); fingerprints are unsigned. "
                "If they are 64-bit fingerprints stored as int64, pass values.view(np.uint64)"
            )
        return x.astype(np.uint64)
    raise ValueError(f"{name} must be unsigned 64-bit integers (uint64), got dtype {x.dtype}")


def _check_method(method) -> str:
    if not isinstance(method, str) or method not in METHODS:
        raise ValueError(
            f"method={method!r} is not accepted; use one of {', '.join(map(repr, METHODS))}"
        )
    return method


def _check_valid(valid, n: int) -> np.ndarray | None:
    if valid is None:
        return None
    v = np.asarray(valid)
    if v.dtype != np.bool_ or v.shape != (n,):
        raise ValueError(
            f"valid must be a boolean array of shape ({n},) (one per document), "
            f"got dtype {v.dtype} and shape {v.shape}"
        )
    return v


def _check_threshold(threshold) -> float:
    msg = f"threshold={threshold!r} is not accepted; use a number in (0, 1]"
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float, np.number)):
        raise ValueError(msg)
    t = float(threshold)
    if not 0.0 < t <= 1.0:
        raise ValueError(msg)
    return t


def _pairs_frame(df, n: int, name: str, need_jaccard: bool) -> pd.DataFrame:
    cols = {"i", "j", "jaccard"} if need_jaccard else {"i", "j"}
    if not isinstance(df, pd.DataFrame) or not cols <= set(df.columns):
        raise ValueError(
            f"{name} must be a pandas DataFrame with columns {', '.join(sorted(cols))}"
        )
    for c in ("i", "j"):
        if len(df) and df[c].dtype.kind not in "iu":
            raise ValueError(f"{name}[{c!r}] must hold integer row numbers, got {df[c].dtype}")
    _check_rows(df["i"].to_numpy(np.int64), df["j"].to_numpy(np.int64), n, name)
    return df


def _check_rows(i: np.ndarray, j: np.ndarray, n: int, name: str) -> None:
    if i.size == 0:
        return
    lo = min(int(i.min()), int(j.min()))
    hi = max(int(i.max()), int(j.max()))
    if lo < 0 or hi >= n:
        bad = lo if lo < 0 else hi
        raise ValueError(
            f"{name} refers to document {bad}, but there are {n} fingerprints "
            f"(accepted: 0 to {n - 1})"
        )
    if np.any(i == j):
        raise ValueError(f"{name} pairs a document with itself; pairs need i != j")


def _pairs_array(pairs, n: int, name: str) -> np.ndarray:
    arr = as_pairs(pairs, name)
    _check_rows(arr[:, 0], arr[:, 1], n, name)
    return arr


def _pair_codes(i: np.ndarray, j: np.ndarray, n: int) -> np.ndarray:
    """Sorted, distinct codes ``min * n + max`` of unordered pairs."""
    a = np.minimum(i, j).astype(np.int64)
    b = np.maximum(i, j).astype(np.int64)
    codes = np.sort(a * np.int64(n) + b)
    if codes.shape[0] > 1:
        keep = np.empty(codes.shape[0], dtype=bool)
        keep[0] = True
        np.not_equal(codes[1:], codes[:-1], out=keep[1:])
        codes = codes[keep]
    return codes


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
    ``valid`` arguments of :func:`hamming_pairs` and :func:`compare_table`).

    Examples
    --------
    >>> sh = SimHasher(seed=1)
    >>> fps = sh.fingerprints([["abcde", "bcdef"], []])
    >>> fps.dtype, int(fps[1])
    (dtype('uint64'), 0)
    """

    def __init__(self, seed: int = 1):
        self.seed = _check_int("seed", seed, 0)
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
        if isinstance(shingles, (str, bytes)):
            raise ValueError("shingle_hashes() takes a list of shingles, not a single str")
        flat = flatten([shingles])
        hi = flat.hashes(int(self._s_hi)).astype(np.uint64)
        lo = flat.hashes(int(self._s_lo)).astype(np.uint64)
        return (hi << np.uint64(32)) | lo

    def fingerprint(self, shingles: Sequence[str]) -> int:
        """Fingerprint of one document, as a Python int (0 to 2**64 − 1)."""
        if isinstance(shingles, (str, bytes)):
            raise ValueError("fingerprint() takes a list of shingles, not a single str")
        return int(self.fingerprints([shingles])[0])

    def fingerprints(self, shingle_lists: Iterable[Sequence[str]]) -> np.ndarray:
        """Fingerprints of many documents from their shingle lists.

        Computed in one compiled pass over all shingles' UTF-8 bytes (no Python work per
        shingle).

        Parameters
        ----------
        shingle_lists : iterable of sequences of str, length n
            Each document's shingles (``nearsim.shingles(text)``), or the
            ``FlatShingles`` that ``nearsim._hashing.text_shingles`` cuts from raw texts.

        Returns
        -------
        ndarray of uint64, shape (n,)
            0 for a document with no shingles.
        """
        flat = shingle_lists if isinstance(shingle_lists, FlatShingles) else flatten(shingle_lists)
        out = np.empty(flat.n_docs, dtype=np.uint64)
        args = (flat.buf, flat.starts, flat.ends, flat.doc_offsets, self._s_hi, self._s_lo, out)
        if flat.starts.shape[0] >= _PARALLEL_MIN_SHINGLES:
            _fingerprints_parallel(*args, _chunks(out.shape[0]))
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
            _fingerprints_text(*args, *seeds, _chunks(out.shape[0]))
        else:
            _fp_text_range(*args, 0, out.shape[0], *seeds)
        return out


def popcount(values) -> np.ndarray:
    """Number of set bits of each value.

    Parameters
    ----------
    values : array_like of unsigned int, shape (m,) (or any shape)

    Returns
    -------
    ndarray of int64, same shape as ``values``
    """
    arr = np.asarray(values)
    if arr.dtype.kind not in "ui" or arr.dtype == np.bool_:
        raise ValueError(f"popcount needs integers, got dtype {arr.dtype}")
    flat = as_fingerprints(arr.reshape(-1), "values")
    return _popcount_array(flat).reshape(arr.shape)


def _as_u64(x, name: str) -> np.ndarray:
    """A scalar or array of fingerprints as a uint64 array (0-d for a scalar)."""
    if np.ndim(x) == 0:
        v = x.item() if isinstance(x, np.generic) else x
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < 1 << 64:
            raise ValueError(f"{name}={x!r} is not accepted; use an integer 0 to 2**64 - 1")
        return np.array(v, dtype=np.uint64)
    if isinstance(x, (np.ndarray, pd.Series)):
        arr = np.asarray(x)
        return as_fingerprints(arr.reshape(-1), name).reshape(arr.shape)
    obj = np.asarray(x, dtype=object)
    return as_fingerprints(list(obj.reshape(-1)), name).reshape(obj.shape)


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
            f"a and b do not broadcast together: shapes {x.shape} and {y.shape}"
        ) from None
    out = _popcount_array(np.ascontiguousarray(z).reshape(-1)).reshape(z.shape)
    return int(out) if out.ndim == 0 else out


# =========================================================================== pair search
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
        return [np.uint64(np.bitwise_or.reduce(self.block_masks[list(t)])) for t in self.tables]


def _block_masks(blocks: int) -> np.ndarray:
    sizes = [BITS // blocks + (1 if b < BITS % blocks else 0) for b in range(blocks)]
    masks = []
    lo = 0
    for s in sizes:
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
    d = _check_int("max_distance", max_distance, 0, BITS)
    if d > MAX_TABLE_DISTANCE:
        raise ValueError(
            f"max_distance={d} is too large for method='tables' (accepted: 0 to "
            f"{MAX_TABLE_DISTANCE}): at that distance the pigeonhole blocks are only "
            f"{BITS // (d + 1)} bits, so the tables do as much work as all pairs or need "
            "hundreds of tables; use method='brute', which handles any distance 0 to 64"
        )
    n = max(_check_int("n", n, 0), 2)
    all_pairs = n * (n - 1) / 2
    best = None
    for blocks in range(d + 1, _MAX_BLOCKS + 1):
        count = math.comb(blocks, d)
        if count > MAX_TABLES:
            break
        need = blocks - d
        sizes = [BITS // blocks + (1 if b < BITS % blocks else 0) for b in range(blocks)]
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
    codes = np.sort(np.concatenate(runs))
    return codes // n, codes % n


def _brute(fp: np.ndarray, d: int, max_pairs: int):
    n = fp.shape[0]
    par = n * (n - 1) // 2 >= _PARALLEL_MIN_PAIRS
    counts = np.empty(n, dtype=np.int64)
    if par:
        _brute_count_parallel(fp, d, counts, max(16, _chunks(n)))
    else:
        _brute_count_serial(fp, d, counts)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    total = int(offsets[-1])
    if total > max_pairs:
        raise _too_many(total, max_pairs, d)
    out_j = np.empty(total, dtype=np.int64)
    out_d = np.empty(total, dtype=np.int64)
    if par and total >= _PARALLEL_MIN_PAIRS // 4:
        _brute_fill_parallel(fp, d, offsets, out_j, out_d, max(16, _chunks(n)))
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
        See :func:`as_fingerprints` for what is accepted.
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
    method = _check_method(method)
    d = _check_int("max_distance", max_distance, 0, BITS)
    if method == "tables":
        table_scheme(d, fp.shape[0])  # raises for d > MAX_TABLE_DISTANCE
    max_pairs = _check_int("max_pairs", max_pairs, 0)
    v = _check_valid(valid, fp.shape[0])
    rows = None
    if v is not None:
        rows = np.flatnonzero(v).astype(np.int64)
        fp = fp[rows]
    if fp.shape[0] < 2:
        return _empty_pairs()
    fp = np.ascontiguousarray(fp)
    if method == "tables":
        i, j = _tables(fp, d, max_pairs)
        dist = _pair_distances(fp, i, j)
    else:
        i, j, dist = _brute(fp, d, max_pairs)
    if rows is not None:
        i, j = rows[i], rows[j]
    return pd.DataFrame({"i": i, "j": j, "distance": dist})


def replay(fingerprints, max_distance: int) -> np.ndarray:
    """Insert fingerprints one by one into an empty store, as a dedup filter would.

    A document is kept (stored) only if no stored fingerprint is within ``max_distance``
    bits of it; otherwise it is dropped as a duplicate. This is seed 000's "174 in, 8 out".

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
    d = _check_int("max_distance", max_distance, 0, BITS)
    n = fp.shape[0]
    if n == 0:
        return np.empty(0, dtype=np.int64)
    blocks = d + 1
    if blocks <= 10 and n >= 64:
        if n >= 2**31 - 1:
            raise ValueError(f"replay handles at most {2**31 - 2} fingerprints, got {n}")
        masks = _block_masks(blocks)
        sizes = [BITS // blocks + (1 if b < BITS % blocks else 0) for b in range(blocks)]
        shifts = np.array(np.cumsum([0, *sizes[:-1]]), dtype=np.uint64)
        key_masks = (masks >> shifts).astype(np.uint64)
        bucket_bits = max(10, min(24, (2 * n - 1).bit_length()))
        return _replay_tables(fp, d, shifts, key_masks, bucket_bits)
    return _replay_scan(fp, d)


# =========================================================================== hash health
@dataclass
class HashHealth:
    """How much information a set of fingerprints carries.

    Attributes
    ----------
    documents : int
        Fingerprints in the sample.
    mean_distance : float
        Mean Hamming distance over all pairs of the sample (NaN with fewer than 2). For
        unrelated documents and a good 64-bit hash it is near 32.
    median_distance : float
        The median; less moved than the mean by a few near-duplicates in the sample.
    bit_share : ndarray of float64, shape (64,)
        Share of sampled fingerprints with each bit set (bit 0 is the lowest).
    stuck_bits : list of int
        Bits that are the same in every sampled fingerprint (reported only when the sample
        has at least ``MIN_DOCS_FOR_BITS`` documents; a fair bit stays put over 20
        documents with probability 2**−19).
    copied_bits : list of tuple of int
        Pairs (a, b), a < b, of moving bits that are equal in every sampled fingerprint:
        b copies a (seed 000's ``i % 31``). Same minimum sample as ``stuck_bits``.
    informative_bits : int
        Moving bits left after removing copies (64 for a healthy hash; seed 000's had 20).
    status : str
        ``"ok"``, ``"suspect"`` or ``"broken"``.
    verdict : str
        One or two plain sentences.
    """

    documents: int
    mean_distance: float
    median_distance: float
    bit_share: np.ndarray = field(repr=False)
    stuck_bits: list
    copied_bits: list
    informative_bits: int
    status: str
    verdict: str


MIN_DOCS_FOR_BITS = 20


def _bits_matrix(fp: np.ndarray) -> np.ndarray:
    """(k, 64) uint8 matrix, column b = bit b."""
    return ((fp[:, None] >> np.arange(64, dtype=np.uint64)) & np.uint64(1)).astype(np.uint8)


def hash_health(fingerprints, sample: int = 100, seed: int = 0, *, valid=None) -> HashHealth:
    """Check that fingerprints use 64 real bits, on a random sample of documents.

    Seed 000's lesson: test the hash, not only the dedupe. For unrelated documents each
    bit of a good SimHash is a fair coin independent of the others, so the distance between
    two documents is Binomial(64, 1/2): mean 32, standard deviation 4.

    Parameters
    ----------
    fingerprints : array_like of uint64, shape (n,)
    sample : int
        Number of documents sampled (>= 2); all of them when n <= sample.
    seed : int
        Seed of the sample.
    valid : ndarray of bool, shape (n,), optional
        Sample only these documents (e.g. leave out those with no shingles, whose
        fingerprint is 0).

    Returns
    -------
    HashHealth

    Notes
    -----
    Status: "ok" when the mean distance is 28 to 36 and no bit is stuck or a copy;
    "broken" when 8 or more bits are stuck or copies (seed 000's hash has 44); "suspect"
    otherwise. A low mean with every bit moving and no copies points at the
    documents rather than the hash: templated text, near-duplicates or very short documents
    (a tie in the vote gives 0) bring documents closer; the verdict says so. Stuck and
    copied bits are only judged with at least ``MIN_DOCS_FOR_BITS`` documents.
    """
    fp = as_fingerprints(fingerprints)
    sample = _check_int("sample", sample, 2)
    seed = _check_int("seed", seed, 0)
    v = _check_valid(valid, fp.shape[0])
    if v is not None:
        fp = fp[v]
    n = fp.shape[0]
    if n > sample:
        rng = np.random.default_rng(seed)
        idx = np.sort(rng.choice(n, size=sample, replace=False))
        fp = fp[idx]
    k = fp.shape[0]
    bits = _bits_matrix(fp)
    share = bits.mean(axis=0) if k else np.full(64, np.nan)
    if k >= 2:
        dists = np.concatenate(
            [_popcount_array(np.ascontiguousarray(fp[a + 1 :] ^ fp[a])) for a in range(k - 1)]
        )
        mean = float(dists.mean())
        median = float(np.median(dists))
    else:
        mean = median = float("nan")
    stuck: list[int] = []
    copied: list[tuple[int, int]] = []
    informative = 64
    if k >= MIN_DOCS_FOR_BITS:
        stuck = [int(b) for b in np.flatnonzero((share == 0) | (share == 1))]
        moving = [b for b in range(64) if b not in set(stuck)]
        first_of: dict[bytes, int] = {}
        for b in moving:
            col = bits[:, b].tobytes()
            if col in first_of:
                copied.append((first_of[col], b))
            else:
                first_of[col] = b
        informative = len(first_of)
    status, verdict = _verdict(k, mean, stuck, copied, informative)
    return HashHealth(k, mean, median, share, stuck, copied, informative, status, verdict)


def _verdict(k, mean, stuck, copied, informative) -> tuple[str, str]:
    if k < 2:
        return "suspect", "Too few documents to judge the hash: at least 2 are needed."
    bits_checked = k >= MIN_DOCS_FOR_BITS
    defects = len(stuck) + len(copied)
    apart = f"documents are {mean:.1f} bits apart on average (about 32 of 64 expected)"
    note = (
        ""
        if bits_checked
        else f" With {k} documents the bits themselves can't be judged; use 20 or more."
    )
    if defects == 0 and 28 <= mean <= 36:
        moving = " and all 64 bits move" if bits_checked else ""
        return "ok", f"Healthy: {apart}{moving}.{note}"
    if defects == 0:
        if mean > 36:
            return "suspect", (
                f"Suspect: {apart}; more than 32 means the bits are not independent.{note}"
            )
        why = (
            "the sampled documents share much of their text (templates, boilerplate, "
            "near-duplicates) or are very short"
        )
        if bits_checked:
            why = "All 64 bits move and none copies another, so the hash looks sound: " + why
        else:
            why = why[0].upper() + why[1:]
        return "suspect", (
            f"Close documents: {apart}. {why}. Check the hash on unrelated documents.{note}"
        )
    problems = []
    if stuck:
        problems.append(
            "1 bit never changes" if len(stuck) == 1 else f"{len(stuck)} bits never change"
        )
    if copied:
        problems.append(
            "1 bit is a copy of another"
            if len(copied) == 1
            else f"{len(copied)} bits are copies of other bits"
        )
    what = "; ".join(problems)
    if defects >= 8:
        return "broken", (
            f"Broken hash: {what}, so only {informative} of 64 bits carry information, and "
            f"{apart}. Unrelated documents will look like near-duplicates."
        )
    return "suspect", (
        f"Suspect: {what}, and {apart}. Either the hash is weak or the sampled documents "
        "share most of their text; check the hash on unrelated documents."
    )


_JS_SPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
JS_WHITESPACE = re.compile(f"[{re.escape(_JS_SPACE)}]+")
"""What JavaScript's ``/\\s+/`` matches (ECMAScript WhiteSpace and LineTerminator)."""


def broken_simhash(texts: Iterable[str]) -> np.ndarray:
    """Seed 000's broken SimHash, reproduced exactly — to show what a bad hash does.

    A port of the JavaScript in seed 000::

        tokens = text.toLowerCase().split(/\\s+/)
        h = 0; for each UTF-16 code unit c: h = (h * 31 + c) >>> 0
        v[i] += (h & (1 << (i % 31))) ? 1 : -1      for i = 0..63
        bit i = v[i] >= 0

    Only 31 distinct bits (bit 31 + i copies bit i), many of which never move on English
    text. Lower-casing is ``str.lower`` (the same Unicode mapping as ``toLowerCase``);
    splitting follows JavaScript: leading or trailing white space gives an empty token,
    which votes like any other (h = 0), and an empty text is one empty token.

    Parameters
    ----------
    texts : iterable of str, length n

    Returns
    -------
    ndarray of uint64, shape (n,)
        Character i of the JavaScript's '0'/'1' string is bit i (bit 0 is the lowest).
    """
    encoded = [t.lower().encode("utf-16-le", "surrogatepass") for t in as_text_list(texts)]
    lengths = np.fromiter((len(e) // 2 for e in encoded), dtype=np.int64, count=len(encoded))
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    units = np.frombuffer(b"".join(encoded), dtype="<u2")
    out = np.empty(len(encoded), dtype=np.uint64)
    _broken_kernel(units, offsets, out)
    return out


# =========================================================================== compare
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
    v = _check_valid(valid, fp.shape[0])
    if v is not None:
        fp = fp[v]
    fp = np.ascontiguousarray(fp)
    n = fp.shape[0]
    if n * (n - 1) // 2 >= _PARALLEL_MIN_PAIRS:
        return _histogram_parallel(fp, max(16, _chunks(n)))
    return _histogram_serial(fp)


def _truth(exact, threshold: float, n: int) -> np.ndarray:
    """Sorted distinct codes of the pairs in ``exact`` with jaccard >= threshold."""
    df = _pairs_frame(exact, n, "exact", need_jaccard=True)
    keep = df["jaccard"].to_numpy(np.float64) >= threshold
    return _pair_codes(df["i"].to_numpy(np.int64)[keep], df["j"].to_numpy(np.int64)[keep], n)


def compare_table(
    fingerprints, exact, threshold, *, max_distance: int = 24, valid=None
) -> pd.DataFrame:
    """SimHash at every distance d, scored against exact ground truth.

    Parameters
    ----------
    fingerprints : array_like of uint64, shape (n,)
    exact : pandas.DataFrame
        Columns i, j, jaccard: at least every pair with exact Jaccard >= ``threshold``
        (what :func:`nearsim.exact_pairs` returns; rows below the threshold are ignored).
    threshold : float
        Jaccard threshold t, in (0, 1].
    max_distance : int
        Last d in the table, 0 to 64.
    valid : ndarray of bool, shape (n,), optional
        Documents SimHash may pair (e.g. those with shingles — every empty document has
        fingerprint 0). Invalid documents are never within any distance; true pairs
        involving them still count in the recall's denominator, as missed.

    Returns
    -------
    pandas.DataFrame
        One row per d = 0 .. max_distance with columns

        - d (int64)
        - pairs_within (int64): pairs (of all n(n − 1)/2) with distance <= d
        - true_within (int64): of those, pairs with exact Jaccard >= t
        - recall (float64): true_within / true pairs (NaN when there are none)
        - precision (float64): true_within / pairs_within (NaN when pairs_within is 0)

    Notes
    -----
    ``pairs_within`` comes from a histogram of all n(n − 1)/2 distances computed in
    compiled code (2·10⁸ popcounts at n = 20,000), not from a list of pairs.
    """
    fp = as_fingerprints(fingerprints)
    t = _check_threshold(threshold)
    dmax = _check_int("max_distance", max_distance, 0, BITS)
    n = fp.shape[0]
    v = _check_valid(valid, n)
    codes = _truth(exact, t, n)
    i, j = codes // max(n, 1), codes % max(n, 1)
    if v is not None:
        ok = v[i] & v[j]
        i, j = i[ok], j[ok]
    hist = distance_histogram(fp, valid=v)
    true_hist = np.bincount(_pair_distances(np.ascontiguousarray(fp), i, j), minlength=65)
    within = np.cumsum(hist)[: dmax + 1]
    true_within = np.cumsum(true_hist)[: dmax + 1]
    n_true = codes.shape[0]
    with np.errstate(invalid="ignore", divide="ignore"):
        recall = true_within / n_true if n_true else np.full(dmax + 1, np.nan)
        precision = np.where(within > 0, true_within / np.maximum(within, 1), np.nan)
    return pd.DataFrame(
        {
            "d": np.arange(dmax + 1, dtype=np.int64),
            "pairs_within": within.astype(np.int64),
            "true_within": true_within.astype(np.int64),
            "recall": recall.astype(np.float64),
            "precision": precision.astype(np.float64),
        }
    )


def lsh_scores(lsh_pairs, exact, threshold, n: int | None = None) -> dict:
    """MinHash LSH candidates scored against the same truth as :func:`compare_table`.

    Parameters
    ----------
    lsh_pairs : ndarray of int, shape (m, 2), or DataFrame with columns i, j
        Candidate pairs (e.g. ``nearsim.candidate_pairs(signatures, b, r)``).
    exact : pandas.DataFrame
        Columns i, j, jaccard, as in :func:`compare_table`.
    threshold : float
        Jaccard threshold t, in (0, 1].
    n : int, optional
        Number of documents (for range checks); by default the largest row number + 1.

    Returns
    -------
    dict
        ``pairs`` (distinct candidates), ``true_found`` (candidates that are true pairs),
        ``true_pairs``, ``recall`` (true_found / true_pairs) and ``precision``
        (true_found / pairs); NaN for a ratio whose denominator is 0.
    """
    t = _check_threshold(threshold)
    if n is None:
        arr = _pairs_array(lsh_pairs, np.iinfo(np.int64).max, "lsh_pairs")
        ex = exact[["i", "j"]].to_numpy() if isinstance(exact, pd.DataFrame) else None
        hi = max(int(arr.max(initial=-1)), int(ex.max(initial=-1)) if ex is not None else -1)
        n = hi + 1
    n = _check_int("n", n, 0)
    arr = _pairs_array(lsh_pairs, n, "lsh_pairs")
    truth = _truth(exact, t, n)
    cand = _pair_codes(arr[:, 0], arr[:, 1], n)
    if truth.shape[0] and cand.shape[0]:
        pos = np.minimum(np.searchsorted(truth, cand), truth.shape[0] - 1)
        found = int(np.count_nonzero(truth[pos] == cand))
    else:
        found = 0
    m, nt = int(cand.shape[0]), int(truth.shape[0])
    return {
        "pairs": m,
        "true_found": found,
        "true_pairs": nt,
        "recall": found / nt if nt else float("nan"),
        "precision": found / m if m else float("nan"),
    }


@dataclass
class SimHashComparison:
    """SimHash against exact truth at every distance, and LSH at its current b × r.

    Attributes
    ----------
    table : pandas.DataFrame
        :func:`compare_table`'s rows.
    lsh : dict or None
        :func:`lsh_scores` of the LSH candidates, when given.
    true_pairs : int
        Pairs with exact Jaccard >= threshold.
    total_pairs : int
        n(n − 1)/2 (over valid documents, when ``valid`` is given).
    """

    table: pd.DataFrame
    lsh: dict | None
    true_pairs: int
    total_pairs: int


def compare_simhash(
    fingerprints,
    exact,
    threshold,
    lsh_pairs=None,
    max_distance: int = 24,
    *,
    valid=None,
) -> SimHashComparison:
    """The Compare view's data: :func:`compare_table` plus :func:`lsh_scores`.

    Parameters
    ----------
    fingerprints, exact, threshold, max_distance, valid
        As in :func:`compare_table`.
    lsh_pairs : ndarray of int, shape (m, 2), optional
        MinHash LSH candidate pairs at the current bands × rows.

    Returns
    -------
    SimHashComparison
    """
    fp = as_fingerprints(fingerprints)
    table = compare_table(fp, exact, threshold, max_distance=max_distance, valid=valid)
    n = fp.shape[0]
    lsh = None if lsh_pairs is None else lsh_scores(lsh_pairs, exact, threshold, n)
    n_valid = n if valid is None else int(np.count_nonzero(valid))
    true_pairs = _truth(exact, _check_threshold(threshold), n).shape[0]
    return SimHashComparison(table, lsh, int(true_pairs), n_valid * (n_valid - 1) // 2)


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
    df = _pairs_frame(pairs, fp.shape[0], "pairs", need_jaccard=True)
    out = df.reset_index(drop=True).copy()
    out["distance"] = _pair_distances(fp, df["i"].to_numpy(np.int64), df["j"].to_numpy(np.int64))
    return out
