"""Exact Jaccard ground truth: every pair at or above a threshold, and the Jaccard of pairs.

:func:`exact_pairs` is the exact similarity join (every pair whose Jaccard reaches the
threshold), :func:`pair_jaccard` the exact Jaccard of given pairs, :func:`join_funnel`
what each of the join's filters removed (for teaching). Their ``sets`` argument is a list
of shingle lists, ``FlatShingles`` spans, or — best when asking several questions of the
same documents — :class:`nearsim.join.tokens.TokenSets`, interned once.

Two ways to the same answer (kernels in :mod:`nearsim.join._kernels`): ``brute`` compares every
pair, ``ppjoin`` is the PPJoin similarity join with prefix, length and positional
filters; both return the same rows with the same float values.

The threshold rule (the same for both methods)
-----------------------------------------------
A pair is included iff it shares at least one shingle and its Jaccard, the float64
``inter / union`` in the ``jaccard`` column, is ``>= threshold``: filtering any list of
pairs by ``jaccard >= t`` and asking the join for ``t`` give the same pairs, and a pair at
exactly 4/5 is in at t = 0.8 while t = 0.8000001 leaves it out.

That is decided in exact arithmetic, never with a tolerance. Rounding to the nearest
float does not decrease, so ``float(J) >= t`` holds exactly when ``J`` is above the point
halfway between ``t`` and the float just below it; that point, ``cut``
(:func:`threshold_cut`), is a fraction whose denominator is at least 2**53, so no Jaccard
of sets with fewer than 2**53 shingles equals it. The join then needs, for each size sum
``s = |x| + |y|``, the smallest overlap ``a`` with ``a / (s - a) >= cut``, i.e.
``a >= cut · s / (1 + cut)``, and for each size ``l`` the smallest partner size
``cut · l``: :func:`overlap_tables` computes both once per call, exactly (floats where
they cannot be off, Python integers where they could), and every filter of the join is a
look-up in them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from nearsim.hashing import FlatShingles, flatten
from nearsim.join import _kernels as _join
from nearsim.join.overlap import jaccard, pair_overlaps
from nearsim.join.tokens import TokenSets, as_token_sets, checked_sets, n_documents
from nearsim.utils.arrays import unique_int
from nearsim.utils.validation import check_choice, check_threshold
from nearsim.utils.validation_arrays import check_mask, check_pairs

if TYPE_CHECKING:  # pandas is loaded only where a frame is made
    import pandas as pd

__all__ = [
    "AUTO_BRUTE_LIMIT",
    "METHODS",
    "JoinFunnel",
    "exact_pairs",
    "join_funnel",
    "overlap_tables",
    "pair_jaccard",
    "threshold_cut",
    "warm_up",
]

METHODS = ("auto", "brute", "ppjoin")
AUTO_BRUTE_LIMIT = 2500


# --------------------------------------------------------------------------- the rule


def threshold_cut(threshold, name: str = "threshold") -> Fraction:
    """The exact fraction a threshold stands for: ``float(J) >= t`` iff ``J >= cut``.

    Parameters
    ----------
    threshold : float
        A number in (0, 1]: 0 excluded, 1 included.
    name : str
        The argument's name, for the message.

    Returns
    -------
    fractions.Fraction
        Halfway between ``t`` and the float just below it (exact): every rational
        ``J = inter / union`` with ``union < 2**53`` satisfies ``float(J) >= t`` exactly
        when ``J >= cut``.

    Raises
    ------
    ValueError
        If ``threshold`` is not a real number in (0, 1] (``ArgumentTypeError`` for a
        bool, a str or None).

    Examples
    --------
    >>> threshold_cut(0.8) < Fraction(4, 5) < Fraction(0.8)
    True
    >>> threshold_cut(0.8000001) > Fraction(4, 5)
    True
    """
    t = check_threshold(threshold, name)
    return (Fraction(math.nextafter(t, 0.0)) + Fraction(t)) / 2


def _ceil_multiples(num: int, den: int, count: int) -> np.ndarray:
    """``ceil(num * s / den)`` for s = 0 .. count - 1, exactly (0 <= num <= den)."""
    s = np.arange(count, dtype=np.float64)
    y = s * (num / den)  # Python's int division is correctly rounded, however large
    out = np.ceil(y).astype(np.int64)
    # |y - s·num/den| <= s·2**-52 (two roundings); only where y lies that close to an
    # integer can its ceiling be wrong: those are recomputed in integers
    near = np.flatnonzero(np.abs(y - np.rint(y)) <= max(count, 1) * 2.0**-50)
    if near.size:
        out[near] = [-((-num * k) // den) for k in near.tolist()]
    return out


def overlap_tables(cut: Fraction, max_size: int) -> tuple[np.ndarray, np.ndarray]:
    """The integer tables every filter of the join reads, for a threshold's ``cut``.

    Parameters
    ----------
    cut : fractions.Fraction
        From :func:`threshold_cut` (0 <= cut <= 1; 0 means "every pair sharing a shingle").
    max_size : int
        The largest document size (distinct shingles) to cover.

    Returns
    -------
    min_overlap : ndarray of int64, shape (2 * max_size + 2,)
        ``min_overlap[s]``: the smallest overlap ``a >= 1`` of two sets with
        ``|x| + |y| = s`` and ``a / (s - a) >= cut``, i.e. ``max(1, ceil(cut·s / (1 + cut)))``.
    min_size : ndarray of int64, shape (max_size + 2,)
        ``min_size[l]``: the smallest size a set may have to reach ``cut`` with a set of
        size ``l`` (J <= |y| / |x| for |y| <= |x|): ``max(1, ceil(cut · l))``.

    Examples
    --------
    >>> a, m = overlap_tables(threshold_cut(0.5), 4)
    >>> a.tolist(), m.tolist()
    ([1, 1, 1, 1, 2, 2, 2, 3, 3, 3], [1, 1, 1, 2, 2, 3])
    """
    p, q = cut.numerator, cut.denominator
    min_overlap = np.maximum(_ceil_multiples(p, p + q, 2 * max_size + 2), 1)
    min_size = np.maximum(_ceil_multiples(p, q, max_size + 2), 1)
    return min_overlap, min_size


def _mask(valid, n: int):
    return None if valid is None else check_mask(valid, n, "valid")


def _tables(tokens: TokenSets, cut: Fraction, valid):
    lens = tokens.lengths if valid is None else tokens.lengths[valid]
    return overlap_tables(cut, int(lens.max(initial=0)))


def join_rows(tokens: TokenSets, cut: Fraction, method: str, valid, *, funnel: bool = False):
    """Rows (x, y, inter, union) and the counters of the join at ``cut`` (a checked
    ``valid`` mask or None): what :func:`exact_pairs` and the similarity sample run."""
    if method == "auto":
        method = "brute" if tokens.n <= AUTO_BRUTE_LIMIT else "ppjoin"
    min_overlap, min_size = _tables(tokens, cut, valid)
    return _join.join(tokens, min_overlap, min_size, method, valid, funnel=funnel)


# --------------------------------------------------------------------------- public API


def exact_pairs(sets, threshold, method: str = "auto", *, valid=None) -> pd.DataFrame:
    """Every pair of documents whose exact Jaccard similarity reaches ``threshold``.

    Parameters
    ----------
    sets : sequence of sequences of str, length n, or FlatShingles, or TokenSets
        One entry per document: its shingles (as produced by :func:`nearsim.shingles`),
        the same as ``nearsim.hashing.FlatShingles`` spans, or prepared
        :class:`~nearsim.join.tokens.TokenSets` (interned once, reused). Each entry is treated
        as a set; repeats are ignored. A document with no shingles is never in a pair.
    threshold : float
        In (0, 1]. A pair is included iff it shares a shingle and its ``jaccard`` (the
        float64 ``inter / union``) is ``>= threshold``, decided exactly (see the module
        docstring): 4/5 is in at 0.8 and out at 0.8000001.
    method : {"auto", "brute", "ppjoin"}
        ``brute`` compares every pair (bitsets of the frequent shingles plus an inverted
        index of the rare ones), ``ppjoin`` is the exact similarity join with prefix,
        length and positional filtering. ``auto`` uses brute for up to 2,500 documents and
        ppjoin above. All give identical output.
    valid : ndarray of bool, shape (n,), optional
        Documents to join; one outside the mask is never in a pair (as if it had no
        shingles). Default: all.

    Returns
    -------
    pandas.DataFrame
        Columns ``i`` (int64), ``j`` (int64), ``jaccard`` (float64), one row per pair,
        ``i < j``, sorted by (i, j), default RangeIndex.

    Raises
    ------
    ValueError
        If ``threshold`` is not in (0, 1], ``method`` is not one of the three, ``valid``
        is not a boolean array of shape (n,), or ``sets`` is none of the accepted forms
        (``ArgumentTypeError``, also a ``TypeError``, for a wrong type).

    Examples
    --------
    >>> exact_pairs([list("abcd"), list("abcde"), list("xyz")], 0.8)
       i  j  jaccard
    0  0  1      0.8
    >>> len(exact_pairs([list("abcd"), list("abcde")], 0.8000001))
    0
    """
    cut = threshold_cut(threshold)
    method = check_choice(method, "method", METHODS)
    tokens = as_token_sets(sets)
    rows, _ = join_rows(tokens, cut, method, _mask(valid, tokens.n))
    return _join.frame(rows)


def pair_jaccard(sets, pairs) -> np.ndarray:
    """Exact Jaccard similarity of the given pairs of documents.

    Parameters
    ----------
    sets : sequence of sequences of str, length n, or FlatShingles, or TokenSets
        As for :func:`exact_pairs`. From a list or FlatShingles only the documents in
        ``pairs`` are read, and not interned: each one's shingles are put in hash order
        and each pair's two lists merged, bytes compared where hashes are equal
        (``nearsim._pair_overlap``), so asking about some pairs of a large corpus is cheap.
    pairs : array_like of int, shape (m, 2), or pandas.DataFrame with columns i, j
        Rows ``0 <= i, j < n`` in any order; repeats and ``i == j`` allowed.

    Returns
    -------
    ndarray of float64, shape (m,)
        ``|x ∩ y| / |x ∪ y|`` of each row, computed as in :func:`exact_pairs`; 0.0 when
        both documents have no shingles. Validity masks play no part here.

    Raises
    ------
    ValueError
        If ``pairs`` is not an integer array of shape (m, 2) with rows inside the
        documents, or ``sets`` is none of the accepted forms.

    Examples
    --------
    >>> pair_jaccard([["a", "b", "c"], ["b", "c", "d"], []], [[0, 1], [1, 0], [2, 2]]).tolist()
    [0.5, 0.5, 0.0]
    """
    sets = checked_sets(sets)
    arr = check_pairs(
        pairs, "pairs", n=n_documents(sets), ordered=False, unique=False, distinct=False
    )
    if arr.shape[0] == 0:
        return np.empty(0, np.float64)
    pi, pj = arr[:, 0], arr[:, 1]
    if isinstance(sets, TokenSets):
        order = np.argsort(pi, kind="stable")  # equal first documents together: marked once
        inter = np.empty(arr.shape[0], np.int64)
        inter[order] = _join.overlaps(sets, sets.verification(), pi[order], pj[order])
        sizes = sets.lengths
    else:  # not interned: only the pairs' documents, by their shingles' bytes
        docs = unique_int(arr.ravel())  # np.unique without an inverse is slow in NumPy 2.4
        pi, pj = np.searchsorted(docs, pi), np.searchsorted(docs, pj)
        if isinstance(sets, FlatShingles):
            flat = sets
        else:
            flat = flatten([sets[d] for d in docs.tolist()], "sets")
            docs = np.arange(docs.shape[0], dtype=np.int64)
        inter, sizes = pair_overlaps(flat, docs, pi, pj)
    return jaccard(inter, sizes[pi], sizes[pj])


@dataclass(frozen=True)
class JoinFunnel:
    """How many pairs each filter of the PPJoin similarity join let through.

    Each count is of pairs of documents; each is at most the one before it.

    Attributes
    ----------
    threshold : float
    documents : int
        Documents in the join (inside the mask, with at least one shingle).
    all_pairs : int
        ``documents · (documents − 1) / 2``: what comparing every pair would verify.
    prefix : int
        Pairs sharing a shingle in both prefixes (the prefix filter): shingles are
        ordered rarest first; a document of size ``l`` lists its first
        ``l − min_overlap + ell`` shingles (ell = 6), and a pair below that count of shared
        shingles there cannot reach the threshold.
    length : int
        Of those, pairs whose sizes allow the threshold at all: ``|y| >= t·|x|`` (the
        length filter).
    position : int
        Of those, pairs with enough shared shingles at positions that still leave room
        for the overlap the pair needs (the positional filter): the candidates.
    verified : int
        Of those, candidates whose overlap was counted, after a bitmap bound
        (``(|x| + |y| − popcount(bx XOR by)) / 2``) rejected the rest without looking at
        their shingles.
    result : int
        Pairs with Jaccard ``>= threshold``: ``len(exact_pairs(...))``.
    entries : int
        Work: inverted-index entries the probes read.
    met : int
        Work: distinct (probe, document) meetings inside the length window.
    """

    threshold: float
    documents: int
    all_pairs: int
    prefix: int
    length: int
    position: int
    verified: int
    result: int
    entries: int
    met: int

    def frame(self) -> pd.DataFrame:
        """The funnel as a table, one row per step.

        Returns
        -------
        pandas.DataFrame
            Columns ``step`` (str), ``pairs`` (int64: left after the step), ``removed``
            (int64: removed by it).
        """
        steps = ["all pairs", "prefix filter", "length filter", "positional filter"]
        steps += ["bitmap bound", "verified: J ≥ t"]
        counts = [self.all_pairs, self.prefix, self.length, self.position, self.verified]
        counts = np.array([*counts, self.result], dtype=np.int64)
        removed = np.concatenate([[0], counts[:-1] - counts[1:]]).astype(np.int64)
        import pandas as pd

        return pd.DataFrame({"step": steps, "pairs": counts, "removed": removed})


def join_funnel(sets, threshold, *, valid=None) -> JoinFunnel:
    """Run the PPJoin join at ``threshold`` and count what each filter removed.

    Parameters
    ----------
    sets : sequence of sequences of str, length n, or FlatShingles, or TokenSets
        As for :func:`exact_pairs`.
    threshold : float
        In (0, 1], as for :func:`exact_pairs`.
    valid : ndarray of bool, shape (n,), optional
        As for :func:`exact_pairs`.

    Returns
    -------
    JoinFunnel
        The counts; ``.frame()`` gives them as a table. Counting the pairs before the
        length filter takes a second pass over the index, so this is slower than
        :func:`exact_pairs` (about twice on news-like text).

    Examples
    --------
    >>> f = join_funnel([list("abcd"), list("abcde"), list("abxy"), list("wxyz")], 0.8)
    >>> f.all_pairs, f.result
    (6, 1)
    """
    t = check_threshold(threshold)
    tokens = as_token_sets(sets)
    mask = _mask(valid, tokens.n)
    _, stats = join_rows(tokens, threshold_cut(t), "ppjoin", mask, funnel=True)
    c = dict(zip(_join.STATS, (int(x) for x in stats), strict=True))
    m = int(np.count_nonzero(tokens.lengths if mask is None else tokens.lengths[mask]))
    return JoinFunnel(
        threshold=t,
        documents=m,
        all_pairs=m * (m - 1) // 2,
        prefix=c["prefix"],
        length=c["length"],
        position=c["candidates"],
        verified=c["candidates"] - c["bitmap_rejected"],
        result=c["pairs"],
        entries=c["entries"],
        met=c["met"],
    )


def warm_up() -> None:
    """Compile (or load from numba's on-disk cache) every kernel of the exact join,
    interning and the similarity sample.

    The first call in a fresh environment compiles them (some seconds; the numbers are in
    ``benchmarks/RESULTS.md``); later processes load the cached machine code in a fraction
    of a second. Call it from a set-up step or a background thread at start-up so the
    first real request does not pay for it.
    """
    from nearsim.join.sample import similarity_sample

    sets = [["abcde", "bcdef", "cdefg"], ["abcde", "bcdef", "xyz"], [], ["é" * 20, "q"]] * 3
    tokens = TokenSets.from_shingles(flatten(sets))
    exact_pairs(sets, 0.5, method="brute")
    exact_pairs(tokens, 0.5, method="ppjoin")
    join_funnel(tokens, 0.5)
    pair_jaccard(tokens, [[0, 1]])
    pair_jaccard(flatten(sets), [[0, 1]])  # not interned: nearsim dedup --verify exact
    similarity_sample(tokens, all_pairs_limit=2, sample_size=10)
