"""The recall sample's pairs: every pair at or above the floor, and a uniform draw of the rest.

The recall sample S (drawn by :mod:`nearsim.audit.measure`) is held as sorted 64-bit
shingle-hash sets (:func:`nearsim.audit.tokens.flat_tokens`). After the pass:

* **listed**: every pair of S whose exact Jaccard reaches the *floor* (a band edge at or
  below t), found by nearsim's exact similarity join (:func:`nearsim.join.exact.join_rows`:
  PPJoin's prefix, length and positional filters, or every pair for a small S) on the
  hashes interned as integer ids, rarest first by their frequency in S;
* **drawn**: ``DRAWN_PAIRS`` pairs of S drawn uniformly with replacement (every pair when S
  has fewer), each compared exactly by merging the two hash sets; those below the floor
  place the rest of the similarity range, each standing for ``C(s, 2) / K`` pairs of S.

:func:`sample_pairs` returns the counts the audit needs: per 0.05 band of similarity and
split by whether the run put the two documents in one cluster, per document of S its true
pairs (J ≥ t) and how many of them are together (each pair at both of its documents), and
the most similar true pairs the run left apart.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from nearsim.join.exact import join_rows, threshold_cut
from nearsim.join.sample import N_BANDS, similarity_band
from nearsim.join.tokens import TokenSets
from nearsim.utils.arrays import pack_segments, sorted_overlap

__all__ = ["DRAWN_PAIRS", "EXAMPLES", "intern_hashes", "sample_pairs"]

DRAWN_PAIRS = 100_000
"""Pairs of the recall sample drawn uniformly to place the range below the floor.

They feed only the report's chart by similarity, never the intervals. A band holding a
share p of the sample's pairs gets about K·p of K draws, so its estimated number of pairs
has a relative standard error of about 1 / √(K·p), and the share of its pairs the run put
in one cluster a standard error of at most 1 / (2√(K·p)). The chart shows the bands from
0.3 up, and real pairs thin out fast above 0.3: on 10⁶ news items (t = 0.8, a sample of
44,722 documents) K = 10⁵ put 83 draws in the band 0.30–0.35 (relative error 0.11), 32
in 0.35–0.40 (0.18) and at most 13 in each band from 0.40 to the floor. Fewer draws would
empty these bands (K = 2·10⁴: about 17, 6 and 0–3), so K is not lowered: the draws cost
0.2 CPU seconds there (a merge of two sets of about 180 hashes each), 1.5% of the run's
time. A narrower chart near the floor would need draws weighted toward it, not fewer."""
EXAMPLES = 200
"""Missed pairs (J ≥ t, different clusters) kept for the report, the most similar first."""


@njit(cache=True, parallel=True)
def _sort_segments(values, offsets):
    for d in prange(offsets.shape[0] - 1):
        values[offsets[d] : offsets[d + 1]] = np.sort(values[offsets[d] : offsets[d + 1]])


@njit(cache=True, parallel=True)
def _overlaps(tok, off, a, b, out):
    """|set a[i] ∩ set b[i]| of sorted runs of distinct uint64, for each i."""
    for i in prange(a.shape[0]):
        out[i] = sorted_overlap(tok[off[a[i]] : off[a[i] + 1]], tok[off[b[i]] : off[b[i] + 1]])


@njit(cache=True)
def _count_hashes(tok, start, keys, counts, slots, distinct, limit):
    """Put ``tok[start:]`` into an open-addressing table (``keys``, 0 empty: hashes are
    never 0) counting the documents holding each value, and each value's slot into
    ``slots``, until the table holds ``limit`` values. Returns (next position, values)."""
    mask = keys.shape[0] - 1
    for t in range(start, tok.shape[0]):
        h = tok[t]
        slot = np.int64((h * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(20)) & mask
        while keys[slot] != 0 and keys[slot] != h:
            slot = (slot + 1) & mask
        if keys[slot] == 0:
            if distinct == limit:
                return t, distinct
            keys[slot] = h
            distinct += 1
        counts[slot] += 1
        slots[t] = slot
    return tok.shape[0], distinct


@njit(cache=True)
def _regrow(keys, counts, slots, upto, new_keys, new_counts):
    """Move the table into a bigger one and renumber the slots of ``slots[:upto]``."""
    mask = new_keys.shape[0] - 1
    moved = np.empty(keys.shape[0], dtype=np.int64)
    for old in range(keys.shape[0]):
        h = keys[old]
        if h == 0:
            continue
        slot = np.int64((h * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(20)) & mask
        while new_keys[slot] != 0:
            slot = (slot + 1) & mask
        new_keys[slot] = h
        new_counts[slot] = counts[old]
        moved[old] = slot
    for t in range(upto):
        slots[t] = moved[slots[t]]


def intern_hashes(tok: np.ndarray, off: np.ndarray) -> TokenSets:
    """Hash sets as :class:`nearsim.join.tokens.TokenSets`: each distinct hash an int32 id,
    0 the rarest in these documents (ties in a fixed order), ascending within each document.

    Parameters
    ----------
    tok : ndarray of uint64, shape (t,)
        The documents' distinct hashes back to back (:func:`nearsim.audit.tokens.flat_tokens`).
    off : ndarray of int64, shape (s + 1,)

    Returns
    -------
    TokenSets
    """
    keys = np.zeros(1 << 16, dtype=np.uint64)
    counts = np.zeros(1 << 16, dtype=np.int64)
    slots = np.empty(tok.shape[0], dtype=np.int32)  # a table of at most 2^31 slots
    at = distinct = 0
    while True:  # a table at most half full, doubled as it fills
        at, distinct = _count_hashes(tok, at, keys, counts, slots, distinct, keys.shape[0] // 2)
        if at == tok.shape[0]:
            break
        bigger = (
            np.zeros(2 * keys.shape[0], dtype=np.uint64),
            np.zeros(2 * keys.shape[0], dtype=np.int64),
        )
        _regrow(keys, counts, slots, at, *bigger)
        keys, counts = bigger
    size = keys.shape[0]
    used = np.flatnonzero(counts)
    # rarest first; ties in table order (any fixed order gives the join the same pairs). A
    # stable sort of 16-bit counts is NumPy's radix sort: 0.05 s for the millions of distinct
    # hashes of a 10^6-document audit, where sorting by (count, hash) took about 1 s.
    freq = np.minimum(counts[used], np.iinfo(np.uint16).max).astype(np.uint16)
    rank = np.zeros(size, dtype=np.int32)
    rank[used[np.argsort(freq, kind="stable")]] = np.arange(used.shape[0], dtype=np.int32)
    ids = rank[slots]
    _sort_segments(ids, off)
    return TokenSets(off, ids, np.diff(off), int(used.shape[0]))


@njit(cache=True)
def _copy_classes(tok, off, key):
    """Documents with equal hash sets into one class: ``key`` (a mix of each set) groups
    them, each is compared with its group's first document and one that differs (a
    collision of keys) gets a class of its own. Returns each document's class (int64, the
    classes numbered by first document) and each class's first document."""
    s = off.shape[0] - 1
    order = np.argsort(key, kind="mergesort")
    cls = np.full(s, -1, dtype=np.int64)
    first = np.empty(s, dtype=np.int64)
    n_cls = 0
    for i in range(s):
        d = order[i]
        if i > 0 and key[order[i - 1]] == key[d]:
            f = first[cls[order[i - 1]]]
            same = off[d + 1] - off[d] == off[f + 1] - off[f]
            t = 0
            while same and t < off[d + 1] - off[d]:
                same = tok[off[d] + t] == tok[off[f] + t]
                t += 1
            if same:
                cls[d] = cls[order[i - 1]]
                continue
        cls[d] = n_cls
        first[n_cls] = d
        n_cls += 1
    # number the classes by their first document
    renumber = np.argsort(first[:n_cls])
    new = np.empty(n_cls, dtype=np.int64)
    new[renumber] = np.arange(n_cls)
    return new[cls], first[:n_cls][renumber]


@njit(cache=True)
def _set_keys(tok, off):
    out = np.empty(off.shape[0] - 1, dtype=np.uint64)
    for d in range(off.shape[0] - 1):
        h = np.uint64(off[d + 1] - off[d]) * np.uint64(0x9E3779B97F4A7C15)
        for t in range(off[d], off[d + 1]):
            h = (h ^ tok[t]) * np.uint64(0xBF58476D1CE4E5B9)
            h ^= h >> np.uint64(31)
        out[d] = h
    return out


def _listed_pairs(tok, off, floor):
    """Every pair (x < y) of the documents with J ≥ floor, as int64 arrays (x, y, overlap,
    union). Copies (equal hash sets, the boilerplate of a crawl) are joined once: the join
    runs on one document per class, its pairs then stand for every pair of their members,
    and two members of one class are a pair at J = 1."""
    cls, first = _copy_classes(tok, off, _set_keys(tok, off))
    size = np.diff(off)
    if first.shape[0] == cls.shape[0]:  # no copies
        join, _ = join_rows(intern_hashes(tok, off), threshold_cut(floor), "auto", None)
        x, y, inter, union = (join[:, k].astype(np.int64) for k in range(4))
        return np.minimum(x, y), np.maximum(x, y), inter, union
    lens = size[first]
    r_off = np.zeros(first.shape[0] + 1, dtype=np.int64)
    np.cumsum(lens, out=r_off[1:])
    # every document interned, then the classes' first documents' ids gathered: a copy
    # holds no hash its class's first document lacks, so the ids are those of the first
    # documents alone but for their order of rarity (the join's pairs do not depend on it),
    # and the int32 ids gathered take half the memory of the hashes
    every = intern_hashes(tok, off)
    ids = pack_segments(every.tokens, off[first], r_off)
    reps = TokenSets(r_off, ids, np.diff(r_off), every.vocab)
    join, _ = join_rows(reps, threshold_cut(floor), "auto", None)
    u, v, inter, union = (join[:, k].astype(np.int64) for k in range(4))
    members = np.argsort(cls, kind="stable")  # each class's documents, ascending
    count = np.bincount(cls, minlength=first.shape[0])
    start = np.zeros(first.shape[0] + 1, dtype=np.int64)
    np.cumsum(count, out=start[1:])
    parts = []
    # pairs of two classes: every member of one with every member of the other
    each = count[u] * count[v]
    pick = np.repeat(np.arange(u.shape[0]), each)
    within = np.arange(pick.shape[0]) - np.repeat(np.cumsum(each) - each, each)
    a = members[start[u[pick]] + within // count[v[pick]]]
    b = members[start[v[pick]] + within % count[v[pick]]]
    parts.append((a, b, inter[pick], union[pick]))
    # two members of one class (not empty): J = 1
    for k in np.unique(count[(count >= 2) & (lens > 0)]).tolist():
        group = np.flatnonzero((count == k) & (lens > 0))
        i, j = np.triu_indices(k, 1)
        docs = members[start[group][:, None] + np.arange(k)]  # (classes, k)
        a, b = docs[:, i].ravel(), docs[:, j].ravel()
        both = np.repeat(lens[group], i.shape[0])
        parts.append((a, b, both, both))
    x, y, inter, union = (np.concatenate([p[q] for p in parts]) for q in range(4))
    return np.minimum(x, y), np.maximum(x, y), inter, union


def sample_pairs(tok, off, labels, rows, threshold: float, floor: float, seed: int) -> dict:
    """Count the recall sample's pairs (see the module text).

    Parameters
    ----------
    tok, off : ndarray
        The s documents' sorted hash sets, in row order.
    labels, rows : ndarray of int64, shape (s,)
        Their clusters in the run and their rows in the corpus.
    threshold, floor : float
        t, and where listing every pair starts (≤ t).
    seed : int
        Seed of the drawn pairs.

    Returns
    -------
    dict
        ``listed`` and ``drawn`` (int64, shape (20, 2): pairs per band, [apart, together]),
        ``drawn_weight`` (pairs of S each drawn pair stands for), ``found`` and ``true``
        (int64, shape (s,)), ``missed`` (int64 rows (row a, row b, overlap, union), most
        similar first), ``verified`` (pairs compared exactly).
    """
    s = off.shape[0] - 1
    listed = np.zeros((N_BANDS, 2), dtype=np.int64)
    drawn = np.zeros((N_BANDS, 2), dtype=np.int64)
    found = np.zeros(s, dtype=np.int64)
    true = np.zeros(s, dtype=np.int64)
    missed = np.empty((0, 4), dtype=np.int64)
    if s < 2:
        return dict(listed=listed, drawn=drawn, drawn_weight=0.0, found=found, true=true,
                    missed=missed, verified=0)  # fmt: skip
    x, y, inter, union = _listed_pairs(tok, off, floor)
    jac = inter / union
    together = labels[x] == labels[y]
    np.add.at(listed, (similarity_band(jac), together.astype(np.int64)), 1)
    hit = jac >= threshold
    for side in (x, y):
        true += np.bincount(side[hit], minlength=s)
        found += np.bincount(side[hit & together], minlength=s)
    gone = np.flatnonzero(hit & ~together)
    gone = gone[np.lexsort((y[gone], x[gone], -jac[gone]))][:EXAMPLES]
    missed = np.stack([rows[x[gone]], rows[y[gone]], inter[gone], union[gone]], axis=1)
    # below the floor: every pair of a small sample, else a uniform draw with replacement
    every = s * (s - 1) // 2
    if every <= DRAWN_PAIRS:
        a, b = np.triu_indices(s, 1)
    else:
        rng = np.random.default_rng([seed, 1])
        a = rng.integers(0, s, DRAWN_PAIRS)
        b = (a + rng.integers(1, s, DRAWN_PAIRS)) % s  # uniform over the others
        a, b = np.minimum(a, b), np.maximum(a, b)
    a, b = a.astype(np.int64), b.astype(np.int64)
    common = np.empty(a.shape[0], dtype=np.int64)
    _overlaps(tok, off, a, b, common)
    size = np.diff(off)
    both = size[a] + size[b] - common
    d_jac = common / np.maximum(both, 1)  # 0 for two empty sets: they share nothing
    below = d_jac < floor
    np.add.at(
        drawn,
        (similarity_band(d_jac[below]), (labels[a[below]] == labels[b[below]]).astype(np.int64)),
        1,
    )
    return dict(listed=listed, drawn=drawn, drawn_weight=every / a.shape[0], found=found,
                true=true, missed=missed, verified=int(x.shape[0] + a.shape[0]))  # fmt: skip
