"""Sizing: what a run with the current settings costs on a corpus of N documents.

For N documents (typed in: 10⁶ … 10¹⁰), with signature length k = ``num_perm`` and
banding b × r:

* **signature memory**: 4·k bytes per document (uint32 values);
* **band-key memory**: 8 bytes per document per band (one uint64 key each) — 8·N at the
  peak when the bands are processed one at a time, as :func:`nearsim.candidate_pairs`
  does, or 8·N·b to hold every band at once (a distributed run that shuffles all band
  keys). Sorting a band's keys needs an index of another 8·N bytes beside them;
* **expected candidate pairs** (and their memory, 16 bytes a pair): from the corpus's own
  pair similarities (the similarity sample with its weights, as for :func:`nearsim.predict`),
  scaled to N by the model below;
* **time** from measured throughput (:func:`measure_throughput` measures it here).

The scaling model
-----------------
The pairs of the loaded corpus of n documents are split at a similarity ``floor``:

* *near duplicates* (s ≥ floor) come from copying: each copy adds a few pairs, so their
  number grows **linearly**, × N / n;
* *background* pairs (s < floor) are pairs of unrelated documents with the same
  similarity law at any size, so their number grows with the number of pairs,
  × N(N − 1) / (n(n − 1)).

Expected candidates at N = Σ_near w·P(s)·N/n + Σ_background w·P(s)·N(N−1)/(n(n−1)), with
P(s) = 1 − (1 − s^r)^b. The model assumes the loaded documents are a uniform sample of the
corpus and that near-duplicate clusters do not grow with N (a page copied 1,000 times
makes 500,000 pairs; a sample sees few of its copies, so such clusters are undercounted).
Checked on :func:`nearsim.example_corpus` (every pair listed at 1,000 and at 3,000
documents): the background part scaled from 1,000 to 3,000 came within 15 % of the
direct count for 9 × 13, 20 × 5 and 40 × 3; the near part came out 25–33 % low, because
that generator copies copies, so its clusters grow with N. Read the near part as a lower
bound when copies of copies are common.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np
import pandas as pd

from nearsim.lsh import candidate_probability
from nearsim.utils.validation import (
    ArgumentTypeError,
    check_banding,
    check_float,
    check_instance,
    check_int,
    check_num_perm,
    check_threshold,
    shown,
)
from nearsim.utils.validation_arrays import check_pair_similarity, check_pair_weights

MAX_SIZE = 10**12
"""Largest corpus size accepted (the typed range is 10⁶ … 10¹⁰)."""


class Throughput(NamedTuple):
    """Measured speeds of the three stages of a run.

    Attributes
    ----------
    signatures_per_second : float
        Documents per second from raw text to signature (shingling included).
    band_keys_per_second : float
        Document-bands per second: hashing, sorting and pairing one band's keys.
    verifications_per_second : float
        Candidate pairs per second whose MinHash estimate is computed (``--verify
        estimate``).
    """

    signatures_per_second: float
    band_keys_per_second: float
    verifications_per_second: float


def _sizes(documents) -> np.ndarray:
    accepted = f"an integer or a 1-D array of integers from 2 to {MAX_SIZE:,}"
    try:
        given = np.asarray(documents, dtype=object)
    except (TypeError, ValueError):  # ragged lists
        raise ArgumentTypeError(
            f"documents={shown(documents)} is not accepted; accepted: {accepted}"
        ) from None
    values = np.atleast_1d(given)
    if values.ndim != 1 or values.size == 0:
        raise ValueError(f"documents={shown(documents)} is not accepted; accepted: {accepted}")
    for q, v in enumerate(values.tolist()):
        name = "documents" if given.ndim == 0 else f"documents[{q}]"
        check_int(v, name, low=2, high=MAX_SIZE)
    return values.astype(np.int64)


def _throughput(value) -> Throughput | None:
    if value is None:
        return None
    check_instance(value, "throughput", Throughput, "None or a Throughput (measure_throughput)")
    names = Throughput._fields
    return Throughput(
        *(
            check_float(v, f"throughput.{n}", low=0.0, low_open=True)
            for n, v in zip(names, value, strict=True)
        )
    )


def sizing(
    documents,
    similarity,
    weight,
    *,
    corpus_docs,
    num_perm,
    b,
    r,
    threshold,
    floor=0.5,
    throughput: Throughput | None = None,
) -> pd.DataFrame:
    """Memory, expected candidate pairs and time of a run on N documents.

    Parameters
    ----------
    documents : int or array_like of int, shape (g,)
        Corpus sizes N to size for, 2 to 10¹².
    similarity, weight : array_like of float, shape (m,)
        The loaded corpus's pair similarities and how many of its pairs each stands for,
        as for :func:`nearsim.predict` (``weight`` None: 1 each).
    corpus_docs : int
        n, the number of documents those pairs come from (≥ 2).
    num_perm : int
        Signature length k.
    b, r : int
        Bands and rows per band, b·r ≤ k.
    threshold : float
        Jaccard threshold t in (0, 1] (for the expected true pairs).
    floor : float
        Similarity in (0, 1] from which pairs count as near duplicates (linear growth).
    throughput : Throughput, optional
        Measured speeds; without them the time columns are NaN.

    Returns
    -------
    pandas.DataFrame
        One row per N: documents (int64); signature_bytes, band_key_bytes_peak,
        band_key_bytes_all (int64); candidates_near, candidates_background, candidates,
        candidate_bytes, true_pairs (float64, expected); signature_seconds,
        band_seconds, verify_seconds, total_seconds (float64).

    Examples
    --------
    A loaded corpus of 20,000 documents: 3,000 near-duplicate pairs at 0.9, and 2·10⁸
    background pairs at 0.1 (listed as one sampled pair of weight 2·10⁸):

    >>> table = sizing([10**6, 10**9], [0.9, 0.1], [3000, 2e8], corpus_docs=20_000,
    ...                num_perm=128, b=9, r=13, threshold=0.8)
    >>> table["signature_bytes"].tolist()
    [512000000, 512000000000]
    >>> table[["candidates_near", "candidates_background"]].round().values.tolist()
    [[139291.0, 0.0], [139290653.0, 450023.0]]
    """
    sizes = _sizes(documents)
    s = check_pair_similarity(similarity)
    w = check_pair_weights(weight, s.shape[0], "weight")
    n = check_int(corpus_docs, "corpus_docs", low=2, high=MAX_SIZE)
    k = check_num_perm(num_perm)
    b, r = check_banding(b, r, k)
    t = check_threshold(threshold)
    cut = check_threshold(floor, "floor")
    speeds = _throughput(throughput)
    p = np.asarray(candidate_probability(s, b, r), dtype=np.float64).reshape(-1)
    near = s >= cut
    true = s >= t
    big_n = sizes.astype(np.float64)
    linear = big_n / n
    square = big_n * (big_n - 1.0) / (n * (n - 1.0))
    cand_near = float(w[near] @ p[near]) * linear
    cand_back = float(w[~near] @ p[~near]) * square
    cand = cand_near + cand_back
    true_pairs = float(w[true & near].sum()) * linear + float(w[true & ~near].sum()) * square
    table = pd.DataFrame(
        {
            "documents": sizes,
            "signature_bytes": sizes * np.int64(4 * k),
            "band_key_bytes_peak": sizes * np.int64(8),
            "band_key_bytes_all": sizes * np.int64(8 * b),
            "candidates_near": cand_near,
            "candidates_background": cand_back,
            "candidates": cand,
            "candidate_bytes": cand * 16.0,
            "true_pairs": true_pairs,
        }
    )
    if speeds is None:
        nan = np.full(sizes.shape[0], np.nan)
        sig_s = band_s = verify_s = nan
    else:
        sig_s = big_n / speeds.signatures_per_second
        band_s = big_n * b / speeds.band_keys_per_second
        verify_s = cand / speeds.verifications_per_second
    table["signature_seconds"] = sig_s
    table["band_seconds"] = band_s
    table["verify_seconds"] = verify_s
    table["total_seconds"] = sig_s + band_s + verify_s
    return table


def _best_time(fn, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return max(best, 1e-9)


def measure_throughput(
    n_docs: int = 5000,
    *,
    num_perm: int = 128,
    b: int = 9,
    r: int = 13,
    seed: int = 0,
    repeats: int = 3,
) -> Throughput:
    """Measure the three speeds :func:`sizing` needs on a generated corpus, on this machine.

    Documents from :func:`nearsim.example_corpus` (``n_docs``, ``seed``), character
    5-grams. Each stage is run once to load its compiled code, then timed ``repeats``
    times; the best time is kept (the least disturbed by other work on the machine).

    * signatures: :meth:`nearsim.MinHasher.text_signatures` over the texts;
    * band keys: :func:`nearsim.candidate_pairs` with b × r, per document-band;
    * verification: :func:`nearsim.estimate_pairs` over 200,000 random pairs.

    Parameters
    ----------
    n_docs : int
        Documents to generate, 300 to 20,000.
    num_perm, b, r : int
        The settings to measure with (b·r ≤ num_perm).
    seed : int
        Seed of the generated corpus and of the random pairs.
    repeats : int
        Timed runs per stage, 1 to 20.

    Returns
    -------
    Throughput

    Examples
    --------
    >>> speeds = measure_throughput(300, repeats=1)
    >>> all(v > 0 for v in speeds)
    True
    """
    from nearsim.banding import candidate_pairs
    from nearsim.io.documents import example_corpus
    from nearsim.minhash import MinHasher, estimate_pairs

    n_docs = check_int(n_docs, "n_docs", low=300, high=20_000)
    k = check_num_perm(num_perm)
    b, r = check_banding(b, r, k)
    seed = check_int(seed, "seed", low=0)
    repeats = check_int(repeats, "repeats", low=1, high=20)
    texts = example_corpus(n_docs, seed=seed)["text"].tolist()
    hasher = MinHasher(k, seed=1)
    sig = hasher.text_signatures(texts)
    t_sig = _best_time(lambda: hasher.text_signatures(texts), repeats)
    candidate_pairs(sig, b, r)
    t_band = _best_time(lambda: candidate_pairs(sig, b, r), repeats)
    rng = np.random.default_rng(seed)
    pairs = np.sort(rng.integers(0, n_docs, size=(200_000, 2)), axis=1)
    pairs = pairs[pairs[:, 0] < pairs[:, 1]]
    estimate_pairs(sig, pairs[:10])
    t_verify = _best_time(lambda: estimate_pairs(sig, pairs), repeats)
    return Throughput(
        signatures_per_second=n_docs / t_sig,
        band_keys_per_second=n_docs * b / t_band,
        verifications_per_second=pairs.shape[0] / t_verify,
    )


# The local engine's peak memory, fitted to `nearsim dedup` runs at 10⁶ and 10⁷ documents
# (README, "Memory"): the interpreter and libraries, the signature (4·k bytes) and about
# 73 bytes more a document (copy keys, ids, labels), and 10 bytes a candidate.
RUN_BASE_BYTES = 240 * 10**6
RUN_EXTRA_BYTES = 73
CANDIDATE_BYTES = 10
# The Dask engine's client keeps every document's id and label (393 bytes a document
# measured between 50,000 and 200,000 documents), its workers hold the rest.
DASK_CLIENT_BYTES = 393


class RunPlan(NamedTuple):
    """What ``nearsim dedup`` would do on N documents (:func:`run_plan`).

    Attributes
    ----------
    local_bytes : float
        The local engine's expected peak memory.
    machine_bytes : int
        This machine's memory.
    guard_stops : bool
        The expected candidates pass ``--max-candidates``: the run stops before banding.
    engine : str
        ``"local"`` when the local engine fits in about half the machine's memory,
        ``"dask"`` otherwise.
    dask_client_bytes : float
        What the machine running a Dask run's client needs.
    """

    local_bytes: float
    machine_bytes: int
    guard_stops: bool
    engine: str
    dask_client_bytes: float


def run_plan(
    documents: int, num_perm: int, candidates: float, machine_bytes: int, max_candidates: int
) -> RunPlan:
    """What ``nearsim dedup`` would do on ``documents`` documents with these settings.

    Parameters
    ----------
    documents : int
        N (≥ 1).
    num_perm : int
        Signature length k.
    candidates : float
        Expected candidate pairs at N (:func:`sizing`).
    machine_bytes : int
        This machine's memory (≥ 1).
    max_candidates : int
        The run's ``--max-candidates`` guard (≥ 1).

    Returns
    -------
    RunPlan
    """
    n = check_int(documents, "documents", low=1)
    k = check_num_perm(num_perm)
    mem = check_int(machine_bytes, "machine_bytes", low=1)
    guard = check_int(max_candidates, "max_candidates", low=1)
    cand = check_float(candidates, "candidates", low=0.0)
    local = RUN_BASE_BYTES + n * (4 * k + RUN_EXTRA_BYTES) + CANDIDATE_BYTES * min(cand, guard)
    return RunPlan(
        float(local), mem, cand > guard, "local" if local <= mem / 2 else "dask",
        float(RUN_BASE_BYTES + DASK_CLIENT_BYTES * n),
    )  # fmt: skip
