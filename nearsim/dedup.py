"""Apply settings to a whole corpus on one machine, in bounded memory: ``nearsim dedup``.

The corpus is read in batches (:func:`nearsim.iter_corpus`); each batch gets the
pipeline's row-wise stages, the validity mask and the MinHash signatures (:func:`sign_batch`:
the explorer's values, straight from the texts when ``min_shingles`` allows it), and only
the signatures are kept: 4·k bytes a document (512 MB for a million documents at
k = 128), never the texts. Then, over all
signatures, the same library calls as on a list in memory: band candidates
(:func:`nearsim.candidate_pairs`, one band at a time, pairs as 64-bit codes), their MinHash
estimates, the filter, and clusters (:func:`nearsim.clusters`).

``verify="exact"`` reads the corpus a second time and computes the exact Jaccard of the
candidate pairs only, from the shingles of the documents that are in a candidate pair.

Peak memory is about ``documents × (4·k + 40)`` bytes (signatures, ids, labels) plus
``candidates × 40`` bytes (pair codes, estimates); when banding would make more candidate
pairs than ``max_pairs``, the run stops with the count and the advice, before allocating.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from collections.abc import Iterable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from tqdm import tqdm

from ._arrays import unique_int
from ._hashing import text_shingles
from ._validation import check_bool, check_choice, check_int
from .clusters import clusters
from .corpora import iter_corpus
from .dedup_options import FORMATS, VERIFY
from .lsh import DEFAULT_MAX_PAIRS, candidate_pairs
from .minhash import EMPTY, MinHasher, estimate_pairs
from .settings import Settings

if TYPE_CHECKING:  # the tables are built only when asked for: a run never loads pandas
    import pandas as pd

OUTPUTS = ("clusters", "pairs")


@dataclass
class DedupResult:
    """What a dedup run found.

    Attributes
    ----------
    settings : Settings
    ids : list of str, length n
        Each document's id, in input order.
    valid : ndarray of bool, shape (n,)
        Documents with enough shingles for a signature.
    labels : ndarray of int64, shape (n,)
        ``nearsim.clusters`` labels of the accepted pairs.
    candidates : int
        Candidate pairs (sharing a whole band).
    pairs : ndarray of int64, shape (a, 2)
        Accepted pairs, a < b, sorted.
    estimates : ndarray of float64, shape (a,)
        Their MinHash estimates.
    jaccard : ndarray of float64, shape (a,), or None
        Their exact Jaccard (``verify="exact"`` only).
    verify : str
    seconds : dict of str to float
        Wall time of each stage.
    read_report : str
        What the reader read and skipped, in one line.
    cpu_seconds : dict of str to float
        CPU time of each stage (this process, all its threads; on a shared machine a
        steadier measure than wall time).
    """

    settings: Settings
    ids: list[str]
    valid: np.ndarray
    labels: np.ndarray
    candidates: int
    pairs: np.ndarray
    estimates: np.ndarray
    jaccard: np.ndarray | None
    verify: str
    seconds: dict[str, float] = field(default_factory=dict)
    read_report: str = ""
    cpu_seconds: dict[str, float] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return int(self.labels.shape[0])

    def cluster_columns(self) -> dict[str, np.ndarray | list[str]]:
        """The columns of :meth:`cluster_table`, as arrays (``id`` a list of str)."""
        n = self.n
        rows = np.arange(n, dtype=np.int64)
        first = np.full(int(self.labels.max(initial=-1)) + 1, n, dtype=np.int64)
        np.minimum.at(first, self.labels, rows)
        cluster = first[self.labels]
        size = np.bincount(self.labels, minlength=first.shape[0])[self.labels].astype(np.int64)
        return {
            "row": rows,
            "id": self.ids,
            "cluster": cluster,
            "cluster_size": size,
            "keep": cluster == rows,
        }

    def pair_columns(self) -> dict[str, np.ndarray]:
        """The columns of :meth:`pair_table`, as arrays."""
        out = {
            "a": self.pairs[:, 0].astype(np.int64),
            "b": self.pairs[:, 1].astype(np.int64),
            "estimate": self.estimates.astype(np.float64),
        }
        if self.jaccard is not None:
            out["jaccard"] = self.jaccard.astype(np.float64)
        return out

    def cluster_table(self) -> pd.DataFrame:
        """One row per document, in row order: row, id, cluster (the smallest row of its
        cluster), cluster_size, keep (the smallest row of each cluster, and every document
        alone)."""
        return _frame(self.cluster_columns())

    def pair_table(self) -> pd.DataFrame:
        """The accepted pairs: a, b (rows, a < b, sorted), estimate, and jaccard with
        ``verify="exact"``."""
        return _frame(self.pair_columns())

    def summary(self) -> dict:
        """The figures of ``summary.json``."""
        sizes = np.bincount(self.labels) if self.n else np.zeros(0, dtype=np.int64)
        return {
            "documents": self.n,
            "without_signature": int((~self.valid).sum()),
            "candidates": int(self.candidates),
            "pairs": int(self.pairs.shape[0]),
            "clusters": int((sizes >= 2).sum()),
            "removed": int(sizes[sizes >= 2].sum() - (sizes >= 2).sum()),
            "settings": _query_string(self.settings),
            "verify": self.verify,
            "seconds": {k: round(v, 3) for k, v in self.seconds.items()},
            "cpu_seconds": {k: round(v, 3) for k, v in self.cpu_seconds.items()},
            "peak_memory_bytes": peak_memory_bytes(),
            "read": self.read_report,
        }


def _frame(columns: dict) -> pd.DataFrame:
    """The columns as a DataFrame, str columns (lists) as pandas' ``str`` dtype."""
    import pandas as pd

    return pd.DataFrame(
        {k: pd.Series(v, dtype=str) if isinstance(v, list) else v for k, v in columns.items()}
    )


def _query_string(settings: Settings) -> str:
    from urllib.parse import urlencode

    return urlencode(settings.to_query())


def peak_memory_bytes() -> int:
    """This process's peak resident memory so far, in bytes (Linux: ``ru_maxrss`` in KB)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak) * (1 if sys.platform == "darwin" else 1024)


class _Clock:
    """Wall and CPU time per stage, and a progress line on stderr (quiet when not shown)."""

    def __init__(self, show: bool):
        self.show = show
        self.seconds: dict[str, float] = {}
        self.cpu: dict[str, float] = {}

    def say(self, text: str) -> None:
        """``nearsim: text`` on stderr, when progress is shown."""
        if self.show:
            print(f"nearsim: {text}", file=sys.stderr, flush=True)

    @contextmanager
    def stage(self, name: str, what: str | None = None):
        """Time a stage (its time adds up over several calls); say ``what`` first."""
        started, cpu = time.perf_counter(), time.process_time()
        if what:
            self.say(f"{what}…")
        yield
        self.seconds[name] = self.seconds.get(name, 0.0) + time.perf_counter() - started
        self.cpu[name] = self.cpu.get(name, 0.0) + time.process_time() - cpu

    def bar(self, what: str, unit: str):
        return tqdm(desc=f"nearsim: {what}", unit=unit, disable=not self.show, file=sys.stderr)


def _check_paths(paths) -> list:
    if isinstance(paths, str | os.PathLike):
        return [paths]
    if not isinstance(paths, Iterable):
        raise ValueError(f"paths={paths!r} is not accepted; accepted: a path or a list of paths")
    return list(paths)


def dedup(
    paths,
    settings: Settings | None = None,
    *,
    text_field: str = "text",
    id_field: str | None = None,
    verify: str = "estimate",
    on_error: str = "fail",
    batch_size: int = 10_000,
    max_pairs: int = DEFAULT_MAX_PAIRS,
    progress: bool = False,
) -> DedupResult:
    """Find the near-duplicate pairs and clusters of a whole corpus.

    Parameters
    ----------
    paths : path or list of paths
        Files or folders, as :func:`nearsim.iter_corpus` reads them.
    settings : Settings, optional
        Shingling, MinHash, banding and threshold (defaults: ``Settings()``).
    text_field, id_field, on_error, batch_size
        As for :func:`nearsim.iter_corpus`.
    verify : {"estimate", "exact", "none"}
        Which candidates are accepted: MinHash estimate ≥ threshold, exact Jaccard ≥
        threshold (the corpus is read again for the candidates' shingles), or all.
    max_pairs : int
        Limit on distinct candidate pairs (``TooManyPairsError`` above it).
    progress : bool
        Print each stage and a progress bar on stderr.

    Returns
    -------
    DedupResult
        Equal to ``candidate_pairs`` + the filter + ``clusters`` on the same texts.
    """
    settings = Settings() if settings is None else settings
    if not isinstance(settings, Settings):
        raise ValueError(f"settings={settings!r} is not accepted; accepted: a nearsim.Settings")
    verify = check_choice(verify, "verify", VERIFY)
    max_pairs = check_int(max_pairs, "max_pairs", low=0)
    clock = _Clock(check_bool(progress, "progress"))
    paths = _check_paths(paths)
    read = dict(text_field=text_field, id_field=id_field, on_error=on_error, batch_size=batch_size)

    ids: list[str] = []
    sig = _Rows((settings.num_perm,), np.uint32)
    valid = _Rows((), np.bool_)
    reader = iter_corpus(paths, **read)
    batches = reader.lists()
    with clock.stage("read"):
        batch = next(batches, None)  # a bad first record stops the run before any progress
    # else the first run after an install sits at "0 docs" while numba compiles
    clock.say(
        "loading the compiled kernels (the first run after an install compiles them: about "
        "10 s on two cores)…"
    )
    _load_kernels(settings)
    with clock.bar("documents read and signed", "docs") as bar:
        while batch is not None:
            batch_ids, batch_texts = batch
            with clock.stage("signatures"):
                valid_part, sig_part = sign_batch(batch_texts, settings)
                valid.append(valid_part)
                sig.append(sig_part)
            ids.extend(batch_ids)
            bar.update(len(batch_texts))
            with clock.stage("read"):
                batch = next(batches, None)
    valid, sig = valid.array(), sig.array()

    with clock.stage("bands", f"banding: {settings.bands} bands × {settings.rows} rows"):
        cand = candidate_pairs(sig, settings.bands, settings.rows, valid=valid, max_pairs=max_pairs)
        est = estimate_pairs(sig, cand)
    del sig
    jaccard = None
    with clock.stage("verify", f"verifying {cand.shape[0]:,} candidates ({verify})"):
        if verify == "estimate":
            keep = est >= settings.threshold
        elif verify == "exact":
            jaccard = _exact_jaccard(paths, read, settings, cand, clock)
            keep = jaccard >= settings.threshold
        else:
            keep = np.ones(cand.shape[0], dtype=bool)
    pairs, est = cand[keep], est[keep]
    if jaccard is not None:
        jaccard = jaccard[keep]
    with clock.stage("clusters", f"clustering {pairs.shape[0]:,} pairs"):
        labels = clusters(len(ids), pairs)
    return DedupResult(
        settings,
        ids,
        valid,
        labels,
        int(cand.shape[0]),
        pairs,
        est,
        jaccard,
        verify,
        clock.seconds,
        reader.report.summary(),
        clock.cpu,
    )


def _load_kernels(settings: Settings) -> None:
    """Load the run's compiled kernels from numba's cache (0.3–0.5 s in a new process)
    before the first batch is signed, so that the stage times in ``summary.json`` say what
    the stages cost and the loading counts as start-up. Done beside the reader, in a
    thread, it gained nothing (seven interleaved runs at 100,000 documents: median 2.45 s
    against 2.39 s): the loading is mostly numba importing its own modules, which holds
    the interpreter. Only fills caches the run fills anyway; if it fails, the run loads
    them itself."""
    try:
        valid, sig = sign_batch(["kernels"] * 2, settings)
        pairs = candidate_pairs(sig, settings.bands, settings.rows, valid=valid)
        estimate_pairs(sig, pairs)
        clusters(2, pairs)
    except Exception:  # the run itself reports every problem
        pass


def sign_batch(texts: list[str], settings: Settings) -> tuple[np.ndarray, np.ndarray]:
    """The row stages of one batch of documents: the validity mask and the signatures.

    Equal to the pipeline's ``valid`` and ``signatures`` stages (:data:`ROW_STAGES`) on
    the same texts. When ``min_shingles`` is at most 1, a document is valid when it has
    any shingle, which its signature tells by itself (every value of a document with a
    shingle is below p = 2³¹ − 1; one without gets 2³² − 1 everywhere), so the
    signatures come straight from the texts (:meth:`MinHasher.text_signatures`, bit for
    bit the same) without the ``shingles`` stage's lists of distinct shingles, which
    cost about as much as the signatures themselves. A larger ``min_shingles`` needs
    the distinct counts: the pipeline's stages.

    Parameters
    ----------
    texts : list of str, length n
    settings : Settings

    Returns
    -------
    valid : ndarray of bool, shape (n,)
    signatures : ndarray of uint32, shape (n, num_perm)
    """
    if settings.min_shingles <= 1:
        hasher = MinHasher(settings.num_perm, settings.hash_seed)
        sig = hasher.text_signatures(texts, **settings.shingle_options())
        return sig[:, 0] != EMPTY, sig
    from .pipeline import ROW_STAGES, Runner  # the whole stage graph: only for this case

    run = Runner(texts, settings, digest="batch")
    return run.get(ROW_STAGES[1]), run.get(ROW_STAGES[2])


class _Rows:
    """Rows appended batch by batch to one array that grows in place.

    ``ndarray.resize`` reallocates the array (glibc moves a large block's pages with
    ``mremap``, without copying them), so the signatures are never held twice: joining
    the batches with ``np.concatenate`` did, at the peak of a run (512 MB more at a
    million documents, k = 128). It grows by each batch exactly: ``resize`` zero-fills
    what it adds, so room kept ahead would be memory in use.
    """

    def __init__(self, tail: tuple[int, ...], dtype):
        self._rows = np.zeros((0, *tail), dtype=dtype)

    def append(self, part: np.ndarray) -> None:
        n = self._rows.shape[0]
        self._rows.resize((n + part.shape[0], *self._rows.shape[1:]), refcheck=False)
        self._rows[n:] = part

    def array(self) -> np.ndarray:
        """Every row appended so far (the array itself: appending again would move it)."""
        return self._rows


def _exact_jaccard(paths, read: dict, settings: Settings, cand: np.ndarray, clock) -> np.ndarray:
    """Exact Jaccard of the candidate pairs, from a second read of the corpus (their
    documents' shingles, compared by their bytes: ``nearsim._pair_overlap``, which
    ``pair_jaccard`` uses too, without its checks of user input and without pandas)."""
    from ._pair_overlap import jaccard, pair_overlaps

    involved = unique_int(cand.ravel())
    texts: list[str] = []
    row = 0
    for _, batch in iter_corpus(paths, **read).lists():
        lo, hi = np.searchsorted(involved, [row, row + len(batch)])
        texts.extend(batch[t - row] for t in involved[lo:hi].tolist())
        row += len(batch)
    flat = text_shingles(texts, **settings.shingle_options())
    first, second = np.searchsorted(involved, cand[:, 0]), np.searchsorted(involved, cand[:, 1])
    inter, sizes = pair_overlaps(flat, np.arange(involved.shape[0]), first, second)
    return jaccard(inter, sizes[first], sizes[second])


# -- output files ------------------------------------------------------------------------
def _arrow_column(values: np.ndarray | list[str]):
    """One column as an Arrow array, built from its buffers: ``pyarrow.array`` imports
    pandas (0.25 s) to ask whether its input is a pandas object, and a run has no pandas.

    A list of str becomes ``large_string`` (what pandas writes its ``str`` dtype as), a
    bool array Arrow's packed bits, another array its own type.
    """
    import pyarrow as pa

    if isinstance(values, list):
        encoded = [v.encode("utf-8") for v in values]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum(np.fromiter(map(len, encoded), np.int64, len(encoded)), out=offsets[1:])
        buffers = [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
        return pa.Array.from_buffers(pa.large_string(), len(encoded), buffers)
    values = np.ascontiguousarray(values)
    if values.dtype == np.bool_:
        bits = pa.py_buffer(np.packbits(values, bitorder="little"))
        return pa.Array.from_buffers(pa.bool_(), values.size, [None, bits])
    kind = pa.from_numpy_dtype(values.dtype)
    return pa.Array.from_buffers(kind, values.size, [None, pa.py_buffer(values)])


def _write_table(columns: dict, path: Path, fmt: str) -> None:
    """Write the columns: Parquet through pyarrow, CSV and JSON lines through pandas."""
    if fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        arrays = [_arrow_column(v) for v in columns.values()]
        pq.write_table(pa.Table.from_arrays(arrays, names=list(columns)), path)
    elif fmt == "csv":
        _frame(columns).to_csv(path, index=False)
    else:
        _frame(columns).to_json(path, orient="records", lines=True, force_ascii=False)


def prepare_output(out: str | os.PathLike) -> Path:
    """Make the output folder and remove an older run's ``summary.json`` from it.

    Called before a run starts (and again before writing), so that while a run is going,
    and after one is interrupted, the folder never claims to hold a complete run.

    Returns
    -------
    Path
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {str(out)!r} is a file; accepted: a folder (made if missing)")
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.json").unlink(missing_ok=True)
    return out


def write_outputs(
    result: DedupResult, out: str | os.PathLike, fmt: str = "parquet", *, progress: bool = False
) -> list[Path]:
    """Write ``clusters.<fmt>``, ``pairs.<fmt>`` and ``summary.json`` in a folder.

    Every file is written under a temporary name and renamed when complete, and an older
    ``summary.json`` is removed first and the new one written last: a folder with a
    ``summary.json`` holds a complete run; an interrupted run leaves only ``.tmp`` files.

    Parameters
    ----------
    result : DedupResult
    out : path
        The folder (created if missing).
    fmt : {"parquet", "csv", "jsonl"}
    progress : bool
        Say on stderr what is being written.

    Returns
    -------
    list of Path
        The files written.
    """
    fmt = check_choice(fmt, "fmt", FORMATS)
    out = prepare_output(out)
    summary_path = out / "summary.json"
    clock = _Clock(check_bool(progress, "progress"))
    written = []
    with clock.stage("write", f"writing {out}"):
        tables = (("clusters", result.cluster_columns()), ("pairs", result.pair_columns()))
        for name, table in tables:
            path = out / f"{name}.{fmt}"
            tmp = out / f".{name}.{fmt}.tmp-{os.getpid()}"
            try:
                _write_table(table, tmp, fmt)
                os.replace(tmp, path)
            finally:
                tmp.unlink(missing_ok=True)
            written.append(path)
    summary = result.summary()
    summary["seconds"]["write"] = round(clock.seconds["write"], 3)
    if summary["cpu_seconds"]:
        summary["cpu_seconds"]["write"] = round(clock.cpu["write"], 3)
    summary["format"] = fmt
    tmp = out / f".summary.json.tmp-{os.getpid()}"
    tmp.write_text(json.dumps(summary, indent=2) + "\n")
    os.replace(tmp, summary_path)
    written.append(summary_path)
    return written
