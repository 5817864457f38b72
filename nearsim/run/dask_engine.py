"""``nearsim dedup --engine dask``: the same stages as the local engine, over partitions, on a
Dask cluster, with the same output.

The stages, and where each runs:

1. **Read and sign** (workers, one task per partition): the corpus is cut into partitions
   of about ``blocksize`` bytes — whole files, byte ranges of a plain JSON lines file, runs
   of Parquet row groups (:mod:`nearsim.run.dask_read` says how rows and ids stay the local
   engine's) — and each task runs the pipeline's row stages (:data:`nearsim.pipeline.
   ROW_STAGES`: shingles, the validity mask, MinHash signatures) on its documents, a
   batch at a time. The signatures stay in the workers' memory; the client receives the
   counts, the reader's report and the first bad record's message.
2. **Bands** (workers): one record (band key, band, row) per band of every valid
   document, shuffled by key with ``dask.dataframe``'s shuffle (P2P on a distributed
   cluster), so every bucket is whole in one partition; each partition turns its buckets
   into pair codes ``i · n + j`` (int64 arrays, never a Python object per pair). The codes
   are then range-partitioned by their first document (``set_index`` with the row ranges
   of the signature partitions as divisions): repeats from several bands meet and are
   dropped, and each candidate lands beside its first document's signature.
3. **Verify** (workers): each candidate takes its first document's signature (and, for
   ``verify="exact"``, its text, read again) and is range-partitioned by its second
   document; there the two signatures are compared band by band value by value (a 64-bit
   key collision never makes a candidate), the MinHash estimate computed, and the filter
   applied — the exact Jaccard from both documents' shingles with ``verify="exact"``
   (``nearsim.join.exact.pair_jaccard``).
4. **Clusters, sizes and the output** (workers, :mod:`nearsim.run.dask_clusters`): the
   connected components of the accepted pairs by large-star / small-star
   (:mod:`nearsim.run.dask_components`), each member's similarity to its cluster's kept
   document (the same join as verification), the member check's rounds, cluster sizes;
   then each partition writes its rows of ``clusters`` and ``pairs`` as a Parquet (or
   CSV, JSON lines) part.

The client holds futures, the plan and counts: nothing with a value per document. The
output folders are renamed into place when every part is written, ``summary.json`` last.
Without an output folder (the library call), the parts are gathered into a
:class:`nearsim.run.result.DedupResult` instead. Every task is a pure function of its
inputs, so when a worker dies Dask recomputes what it held (tested for each stage:
reading, the band shuffle, verification, clustering). When the client dies, a run started
again with the same input, options and output folder takes up the completed stages kept in
``OUT/.nearsim-work`` (:mod:`nearsim.run.dask_resume`: signatures per partition, then the
verified pairs, then the clusters).

Why this way:

- *DataFrame shuffles, not a bag's* ``foldby``: a bag holds Python objects, so grouping
  (key, row) records would make and pickle a tuple per band of every document; a
  DataFrame partition is a few arrays, moved by the P2P shuffle in Arrow batches, and a
  range shuffle (``set_index`` with known divisions) lands each partition exactly beside
  the signatures it needs.
- *Candidates travel to the signatures*, not signature partitions to the candidates:
  near duplicates are scattered across a corpus, so the candidates of one partition point
  into nearly every other, and shipping partitions would move each one to every worker;
  shuffling candidates moves 8 bytes a code, then ``4 · num_perm`` bytes a candidate once.
- *The second document's signature is never shipped*: each candidate is verified where
  that document lives, so one signature travels per candidate, not two.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from nearsim.banding import TooManyPairsError
from nearsim.io.corpora import iter_corpus
from nearsim.run import dask_clusters as dc
from nearsim.run import dask_output as dw
from nearsim.run import dask_pairs as dp
from nearsim.run import dask_read as dr
from nearsim.run import dask_resume as dk
from nearsim.run.dask_connect import connect as _connect
from nearsim.run.dask_connect import local_cluster  # noqa: F401  (public here too)
from nearsim.run.dask_output import WrittenRun
from nearsim.run.fields import FieldCodes
from nearsim.run.options import (
    BUCKET_LIMIT,
    FORMATS,
    MAX_CANDIDATES,
    VERIFY,
    check_paths,
    run_settings,
    too_many_candidates,
)
from nearsim.run.progress import Clock
from nearsim.run.result import DedupResult
from nearsim.settings import RunSettings
from nearsim.utils.validation import check_bool, check_choice, check_float, check_int, check_str

DEFAULT_BLOCKSIZE = 64 << 20
"""Bytes per partition at most, when the engine chooses (64 MiB)."""
MIN_BLOCKSIZE = 1 << 20
CONNECT_TIMEOUT = 10.0
"""Seconds to wait for a scheduler (and for its first worker)."""
MAX_DOCUMENTS = 3_037_000_499
"""Pair codes ``i · n + j`` fit in int64 up to this many documents."""


def dedup_dask(
    paths,
    settings: RunSettings | None = None,
    *,
    text_field: str = "text",
    id_field: str | None = None,
    verify: str = "estimate",
    cluster_check: bool = False,
    on_error: str = "fail",
    scheduler: str | None = None,
    workers: int = 2,
    progress: bool = False,
    blocksize: int | None = None,
    batch_size: int = 10_000,
    max_candidates: int = MAX_CANDIDATES,
    bucket_limit: int = BUCKET_LIMIT,
    timeout: float | None = None,
    out: str | os.PathLike | None = None,
    fmt: str = "parquet",
    group_field: str | None = None,
    keep_apart: str | None = None,
) -> DedupResult | WrittenRun:
    """Find the near-duplicate pairs and clusters of a corpus on a Dask cluster.

    The result equals :func:`nearsim.run.local.dedup`'s on the same input and settings: the
    same rows, ids, candidates, accepted pairs, estimates, exact Jaccard and labels. With
    ``out``, the workers write the tables there and the client holds nothing per document;
    without it, the tables are gathered into a DedupResult.

    Parameters
    ----------
    paths : path or list of paths
        Files or folders, as :func:`nearsim.iter_corpus` reads them. Every worker must
        see them at the same paths (shared storage).
    settings : Settings, optional
        Defaults to ``Settings()``.
    text_field, id_field, on_error
        As for :func:`nearsim.iter_corpus`.
    verify : {"estimate", "exact", "none"}
        As for :func:`nearsim.run.local.dedup`.
    cluster_check : bool
        As for :func:`nearsim.run.local.dedup`.
    scheduler : str, optional
        Address of a running Dask scheduler (``tcp://host:8786``). Without it, a
        ``LocalCluster`` of ``workers`` single-threaded processes is started and closed
        at the end.
    workers : int
        Worker processes of the local cluster (≥ 1).
    progress : bool
        Each stage and Dask's progress bar on stderr.
    blocksize : int, optional
        Bytes per partition, about (≥ 1). Default: the corpus's size over four tasks per
        worker thread, from 1 MiB to 64 MiB.
    batch_size : int
        Documents signed at a time in a worker.
    max_candidates : int
        Limit on the pairs one partition of band buckets may make (``TooManyPairsError``).
    bucket_limit : int
        As for :func:`nearsim.run.local.dedup`.
    timeout : float, optional
        Seconds to wait for the scheduler and for a worker (default
        :data:`CONNECT_TIMEOUT`).
    out : path, optional
        The output folder (made if missing): ``clusters.<fmt>`` and ``pairs.<fmt>`` as
        folders of parts ``part-00000.<fmt>``, … (in row order; ``pandas.read_parquet``
        reads a folder as one table; a CSV or JSON lines part each has its own header or
        records), written by the workers, and ``summary.json``, written last. Every worker
        must see the folder at the same path (shared storage).
    fmt : {"parquet", "csv", "jsonl"}
        The tables' format with ``out``.
    group_field, keep_apart : str, optional
        As for :func:`nearsim.run.local.dedup`: documents and removals per value of a
        field (``removed_by_group``), and a field two documents of an accepted pair must
        not share (``kept_apart`` counts the pairs it refused).

    Returns
    -------
    DedupResult or WrittenRun
        Without ``out``, a DedupResult; with it, a :class:`WrittenRun` (the summary and
        the files). ``seconds`` holds the wall time of each stage (connect, plan, signatures — read
        and signed in one stage —, bands, verify, clusters, gather) and the CPU time the
        workers spent reading and signing (``read_cpu``, ``signatures_cpu``, summed over
        tasks).

    Raises
    ------
    ValueError
        Bad arguments or input (as the local engine), a scheduler that cannot be reached
        (the message names its address), workers that cannot import nearsim.
    """
    settings = run_settings(settings)
    verify = check_choice(verify, "verify", VERIFY)
    cluster_check = check_bool(cluster_check, "cluster_check")
    workers = check_int(workers, "workers", low=1)
    if scheduler is not None:
        scheduler = check_str(scheduler, "scheduler")
    if blocksize is not None:
        blocksize = check_int(blocksize, "blocksize", low=1)
    limits = (
        check_int(max_candidates, "max_candidates", low=0),
        check_int(bucket_limit, "bucket_limit", low=2),
    )
    fmt = check_choice(fmt, "fmt", FORMATS)
    if out is not None:
        from nearsim.run.outputs import prepare_output

        out = prepare_output(out)  # a file there is refused before the cluster starts
    timeout = (
        CONNECT_TIMEOUT
        if timeout is None
        else check_float(timeout, "timeout", low=0, low_open=True)
    )
    clock = Clock(check_bool(progress, "progress"))
    named = [FieldCodes.of(group_field, "group_field"), FieldCodes.of(keep_apart, "keep_apart")]
    group_field, keep_apart = (None if f is None else f.field for f in named)
    fields = tuple(dict.fromkeys(f for f in (group_field, keep_apart) if f is not None))
    reader = iter_corpus(  # checks the paths, fields and on_error; expands folders
        check_paths(paths),
        text_field=text_field,
        id_field=id_field,
        batch_size=batch_size,
        on_error=on_error,
        fields=fields,
    )
    reading = dr.Reading(text_field, id_field, on_error, batch_size, fields)
    with _connect(scheduler, workers, timeout, clock) as client:
        run = _Run(client, settings, reading, verify, clock, limits)
        run.cluster_check = cluster_check
        run.group_field, run.keep_apart = group_field, keep_apart
        return run.result(reader.files, blocksize, out, fmt)


def _auto_blocksize(files: list[Path], client) -> int:
    threads = sum(client.nthreads().values())
    total = sum(p.stat().st_size for p in files)
    return int(min(DEFAULT_BLOCKSIZE, max(MIN_BLOCKSIZE, total // (4 * max(threads, 1)))))


# -- the run -------------------------------------------------------------------------------
class _Run:
    """One dedup run on a client: the stages in order, their futures, their timings."""

    cluster_check = False
    group_field: str | None = None
    keep_apart: str | None = None

    def __init__(self, client, settings, reading, verify, clock, limits):
        self.client = client
        self.settings = settings
        self.reading = reading
        self.verify = verify
        self.clock = clock
        self.max_pairs, self.bucket_limit = limits
        self.copies = 0
        self.kept_apart = 0

    def _submit(self, fn, *args, **kwargs):
        return self.client.submit(fn, *args, pure=False, **kwargs)

    def result(self, files: list[Path], blocksize: int | None, out: Path | None, fmt: str):
        self.read(files, blocksize or _auto_blocksize(files, self.client), out)
        exact = self.verify == "exact"
        candidates, accepted = self.verified_pairs()
        pairs = dd_from(accepted, dp.accepted_frame, dp.accepted_meta(exact))
        npairs = sum(self.client.gather([self._submit(_pair_count, f) for f in accepted]))
        what = "clustering and checking members" if self.cluster_check else "clustering"
        with self.clock.stage("clusters", f"{what}: {npairs:,} pairs"):
            root, sim, size, split_off, rounds = self.clusters(pairs, npairs)
        parts = [self.parts[i] for i in self.used]
        firsts = [self.first_record[i] for i in self.used]
        counts = self.client.gather(
            [
                self._submit(dc.cluster_counts, r, z, p, s, self.group_field)
                for r, z, p, s in zip(root, size, parts, self.starts, strict=True)
            ]
        )
        tables = {
            "clusters": [
                self._submit(dc.cluster_columns, p, f, r, z, x, s)
                for p, f, r, z, x, s in zip(parts, firsts, root, size, sim, self.starts,
                                            strict=True)
            ],
            "pairs": dw.pair_tables(self, pairs, exact),
        }
        del root, size, sim
        figures = {
            "documents": self.n,
            "without_signature": sum(c["without_signature"] for c in counts),
            "exact_duplicates": int(self.copies),
            "candidates": int(candidates),
            "pairs": int(npairs),
            "clusters": sum(c["clusters"] for c in counts),
            "removed": sum(c["removed"] for c in counts),
            "split_off": int(split_off),
            "cluster_check": bool(self.cluster_check),
        }
        extra = {
            "component_rounds": rounds,
            "workers": len(self.client.nthreads()),
            "resumed": self.resumed,
        }
        if self.group_field is not None:
            extra["group_field"] = self.group_field
            extra["removed_by_group"] = dc.merge_groups(counts)
        if self.keep_apart is not None:
            extra["keep_apart"] = self.keep_apart
            extra["kept_apart"] = int(self.kept_apart)
        if out is None:
            return dw.gathered(self, tables, figures, extra, exact)
        return dw.written(self, tables, figures, extra, out, fmt)

    def verified_pairs(self) -> tuple[int, list]:
        """Stages 2 and 3, or their result kept on disk by an earlier run of the same job."""
        work = self.work
        done = work.done("pairs")
        if done is not None:
            self.copies = done["exact_duplicates"]
            self.kept_apart = done["kept_apart"]
            self.resumed.append("pairs")
            self.clock.say("resuming: the verified pairs are on disk")
            paths = [work.part("pairs", i) for i in range(len(self.used))]
            return done["candidates"], self.client.map(dk.kept, paths, pure=False)
        try:
            candidates, accepted = self.find_pairs()
        except TooManyPairsError:
            raise TooManyPairsError(too_many_candidates(self.max_pairs)) from None
        if work.folder is not None:
            accepted = [
                self._submit(dk.keep, f, work.part("pairs", i)) for i, f in enumerate(accepted)
            ]
            self.client.gather([self._submit(_pair_count, f) for f in accepted])
            work.mark(
                "pairs",
                {
                    "candidates": candidates,
                    "exact_duplicates": self.copies,
                    "kept_apart": self.kept_apart,
                },
            )
        return candidates, accepted

    def clusters(self, pairs, npairs: int):
        """Stage 4 up to the sizes, or its result kept on disk: futures per row partition
        of roots, similarities and sizes; documents split off; rounds of components."""
        work, exact = self.work, self.verify == "exact"
        done = work.done("clusters")
        if done is not None:
            self.resumed.append("clusters")
            self.clock.say("resuming: the clusters are on disk")
            paths = [work.part("clusters", i) for i in range(len(self.used))]
            held = self.client.map(dk.kept, paths, pure=False)
            root, sim, size = ([self._submit(_item, f, j) for f in held] for j in range(3))
            return root, sim, size, done["split_off"], done["rounds"]
        stage = dc.Clusters(
            self.client,
            self.starts,
            self.sizes,
            self.n,
            self.measure,
            "jaccard" if exact else "estimate",
            self.clock.say,
        )
        if npairs:
            t = self.settings.threshold if self.cluster_check else None
            root, sim, left = stage.run(pairs, t)
            size = stage.sizes_of(root)
        else:
            root = [self._submit(dc.first_roots, s, m) for s, m in self._ranges()]
            sim = [self._submit(np.ones, m, dtype=np.float64) for _, m in self._ranges()]
            left = [self._submit(np.zeros, m, dtype=bool) for _, m in self._ranges()]
            size = [self._submit(np.ones, m, dtype=np.int64) for _, m in self._ranges()]
        split_off = sum(self.client.gather([self._submit(dc.count, f) for f in left]))
        del left
        if work.folder is not None:
            held = [
                self._submit(dk.keep, (r, x, z), work.part("clusters", i))
                for i, (r, x, z) in enumerate(zip(root, sim, size, strict=True))
            ]
            self.client.gather([self._submit(_length, f) for f in held])
            work.mark("clusters", {"split_off": split_off, "rounds": stage.rounds})
        return root, sim, size, split_off, stage.rounds

    def _ranges(self):
        return zip(self.starts, self.sizes, strict=True)

    # 1. read and sign
    def read(self, files: list[Path], blocksize: int, out: Path | None = None) -> None:
        client, reading = self.client, self.reading
        with self.clock.stage("plan", f"planning partitions of {blocksize:,} bytes"):
            plan = dr.plan_partitions(files, blocksize, reading.text_field, reading.id_field)
            todo = dr.spans(plan)
            if todo:  # line numbers of the JSON lines spans, for messages about bad lines
                counted = client.map(
                    dr.count_newlines,
                    [p.path for p in todo],
                    [p.span[0] for p in todo],
                    [p.span[1] for p in todo],
                    pure=False,
                )
                plan = dr.with_first_lines(plan, client.gather(counted))
        self.plan = plan
        self.work = dk.Work(out, dk.fingerprint(files, plan, self.options()))
        self.resumed = []
        kept = self.work.signed()
        if kept:
            self.resumed.append("signatures")
            self.clock.say(f"resuming: {kept} of {len(plan)} partitions are signed on disk")
        with self.clock.stage("signatures", f"reading and signing {len(plan)} partitions"):
            paths = [self.work.part("signatures", i) for i in range(len(plan))]
            self.parts = client.map(
                dk.read_or_load, plan, paths, settings=self.settings, reading=reading, pure=False
            )
            dw.show(client, self.parts, self.clock.show)
            metas = client.gather(client.map(dr.part_meta, self.parts, pure=False))
        for m in metas:
            if m["error"] is not None:
                raise ValueError(m["error"])
        for key in ("read", "signatures"):
            self.clock.seconds[f"{key}_cpu"] = sum(m["seconds"][key] for m in metas)
        self.report = dr.merge_reports([m["report"] for m in metas], len(files))
        sizes = np.array([m["n"] for m in metas], dtype=np.int64)
        records = np.array([m["records"] for m in metas], dtype=np.int64)
        self.n = int(sizes.sum())
        if self.n > MAX_DOCUMENTS:
            raise ValueError(
                f"the corpus holds {self.n:,} documents; accepted: at most {MAX_DOCUMENTS:,} "
                "per run (pair codes are 64-bit)"
            )
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        self.first_record = (np.cumsum(records) - records).tolist()
        self.used = [i for i in range(len(plan)) if sizes[i] > 0]
        self.starts = [int(starts[i]) for i in self.used]
        self.sizes = [int(sizes[i]) for i in self.used]

    def options(self) -> dict:
        """Everything but the input that changes this run's stages (for the work folder)."""
        from nearsim.run.result import _query_string

        return {
            "settings": _query_string(self.settings),
            "verify": self.verify,
            "cluster_check": self.cluster_check,
            "reading": list(self.reading[:3]),
            "fields": [self.group_field, self.keep_apart],
            "limits": [self.max_pairs, self.bucket_limit],
        }

    # 2. and 3. bands, then verify
    def find_pairs(self) -> tuple[int, list]:
        """The candidates' count, and futures of ``(accepted pairs, candidates)`` per row
        partition (the pairs whose second document is in it)."""
        import dask
        import dask.dataframe as dd

        settings, n, client = self.settings, self.n, self.client
        exact = self.verify == "exact"
        if n < 2:
            return 0, [self._submit(_no_pairs, exact) for _ in self.used]
        parts = [self.parts[i] for i in self.used]
        rows = [*self.starts, n]
        with self.clock.stage("copies", "linking exact copies to their first occurrence"):
            keys = [
                dask.delayed(dp.key_frame)(f, s, self.keep_apart)
                for f, s in zip(parts, self.starts, strict=True)
            ]
            keyed = dd.from_delayed(keys, meta=dp.KEY_META, verify_meta=False)
            links = keyed.shuffle(on="k1", npartitions=len(parts)).map_partitions(
                dp.copy_links, meta=dp.LINK_META
            )
            links = links.persist()
            self.copies = int(links.map_partitions(len).sum().compute())
            copies = links[["copy"]].set_index("copy", divisions=rows).to_delayed()
        with self.clock.stage(
            "bands", f"banding: {settings.bands} bands × {settings.rows} rows, shuffled by key"
        ):
            records = [
                dask.delayed(dp.band_frame)(f, settings, s, c)
                for f, s, c in zip(parts, self.starts, copies, strict=True)
            ]
            frame = dd.from_delayed(records, meta=dp.BAND_META, verify_meta=False)
            codes = frame.shuffle(on="key", npartitions=len(parts)).map_partitions(
                dp.bucket_codes, n, self.max_pairs, self.bucket_limit, meta=dp.CODE_META
            )
            codes = dd.concat([codes, links.map_partitions(dp.link_codes, n, meta=dp.CODE_META)])
            divisions = [s * n for s in self.starts] + [n * n]
            by_first = codes.set_index("code", divisions=divisions).persist()
            dw.show(client, by_first, self.clock.show)
            del links
        with self.clock.stage("verify", f"verifying candidates ({self.verify})"):
            accepted = self._join(by_first, links=True)
            dw.show(client, accepted, self.clock.show)
            del by_first
            count = sum(client.gather(client.map(dp.candidate_count, accepted, pure=False)))
            if self.keep_apart is not None:
                self.kept_apart = sum(client.gather(client.map(dp.apart_count, accepted,
                                                               pure=False)))  # fmt: skip
        return int(count), accepted

    def _join(self, by_first, links: bool) -> list:
        """Pair codes partitioned by their first document meet both signatures (and texts,
        with ``verify="exact"``): futures of ``(frame, count)`` per signature partition
        (:func:`nearsim.run.dask_pairs.verify_second`)."""
        import dask
        import dask.dataframe as dd

        n, exact = self.n, self.verify == "exact"
        apart = self.keep_apart if links else None
        parts = [self.parts[i] for i in self.used]
        texts = [(self.plan[i], self.reading) if exact else None for i in self.used]
        attached = [
            dask.delayed(dp.attach_first)(d, f, s, n, t, apart, tuple(self.starts[1:]))
            for d, f, s, t in zip(by_first.to_delayed(), parts, self.starts, texts, strict=True)
        ]
        meta = dp.attach_meta(exact, apart is not None)
        second = dd.from_delayed(attached, meta=meta, verify_meta=False)
        by_second = second.set_index("b", divisions=[*self.starts, n])
        checked = [
            dask.delayed(dp.verify_second)(d, f, s, n, self.settings, self.verify, t, links, apart)
            for d, f, s, t in zip(by_second.to_delayed(), parts, self.starts, texts, strict=True)
        ]
        return self.client.compute(checked)

    def measure(self, by_first) -> list:
        """The estimate (exact Jaccard with ``verify="exact"``) of pairs given as codes
        ``a · n + b`` partitioned by ``a``, computed in the workers beside the signatures:
        futures of ``(frame, count)`` per row partition of ``b``."""
        return self._join(by_first, links=False)


# -- small helpers the workers run ----------------------------------------------------------
def _no_pairs(exact: bool) -> tuple[pd.DataFrame, int, int]:
    return dp.accepted_meta(exact), 0, 0


def _pair_count(result: tuple[pd.DataFrame, int]) -> int:
    return int(result[0].shape[0])


def _item(values: tuple, i: int):
    return values[i]


def _length(values: tuple) -> int:
    return len(values)


def dd_from(futures: list, fn, meta):
    """A Dask DataFrame whose partitions are ``fn(future)`` for each future."""
    import dask
    import dask.dataframe as dd

    if not futures:
        return dd.from_pandas(meta, npartitions=1)
    return dd.from_delayed([dask.delayed(fn)(f) for f in futures], meta=meta, verify_meta=False)
