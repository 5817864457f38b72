"""What a corpus run found, and the files it writes: :class:`DedupResult`, ``clusters``,
``pairs`` and ``summary.json``, each written whole or not at all.

Both engines (:mod:`nearsim.dedup` on one machine, :mod:`nearsim.dask_engine` on a
cluster) return a :class:`DedupResult`, and :func:`write_outputs` writes it. Nothing here
loads pandas unless a CSV or JSON lines table is asked for: Parquet is written from the
arrays' buffers through pyarrow.
"""

from __future__ import annotations

import itertools
import json
import os
import resource
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ._validation import check_bool, check_choice
from .dedup_options import FORMATS
from .progress import Clock

if TYPE_CHECKING:  # the tables are built only when asked for: a run never loads pandas
    import pandas as pd


def peak_memory_bytes() -> int:
    """This process's peak resident memory so far, in bytes (Linux: ``ru_maxrss`` in KB)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak) * (1 if sys.platform == "darwin" else 1024)


class Rows:
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


class IdColumn:
    """Document ids held as UTF-8 bytes and offsets: about 8 + len(id) bytes an id.

    A list of Python str costs about 60 bytes an id more (the object and its pointer):
    0.6 GB at 10⁷ documents. A character that UTF-8 cannot hold (a lone surrogate from a
    JSON escape) is written as its backslash escape.
    """

    def __init__(self) -> None:
        self._offsets = Rows((), np.int64)
        self._offsets.append(np.zeros(1, dtype=np.int64))
        self._data = bytearray()

    @classmethod
    def of(cls, ids) -> IdColumn:
        """An IdColumn holding ``ids`` (an IdColumn is returned as it is)."""
        if isinstance(ids, IdColumn):
            return ids
        column = cls()
        column.extend([str(i) for i in ids])
        return column

    def extend(self, ids: list[str]) -> None:
        joined = "".join(ids)
        lengths = np.fromiter(map(len, ids), dtype=np.int64, count=len(ids))
        if joined.isascii():
            data = joined.encode("ascii")
        else:
            encoded = [i.encode("utf-8", "backslashreplace") for i in ids]
            lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=len(ids))
            data = b"".join(encoded)
        ends = len(self._data) + np.cumsum(lengths)
        self._offsets.append(ends)
        self._data += data

    def __len__(self) -> int:
        return self._offsets.array().shape[0] - 1

    def tolist(self) -> list[str]:
        off = self._offsets.array().tolist()
        data = bytes(self._data)
        return [data[a:b].decode("utf-8") for a, b in itertools.pairwise(off)]

    def arrow(self):
        """The ids as an Arrow ``large_string`` array, built from the buffers."""
        import pyarrow as pa

        buffers = [None, pa.py_buffer(self._offsets.array()), pa.py_buffer(bytes(self._data))]
        return pa.Array.from_buffers(pa.large_string(), len(self), buffers)


@dataclass
class DedupResult:
    """What a dedup run found.

    Attributes
    ----------
    settings : RunSettings
    ids : IdColumn or list of str, length n
        Each document's id, in input order (:attr:`id_list` gives a list).
    valid : ndarray of bool, shape (n,)
        Documents with enough shingles for a signature.
    labels : ndarray of int64, shape (n,)
        Cluster labels, numbered as :func:`nearsim.clusters` numbers them.
    candidates : int
        Pairs examined: the band candidates among distinct documents and each exact
        copy's link to its first occurrence.
    pairs : ndarray of int64, shape (a, 2)
        Accepted pairs, a < b, sorted.
    estimates : ndarray of float64, shape (a,)
        Their MinHash estimates.
    jaccard : ndarray of float64, shape (a,), or None
        Their exact Jaccard (``verify="exact"`` only).
    verify : str
    similarity : ndarray of float64, shape (n,)
        Each document's similarity to its cluster's kept document (estimate, or exact
        Jaccard with ``verify="exact"``); 1.0 for a kept document.
    exact_duplicates : int
        Documents identical (after normalisation) to an earlier one.
    split_off : int
        Documents the cluster check took out of the cluster they were joined to.
    cluster_check : bool
        Whether members were checked against their cluster's kept document.
    seconds, cpu_seconds : dict of str to float
        Wall and CPU time of each stage.
    read_report : str
        What the reader read and skipped, in one line.
    extra : dict
        Further figures for ``summary.json`` (an engine's own).
    """

    settings: object
    ids: IdColumn | list
    valid: np.ndarray
    labels: np.ndarray
    candidates: int
    pairs: np.ndarray
    estimates: np.ndarray
    jaccard: np.ndarray | None
    verify: str
    similarity: np.ndarray | None = None
    exact_duplicates: int = 0
    split_off: int = 0
    cluster_check: bool = False
    seconds: dict[str, float] = field(default_factory=dict)
    read_report: str = ""
    cpu_seconds: dict[str, float] = field(default_factory=dict)
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.ids = IdColumn.of(self.ids)
        if self.similarity is None:
            self.similarity = np.ones(self.labels.shape[0], dtype=np.float64)

    @property
    def n(self) -> int:
        return int(self.labels.shape[0])

    @property
    def id_list(self) -> list[str]:
        """The ids as a list of str."""
        return self.ids.tolist()

    def kept_rows(self) -> np.ndarray:
        """Each document's cluster's kept document: its smallest row; int64, shape (n,)."""
        rows = np.arange(self.n, dtype=np.int64)
        first = np.full(int(self.labels.max(initial=-1)) + 1, self.n, dtype=np.int64)
        np.minimum.at(first, self.labels, rows)
        return first[self.labels]

    def cluster_columns(self) -> dict[str, np.ndarray | IdColumn]:
        """The columns of :meth:`cluster_table`, as arrays (``id`` an IdColumn)."""
        rows = np.arange(self.n, dtype=np.int64)
        cluster = self.kept_rows()
        size = np.bincount(self.labels, minlength=1)[self.labels].astype(np.int64)
        return {
            "row": rows,
            "id": self.ids,
            "cluster": cluster,
            "cluster_size": size,
            "keep": cluster == rows,
            "similarity_to_kept": self.similarity.astype(np.float64),
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
        alone), similarity_to_kept."""
        return frame(self.cluster_columns())

    def pair_table(self) -> pd.DataFrame:
        """The accepted pairs: a, b (rows, a < b, sorted), estimate, and jaccard with
        ``verify="exact"``."""
        return frame(self.pair_columns())

    def summary(self) -> dict:
        """The figures of ``summary.json``."""
        sizes = np.bincount(self.labels) if self.n else np.zeros(0, dtype=np.int64)
        return {
            "documents": self.n,
            "without_signature": int((~self.valid).sum()),
            "exact_duplicates": int(self.exact_duplicates),
            "candidates": int(self.candidates),
            "pairs": int(self.pairs.shape[0]),
            "clusters": int((sizes >= 2).sum()),
            "removed": int(sizes[sizes >= 2].sum() - (sizes >= 2).sum()),
            "split_off": int(self.split_off),
            "cluster_check": bool(self.cluster_check),
            "settings": _query_string(self.settings),
            "verify": self.verify,
            "seconds": {k: round(v, 3) for k, v in self.seconds.items()},
            "cpu_seconds": {k: round(v, 3) for k, v in self.cpu_seconds.items()},
            "peak_memory_bytes": peak_memory_bytes(),
            **self.extra,
            "read": self.read_report,
        }


def frame(columns: dict) -> pd.DataFrame:
    """The columns as a DataFrame, ids (an IdColumn or a list) as pandas' ``str`` dtype."""
    import pandas as pd

    def column(v):
        if isinstance(v, IdColumn):
            v = v.tolist()
        return pd.Series(v, dtype=str) if isinstance(v, list) else v

    return pd.DataFrame({k: column(v) for k, v in columns.items()})


def _query_string(settings) -> str:
    from urllib.parse import urlencode

    return urlencode(settings.to_query())


def arrow_column(values):
    """One column as an Arrow array, built from its buffers: ``pyarrow.array`` imports
    pandas (0.25 s) to ask whether its input is a pandas object, and a run has no pandas.

    An IdColumn or a list of str becomes ``large_string`` (what pandas writes its ``str``
    dtype as), a bool array Arrow's packed bits, another array its own type.
    """
    import pyarrow as pa

    if isinstance(values, list):
        values = IdColumn.of(values)
    if isinstance(values, IdColumn):
        return values.arrow()
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

        arrays = [arrow_column(v) for v in columns.values()]
        pq.write_table(pa.Table.from_arrays(arrays, names=list(columns)), path)
    elif fmt == "csv":
        frame(columns).to_csv(path, index=False)
    else:
        frame(columns).to_json(path, orient="records", lines=True, force_ascii=False)


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
    clock = Clock(check_bool(progress, "progress"))
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
