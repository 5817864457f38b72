"""Measure a finished deduplication against exact Jaccard: :func:`audit_labels`.

One pass over the corpus (two for another tool's table: the first reads the ids), in
batches, with the run's shingling; the texts of only the documents the samples need are
parsed (:func:`nearsim.io.wanted.read_rows`), every other line of a JSON lines corpus is
only counted. Before it, two simple random samples are drawn
(seeded):

* **precision**: ``sample`` (N) of the removed documents. Each is compared exactly with its
  cluster's kept document (the smallest row: it comes first in the stream, and its hash
  set is held until its sampled members have passed).
* **recall**: s documents of the corpus (the *recall sample* S), s the
  smallest with s(s − 1) ≥ N(n − 1): every pair of the corpus is then in S with
  probability π₂ = s(s − 1) / (n(n − 1)) ≥ N / n, the chance it had in the earlier design
  (N anchors against every document), so S holds about as many pairs as N anchors met
  there — √(N·n) documents, 44,722 of 10⁶ for N = 2,000. S's hash sets are kept as the
  pass goes; after it (:mod:`nearsim.audit.pairs`) every pair of S with J at or above a
  floor (the edge of t's 0.05 band: 0.8 for t = 0.8) is found by nearsim's exact
  similarity join, and 100,000 pairs of S drawn uniformly place the rest of the range.
  Recall is F / T over the pairs of S with J ≥ t (found / true), its interval from the
  variance of a sum over the pairs of a sample
  (:func:`nearsim.audit.estimates.pair_ratio_interval`); each pair of S stands for 1 / π₂
  pairs of the corpus (a drawn one for C(s, 2) / 100,000 pairs of S besides). A lower
  floor lists more of the range but costs more: the join's candidates grow quickly as
  the floor falls.

Why pairs inside a sample rather than N anchors against every document: for the same
chance π₂ per pair, scanning anchors against every document reads, normalises and hashes
all n documents, and √(N·n) documents met pairwise are the fewest that give it (a fraction
f of the documents against m anchors gives each pair the chance f·m / n at a cost of about
m + f·n documents, least at m = f·n = √(N·n)). So every document is counted (and its group
or keep-apart field read), but only S, the precision sample, the kept documents they need
and the largest clusters' members are normalised and hashed. Duplicates that come in
pairs give the same interval width either way; duplicates in large clusters give a
narrower one here, since a cluster is met through many distinct pairs of its members.

The largest clusters are read whole: every member of the twenty largest is compared with
its kept document, giving each cluster's least similar member.
"""

from __future__ import annotations

import math
import time

import numpy as np
from numba import njit

from nearsim.audit.estimates import pair_ratio_interval, proportion_interval
from nearsim.audit.pairs import DRAWN_PAIRS, sample_pairs
from nearsim.audit.tokens import flat_tokens
from nearsim.hashing import flatten_texts
from nearsim.join.sample import BAND_WIDTH, N_BANDS
from nearsim.utils.arrays import pack_segments, sorted_overlap

__all__ = ["DRAWN_PAIRS", "LARGEST", "audit_labels", "recall_sample_size"]

LARGEST = 20
"""Clusters read whole for their least similar member."""
GROUP_DOCUMENTS = 20_000
GROUP_CHARACTERS = 1 << 26
"""Sampled documents are normalised and hashed in groups of this many documents or
characters (whichever comes first): one call per group costs far less than one per batch."""
SHOWN_TEXT = 2_000
"""Characters of a document kept for the report's side-by-side."""
STAGES = ("read", "normalise", "hash sets", "pairs", "precision")
"""The pass's stages, each with the CPU seconds it took (``cpu_seconds``): reading the
corpus, normalising the texts the samples need, their sorted hash sets, the recall
sample's pairs (:func:`nearsim.audit.pairs.sample_pairs`, after the pass), and the
precision sample and largest clusters against their kept documents."""


def recall_sample_size(sample: int, n: int) -> int:
    """The recall sample's size: the smallest s with s(s − 1) ≥ sample·(n − 1), at most n.

    Examples
    --------
    >>> recall_sample_size(2000, 1_000_000), recall_sample_size(150, 600)
    (44722, 301)
    """
    if sample >= n:
        return n
    need = sample * (n - 1)
    s = max(2, math.isqrt(need))
    while s * (s - 1) < need:
        s += 1
    while s > 2 and (s - 1) * (s - 2) >= need:
        s -= 1
    return min(s, n)


@njit(cache=True)
def _to_kept(tok, off, docs, ktok, koff, kdoc):
    """J(document docs[i], kept kdoc[i]) for each i; float64."""
    out = np.empty(docs.shape[0])
    for i in range(docs.shape[0]):
        d, k = docs[i], kdoc[i]
        x = tok[off[d] : off[d + 1]]
        y = ktok[koff[k] : koff[k + 1]]
        inter = sorted_overlap(x, y)
        union = x.shape[0] + y.shape[0] - inter
        out[i] = inter / union if union else 1.0
    return out


def audit_labels(
    read,
    labels: np.ndarray,
    shingle_options: dict,
    threshold: float,
    *,
    sample: int = 2000,
    seed: int = 0,
    floor: float | None = None,
    progress=None,
) -> dict:
    """The audit's measurements for cluster labels over a corpus read in batches.

    Parameters
    ----------
    read : callable
        ``read(wanted)`` (``wanted``: bool, shape (n,), the rows whose text the samples
        need) returns the corpus in row order as :class:`nearsim.io.wanted.Rows`
        (:func:`nearsim.io.wanted.read_rows`): the wanted rows' texts, every row counted,
        the further fields (``every``) of every row.
    labels : ndarray of int64, shape (n,)
        Each row's cluster as the smallest row in it.
    shingle_options : dict
        The run's shingling (:meth:`nearsim.RunSettings.shingle_options`).
    threshold : float
        t: J ≥ t is a true duplicate pair.
    sample : int
        N: removed documents checked for precision; the recall sample holds the smallest s
        with s(s − 1) ≥ N(n − 1) documents (see the module text).
    seed : int
        Seed of both samples and of the drawn pairs.
    floor : float, optional
        Where listing every pair of the recall sample starts, a multiple of 0.05 ≤ t (default: the
        edge of t's band).
    progress : callable, optional
        Called with the rows read so far.

    Returns
    -------
    dict
        ``precision``, ``recall``, ``by_similarity``, ``giant`` (the largest clusters, with
        texts), ``precision_sample``, ``missed`` (pairs at J ≥ t in different clusters),
        ``fields`` (each further field's values per row), ``sample``.
    """
    n = labels.shape[0]
    rows_all = np.arange(n, dtype=np.int64)
    removed_rows = np.flatnonzero(labels != rows_all)
    rng = np.random.default_rng(seed)
    prec_rows = np.sort(rng.choice(removed_rows, min(sample, removed_rows.shape[0]), replace=False))
    anchors = np.zeros(n, dtype=bool)
    anchors[rng.choice(n, recall_sample_size(sample, n), replace=False)] = True
    anchor_rows = np.flatnonzero(anchors)
    sizes = np.bincount(labels, minlength=n)
    big = np.flatnonzero(sizes >= 2)
    big = big[np.lexsort((big, -sizes[big]))][:LARGEST]
    in_big = np.zeros(n, dtype=bool)
    in_big[big] = True
    member_of_big = in_big[labels]
    needed = np.zeros(n, dtype=bool)
    needed[labels[prec_rows]] = True
    needed[big] = True
    is_prec = np.zeros(n, dtype=bool)
    is_prec[prec_rows] = True

    if floor is None:  # t's band edge: every pair at J >= t is listed, the rest drawn
        floor = max(math.floor(threshold / BAND_WIDTH + 1e-9) * BAND_WIDTH, BAND_WIDTH)
    m = anchor_rows.shape[0]  # s, the recall sample's size
    s_tok: list[np.ndarray] = []  # the recall sample's hash sets, batch by batch
    s_off: list[np.ndarray] = [np.zeros(1, dtype=np.int64)]

    kept_tok: dict[int, np.ndarray] = {}
    kept_text: dict[int, str] = {}
    prec_sim = np.full(prec_rows.shape[0], np.nan)
    prec_at = {int(r): i for i, r in enumerate(prec_rows.tolist())}
    prec_text: dict[int, str] = {}
    least = {int(c): (1.0, int(c), "") for c in big.tolist()}  # cluster: (J, row, text)
    fields: dict[str, list[str]] = {}
    start = scanned = 0
    cpu = dict.fromkeys(STAGES, 0.0)
    last = [time.process_time()]

    def lap(stage: str) -> None:
        now = time.process_time()
        cpu[stage] += now - last[0]
        last[0] = now

    def process(rows_g: np.ndarray, texts_g: list[str]) -> None:
        """Hash a group of sampled documents (in row order) and compare the precision
        sample and the largest clusters' members with their kept documents."""
        nonlocal scanned
        flat = flatten_texts(texts_g, **shingle_options)
        lap("normalise")
        tok, off = flat_tokens(flat)
        mine = np.flatnonzero(anchors[rows_g])  # the group's part of S
        if mine.shape[0]:
            packed = np.zeros(mine.shape[0] + 1, dtype=np.int64)
            np.cumsum(off[mine + 1] - off[mine], out=packed[1:])
            s_tok.append(pack_segments(tok, off[mine], packed))
            s_off.append(packed[1:] + s_off[-1][-1])
        scanned += rows_g.shape[0]
        lap("hash sets")
        lab = labels[rows_g]
        for d in np.flatnonzero(needed[rows_g]).tolist():
            kept_tok[int(rows_g[d])] = tok[off[d] : off[d + 1]].copy()
            kept_text[int(rows_g[d])] = texts_g[d][:SHOWN_TEXT]
        # precision sample and the largest clusters' members, against their kept document
        local = np.flatnonzero((is_prec[rows_g] | member_of_big[rows_g]) & (lab != rows_g))
        if local.shape[0]:
            kept_rows = lab[local]
            order = {int(k): i for i, k in enumerate(np.unique(kept_rows).tolist())}
            parts = [kept_tok[k] for k in order]
            koff = np.zeros(len(parts) + 1, dtype=np.int64)
            np.cumsum([p.shape[0] for p in parts], out=koff[1:])
            ktok = np.concatenate(parts) if parts else np.empty(0, np.uint64)
            kdoc = np.array([order[int(k)] for k in kept_rows.tolist()], dtype=np.int64)
            sim = _to_kept(tok, off, local, ktok, koff, kdoc)
            for d, s, k in zip(local.tolist(), sim.tolist(), kept_rows.tolist(), strict=True):
                row = int(rows_g[d])
                if row in prec_at:
                    prec_sim[prec_at[row]] = s
                    if s < threshold:  # shown in the report beside its kept document
                        prec_text[row] = texts_g[d][:SHOWN_TEXT]
                if k in least and s < least[k][0]:
                    least[k] = (s, row, texts_g[d][:SHOWN_TEXT])
        lap("precision")

    # only the documents a sample needs are read, gathered into groups (fewer, larger
    # calls): the recall sample, the precision sample, the kept documents they are compared
    # with, the largest clusters' members
    wanted = anchors | needed | is_prec | member_of_big
    group_rows: list[np.ndarray] = []
    group_texts: list[str] = []
    group_chars = 0
    for part in read(wanted):
        if start + part.count > n:
            raise ValueError(
                f"the corpus has more than the run's {n:,} documents; accepted: the corpus "
                "the run read, in the same order"
            )
        for name, values in part.every.items():
            fields.setdefault(name, []).extend(values)
        group_rows.append(part.rows)
        group_texts += part.texts
        group_chars += sum(map(len, part.texts))
        start += part.count
        if progress is not None:
            progress(start)
        lap("read")
        if len(group_texts) >= GROUP_DOCUMENTS or group_chars >= GROUP_CHARACTERS:
            process(np.concatenate(group_rows), group_texts)
            group_rows, group_texts, group_chars = [], [], 0
    lap("read")
    if group_texts:
        process(np.concatenate(group_rows), group_texts)
    if start != n:
        raise ValueError(
            f"the corpus has {start:,} documents and the run {n:,}; accepted: the corpus the "
            "run read, in the same order"
        )

    ok = int(np.count_nonzero(prec_sim >= threshold))
    precision = proportion_interval(ok, prec_rows.shape[0], removed_rows.shape[0])
    s_all = np.concatenate(s_tok) if s_tok else np.empty(0, np.uint64)
    s_tok.clear()  # the parts are not held beside their concatenation (8 M hashes: 66 MB)
    pairs = sample_pairs(s_all, np.concatenate(s_off), labels[anchor_rows], anchor_rows, threshold,
                         floor, seed)  # fmt: skip
    lap("pairs")
    recall = pair_ratio_interval(pairs["found"], pairs["true"], m, n)
    listed, drawn = pairs["listed"], pairs["drawn"]
    weight = n * (n - 1) / (m * (m - 1)) if m >= 2 else 0.0  # 1 / π₂
    per_band = (listed + drawn * pairs["drawn_weight"]) * weight  # (20, 2): apart, together
    by_similarity = [
        {
            "low": round(k * BAND_WIDTH, 2),
            "pairs": float(per_band[k].sum()),
            "together": float(per_band[k, 1]),
            "sampled": int(listed[k].sum() + drawn[k].sum()),
        }
        for k in range(N_BANDS)
    ]
    giant = [
        {
            "cluster": int(c),
            "size": int(sizes[c]),
            "min_similarity_to_kept": float(least[int(c)][0]),
            "least_similar_row": int(least[int(c)][1]),
            "kept_text": kept_text.get(int(c), ""),
            "least_similar_text": least[int(c)][2],
        }
        for c in big.tolist()
    ]
    missed = [
        {"a": int(a), "b": int(x), "jaccard": inter / union}
        for a, x, inter, union in pairs["missed"][:50].tolist()
    ]
    order = np.argsort(prec_sim, kind="stable")
    worst_removed = [
        {
            "row": int(prec_rows[i]),
            "kept": int(labels[prec_rows[i]]),
            "jaccard": float(prec_sim[i]),
            "text": prec_text.get(int(prec_rows[i])),
            "kept_text": kept_text.get(int(labels[prec_rows[i]])),
        }
        for i in order[:20].tolist()
        if prec_sim[i] < threshold
    ]
    pairs_checked = pairs["verified"] + prec_rows.shape[0]
    return {
        "precision": precision,
        "precision_counts": (ok, int(prec_rows.shape[0]), int(removed_rows.shape[0])),
        "recall": recall,
        "recall_counts": (int(pairs["found"].sum()) // 2, int(pairs["true"].sum()) // 2, m),
        "by_similarity": by_similarity,
        "floor": floor,
        "q": 1.0 / pairs["drawn_weight"] if pairs["drawn_weight"] else 0.0,
        "giant": giant,
        "missed": missed,
        "worst_removed": worst_removed,
        "fields": fields,
        "cpu_seconds": {k: round(v, 3) for k, v in cpu.items()},
        "sample": {
            "pairs": pairs_checked,
            "documents": int(np.count_nonzero(anchors | is_prec)),
            "anchors": m,
            "removed_checked": int(prec_rows.shape[0]),
            "hashed": scanned,
            "seed": seed,
        },
    }
