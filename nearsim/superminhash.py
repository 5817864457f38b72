"""SuperMinHash (O. Ertl, 2017, arXiv:1706.05698): one pass over the shingles, k values.

Classic MinHash evaluates k independent hash functions on every shingle. SuperMinHash
draws, for every shingle x, one random permutation π_x of the k positions and k uniform
numbers r_x,j ∈ [0, 1), and gives position π_x(j) the value j + r_x,j: each shingle has
exactly one value in each unit interval [j, j + 1). The signature keeps, at every
position, the smallest value over the document's shingles. Two signatures agree at a
position with probability J (the winner of a position is uniform over the union, as with
MinHash), so the share of equal positions is again an unbiased estimate of J; but the
positions are negatively correlated — a shingle cannot win two positions with values in
the same interval — and the estimate's variance is J(1 − J)/k · α(k, u), with u the size
of the union and α ≤ 1 (:func:`variance_factor`; about 0.5–0.6 for a few hundred
shingles at k = 128, tending to 1 for very large sets).

Algorithm 1 of the paper computes this lazily: the permutation is drawn by Fisher–Yates
steps j = 0, 1, … and a shingle stops as soon as j exceeds every interval that still
holds a position's value (a histogram of the intervals in use tells which), so the
expected work is O(d + k log² k) for d shingles, against O(d·k) for MinHash. The kernel
(:func:`_fold`) takes the same kind of steps in another order — step 0 of every shingle,
then step 1 of every shingle, … until every position holds a value below the next step —
and so only steps whose values can still be a minimum (on news items, 4.4 steps per
shingle instead of Algorithm 1's 15; on long documents, one); the signatures are
Algorithm 1's, bit for bit.

What is specific to nearsim, fixed here once:

* x is the shingle's own 64-bit value, not its MurmurHash3: a shingle of n ≤ 7 UTF-8
  bytes b_0 … b_(n−1) is x = Σ b_i·256^i + n·2⁵⁶ (no two such shingles share it); a
  longer one is h = n, then h ← mix64(h ⊕ c) for each of its 8-byte little-endian chunks
  c in turn (the last one padded with zeros), x = h. SuperMinHash's values only have to
  agree between its own signatures (MinHash's family h_i(x) needs MurmurHash3's x), and
  an ASCII character k-gram (k ≤ 7) is then the low bytes of a word rolled along the
  text: no hash per shingle before the sketch's own mix64
  (:func:`nearsim.shingle_walk.shingle_values`). Repeats
  of a shingle change nothing (their values are the same), so no distinct step is needed.
* Shingle x's random numbers come from SplitMix64 started at x ⊕ key, key =
  mix64(seed ⊕ :data:`SEED_TWEAK`) (the generator's output function mixes; its states
  for two shingles would have to differ by a multiple of its increment below 2¹² for
  their streams to meet). Step j takes one 64-bit output z: r = z >> 32 (so the
  value j + r/2³² is held exactly as the integer j·2³² + r), and the Fisher–Yates index
  j + ⌊(z mod 2³²)·(k − j) / 2³²⌋ (Lemire's multiply-shift; its bias is below k/2³²).
* A position's signature value is mix64(j·2³² + r) mod (2³¹ − 1): below p like MinHash's,
  equal for two documents exactly when the same shingle's value won (up to a chance of
  about 2⁻³¹), and uniform in its low bits (for 1-byte signatures). A document with no
  shingles gets 2³² − 1 everywhere.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from nearsim.shingle_walk import mix64, shingle_values
from nearsim.shingle_walk import sketch_value as span_value

GAMMA = np.uint64(0x9E3779B97F4A7C15)
SEED_TWEAK = 0x5355504552D1A5E5
"""Mixed into the seed, so that SuperMinHash's streams differ from other uses of a seed."""
_LOW32 = np.uint64(0xFFFFFFFF)
_INF = np.uint64(0xFFFFFFFFFFFFFFFF)
_P = np.uint64((1 << 31) - 1)


def sketch_key(seed: int) -> np.uint64:
    """The key a seed gives SuperMinHash's streams: mix64(seed ⊕ SEED_TWEAK)."""
    return np.uint64(_mix64_py(int(seed) ^ SEED_TWEAK))


def _mix64_py(z: int) -> int:
    mask = (1 << 64) - 1
    z &= mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    return z ^ (z >> 31)


@njit(cache=True, inline="always")
def _reset(h, p, hist):
    m = h.shape[0]
    for i in range(m):
        h[i] = _INF
        p[i] = -1
        hist[i] = 0
    hist[m - 1] = m
    return m - 1


LEVELS = 8
"""Steps every element takes in :func:`_fold`'s first phase, level by level, before the
rest of Algorithm 1 runs element by element (where a set is too small for LEVELS steps
to give every position a value)."""


@njit(cache=True, inline="always")
def _add(x, stamp, key, h, p, hist, a, who):
    """Algorithm 1's loop for one element: fold the shingle's value ``x`` into the state.

    ``h`` (uint64, k) holds each position's smallest value as j·2³² + r; ``p`` (int64, k)
    is the lazily reset permutation, each entry its stamp · 2¹⁶ + its value (``stamp``
    ≥ 0 identifies this element; an entry stamped otherwise holds its own index);
    ``hist[j]`` counts positions whose value lies in [j, j + 1) (the last entry also
    counts the empty ones); ``a`` is the last interval still in use. ``who`` (int64, k, or
    length 0) records the stamp of each position's winner. Returns the new ``a``.
    """
    return _steps(x, stamp, key, h, p, hist, a, who, 0)


@njit(cache=True, inline="always")
def _steps(x, stamp, key, h, p, hist, a, who, start):
    """:func:`_add` from step ``start`` on (the element's entries of ``p`` that earlier
    steps changed already stamped in ``p``).

    Written for speed, the same results as the paper's loop
    (``tests/superminhash_reference.py``):

    * an entry and its stamp are one word: one load and one store, not two;
    * Fisher–Yates never reads entry j of the permutation again after step j, so only
      entry kk is written, not entry j;
    * no branch on whether the value wins (about half the early steps do, at random):
      the minimum is stored, and the histogram moves a count from the old value's
      interval to j by adding the comparison's 0 or 1 (nothing moves when both are j);
    * ``a`` is lowered once the element is done, not after each step: the steps it then
      takes beyond the paper's stop offer values of at least a + 1, which win nothing
      (``test_early_stop_changes_nothing``), and the loop's bound no longer waits on
      the histogram.
    """
    m = h.shape[0]
    state = (np.uint64(x) ^ key) + np.uint64(start) * GAMMA
    track = who.shape[0] > 0
    last = np.uint64(m - 1)
    mine = np.int64(stamp) << 16
    for j in range(start, a + 1):
        state += GAMMA
        z = mix64(state)
        kk = j + np.int64(((z & _LOW32) * np.uint64(m - j)) >> np.uint64(32))
        ek = p[kk]
        pos = ek & 0xFFFF if ek >> 16 == stamp else kk
        ej = p[j]
        pj = ej & 0xFFFF if ej >> 16 == stamp else j
        p[kk] = mine | pj
        v = (np.uint64(j) << np.uint64(32)) | (z >> np.uint64(32))
        old = h[pos]
        up = np.int64(v < old)
        h[pos] = min(v, old)
        if track and up:
            who[pos] = stamp
        hist[np.int64(min(old >> np.uint64(32), last))] -= up
        hist[j] += up
    while hist[a] == 0:
        a -= 1
    return a


@njit(cache=True, inline="always")
def _emit(h, out, d, mask):
    for i in range(h.shape[0]):
        v = h[i]
        out[d, i] = np.uint32(0xFFFFFFFF) if v == _INF else np.uint32(mix64(v) % _P) & mask


@njit(cache=True)
def _fold(xs, count, key, h, p, hist, mods, who):
    """Fold the values ``xs[:count]`` into a reset state (:func:`_reset`); ``mods``
    (uint32, at least count · min(LEVELS, k)) is scratch.

    The signature is the minimum, at each position, over every element's values; a value
    of step j can only be a position's minimum if some position has none below j. So the
    elements go level by level: step 0 of every element, then step 1 of every element, …
    until, after a whole level j, every position holds a value below j + 1 — the values of
    all later steps are then too large to matter. On news items (400 of
    ``example_corpus(n, seed=0)``, 181 distinct shingles on average, k = 128) that is
    after 4.4 levels on average (2 to 9), 774 steps, where Algorithm 1 (an element's
    steps while j ≤ a, element after element) takes 2,755; on a long document, one
    level. Each element's permutation so far is the list of its
    Fisher–Yates writes (``mods[t·count + e]``: element e's step t set entry kk_t to
    π(t), packed kk_t · 2¹⁶ + π(t); k ≤ 4096), read back by a scan (the last write to an
    entry holds); level by level in memory, so a long document that stops after one level
    writes count entries of the scratch, not count · LEVELS. The steps of one level are
    independent of each other apart from the minima, so the processor overlaps them.

    A set too small for :data:`LEVELS` levels to reach every position (fewer than about
    k·ln k / LEVELS elements) goes on element by element from step LEVELS with
    Algorithm 1's loop (:func:`_steps`), its writes so far stamped into ``p`` and the
    histogram built from ``h``. Every value Algorithm 1 computes and that could be a
    minimum is computed here too, so the signature is the same
    (``tests/test_superminhash.py`` checks it against the paper's loop).
    """
    m = h.shape[0]
    levels = min(LEVELS, m)
    track = who.shape[0] > 0
    empty = m
    for j in range(levels):
        if empty == 0 or count == 0:
            return
        step = np.uint64(j + 1) * GAMMA
        span = np.uint64(m - j)
        high = np.uint64(j) << np.uint64(32)
        uj = np.uint32(j)
        for e in range(count):
            z = mix64((np.uint64(xs[e]) ^ key) + step)
            kk = np.uint32(j + np.int64(((z & _LOW32) * span) >> np.uint64(32)))
            pos = kk
            pj = uj
            for t in range(j):
                w = mods[t * count + e]
                at = w >> np.uint32(16)
                if at == kk:
                    pos = w & np.uint32(0xFFFF)
                if at == uj:
                    pj = w & np.uint32(0xFFFF)
            mods[j * count + e] = (kk << np.uint32(16)) | pj
            v = high | (z >> np.uint64(32))
            old = h[pos]
            if v < old:
                h[pos] = v
                empty -= np.int64(old == _INF)
                if track:
                    who[pos] = e
    if empty == 0 or count == 0:
        return
    # too few elements: Algorithm 1 from step `levels`, element after element
    for i in range(m):
        hist[i] = 0
    last = np.uint64(m - 1)
    for i in range(m):
        hist[np.int64(min(h[i] >> np.uint64(32), last))] += 1
    a = m - 1
    for e in range(count):
        if a < levels:
            break
        mine = np.int64(e) << 16
        for t in range(levels):
            w = mods[t * count + e]
            p[np.int64(w >> np.uint32(16))] = mine | np.int64(w & np.uint32(0xFFFF))
        a = _steps(xs[e], e, key, h, p, hist, a, who, levels)


@njit(cache=True, parallel=True)
def _sketch_flat(buf, starts, ends, doc_offsets, m, key, mask, out):
    """Signatures of documents given as shingle spans (:class:`FlatShingles`)."""
    n = doc_offsets.shape[0] - 1
    none = np.empty(0, dtype=np.int64)
    for d in prange(n):
        lo = doc_offsets[d]
        xs = np.empty(doc_offsets[d + 1] - lo, dtype=np.uint64)
        for s in range(xs.shape[0]):
            xs[s] = span_value(buf, starts[lo + s], ends[lo + s])
        h = np.empty(m, dtype=np.uint64)
        p = np.empty(m, dtype=np.int64)
        hist = np.empty(m, dtype=np.int64)
        mods = np.empty(xs.shape[0] * min(LEVELS, m), dtype=np.uint32)
        _reset(h, p, hist)
        _fold(xs, xs.shape[0], key, h, p, hist, mods, none)
        _emit(h, out, d, mask)


@njit(cache=True, parallel=True)
def _sketch_text(buf, doc_offsets, whole, word, k_sh, m, key, mask, bounds, out):
    """Signatures from laid-out texts (:class:`FlatTexts`): runs of documents in parallel,
    each reusing its scratch; every shingle's value taken as it is cut, repeats included."""
    none = np.empty(0, dtype=np.int64)
    for t in prange(bounds.shape[0] - 1):
        d0 = bounds[t]
        d1 = bounds[t + 1]
        longest = 0
        for d in range(d0, d1):
            longest = max(longest, doc_offsets[d + 1] - doc_offsets[d])
        xs = np.empty(longest + 1, dtype=np.uint64)
        h = np.empty(m, dtype=np.uint64)
        p = np.empty(m, dtype=np.int64)
        hist = np.empty(m, dtype=np.int64)
        mods = np.empty((longest + 1) * min(LEVELS, m), dtype=np.uint32)
        for d in range(d0, d1):
            cnt = shingle_values(buf, doc_offsets[d], doc_offsets[d + 1], word, whole[d], k_sh,
                                 xs, True)
            _reset(h, p, hist)
            _fold(xs, cnt, key, h, p, hist, mods, none)
            _emit(h, out, d, mask)


@njit(cache=True, parallel=True)
def _span_values(buf, starts, ends):
    out = np.empty(starts.shape[0], dtype=np.uint64)
    for s in prange(starts.shape[0]):
        out[s] = span_value(buf, starts[s], ends[s])
    return out


@njit(cache=True)
def _winners(xs, m, key):
    """Index into ``xs`` of the element that wins each position (−1: none), and the
    signature values; for the explorer's "which shingle wins" view."""
    h = np.empty(m, dtype=np.uint64)
    p = np.empty(m, dtype=np.int64)
    hist = np.empty(m, dtype=np.int64)
    who = np.full(m, -1, dtype=np.int64)
    mods = np.empty(xs.shape[0] * min(LEVELS, m), dtype=np.uint32)
    _reset(h, p, hist)
    _fold(xs, xs.shape[0], key, h, p, hist, mods, who)
    out = np.empty((1, m), dtype=np.uint32)
    _emit(h, out, 0, np.uint32(0xFFFFFFFF))
    return who, out[0]


def values(flat) -> np.ndarray:
    """The sketch's value x of every shingle of :class:`nearsim.hashing.FlatShingles`;
    uint64, shape (m,)."""
    return _span_values(flat.buf, flat.starts, flat.ends)


def signatures_flat(flat, seed: int, mask, out: np.ndarray) -> None:
    """SuperMinHash signatures of :class:`nearsim.hashing.FlatShingles` (checked by the
    caller) into ``out`` (uint32 or uint8, shape (n, k)), values masked by ``mask``."""
    _sketch_flat(flat.buf, flat.starts, flat.ends, flat.doc_offsets, out.shape[1],
                 sketch_key(seed), np.uint32(mask), out)  # fmt: skip


def signatures_text(flat, seed: int, mask, bounds: np.ndarray, out: np.ndarray) -> None:
    """SuperMinHash signatures of :class:`nearsim.hashing.FlatTexts` (checked by the
    caller) into ``out``; ``bounds`` from :func:`nearsim.hashing.doc_chunks`."""
    _sketch_text(flat.buf, flat.doc_offsets, flat.whole, flat.kind == "word", flat.k,
                 out.shape[1], sketch_key(seed), np.uint32(mask), bounds, out)  # fmt: skip


def winners(xs: np.ndarray, num_perm: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Which element wins each position, and the signature.

    Parameters
    ----------
    xs : ndarray of uint64, shape (d,)
        The elements' values (:func:`values`).
    num_perm, seed : int

    Returns
    -------
    index : ndarray of int64, shape (num_perm,)
        The index into ``xs`` of each position's winner (the first on a repeat); −1 when
        there are no elements.
    signature : ndarray of uint32, shape (num_perm,)
    """
    return _winners(np.ascontiguousarray(xs, dtype=np.uint64), num_perm, sketch_key(seed))


def variance_factor(k: int, u: int) -> float:
    """α(k, u) of Ertl's paper: Var(Ĵ) = J(1 − J)/k · α(k, u) for a union of u elements.

        α(k, u) = 1 − Σ_{q=1}^{k−1} q^u ((q + 1)^u + (q − 1)^u − 2 q^u)
                      / ((k − 1)^(u−1) · k^u · (u − 1))

    computed in floating point, each term scaled by k^(2u) and by (k − 1)^(u−1)/k^(u−1)
    inside its exponential, so that nothing overflows or underflows (every term is
    positive: no cancellation across the sum).

    Parameters
    ----------
    k : int
        Signature length, ≥ 1.
    u : int
        Size of the union, ≥ 2 (for u = 1 the estimate is exact: 0 is returned).

    Returns
    -------
    float
        In (0, 1]; 1 for k = 1.
    """
    if u <= 1:
        return 0.0
    if k == 1:
        return 1.0
    qs = np.arange(1, k, dtype=np.float64)
    with np.errstate(divide="ignore"):
        return _alpha(qs, k, u)


def _alpha(qs: np.ndarray, k: int, u: int) -> float:
    # each term q^u ((q+1)^u + (q-1)^u - 2 q^u) over k^(2u), divided by ((k-1)/k)^(u-1)
    # inside the exponential, so that nothing underflows for large u
    scale = u * np.log(qs / k) - (u - 1) * np.log((k - 1) / k)
    second = np.exp(u * np.log((qs + 1) / k)) + np.exp(u * np.log((qs - 1) / k)) \
        - 2 * np.exp(u * np.log(qs / k))  # fmt: skip
    total = float(np.sum(np.exp(scale) * second))
    return 1.0 - total * k / (u - 1)
