"""Teaching: why a pair is (or is not) a candidate, MinHash worked by hand, the estimator's
spread over seeds, and how the shingle length k changes what is rare.

These functions compute what the explorer's teaching views show (Mining of Massive
Datasets, chapter 3, is the model); the pages only draw their results.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import pandas as pd
from numba import njit

from nearsim.hashing import text_shingles
from nearsim.join.overlap import jaccard
from nearsim.minhash import MinHasher, estimate_jaccard, standard_error
from nearsim.shingling import KINDS
from nearsim.utils.arrays import sorted_overlap
from nearsim.utils.validation import ArgumentTypeError, check_banding, check_choice, check_int
from nearsim.utils.validation_arrays import check_texts


def _shingle_list(value, name: str) -> list[str]:
    accepted = "a list of str (one document's shingles)"
    if isinstance(value, str | bytes) or not isinstance(value, list | tuple):
        raise ArgumentTypeError(
            f"{name}={type(value).__name__} is not accepted; accepted: {accepted}"
        )
    if not all(isinstance(s, str) for s in value):
        raise ArgumentTypeError(f"{name} holds a shingle that is not a str; accepted: {accepted}")
    return list(dict.fromkeys(value))


def _signature(value, name: str) -> np.ndarray:
    if not isinstance(value, np.ndarray) or value.ndim != 1 or value.dtype.kind not in "iu":
        raise ArgumentTypeError(
            f"{name}={type(value).__name__} is not accepted; accepted: a 1-D integer array "
            "(one document's MinHash signature)"
        )
    return value


# -- a pair, explained -------------------------------------------------------------------
@dataclass(frozen=True)
class PairExplanation:
    """Everything that decides whether two documents become a candidate pair.

    Attributes
    ----------
    shared, only_first, only_second : list of str
        Their distinct shingles: in both, only in the first, only in the second (each in
        order of first appearance).
    jaccard : fractions.Fraction
        |shared| / |union| exactly (0 when both are empty).
    agree : ndarray of bool, shape (num_perm,)
        Positions where the two signatures are equal.
    band_rows : ndarray of bool, shape (b, r)
        ``agree`` laid out as b bands of r rows (band i is positions i·r … i·r + r − 1).
    full_bands : ndarray of int64
        Bands whose r rows all agree: any one makes the pair a candidate.
    best_band : int
        A band with the most agreeing rows (the first such).
    estimate : float
        Share of agreeing positions among all num_perm (the MinHash estimate).
    standard_error : float
        √(J(1 − J)/k) at the exact J.
    p_candidate : float
        1 − (1 − J^r)^b: how often a pair this similar becomes a candidate.
    """

    shared: list[str]
    only_first: list[str]
    only_second: list[str]
    jaccard: Fraction
    agree: np.ndarray
    band_rows: np.ndarray
    full_bands: np.ndarray
    best_band: int
    estimate: float
    standard_error: float
    p_candidate: float

    @property
    def candidate(self) -> bool:
        """Whether some band agrees in all its rows."""
        return bool(self.full_bands.shape[0])

    @property
    def best_rows(self) -> int:
        """How many rows of the best band agree (r means a candidate)."""
        return int(self.band_rows[self.best_band].sum()) if self.band_rows.size else 0


def explain_pair(first, second, sig_first, sig_second, b: int, r: int) -> PairExplanation:
    """Why a pair became a candidate, or how close a missed pair came.

    Parameters
    ----------
    first, second : list of str
        The two documents' shingles (repeats ignored).
    sig_first, sig_second : ndarray of uint32, shape (num_perm,)
        Their MinHash signatures (same MinHasher).
    b, r : int
        Bands and rows per band, b·r ≤ num_perm.

    Returns
    -------
    PairExplanation

    Examples
    --------
    >>> mh = MinHasher(8, seed=1)
    >>> a, c = ["ab", "bc", "cd", "de"], ["ab", "bc", "cd", "xy"]
    >>> e = explain_pair(a, c, mh.signature(a), mh.signature(c), 4, 2)
    >>> e.jaccard, len(e.shared), e.only_first, e.only_second
    (Fraction(3, 5), 3, ['de'], ['xy'])
    """
    a = _shingle_list(first, "first")
    c = _shingle_list(second, "second")
    sa, sc = _signature(sig_first, "sig_first"), _signature(sig_second, "sig_second")
    if sa.shape != sc.shape:
        raise ValueError(
            f"sig_first and sig_second have lengths {sa.shape[0]} and {sc.shape[0]}, which is "
            "not accepted; accepted: signatures of one MinHasher (equal lengths)"
        )
    b, r = check_banding(b, r, sa.shape[0])
    in_c = set(c)
    in_a = set(a)
    shared = [s for s in a if s in in_c]
    union = len(in_a | in_c)
    jaccard = Fraction(len(shared), union) if union else Fraction(0)
    agree = sa == sc
    rows = agree[: b * r].reshape(b, r)
    full = np.flatnonzero(rows.all(axis=1)).astype(np.int64)
    j = float(jaccard)
    return PairExplanation(
        shared=shared,
        only_first=[s for s in a if s not in in_c],
        only_second=[s for s in c if s not in in_a],
        jaccard=jaccard,
        agree=agree,
        band_rows=rows,
        full_bands=full,
        best_band=int(np.argmax(rows.sum(axis=1))),
        estimate=estimate_jaccard(sa, sc),
        standard_error=float(standard_error(j, sa.shape[0])),
        p_candidate=1.0 - (1.0 - j**r) ** b,
    )


# -- MinHash by hand ---------------------------------------------------------------------
@dataclass(frozen=True)
class WorkedExample:
    """MinHash on a few tiny sets, the way Mining of Massive Datasets (§3.3) works it.

    Attributes
    ----------
    matrix : pandas.DataFrame
        The characteristic matrix: one row per element of the union (index: the element,
        in order of first appearance), one column per set, 1 where the set holds it.
    hashes : pandas.DataFrame
        h_i(row) = (a_i·row + b_i) mod p for every row number and hash function: each
        function stands for a random permutation of the rows.
    params : list of tuple of int
        (a_i, b_i) of each function; ``p`` is the prime modulus (≥ the number of rows).
    p : int
    steps : list of ndarray of float64, shape (num_hashes, n_sets)
        The signature matrix after each row is visited (∞ before any 1 was seen): visit
        row x, and for each set with a 1 there, lower SIG(i, set) to h_i(x).
    signatures : ndarray of int64, shape (num_hashes, n_sets)
        The final signature matrix.
    pairs : pandas.DataFrame
        For every pair of sets: first, second, the true Jaccard and the signature estimate
        (share of rows of the signature matrix where they agree).
    """

    matrix: pd.DataFrame
    hashes: pd.DataFrame
    params: list[tuple[int, int]]
    p: int
    steps: list[np.ndarray]
    signatures: np.ndarray
    pairs: pd.DataFrame


def _prime_at_least(n: int) -> int:
    p = max(n, 2)
    while any(p % q == 0 for q in range(2, math.isqrt(p) + 1)):
        p += 1
    return p


BOOK_SETS = [["a", "d"], ["c"], ["b", "d", "e"], ["a", "c", "d"]]
"""Mining of Massive Datasets, Fig. 3.2: S1 … S4 over the rows a, b, c, d, e."""
BOOK_ROWS = ["a", "b", "c", "d", "e"]
BOOK_PARAMS = [(1, 1), (3, 1)]
"""The book's two functions (Fig. 3.4): h1(x) = x + 1 mod 5 and h2(x) = 3x + 1 mod 5."""


def book_example(num_hashes: int = 2, seed: int = 0) -> WorkedExample:
    """The book's own example (§3.3.5, Figs. 3.2–3.5): its sets, its row order a … e
    numbered 0 … 4, and its h1 and h2; further functions are other distinct (a, b) mod 5,
    drawn with ``seed`` (with p = 5 every a ≠ 0 orders the rows, and no two functions
    are the same).

    Examples
    --------
    >>> book_example().signatures.tolist()  # the book's Fig. 3.5
    [[1, 3, 0, 1], [0, 2, 0, 0]]
    """
    num_hashes = check_int(num_hashes, "num_hashes", low=1, high=8)
    seed = check_int(seed, "seed", low=0)
    others = [(a, b) for a in range(1, 5) for b in range(5) if (a, b) not in BOOK_PARAMS]
    drawn = np.random.default_rng(seed).permutation(len(others))[: max(0, num_hashes - 2)]
    params = (BOOK_PARAMS + [others[i] for i in drawn])[:num_hashes]
    return worked_example(BOOK_SETS, rows=BOOK_ROWS, params=params, p=5)


def worked_example(
    sets, num_hashes: int = 2, seed: int = 0, *, rows=None, params=None, p=None
) -> WorkedExample:
    """MinHash worked by hand on a few tiny sets, one row at a time.

    Parameters
    ----------
    sets : list of list of str
        Two to eight small sets (each at most 40 elements).
    num_hashes : int
        Hash functions (rows of the signature matrix), 1 to 16.
    seed : int
        Draws each function's (a, b).
    rows : list of str, optional
        The rows' order (every element of the sets, once); default: order of first
        appearance.
    params, p : optional
        Given functions (a, b) and prime modulus p instead of drawn ones (then
        ``num_hashes`` and ``seed`` are not used).

    Returns
    -------
    WorkedExample

    Examples
    --------
    >>> ex = worked_example([["a", "d"], ["c"], ["b", "d", "e"], ["a", "c", "d"]])
    >>> ex.matrix.shape
    (5, 4)
    >>> len(ex.steps), ex.signatures.shape
    (5, (2, 4))
    """
    if not isinstance(sets, list | tuple) or not 2 <= len(sets) <= 8:
        raise ValueError(
            f"sets={type(sets).__name__} is not accepted; accepted: a list of 2 to 8 lists of str"
        )
    sets = [_shingle_list(s, f"sets[{i}]") for i, s in enumerate(sets)]
    if any(len(s) > 40 for s in sets):
        raise ValueError("sets holds a set of more than 40 elements; accepted: tiny sets (≤ 40)")
    num_hashes = check_int(num_hashes, "num_hashes", low=1, high=16)
    seed = check_int(seed, "seed", low=0)
    universe = list(dict.fromkeys(x for s in sets for x in s))
    if rows is not None:
        if not isinstance(rows, list) or sorted(map(str, rows)) != sorted(universe):
            raise ValueError(
                f"rows={rows!r:.60} is not accepted; accepted: every element of the sets once"
            )
        universe = list(rows)
    names = [f"S{i + 1}" for i in range(len(sets))]
    ones = np.array([[x in set(s) for s in sets] for x in universe], dtype=np.int64)
    ones = ones.reshape(len(universe), len(sets))
    matrix = pd.DataFrame(ones, index=pd.Index(universe, name="element"), columns=names)
    if params is None:
        p = _prime_at_least(len(universe))
        rng = np.random.default_rng(seed)
        params = [(int(rng.integers(1, p)), int(rng.integers(0, p))) for _ in range(num_hashes)]
    else:
        p = check_int(p, "p", low=len(universe))
        params = [(check_int(a, "a", low=1, high=p - 1), check_int(b, "b", low=0, high=p - 1))
                  for a, b in params]  # fmt: skip
        num_hashes = len(params)
    rows = np.arange(len(universe))
    h = np.array([(a * rows + b) % p for a, b in params], dtype=np.int64)  # (hashes, rows)
    hashes = pd.DataFrame(h.T, index=matrix.index, columns=[f"h{i + 1}" for i in range(num_hashes)])
    sig = np.full((num_hashes, len(sets)), np.inf)
    steps = []
    for x in rows:
        has = ones[x].astype(bool)
        sig[:, has] = np.minimum(sig[:, has], h[:, [x]])
        steps.append(sig.copy())
    final = sig.astype(np.int64)
    pairs = []
    for i in range(len(sets)):
        for j in range(i + 1, len(sets)):
            both = int((ones[:, i] & ones[:, j]).sum())
            either = int((ones[:, i] | ones[:, j]).sum())
            pairs.append(
                (names[i], names[j], both / either if either else 0.0,
                 float((final[:, i] == final[:, j]).mean()))
            )  # fmt: skip
    return WorkedExample(
        matrix,
        hashes,
        params,
        p,
        steps,
        final,
        pd.DataFrame(pairs, columns=["first", "second", "jaccard", "estimate"]),
    )


# -- the estimator's spread --------------------------------------------------------------
def estimate_spread(first, second, num_perm: int, seeds: int = 200) -> pd.DataFrame:
    """One pair's MinHash estimate under many hash seeds.

    Parameters
    ----------
    first, second : list of str
        The two documents' shingles.
    num_perm : int
        Signature length k.
    seeds : int
        How many seeds (0 … seeds − 1), 2 to 2,000.

    Returns
    -------
    pandas.DataFrame
        One row per seed: seed (int64), estimate (float64). ``attrs``: ``jaccard`` (the
        exact value) and ``standard_error`` (√(J(1 − J)/k)): the estimates' mean should
        sit at the first and their spread near the second.
    """
    a = _shingle_list(first, "first")
    c = _shingle_list(second, "second")
    seeds = check_int(seeds, "seeds", low=2, high=2000)
    est = np.empty(seeds, dtype=np.float64)
    for s in range(seeds):
        sig = MinHasher(num_perm, s).signatures([a, c])
        est[s] = estimate_jaccard(sig[0], sig[1])
    union = len(set(a) | set(c))
    j = len(set(a) & set(c)) / union if union else 0.0
    out = pd.DataFrame({"seed": np.arange(seeds, dtype=np.int64), "estimate": est})
    out.attrs["jaccard"] = j
    out.attrs["standard_error"] = float(standard_error(j, num_perm))
    return out


# -- choosing k --------------------------------------------------------------------------
def shingle_length_profile(
    texts,
    *,
    kind: str = "char",
    ks=None,
    sample: int = 2000,
    pairs: int = 2000,
    seed: int = 0,
    max_characters: int = 1_000_000,
    lowercase: bool = True,
    remove_punctuation: bool = False,
    collapse_whitespace: bool = True,
) -> pd.DataFrame:
    """How the shingle length k changes what is rare, measured on the user's documents.

    "k large enough that any given shingle is rare" (MMDS §3.2): for each k, the share of
    distinct shingles that occur in only one document, and the mean Jaccard of random pairs
    of documents that are not near duplicates (J < 0.5) — which should be near 0.

    Parameters
    ----------
    texts : list of str
    kind : {"char", "word"}
    ks : list of int, optional
        Lengths to try (default 1–12 characters, or 1–6 words).
    sample : int
        Documents measured (a seeded random sample when there are more), 2 to 20,000.
    pairs : int
        Random pairs for the mean Jaccard, 1 to 100,000.
    seed : int
    max_characters : int
        At most this many characters are measured, 1,000 to 100,000,000: when the sampled
        documents hold more, a seeded random subset of them whose lengths add up to at most
        this (at least two documents) is measured instead. Each of the twelve lengths cuts
        every shingle again: 2,000 manual pages (15 million characters) took 17 s, the
        same number of short news items 0.3 s.
    lowercase, remove_punctuation, collapse_whitespace : bool
        Normalisation, as in :func:`nearsim.shingles`.

    Returns
    -------
    pandas.DataFrame
        One row per k: k (int64), shingles (int64, distinct in the sample),
        share_in_one_document (float64), mean_jaccard_unrelated (float64), documents
        (int64, measured). Shingles are told apart by their 32-bit MurmurHash3, in the
        counts and in the Jaccard: a few collisions in a million move neither.
    """
    docs = check_texts(texts, "texts")
    kind = check_choice(kind, "kind", KINDS)
    sample = check_int(sample, "sample", low=2, high=20_000)
    pairs = check_int(pairs, "pairs", low=1, high=100_000)
    seed = check_int(seed, "seed", low=0)
    max_characters = check_int(max_characters, "max_characters", low=1000, high=10**8)
    if ks is None:
        ks = range(1, 13) if kind == "char" else range(1, 7)
    ks = [check_int(k, "ks", low=1, high=50) for k in ks]
    if len(docs) < 2:
        raise ValueError(f"texts has {len(docs)} documents; accepted: at least 2")
    rng = np.random.default_rng(seed)
    if len(docs) > sample:
        docs = [docs[i] for i in np.sort(rng.choice(len(docs), sample, replace=False))]
    lengths = np.fromiter(map(len, docs), dtype=np.int64, count=len(docs))
    if int(lengths.sum()) > max_characters:  # long documents: fewer of them, whole
        order = rng.permutation(len(docs))
        fits = int(np.searchsorted(np.cumsum(lengths[order]), max_characters, side="right"))
        docs = [docs[i] for i in np.sort(order[: max(fits, 2)])]
    n = len(docs)
    pr = _random_pairs(n, pairs, rng)
    rows = []
    for k in ks:
        flat = text_shingles(
            docs,
            kind=kind,
            k=k,
            lowercase=lowercase,
            remove_punctuation=remove_punctuation,
            collapse_whitespace=collapse_whitespace,
        )
        hashes = flat.hashes(0)
        _, df = np.unique(hashes, return_counts=True)
        jac = _hashed_jaccard(hashes, flat.doc_offsets, pr)
        unrelated = jac[jac < 0.5]
        rows.append(
            (k, df.shape[0], float((df == 1).mean()) if df.size else float("nan"),
             float(unrelated.mean()) if unrelated.size else float("nan"), n)
        )  # fmt: skip
    out = pd.DataFrame(
        rows,
        columns=["k", "shingles", "share_in_one_document", "mean_jaccard_unrelated", "documents"],
    )
    return out.astype({"k": np.int64, "shingles": np.int64, "documents": np.int64})


def _random_pairs(n: int, pairs: int, rng: np.random.Generator) -> np.ndarray:
    """``pairs`` uniform pairs of distinct documents of ``n``; int64, shape (pairs, 2), i < j."""
    i = rng.integers(0, n, size=pairs)
    j = rng.integers(0, n - 1, size=pairs)
    j = j + (j >= i)  # a uniform other document
    return np.stack([np.minimum(i, j), np.maximum(i, j)], axis=1)


def _hashed_jaccard(hashes: np.ndarray, offsets: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """Jaccard of each pair of documents on their distinct shingles' hashes; float64,
    shape (m,), 0.0 when both are empty.

    The profile's twelve lengths each need a fresh set of shingles, and interning them for
    the exact join (``pair_jaccard``) cost 0.5 s of its 0.8 s on 2,000 documents; sorting
    each document's hashes and merging them costs a few milliseconds a length.
    """
    lengths = np.diff(offsets)
    docs = np.repeat(np.arange(lengths.shape[0], dtype=np.uint64), lengths)
    # One NumPy sort (its vectorised one: a few ms) puts each document's hashes in order.
    keys = np.sort((docs << np.uint64(32)) | hashes.astype(np.uint64)).astype(np.uint32)
    inter = _sorted_overlaps(keys, offsets, pairs[:, 0], pairs[:, 1])
    return jaccard(inter, lengths[pairs[:, 0]], lengths[pairs[:, 1]])  # as pair_jaccard


@njit(cache=True, nogil=True)
def _sorted_overlaps(keys, offsets, first, second):
    """|A ∩ B| of each pair, by merging the two documents' sorted keys."""
    out = np.empty(first.shape[0], np.int64)
    for p in range(first.shape[0]):
        out[p] = sorted_overlap(
            keys[offsets[first[p]] : offsets[first[p] + 1]],
            keys[offsets[second[p]] : offsets[second[p] + 1]],
        )
    return out
