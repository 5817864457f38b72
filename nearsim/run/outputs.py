"""The files a corpus run writes — ``clusters``, ``pairs`` and ``summary.json`` — each
written whole or not at all.

Both engines return a :class:`nearsim.run.result.DedupResult` and :func:`write_outputs`
writes it. Nothing here loads pandas unless a CSV or JSON lines table is asked for:
Parquet is written from the arrays' buffers through pyarrow.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from nearsim.run.options import FORMATS
from nearsim.run.progress import Clock
from nearsim.run.result import DedupResult, IdColumn, frame
from nearsim.utils.arrays import arrow_array
from nearsim.utils.validation import check_bool, check_choice


def arrow_column(values):
    """One column as an Arrow array, built from its buffers: ``pyarrow.array`` imports
    pandas (0.25 s) to ask whether its input is a pandas object, and a run has no pandas.

    An IdColumn or a list of str becomes ``large_string`` (what pandas writes its ``str``
    dtype as), a bool array Arrow's packed bits, another array its own type.
    """
    if isinstance(values, list):
        values = IdColumn.of(values)
    if isinstance(values, IdColumn):
        return values.arrow()
    return arrow_array(values)


def write_table(columns: dict, path: str | os.PathLike, fmt: str) -> None:
    """Write the columns: Parquet through pyarrow, CSV and JSON lines through pandas.

    Parameters
    ----------
    columns : dict of str to ndarray, list of str or IdColumn
        Equal lengths; ids as an IdColumn or a list of str.
    path : path
        The file (written as it is: callers write a temporary name and rename it).
    fmt : {"parquet", "csv", "jsonl"}
    """
    if fmt == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        arrays = [arrow_column(v) for v in columns.values()]
        pq.write_table(pa.Table.from_arrays(arrays, names=list(columns)), path)
    elif fmt == "csv":
        frame(columns).to_csv(path, index=False)
    else:
        frame(columns).to_json(path, orient="records", lines=True, force_ascii=False)


def publish(tmp: Path, final: Path) -> None:
    """Put a finished file or folder ``tmp`` in place of ``final`` (a file or a folder of
    parts, which an older run may have left): renamed, never copied, so ``final`` is
    always an older run's whole output, nothing, or this run's whole output."""
    old = final.with_name(f".{final.name}.old-{os.getpid()}")
    if (final.is_dir() and not final.is_symlink()) or (tmp.is_dir() and final.exists()):
        os.replace(final, old)  # a file over a file is replaced in one step below
    try:
        os.replace(tmp, final)
    finally:
        if old.is_dir():
            import shutil

            shutil.rmtree(old, ignore_errors=True)
        else:
            old.unlink(missing_ok=True)


def write_summary(summary: dict, out: Path) -> Path:
    """Write ``summary.json`` last, whole (a temporary name, then renamed)."""
    path = out / "summary.json"
    tmp = out / f".summary.json.tmp-{os.getpid()}"
    tmp.write_text(json.dumps(summary, indent=2) + "\n")
    os.replace(tmp, path)
    return path


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
    clock = Clock(check_bool(progress, "progress"))
    written = []
    with clock.stage("write", f"writing {out}"):
        tables = (("clusters", result.cluster_columns()), ("pairs", result.pair_columns()))
        for name, table in tables:
            path = out / f"{name}.{fmt}"
            tmp = out / f".{name}.{fmt}.tmp-{os.getpid()}"
            try:
                write_table(table, tmp, fmt)
                publish(tmp, path)
            finally:
                tmp.unlink(missing_ok=True)
            written.append(path)
    summary = result.summary()
    summary["seconds"]["write"] = round(clock.seconds["write"], 3)
    if summary["cpu_seconds"]:
        summary["cpu_seconds"]["write"] = round(clock.cpu["write"], 3)
    summary["format"] = fmt
    written.append(write_summary(summary, out))
    return written
