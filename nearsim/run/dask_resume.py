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
or client never leaves half a file behind.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
from pathlib import Path

WORK = ".nearsim-work"
STAGES = ("signatures", "pairs", "clusters")


def _save(value, path: Path) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with open(tmp, "wb") as out:
        pickle.dump(value, out, protocol=5)
    os.replace(tmp, path)


def _load(path: Path):
    with open(path, "rb") as stream:
        return pickle.load(stream)


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
        return str(self.folder / stage / f"part-{index:05d}.pickle")

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
        return len(list((self.folder / "signatures").glob("part-*.pickle")))

    def remove(self) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


# -- what the workers run ---------------------------------------------------------------
def read_or_load(pieces, path: str | None, settings, reading):
    """A partition's :class:`nearsim.run.dask_read.Part`: loaded from ``path`` when an
    earlier run kept it, else read and signed (and kept there, unless reading failed)."""
    from nearsim.run.dask_read import read_partition

    if path is not None and os.path.exists(path):
        return _load(Path(path))
    part = read_partition(pieces, settings, reading)
    if path is not None and part.error is None:
        _save(part, Path(path))
    return part


def keep(value, path: str):
    """Write a stage's result for one partition; returns it unchanged."""
    _save(value, Path(path))
    return value


def kept(path: str):
    """A stage's result for one partition, as :func:`keep` wrote it."""
    return _load(Path(path))
