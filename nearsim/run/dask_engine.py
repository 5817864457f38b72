"""``nearsim dedup --engine dask``: the same stages as the local engine, over partitions, on a
Dask cluster, with the same output.

The stages, and where each runs:

1. **Read and sign** (workers, one task per partition): the corpus is cut into partitions
   of about ``blocksize`` bytes — whole files, byte ranges of a plain JSON lines file, runs
   of Parquet row groups (:mod:`nearsim._dask_read` says how rows and ids stay the local
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
4. **Clusters**: the connected components of the accepted pairs, with
   :func:`nearsim.clusters` on the client while ``documents · NODE_BYTES + pairs ·
   EDGE_BYTES`` fits in ``client_graph_bytes``; beyond it, iterated min-label propagation
   over the edge partitions in the workers (each document's label becomes the smallest
   label among its neighbours' until none changes: the smallest row of its component),
   renumbered like :func:`nearsim.clusters`. Either way, the same labels.

The accepted pairs, labels and ids come back to the client (the output files are written
there, as :func:`nearsim.run.local.write_outputs` does for the local engine). Every task is a
pure function of its inputs, so when a worker dies Dask recomputes what it held.

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

import contextlib
import logging
import operator
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from nearsim.banding import TooManyPairsError
from nearsim.clustering import check_against_kept
from nearsim.io.corpora import CorpusReport, iter_corpus
from nearsim.run import dask_pairs as dp
from nearsim.run import dask_read as dr
from nearsim.run.options import (
    BUCKET_LIMIT,
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
CLIENT_GRAPH_BYTES = 2 << 30
"""Memory the client may spend on connected components (2 GiB); above it, the workers."""
EDGE_BYTES = 40
NODE_BYTES = 80
"""Client memory :func:`nearsim.clusters` takes per accepted pair and per document, beyond
the pairs and labels it is given and returns: its peak (tracemalloc) fits
``≈ 17 · pairs + 70 · documents`` bytes on random graphs (``benchmarks/bench_dask.py``
measures it); these round it up. With the default budget the client clusters up to about
25 million documents; larger corpora are clustered in the workers."""
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
    client_graph_bytes: int = CLIENT_GRAPH_BYTES,
    timeout: float | None = None,
) -> DedupResult:
    """Find the near-duplicate pairs and clusters of a corpus on a Dask cluster.

    The result equals :func:`nearsim.run.local.dedup`'s on the same input and settings: the
    same rows, ids, candidates, accepted pairs, estimates, exact Jaccard and labels.

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
    client_graph_bytes : int
        Client memory for connected components (≥ 0); larger graphs are clustered in the
        workers.
    timeout : float, optional
        Seconds to wait for the scheduler and for a worker (default
        :data:`CONNECT_TIMEOUT`).

    Returns
    -------
    DedupResult
        ``seconds`` holds the wall time of each stage (connect, plan, signatures — read
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
    client_graph_bytes = check_int(client_graph_bytes, "client_graph_bytes", low=0)
    timeout = (
        CONNECT_TIMEOUT
        if timeout is None
        else check_float(timeout, "timeout", low=0, low_open=True)
    )
    clock = Clock(check_bool(progress, "progress"))
    reader = iter_corpus(  # checks the paths, fields and on_error; expands folders
        check_paths(paths),
        text_field=text_field,
        id_field=id_field,
        batch_size=batch_size,
        on_error=on_error,
    )
    reading = dr.Reading(text_field, id_field, on_error, batch_size)
    with _connect(scheduler, workers, timeout, clock) as client:
        run = _Run(client, settings, reading, verify, clock, limits, client_graph_bytes)
        run.cluster_check = cluster_check
        return run.result(reader.files, blocksize)


# -- the cluster ---------------------------------------------------------------------------
def _nearsim_here() -> str:
    """Run in each worker: proves it can import nearsim (this function lives there)."""
    import nearsim

    return os.path.dirname(nearsim.__file__)


def local_cluster(workers: int = 2):
    """The ``distributed.LocalCluster`` the engine starts without a scheduler.

    Parameters
    ----------
    workers : int
        Worker processes (≥ 1), one task thread each; the compiled kernels' own threads
        share the cores among the workers (``NUMBA_NUM_THREADS``).

    Returns
    -------
    distributed.LocalCluster
        Its dashboard on a free port; only errors logged.
    """
    from distributed import LocalCluster

    workers = check_int(workers, "workers", low=1)
    threads = max(1, (os.cpu_count() or 1) // workers)
    return LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",
        silence_logs=logging.ERROR,
        env={"NUMBA_NUM_THREADS": str(threads)},
    )


@contextlib.contextmanager
def _connect(scheduler: str | None, workers: int, timeout: float, clock: Clock):
    """A ``distributed.Client``: to ``scheduler``, or to a new LocalCluster closed after."""
    from distributed import Client

    if scheduler is None:
        with clock.stage("connect", f"starting a local Dask cluster of {workers} workers"):
            cluster = local_cluster(workers)
            client = Client(cluster)
        try:
            yield client
        finally:
            client.close()
            cluster.close()
        return
    with clock.stage("connect", f"connecting to the Dask scheduler at {scheduler}"):
        client = Client.__new__(Client)  # kept even if __init__ fails: see _discard
        try:
            client.__init__(scheduler, timeout=timeout)
        except (OSError, ValueError, TypeError) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            _discard(client)
            raise ValueError(
                f"the Dask scheduler at {scheduler!r} cannot be reached ({reason}); "
                "accepted: the address of a running scheduler, like tcp://127.0.0.1:8786"
            ) from None
    try:
        _check_workers(client, scheduler, timeout)
        yield client
    finally:
        client.close()


def _discard(client) -> None:
    """Stop the IO-loop thread of a ``Client`` whose constructor raised.

    Such a Client already runs its loop thread. If it failed to connect it marks itself
    closed, so neither ``close`` nor ``__del__`` ever stops that thread; if it failed on the
    address it stays "connecting", and its ``__del__`` closes it whenever the garbage
    collector gets to it -- which, inside the next Client's ``LoopRunner.start`` (holding the
    class-wide lock that closing needs), makes that next Client fail after 10 s with a bare
    ``AssertionError`` (distributed 2026.8). Closing both kinds here, with no lock held,
    leaves nothing behind.
    """
    with contextlib.suppress(Exception):
        client.close(timeout=1)  # a Client still "connecting": closes and stops its loop
    with contextlib.suppress(Exception):
        client._loop_runner.stop()  # one that closed itself still runs its loop thread


def _check_workers(client, scheduler: str, timeout: float) -> None:
    try:
        client.wait_for_workers(1, timeout=timeout)
    except TimeoutError:
        raise ValueError(
            f"the Dask scheduler at {scheduler!r} has no workers after {timeout:g} s; "
            f"accepted: a scheduler with workers (dask worker {scheduler})"
        ) from None
    try:
        client.run(_nearsim_here)
    except Exception as exc:
        raise ValueError(
            f"the workers of the Dask scheduler at {scheduler!r} cannot import nearsim "
            f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}); "
            "accepted: workers started where nearsim is installed"
        ) from None


def _show(client, futures, show: bool) -> None:
    """Wait for futures (or persisted collections), with Dask's progress bar on stderr."""
    from distributed import progress, wait

    if show:
        with contextlib.redirect_stdout(sys.stderr):
            progress(futures)
    wait(futures)


def _auto_blocksize(files: list[Path], client) -> int:
    threads = sum(client.nthreads().values())
    total = sum(p.stat().st_size for p in files)
    return int(min(DEFAULT_BLOCKSIZE, max(MIN_BLOCKSIZE, total // (4 * max(threads, 1)))))


def merge_reports(reports: list[CorpusReport], files: int) -> CorpusReport:
    """The partitions' reports as one, in input order (as one reader would have made it).

    Parameters
    ----------
    reports : list of CorpusReport
        One per partition, in input order.
    files : int
        The corpus's files.

    Returns
    -------
    CorpusReport
        Counts summed, skipped records per file in file order, the first ten problems.
    """
    out = CorpusReport(files=files)
    for r in reports:
        out.records += r.records
        out.skipped += r.skipped
        for path, count in r.skipped_by_file.items():
            out.skipped_by_file[path] = out.skipped_by_file.get(path, 0) + count
        out.problems.extend(r.problems[: max(0, 10 - len(out.problems))])
    return out


# -- the run -------------------------------------------------------------------------------
class _Run:
    """One dedup run on a client: the stages in order, their futures, their timings."""

    cluster_check = False

    def __init__(self, client, settings, reading, verify, clock, limits, graph_bytes):
        self.client = client
        self.settings = settings
        self.reading = reading
        self.verify = verify
        self.clock = clock
        self.max_pairs, self.bucket_limit = limits
        self.graph_bytes = graph_bytes
        self.copies = 0

    def result(self, files: list[Path], blocksize: int | None) -> DedupResult:
        self.read(files, blocksize or _auto_blocksize(files, self.client))
        try:
            candidates, pairs, est, jaccard, accepted = self.find_pairs()
        except TooManyPairsError:
            raise TooManyPairsError(too_many_candidates(self.max_pairs)) from None
        what = "clustering and checking members" if self.cluster_check else "clustering"
        with self.clock.stage("clusters", f"{what}: {pairs.shape[0]:,} pairs"):
            labels = None
            if self.n * NODE_BYTES + pairs.shape[0] * EDGE_BYTES > self.graph_bytes:
                labels = self.distributed_labels(accepted)
            t = self.settings.threshold if self.cluster_check else None
            check = check_against_kept(self.n, pairs, self.similarities, t, labels=labels)
        del accepted
        with self.clock.stage("gather", "gathering ids"):
            client = self.client
            ids_f = [
                client.submit(dr.part_ids, f, first, pure=False)
                for f, first in zip(self.parts, self.first_record, strict=True)
            ]
            ids_parts = client.gather(ids_f)
            ids = np.concatenate(ids_parts).tolist() if ids_parts else []
            valid = client.gather(client.map(dr.part_valid, self.parts, pure=False))
            valid = np.concatenate(valid) if valid else np.zeros(0, bool)
        del self.parts
        return DedupResult(
            settings=self.settings,
            ids=ids,
            valid=valid,
            labels=check.labels,
            candidates=candidates,
            pairs=pairs,
            estimates=est,
            jaccard=jaccard,
            verify=self.verify,
            similarity=check.similarity,
            exact_duplicates=self.copies,
            split_off=int(check.split_off.sum()),
            cluster_check=self.cluster_check,
            seconds=self.clock.seconds,
            read_report=self.report.summary(),
        )

    # 1. read and sign
    def read(self, files: list[Path], blocksize: int) -> None:
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
        with self.clock.stage("signatures", f"reading and signing {len(plan)} partitions"):
            self.parts = client.map(
                dr.read_partition, plan, settings=self.settings, reading=reading, pure=False
            )
            _show(client, self.parts, self.clock.show)
            metas = client.gather(client.map(dr.part_meta, self.parts, pure=False))
        for m in metas:
            if m["error"] is not None:
                raise ValueError(m["error"])
        for key in ("read", "signatures"):
            self.clock.seconds[f"{key}_cpu"] = sum(m["seconds"][key] for m in metas)
        self.report = merge_reports([m["report"] for m in metas], len(files))
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

    # 2. and 3. bands, then verify
    def find_pairs(self):
        import dask
        import dask.dataframe as dd

        settings, n, client = self.settings, self.n, self.client
        exact = self.verify == "exact"
        empty = dp.accepted_meta(exact)
        if n < 2:
            return self._pairs_of(0, empty, exact, [])
        parts = [self.parts[i] for i in self.used]
        rows = [*self.starts, n]
        with self.clock.stage("copies", "linking exact copies to their first occurrence"):
            keys = [
                dask.delayed(dp.key_frame)(f, s) for f, s in zip(parts, self.starts, strict=True)
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
            _show(client, by_first, self.clock.show)
            del links
        with self.clock.stage("verify", f"verifying candidates ({self.verify})"):
            accepted = self._join(by_first, links=True)
            _show(client, accepted, self.clock.show)
            del by_first
            count = sum(client.gather(client.map(dp.candidate_count, accepted, pure=False)))
            frames = client.gather(client.map(dp.accepted_frame, accepted, pure=False))
        return self._pairs_of(count, empty, exact, frames, accepted)

    def _join(self, by_first, links: bool) -> list:
        """Pair codes partitioned by their first document meet both signatures (and texts,
        with ``verify="exact"``): futures of ``(frame, count)`` per signature partition
        (:func:`nearsim.run.dask_pairs.verify_second`)."""
        import dask
        import dask.dataframe as dd

        n, exact = self.n, self.verify == "exact"
        parts = [self.parts[i] for i in self.used]
        texts = [(self.plan[i], self.reading) if exact else None for i in self.used]
        attached = [
            dask.delayed(dp.attach_first)(d, f, s, n, t)
            for d, f, s, t in zip(by_first.to_delayed(), parts, self.starts, texts, strict=True)
        ]
        second = dd.from_delayed(attached, meta=dp.attach_meta(exact), verify_meta=False)
        by_second = second.set_index("b", divisions=[*self.starts, n])
        checked = [
            dask.delayed(dp.verify_second)(d, f, s, n, self.settings, self.verify, t, links)
            for d, f, s, t in zip(by_second.to_delayed(), parts, self.starts, texts, strict=True)
        ]
        return self.client.compute(checked)

    def similarities(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """The estimate (exact Jaccard with ``verify="exact"``) of the pairs (a[t], b[t]),
        a < b, computed in the workers beside the signatures; float64, shape (m,)."""
        import dask.dataframe as dd

        n = self.n
        if a.shape[0] == 0:
            return np.zeros(0, dtype=np.float64)
        codes = a.astype(np.int64) * n + b
        frame = pd.DataFrame({"code": np.sort(codes)})
        parts = max(1, len(self.used))
        divisions = [s * n for s in self.starts] + [n * n]
        by_first = dd.from_pandas(frame, npartitions=parts).set_index("code", divisions=divisions)
        frames = self.client.gather(
            self.client.map(dp.accepted_frame, self._join(by_first, links=False), pure=False)
        )
        table = pd.concat([dp.accepted_meta(self.verify == "exact"), *frames])
        got = table["a"].to_numpy(np.int64) * n + table["b"].to_numpy(np.int64)
        column = "jaccard" if self.verify == "exact" else "estimate"
        values = table[column].to_numpy(np.float64)[np.argsort(got)]
        return values[np.searchsorted(np.sort(got), codes)]

    def _pairs_of(self, count, empty, exact, frames, accepted=()):
        table = pd.concat([empty, *frames], ignore_index=True)
        a = table["a"].to_numpy(np.int64)
        b = table["b"].to_numpy(np.int64)
        order = np.argsort(a * np.int64(max(self.n, 1)) + b, kind="stable")
        pairs = np.stack([a[order], b[order]], axis=1)
        est = table["estimate"].to_numpy(np.float64)[order]
        jaccard = table["jaccard"].to_numpy(np.float64)[order] if exact else None
        return int(count), pairs, est, jaccard, list(accepted)

    # 4. clusters in the workers
    def distributed_labels(self, accepted: list) -> np.ndarray:
        """Connected components by iterated min-label propagation over the edge partitions;
        labels renumbered as :func:`nearsim.clusters` numbers them."""
        import dask
        import dask.dataframe as dd

        client, n = self.client, self.n
        divisions = [*self.starts, n]
        sides = []
        for side in ("a", "b"):
            edges = [dask.delayed(dp.edge_frame)(f, side) for f in accepted]
            frame = dd.from_delayed(edges, meta=dp.EDGE_META, verify_meta=False)
            sides.append(frame.set_index("node", divisions=divisions).persist())
        first, second = (s.to_delayed() for s in sides)
        sizes = np.diff(divisions).tolist()
        labels = [
            client.submit(dp.first_labels, s, m, pure=False)
            for s, m in zip(self.starts, sizes, strict=True)
        ]
        rounds, changed = 0, 1
        while changed:
            sent = [
                dask.delayed(dp.label_messages)(e1, e2, lab, s)
                for e1, e2, lab, s in zip(first, second, labels, self.starts, strict=True)
            ]
            frame = dd.from_delayed(sent, meta=dp.MESSAGE_META, verify_meta=False)
            received = frame.set_index("to", divisions=divisions).to_delayed()
            lowered = client.compute(
                [
                    dask.delayed(dp.lower_labels)(lab, msg, s)
                    for lab, msg, s in zip(labels, received, self.starts, strict=True)
                ]
            )
            labels = [client.submit(operator.getitem, f, 0, pure=False) for f in lowered]
            counts = [client.submit(operator.getitem, f, 1, pure=False) for f in lowered]
            changed = sum(client.gather(counts))
            rounds += 1
        self.clock.say(f"{rounds} rounds of label propagation")
        smallest = np.concatenate(client.gather(labels))
        return np.unique(smallest, return_inverse=True)[1].astype(np.int64).reshape(-1)
