"""Two sketches side by side on the explorer's documents: classic MinHash and SuperMinHash.

What the MinHash page's "Two sketches" tab shows, measured on the loaded documents with
the current shingling, k, banding and threshold, for a few hash seeds:

* the estimator's spread: on pairs of known exact similarity J (the similarity sample),
  the error of the estimate divided by classic MinHash's standard error √(J(1 − J)/k), by
  the size of the pair's union. Classic MinHash's ratio is 1 at every size; SuperMinHash's
  is √α(k, u) (Ertl 2017), well below 1 for unions of a few hundred shingles and tending
  to 1 for very large ones;
* the time each sketch takes to sign the documents from their text;
* recall and precision of the candidates of the same b × r, before and after the estimate
  filter, against the exact pairs.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from nearsim.banding import candidate_pairs
from nearsim.hashing import take_documents
from nearsim.minhash import MinHasher, estimate_pairs
from nearsim.scoring import evaluate
from nearsim.superminhash import variance_factor
from nearsim.utils.validation import check_int

SKETCH_NAMES = {"minhash": "MinHash", "superminhash": "SuperMinHash"}
UNION_EDGES = (0, 100, 300, 1_000, 3_000, np.inf)
"""Union-size ranges (distinct shingles of the pair together) of the spread table."""
MAX_PAIRS = 100_000
"""At most this many sampled pairs (0 < J < 1) enter the spread table, chosen evenly."""
MAX_SIGNED_SHINGLES = 6_000_000
"""Above this many distinct shingles in all the documents, the spread and recall are
measured on a seeded random subset of the documents holding about this many (the
documents in random order, as many as fit), and on the pairs inside it: every signing
(two sketches × the seeds) then costs a fixed amount however long the documents are.
On 12,000 installed documents (31 million shingles) the subset is about 2,300 documents,
which hold about 1/27 of the pairs: the exact pairs at t = 0.8 inside it are then about
800 of 21,000, and a recall near 0.95 has a standard error of about √(0.95 · 0.05 / 800)
≈ 0.008 (4σ ≈ 0.03) per seed; the spread table keeps thousands of estimates per union
range. The page says how many documents were signed."""
TIMING_BYTES = 8_000_000
"""Signing is timed on the first documents up to this many bytes of UTF-8 text (at least
one document) and scaled to all of them: signing twice per sketch from 92 MB of manual
pages was about 40% of this comparison's time, for a rate that 8 MB measures as well."""


@dataclass(frozen=True)
class SketchComparison:
    """Classic MinHash and SuperMinHash measured on the same documents.

    Attributes
    ----------
    spread : pandas.DataFrame
        One row per sketch and union-size range: ``sketch`` (str), ``union`` (str, the
        range), ``pairs`` (int64, pair × seed estimates), ``mean_error`` (float64, mean of
        estimate − J), ``spread`` (float64, root mean square of (estimate − J) /
        √(J(1 − J)/k)), ``expected`` (float64, 1 for MinHash, √α(k, u) averaged over the
        range's pairs for SuperMinHash).
    timing : pandas.DataFrame
        One row per sketch: ``sketch``, ``seconds`` (float64, wall time to sign every
        document from its text: the best of two timings on the first documents up to
        :data:`TIMING_BYTES`, scaled to all), ``mb_per_s`` (float64, UTF-8 MB of text a
        second in those timings).
    quality : pandas.DataFrame
        One row per sketch and seed: ``sketch``, ``seed`` (int64), ``candidates``,
        ``recall``, ``precision``, ``accepted``, ``recall_filtered``,
        ``precision_filtered`` (of banding b × r and the estimate filter at t, against the
        exact pairs; among the signed documents).
    seeds : int
    signed : int
        Documents the spread and quality were measured on: all of them, or a seeded
        random subset (:data:`MAX_SIGNED_SHINGLES`).
    """

    spread: pd.DataFrame
    timing: pd.DataFrame
    quality: pd.DataFrame
    seeds: int
    signed: int = 0


def _subset(flat, valid: np.ndarray, budget: int, seed: int):
    """Documents to sign (int64, ascending) and their shingles as FlatShingles: all of
    them when their distinct shingles are at most ``budget``, else a seeded random subset
    of the valid ones whose shingles fit ``budget`` (at least two documents)."""
    counts = np.diff(flat.doc_offsets)
    if int(counts.sum()) <= budget:
        return np.arange(counts.shape[0], dtype=np.int64), flat
    order = np.random.default_rng(seed).permutation(np.flatnonzero(valid))
    fits = int(np.searchsorted(np.cumsum(counts[order]), budget, side="right"))
    docs = np.sort(order[: max(fits, 2)]).astype(np.int64)
    return docs, take_documents(flat, docs)


def _inside(pairs: pd.DataFrame, docs: np.ndarray, n: int) -> pd.DataFrame:
    """The pairs with both documents in ``docs``, renumbered to positions in ``docs``."""
    local = np.full(n, -1, np.int64)
    local[docs] = np.arange(docs.shape[0])
    i, j = local[pairs["i"].to_numpy(np.int64)], local[pairs["j"].to_numpy(np.int64)]
    keep = (i >= 0) & (j >= 0)
    out = pairs[keep].copy()
    out["i"], out["j"] = i[keep], j[keep]
    return out.reset_index(drop=True)


def _union_label(lo: float, hi: float) -> str:
    return f"{lo:,.0f} or more" if np.isinf(hi) else f"{lo:,.0f} – {hi - 1:,.0f}"


def _spread_rows(name, est, jac, union, k) -> list[dict]:
    z = (est - jac) / np.sqrt(jac * (1.0 - jac) / k)
    rows = []
    for lo, hi in itertools.pairwise(UNION_EDGES):
        keep = (union >= lo) & (union < hi)
        if not keep.any():
            continue
        if name == "superminhash":
            us, inv = np.unique(np.maximum(np.rint(union[keep]), 2).astype(np.int64),
                                return_inverse=True)  # fmt: skip
            alpha = np.array([variance_factor(k, int(u)) for u in us.tolist()])[inv]
            expected = float(np.sqrt(alpha.mean()))
        else:
            expected = 1.0
        rows.append({
            "sketch": SKETCH_NAMES[name],
            "union": _union_label(lo, hi),
            "pairs": int(keep.sum()),
            "mean_error": float((est - jac)[keep].mean()),
            "spread": float(np.sqrt(np.mean(z[keep] ** 2))),
            "expected": expected,
        })  # fmt: skip
    return rows


def compare_sketches(
    texts, flat, sample: pd.DataFrame, exact: pd.DataFrame, valid: np.ndarray, settings,
    *, seeds: int = 4,
) -> SketchComparison:  # fmt: skip
    """Classic MinHash and SuperMinHash on the same documents and settings.

    Parameters
    ----------
    texts : list of str, length n
        The documents (for the signing time).
    flat : nearsim.hashing.FlatShingles
        Their distinct shingles (the ``shingles`` stage's ``.flat``).
    sample : pandas.DataFrame
        Pairs i, j, jaccard of known exact similarity (the ``sample`` stage).
    exact : pandas.DataFrame
        Every pair with J ≥ t (the ``exact`` stage).
    valid : ndarray of bool, shape (n,)
        Documents that may pair (the ``valid`` stage).
    settings : RunSettings
        Shingling options, ``num_perm``, ``hash_seed``, ``bands``, ``rows``, ``threshold``.
    seeds : int
        Hash seeds ``hash_seed``, ``hash_seed + 1``, …: 1 to 16.

    Returns
    -------
    SketchComparison
    """
    seeds = check_int(seeds, "seeds", low=1, high=16)
    k, b, r, t = settings.num_perm, settings.bands, settings.rows, settings.threshold
    n = flat.n_docs
    docs, flat = _subset(flat, valid, MAX_SIGNED_SHINGLES, seed=0)
    if docs.shape[0] < n:
        sample, exact = _inside(sample, docs, n), _inside(exact, docs, n)
        valid = valid[docs]
    sizes = np.diff(flat.doc_offsets).astype(np.float64)
    pairs = sample[(sample["jaccard"] > 0) & (sample["jaccard"] < 1)]
    if len(pairs) > MAX_PAIRS:
        pairs = pairs.iloc[np.linspace(0, len(pairs) - 1, MAX_PAIRS).astype(np.int64)]
    pi, pj = pairs["i"].to_numpy(np.int64), pairs["j"].to_numpy(np.int64)
    jac = pairs["jaccard"].to_numpy(np.float64)
    union = (sizes[pi] + sizes[pj]) / (1.0 + jac)
    options = settings.shingle_options()
    sizes_mb = np.array([len(x.encode("utf-8", "surrogatepass")) for x in texts]) / 1e6
    megabytes = float(sizes_mb.sum())
    timed = max(1, int(np.searchsorted(np.cumsum(sizes_mb), TIMING_BYTES / 1e6, "right")))
    timed_texts, timed_mb = texts[:timed], float(sizes_mb[:timed].sum())
    spread, timing, quality = [], [], []
    for name in SKETCH_NAMES:
        ests = []
        for s in range(seeds):
            seed = (settings.hash_seed + s) % 2**64
            sig = MinHasher(k, seed, sketch=name).signatures(flat)
            ests.append((sig[pi] == sig[pj]).mean(axis=1))
            cand = candidate_pairs(sig, b, r, valid=valid)
            ev = evaluate(exact, cand, estimate_pairs(sig, cand), t)
            quality.append({
                "sketch": SKETCH_NAMES[name], "seed": seed, "candidates": ev.candidates,
                "recall": ev.recall, "precision": ev.precision, "accepted": ev.accepted,
                "recall_filtered": ev.recall_filtered,
                "precision_filtered": ev.precision_filtered,
            })  # fmt: skip
        spread += _spread_rows(name, np.concatenate(ests), np.tile(jac, seeds),
                               np.tile(union, seeds), k)  # fmt: skip
        hasher = MinHasher(k, settings.hash_seed, sketch=name)
        best = np.inf
        for _ in range(2):
            t0 = time.perf_counter()
            hasher.text_signatures(timed_texts, **options)
            best = min(best, time.perf_counter() - t0)
        scaled = best * megabytes / timed_mb if timed_mb > 0 else best
        timing.append({"sketch": SKETCH_NAMES[name], "seconds": scaled,
                       "mb_per_s": timed_mb / best if best > 0 else np.nan})  # fmt: skip
    spread_cols = ["sketch", "union", "pairs", "mean_error", "spread", "expected"]
    return SketchComparison(
        spread=pd.DataFrame(spread, columns=spread_cols),
        timing=pd.DataFrame(timing, columns=["sketch", "seconds", "mb_per_s"]),
        quality=pd.DataFrame(quality),
        seeds=seeds,
        signed=int(docs.shape[0]),
    )
