"""Which stored documents a batch of new ones matches, decided as ``nearsim dedup`` decides.

A **match** is a document that shares a whole band with the new one and whose MinHash
estimate reaches the threshold; as in ``nearsim dedup`` (README, "Real corpora"):

- **Exact copies first.** A new document whose normalised text is a stored document's
  (equal 128-bit copy keys) matches that text's *first occurrence* only, with estimate 1.0,
  and never enters the band tables; later copies within one call match their first
  occurrence in the call the same way.
- **Buckets.** A bucket is the stored distinct documents and the call's distinct
  documents with one band's values equal. When it holds at most ``bucket_limit`` of them
  (100, as ``nearsim dedup``), a new document is compared with every member stored before
  it. When it holds more, only with the bucket's first member (smallest position) and the
  member stored just before it: the 2m − 3 pairs of ``nearsim dedup``'s rule, so a bucket
  of a million boilerplate pages costs a lookup two comparisons, not a million.

Documents are taken in order, each against everything stored before it — the index's
documents and, in an add, the call's earlier documents that are stored. Without
``skip_duplicates`` every document is stored, and the matches are exactly the pairs a
``nearsim dedup`` run over the stored documents followed by the new ones finds between a
new document and an earlier one (tested). With it, a document with a match is not stored,
so nothing later is compared with it. A query takes each new document alone.

Band keys are 64-bit hashes of a band's values; a candidate is kept only when the two
signatures really agree on a whole band, so a hash collision never makes a match.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from nearsim.banding import band_keys
from nearsim.copies import copy_pairs
from nearsim.index.stored import BatchMatches, Stored
from nearsim.utils.arrays import grow

NONE = -1
"""No document (a reference is a stored document g ≥ 0, or a call's row i as −2 − i)."""


def all_band_keys(sig: np.ndarray, b: int, r: int) -> np.ndarray:
    """Band keys of every row: uint64, shape (b, n) (band i is columns i·r … i·r + r − 1)."""
    out = np.empty((b, sig.shape[0]), dtype=np.uint64)
    for band in range(b):
        out[band] = band_keys(sig, band * r, band * r + r)
    return out


@njit(cache=True)
def _find_keys(k0, k1, rows, q0, q1, out):
    """For each query key (q0[t], q1[t]): the row whose key it is in the table sorted by
    (k0, k1), or leave ``out[t]``."""
    n = k0.shape[0]
    for t in range(q0.shape[0]):
        lo, hi = 0, n
        while lo < hi:
            mid = (lo + hi) // 2
            if k0[mid] < q0[t] or (k0[mid] == q0[t] and k1[mid] < q1[t]):
                lo = mid + 1
            else:
                hi = mid
        if lo < n and k0[lo] == q0[t] and k1[lo] == q1[t]:
            out[t] = rows[lo]


def stored_copies(stored: Stored, keys: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The stored first occurrence of each masked row's text (its position), or −1."""
    out = np.full(keys.shape[0], -1, dtype=np.int64)
    rows = np.flatnonzero(mask)
    if not rows.size:
        return out
    q0, q1 = np.ascontiguousarray(keys[rows, 0]), np.ascontiguousarray(keys[rows, 1])
    for s, seg in enumerate(stored.segments):
        if seg["copy_key0"].shape[0] == 0:
            continue
        local = np.full(rows.shape[0], -1, dtype=np.int64)
        _find_keys(seg["copy_key0"], seg["copy_key1"], seg["copy_row"], q0, q1, local)
        hit = local >= 0
        out[rows[hit]] = stored.starts[s] + local[hit]
    return out


def _expand(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The ranges ``lo[t] … hi[t] − 1`` laid end to end, and the t of each value."""
    lengths = hi - lo
    owner = np.repeat(np.arange(lo.shape[0], dtype=np.int64), lengths)
    starts = np.cumsum(lengths) - lengths
    return lo[owner] + (np.arange(owner.shape[0], dtype=np.int64) - starts[owner]), owner


@dataclass
class _Runs:
    """The buckets the call's documents fall in, every band's laid end to end."""

    run_of: np.ndarray  # (b, n) int64: each row's bucket in each band, or -1
    member_start: np.ndarray  # (R + 1,)
    members: np.ndarray  # the call's rows of each bucket, ascending
    hot: np.ndarray  # (R,) bool
    first: np.ndarray  # (R,) stored position of the first member, or -1
    last: np.ndarray  # (R,) stored position of the last member, or -1
    stored_start: np.ndarray  # (R + 1,): members of small buckets
    stored_members: np.ndarray  # positions


def _band_runs(stored, keys_b, rows, distinct, band, limit, solo):
    """One band's buckets: the call's rows grouped by key, with what is stored in each."""
    kb = keys_b[rows]
    if solo:  # a query: each document alone
        order = np.arange(rows.shape[0], dtype=np.int64)
        starts = np.arange(rows.shape[0] + 1, dtype=np.int64)
    elif rows.shape[0] == 0:
        order, starts = np.zeros(0, dtype=np.int64), np.zeros(1, dtype=np.int64)
    else:
        order = np.argsort(kb, kind="stable")
        sk = kb[order]
        cut = np.flatnonzero(sk[1:] != sk[:-1]) + 1
        starts = np.concatenate([[0], cut, [rows.shape[0]]]).astype(np.int64)
    members = rows[order]
    runs = starts.shape[0] - 1
    ukeys = kb[order][starts[:-1]]
    t = np.add.reduceat(distinct[members].astype(np.int64), starts[:-1]) if runs else starts[:0]
    s_count = np.zeros(runs, dtype=np.int64)
    first = np.full(runs, -1, dtype=np.int64)
    last = np.full(runs, -1, dtype=np.int64)
    ranges = []
    for s, seg in enumerate(stored.segments):
        table = seg["band_keys"]
        if table.shape[1] == 0 or not runs:
            continue
        lo = np.searchsorted(table[band], ukeys, side="left")
        hi = np.searchsorted(table[band], ukeys, side="right")
        got = hi > lo
        if not got.any():
            continue
        seg_rows = seg["band_rows"][band]
        start = stored.starts[s]
        first_new = got & (first < 0)
        first[first_new] = start + seg_rows[lo[first_new]].astype(np.int64)
        last[got] = start + seg_rows[hi[got] - 1].astype(np.int64)
        s_count += hi - lo
        ranges.append((s, lo, hi))
    hot = s_count + (1 if solo else t) > limit
    small = ~hot & (s_count > 0)
    pos_parts, owner_parts = [], []
    for s, lo, hi in ranges:
        pick = np.flatnonzero(small & (hi > lo))
        if pick.size:
            idx, owner = _expand(lo[pick], hi[pick])
            seg_rows = stored.segments[s]["band_rows"][band]
            pos_parts.append(stored.starts[s] + seg_rows[idx].astype(np.int64))
            owner_parts.append(pick[owner])
    if pos_parts:
        owner = np.concatenate(owner_parts)
        by_run = np.argsort(owner, kind="stable")  # segments in order: positions ascend
        positions = np.concatenate(pos_parts)[by_run]
        counts = np.bincount(owner, minlength=runs)
    else:
        positions = np.empty(0, dtype=np.int64)
        counts = np.zeros(runs, dtype=np.int64)
    return members, starts, hot, first, last, counts, positions


def _runs(stored, keys, bandable, distinct, limit, solo) -> _Runs:
    b, n = keys.shape
    rows = np.flatnonzero(bandable)
    run_of = np.full((b, n), -1, dtype=np.int64)
    parts = []
    offset = 0
    for band in range(b):
        members, starts, hot, first, last, counts, positions = _band_runs(
            stored, keys[band], rows, distinct, band, limit, solo
        )
        runs = starts.shape[0] - 1
        run_of[band, members] = offset + np.repeat(np.arange(runs), np.diff(starts))
        parts.append((members, np.diff(starts), hot, first, last, counts, positions))
        offset += runs

    def cat(i, dtype):
        return np.concatenate([p[i] for p in parts]).astype(dtype) if parts else np.empty(0, dtype)

    def offsets(sizes):
        out = np.zeros(sizes.shape[0] + 1, dtype=np.int64)
        np.cumsum(sizes, out=out[1:])
        return out

    return _Runs(
        run_of=run_of,
        member_start=offsets(cat(1, np.int64)),
        members=cat(0, np.int64),
        hot=cat(2, np.bool_),
        first=cat(3, np.int64),
        last=cat(4, np.int64),
        stored_start=offsets(cat(5, np.int64)),
        stored_members=cat(6, np.int64),
    )


@njit(cache=True, inline="always")
def _compare(x, y, b, r):
    """Agreeing positions of two signatures, and whether some whole band agrees."""
    same = 0
    for c in range(x.shape[0]):
        same += x[c] == y[c]
    for band in range(b):
        whole = True
        for c in range(band * r, band * r + r):
            if x[c] != y[c]:
                whole = False
                break
        if whole:
            return same, True
    return same, False


@njit(cache=True)
def _resolve(
    sig, valid, copy_g, first_of, run_of, member_start, members, hot, first_ref, last_ref,
    stored_start, stored_g, cand_sig, reach, b, r, skip, solo,
):  # fmt: skip
    """Take the call's documents in order, each against everything stored before it.

    References: a stored document by its row g in ``cand_sig`` (g ≥ 0), the call's row i
    as −2 − i, none as −1. ``first_ref``/``last_ref`` (per bucket) are updated as rows are
    stored. Returns the matches (row, reference, agreeing positions), how many, and which
    rows are stored, which enter the band tables and which are exact copies.
    """
    n = sig.shape[0]
    cap = max(16, 2 * n)
    out_row = np.empty(cap, np.int64)
    out_ref = np.empty(cap, np.int64)
    out_cnt = np.empty(cap, np.int64)
    m = 0
    stored = np.zeros(n, np.bool_)
    banded = np.zeros(n, np.bool_)
    copy = np.zeros(n, np.bool_)
    group_first = np.full(n, -1, np.int64)  # each text's first stored row in the call
    seen_g = np.full(cand_sig.shape[0], -1, np.int64)
    seen_b = np.full(n, -1, np.int64)
    for j in range(n):
        if not valid[j]:
            stored[j] = not solo
            continue
        if m + 2 * b + 2 >= out_row.shape[0]:
            out_row, out_ref, out_cnt = grow(out_row), grow(out_ref), grow(out_cnt)
        found = 0
        g = copy_g[j]
        if g < 0 and not solo and group_first[first_of[j]] >= 0:
            g = -2 - group_first[first_of[j]]
        if g != -1:  # an exact copy: its first stored occurrence only
            other = cand_sig[g] if g >= 0 else sig[-2 - g]
            same, _ = _compare(sig[j], other, b, r)
            out_row[m], out_ref[m], out_cnt[m] = j, g, same
            m += 1
            stored[j] = not solo and not skip
            copy[j] = True
            continue
        for band in range(b):
            run = run_of[band, j]
            if run < 0:
                continue
            if hot[run]:
                lo, hi = 0, 2
            else:
                lo = stored_start[run]
                hi = stored_start[run + 1] + member_start[run + 1] - member_start[run]
            for x in range(lo, hi):
                if hot[run]:
                    ref = first_ref[run] if x == 0 else last_ref[run]
                elif x < stored_start[run + 1]:
                    ref = stored_g[x]
                else:
                    i = members[member_start[run] + x - stored_start[run + 1]]
                    if i >= j:
                        break
                    ref = -2 - i if banded[i] else -1
                if ref == -1:
                    continue
                if ref >= 0:
                    if seen_g[ref] == j:
                        continue
                    seen_g[ref] = j
                    same, whole = _compare(sig[j], cand_sig[ref], b, r)
                else:
                    if seen_b[-2 - ref] == j:
                        continue
                    seen_b[-2 - ref] = j
                    same, whole = _compare(sig[j], sig[-2 - ref], b, r)
                if whole and reach[same]:
                    if m >= out_row.shape[0]:
                        out_row, out_ref, out_cnt = grow(out_row), grow(out_ref), grow(out_cnt)
                    out_row[m], out_ref[m], out_cnt[m] = j, ref, same
                    m += 1
                    found += 1
        if solo:
            continue
        stored[j] = not skip or found == 0
        if stored[j]:
            group_first[first_of[j]] = j
            banded[j] = True
            for band in range(b):
                run = run_of[band, j]
                if run >= 0:
                    last_ref[run] = -2 - j
                    if first_ref[run] == -1:
                        first_ref[run] = -2 - j
    return out_row[:m], out_ref[:m], out_cnt[:m], stored, banded, copy


def match_batch(
    stored: Stored,
    sig: np.ndarray,
    valid: np.ndarray,
    keys: np.ndarray,
    *,
    bands: int,
    rows: int,
    threshold: float,
    bucket_limit: int,
    skip: bool = False,
    solo: bool = False,
) -> BatchMatches:
    """Match a batch against the stored documents (and, unless ``solo``, its earlier rows).

    Parameters
    ----------
    stored : Stored
    sig : ndarray of uint32, shape (n, k)
    valid : ndarray of bool, shape (n,)
    keys : ndarray of uint64, shape (n, 2)
        Copy keys (:func:`nearsim.copies.copy_keys`).
    bands, rows : int
    threshold : float
    bucket_limit : int
    skip : bool
        A row with a match is not stored (``skip_duplicates``).
    solo : bool
        Each row alone against the stored documents (a query: nothing is stored).

    Returns
    -------
    BatchMatches
    """
    n, k = sig.shape
    arange = np.arange(n, dtype=np.int64)
    copy_pos = stored_copies(stored, keys, valid) if stored.count else np.full(n, -1, np.int64)
    bandable = valid & (copy_pos < 0)
    first_of = arange.copy()
    if not solo:
        links = copy_pairs(keys, bandable)
        first_of[links[:, 1]] = links[:, 0]
    distinct = bandable & (first_of == arange)
    keys_b = all_band_keys(sig, bands, rows)
    runs = _runs(stored, keys_b, bandable, distinct, bucket_limit, solo)
    wanted = np.concatenate([runs.stored_members, runs.first, runs.last, copy_pos])
    positions = np.unique(wanted[wanted >= 0])
    cand_sig = stored.signatures(positions, k)

    def g_of(p):
        out = np.full(p.shape[0], NONE, dtype=np.int64)
        some = p >= 0
        out[some] = np.searchsorted(positions, p[some])
        return out

    reach = np.arange(k + 1, dtype=np.float64) / k >= threshold
    row, ref, count, is_stored, banded, copy = _resolve(
        np.ascontiguousarray(sig), valid, g_of(copy_pos), first_of, runs.run_of,
        runs.member_start, runs.members, runs.hot, g_of(runs.first), g_of(runs.last),
        runs.stored_start, g_of(runs.stored_members), cand_sig, reach, bands, rows,
        skip, solo,
    )  # fmt: skip
    in_store = ref >= 0
    position = np.full(row.shape[0], -1, dtype=np.int64)
    position[in_store] = positions[ref[in_store]]
    earlier = np.where(in_store, -1, -2 - ref)
    order = np.lexsort((np.where(in_store, position, stored.count + earlier), row))
    return BatchMatches(
        row=row[order],
        position=position[order],
        earlier=earlier[order],
        count=count[order],
        stored=is_stored,
        banded=banded,
        copy=copy,
        band_keys=keys_b,
    )
