"""The audit's one pass: every document of the recall sample against the sampled ones before it.

The recall sample S (drawn by :mod:`nearsim.audit.measure`) is a simple random sample of the
corpus; its documents are the *anchors*. As the corpus streams past in batches, each
document x of S is compared with every anchor a that comes before it in corpus order, so
every pair of S is met once, and the pair (a, x) is

* **listed** when its exact Jaccard reaches the *floor* (a band edge below the threshold):
  found by a prefix filter (below), verified by merging the two sorted hash sets;
* **drawn** with probability ``q`` when it is below the floor: a uniform sample of the rest
  of the range, each pair independently (geometric skips over the anchors before x), so
  pairs sharing nothing are drawn too.

Nothing is kept per pair: each anchor holds counts per 0.05 band of similarity, split by
whether the run put the two documents in one cluster, and the count of pairs at or above
the threshold with a later document (``reach``) and, when x is an anchor itself, with an
earlier one (``later``): the recall's per-document counts. A bounded list keeps the most
similar pairs the run left in different clusters (the worst misses) for the report.

A document can be marked as in a *large* cluster (``bigs``): its pairs with anchors of
that cluster are then not compared (the audit marks none).

The prefix filter (AllPairs / PPJoin, Bayardo et al. 2007): order every document's hashes
by one global order (:func:`nearsim.audit.tokens.order_key`). If J(a, x) ≥ f, the two share
at least ``α = ceil(cut·max(|a|, |x|))`` hashes (``cut`` the exact value of f, as in
:func:`nearsim.join.exact.threshold_cut`), so the first ``|x| − α_x + 1`` hashes of x and
the first ``|a| − α_a + 1`` of a share one. The anchors' prefixes are indexed; each
document probes its own prefix. Ties of the order key are taken in whole, which only makes
a prefix longer. Anchors with the same normalised text share one entry (a *class*), so
ten thousand copies of a cookie notice among the anchors cost one comparison per document.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from nearsim.audit.tokens import FrequencyTable, order_keys
from nearsim.join.exact import overlap_tables, threshold_cut
from nearsim.join.sample import N_BANDS

__all__ = ["EXAMPLES", "AnchorScan"]

EXAMPLES = 200
"""Missed pairs (J ≥ t, different clusters) kept for the report, the most similar first."""
_CHUNKS = 16
_BITS_LOG = 23
"""A bitmap of 2²³ bits (1 MB) says which hashes' top 23 bits are in some anchor's prefix:
most of a document's prefix is in none, and the bitmap answers from the cache."""
_EMPTY = np.uint64(0)


# -- small compiled pieces -------------------------------------------------------------------
@njit(cache=True, inline="always")
def _overlap(x, lo_x, hi_x, y, lo_y, hi_y):
    """|X ∩ Y| of two ascending runs of distinct uint64."""
    i, j, common = lo_x, lo_y, 0
    while i < hi_x and j < hi_y:
        a, b = x[i], y[j]
        if a == b:
            common += 1
            i += 1
            j += 1
        elif a < b:
            i += 1
        else:
            j += 1
    return common


@njit(cache=True, inline="always")
def _overlap_need(x, lo_x, hi_x, y, lo_y, hi_y, need):
    """|X ∩ Y| of two ascending runs, or -1 as soon as it cannot reach ``need`` (what is
    left of the shorter run would not be enough even if all of it matched)."""
    i, j, common = lo_x, lo_y, 0
    while i < hi_x and j < hi_y:
        if common + min(hi_x - i, hi_y - j) < need:
            return -1
        a, b = x[i], y[j]
        if a == b:
            common += 1
            i += 1
            j += 1
        elif a < b:
            i += 1
        else:
            j += 1
    return common if common >= need else -1


@njit(cache=True, inline="always")
def _band(inter, union):
    """The 0.05 band of inter / union (as :func:`nearsim.join.sample.similarity_band`)."""
    j = inter / max(union, 1)
    b = np.int64(math.floor(j * 20 + 1e-9))
    return min(max(b, 0), 19)


@njit(cache=True, inline="always")
def _next_random(state):
    """xorshift64*: the next state and a uniform float in (0, 1)."""
    state ^= state >> np.uint64(12)
    state ^= state << np.uint64(25)
    state ^= state >> np.uint64(27)
    out = state * np.uint64(0x2545F4914F6CDD1D)
    return state, ((out >> np.uint64(11)) + np.uint64(1)) * (1.0 / 9007199254740993.0)


@njit(cache=True, inline="always")
def _seed_state(seed, row):
    z = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(row) + np.uint64(1)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    return z if z != 0 else np.uint64(1)


@njit(cache=True)
def _add_posting(tab_key, tab_head, post_cls, post_next, n_post, h, cls):
    """Add (h → cls) to the index; returns (postings used, 1 if h was a new key)."""
    mask = tab_key.shape[0] - 1
    slot = np.int64(h & np.uint64(mask))
    while tab_key[slot] != _EMPTY and tab_key[slot] != h:
        slot = (slot + 1) & mask
    new = 1 if tab_key[slot] == _EMPTY else 0
    tab_key[slot] = h
    post_cls[n_post] = cls
    post_next[n_post] = tab_head[slot]
    tab_head[slot] = n_post
    return n_post + 1, new


@njit(cache=True)
def _index_class(tab_key, tab_head, post_cls, post_next, n_post, bits, hashes, keys, alpha, cls):
    """Index a class's prefix: its hashes whose order key is within its first
    ``|a| − α_a + 1`` (ties in whole). Returns (postings used, new keys)."""
    size = hashes.shape[0]
    if size == 0:
        return n_post, 0
    p = size - alpha[size] + 1
    cutoff = np.partition(keys.copy(), p - 1)[p - 1]
    added = 0
    for t in range(size):
        if keys[t] <= cutoff:
            bit = np.int64(hashes[t] >> np.uint64(64 - _BITS_LOG))
            bits[bit >> 3] |= np.uint8(1 << (bit & 7))
            n_post, new = _add_posting(tab_key, tab_head, post_cls, post_next, n_post,
                                       hashes[t], cls)  # fmt: skip
            added += new
    return n_post, added


@njit(cache=True)
def _rehash(tab_key, tab_head, post_next, new_key, new_head):
    """Move every key and its posting list to a bigger table."""
    mask = new_key.shape[0] - 1
    for s in range(tab_key.shape[0]):
        h = tab_key[s]
        if h == _EMPTY:
            continue
        slot = np.int64(h & np.uint64(mask))
        while new_key[slot] != _EMPTY:
            slot = (slot + 1) & mask
        new_key[slot] = h
        new_head[slot] = tab_head[s]


@njit(cache=True, inline="always")
def _find(tab_key, h):
    mask = tab_key.shape[0] - 1
    slot = np.int64(h & np.uint64(mask))
    while True:
        key = tab_key[slot]
        if key == h:
            return slot
        if key == _EMPTY:
            return -1
        slot = (slot + 1) & mask


# -- the probe --------------------------------------------------------------------------------
@njit(cache=True)
def _probe_doc(d, tok, off, row, label, big, classes, bits, alpha, tab_key, tab_head,
               post_cls, post_next, cls_tok, cls_off, cls_first, anc_row, anc_label, anc_cls,
               anc_next, n_anchors, threshold, floor, q, seed, chunk, listed, reach, later,
               drawn, ex_val, ex_pair, ex_worst, marks):  # fmt: skip
    lo, hi = off[d], off[d + 1]
    size = hi - lo
    if size == 0:
        return
    # anchors before this document: they come in row order
    before = np.searchsorted(anc_row[:n_anchors], row)
    if before == 0:
        return
    me = before if before < n_anchors and anc_row[before] == row else -1  # x is an anchor
    keys = order_keys(classes, tok[lo:hi])
    p = size - alpha[size] + 1
    cutoff = np.partition(keys.copy(), p - 1)[p - 1]
    found = np.empty(16, dtype=np.int64)
    n_found = 0
    for t in range(size):
        if keys[t] > cutoff:
            continue
        h = tok[lo + t]
        bit = np.int64(h >> np.uint64(64 - _BITS_LOG))
        if not (bits[bit >> 3] >> (bit & 7)) & 1:
            continue  # in no anchor's prefix
        slot = _find(tab_key, h)
        if slot < 0:
            continue
        e = tab_head[slot]
        while e >= 0:
            c = post_cls[e]
            if anc_row[cls_first[c]] < row and marks[c] != d + 1:
                marks[c] = d + 1
                if n_found == found.shape[0]:
                    bigger = np.empty(2 * n_found, dtype=np.int64)
                    bigger[:n_found] = found
                    found = bigger
                found[n_found] = c
                n_found += 1
            e = post_next[e]
    for u in range(n_found):
        c = found[u]
        c_lo, c_hi = cls_off[c], cls_off[c + 1]
        c_size = c_hi - c_lo
        if min(c_size, size) < alpha[max(c_size, size)]:
            continue  # the sizes alone rule out the floor
        useful = False
        m = cls_first[c]
        while m >= 0 and anc_row[m] < row:
            if not (big and anc_label[m] == label):
                useful = True
                break
            m = anc_next[m]
        if not useful:
            continue  # every such anchor is in this document's large cluster
        # J >= floor needs an overlap of at least floor·(|x| + |c|) / (1 + floor); a bound
        # rounded down, so that no pair at the floor is ever cut short
        need = np.int64(math.floor(floor * (size + c_size) / (1.0 + floor) - 1e-6))
        inter = _overlap_need(tok, lo, hi, cls_tok, c_lo, c_hi, need)
        if inter < 0:
            continue  # below the floor: not listed
        union = size + c_size - inter
        similarity = inter / union  # the float the join compares (nearsim.join.exact)
        if similarity < floor:
            continue
        band = _band(inter, union)
        at_t = similarity >= threshold
        m = cls_first[c]
        while m >= 0 and anc_row[m] < row:
            if not (big and anc_label[m] == label):
                same = 1 if anc_label[m] == label else 0
                listed[chunk, m, band, same] += 1
                if at_t:
                    reach[chunk, m, same] += 1
                    if me >= 0:
                        later[chunk, me, same] += 1
                    if same == 0 and similarity > ex_val[chunk, ex_worst[chunk]]:
                        _keep_example(ex_val, ex_pair, ex_worst, chunk, similarity,
                                      anc_row[m], row, inter, union)  # fmt: skip
            m = anc_next[m]
    # a uniform sample of the pairs below the floor: each pair (a, x) with probability q
    if q <= 0.0:
        return
    state = _seed_state(seed, row)
    log_keep = math.log1p(-q) if q < 1.0 else -1e300
    state, r = _next_random(state)
    k = np.int64(math.floor(math.log(r) / log_keep)) if q < 1.0 else 0
    while k < before:
        m = k
        if not (big and anc_label[m] == label):
            c = anc_cls[m]
            c_lo, c_hi = cls_off[c], cls_off[c + 1]
            inter = _overlap(tok, lo, hi, cls_tok, c_lo, c_hi)
            union = size + (c_hi - c_lo) - inter
            if inter / union < floor:  # below the floor: not listed
                same = 1 if anc_label[m] == label else 0
                drawn[chunk, m, _band(inter, union), same] += 1
        state, r = _next_random(state)
        k += 1 + (np.int64(math.floor(math.log(r) / log_keep)) if q < 1.0 else 0)


@njit(cache=True)
def _keep_example(ex_val, ex_pair, ex_worst, chunk, value, a_row, x_row, inter, union):
    """Put a missed pair in place of the chunk's least similar kept one (``ex_worst``)."""
    worst = ex_worst[chunk]
    ex_val[chunk, worst] = value
    ex_pair[chunk, worst, 0] = a_row
    ex_pair[chunk, worst, 1] = x_row
    ex_pair[chunk, worst, 2] = inter
    ex_pair[chunk, worst, 3] = union
    for e in range(ex_val.shape[1]):
        if ex_val[chunk, e] < ex_val[chunk, worst]:
            worst = e
    ex_worst[chunk] = worst


@njit(cache=True, parallel=True)
def _probe(tok, off, rows, labels, bigs, classes, bits, alpha, tab_key, tab_head, post_cls,
           post_next, cls_tok, cls_off, cls_first, anc_row, anc_label, anc_cls, anc_next,
           n_anchors, n_classes, threshold, floor, q, seed, listed, reach, later, drawn, ex_val,
           ex_pair, ex_worst):  # fmt: skip
    n = rows.shape[0]
    chunks = listed.shape[0]
    for chunk in prange(chunks):
        marks = np.zeros(max(n_classes, 1), dtype=np.int64)
        for d in range(chunk * n // chunks, (chunk + 1) * n // chunks):
            _probe_doc(d, tok, off, rows[d], labels[d], bigs[d], classes, bits, alpha,
                       tab_key, tab_head, post_cls, post_next, cls_tok, cls_off, cls_first,
                       anc_row, anc_label, anc_cls, anc_next, n_anchors, threshold, floor, q,
                       seed, chunk, listed, reach, later, drawn, ex_val, ex_pair, ex_worst,
                       marks)  # fmt: skip


class _Grow:
    """A 1-D array with room to grow (capacity doubling)."""

    def __init__(self, dtype, fill=0, size: int = 1024) -> None:
        self.data = np.full(size, fill, dtype=dtype)
        self.fill = fill
        self.n = 0

    def reserve(self, extra: int) -> None:
        need = self.n + extra
        if need > self.data.shape[0]:
            bigger = np.full(max(need, 2 * self.data.shape[0]), self.fill, self.data.dtype)
            bigger[: self.n] = self.data[: self.n]
            self.data = bigger

    def extend(self, values) -> None:
        values = np.asarray(values, dtype=self.data.dtype)
        self.reserve(values.shape[0])
        self.data[self.n : self.n + values.shape[0]] = values
        self.n += values.shape[0]

    def view(self) -> np.ndarray:
        return self.data[: self.n]


class AnchorScan:
    """Compare every document with the anchors before it, a batch at a time.

    Parameters
    ----------
    threshold : float
        t: a pair counts toward recall when its Jaccard reaches it.
    floor : float
        Pairs at or above it are listed (all of them); ≤ ``threshold``.
    q : float
        Probability of drawing each pair below the floor, in [0, 1].
    seed : int
        Seed of those draws.

    Attributes
    ----------
    anchor_rows, anchor_labels : ndarray of int64, shape (m,)
        The anchors so far, in row order, and their cluster labels.
    listed : ndarray of int64, shape (m, 20, 2)
        Per anchor, listed pairs per 0.05 band, split by [different cluster, same cluster].
    reach : ndarray of int64, shape (m, 2)
        Per anchor, pairs with J ≥ t with a later document, split the same way.
    later : ndarray of int64, shape (m, 2)
        Per anchor, pairs with J ≥ t with an earlier anchor (when it was probed itself),
        split the same way.
    drawn : ndarray of int64, shape (m, 20, 2)
        Per anchor, drawn pairs below the floor, by band and split the same way.
    """

    def __init__(self, threshold: float, floor: float, q: float, seed: int) -> None:
        self.threshold = float(threshold)
        self.floor = float(floor)
        self._cut_floor = threshold_cut(floor)
        self.q = float(q)
        self.seed = int(seed)
        self.pilot: FrequencyTable | None = None
        self._alpha = np.ones(2, dtype=np.int64)
        self._tab_key = np.zeros(1 << 16, dtype=np.uint64)
        self._tab_head = np.full(1 << 16, -1, dtype=np.int32)
        self._bits = np.zeros(1 << (_BITS_LOG - 3), dtype=np.uint8)
        self._keys_used = 0
        self._post_cls = _Grow(np.int32)
        self._post_next = _Grow(np.int32)
        self._cls_tok = _Grow(np.uint64)
        self._cls_off = _Grow(np.int64)
        self._cls_off.extend([0])
        self._cls_first = _Grow(np.int32)
        self._cls_last: list[int] = []
        self._cls_of_key: dict[bytes, int] = {}
        self._anc_row = _Grow(np.int64)
        self._anc_label = _Grow(np.int64)
        self._anc_cls = _Grow(np.int32)
        self._anc_next = _Grow(np.int32, fill=-1)
        self._listed = np.zeros((_CHUNKS, 0, N_BANDS, 2), dtype=np.int64)
        self._reach = np.zeros((_CHUNKS, 0, 2), dtype=np.int64)
        self._later = np.zeros((_CHUNKS, 0, 2), dtype=np.int64)
        self._drawn = np.zeros((_CHUNKS, 0, N_BANDS, 2), dtype=np.int64)
        self._ex_val = np.full((_CHUNKS, EXAMPLES), -1.0)
        self._ex_pair = np.zeros((_CHUNKS, EXAMPLES, 4), dtype=np.int64)
        self._ex_worst = np.zeros(_CHUNKS, dtype=np.int64)

    # -- the anchors -------------------------------------------------------------------------
    def _ensure_alpha(self, size: int) -> None:
        if size + 1 >= self._alpha.shape[0]:
            top = max(size + 1, 2 * self._alpha.shape[0])
            self._alpha = overlap_tables(self._cut_floor, top)[1]

    def _add_anchors(self, tok, off, local: np.ndarray, rows, labels, copy_keys) -> None:
        """Index the anchors of a batch (``local``: their positions in it, ascending)."""
        assert self.pilot is not None
        for d in local.tolist():
            key = copy_keys[d].tobytes()
            cls = self._cls_of_key.get(key)
            anchor = self._anc_row.n
            if cls is None:
                cls = len(self._cls_last)
                self._cls_of_key[key] = cls
                hashes = tok[off[d] : off[d + 1]]
                self._cls_tok.extend(hashes)
                self._cls_off.extend([self._cls_tok.n])
                self._cls_first.extend([anchor])
                self._cls_last.append(anchor)
                self._ensure_alpha(hashes.shape[0])
                self._post_cls.reserve(hashes.shape[0])
                self._post_next.reserve(hashes.shape[0])
                if 2 * (self._keys_used + hashes.shape[0]) > self._tab_key.shape[0]:
                    self._grow_table(self._keys_used + hashes.shape[0])
                keys = order_keys(self.pilot.classes, hashes)
                used, added = _index_class(self._tab_key, self._tab_head, self._post_cls.data,
                                           self._post_next.data, self._post_cls.n, self._bits,
                                           hashes, keys, self._alpha, cls)  # fmt: skip
                self._post_cls.n = self._post_next.n = used
                self._keys_used += added
            else:
                self._anc_next.data[self._cls_last[cls]] = anchor
                self._cls_last[cls] = anchor
            self._anc_row.extend([rows[d]])
            self._anc_label.extend([labels[d]])
            self._anc_cls.extend([cls])
            self._anc_next.reserve(1)
            self._anc_next.extend([-1])

    def _grow_table(self, keys_needed: int) -> None:
        size = self._tab_key.shape[0]
        while 2 * keys_needed > size:
            size *= 2
        new_key = np.zeros(size, dtype=np.uint64)
        new_head = np.full(size, -1, dtype=np.int32)
        _rehash(self._tab_key, self._tab_head, self._post_next.data, new_key, new_head)
        self._tab_key, self._tab_head = new_key, new_head

    def _grow_counts(self) -> None:
        m = self._anc_row.n
        have = self._listed.shape[1]
        if m <= have:
            return
        room = max(m, 2 * have, 64)
        for name in ("_listed", "_reach", "_later", "_drawn"):
            old = getattr(self, name)
            new = np.zeros((old.shape[0], room, *old.shape[2:]), dtype=old.dtype)
            new[:, :have] = old
            setattr(self, name, new)

    # -- a batch ------------------------------------------------------------------------------
    @property
    def n_anchors(self) -> int:
        """Anchors indexed so far."""
        return self._anc_row.n

    def add_anchors(self, tok, off, rows, labels, copy_keys) -> None:
        """Index anchors (in row order, after every anchor indexed before).

        Parameters
        ----------
        tok, off : ndarray
            Their hash sets (:func:`nearsim.audit.tokens.flat_tokens`). The first call
            without a pilot takes these as the pilot (:class:`FrequencyTable`): give the
            pilot first with :meth:`set_pilot` for a better order.
        rows, labels : ndarray of int64, shape (m,)
            Their rows in the corpus and their cluster labels.
        copy_keys : ndarray of uint64, shape (m, 2)
            Their normalised-text keys (:func:`nearsim.copies.flat_text_keys`).
        """
        if self.pilot is None:
            self.pilot = FrequencyTable(tok)
        self._ensure_alpha(int(np.diff(off).max(initial=0)))
        local = np.arange(off.shape[0] - 1)
        self._add_anchors(tok, off, local, rows, labels, copy_keys)
        self._grow_counts()

    def set_pilot(self, tok) -> None:
        """Fix the global order from the pilot's hash sets (the first batch), once."""
        if self.pilot is None:
            self.pilot = FrequencyTable(tok)

    def probe(self, tok, off, rows, labels, bigs) -> None:
        """Compare documents with every anchor indexed before them.

        Parameters
        ----------
        tok, off : ndarray
            Their hash sets (:func:`nearsim.audit.tokens.flat_tokens`).
        rows : ndarray of int64, shape (b,)
            Each document's row in the corpus (ascending).
        labels : ndarray of int64, shape (b,)
            Each document's cluster in the run (a document alone: a label of its own).
        bigs : ndarray of bool, shape (b,)
            Whether its cluster is large (pairs inside it are not compared here).
        """
        if self._anc_row.n == 0 or rows.shape[0] == 0:
            return
        self._ensure_alpha(int(np.diff(off).max(initial=0)))
        _probe(tok, off, rows, labels, bigs, self.pilot.classes, self._bits, self._alpha,
               self._tab_key, self._tab_head, self._post_cls.data, self._post_next.data,
               self._cls_tok.data, self._cls_off.data, self._cls_first.data,
               self._anc_row.data, self._anc_label.data, self._anc_cls.data,
               self._anc_next.data, self._anc_row.n, len(self._cls_last), self.threshold,
               self.floor, self.q, self.seed, self._listed, self._reach, self._later,
               self._drawn, self._ex_val, self._ex_pair, self._ex_worst)  # fmt: skip

    def add_batch(self, tok, off, rows, labels, bigs, anchors, copy_keys) -> None:
        """Index a batch's anchors, then compare every document of it with every anchor
        before it, its own batch's included (:meth:`add_anchors`, then :meth:`probe`).

        ``anchors`` (bool, shape (b,)) says which documents are anchors; ``copy_keys``
        (uint64, shape (b, 2)) are every document's keys; the rest as in :meth:`probe`.
        """
        self.set_pilot(tok)
        local = np.flatnonzero(anchors)
        self._ensure_alpha(int(np.diff(off).max(initial=0)))
        self._add_anchors(tok, off, local, rows, labels, copy_keys)
        self._grow_counts()
        self.probe(tok, off, rows, labels, bigs)

    # -- results ---------------------------------------------------------------------------------
    @property
    def anchor_rows(self) -> np.ndarray:
        return self._anc_row.view().copy()

    @property
    def anchor_labels(self) -> np.ndarray:
        return self._anc_label.view().copy()

    @property
    def listed(self) -> np.ndarray:
        return self._listed[:, : self._anc_row.n].sum(axis=0)

    @property
    def reach(self) -> np.ndarray:
        return self._reach[:, : self._anc_row.n].sum(axis=0)

    @property
    def later(self) -> np.ndarray:
        return self._later[:, : self._anc_row.n].sum(axis=0)

    @property
    def drawn(self) -> np.ndarray:
        return self._drawn[:, : self._anc_row.n].sum(axis=0)

    def examples(self) -> np.ndarray:
        """The most similar pairs at J ≥ t that the run left in different clusters:
        int64 rows (anchor row, row, overlap, union), most similar first, at most
        :data:`EXAMPLES`."""
        val = self._ex_val.ravel()
        pairs = self._ex_pair.reshape(-1, 4)
        keep = np.flatnonzero(val >= 0)
        order = keep[np.lexsort((pairs[keep, 1], pairs[keep, 0], -val[keep]))]
        return pairs[order[:EXAMPLES]]
