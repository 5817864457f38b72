"""Completed stages of a Dask run kept on disk, so that a client that dies (or is stopped)
does not lose the run: started again with the same input, settings and ``--out``, the engine
takes up what is done.

What is kept, in ``OUT/.nearsim-work/`` (shared storage: the workers write it), and at what
granularity:

- **signatures**, per partition: each read-and-sign task writes its partition (validity,
  signatures, copy keys, ids, the reader's report) when it finishes; a restarted run loads
  every partition already there and reads and signs only the others;
- **pairs**, per stage: the accepted pairs of every partition and the count of candidates
  and exact copies, marked complete when the whole verification stage is written;
- **clusters**, per stage: every partition's roots, similarities and sizes, and the member
  check's count, marked complete likewise.

The work folder belongs to one run: ``manifest.json`` holds a fingerprint of the input files
(path, size, modification time), the partition plan and every option that changes the
output; a run whose fingerprint differs removes the folder and starts afresh. A finished
run removes it. Each file is written under a temporary name and renamed, so a killed worker
or client never leaves half a file behind. The files are NumPy arrays in ``.npz`` files with
a JSON header (strings as UTF-8 bytes and offsets), loaded with ``allow_pickle=False``: a
work folder holds no pickle, so reading one runs no code from it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pandas as pd

WORK = ".nearsim-work"
STAGES = ("signatures", "pairs", "clusters")


# -- the files: NumPy arrays in an .npz, never a pickle ------------------------------------
def _strings(values: list) -> dict[str, np.ndarray]:
    """A list of str (None allowed) as UTF-8 bytes, offsets and a None mask."""
    encoded = [b"" if v is None else v.encode("utf-8", "surrogatepass") for v in values]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, encoded), np.int64, count=len(encoded)), out=offsets[1:])
    return {
        "bytes": np.frombuffer(b"".join(encoded), dtype=np.uint8),
        "offsets": offsets,
        "none": np.fromiter((v is None for v in values), dtype=bool, count=len(values)),
    }


def _unstrings(held, prefix: str) -> list:
    data = held[f"{prefix}.bytes"].tobytes()
    offsets = held[f"{prefix}.offsets"].tolist()
    none = held[f"{prefix}.none"].tolist()
    return [
        None if gone else data[a:b].decode("utf-8", "surrogatepass")
        for a, b, gone in zip(offsets[:-1], offsets[1:], none, strict=True)
    ]


def _write(arrays: dict[str, np.ndarray], meta: dict, path: Path) -> None:
    """Arrays and a JSON header in one uncompressed .npz, written under a temporary name
    and renamed (a reader never sees half a file)."""
    arrays = dict(arrays, meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with open(tmp, "wb") as out:
        np.savez(out, **arrays)
    os.replace(tmp, path)


def _read(path: Path) -> tuple[dict[str, np.ndarray], dict]:
    with np.load(path, allow_pickle=False) as held:
        arrays = {k: held[k] for k in held.files}
    return arrays, json.loads(arrays.pop("meta").tobytes())


def save_part(part, path: Path) -> None:
    """A :class:`nearsim.run.dask_read.Part` (read without an error)."""
    arrays = {
        "valid": part.valid,
        "signatures": part.signatures,
        "keys": part.keys,
        "positions": part.positions,
    }
    if part.given_ids is not None:
        arrays |= {f"ids.{k}": v for k, v in _strings(part.given_ids).items()}
    for i, column in enumerate(part.fields.values()):
        arrays |= {f"field{i}.{k}": v for k, v in _strings(column.values).items()}
        arrays[f"field{i}.codes"] = column.codes
    meta = {
        "records": part.records,
        "report": asdict(part.report),
        "seconds": part.seconds,
        "fields": list(part.fields),
        "ids": part.given_ids is not None,
    }
    _write(arrays, meta, path)


def load_part(path: Path):
    from nearsim.io.corpora import CorpusReport
    from nearsim.run.dask_read import FieldColumn, Part

    arrays, meta = _read(path)
    fields = {
        name: FieldColumn(_unstrings(arrays, f"field{i}"), arrays[f"field{i}.codes"])
        for i, name in enumerate(meta["fields"])
    }
    return Part(
        arrays["valid"],
        arrays["signatures"],
        arrays["keys"],
        _unstrings(arrays, "ids") if meta["ids"] else None,
        arrays["positions"],
        meta["records"],
        CorpusReport(**meta["report"]),
        None,
        meta["seconds"],
        fields,
    )


def save_items(items: tuple, path: Path) -> None:
    """A stage's result for one partition: a tuple of arrays, DataFrames of numeric
    columns and ints."""
    arrays, kinds = {}, []
    for i, item in enumerate(items):
        if isinstance(item, np.ndarray):
            arrays[str(i)] = item
            kinds.append("array")
        elif isinstance(item, pd.DataFrame):
            arrays |= {f"{i}.{c}": item[c].to_numpy() for c in item.columns}
            kinds.append(["frame", list(item.columns)])
        else:
            kinds.append(["int", int(item)])
    _write(arrays, {"items": kinds}, path)


def load_items(path: Path) -> tuple:
    arrays, meta = _read(path)
    out = []
    for i, kind in enumerate(meta["items"]):
        if kind == "array":
            out.append(arrays[str(i)])
        elif kind[0] == "frame":
            out.append(pd.DataFrame({c: arrays[f"{i}.{c}"] for c in kind[1]}))
        else:
            out.append(kind[1])
    return tuple(out)


def fingerprint(files: list[Path], plan: list, options: dict) -> str:
    """A digest of the input files (path, size, modification time), the partition plan
    and the options that change the output."""
    described = {
        "files": [[str(p), p.stat().st_size, p.stat().st_mtime_ns] for p in files],
        "plan": [[list(map(repr, part))] for part in plan],
        "options": options,
    }
    return hashlib.sha256(json.dumps(described, sort_keys=True).encode()).hexdigest()


class Work:
    """The work folder of one run (``None`` folder: nothing is kept).

    Parameters
    ----------
    out : Path or None
        The run's output folder.
    key : str
        :func:`fingerprint` of this run.
    """

    def __init__(self, out: Path | None, key: str) -> None:
        self.folder = None if out is None else out / WORK
        self.key = key
        if self.folder is None:
            return
        manifest = self.folder / "manifest.json"
        if manifest.exists():
            try:
                same = json.loads(manifest.read_text()).get("key") == key
            except (OSError, ValueError):
                same = False
            if not same:
                shutil.rmtree(self.folder, ignore_errors=True)
        for stage in STAGES:
            (self.folder / stage).mkdir(parents=True, exist_ok=True)
        if not manifest.exists():
            tmp = self.folder / ".manifest.json.tmp"
            tmp.write_text(json.dumps({"key": key}) + "\n")
            os.replace(tmp, manifest)

    def part(self, stage: str, index: int) -> str | None:
        """Where a partition's result of ``stage`` is kept (None: not kept)."""
        if self.folder is None:
            return None
        return str(self.folder / stage / f"part-{index:05d}.npz")

    def done(self, stage: str) -> dict | None:
        """The figures saved when ``stage`` was completed, or None."""
        if self.folder is None:
            return None
        path = self.folder / stage / "done.json"
        return json.loads(path.read_text()) if path.exists() else None

    def mark(self, stage: str, figures: dict) -> None:
        """Mark ``stage`` complete (after every partition's file is written)."""
        if self.folder is None:
            return
        path = self.folder / stage / "done.json"
        tmp = path.with_name(".done.json.tmp")
        tmp.write_text(json.dumps(figures) + "\n")
        os.replace(tmp, path)

    def signed(self) -> int:
        """How many partitions' signatures are on disk."""
        if self.folder is None:
            return 0
        return len(list((self.folder / "signatures").glob("part-*.npz")))

    def remove(self) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


# -- what the workers run ---------------------------------------------------------------
def read_or_load(pieces, path: str | None, settings, reading):
    """A partition's :class:`nearsim.run.dask_read.Part`: loaded from ``path`` when an
    earlier run kept it, else read and signed (and kept there, unless reading failed)."""
    from nearsim.run.dask_read import read_partition

    if path is not None and os.path.exists(path):
        return load_part(Path(path))
    part = read_partition(pieces, settings, reading)
    if path is not None and part.error is None:
        save_part(part, Path(path))
    return part


def keep(value: tuple, path: str) -> tuple:
    """Write a stage's result for one partition (:func:`save_items`); returns it unchanged."""
    save_items(value, Path(path))
    return value


def kept(path: str) -> tuple:
    """A stage's result for one partition, as :func:`keep` wrote it."""
    return load_items(Path(path))
