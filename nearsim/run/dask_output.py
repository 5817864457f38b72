"""The tables of a Dask run: written by the workers as folders of parts (``clusters.<fmt>/``,
``pairs.<fmt>/``, then ``summary.json``), or gathered on the client into a
:class:`nearsim.run.result.DedupResult` (the library call without an output folder).

Each table's parts are written into a temporary folder beside the final one and renamed
into place when all are written (:func:`nearsim.run.outputs.publish`), so a table appears
whole or not at all; ``summary.json`` is written last.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from nearsim.run import dask_clusters as dc
from nearsim.run.result import DedupResult


def show(client, futures, bar: bool) -> None:
    """Wait for futures (or persisted collections), with Dask's progress bar on stderr
    when ``bar``."""
    from distributed import progress, wait

    if bar:
        with contextlib.redirect_stdout(sys.stderr):
            progress(futures)
    wait(futures)


@dataclass
class WrittenRun:
    """What :func:`nearsim.run.dask_engine.dedup_dask` returns when the workers write the output.

    Attributes
    ----------
    summary : dict
        The figures of ``summary.json`` (as written).
    files : list of Path
        ``clusters.<fmt>`` and ``pairs.<fmt>`` (folders of parts) and ``summary.json``.
    read_report : str
        What the readers read and skipped, in one line.
    """

    summary: dict
    files: list
    read_report: str


def pair_tables(run, pairs, exact: bool) -> list:
    """Futures of the accepted pairs' columns per row partition of their ``a``."""
    import dask

    if not run.used:
        return []
    by_a = pairs.set_index("a", divisions=[*run.starts, run.n]).to_delayed()
    return run.client.compute([dask.delayed(dc.pair_columns)(p, exact) for p in by_a])


def workers_peak(client) -> int:
    from nearsim.run.result import peak_memory_bytes

    return max(client.run(peak_memory_bytes).values(), default=0)


def gathered(run, tables: dict, figures: dict, extra: dict, exact: bool) -> DedupResult:
    """The tables gathered on the client, as a DedupResult (every document's row there:
    for corpora that fit one machine's memory)."""
    with run.clock.stage("gather", "gathering the tables"):
        parts = [run.parts[i] for i in run.used]
        valid = run.client.gather([run.client.submit(dc.valid_of, p, pure=False) for p in parts])
        clusters = concat(run.client.gather(tables["clusters"]), EMPTY_CLUSTERS)
        pair_cols = concat(run.client.gather(tables["pairs"]), empty_pairs(exact))
    del run.parts
    cluster = np.asarray(clusters["cluster"], dtype=np.int64)
    labels = np.unique(cluster, return_inverse=True)[1].astype(np.int64).reshape(-1)
    pairs = np.stack([pair_cols["a"], pair_cols["b"]], axis=1).astype(np.int64)
    extra["workers_peak_memory_bytes"] = workers_peak(run.client)
    return DedupResult(
        settings=run.settings,
        ids=list(clusters["id"]),
        valid=np.concatenate(valid) if valid else np.zeros(0, bool),
        labels=labels,
        candidates=figures["candidates"],
        pairs=pairs.reshape(-1, 2),
        estimates=np.asarray(pair_cols["estimate"], dtype=np.float64),
        jaccard=np.asarray(pair_cols["jaccard"], dtype=np.float64) if exact else None,
        verify=run.verify,
        similarity=np.asarray(clusters["similarity_to_kept"], dtype=np.float64),
        exact_duplicates=figures["exact_duplicates"],
        split_off=figures["split_off"],
        cluster_check=run.cluster_check,
        seconds=run.clock.seconds,
        read_report=run.report.summary(),
        extra=extra,
    )


def written(run, tables: dict, figures: dict, extra: dict, out: Path, fmt: str) -> WrittenRun:
    """The workers write each table as parts in a temporary folder; renamed when whole,
    ``summary.json`` last."""
    from nearsim.run.outputs import prepare_output, publish, write_summary
    from nearsim.run.result import _query_string, peak_memory_bytes

    out = prepare_output(out)
    files = []
    with run.clock.stage("write", f"the workers write {out}"):
        for name in ("clusters", "pairs"):
            final = out / f"{name}.{fmt}"
            tmp = out / f".{name}.{fmt}.tmp-{os.getpid()}"
            shutil.rmtree(tmp, ignore_errors=True)
            tmp.mkdir()
            try:
                futures = tables[name]
                if futures:
                    done = [
                        run.client.submit(dc.write_part, c, str(tmp), i, fmt, pure=False)
                        for i, c in enumerate(futures)
                    ]
                    show(run.client, done, run.clock.show)
                    run.client.gather(done)
                else:  # no documents: one empty part, so that the table can be read
                    empty = (
                        EMPTY_CLUSTERS if name == "clusters" else empty_pairs(run.verify == "exact")
                    )
                    dc.write_part(empty, str(tmp), 0, fmt)
                publish(tmp, final)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
            files.append(final)
    del run.parts, tables
    summary = {
        **figures,
        "settings": _query_string(run.settings),
        "verify": run.verify,
        "seconds": {k: round(v, 3) for k, v in run.clock.seconds.items()},
        "cpu_seconds": {},
        "peak_memory_bytes": peak_memory_bytes(),
        "workers_peak_memory_bytes": workers_peak(run.client),
        **extra,
        "read": run.report.summary(),
        "format": fmt,
    }
    files.append(write_summary(summary, out))
    run.work.remove()  # the run is whole: what was kept for a restart is not needed
    return WrittenRun(summary, files, run.report.summary())


EMPTY_CLUSTERS = {
    "row": np.zeros(0, np.int64),
    "id": [],
    "cluster": np.zeros(0, np.int64),
    "cluster_size": np.zeros(0, np.int64),
    "keep": np.zeros(0, bool),
    "similarity_to_kept": np.zeros(0, np.float64),
}


def empty_pairs(exact: bool) -> dict:
    out = {"a": np.zeros(0, np.int64), "b": np.zeros(0, np.int64)}
    out["estimate"] = np.zeros(0, np.float64)
    if exact:
        out["jaccard"] = np.zeros(0, np.float64)
    return out


def concat(tables: list[dict], empty: dict) -> dict:
    """Column dicts of parts, one after another."""
    if not tables:
        return empty
    out = {}
    for name in tables[0]:
        values = [t[name] for t in tables]
        if isinstance(values[0], list):
            out[name] = [v for part in values for v in part]
        else:
            out[name] = np.concatenate(values)
    return out
