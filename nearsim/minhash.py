"""MinHash signatures: k universal hash functions over MurmurHash3 shingle hashes.

Every distinct shingle is hashed once with MurmurHash3 (32-bit, unsigned, seed 0, over its
UTF-8 bytes), giving x < 2**32. Function i maps it to h_i(x) = (a_i·x + b_i) mod p with
p = 2**31 − 1 (a Mersenne prime), 1 <= a_i < p and 0 <= b_i < p drawn from
``numpy.random.default_rng(seed)``. The signature keeps each function's minimum over the
document's shingles. Two signatures agree at a position with probability equal to the
Jaccard similarity of the two shingle sets, so the share of equal positions estimates it.

The kernel reduces x mod p once per shingle (which leaves every h_i(x) unchanged), so
a_i·x + b_i stays below 2**62, and the reduction mod p uses the Mersenne identity
2**31 ≡ 1 (mod p) — shifts, masks and adds only — so the compiled kernel vectorises.

The estimates from signatures (:func:`estimate_jaccard`, :func:`estimate_pairs`, …) live
in :mod:`nearsim.estimates` and are re-exported here.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np
from numba import njit, prange

from nearsim import superminhash

# the estimates read either sketch's signatures; re-exported from here
from nearsim.estimates import (  # noqa: F401
    ONE_BYTE_CHANCE,
    agreement_counts,
    correct_one_byte,
    estimate_jaccard,
    estimate_pairs,
    reaching,
    standard_error,
)
from nearsim.hashing import (
    FlatShingles,
    FlatTexts,
    doc_chunks,
    flatten,
    flatten_texts,
    murmur3_32,
)
from nearsim.shingle_walk import shingle_values
from nearsim.utils.validation import (
    check_bool,
    check_choice,
    check_int,
    check_num_perm,
)
from nearsim.utils.validation_arrays import (
    check_shingle_list,
)

if TYPE_CHECKING:  # imported where a frame is built
    import pandas as pd

MERSENNE_P = (1 << 31) - 1
SKETCHES = ("minhash", "superminhash")
"""The sketches a :class:`MinHasher` computes (``sketch=``)."""
DEDUPE_MIN_PERM = 32
"""From this many hash functions on, :meth:`MinHasher.text_signatures` keeps the distinct
base hashes of each document of at least :data:`DEDUPE_MIN_SHINGLES` shingles before the
k functions (the same signature, bit for bit): on long documents about a third of the
shingles repeat."""
DEDUPE_MIN_SHINGLES = 400
"""Documents with fewer shingles skip the distinct step: few of their shingles repeat, and
on news items of about 190 shingles it cost more than it saved (0.135 against 0.121 CPU s
for 20,000 items, k = 128; on 3,000 installed documents it saves a third: 0.48 against
0.71)."""
EMPTY = np.uint32(0xFFFFFFFF)
"""Signature value of every position for a document with no shingles."""

_P = np.uint64(MERSENNE_P)
_P32 = np.uint32(MERSENNE_P)
_S31 = np.uint64(31)


@njit(cache=True, inline="always")
def _mod_p(x):
    """x mod p as uint32, for x < 2**32 (one fold: 2**31 ≡ 1 mod p, then one subtraction).

    The result is uint32 so that the compiler knows the products in :func:`_permuted`
    are 32 × 32 → 64-bit ones (one ``vpmuludq`` a lane, not a full 64-bit multiply).
    """
    y = (np.uint64(x) & _P) + (np.uint64(x) >> _S31)
    return np.uint32(y - _P if y >= _P else y)


@njit(cache=True, inline="always")
def _permuted(a, b, xm):
    """(a·x + b) mod p as uint32, given uint32 a, b and xm = x mod p, without division.

    With a, b, xm < p the sum v = a·xm + b is below 2**62, so one fold
    (v & p) + (v >> 31) leaves a value below 2p that fits 32 bits; the last subtraction
    wraps below zero exactly when it is not needed, so ``min`` picks the right one. All
    of it runs in 32- and 64-bit vector lanes.
    """
    v = np.uint64(a) * np.uint64(xm) + np.uint64(b)
    w = np.uint32((v & _P) + (v >> _S31))
    return min(w, np.uint32(w - _P32))


@njit(cache=True, inline="always")
def _update(mins, a, b, x):
    """Fold base hash ``x`` into ``mins``: mins[i] = min(mins[i], (a[i]·x + b[i]) mod p)."""
    xm = _mod_p(x)
    for i in range(mins.shape[0]):
        mins[i] = min(mins[i], _permuted(a[i], b[i], xm))


@njit(cache=True, inline="always")
def _update2(mins, a, b, x1, x2):
    """:func:`_update` for two base hashes in one pass over the k hash functions."""
    xm1 = _mod_p(x1)
    xm2 = _mod_p(x2)
    for i in range(mins.shape[0]):
        mins[i] = min(mins[i], min(_permuted(a[i], b[i], xm1), _permuted(a[i], b[i], xm2)))


@njit(cache=True, inline="always")
def _min_spans(mins, buf, starts, ends, lo, hi, a, b):
    """Fold the shingles ``buf[starts[s]:ends[s]]``, s in [lo, hi), into ``mins``.

    Two shingles a pass over the k hash functions: a pass loads and stores ``mins`` and
    loads ``a`` and ``b`` once, so two shingles cost fewer memory operations than two
    passes. With the uint32 :func:`_mod_p` as well, signing 100,000 news documents on two
    threads went from 0.52–0.64 s to 0.48–0.50 s (best of five, three runs, a shared
    machine).
    """
    s = lo
    while s + 1 < hi:
        _update2(
            mins,
            a,
            b,
            murmur3_32(buf, starts[s], ends[s], np.uint32(0)),
            murmur3_32(buf, starts[s + 1], ends[s + 1], np.uint32(0)),
        )
        s += 2
    if s < hi:
        _update(mins, a, b, murmur3_32(buf, starts[s], ends[s], np.uint32(0)))


@njit(cache=True, inline="always")
def _update4(mins, a, b, x1, x2, x3, x4):
    """:func:`_update` for four base hashes in one pass over the k hash functions."""
    xm1 = _mod_p(x1)
    xm2 = _mod_p(x2)
    xm3 = _mod_p(x3)
    xm4 = _mod_p(x4)
    for i in range(mins.shape[0]):
        v12 = min(_permuted(a[i], b[i], xm1), _permuted(a[i], b[i], xm2))
        v34 = min(_permuted(a[i], b[i], xm3), _permuted(a[i], b[i], xm4))
        mins[i] = min(mins[i], min(v12, v34))


@njit(cache=True, inline="always")
def _min_hashes(mins, xs, count, a, b):
    """Fold the base hashes ``xs[:count]`` into ``mins``, four a pass over the k functions
    (a pass loads and stores ``mins`` and loads ``a`` and ``b`` once)."""
    s = 0
    while s + 3 < count:
        _update4(mins, a, b, xs[s], xs[s + 1], xs[s + 2], xs[s + 3])
        s += 4
    while s < count:
        _update(mins, a, b, xs[s])
        s += 1


@njit(cache=True, inline="always")
def distinct_hashes(xs, count, table, stamp):
    """Keep the distinct values of ``xs[:count]`` (in order of first appearance) at the
    front of ``xs``; returns how many. Equal base hashes give equal values under every
    hash function, so a signature over the distinct ones is the same, bit for bit.

    ``table`` (uint64) is an open-addressing table of a power-of-two length ≥ 2·count,
    reused across documents: a slot holds (stamp + 1)·2³² + the value, and is free for
    this document unless its high half is this document's ``stamp`` + 1 (no clearing
    between documents; one load a probe).
    """
    size = 16
    while size < 2 * count:
        size *= 2
    mask = size - 1
    mine = np.uint64(stamp + 1)
    tag = mine << np.uint64(32)
    nd = 0
    for t in range(count):
        x = xs[t]
        want = tag | np.uint64(x)
        slot = np.int64(x) & mask
        while True:
            e = table[slot]
            if e == want:
                break
            if e >> np.uint64(32) != mine:
                table[slot] = want
                xs[nd] = x
                nd += 1
                break
            slot = (slot + 1) & mask
    return nd


@njit(cache=True, parallel=True)
def _signatures_text_runs(buf, doc_offsets, whole, word, k_sh, a, b, mask, bounds, dedupe, out):
    """Signatures from laid-out texts: runs of documents in parallel, each run reusing its
    scratch; every shingle hashed as it is cut
    (:func:`nearsim.shingle_walk.shingle_values`), the distinct base
    hashes kept (when ``dedupe``), then minimised four at a time."""
    k = a.shape[0]
    for t in prange(bounds.shape[0] - 1):
        d0 = bounds[t]
        d1 = bounds[t + 1]
        longest = 0
        for d in range(d0, d1):
            longest = max(longest, doc_offsets[d + 1] - doc_offsets[d])
        xs = np.empty(longest + 1, dtype=np.uint32)
        size = 16
        while size < 2 * (longest + 1):
            size *= 2
        table = np.zeros(size if dedupe else 1, dtype=np.uint64)
        mins = np.empty(k, dtype=np.uint32)
        for d in range(d0, d1):
            cnt = shingle_values(buf, doc_offsets[d], doc_offsets[d + 1], word, whole[d], k_sh,
                                 xs, False)
            if dedupe and cnt >= DEDUPE_MIN_SHINGLES:
                cnt = distinct_hashes(xs, cnt, table, d)
            mins[:] = np.uint32(0xFFFFFFFF)
            _min_hashes(mins, xs, cnt, a, b)
            for i in range(k):
                out[d, i] = mins[i] & mask


@njit(cache=True, parallel=True)
def _signatures_flat(buf, starts, ends, doc_offsets, a, b, mask, out):
    n = doc_offsets.shape[0] - 1
    k = a.shape[0]
    for d in prange(n):
        mins = np.full(k, np.uint32(0xFFFFFFFF))
        _min_spans(mins, buf, starts, ends, doc_offsets[d], doc_offsets[d + 1], a, b)
        for i in range(k):
            out[d, i] = mins[i] & mask


class MinHasher:
    """MinHash with ``num_perm`` seeded universal hash functions.

    Parameters
    ----------
    num_perm : int
        Number of hash functions k (signature length), 1 to 4,096.
    seed : int
        Seed (>= 0) of the generator that draws a and b (and of SuperMinHash's random
        streams). MurmurHash3 always uses seed 0.
    sketch : {"minhash", "superminhash"}
        ``"minhash"``: the k independent functions above (the family the explorer teaches). Or
        ``"superminhash"`` (:mod:`nearsim.superminhash`): one pass over the shingles,
        expected O(d + k log² k) work, an unbiased estimate with variance
        J(1 − J)/k · α(k, u) ≤ J(1 − J)/k. Its positions are not independent, so its
        candidate probability is its own curve (``candidate_probability(...,
        sketch="superminhash")``), not 1 − (1 − s^r)^b.

    Attributes
    ----------
    a : ndarray of uint64, shape (num_perm,)
        Multipliers, 1 <= a < p (drawn for either sketch; only "minhash" uses them).
    b : ndarray of uint64, shape (num_perm,)
        Offsets, 0 <= b < p.

    Examples
    --------
    >>> mh = MinHasher(num_perm=64, seed=1)
    >>> sig = mh.signature(["abc", "bcd"])
    >>> sig.shape, sig.dtype
    ((64,), dtype('uint32'))
    """

    p = MERSENNE_P

    def __init__(self, num_perm: int = 128, seed: int = 1, sketch: str = "minhash"):
        self.num_perm = check_num_perm(num_perm)
        self.seed = check_int(seed, "seed", low=0)
        self.sketch = check_choice(sketch, "sketch", SKETCHES)
        rng = np.random.default_rng(self.seed)
        self.a = rng.integers(1, MERSENNE_P, size=self.num_perm, dtype=np.uint64)
        self.b = rng.integers(0, MERSENNE_P, size=self.num_perm, dtype=np.uint64)
        # 32-bit copies tell the compiler the products fit 32x32 -> 64-bit multiplies.
        self._a32 = self.a.astype(np.uint32)
        self._b32 = self.b.astype(np.uint32)

    def __repr__(self) -> str:
        extra = "" if self.sketch == "minhash" else f", sketch={self.sketch!r}"
        return f"MinHasher(num_perm={self.num_perm}, seed={self.seed}{extra})"

    # -- hashing -----------------------------------------------------------------------
    @staticmethod
    def base_hash(shingles: Sequence[str]) -> np.ndarray:
        """MurmurHash3 of each shingle: ``mmh3.hash(s.encode("utf-8"), 0, signed=False)``.

        Parameters
        ----------
        shingles : sequence of str, length m

        Returns
        -------
        ndarray of uint32, shape (m,)
        """
        flat = flatten([check_shingle_list(shingles)], "shingles")
        return flat.hashes(0)

    def signature(self, shingles: Sequence[str]) -> np.ndarray:
        """Signature of one document.

        Parameters
        ----------
        shingles : sequence of str
            The document's shingles.

        Returns
        -------
        ndarray of uint32, shape (num_perm,)
            Minimum of each hash function over the shingles; every value is
            ``2**32 - 1`` when there are no shingles.
        """
        return self.signatures([check_shingle_list(shingles)])[0]

    def _empty_out(self, n: int, one_byte: bool) -> tuple[np.ndarray, np.uint32]:
        dtype = np.uint8 if one_byte else np.uint32
        mask = np.uint32(0xFF if one_byte else 0xFFFFFFFF)
        return np.empty((n, self.num_perm), dtype=dtype), mask

    def signatures(
        self, shingle_lists: Iterable[Sequence[str]], *, one_byte: bool = False
    ) -> np.ndarray:
        """Signatures of many documents from their shingle lists.

        Parameters
        ----------
        shingle_lists : iterable of sequences of str, length n
            Each document's shingles (``nearsim.shingles(text)``), or the
            ``FlatShingles`` that ``nearsim.hashing.text_shingles`` cuts from raw texts.
        one_byte : bool
            Keep only the lowest 8 bits of each value (k bytes per document). Estimate
            with :func:`estimate_jaccard`, which corrects uint8 signatures for chance
            agreements.

        Returns
        -------
        ndarray of uint32 (uint8 if ``one_byte``), shape (n, num_perm)
            Row d equals ``signature(shingle_lists[d])``.
        """
        one_byte = check_bool(one_byte, "one_byte")
        flat = shingle_lists if isinstance(shingle_lists, FlatShingles) else flatten(shingle_lists)
        out, mask = self._empty_out(flat.n_docs, one_byte)
        if self.sketch == "superminhash":
            superminhash.signatures_flat(flat, self.seed, mask, out)
            return out
        _signatures_flat(
            flat.buf, flat.starts, flat.ends, flat.doc_offsets, self._a32, self._b32, mask, out
        )
        return out

    def text_signatures(
        self,
        texts: Iterable[str],
        *,
        kind: str = "char",
        k: int = 5,
        lowercase: bool = True,
        remove_punctuation: bool = False,
        collapse_whitespace: bool = True,
        one_byte: bool = False,
    ) -> np.ndarray:
        """Signatures straight from raw texts, without a Python object per shingle.

        Equal, bit for bit, to ``signatures([shingles(t, ...) for t in texts])``: the
        texts are normalised in Python (str methods), laid out as one UTF-8 buffer, and
        the compiled kernel cuts, hashes and minimises the shingles in place.

        Parameters
        ----------
        texts : iterable of str, length n
            Raw documents.
        kind, k, lowercase, remove_punctuation, collapse_whitespace
            Shingling options, as in :func:`nearsim.shingles`.
        one_byte : bool
            As in :meth:`signatures`.

        Returns
        -------
        ndarray of uint32 (uint8 if ``one_byte``), shape (n, num_perm)
            A text with no shingles gets a row of ``2**32 - 1``.
        """
        one_byte = check_bool(one_byte, "one_byte")
        flat = flatten_texts(
            texts,
            kind=kind,
            k=k,
            lowercase=lowercase,
            remove_punctuation=remove_punctuation,
            collapse_whitespace=collapse_whitespace,
        )
        return self.flat_text_signatures(flat, one_byte=one_byte)

    def flat_text_signatures(self, flat: FlatTexts, *, one_byte: bool = False) -> np.ndarray:
        """:meth:`text_signatures` of texts already laid out by
        :func:`nearsim.hashing.flatten_texts` (which checked the shingling options), for a
        caller that reads the laid-out texts for something else too (the copy keys).

        Returns
        -------
        ndarray of uint32 (uint8 if ``one_byte``), shape (n, num_perm)
        """
        out, mask = self._empty_out(flat.doc_offsets.shape[0] - 1, check_bool(one_byte, "one_byte"))
        bounds = doc_chunks(flat.doc_offsets)
        if self.sketch == "superminhash":
            superminhash.signatures_text(flat, self.seed, mask, bounds, out)
            return out
        # the distinct step pays where shingles repeat and the k functions cost most
        dedupe = self.num_perm >= DEDUPE_MIN_PERM
        _signatures_text_runs(flat.buf, flat.doc_offsets, flat.whole, flat.kind == "word", flat.k,
                              self._a32, self._b32, mask, bounds, dedupe, out)  # fmt: skip
        return out

    def parameters(self, count: int = 16) -> pd.DataFrame:
        """The first ``count`` hash functions' (a_i, b_i).

        Returns
        -------
        pandas.DataFrame
            Columns ``i`` (int64), ``a``, ``b`` (uint64); at most ``num_perm`` rows.
        """
        import pandas as pd

        count = check_int(count, "count", low=0)
        m = min(count, self.num_perm)
        return pd.DataFrame({"i": np.arange(m, dtype=np.int64), "a": self.a[:m], "b": self.b[:m]})

    def winners(self, shingles: Sequence[str], positions: int = 16) -> pd.DataFrame:
        """Which shingle gives the minimum at each of the first ``positions`` positions.

        Parameters
        ----------
        shingles : sequence of str
            One document's distinct shingles.
        positions : int
            How many leading signature positions to explain (capped at ``num_perm``).

        Returns
        -------
        pandas.DataFrame
            One row per position: ``position`` (int64), ``shingle`` (str), ``index``
            (int64, the shingle's place in ``shingles``; the first on a tie), ``hash``
            (uint32, its MurmurHash3), ``value`` (uint32, the signature value).
            Empty when there are no shingles. For SuperMinHash the winner is the shingle
            whose value j + r at that position is smallest (``hash`` is still its
            MurmurHash3, for display: that sketch starts from the shingle's own bytes).
        """
        import pandas as pd

        shingles = check_shingle_list(shingles)
        positions = check_int(positions, "positions", low=1)
        m = min(positions, self.num_perm) if shingles else 0
        x = self.base_hash(shingles)
        if self.sketch == "superminhash":
            own = superminhash.values(flatten([shingles], "shingles"))
            who, sig = superminhash.winners(own, self.num_perm, self.seed)
            idx, value = who[:m], sig[:m]
        else:
            vals = (self.a[:m] * x.astype(np.uint64).reshape(-1, 1) + self.b[:m]) % np.uint64(
                MERSENNE_P
            )
            idx = vals.argmin(axis=0) if shingles else np.zeros(0, dtype=np.int64)
            value = vals[idx, np.arange(m)].astype(np.uint32)
        return pd.DataFrame(
            {
                "position": np.arange(m, dtype=np.int64),
                "shingle": pd.Series([shingles[i] for i in idx], dtype=str),
                "index": idx.astype(np.int64),
                "hash": x[idx],
                "value": value,
            }
        )
