"""What a corpus run found: :class:`DedupResult`, the same type from both engines, and
the ids it holds compactly (:class:`IdColumn`)."""

from __future__ import annotations

import itertools
import resource
import sys
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # the tables are built only when asked for: a run never loads pandas
    import pandas as pd


def peak_memory_bytes() -> int:
    """This process's peak resident memory so far, in bytes.

    Linux: ``VmHWM`` from ``/proc/self/status``, the peak of this process's own memory.
    Not ``ru_maxrss``: exec keeps it, so a process started by a larger one (a Dask worker by
    its client, ``nearsim dedup`` by a notebook or a scheduler) reported its parent's peak
    (1.55 GB for a 13-MB Python started by a 1.6-GB one). Elsewhere ``ru_maxrss``.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak) * (1 if sys.platform == "darwin" else 1024)


class IdColumn:
    """Document ids held compressed, batch by batch: a few bytes an id.

    A run holds every id until it writes them (the ids of 10⁷ documents were 0.6 GB as
    Python str, 0.2 GB as UTF-8 bytes with offsets); each batch's ids are kept as their
    UTF-8 bytes and lengths, compressed with Zstandard (ids of a corpus share prefixes and
    digits: about 5 times smaller). A character that UTF-8 cannot hold (a lone surrogate
    from a JSON escape) is written as its backslash escape.
    """

    def __init__(self) -> None:
        self._blocks: list[tuple[bytes, bytes]] = []  # (lengths as uint32, UTF-8 bytes)
        self._count = 0

    @classmethod
    def of(cls, ids) -> IdColumn:
        """An IdColumn holding ``ids`` (an IdColumn is returned as it is)."""
        if isinstance(ids, IdColumn):
            return ids
        column = cls()
        column.extend([str(i) for i in ids])
        return column

    def extend(self, ids: list[str]) -> None:
        import zstandard

        joined = "".join(ids)
        if joined.isascii():
            data = joined.encode("ascii")
            lengths = np.fromiter(map(len, ids), dtype=np.uint32, count=len(ids))
        else:
            encoded = [i.encode("utf-8", "backslashreplace") for i in ids]
            lengths = np.fromiter(map(len, encoded), dtype=np.uint32, count=len(ids))
            data = b"".join(encoded)
        pack = zstandard.ZstdCompressor(level=1).compress
        self._blocks.append((pack(lengths.tobytes()), pack(data)))
        self._count += len(ids)

    def __len__(self) -> int:
        return self._count

    def buffers(self) -> tuple[np.ndarray, bytes]:
        """Every id at once: offsets (int64, shape (n + 1,)) into UTF-8 bytes."""
        import zstandard

        unpack = zstandard.ZstdDecompressor().decompress
        lengths = [np.frombuffer(unpack(lens), dtype=np.uint32) for lens, _ in self._blocks]
        offsets = np.zeros(self._count + 1, dtype=np.int64)
        if lengths:
            np.cumsum(np.concatenate(lengths), out=offsets[1:])
        return offsets, b"".join(unpack(data) for _, data in self._blocks)

    def tolist(self) -> list[str]:
        offsets, data = self.buffers()
        off = offsets.tolist()
        return [data[a:b].decode("utf-8") for a, b in itertools.pairwise(off)]

    def arrow(self):
        """The ids as an Arrow ``large_string`` array, built from the buffers."""
        import pyarrow as pa

        offsets, data = self.buffers()
        buffers = [None, pa.py_buffer(offsets), pa.py_buffer(data)]
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
