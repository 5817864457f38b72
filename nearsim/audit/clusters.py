"""What a finished deduplication decided, as one cluster label per corpus row.

Two inputs: nearsim's own output folder (``clusters.<fmt>``: one line per row, in row
order, and ``summary.json`` with the run's settings), or another tool's table of
(document id, cluster) — datatrove, NeMo Curator, text-dedup, anything — whose rows may be
in any order and may leave documents out (a document absent from the table is alone).
Either way the label of a row is the smallest row of its cluster, so the document kept
in a cluster is its first in corpus order and every other member is removed.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from nearsim.utils.arrays import arrow_array
from nearsim.utils.validation import check_unicode

__all__ = ["RunClusters", "labels_from_table", "read_run", "read_table"]

_FORMATS = ("parquet", "csv", "jsonl")


class RunClusters:
    """A run's labels and what came with them.

    Attributes
    ----------
    labels : ndarray of int64, shape (n,) or None
        Each row's cluster as the smallest row in it (None until the corpus's ids are known,
        for another tool's table).
    ids : ndarray of object, ArrowIds or None
        The run's id of every row (nearsim's folder), to check against the corpus;
        ``ids[rows]`` gives those of some rows as an object array of str.
    settings : str
        The run's settings as a Share query ("" for another tool: the defaults).
    threshold : float or None
        The run's threshold, when it says.
    source : str
        Where the clusters came from, in words.
    """

    def __init__(self, labels, ids, settings: str, threshold, source: str, table=None) -> None:
        self.labels = labels
        self.ids = ids
        self.settings = settings
        self.threshold = threshold
        self.source = source
        self.table = table  # (ids, cluster values) of another tool's table


def _read_any(path: Path, columns: list[str] | None = None):
    import pandas as pd

    name = path.name.lower()
    if path.is_dir() or name.endswith(".parquet"):
        return pd.read_parquet(path, columns=columns)
    if name.endswith((".csv", ".tsv")):
        sep = "\t" if name.endswith(".tsv") else ","
        return pd.read_csv(path, usecols=columns, sep=sep, dtype=str, keep_default_na=False)
    if name.endswith((".jsonl", ".ndjson", ".json", ".jsonl.gz", ".jsonl.zst")):
        frame = pd.read_json(path, lines=True, dtype=False)
        return frame if columns is None else frame[columns]
    raise ValueError(
        f"--clusters {str(path)!r} is not a table nearsim reads; accepted: .parquet (a file or "
        "a folder), .csv, .tsv, .jsonl"
    )


def _columnar(path: Path) -> bool:
    return path.is_dir() or path.name.lower().endswith(".parquet")


class ArrowIds:
    """A run's ids left in Arrow, turned into Python strings only for the rows asked for:
    the audit reads a few percent of the corpus, and turning 10⁶ ids into strings cost it
    about 0.3 s. ``ids[rows]`` (rows: int64 array) is an object array of str."""

    def __init__(self, column, order: np.ndarray | None = None):
        self._column, self._order = column, order

    def __getitem__(self, rows: np.ndarray) -> np.ndarray:
        rows = np.asarray(rows, dtype=np.int64)
        if self._order is not None:  # Dask parts: self[i] is the column's order[i]
            rows = self._order[rows]
        values = self._column.take(arrow_array(rows)).to_pylist()
        return np.array([str(v) for v in values], dtype=object)

    def reordered(self, order: np.ndarray) -> ArrowIds:
        """The ids in the row order ``order`` (ids[order] of an array)."""
        return ArrowIds(self._column, order if self._order is None else self._order[order])


def _parquet_columns(path: Path) -> dict | None:
    """row, id and cluster of a run's Parquet table (a file or a folder of parts) as NumPy
    arrays, read without pandas (what the audit of a large run spends least on); None
    when one of them is missing."""
    import pyarrow.parquet as pq

    try:
        columns = ["row", "id", "cluster"]
        if path.is_dir():  # the Dask engine's parts
            table = pq.read_table(path, columns=columns)
        else:  # a file read without pandas metadata: pandas is never loaded
            table = pq.ParquetFile(path).read(columns=columns, use_pandas_metadata=False)
    except (KeyError, ValueError):  # pyarrow's ArrowInvalid is a ValueError
        return None
    out = {"id": ArrowIds(table.column("id"))}
    for name in ("row", "cluster"):  # without pyarrow's to_numpy, which loads pandas
        column = table.column(name).cast("int64")
        if column.null_count:
            return None
        parts = [np.frombuffer(c.buffers()[1], dtype=np.int64)[c.offset : c.offset + len(c)]
                 for c in column.chunks]  # fmt: skip
        out[name] = np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)
    return out


def read_run(folder) -> RunClusters:
    """Read nearsim's output folder (``nearsim dedup --out DIR``).

    Raises
    ------
    ValueError
        No complete run in the folder (no ``summary.json`` or no ``clusters`` table), or a
        table without the columns ``nearsim dedup`` writes.
    """
    folder = Path(folder)
    summary_path = folder / "summary.json"
    if not folder.is_dir() or not summary_path.is_file():
        raise ValueError(
            f"--run {str(folder)!r} holds no complete run (no summary.json); accepted: the "
            "--out folder of a finished `nearsim dedup`"
        )
    found = [
        folder / f"clusters.{fmt}" for fmt in _FORMATS if (folder / f"clusters.{fmt}").exists()
    ]
    if not found:
        raise ValueError(f"--run {str(folder)!r} has no clusters.parquet, .csv or .jsonl")
    columns = _parquet_columns(found[0]) if _columnar(found[0]) else None
    if columns is None:  # CSV, JSON lines, or a column is missing (said below)
        frame = _read_any(found[0])
        missing = {"row", "id", "cluster"} - set(frame.columns)
        if missing:
            raise ValueError(
                f"{found[0]} lacks the column(s) {sorted(missing)}; accepted: the clusters "
                "table `nearsim dedup` writes"
            )
        columns = {name: frame[name].to_numpy() for name in ("row", "id", "cluster")}
    try:  # a CSV table is read as text
        rows = columns["row"].astype(np.int64)
        labels = columns["cluster"].astype(np.int64)
    except (TypeError, ValueError):
        raise ValueError(f"{found[0]}: row and cluster must be integers") from None
    ids = columns["id"]
    if np.any(rows[1:] < rows[:-1]):  # Parquet parts of the Dask engine: any order
        order = np.argsort(rows, kind="stable")
        rows, labels = rows[order], labels[order]
        ids = ids.reordered(order) if isinstance(ids, ArrowIds) else ids[order]
    if not np.array_equal(rows, np.arange(rows.shape[0])):
        raise ValueError(f"{found[0]}: the rows are not 0 … n − 1 once each")
    summary = json.loads(summary_path.read_text())
    settings = str(summary.get("settings", ""))
    from urllib.parse import parse_qs

    query = parse_qs(settings, keep_blank_values=True)
    threshold = float(query["threshold"][0]) if "threshold" in query else None
    if not isinstance(ids, ArrowIds) and ids.dtype != object:
        ids = np.array([str(v) for v in ids.tolist()], dtype=object)
    return RunClusters(labels, ids, settings, threshold, f"nearsim run {folder}")


def read_table(path, id_field: str, cluster_field: str) -> RunClusters:
    """Read another tool's table of (id, cluster); labels come from :func:`labels_from_table`.

    Raises
    ------
    ValueError
        A file that cannot be read, a missing column, an id listed twice.
    """
    id_field = check_unicode(id_field, "--id-field", what="a column name")
    cluster_field = check_unicode(cluster_field, "--cluster-field", what="a column name")
    path = Path(path)
    if not path.exists():
        raise ValueError(f"--clusters {str(path)!r} does not exist; accepted: a table file")
    frame = _read_any(path)
    for option, column in (("--id-field", id_field), ("--cluster-field", cluster_field)):
        if column not in frame.columns:
            raise ValueError(
                f"{option} {column!r} is not a column of {path.name}; accepted: one of "
                f"{', '.join(map(repr, list(frame.columns)[:12]))}"
            )
    ids = frame[id_field].astype(str)
    twice = ids[ids.duplicated()]
    if len(twice):
        raise ValueError(
            f"{path.name}: id {twice.iloc[0]!r} is listed twice; accepted: one line per document"
        )
    values = frame[cluster_field].astype(str).to_numpy(dtype=object)
    return RunClusters(None, None, "", None, f"{path.name} ({cluster_field!r})",
                       table=(ids.to_numpy(dtype=object), values))  # fmt: skip


def labels_from_table(table, corpus_ids: np.ndarray) -> tuple[np.ndarray, int]:
    """Each corpus row's label (the smallest row of its cluster) from a table of (id, cluster).

    Parameters
    ----------
    table : (ndarray of str, ndarray of str)
        The table's ids and cluster values, in any order.
    corpus_ids : ndarray of str, shape (n,)
        The corpus's ids in row order.

    Returns
    -------
    labels : ndarray of int64, shape (n,)
    unknown : int
        Ids of the table that are not in the corpus (left out).
    """
    import pandas as pd

    ids, values = table
    n = corpus_ids.shape[0]
    where = pd.Index(corpus_ids).get_indexer(ids)  # first occurrence of a repeated corpus id
    known = where >= 0
    rows = where[known].astype(np.int64)
    codes = pd.factorize(values[known])[0].astype(np.int64)
    first = np.full(int(codes.max(initial=-1)) + 1, n, dtype=np.int64)
    np.minimum.at(first, codes, rows)
    labels = np.arange(n, dtype=np.int64)
    labels[rows] = first[codes]
    return labels, int(np.count_nonzero(~known))
