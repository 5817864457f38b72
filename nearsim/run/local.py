"""Apply settings to a whole corpus on one machine, in bounded memory: ``nearsim dedup``.

The stages, in order (:func:`dedup`):

1. **Read and sign.** The corpus is read in batches (:func:`nearsim.iter_corpus`); each
   batch gets the validity mask, the MinHash signatures and the copy key of every
   document (:func:`sign_batch`), and only those are kept: 4·k + 17 bytes a document
   (about 530 MB for a million documents at k = 128), never the texts.
2. **Exact copies** (:func:`nearsim.copies.copy_pairs`): documents whose normalised texts
   are the same are linked to their first occurrence, and only that one enters banding.
3. **Bands** (:func:`nearsim.candidate_pairs`, one band at a time, pairs as 64-bit codes)
   among distinct documents, with a bucket limit: a bucket of more than
   ``bucket_limit`` documents gives its first member's pairs and each member's pair with
   the next, so no bucket costs more than linear work.
4. **Verify**: each candidate's MinHash estimate; with ``verify="exact"`` the corpus is read
   again and the exact Jaccard computed from the shingles of the documents in a candidate.
5. **Clusters** (:func:`nearsim.clustering.check_against_kept`): the connected components of
   the accepted pairs, each document's similarity to its cluster's kept document, and with
   ``cluster_check`` the members below the threshold taken out and clustered again.

``group_field`` counts documents and removals per value of a field; ``keep_apart`` names a
field two documents must not share (non-empty) to be accepted as a pair
(:mod:`nearsim.run.fields`).
"""

from __future__ import annotations

import numpy as np

from nearsim.banding import TooManyPairsError, candidate_codes, code_pairs, merge_distinct
from nearsim.clustering import check_against_kept
from nearsim.copies import copy_pairs
from nearsim.hashing import text_shingles
from nearsim.io.corpora import iter_corpus
from nearsim.minhash import agreement_counts, estimate_pairs, reaching
from nearsim.run.fields import FieldCodes, apart_pairs, removed_by_group
from nearsim.run.options import (
    BUCKET_LIMIT,
    MAX_CANDIDATES,
    VERIFY,
    check_paths,
    run_settings,
    too_many_candidates,
)
from nearsim.run.progress import Clock
from nearsim.run.result import DedupResult, IdColumn
from nearsim.run.signing import load_kernels, sign_batch
from nearsim.settings import RunSettings
from nearsim.utils.arrays import GrowingRows, unique_int
from nearsim.utils.validation import check_bool, check_choice, check_int


def dedup(
    paths,
    settings: RunSettings | None = None,
    *,
    text_field: str = "text",
    id_field: str | None = None,
    verify: str = "estimate",
    cluster_check: bool = False,
    on_error: str = "fail",
    batch_size: int = 10_000,
    max_candidates: int = MAX_CANDIDATES,
    bucket_limit: int = BUCKET_LIMIT,
    progress: bool = False,
    group_field: str | None = None,
    keep_apart: str | None = None,
) -> DedupResult:
    """Find the near-duplicate pairs and clusters of a whole corpus.

    Parameters
    ----------
    paths : path or list of paths
        Files or folders, as :func:`nearsim.iter_corpus` reads them.
    settings : RunSettings, optional
        Shingling, MinHash, banding and threshold (defaults: ``RunSettings()``); a
        ``Settings`` gives its run part.
    text_field, id_field, on_error, batch_size
        As for :func:`nearsim.iter_corpus`.
    verify : {"estimate", "exact", "none"}
        Which candidates are accepted: MinHash estimate ≥ threshold, exact Jaccard ≥
        threshold (the corpus is read again for the candidates' shingles), or all.
    cluster_check : bool
        Compare every member of a cluster with its kept document (the estimate, or the
        exact Jaccard with ``verify="exact"``); members below the threshold leave and are
        clustered again among themselves.
    max_candidates : int
        Memory guard: a run whose banding would give more distinct candidate pairs
        stops (``TooManyPairsError``) before allocating them.
    bucket_limit : int
        Buckets of more distinct documents give only 2m − 3 pairs
        (:func:`nearsim.candidate_pairs`).
    progress : bool
        Print each stage and progress on stderr.
    group_field : str, optional
        A field whose values group the documents (a source, a site): ``summary.json``
        gets ``removed_by_group``, documents and removals per value.
    keep_apart : str, optional
        A field two documents must not share: a candidate pair whose documents have the
        same non-empty value is never accepted, whatever its similarity (pages that
        declare each other translations). A document with a value is never linked as an
        exact copy; it is banded like any other, so that the rule applies to its pairs.

    Returns
    -------
    DedupResult
        Equal, on the same texts, to the library's calls: ``copy_keys`` and
        ``copy_pairs``, ``candidate_pairs`` among distinct documents with the bucket limit,
        ``estimate_pairs``, the filter and ``check_against_kept`` (tested).
    """
    settings = run_settings(settings)
    verify = check_choice(verify, "verify", VERIFY)
    cluster_check = check_bool(cluster_check, "cluster_check")
    max_candidates = check_int(max_candidates, "max_candidates", low=0)
    bucket_limit = check_int(bucket_limit, "bucket_limit", low=2)
    clock = Clock(check_bool(progress, "progress"))
    paths = check_paths(paths)
    read = dict(text_field=text_field, id_field=id_field, on_error=on_error, batch_size=batch_size)
    groups = FieldCodes.of(group_field, "group_field")
    apart = FieldCodes.of(keep_apart, "keep_apart")
    fields = tuple(dict.fromkeys(f.field for f in (groups, apart) if f is not None))

    ids = IdColumn()
    sig = GrowingRows((settings.num_perm,), np.uint32)
    valid = GrowingRows((), np.bool_)
    keys = GrowingRows((2,), np.uint64)
    reader = iter_corpus(paths, **read, fields=fields)
    batches = reader.records()
    with clock.stage("read"):
        batch = next(batches, None)  # a bad first record stops the run before any progress
    # else the first run after an install sits at "0 docs" while numba compiles
    clock.say(
        "loading the compiled kernels (the first run after an install compiles them: about "
        "10 s on two cores)…"
    )
    load_kernels(settings)
    with clock.bar("documents read and signed", "docs") as bar:
        while batch is not None:
            batch_ids, batch_texts, batch_fields = batch
            for codes in (groups, apart):
                if codes is not None:
                    codes.extend(batch_fields[codes.field])
            with clock.stage("signatures"):
                valid_part, sig_part, key_part = sign_batch(batch_texts, settings)
                valid.append(valid_part)
                sig.append(sig_part)
                keys.append(key_part)
            ids.extend(batch_ids)
            bar.update(len(batch_texts))
            with clock.stage("read"):
                batch = next(batches, None)
    valid, sig = valid.array(), sig.array()
    apart_codes = apart.array() if apart is not None else None
    with clock.stage("copies", "linking exact copies to their first occurrence"):
        # a document with a keep-apart value is banded, so that the rule sees its pairs
        linkable = valid if apart_codes is None else valid & (apart_codes < 0)
        links = copy_pairs(keys.array(), linkable)
        del keys  # before banding: the run's peak
    codes, counts = find_pairs(sig, valid, links, settings, max_candidates, bucket_limit, clock)
    n, candidates = valid.shape[0], int(codes.shape[0])
    exact = None
    jaccard = None
    with clock.stage("verify", f"verifying {candidates:,} candidates ({verify})"):
        if verify == "estimate":
            keep = reaching(counts, settings.num_perm, settings.threshold)
        elif verify == "exact":
            exact = ExactShingles.read(paths, read, settings, code_pairs(codes, n))
            jaccard = exact.jaccard(codes // n, codes % n)
            keep = jaccard >= settings.threshold
        else:
            keep = np.ones(candidates, dtype=bool)
        kept_apart = 0
        if apart_codes is not None:
            together = apart_pairs(apart_codes, codes // n, codes % n)
            kept_apart = int(np.count_nonzero(keep & together))
            keep &= ~together
    pairs = code_pairs(codes[keep], n)
    est = counts[keep] / np.float64(settings.num_perm)
    if jaccard is not None:
        jaccard = jaccard[keep]
    del codes, counts, keep  # the candidates: hundreds of MB at 10⁷ documents
    what = "clustering and checking members" if cluster_check else "clustering"
    with clock.stage("clusters", f"{what}: {pairs.shape[0]:,} pairs"):
        similarity = exact.jaccard if exact is not None else _estimates(sig)
        check = check_against_kept(
            len(ids), pairs, similarity, settings.threshold if cluster_check else None
        )
    extra: dict = {}
    if groups is not None:
        extra["group_field"] = groups.field
        extra["removed_by_group"] = removed_by_group(groups, check.labels)
    if apart is not None:
        extra["keep_apart"] = apart.field
        extra["kept_apart"] = kept_apart
    return DedupResult(
        settings=settings,
        ids=ids,
        valid=valid,
        labels=check.labels,
        candidates=candidates,
        pairs=pairs,
        estimates=est,
        jaccard=jaccard,
        verify=verify,
        similarity=check.similarity,
        exact_duplicates=int(links.shape[0]),
        split_off=int(check.split_off.sum()),
        cluster_check=cluster_check,
        seconds=clock.seconds,
        read_report=reader.report.summary(),
        cpu_seconds=clock.cpu,
        extra=extra,
    )


def find_pairs(sig, valid, links, settings, max_candidates, bucket_limit, clock):
    """Stage 3: band candidates among distinct documents (``valid`` without the later copy
    of each of ``links``), joined to the copies' links, and the estimates of both.

    Returns
    -------
    codes : ndarray of int64, shape (m,)
        The candidates as sorted pair codes ``i · n + j``: each copy's link and the band
        candidates (8 bytes a candidate until the filter keeps a few).
    counts : ndarray of uint16, shape (m,)
        Their agreeing signature positions (the estimate is ``counts / num_perm``).
    """
    n = valid.shape[0]
    distinct = valid.copy()
    distinct[links[:, 1]] = False
    with clock.stage("bands", f"banding: {settings.bands} bands × {settings.rows} rows"):
        try:
            codes = candidate_codes(
                sig,
                settings.bands,
                settings.rows,
                valid=distinct,
                max_pairs=max_candidates,
                bucket_limit=bucket_limit,
            )
        except TooManyPairsError:
            raise TooManyPairsError(too_many_candidates(max_candidates)) from None
        del distinct
        codes = merge_distinct(codes, links[:, 0] * np.int64(n) + links[:, 1])
        counts = agreement_counts(sig, codes)
    return codes, counts


def _estimates(sig: np.ndarray):
    """The MinHash estimate of pairs of rows, as :func:`check_against_kept` asks for it."""

    def similarity(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return estimate_pairs(sig, np.stack([a, b], axis=1))

    return similarity


class ExactShingles:
    """The shingles of the documents in some pairs, read again, for exact Jaccard.

    Attributes
    ----------
    rows : ndarray of int64, shape (u,)
        The documents held, sorted.
    flat : FlatShingles
        Their distinct shingles (``flat`` document d is ``rows[d]``).
    """

    def __init__(self, rows: np.ndarray, flat) -> None:
        from nearsim.join.overlap import OrderedShingles

        self.rows = rows
        self.flat = flat
        self._ordered = OrderedShingles(flat, np.arange(rows.shape[0], dtype=np.int64))

    @classmethod
    def read(cls, paths, read: dict, settings: RunSettings, pairs: np.ndarray) -> ExactShingles:
        """Read the corpus again and shingle the documents of ``pairs`` (shape (m, 2))."""
        involved = unique_int(pairs.ravel())
        texts: list[str] = []
        row = 0
        for _, batch in iter_corpus(paths, **read).lists():
            lo, hi = np.searchsorted(involved, [row, row + len(batch)])
            texts.extend(batch[t - row] for t in involved[lo:hi].tolist())
            row += len(batch)
        return cls(involved, text_shingles(texts, **settings.shingle_options()))

    def jaccard(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Exact Jaccard of the pairs (a[t], b[t]) of held rows; float64, shape (m,)."""
        from nearsim.join.overlap import jaccard

        first, second = np.searchsorted(self.rows, a), np.searchsorted(self.rows, b)
        inter, sizes = self._ordered.overlaps(first, second), self._ordered.sizes
        return jaccard(inter, sizes[first], sizes[second])
